"""Exact BDPL of Laplace sums on a Gaussian model (thesis §6.4, paper §5).

* Unclipped sum + ``Lap(beta)``: ``Y | x_K, x_i = const + a x_i + N(0, v) + Lap(beta)`` with
  ``a = 1 + 1^T S_UT S_TT^{-1} e_i``; the log-density of ``N * Lap`` is ``1/beta``-Lipschitz with
  slopes tending to ``±1/beta``, so ``BDPL_(K,i)(x, x') = |a| |x - x'| / beta`` **exactly** (the sup
  is reached in the tails), and both one-sided suprema equal it.
* Clipped sum, when no unknown record depends on the target given the known ones (conditional gain
  ``S_UT S_TT^{-1} e_i = 0``; e.g. independent records, or ``U`` empty): the remaining sum is
  bounded and its law does not depend on ``x_i``, so the sup is the tail value
  ``|clip(x) - clip(x')| / b`` (one-sided alike).
* Unclipped sum + ``N(0, sigma^2)``: ``Y | x_K, x_i = N(m(x_i), v + sigma^2)`` with
  ``m(x_i) = sum x_K + sum E[X_U | x_K, x_i]`` and ``v = 1^T S_{U|T} 1`` (Schur complement): two
  normal laws of one variance, ``mu = |m(x) - m(x')| / sqrt(v + sigma^2)`` apart in standard
  deviations — ``mu``-GDP in closed form (Dong, Roth and Su 2022), no pure DP (``BDPL = inf`` for
  ``x != x'``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...adversary import Adversary, Estimate, known_sets
from ...core.errors import NotAvailable
from ..engines import ExhaustiveResult, SearchTooLarge
from ..pairs import ShiftPair, shift_delta
from .model import GaussianModel

EXHAUSTIVE_MAX_N = 14


def gaussian_sum_coefficient(model: GaussianModel, i: int, known: Sequence[int]) -> float:
    """``a = 1 + 1^T S_UT S_TT^{-1} e_i``: the slope of ``E[sum X | x_K, x_i]`` in ``x_i``."""
    cond = model.conditional({k: 0.0 for k in (*known, i)})
    col = list(cond.known).index(i)
    return 1.0 + float(cond.gain[:, col].sum())


def sum_bdpl(model: GaussianModel, beta: float, adv: Adversary) -> Estimate:
    """``|a| |x - x'| / beta`` for the unclipped sum + ``Lap(beta)``."""
    a = gaussian_sum_coefficient(model, adv.i, adv.known)
    return Estimate(abs(a) * abs(adv.x - adv.x_prime) / beta, 0, np.inf)


def clipped_sum_bdpl(model: GaussianModel, clip: tuple[float, float], b: float, adv: Adversary) -> Estimate:
    """Exact when the unknown records' conditional law does not depend on ``x_i``: the output is
    ``clip(x_i)`` plus a bounded term whose law is the same under ``x`` and ``x'``, plus ``Lap(b)``,
    and the sup is the tail value ``|clip(x) - clip(x')| / b``; else :class:`NotAvailable`."""
    cond = model.conditional(adv.condition(0.0))
    col = list(cond.known).index(adv.i)
    if cond.unknown and np.any(np.abs(cond.gain[:, col]) > 1e-12):
        raise NotAvailable(
            f"adversary {adv}: an unknown record depends on the target given the known "
            "ones (no closed form; use estimator = 'mixture')"
        )
    lo, hi = clip
    d = abs(np.clip(adv.x, lo, hi) - np.clip(adv.x_prime, lo, hi))
    return Estimate(float(d / b), 0, np.inf)


def check_exhaustive(model: GaussianModel, sizes: Sequence[int]) -> None:
    """Raise :class:`~bdpsim.models.engines.SearchTooLarge` (field ``model.n``) beyond
    :data:`EXHAUSTIVE_MAX_N` records."""
    if model.n > EXHAUSTIVE_MAX_N:
        raise SearchTooLarge(
            "model.n",
            f"model.n = {model.n}: exhaustive Gaussian search is limited to n <= {EXHAUSTIVE_MAX_N}",
        )


def exhaustive_gaussian_sum(
    model: GaussianModel,
    beta: float,
    target_values: tuple[float, float],
    sizes: Sequence[int],
    targets: Sequence[int] | None = None,
) -> ExhaustiveResult:
    """Exact ``BDPL_(K,i)(x, x') = |a| |x - x'| / beta`` for every ``(i, K)`` with the fixed target
    values ``(x, x')`` (independent of ``x_K``, recorded as the prior means)."""
    check_exhaustive(model, sizes)
    x, x_prime = target_values
    rows, pats = [], []
    for i in range(model.n) if targets is None else targets:
        for K in known_sets(model.n, i, sizes):
            a = gaussian_sum_coefficient(model, i, K)
            pat = np.full(model.n, -1, dtype=np.int8)
            pat[i] = -2
            pat[list(K)] = 0
            rows.append((i, abs(a) * abs(x - x_prime) / beta))
            pats.append(pat)
    m = len(rows)
    return ExhaustiveResult(
        np.array([r[0] for r in rows]),
        np.array(pats).reshape(m, model.n),
        np.full(m, float(x)),
        np.full(m, float(x_prime)),
        np.array([r[1] for r in rows]),
        np.full(m, np.inf),
        np.array(model.mean),
    )


class GaussianSumEngine:
    """The exact engine of an unclipped sum plus Laplace noise on a Gaussian model: the closed form
    ``BDPL = |a| |x - x'| / beta``, ``a = 1 + 1^T S_UT S_TT^-1 e_i`` (:func:`sum_bdpl`; the
    one-sided value is the same), and every ``(i, K)`` enumerated
    (capability :class:`~bdpsim.models.engines.HasExhaustive`, field ``model.n``)."""

    method = "closed form |a| |x - x'| / beta, a = 1 + 1^T S_UT S_TT^-1 e_i"
    incomplete: str | None = None

    def __init__(self, model: GaussianModel, beta: float, target_values: tuple[float, float]) -> None:
        self.model, self.beta, self.target_values = model, beta, target_values

    def bdpl(self, adversary: Adversary) -> Estimate:
        return sum_bdpl(self.model, self.beta, adversary)

    def one_sided(self, adversary: Adversary) -> Estimate:
        return sum_bdpl(self.model, self.beta, adversary)

    def check_exhaustive(self, sizes: Sequence[int]) -> None:
        check_exhaustive(self.model, sizes)

    def exhaustive(self, sizes: Sequence[int], targets: Sequence[int] | None) -> ExhaustiveResult:
        return exhaustive_gaussian_sum(self.model, self.beta, self.target_values, sizes, targets)


class GaussianClippedSumEngine:
    """The exact engine of a clipped sum plus Laplace noise on a Gaussian model: the tail value
    ``|clip(x) - clip(x')| / b`` (:func:`clipped_sum_bdpl`), exact only for adversaries whose unknown
    records do not depend on the target — every adversary of independent records, else some
    (``incomplete``)."""

    method = "tail value |clip(x) - clip(x')| / b when no unknown record depends on the target"

    def __init__(self, model: GaussianModel, clip: tuple[float, float], scale: float) -> None:
        self.model, self.clip, self.scale = model, clip, scale
        self.incomplete = (
            None
            if model.is_independent
            else (
                "no exact BDPL for a correlated Gaussian with a clipped sum (only single adversaries whose "
                "unknown records do not depend on the target); use estimator = 'mixture'"
            )
        )

    def bdpl(self, adversary: Adversary) -> Estimate:
        return clipped_sum_bdpl(self.model, self.clip, self.scale, adversary)

    def one_sided(self, adversary: Adversary) -> Estimate:
        return clipped_sum_bdpl(self.model, self.clip, self.scale, adversary)


def sum_shift(model: GaussianModel, sigma: float, adv: Adversary) -> float:
    """``mu = |m(x) - m(x')| / sqrt(v + sigma^2)`` of an unclipped sum plus ``N(0, sigma^2)`` (module
    docstring)."""
    means, var = [], 0.0
    for v in (adv.x, adv.x_prime):
        cond = model.conditional(adv.condition(v))
        means.append(float(np.sum(cond.known_values)) + float(np.sum(cond.mean)))
        var = float(np.sum(cond.cov)) if cond.unknown else 0.0
    return abs(means[0] - means[1]) / math.sqrt(var + float(sigma) ** 2)


class GaussianShiftEngine:
    """The exact engine of an unclipped sum plus Gaussian noise on a Gaussian model: the output given
    an adversary's knowledge is normal, so its two output laws are one normal law shifted by
    ``mu`` standard deviations (:func:`sum_shift`; ``mu``-GDP): the privacy profile and the
    attack's curve in closed form (:class:`~bdpsim.models.pairs.ShiftPair`), the BDPL infinite
    (no pure DP). Every ``(i, K)`` is enumerated when the mechanism fixes the target values
    (``target_values``; capability :class:`~bdpsim.models.engines.HasExhaustive`); otherwise the
    targets are unbounded reals and only single adversaries have a value."""

    method = "closed form: N(m(x), v + sigma^2) against N(m(x'), v + sigma^2), mu-GDP (Schur complement)"
    incomplete: str | None = None

    def __init__(self, model: GaussianModel, sigma: float, target_values: tuple[float, float] | None) -> None:
        self.model, self.sigma, self.target_values = model, float(sigma), target_values

    def output_pair(self, adversary: Adversary) -> ShiftPair:
        return ShiftPair(sum_shift(self.model, self.sigma, adversary))

    def bdpl(self, adversary: Adversary) -> Estimate:
        mu = sum_shift(self.model, self.sigma, adversary)
        return Estimate(math.inf if mu > 0 else 0.0, 0, math.inf)

    def one_sided(self, adversary: Adversary) -> Estimate:
        return self.bdpl(adversary)

    def profile(self, adversary: Adversary, epsilon: float) -> float:
        return float(shift_delta(sum_shift(self.model, self.sigma, adversary), float(epsilon)))

    def check_exhaustive(self, sizes: Sequence[int]) -> None:
        if self.target_values is None:
            raise NotAvailable(
                "an unclipped sum of real records with Gaussian noise: the target values x, x' are "
                "unbounded, so no adversary is the worst; attack one adversary "
                "(bdpsim.attack_risk(model, mechanism, adversary))"
            )
        check_exhaustive(self.model, sizes)

    def exhaustive(self, sizes: Sequence[int], targets: Sequence[int] | None) -> ExhaustiveResult:
        self.check_exhaustive(sizes)
        x, xp = self.target_values  # type: ignore[misc]
        res = exhaustive_gaussian_sum(self.model, 1.0, (x, xp), sizes, targets)
        mus = np.array([sum_shift(self.model, self.sigma, res.adversary(j)) for j in range(len(res))])
        return ExhaustiveResult(
            res.i, res.pattern, res.x, res.x_prime, np.where(mus > 0, np.inf, 0.0), res.argmax, res.values
        )
