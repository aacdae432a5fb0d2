"""Exact adversary-specific BDPL where the (model, mechanism) pair allows it (SCIENCE.md §5).

* Markov chain + Laplace count: ``P(C = c | x_K, x_i)`` by the clamped forward recursion
  (:meth:`MarkovChainModel.count_law`), then the exact Laplace-mixture supremum over outputs.
* Gaussian + unclipped Laplace sum: ``BDPL_(K,i)(x, x') = |a| |x - x'| / beta`` with
  ``a = 1 + 1^T S_UT S_TT^{-1} e_i`` (the log-density of ``N(0, v) * Lap(beta)`` is
  ``1/beta``-Lipschitz with slopes tending to ``±1/beta``: the sup is reached in the tails).
* Gaussian + clipped sum when nothing unknown is correlated with the target (independent records,
  or ``U`` empty): the remaining sum is bounded and independent of ``x_i``, so the sup is the tail
  value ``|clip(x) - clip(x')| / b``.

Anything else raises :class:`~bdpsim.errors.NotAvailable` (use the mixture estimator).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..adversary import Adversary
from ..errors import NotAvailable
from ..mechanisms import ClippedSum, LaplaceCount, LaplaceSum
from ..models import GaussianModel, MarkovChainModel
from .base import Estimate
from .laplace_mixture import grid_mixture_sup


def unavailable_reason(model, mechanism) -> str | None:
    """Why no exact value exists for this pair in general (``None`` when one always does)."""
    if isinstance(model, MarkovChainModel) and isinstance(mechanism, LaplaceCount):
        return None
    if isinstance(model, GaussianModel) and isinstance(mechanism, LaplaceSum):
        return None
    if isinstance(model, GaussianModel) and isinstance(mechanism, ClippedSum) and model.is_independent:
        return None
    return (f"no exact BDPL for model '{getattr(model, 'kind', model)}' with mechanism "
            f"'{getattr(mechanism, 'kind', mechanism)}' (only markov+count, gaussian+sum, "
            "independent gaussian+clipped_sum); use estimator = 'mixture'")


def _markov_count(model: MarkovChainModel, mech: LaplaceCount, adv: Adversary) -> Estimate:
    pos = list(adv.known) + [adv.i]
    vals = np.array([list(adv.x_known) + [adv.x], list(adv.x_known) + [adv.x_prime]])
    law, logev = model.count_law(pos, vals, mech.counted_states)
    if not np.all(np.isfinite(logev)):
        raise NotAvailable(f"adversary {adv}: a conditioning event has probability zero")
    with np.errstate(divide="ignore"):
        lw = np.log(law)
    v, where = grid_mixture_sup(lw[:1], lw[1:], np.arange(model.n + 1.0), mech.noise_scale)
    return Estimate(float(v[0]), 0, float(where[0]))


def gaussian_sum_coefficient(model: GaussianModel, i: int, known: Sequence[int]) -> float:
    """``a = 1 + 1^T S_UT S_TT^{-1} e_i``: the slope of ``E[sum X | x_K, x_i]`` in ``x_i``."""
    cond = model.conditional({k: 0.0 for k in (*known, i)})
    col = list(cond.known).index(i)
    return 1.0 + float(cond.gain[:, col].sum())


def adversary_bdpl(model, mechanism, adversary: Adversary) -> Estimate:
    """Exact ``sup_s |ln p(s | x_K, x) / p(s | x_K, x')|`` for one adversary."""
    if isinstance(model, MarkovChainModel) and isinstance(mechanism, LaplaceCount):
        return _markov_count(model, mechanism, adversary)
    if isinstance(model, GaussianModel) and isinstance(mechanism, LaplaceSum):
        a = gaussian_sum_coefficient(model, adversary.i, adversary.known)
        d = abs(adversary.x - adversary.x_prime)
        return Estimate(abs(a) * d / mechanism.noise_scale, 0, np.inf)
    if isinstance(model, GaussianModel) and isinstance(mechanism, ClippedSum):
        unknown = [j for j in range(model.n) if j != adversary.i and j not in adversary.known]
        if model.is_independent or not unknown or np.all(model.cov[adversary.i, unknown] == 0):
            lo, hi = mechanism.clip
            d = abs(np.clip(adversary.x, lo, hi) - np.clip(adversary.x_prime, lo, hi))
            return Estimate(float(d / mechanism.noise_scale), 0, np.inf)
    raise NotAvailable(unavailable_reason(model, mechanism) or "no exact value for this adversary")


@dataclass(frozen=True)
class ExactEstimator:
    """Exact per-adversary BDPL; noise floor 0 by construction."""

    name: str = field(default="exact", init=False)

    @staticmethod
    def supports(model, mechanism) -> str | None:
        return unavailable_reason(model, mechanism)

    def estimate(self, model, mechanism, adversary, rng=None) -> Estimate:
        return adversary_bdpl(model, mechanism, adversary)

    def null_estimate(self, model, mechanism, adversary, rng=None) -> Estimate:
        return Estimate(0.0)


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
    def concat(parts: Sequence["ExhaustiveResult"]) -> "ExhaustiveResult":
        cat = lambda name: np.concatenate([getattr(p, name) for p in parts])  # noqa: E731
        return ExhaustiveResult(cat("i"), cat("pattern"), cat("x"), cat("x_prime"), cat("value"),
                                cat("argmax"), parts[0].values if parts else None)


def _known_sets(n: int, i: int, sizes: Sequence[int]):
    others = [j for j in range(n) if j != i]
    for k in sizes:
        yield from itertools.combinations(others, k)


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
    return ExhaustiveResult.concat(parts)


def exhaustive_gaussian_sum(model: GaussianModel, mech: LaplaceSum, x: float, x_prime: float,
                            sizes: Sequence[int]) -> ExhaustiveResult:
    """Exact ``BDPL_(K,i)(x, x') = |a| |x - x'| / beta`` for every ``(i, K)`` (independent of
    ``x_K``, recorded as the prior means)."""
    if model.n > 14:
        raise NotAvailable(f"model.n = {model.n}: exhaustive Gaussian search is limited to n <= 14")
    rows, pats = [], []
    for i in range(model.n):
        for K in _known_sets(model.n, i, sizes):
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
