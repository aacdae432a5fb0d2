"""The thesis' estimator (thesis §3.1.2 steps 2–7), with pluggable KDE backends.

For each adversary: ``N`` outputs under ``X_i = x`` and ``N`` under ``X_i = x'``; a KDE of each;
``points`` evaluation points ``t`` drawn uniformly between the ``window`` percentiles (default
0.5 % and 99.5 %) of the pooled outputs; the estimate is ``max_t |ln p_x(t) - ln p_x'(t)|``.
Points where either density estimate is <= 0 are excluded and counted (``Estimate.nonpositive``).

Backends map a 1-D sample to ``(grid, density)``; densities at ``t`` are linearly interpolated.

* ``fastkde`` (default, as in the thesis): ``fastkde.pdf(x, use_xarray=False)``. Licence:
  research & development, non-commercial use only.
* ``statsmodels``: ``KDEUnivariate(x).fit(fft=True)`` (Gaussian kernel, Silverman bandwidth), BSD.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError, EstimatorError, check
from ..sampling import sample_outputs
from .base import Estimate


def fastkde_backend(sample: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """fastKDE's self-consistent density estimate on its own grid."""
    import fastkde

    density, grid = fastkde.pdf(sample, use_xarray=False)
    return np.asarray(grid, dtype=float), np.asarray(density, dtype=float)


def statsmodels_backend(sample: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' FFT Gaussian KDE (BSD licence)."""
    from statsmodels.nonparametric.kde import KDEUnivariate

    kde = KDEUnivariate(sample)
    kde.fit(fft=True)
    return np.asarray(kde.support, dtype=float), np.asarray(kde.density, dtype=float)


KDE_BACKENDS: dict[str, Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]] = {
    "fastkde": fastkde_backend,
    "statsmodels": statsmodels_backend,
}


def density_at(sample: np.ndarray, points: np.ndarray, backend: str = "fastkde") -> np.ndarray:
    """KDE of ``sample`` evaluated at ``points`` (0 outside the backend's grid)."""
    if sample.size < 2 or not np.ptp(sample) > 0:
        raise EstimatorError("KDE input is constant or has < 2 values; no density can be estimated")
    grid, dens = KDE_BACKENDS[backend](sample)
    return np.interp(points, grid, dens, left=0.0, right=0.0)


def max_log_ratio(out_x: np.ndarray, out_xp: np.ndarray, rng: np.random.Generator, *,
                  points: int = 1000, window: tuple[float, float] = (0.5, 99.5),
                  backend: str = "fastkde") -> Estimate:
    """Thesis steps 4–7: ``max_t |ln p_x(t)/p_x'(t)|`` over ``points`` uniform ``t`` in the window.

    Returns an :class:`Estimate` with the number of excluded (non-positive density) points.
    """
    lo, hi = np.percentile(np.concatenate([out_x, out_xp]), window)
    t = rng.uniform(lo, hi, size=points)
    p1 = density_at(out_x, t, backend)
    p2 = density_at(out_xp, t, backend)
    ok = (p1 > 0) & (p2 > 0)
    bad = int(points - ok.sum())
    if not ok.any():
        return Estimate(math.nan, bad)
    r = np.abs(np.log(p1[ok]) - np.log(p2[ok]))
    j = int(np.argmax(r))
    return Estimate(float(r[j]), bad, float(t[ok][j]))


@dataclass(frozen=True)
class KdeEstimator:
    """Thesis-faithful KDE estimator (see module docstring)."""

    samples: int = 100_000
    points: int = 1000
    window: tuple[float, float] = (0.5, 99.5)
    backend: str = "fastkde"
    sampling: str = "auto"
    chunk: int = 65_536
    name: str = field(default="kde", init=False)

    def __post_init__(self) -> None:
        check(self.backend in KDE_BACKENDS, "run.kde_backend", self.backend,
              f"must be one of {sorted(KDE_BACKENDS)}")
        check(self.samples >= 100, "run.samples", self.samples, "must be >= 100")
        check(self.points >= 1, "run.eval_points", self.points, "must be >= 1")
        lo, hi = self.window
        if not (0 <= lo < hi <= 100):
            raise ConfigError("run.window", list(self.window), "must be [low, high] with 0 <= low < high <= 100")

    @classmethod
    def from_settings(cls, settings) -> "KdeEstimator":
        return cls(settings.samples, settings.eval_points, tuple(settings.window), settings.kde_backend,
                   settings.sampling, settings.chunk)

    @staticmethod
    def supports(model, mechanism) -> str | None:
        """Any mechanism that can be run on data batches."""
        return None

    def _outputs(self, model, mech, cond, rng):
        return sample_outputs(model, mech, cond, self.samples, rng, self.sampling, self.chunk)

    def estimate(self, model, mechanism, adversary, rng) -> Estimate:
        a = self._outputs(model, mechanism, adversary.condition(adversary.x), rng)
        b = self._outputs(model, mechanism, adversary.condition(adversary.x_prime), rng)
        return max_log_ratio(a, b, rng, points=self.points, window=self.window, backend=self.backend)

    def null_estimate(self, model, mechanism, adversary, rng) -> Estimate:
        cond = adversary.condition(adversary.x)
        a = self._outputs(model, mechanism, cond, rng)
        b = self._outputs(model, mechanism, cond, rng)
        return max_log_ratio(a, b, rng, points=self.points, window=self.window, backend=self.backend)
