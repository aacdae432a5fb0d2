"""Exact adversary-specific BDPL where the (model, mechanism) pair allows it (thesis §3, paper §5–6).

The table of (model, mechanism) pairs with an exact engine is :data:`bdpsim.estimators.engines.EXACT_ENGINES`.


* Markov chain + Laplace count: ``P(C = c | x_K, x_i)`` by the clamped forward recursion
  (:meth:`MarkovChainModel.count_law`), then the exact Laplace-mixture supremum over outputs.
* Gaussian + unclipped Laplace sum: ``BDPL_(K,i)(x, x') = |a| |x - x'| / beta`` with
  ``a = 1 + 1^T S_UT S_TT^{-1} e_i`` (the log-density of ``N(0, v) * Lap(beta)`` is
  ``1/beta``-Lipschitz with slopes tending to ``±1/beta``: the sup is reached in the tails).
* Gaussian + clipped sum when no unknown record depends on the target given the known ones
  (conditional gain ``S_UT S_TT^{-1} e_i = 0``; e.g. independent records, or ``U`` empty): the
  remaining sum is bounded and its law does not depend on ``x_i``, so the sup is the tail value
  ``|clip(x) - clip(x')| / b``.

Anything else raises :class:`~bdpsim.errors.NotAvailable` (use the mixture estimator).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..adversary import Adversary, known_sets
from ..errors import NotAvailable
from ..mechanisms import ClippedSum, LaplaceCount, LaplaceSum
from ..models import GaussianModel, MarkovChainModel
from ..models.markov import additive_lattice
from .base import Estimate
from ..kernels.laplace_mixture import grid_mixture_sup


def _markov_count(model: MarkovChainModel, mech, adv: Adversary) -> Estimate:
    """Exact ``BDPL_(K,i)(x, x')`` of an additive query (count or state sum) on a chain: both laws
    by the clamped forward recursion, then the exact sup of two Laplace mixtures."""
    pos = list(adv.known) + [adv.i]
    vals = np.array([list(adv.x_known) + [adv.x], list(adv.x_known) + [adv.x_prime]])
    g, delta, fmin = additive_lattice(mech, model.states)
    allowed = np.ones((2, model.n, model.states))
    for j, p in enumerate(pos):
        allowed[:, p, :] = 0.0
        allowed[np.arange(2), p, vals[:, j]] = 1.0
    law, logev = model.additive_law_masked(allowed, g)
    if not np.all(np.isfinite(logev)):
        raise NotAvailable(f"adversary {adv}: a conditioning event has probability zero")
    with np.errstate(divide="ignore"):
        lw = np.log(law)
    atoms = model.n * fmin + delta * np.arange(law.shape[1], dtype=float)
    v, where = grid_mixture_sup(lw[:1], lw[1:], atoms, mech.noise_scale)
    return Estimate(float(v[0]), 0, float(where[0]))


def gaussian_sum_coefficient(model: GaussianModel, i: int, known: Sequence[int]) -> float:
    """``a = 1 + 1^T S_UT S_TT^{-1} e_i``: the slope of ``E[sum X | x_K, x_i]`` in ``x_i``."""
    cond = model.conditional({k: 0.0 for k in (*known, i)})
    col = list(cond.known).index(i)
    return 1.0 + float(cond.gain[:, col].sum())


def _gaussian_sum(model: GaussianModel, mech: LaplaceSum, adv: Adversary) -> Estimate:
    a = gaussian_sum_coefficient(model, adv.i, adv.known)
    return Estimate(abs(a) * abs(adv.x - adv.x_prime) / mech.noise_scale, 0, np.inf)


def _clipped_sum(model: GaussianModel, mech: ClippedSum, adv: Adversary) -> Estimate:
    """Exact when the unknown records' conditional law does not depend on ``x_i``: the gain
    ``S_UT S_TT^{-1} e_i`` is zero (``T = K ∪ {i}``). Then the output is ``clip(x_i)`` plus a
    bounded term whose law is the same under ``x`` and ``x'``, plus ``Lap(b)``, and the sup is the
    tail value ``|clip(x) - clip(x')| / b``."""
    cond = model.conditional(adv.condition(0.0))
    col = list(cond.known).index(adv.i)
    if cond.unknown and np.any(np.abs(cond.gain[:, col]) > 1e-12):
        raise NotAvailable(f"adversary {adv}: an unknown record depends on the target given the known "
                           "ones (no closed form; use estimator = 'mixture')")
    lo, hi = mech.clip
    d = abs(np.clip(adv.x, lo, hi) - np.clip(adv.x_prime, lo, hi))
    return Estimate(float(d / mech.noise_scale), 0, np.inf)


def _independent(model, mechanism) -> str | None:
    return None if model.is_independent else (
        "no exact BDPL for a correlated Gaussian with a clipped sum (only single adversaries whose "
        "unknown records do not depend on the target); use estimator = 'mixture'")


def _markov_limit(model: MarkovChainModel, sizes: Sequence[int]) -> str | None:
    total = model.n * sum(math.comb(model.n - 1, k) * model.states ** k for k in sizes)
    return None if total <= 5_000_000 else (
        f"'all' would examine {total} adversaries (limit 5e6); lower n or restrict known_sizes")


def _markov_window(model: MarkovChainModel, mech, min_known: int, top: int | None):
    """Window-reduced search over every adversary of an additive query on a chain."""
    from ..window import query_values, window_table

    values = getattr(mech, "state_values", None)
    f = query_values(model.states, getattr(mech, "counted_states", None) if values is None else None, values)
    return window_table(model, f, mech.noise_scale, min_known=min_known, top=top)


def _gaussian_limit(model: GaussianModel, sizes: Sequence[int]) -> str | None:
    return None if model.n <= 14 else f"model.n = {model.n}: exhaustive Gaussian search is limited to n <= 14"


@dataclass(frozen=True)
class ExactEngine:
    """One row of the exact-engine table.

    Parameters
    ----------
    model, mechanism : str
        Registry kinds of the pair.
    bdpl : callable
        ``(model, mechanism, adversary) -> Estimate``: exact ``BDPL_(K,i)(x, x')``.
    method : str
        How (for the docs and ``bdpsim validate``).
    requires : callable, optional
        ``(model, mechanism) -> None | reason``: a condition on the pair beyond the kinds.
    exhaustive : callable, optional
        ``(model, mechanism, sizes, targets) -> ExhaustiveResult``: every adversary.
    limit : callable, optional
        ``(model, sizes) -> None | reason``: refuses an exhaustive search too large to finish.
    window : callable, optional
        ``(model, mechanism, min_known, top) -> (WindowSearch, adversaries, cell values)``: the
        supremum over all adversaries with ``|K| >= min_known`` by the window reduction (paper
        data at full scale; :mod:`bdpsim.window`).
    """

    model: str
    mechanism: str
    bdpl: Callable
    method: str
    requires: Callable | None = None
    exhaustive: Callable | None = None
    limit: Callable | None = None
    window: Callable | None = None


# ---------------------------------------------------------------------------------- exhaustive

@dataclass(frozen=True)
class ExhaustiveResult:
    """All adversaries of an exhaustive search, column-wise (one entry per adversary).

    ``pattern[j, t]`` describes record ``t`` for adversary ``j``: ``-2`` the target, ``-1``
    unknown, ``>= 0`` known (the known value for Markov data; for Gaussian data the known values
    are the prior means ``values``, since the BDPL does not depend on them).
    """

    i: np.ndarray
    pattern: np.ndarray
    x: np.ndarray
    x_prime: np.ndarray
    value: np.ndarray
    argmax: np.ndarray
    values: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.value.size)

    @property
    def best(self) -> int:
        return int(np.argmax(self.value))

    def known(self, j: int) -> tuple[int, ...]:
        return tuple(int(t) for t in np.flatnonzero(self.pattern[j] >= 0))

    def x_known(self, j: int) -> tuple:
        k = np.flatnonzero(self.pattern[j] >= 0)
        if self.values is None:
            return tuple(int(v) for v in self.pattern[j, k])
        return tuple(float(self.values[t]) for t in k)

    def adversary(self, j: int) -> Adversary:
        return Adversary(int(self.i[j]), self.known(j), self.x_known(j),
                         self.x[j].item(), self.x_prime[j].item())

    @staticmethod
    def concat(parts: Sequence["ExhaustiveResult"], n: int = 0) -> "ExhaustiveResult":
        if not parts:  # no adversary with two positive-probability target values
            e = np.zeros(0)
            return ExhaustiveResult(e.astype(int), np.zeros((0, n), dtype=np.int8), e.astype(int), e.astype(int), e, e)
        cat = lambda name: np.concatenate([getattr(p, name) for p in parts])  # noqa: E731
        return ExhaustiveResult(cat("i"), cat("pattern"), cat("x"), cat("x_prime"), cat("value"),
                                cat("argmax"), parts[0].values if parts else None)


def exhaustive_markov_count(model: MarkovChainModel, mech: LaplaceCount,
                            sizes: Sequence[int], targets: Sequence[int] | None = None,
                            batch: int = 65_536) -> ExhaustiveResult:
    """Exact BDPL of every adversary ``(i, K, x_K, {x, x'})`` with ``|K|`` in ``sizes``.

    Each other record is either unknown or known with one of the ``s`` values, so for a target
    ``i`` there are ``(s + 1)^(n - 1)`` (known set, known values) combinations; their count laws
    under every ``x_i`` come from one batched clamped recursion
    (:meth:`MarkovChainModel.count_law_masked`), processed in batches of ``batch`` combinations.
    Each unordered pair ``x < x'`` is one adversary (the value is symmetric in ``x, x'``);
    conditions of probability zero are skipped. ``targets`` restricts the target indices.
    """
    n, s, b = model.n, model.states, mech.noise_scale
    atoms = np.arange(n + 1.0)
    sizes = set(int(k) for k in sizes)
    codes = np.array(list(itertools.product(range(-1, s), repeat=n - 1)), dtype=np.int8)
    codes = codes[np.isin((codes >= 0).sum(axis=1), list(sizes))]
    pairs = list(itertools.combinations(range(s), 2))
    parts = []
    for i in (range(n) if targets is None else targets):
        others = [j for j in range(n) if j != i]
        for start in range(0, codes.shape[0], batch):
            c = codes[start:start + batch]
            m = c.shape[0]
            allowed = np.empty((m, s, n, s))
            cols = (c[:, :, None] == -1) | (c[:, :, None] == np.arange(s)[None, None, :])
            allowed[:, :, others, :] = cols[:, None, :, :]
            allowed[:, :, i, :] = np.eye(s)[None, :, :]
            law, logev = model.count_law_masked(allowed.reshape(m * s, n, s), mech.counted_states)
            law = law.reshape(m, s, n + 1)
            ok = np.isfinite(logev).reshape(m, s)
            with np.errstate(divide="ignore", invalid="ignore"):
                lw = np.log(law)
            for x, xp in pairs:
                rows = np.flatnonzero(ok[:, x] & ok[:, xp])
                if rows.size == 0:
                    continue
                v, where = grid_mixture_sup(lw[rows, x], lw[rows, xp], atoms, b)
                pattern = np.full((rows.size, n), -2, dtype=np.int8)
                pattern[:, others] = c[rows]
                parts.append(ExhaustiveResult(np.full(rows.size, i), pattern, np.full(rows.size, x),
                                              np.full(rows.size, xp), v, where))
    return ExhaustiveResult.concat(parts, n)


def exhaustive_gaussian_sum(model: GaussianModel, mech: LaplaceSum, sizes: Sequence[int],
                            targets: Sequence[int] | None = None) -> ExhaustiveResult:
    """Exact ``BDPL_(K,i)(x, x') = |a| |x - x'| / beta`` for every ``(i, K)`` with the mechanism's
    ``target_values`` ``(x, x')`` (independent of ``x_K``, recorded as the prior means)."""
    if (why := _gaussian_limit(model, sizes)) is not None:
        raise NotAvailable(why)
    x, x_prime = mech.target_values
    rows, pats = [], []
    for i in (range(model.n) if targets is None else targets):
        for K in known_sets(model.n, i, sizes):
            a = gaussian_sum_coefficient(model, i, K)
            pat = np.full(model.n, -1, dtype=np.int8)
            pat[i] = -2
            pat[list(K)] = 0
            rows.append((i, abs(a) * abs(x - x_prime) / mech.noise_scale))
            pats.append(pat)
    m = len(rows)
    return ExhaustiveResult(np.array([r[0] for r in rows]), np.array(pats).reshape(m, model.n),
                            np.full(m, float(x)), np.full(m, float(x_prime)),
                            np.array([r[1] for r in rows]), np.full(m, np.inf), np.array(model.mean))

