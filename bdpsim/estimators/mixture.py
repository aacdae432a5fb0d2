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
is invisible. Validated by simulation against exact values (``tests/estimators/test_mixture_se.py``).

Confidence interval: ``[bdpl_ci_low, bdpl_ci_high]`` holds the adversary's BDPL
itself — the supremum, not the value at one selected output — with probability ``>= confidence``.
Simultaneous Clopper–Pearson bounds on the weights of every value the query can take
(:func:`~bdpsim.estimators.sampling.query_support`: the lattice of a count or state sum) give a box of
plausible laws; the supremum over outputs of the two mixtures with numerator weights low and
denominator weights high is a certified lower end, the reverse an upper end, both computed exactly
(:mod:`bdpsim.kernels.mixture_interval`). A clipped sum of real records (a known range, no lattice)
gets its interval from a DKW band on the two CDFs; an unbounded query (unclipped sum) has the
interval ``[0, inf]``.

Adaptive sample size: after the first ``samples`` per condition, the sample is doubled (new draws
merged into the empirical laws; memory holds the distinct query values only) until the interval
is at most ``target_width`` wide and ``se <= target_se`` (either 0: that rule off), or
``max_samples`` per condition are used. When the interval is still wider than ``target_width`` at
the cap — or cannot get there, at the ``1/sqrt(N)`` rate at best — and the model gives the query's
exact conditional law (``exact_law = "fallback"``), that law replaces the sample: the value is then
exact (interval of width 0; ``mixture_law = "exact"`` in ``adversaries.csv.gz``). Otherwise the
row is counted in ``width_target_missed`` and the point flagged. ``exact_law = "always"`` uses the
exact law wherever there is one (no sampling), ``"never"`` only samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, ClassVar, cast

import numpy as np

from ..core.columns import Column, OwnedColumn, owned_columns, register_columns
from ..core.errors import NotAvailable, check
from ..core.schema import Key
from ..kernels.mixture_interval import band_interval, on_support, sup_intervals
from ..kernels.noise.laplace_mixture import log_mixture_pdf, logsumexp, mixture_sup
from ..kernels.stats import interval_percentile_ci, own_level
from ..queries import laplace_noisy
from .base import CostContext, Estimate, register_estimator
from .exact import adversary_bdpl
from .sampling import exact_query_law, merge_laws, query_support, sample_query_counts


def _log_relative_kernel(
    atoms: np.ndarray, counts: np.ndarray, y: float, b: float, centre: float
) -> tuple[np.ndarray, np.ndarray]:
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


def empirical_sup(
    law1: tuple[np.ndarray, np.ndarray], law2: tuple[np.ndarray, np.ndarray], b: float
) -> Estimate:
    """Exact sup of ``|ln p1/p2|`` for two empirical Laplace mixtures given as (atoms, counts),
    with its delta-method standard error and the smaller of the two sample sizes."""
    s = mixture_sup(*law1, *law2, b)
    centre = 0.5 * float(law1[0][law1[0].size // 2] + law2[0][law2[0].size // 2])  # any central atom
    var = sum(log_density_variance(a, c, s.argmax, b, centre) for a, c in (law1, law2))
    n = int(min(law1[1].sum(), law2[1].sum()))
    return Estimate(s.value, 0, s.argmax, math.sqrt(var), n)


#: default mixture_target_width (nats)
TARGET_WIDTH = 0.2
EXACT_LAW_MODES = ("fallback", "never", "always")

INTERVAL_ADVERSARY = register_columns(
    "adversaries",
    Column(
        "bdpl_ci_low",
        float,
        "mixture: lower end of the confidence interval (level run.confidence) for "
        "the adversary's BDPL itself, the supremum over outputs: simultaneous "
        "Clopper-Pearson bounds on the query's value weights, numerator low and "
        "denominator high, exact supremum (kde: empty, its error has no known law)",
    ),
    Column(
        "bdpl_ci_high",
        float,
        "mixture: upper end of that interval (numerator weights high, denominator "
        "low; inf for an unbounded query)",
    ),
    Column(
        "mixture_law",
        str,
        "mixture: 'sampled' (the estimate and interval come from the samples) or "
        "'exact' (the samples could not pin the interval down to mixture_target_width "
        "within mixture_max_samples and the model's exact conditional law of the query "
        "was used: the value is exact, interval of width 0, bdpl_se 0; samples counts "
        "what was drawn before)",
    ),
    owner="estimator mixture",
)
INTERVAL_SUMMARY = register_columns(
    "summary",
    Column(
        "width_target_missed",
        int,
        "mixture: adversaries whose interval stayed wider than "
        "mixture_target_width at the mixture_max_samples cap (flagged)",
    ),
    Column(
        "exact_law_n",
        int,
        "mixture: adversaries whose value came from the model's exact conditional law "
        "(mixture_exact_law) instead of the samples",
    ),
    Column("bdpl_ci_width_median", float, "mixture: median width of the adversaries' intervals"),
    Column(
        "bdpl_median_ci_low",
        float,
        "mixture: lower end of the median's confidence interval, from the "
        "adversaries' lower ends (accounts for their own error)",
    ),
    Column(
        "bdpl_median_ci_high", float, "mixture: upper end of the median's interval, from their upper ends"
    ),
    Column(
        "bdpl_max_ci_low",
        float,
        "mixture: lower end of a confidence interval for the largest BDPL among the "
        "examined adversaries: the largest of their lower ends at level "
        "1 - (1 - confidence)/adversaries (Bonferroni: all hold together)",
    ),
    Column("bdpl_max_ci_high", float, "mixture: upper end of that interval: the largest of their upper ends"),
    owner="estimator mixture",
)


@dataclass(frozen=True)
class MixtureEstimator:
    """See module docstring. ``target_se = 0`` and ``target_width = 0`` turn the adaptive sample
    size off.

    Its ``[run]`` keys: ``mixture_target_width`` (``target_width``), ``mixture_target_se``
    (``target_se``), ``mixture_max_samples`` (``max_samples``), ``mixture_exact_law``
    (``exact_law``); ``samples`` per condition to start from; ``confidence`` the intervals' level.
    """

    samples: int = 100_000
    sampling: str = "auto"
    chunk: int = 65_536
    target_se: float = 0.01
    max_samples: int = 1_600_000
    target_width: float = 0.0
    exact_law: str = "never"
    confidence: float = 0.95
    percentile: float = 99.0
    adversaries: int = 1
    name: ClassVar[str] = "mixture"
    reads: ClassVar[frozenset[str]] = frozenset(
        {"samples", "sampling", "chunk", "noise_floor_adversaries", "exact_reference"}
    )
    adversary_intervals: ClassVar[bool] = True  # bdpl_ci_low/high per adversary (HasAdversaryIntervals)
    exact: ClassVar[bool] = False
    keys: ClassVar[dict[str, Key]] = {
        "mixture_target_se": Key(
            "float", 0.01, hashed=False, doc="standard error to stop at (0: fixed sample)", rule=">= 0"
        ),
        "mixture_max_samples": Key(
            "int",
            1_600_000,
            hashed=False,
            doc="samples per condition at most",
            rule=">= 1 (never fewer than run.samples are drawn)",
        ),
        "mixture_target_width": Key(
            "float",
            TARGET_WIDTH,
            hashed=False,
            doc="width of the per-adversary interval to stop sampling at (nats)",
            rule=">= 0 (0: off)",
        ),
        "mixture_exact_law": Key(
            "str",
            "fallback",
            hashed=False,
            doc="when to use the model's exact conditional law of the query",
            rule="'fallback' | 'never' | 'always'",
        ),
    }
    summary_columns: ClassVar[tuple[OwnedColumn, ...]] = owned_columns(
        "bdpl_se_mean",
        Column(
            "se_target_missed",
            int,
            "mixture: adversaries whose standard error stayed above "
            "mixture_target_se at the mixture_max_samples cap",
        ),
    )
    summary_extras: ClassVar[tuple[str, ...]] = tuple(c.name for c in INTERVAL_SUMMARY)
    adversary_extras: ClassVar[tuple[str, ...]] = tuple(c.name for c in INTERVAL_ADVERSARY)

    def __post_init__(self) -> None:
        check(
            isinstance(self.samples, int) and self.samples >= 1, "run.samples", self.samples, "must be >= 1"
        )
        for key, v in (
            ("run.mixture_target_se", self.target_se),
            ("run.mixture_target_width", self.target_width),
        ):
            check(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0,
                key,
                v,
                "must be a finite number >= 0 (0: that rule of the adaptive sample size off)",
            )
        check(
            isinstance(self.max_samples, int)
            and not isinstance(self.max_samples, bool)
            and self.max_samples >= 1,
            "run.mixture_max_samples",
            self.max_samples,
            "must be an integer >= 1 (samples per condition never exceed max(samples, this))",
        )
        check(
            self.exact_law in EXACT_LAW_MODES,
            "run.mixture_exact_law",
            self.exact_law,
            f"must be one of {list(EXACT_LAW_MODES)}",
        )

    @classmethod
    def from_settings(cls, settings) -> MixtureEstimator:
        return cls(
            settings.samples,
            settings.sampling,
            settings.chunk,
            settings.option("mixture_target_se"),
            settings.option("mixture_max_samples"),
            settings.option("mixture_target_width"),
            settings.option("mixture_exact_law"),
            settings.confidence,
            settings.percentile,
            settings.adversaries if isinstance(settings.adversaries, int) else 1,
        )

    def cost(self, ctx: CostContext) -> tuple[float, float]:
        """Up to the cap of samples per condition; memory holds the distinct query values (``n + 1``
        for a count, one per sample for a continuous query) with their counts and sort buffers."""
        adaptive = self.target_se > 0 or self.target_width > 0
        S = float(max(self.samples, self.max_samples) if adaptive else self.samples)
        w, m = ctx.sampling(S)
        atoms = S if ctx.continuous else ctx.n + 1
        return w + ctx.adversaries * ctx.conditions * S * 10, m + 2 * atoms * 8 * 6

    def summary(self, stats) -> dict:
        se = stats["bdpl_se"]
        missed = int(np.sum(se > self.target_se)) if self.target_se > 0 else math.nan
        out = {"se_target_missed": missed, "n_samples": self.samples}
        lo, hi = stats.get("bdpl_ci_low"), stats.get("bdpl_ci_high")
        if lo is None or hi is None or not lo.size:
            return out
        ok = ~np.isnan(lo) & ~np.isnan(hi)
        width = hi[ok] - lo[ok]
        mlo, mhi = interval_percentile_ci(lo[ok], hi[ok], 50.0, self.confidence)
        xlo, xhi = stats.get("max_ci_low", lo)[ok], stats.get("max_ci_high", hi)[ok]
        return {
            **out,
            "bdpl_max_ci_low": float(np.max(xlo)) if xlo.size else math.nan,
            "bdpl_max_ci_high": float(np.max(xhi)) if xhi.size else math.nan,
            "width_target_missed": int(np.nansum(stats.get("width_missed", np.zeros(0)))),
            "exact_law_n": int(np.nansum(stats.get("exact_law", np.zeros(0)))),
            "bdpl_ci_width_median": float(np.median(width)) if width.size else math.nan,
            "bdpl_median_ci_low": mlo,
            "bdpl_median_ci_high": mhi,
        }

    def check(self, model, mechanism, engine=None) -> None:
        """Nothing beyond :meth:`supports` to check for this (model, mechanism) pair."""

    def finish(self, ctx, stats, rows) -> dict:
        """No configuration-level work: every cell comes from the per-adversary statistics."""
        return {}

    @property
    def max_level(self) -> float:
        """Level of the adversaries' intervals behind the maximum's (Bonferroni over them)."""
        return 1.0 - (1.0 - self.confidence) / max(1, self.adversaries)

    @property
    def cap(self) -> int:
        """Samples per condition never exceed ``max(samples, max_samples)``."""
        return max(self.samples, self.max_samples)

    @staticmethod
    def supports(model, mechanism, engine=None) -> str | None:
        return (
            None
            if laplace_noisy(mechanism) is not None
            else "the mixture estimator needs a 'query + Laplace' mechanism (count, clipped_sum, sum)"
        )

    def reference(self, model, mechanism, adversary, engine=None) -> Estimate:
        """The two-sided exact BDPL of ``adversary`` (what the estimate estimates; by ``engine``:
        the point's)."""
        return adversary_bdpl(model, mechanism, adversary, engine)

    def _query(self, model, mech, cond, size, rng):
        return sample_query_counts(model, mech, cond, size, rng, self.sampling, self.chunk)

    def interval(self, model, mech, conds, laws, *levels: float) -> list[tuple[float, float]]:
        """The intervals (levels ``confidence``, or ``levels``) of the supremum from the empirical
        ``laws`` of ``conds`` (module docstring); ``(0, inf)`` for an unbounded query."""
        found = [query_support(model, mech, c) for c in conds]
        alphas, b = [1.0 - v for v in (levels or (self.confidence,))], mech.noise.scale
        if any(s is None for s in found):
            return [(0.0, math.inf)] * len(alphas)
        sup = cast(list[tuple[str, Any]], found)  # none is None (just checked)
        if all(kind == "lattice" for kind, _ in sup):
            on = [on_support(a, c, s) for (a, c), (_, s) in zip(laws, sup, strict=True)]
            return sup_intervals(sup[0][1], on[0], sup[1][1], on[1], b, alphas)
        ranges = [(float(s[0]), float(s[-1])) if kind == "lattice" else s for kind, s in sup]
        return [band_interval(laws[0], ranges[0], laws[1], ranges[1], b, a) for a in alphas]

    def _exact(self, model, mech, conds, N: int) -> Estimate | None:
        """The estimate from the model's exact conditional laws of the query (``None``: none)."""
        found = [exact_query_law(model, mech, c) for c in conds]
        if any(law is None for law in found):
            return None
        (a1, w1), (a2, w2) = cast(list[tuple[np.ndarray, np.ndarray]], found)  # none is None
        s = mixture_sup(a1, w1, a2, w2, mech.noise.scale)
        return Estimate(
            s.value,
            0,
            s.argmax,
            0.0,
            N,
            {
                "bdpl_ci_low": s.value,
                "bdpl_ci_high": s.value,
                "pct_ci_low": s.value,
                "pct_ci_high": s.value,
                "max_ci_low": s.value,
                "max_ci_high": s.value,
                "mixture_law": "exact",
                "exact_law": 1.0,
                "width_missed": 0.0,
            },
        )

    def _adaptive(self, model, mech, cond1, cond2, rng, for_summary: bool = True) -> Estimate:
        """Estimate from ``samples`` per condition, doubled until the interval is narrower than
        ``target_width`` and ``se <= target_se``, or the cap (module docstring)."""
        conds = (cond1, cond2)
        if self.exact_law == "always" and (ex := self._exact(model, mech, conds, 0)) is not None:
            return ex
        N = self.samples
        laws = [self._query(model, mech, c, N, rng) for c in conds]
        try_exact = self.exact_law == "fallback"
        while True:
            est = empirical_sup(laws[0], laws[1], mech.noise.scale)
            se_ok = self.target_se <= 0 or est.se <= self.target_se
            if se_ok or N >= self.cap:  # the interval decides (and, for the summary, its own-level twin)
                levels = (
                    (self.confidence, own_level(self.percentile, self.confidence), self.max_level)
                    if for_summary
                    else (self.confidence,)
                )
                res = dict(
                    zip(
                        dict.fromkeys(levels),
                        self.interval(model, mech, conds, laws, *dict.fromkeys(levels)),
                        strict=True,
                    )
                )
                (low, high), (plo, phi), (xlo, xhi) = (res[v] for v in (levels * 3)[:3])
                width_ok = self.target_width <= 0 or high - low <= self.target_width
                if width_ok or N >= self.cap:
                    break
                reach = (high - low) * math.sqrt(N / self.cap)  # the width at the cap, at the 1/sqrt(N) rate
            else:  # a 95 % interval is at least ~4 se wide: the same forecast, without computing it
                reach = 4.0 * est.se * math.sqrt(N / self.cap)
            if try_exact and self.target_width > 0 and reach > self.target_width:
                if (ex := self._exact(model, mech, conds, N)) is not None:
                    return ex  # the samples cannot get there: the model's exact law answers
                try_exact = False  # no exact law: sample on
            m = min(N, self.cap - N)
            laws = [
                merge_laws(law, self._query(model, mech, c, m, rng))
                for law, c in zip(laws, conds, strict=True)
            ]
            N += m
        if not width_ok and try_exact and (ex := self._exact(model, mech, conds, N)) is not None:
            return ex
        return replace(
            est,
            extra={
                "bdpl_ci_low": low,
                "bdpl_ci_high": high,
                "pct_ci_low": plo,
                "pct_ci_high": phi,
                "max_ci_low": xlo,
                "max_ci_high": xhi,
                "mixture_law": "sampled",
                "exact_law": 0.0,
                "width_missed": float(not width_ok),
            },
        )

    def estimate(self, model, mechanism, adversary, rng, engine=None) -> Estimate:
        """Sampled (or the model's exact query laws): the exact engine is not used."""
        if (why := self.supports(model, mechanism)) is not None:
            raise NotAvailable(why)
        return self._adaptive(
            model, mechanism, adversary.condition(adversary.x), adversary.condition(adversary.x_prime), rng
        )

    def null_estimate(self, model, mechanism, adversary, rng) -> Estimate:
        cond = adversary.condition(adversary.x)
        return self._adaptive(model, mechanism, cond, cond, rng, for_summary=False)


register_estimator(MixtureEstimator)
