"""Rao–Blackwellised estimator for "query + Laplace" mechanisms, with its own standard error.

Sample ``N`` noiseless query values under each condition, then take the *exact* supremum over
outputs of ``|ln p1/p2|`` between the two empirical Laplace mixtures
``p_k(y) = (1/N) sum_j e^{-|y - c_kj|/b} / 2b`` (:func:`mixture_sup`): no bandwidth, no window,
tails included. The only error left is the sampling error of the empirical mixtures.

Standard error (delta method at the supremum). At the output ``y*`` where the supremum is found,
the estimate is ``±(ln p̂1(y*) - ln p̂2(y*))`` and ``p̂k(y*) = mean_j K(y* - C_kj)`` is a mean of
i.i.d. kernel values, so to first order

    Var ln p̂k(y*) = Var_k[K(y* - C)] / (N_k pk(y*)^2) = (sum_j w_kj r_kj^2 - 1) / N_k,
    r_kj = K(y* - c_kj) / p̂k(y*),   se^2 = Var ln p̂1(y*) + Var ln p̂2(y*),

with the empirical weights ``w_kj`` (the two samples are independent). In a tail
(``y* = ±inf``) the log-density is ``ln E_k[e^{±C/b}]`` up to a common term, and ``r_kj`` is
``e^{±c_kj/b} / E_k[e^{±C/b}]``. The error ignores the choice of ``y*`` (the upward bias of a
maximum over noisy values) and cannot see atoms the sample never drew: an estimate whose supremum
sits at a rare query value is as uncertain as the count of that value says, and an unseen value
is invisible. Validated by simulation against exact values (``tests/test_mixture_se.py``).

Adaptive sample size (``target_se > 0``): after the first ``samples`` per condition, the sample
is doubled (new draws merged into the empirical laws; memory holds the distinct query values
only) until ``se <= target_se`` or ``max_samples`` per condition are used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import NotAvailable, check
from ..kernels.laplace_mixture import log_mixture_pdf, logsumexp, mixture_sup
from ..mechanisms import has_laplace_noise
from ..sampling import merge_laws, sample_query_counts
from ..schema import Key
from .base import CostContext, Estimate, register_estimator
from .exact import adversary_bdpl


def _log_relative_kernel(atoms: np.ndarray, counts: np.ndarray, y: float, b: float,
                         centre: float) -> tuple[np.ndarray, np.ndarray]:
    """``(log w_j, log r_j)``: normalised log-weights and ``log K(y - c_j) / p̂(y)`` (tails: the
    exponential tilt ``e^{±c_j/b} / E[e^{±C/b}]``)."""
    lw = np.log(counts) - math.log(counts.sum())
    if math.isinf(y):
        e = (1.0 if y > 0 else -1.0) * (atoms - centre) / b
        return lw, e - logsumexp(lw + e)
    lp = float(log_mixture_pdf(np.array([y]), atoms, lw, b, centre)[0])
    return lw, -np.abs(y - atoms) / b - math.log(2 * b) - lp


def log_density_variance(atoms: np.ndarray, counts: np.ndarray, y: float, b: float, centre: float) -> float:
    """Delta-method variance of ``ln p̂(y)`` for the empirical mixture ``(atoms, counts)``:
    ``(sum_j w_j r_j^2 - 1) / N`` (see module docstring)."""
    lw, lr = _log_relative_kernel(atoms, counts, y, b, centre)
    return max(math.exp(logsumexp(lw + 2 * lr)) - 1.0, 0.0) / float(counts.sum())


def empirical_sup(law1: tuple[np.ndarray, np.ndarray], law2: tuple[np.ndarray, np.ndarray],
                  b: float) -> Estimate:
    """Exact sup of ``|ln p1/p2|`` for two empirical Laplace mixtures given as (atoms, counts),
    with its delta-method standard error and the smaller of the two sample sizes."""
    s = mixture_sup(*law1, *law2, b)
    centre = 0.5 * float(law1[0][law1[0].size // 2] + law2[0][law2[0].size // 2])  # any central atom
    var = sum(log_density_variance(a, c, s.argmax, b, centre) for a, c in (law1, law2))
    n = int(min(law1[1].sum(), law2[1].sum()))
    return Estimate(s.value, 0, s.argmax, math.sqrt(var), n)


@dataclass(frozen=True)
class MixtureEstimator:
    """See module docstring. ``target_se = 0`` turns the adaptive sample size off.

    Its ``[run]`` keys: ``mixture_target_se`` (``target_se``), ``mixture_max_samples``
    (``max_samples``); ``samples`` per condition to start from.
    """

    samples: int = 100_000
    sampling: str = "auto"
    chunk: int = 65_536
    target_se: float = 0.01
    max_samples: int = 1_600_000
    name: ClassVar[str] = "mixture"
    exact: ClassVar[bool] = False
    keys: ClassVar[dict[str, Key]] = {
        "mixture_target_se": Key("float", 0.01, hashed=False, doc="standard error to stop at (0: fixed sample)",
                                 rule=">= 0"),
        "mixture_max_samples": Key("int", 1_600_000, hashed=False, doc="samples per condition at most",
                                   rule=">= run.samples"),
    }
    summary_extras: ClassVar[tuple[str, ...]] = ()
    adversary_extras: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        check(isinstance(self.samples, int) and self.samples >= 1, "run.samples", self.samples, "must be >= 1")
        tse = self.target_se
        check(isinstance(tse, (int, float)) and not isinstance(tse, bool) and math.isfinite(tse) and tse >= 0,
              "run.mixture_target_se", tse, "must be a finite number >= 0 (0: no adaptive sample size)")
        check(isinstance(self.max_samples, int) and not isinstance(self.max_samples, bool) and self.max_samples >= 1,
              "run.mixture_max_samples", self.max_samples,
              "must be an integer >= 1 (samples per condition never exceed max(samples, this))")

    @classmethod
    def from_settings(cls, settings) -> "MixtureEstimator":
        return cls(settings.samples, settings.sampling, settings.chunk, settings.option("mixture_target_se"),
                   settings.option("mixture_max_samples"))

    def cost(self, ctx: CostContext) -> tuple[float, float]:
        """Up to the cap of samples per condition; memory holds the distinct query values (``n + 1``
        for a count, one per sample for a continuous query) with their counts and sort buffers."""
        S = float(max(self.samples, self.max_samples) if self.target_se > 0 else self.samples)
        w, m = ctx.sampling(S)
        atoms = S if ctx.continuous else ctx.n + 1
        return w + ctx.adversaries * ctx.conditions * S * 10, m + 2 * atoms * 8 * 6

    def summary(self, stats) -> dict:
        se = stats["bdpl_se"]
        missed = int(np.sum(se > self.target_se)) if self.target_se > 0 else math.nan
        return {"se_target_missed": missed, "n_samples": self.samples}

    def check(self, model, mechanism) -> None:
        """Nothing beyond :meth:`supports` to check for this (model, mechanism) pair."""

    def finish(self, ctx, stats, rows) -> dict:
        """No configuration-level work: every cell comes from the per-adversary statistics."""
        return {}

    @property
    def cap(self) -> int:
        """Samples per condition never exceed ``max(samples, max_samples)``."""
        return max(self.samples, self.max_samples)

    @staticmethod
    def supports(model, mechanism) -> str | None:
        return None if has_laplace_noise(mechanism) else \
            "the mixture estimator needs a 'query + Laplace' mechanism (count, clipped_sum, sum)"

    def reference(self, model, mechanism, adversary) -> Estimate:
        """The two-sided exact BDPL of ``adversary`` (what the estimate estimates)."""
        return adversary_bdpl(model, mechanism, adversary)

    def _query(self, model, mech, cond, size, rng):
        return sample_query_counts(model, mech, cond, size, rng, self.sampling, self.chunk)

    def _adaptive(self, model, mech, cond1, cond2, rng) -> Estimate:
        """Estimate from ``samples`` per condition, doubled until ``se <= target_se`` or the cap."""
        N = self.samples
        laws = [self._query(model, mech, c, N, rng) for c in (cond1, cond2)]
        while True:
            est = empirical_sup(*laws, mech.noise_scale)
            if self.target_se <= 0 or est.se <= self.target_se or N >= self.cap:
                return est
            m = min(N, self.cap - N)
            laws = [merge_laws(law, self._query(model, mech, c, m, rng)) for law, c in zip(laws, (cond1, cond2))]
            N += m

    def estimate(self, model, mechanism, adversary, rng) -> Estimate:
        if (why := self.supports(model, mechanism)) is not None:
            raise NotAvailable(why)
        return self._adaptive(model, mechanism, adversary.condition(adversary.x),
                              adversary.condition(adversary.x_prime), rng)

    def null_estimate(self, model, mechanism, adversary, rng) -> Estimate:
        cond = adversary.condition(adversary.x)
        return self._adaptive(model, mechanism, cond, cond, rng)


register_estimator(MixtureEstimator)
