"""The Wasserstein mechanism (Song, Wang & Chaudhuri, "Pufferfish privacy mechanisms
for correlated data", SIGMOD 2017, §3).

For the Pufferfish framework whose secrets are ``X_i = x`` (every record ``i``, every value ``x``
of positive probability) and a single data distribution ``theta`` (the model), the mechanism
releases ``F(X) + Lap(W / eps)`` with

``W = sup_{i, x != x'} W_inf( law(F(X) | X_i = x), law(F(X) | X_i = x') )``.

In one dimension ``W_inf(mu, nu) = sup_{u in (0, 1)} |Q_mu(u) - Q_nu(u)|`` (quantile functions).
Both conditional laws are finite and exact here (the forward recursion of a Markov chain, the
pedigree count law), so ``W`` is exact — including its dependence on events of tiny probability,
which ``W_inf`` has by definition (the extreme quantiles count as much as the median).

:func:`w_infinity` evaluates the sup exactly from the two CDFs: for an atom ``y`` of ``nu`` with
``u in (F_nu(y-), F_nu(y)]`` the quantile ``Q_nu`` is ``y`` and ``Q_mu`` is largest at
``u = F_nu(y)``, so ``sup_u (Q_mu - Q_nu) = max_y Q_mu(F_nu(y)) - y`` (and symmetrically).
``Q_mu(F_nu(y)) = min{z : F_mu(z) >= F_nu(y)}`` is decided on lower CDFs where
``F_nu(y) <= 1/2`` and on upper tails ``P(> z)`` otherwise, each summed from its own end, so
tail levels keep their relative precision; levels equal to relative ``1e-12`` count as equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from ..core.errors import ConfigError, NotAvailable, check
from ..kernels.chains.lattice import lattice, query_values
from ..models.pedigree.model import PedigreeModel, genotype_states
from ..models.protocols import HasCountLaw, MarkovChain

LEVEL_RTOL = 1e-12
MAX_LAW_CELLS = 10_000_000  # n * s * (n max g + 1) doubles per table of conditional laws


def _law(atoms, probs) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sorted positive-mass atoms with ``F(z) = P(<= z)`` and ``S(z) = P(> z)``."""
    x = np.asarray(atoms, dtype=float)
    p = np.asarray(probs, dtype=float)
    check(
        x.shape == p.shape and x.ndim == 1 and x.size > 0,
        "law",
        (x.shape, p.shape),
        "atoms and probabilities must be 1-d arrays of the same length",
    )
    check(
        bool(np.all(np.isfinite(x)))
        and bool(np.all(np.isfinite(p)))
        and bool(np.all(p >= 0))
        and p.sum() > 0,
        "law",
        "probabilities",
        "must be finite, >= 0, with positive total",
    )
    keep = p > 0
    x, p = x[keep], p[keep] / p[keep].sum()
    o = np.argsort(x, kind="stable")
    x, p = x[o], p[o]
    if np.any(np.diff(x) == 0):  # merge repeated atoms
        x, inv = np.unique(x, return_inverse=True)
        p = np.bincount(inv, weights=p)
    F = np.cumsum(p)
    S = np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])
    return x, p, F, S


def _reach(x_mu, F_mu, S_mu, F_lev, S_lev) -> np.ndarray:
    """``Q_mu`` at the levels ``u`` given as ``(F_lev = u, S_lev = 1 - u)``: the first atom ``z``
    of ``mu`` with ``F_mu(z) >= u`` (tolerance :data:`LEVEL_RTOL`)."""
    out = np.empty(F_lev.size)
    low = F_lev <= 0.5
    # lower half: F_mu(z) >= u (1 - rtol); F_mu is non-decreasing
    j = np.searchsorted(F_mu, F_lev[low] * (1 - LEVEL_RTOL), side="left")
    out[low] = x_mu[np.minimum(j, x_mu.size - 1)]
    # upper half: S_mu(z) <= (1 - u)(1 + rtol); S_mu is non-increasing
    neg = -S_mu
    j = np.searchsorted(neg, -(S_lev[~low] * (1 + LEVEL_RTOL)), side="left")
    out[~low] = x_mu[np.minimum(j, x_mu.size - 1)]
    return out


def w_infinity(atoms_mu, probs_mu, atoms_nu, probs_nu) -> float:
    """``W_inf(mu, nu) = sup_u |Q_mu(u) - Q_nu(u)|`` of two finite laws on the real line.

    Parameters
    ----------
    atoms_mu, probs_mu : array_like
        Atoms and (non-negative, not necessarily normalised) probabilities of ``mu``.
    atoms_nu, probs_nu : array_like
        The same for ``nu``.

    Returns
    -------
    float
        The infinity-Wasserstein distance (exact, see the module docstring).
    """
    xm, _, Fm, Sm = _law(atoms_mu, probs_mu)
    xn, _, Fn, Sn = _law(atoms_nu, probs_nu)
    up = np.max(_reach(xm, Fm, Sm, Fn, Sn) - xn)  # sup (Q_mu - Q_nu), at the levels F_nu(y)
    down = np.max(_reach(xn, Fn, Sn, Fm, Sm) - xm)  # sup (Q_nu - Q_mu), at the levels F_mu(z)
    return float(max(up, down, 0.0))


def quantile(atoms, probs, u) -> np.ndarray:
    """``Q(u) = min{z : F(z) >= u}`` by a plain search on the cumulative sum (for checks)."""
    x, _, F, _ = _law(atoms, probs)
    j = np.searchsorted(F, np.asarray(u, dtype=float), side="left")
    return x[np.minimum(j, x.size - 1)]


@dataclass(frozen=True)
class WassersteinResult:
    """``W`` and the secret pair attaining it: record ``i`` (0-indexed), values ``x, x_prime``."""

    W: float
    i: int
    x: int
    x_prime: int
    pairs: int

    def scale(self, epsilon: float) -> float:
        """The mechanism's Laplace scale ``W / eps``."""
        return self.W / float(epsilon)


def sup_over_secret_pairs(laws: dict, n: int) -> WassersteinResult:
    """``W = max`` over records ``i < n`` and value pairs ``x < x'`` present in ``laws`` (``{(i, x):
    (atoms, probs)}``) of :func:`w_infinity`."""
    best, arg, pairs = -1.0, (0, 0, 0), 0
    for i in range(n):
        vals = sorted(v for (j, v) in laws if j == i)
        for a in range(len(vals)):
            for b in range(a + 1, len(vals)):
                x, xp = vals[a], vals[b]
                w = w_infinity(*laws[i, x], *laws[i, xp])
                pairs += 1
                if w > best:
                    best, arg = w, (i, x, xp)
    if pairs == 0:
        raise ConfigError("model", "deterministic", "no record has two values of positive probability")
    return WassersteinResult(best, *arg, pairs)


def markov_laws(model, values: np.ndarray, targets: Sequence[int] | None = None) -> dict:
    """``{(i, x): (atoms, probs)}``: law of ``sum_t values[X_t]`` given ``X_i = x`` for every
    target ``i`` and value ``x`` of positive probability.

    Given ``X_i = x`` the records before and after ``i`` are independent, so the law is
    ``delta_{g(x)} * left_i(x) * right_{n-1-i}(x)`` (lattice units ``g``): ``left_i(x, k) ∝
    P(X_i = x, sum_{t<i} g(X_t) = k)`` from one forward recursion from the start law and
    ``right_j(x, k) = P(sum_{u=1..j} g(X_{i+u}) = k | X_i = x)`` from one backward recursion,
    ``O(n^2 s^2)``, then one direct convolution per ``(i, x)`` (positive terms only).
    """
    g, delta, fmin = lattice(np.asarray(values, dtype=float))
    n, s = model.n, model.states
    P, w = np.asarray(model.transition), np.asarray(model.initial)
    G = int(g.max())
    K = n * G + 1
    if n * s * K > MAX_LAW_CELLS:
        raise NotAvailable(
            f"the conditional laws of every record need n s (n Delta + 1) = {n * s * K:.3g} "
            f"cells (limit {MAX_LAW_CELLS:.0e}): n is too large for the Wasserstein scale"
        )
    targets = range(n) if targets is None else [int(t) for t in targets]
    need = max(targets) + 1
    left = np.zeros((need, s, K))
    a = np.zeros((s, K))
    a[:, 0] = w
    for t in range(need):
        left[t] = a
        nxt = np.zeros_like(a)
        for y in range(s):
            if g[y]:
                nxt[:, g[y] :] += np.outer(P[y], a[y, : K - g[y]])
            else:
                nxt += np.outer(P[y], a[y])
        z = nxt.sum()
        a = nxt / z if z > 0 else nxt
    right = np.zeros((n, s, K))
    b = np.zeros((s, K))
    b[:, 0] = 1.0
    for j in range(n):
        right[j] = b
        shifted = np.zeros_like(b)  # shifted[y, k] = b[y, k - g(y)]
        for y in range(s):
            shifted[y, g[y] :] = b[y, : K - g[y]]
        b = P @ shifted
    atoms = n * fmin + delta * np.arange(K, dtype=float)
    out = {}
    for i in targets:
        for x in range(s):
            lx = left[i, x]
            if lx.sum() <= 0:
                continue
            law = np.convolve(lx / lx.sum(), right[n - 1 - i, x])[:K]
            law = np.concatenate([np.zeros(g[x]), law])[:K]
            out[i, x] = (atoms, law / law.sum())
    return out


def pedigree_laws(model, counted: Sequence) -> dict:
    """``{(i, x): (atoms, probs)}`` of a pedigree's count of ``counted`` given ``X_i = x``."""
    out = {}
    atoms = np.arange(model.n + 1, dtype=float)
    for i in range(model.n):
        for x in range(3):
            try:
                out[i, x] = (atoms, model.count_law({i: x}, counted))
            except ConfigError:  # P(X_i = x) = 0: not a secret of the framework
                continue
    return out


def wasserstein_scale(
    model, *, counted_states: Sequence | None = None, state_values: Sequence[float] | None = None
) -> WassersteinResult:
    """``W`` for a count (or, on a Markov chain, a state sum) on a Markov chain or a pedigree.

    Parameters
    ----------
    model : MarkovChainModel or PedigreeModel
    counted_states : sequence, optional
        Counted states (chain default: state 1; pedigree default: ``["BB"]``).
    state_values : sequence of float, optional
        Per-state query values (Markov chains only).

    Returns
    -------
    WassersteinResult
        ``W`` and the secret pair attaining it; the mechanism for eps-Pufferfish privacy adds
        ``Lap(W / eps)`` (:meth:`WassersteinResult.scale`).
    """
    if isinstance(model, MarkovChain):
        values = query_values(model.states, counted_states, state_values)
        return sup_over_secret_pairs(markov_laws(model, values), model.n)
    if isinstance(model, HasCountLaw):  # a pedigree
        if state_values is not None:
            raise ConfigError("state_values", list(state_values), "pedigrees take a count (counted_states)")
        counted = genotype_states(list(counted_states) if counted_states is not None else ["BB"])
        n = cast(PedigreeModel, model).n  # the HasCountLaw model kind
        return sup_over_secret_pairs(pedigree_laws(model, counted), n)
    raise ConfigError("model", type(model).__name__, "must be a MarkovChainModel or a PedigreeModel")


__all__ = [
    "WassersteinResult",
    "markov_laws",
    "pedigree_laws",
    "quantile",
    "sup_over_secret_pairs",
    "w_infinity",
    "wasserstein_scale",
]
