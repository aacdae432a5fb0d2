"""The thesis' estimator (thesis §3.1.2 steps 2–7), with pluggable KDE backends.

For each adversary ``(i, K, x_K, x, x')``: ``N`` outputs under ``X_i = x`` and ``N`` under
``X_i = x'`` (steps 2–3); a KDE of each (step 4); ``points`` evaluation points ``t`` drawn
uniformly between the ``window`` percentiles (default 0.5 % and 99.5 %) of the pooled outputs
(step 5); at each point the log-ratio (step 6) and the adversary's estimate is its maximum over
the points (step 7).

Step 6 (``ratio``):

* ``"signed"`` (default, the thesis): ``ln(p_x(t) / p_x'(t))`` for the drawn *ordered* pair
  ``(x, x')`` — a one-sided supremum; the other direction is another adversary, drawn with the
  same probability.
* ``"symmetric"``: ``|ln p_x(t) - ln p_x'(t)|`` (both directions at once; not the thesis').

Densities (``positive_shift``): by default fastKDE's self-consistent estimate *as is*
(``positive_shift=False``, the thesis names no shift). ``fastkde.pdf``'s own default,
``positive_shift=True``, lowers the estimate by a constant and clips it at 0 so it integrates to
1; it lifts the tails' log-ratios (measured: the p99 at n = 10, gamma = 10, eps = 2 from 11.7 to
13.9). Points where either density estimate is ``<= 0`` (possible without the shift: the
estimate is a Fourier series) have no log-ratio; they are excluded and counted
(``Estimate.nonpositive``), never turned into ``±inf``/``nan``. With no valid point the estimate
is ``nan`` (a failed adversary).

Backends return the density estimate of a 1-D sample at given points:

* ``fastkde`` (default, as in the thesis): ``fastkde.pdf(x, use_xarray=False,
  positive_shift=...)`` on fastKDE's own grid, linearly interpolated at ``t``. Licence:
  research & development, non-commercial use only.
* ``fastkde_points``: ``fastkde.pdf_at_points(x, list_of_points=t)``, the same estimate summed at
  each ``t`` (no grid; fastKDE implements no positive shift here).
* ``statsmodels``: ``KDEUnivariate(x).fit(fft=True)`` (Gaussian kernel, Silverman bandwidth),
  BSD; its densities are positive, so ``positive_shift`` has no effect.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from ..core.columns import Column, OwnedColumn, owned_columns, register_columns
from ..core.errors import EstimatorError, check
from ..core.schema import Key
from ..mechanisms.protocols import HasOutputDim
from .base import CostContext, Estimate, register_estimator
from .exact import exact_reference
from .sampling import sample_outputs

KDE_RATIOS = ("signed", "symmetric")

#: a KDE estimate has no interval (its error is a bias of unknown sign and size plus noise, with no
#: derived law); what it is checked against instead, where the run has exact values
KDE_CHECK = register_columns(
    "summary",
    Column(
        "kde_above_n",
        int,
        "kde: adversaries whose estimate lies above the exact value of what it "
        "estimates (the KDE has no interval: its error has no known law, so it is "
        "compared with the exact values where the run has them; flagged)",
    ),
    Column("kde_below_n", int, "kde: adversaries whose estimate lies below that exact value (flagged)"),
    owner="estimator kde",
)

#: the KDE against the mixture's per-adversary interval when one config has both estimators: they
#: examine the same adversaries (the population key ignores the estimator), so the comparison is per
#: adversary; filled when both points have finished, before the KDE point's record is written
#: (:func:`bdpsim.pipeline.driver.compare_kde_with_mixture`)
KDE_MIXTURE_CHECK = register_columns(
    "summary",
    Column(
        "kde_above_mixture_n",
        int,
        "kde: adversaries whose estimate lies above the mixture's "
        "bdpl_ci_high for the same adversary in the same run (flagged)",
    ),
    Column(
        "kde_below_mixture_n",
        int,
        "kde: adversaries whose estimate lies below the mixture's bdpl_ci_low "
        "for the same adversary (flagged; counted only for kde_ratio = "
        "'symmetric': the 'signed' KDE estimates a one-sided supremum, which "
        "may lie below the two-sided BDPL)",
    ),
    owner="estimator kde",
)


def outside_mixture(kde: np.ndarray, low: np.ndarray, high: np.ndarray, signed: bool) -> tuple[int, int]:
    """How many KDE estimates ``kde`` lie above / below the mixture intervals ``[low, high]`` of
    the same adversaries (``nan`` anywhere: not compared).

    ``above = #{j : kde_j > high_j}``, ``below = #{j : kde_j < low_j}``; ``below`` is 0 for the
    one-sided (``signed``) KDE, since ``sup_s ln p(s|x)/p(s|x') <= BDPL`` and so a one-sided value
    below a two-sided interval is no error.
    """
    kde, low, high = (np.asarray(a, dtype=float) for a in (kde, low, high))
    ok = np.isfinite(kde) & ~np.isnan(low) & ~np.isnan(high)
    above = int(np.sum(kde[ok] > high[ok] + KDE_TOLERANCE))
    below = 0 if signed else int(np.sum(kde[ok] < low[ok] - KDE_TOLERANCE))
    return above, below


#: ``|estimate - exact|`` below this is agreement (floating point), not a deviation
KDE_TOLERANCE = 1e-9
KDE_POINTS = ("uniform", "outputs")


def fastkde_backend(sample: np.ndarray, points: np.ndarray, positive_shift: bool = False) -> np.ndarray:
    """fastKDE's self-consistent density estimate on its grid, interpolated at ``points``."""
    import fastkde

    density, grid = fastkde.pdf(sample, use_xarray=False, positive_shift=positive_shift)
    return np.interp(
        points, np.asarray(grid, dtype=float), np.asarray(density, dtype=float), left=0.0, right=0.0
    )


def fastkde_points_backend(
    sample: np.ndarray, points: np.ndarray, positive_shift: bool = False
) -> np.ndarray:
    """fastKDE's self-consistent estimate evaluated at each of ``points`` (no shift exists here)."""
    import fastkde

    if positive_shift:
        raise EstimatorError("fastkde.pdf_at_points has no positive_shift; use kde_backend = 'fastkde'")
    return np.asarray(
        fastkde.pdf_at_points(sample, list_of_points=np.asarray(points, dtype=float)), dtype=float
    )


def statsmodels_backend(sample: np.ndarray, points: np.ndarray, positive_shift: bool = False) -> np.ndarray:
    """statsmodels' FFT Gaussian KDE (BSD licence), interpolated at ``points``; always positive."""
    from statsmodels.nonparametric.kde import KDEUnivariate

    kde = KDEUnivariate(sample)
    kde.fit(fft=True)
    return np.interp(
        points,
        np.asarray(kde.support, dtype=float),
        np.asarray(kde.density, dtype=float),
        left=0.0,
        right=0.0,
    )


KDE_BACKENDS: dict[str, Callable[..., np.ndarray]] = {
    "fastkde": fastkde_backend,
    "fastkde_points": fastkde_points_backend,
    "statsmodels": statsmodels_backend,
}


def density_at(
    sample: np.ndarray, points: np.ndarray, backend: str = "fastkde", positive_shift: bool = False
) -> np.ndarray:
    """KDE of ``sample`` evaluated at ``points`` (0 outside a grid backend's grid)."""
    if sample.size < 2 or not np.ptp(sample) > 0:
        raise EstimatorError("KDE input is constant or has < 2 values; no density can be estimated")
    return KDE_BACKENDS[backend](sample, np.asarray(points, dtype=float), positive_shift)


def log_ratio(p_x: np.ndarray, p_x_prime: np.ndarray, ratio: str = "signed") -> np.ndarray:
    """Thesis step 6 at points with positive densities: ``ln(p_x/p_x')`` (``"signed"``) or
    ``|ln p_x - ln p_x'|`` (``"symmetric"``)."""
    r = np.log(p_x) - np.log(p_x_prime)
    return r if ratio == "signed" else np.abs(r)


def max_log_ratio(
    out_x: np.ndarray,
    out_xp: np.ndarray,
    rng: np.random.Generator,
    *,
    points: int = 1000,
    window: tuple[float, float] = (0.5, 99.5),
    backend: str = "fastkde",
    ratio: str = "signed",
    positive_shift: bool = False,
    point_mode: str = "uniform",
) -> Estimate:
    """Thesis steps 4–7: ``max_t ln(p_x(t)/p_x'(t))`` over ``points`` evaluation points ``t`` in
    the window of the pooled outputs (``ratio = "symmetric"``: ``max_t |ln p_x(t) - ln p_x'(t)|``).

    ``point_mode = "uniform"`` (default): ``t`` uniform between the window's quantiles;
    ``"outputs"``: ``t`` drawn without replacement from the pooled outputs that lie in the window
    (the other reading of "1 000 random samples t" in thesis §3.1.2 step 5).

    ``out_x`` are the outputs under ``X_i = x``, ``out_xp`` under ``X_i = x'``. Returns an
    :class:`Estimate` with the number of excluded (non-positive density) points.
    """
    check(ratio in KDE_RATIOS, "run.kde_ratio", ratio, f"must be one of {list(KDE_RATIOS)}")
    check(point_mode in KDE_POINTS, "run.kde_points", point_mode, f"must be one of {list(KDE_POINTS)}")
    pooled = np.concatenate([out_x, out_xp])
    lo, hi = np.percentile(pooled, window)
    if point_mode == "uniform":
        t = rng.uniform(lo, hi, size=points)
    else:
        inside = pooled[(pooled >= lo) & (pooled <= hi)]
        t = rng.choice(inside, size=min(points, inside.size), replace=False)
    p1 = density_at(out_x, t, backend, positive_shift)
    p2 = density_at(out_xp, t, backend, positive_shift)
    ok = (p1 > 0) & (p2 > 0)
    bad = int(t.size - ok.sum())
    if not ok.any():
        return Estimate(math.nan, bad)
    r = log_ratio(p1[ok], p2[ok], ratio)
    j = int(np.argmax(r))
    return Estimate(float(r[j]), bad, float(t[ok][j]))


@dataclass(frozen=True)
class KdeEstimator:
    """Thesis-faithful KDE estimator (see module docstring).

    Its ``[run]`` keys: ``eval_points`` (``points``), ``window``, ``kde_backend``, ``kde_ratio``,
    ``kde_positive_shift``, ``kde_points`` (``point_mode``); ``samples`` per condition.
    """

    samples: int = 100_000
    points: int = 1000
    window: tuple[float, float] = (0.5, 99.5)
    backend: str = "fastkde"
    sampling: str = "auto"
    chunk: int = 65_536
    ratio: str = "signed"
    positive_shift: bool = False
    point_mode: str = "uniform"
    name: ClassVar[str] = "kde"
    reads: ClassVar[frozenset[str]] = frozenset(
        {"samples", "sampling", "chunk", "noise_floor_adversaries", "exact_reference"}
    )
    exact: ClassVar[bool] = False
    keys: ClassVar[dict[str, Key]] = {
        "eval_points": Key("int", 1000, doc="KDE evaluation points", rule=">= 1"),
        "window": Key(
            "vector",
            [0.5, 99.5],
            doc="percentiles of the outputs the ratio is taken on",
            rule="[low, high], 0 <= low < high <= 100",
        ),
        "kde_backend": Key(
            "str", "fastkde", doc="the density estimator", rule="'fastkde', 'fastkde_points' or 'statsmodels'"
        ),
        "kde_ratio": Key(
            "str",
            "signed",
            hashed=False,
            doc="one-sided (thesis) or two-sided ratio",
            rule="'signed' or 'symmetric'",
        ),
        "kde_positive_shift": Key(
            "bool", False, hashed=False, doc="shift outputs positive (fastKDE)", rule="true or false"
        ),
        "kde_points": Key(
            "str",
            "uniform",
            hashed=False,
            doc="where the densities are compared",
            rule="'uniform' or 'outputs'",
        ),
    }
    summary_columns: ClassVar[tuple[OwnedColumn, ...]] = owned_columns(
        "estimator",
        Column("kde_backend", str, "KDE backend (kde estimator only)"),
        Column(
            "kde_ratio",
            str,
            "kde: 'signed' (thesis: ln p_x/p_x' for the drawn order) or 'symmetric' (|ln ratio|)",
        ),
        Column(
            "kde_positive_shift", str, "kde: 'true' if fastKDE's positive shift was applied (thesis: 'false')"
        ),
    )
    summary_extras: ClassVar[tuple[str, ...]] = tuple(c.name for c in KDE_CHECK)
    adversary_extras: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        check(
            self.backend in KDE_BACKENDS,
            "run.kde_backend",
            self.backend,
            f"must be one of {sorted(KDE_BACKENDS)}",
        )
        check(
            isinstance(self.samples, int) and self.samples >= 100,
            "run.samples",
            self.samples,
            "must be an integer >= 100",
        )
        check(
            isinstance(self.points, int) and not isinstance(self.points, bool) and self.points >= 1,
            "run.eval_points",
            self.points,
            "must be >= 1",
        )
        w = tuple(self.window)
        check(
            len(w) == 2 and 0 <= w[0] < w[1] <= 100,
            "run.window",
            list(w),
            "must be [low, high] percentiles with 0 <= low < high <= 100",
        )
        object.__setattr__(self, "window", (float(w[0]), float(w[1])))
        check(self.ratio in KDE_RATIOS, "run.kde_ratio", self.ratio, f"must be one of {list(KDE_RATIOS)}")
        check(
            isinstance(self.positive_shift, bool),
            "run.kde_positive_shift",
            self.positive_shift,
            "must be true or false",
        )
        check(
            not (self.positive_shift and self.backend == "fastkde_points"),
            "run.kde_positive_shift",
            True,
            "fastkde.pdf_at_points has no positive shift (use kde_backend = 'fastkde')",
        )
        check(
            self.point_mode in KDE_POINTS,
            "run.kde_points",
            self.point_mode,
            f"must be one of {list(KDE_POINTS)}",
        )

    @classmethod
    def from_settings(cls, settings) -> KdeEstimator:
        o = settings.option
        return cls(
            settings.samples,
            o("eval_points"),
            tuple(o("window")),
            o("kde_backend"),
            settings.sampling,
            settings.chunk,
            o("kde_ratio"),
            o("kde_positive_shift"),
            o("kde_points"),
        )

    @staticmethod
    def supports(model, mechanism, engine=None) -> str | None:
        """Any mechanism with scalar outputs that can be run on data batches (the KDE is 1-D)."""
        d = int(mechanism.output_dim) if isinstance(mechanism, HasOutputDim) else 1
        if d > 1:
            return (
                f"the KDE estimator is one-dimensional; mechanism '{mechanism.kind}' releases vectors of {d} "
                "values per data tuple: use estimator = 'audit' (any output) or 'exact'"
            )
        return None

    def cost(self, ctx: CostContext) -> tuple[float, float]:
        """Every output of both conditions at once (fastKDE needs them), copies and the grid."""
        w, m = ctx.sampling(self.samples)
        return (
            w + ctx.adversaries * ctx.conditions * (self.samples * 20 + self.points * 10),
            m + 2 * self.samples * 8 * 4 + 16 * 2**20,
        )

    def summary(self, stats) -> dict:
        v, ex = stats["bdpl"], stats["exact"]
        both = np.isfinite(v) & np.isfinite(ex)
        d = v[both] - ex[both]
        check_cells = (
            {"kde_above_n": int(np.sum(d > KDE_TOLERANCE)), "kde_below_n": int(np.sum(d < -KDE_TOLERANCE))}
            if both.any()
            else {}
        )
        return {
            "kde_backend": self.backend,
            "kde_ratio": self.ratio,
            "kde_positive_shift": str(self.positive_shift).lower(),
            "n_samples": self.samples,
            **check_cells,
        }

    def outside_intervals(self, values, low, high) -> tuple[int, int]:
        """Estimates ``values`` above / below the intervals ``[low, high]`` of the same adversaries
        (:func:`outside_mixture`; below only for the two-sided ratio)."""
        return outside_mixture(values, low, high, signed=self.ratio == "signed")

    def check(self, model, mechanism, engine=None) -> None:
        """Nothing beyond :meth:`supports` to check for this (model, mechanism) pair."""

    def finish(self, ctx, stats, rows) -> dict:
        """No configuration-level work: every cell comes from the per-adversary statistics."""
        return {}

    def reference(self, model, mechanism, adversary, engine=None) -> Estimate:
        """The exact value of what this estimator estimates for ``adversary``: the one-sided
        ``sup_s ln p(s | x_K, x)/p(s | x_K, x')`` for ``"signed"``, the two-sided BDPL otherwise
        (:func:`bdpsim.estimators.exact.exact_reference`, by ``engine``: the point's)."""
        return exact_reference(model, mechanism, adversary, signed=self.ratio == "signed", engine=engine)

    def _outputs(self, model, mech, cond, rng):
        return sample_outputs(model, mech, cond, self.samples, rng, self.sampling, self.chunk)

    def _max(self, a, b, rng) -> Estimate:
        est = max_log_ratio(
            a,
            b,
            rng,
            points=self.points,
            window=self.window,
            backend=self.backend,
            ratio=self.ratio,
            positive_shift=self.positive_shift,
            point_mode=self.point_mode,
        )
        return replace(est, samples=self.samples)

    def estimate(self, model, mechanism, adversary, rng, engine=None) -> Estimate:
        """Sampled: the exact engine is not used."""
        a = self._outputs(model, mechanism, adversary.condition(adversary.x), rng)
        b = self._outputs(model, mechanism, adversary.condition(adversary.x_prime), rng)
        return self._max(a, b, rng)

    def null_estimate(self, model, mechanism, adversary, rng) -> Estimate:
        cond = adversary.condition(adversary.x)
        a = self._outputs(model, mechanism, cond, rng)
        b = self._outputs(model, mechanism, cond, rng)
        return self._max(a, b, rng)


register_estimator(KdeEstimator)
