"""The Gaussian privacy loss in closed form.

Two output laws ``N(m, C)`` and ``N(m', C)`` (the same covariance) have a Gaussian privacy loss:
``L = ln p/q ~ N(mu^2/2, mu^2)`` under ``p`` with ``mu^2 = d^T C^{-1} d``, ``d = m - m'`` (the
Mahalanobis distance of the means). Everything follows from ``mu`` (Balle and Wang 2018, Thm 8;
Dong, Roth and Su 2022, Cor. 2.13; Mironov 2017, Prop. 7):

* ``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)``;
* ``D_alpha = alpha mu^2 / 2`` (``+inf`` at ``alpha = inf`` for ``mu > 0``);
* ``beta(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)`` (the trade-off function ``G_mu``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from ..argcheck import require
from ..roots import monotone_root


def gaussian_mu(d, C) -> float:
    """``mu = sqrt(d^T C^{-1} d)`` for a mean shift ``d`` and a positive definite covariance ``C``
    (by a Cholesky solve)."""
    d = np.atleast_1d(np.asarray(d, dtype=float))
    C = np.atleast_2d(np.asarray(C, dtype=float))
    require(C.shape == (d.size, d.size), "C", C.shape, f"must be a {d.size} x {d.size} matrix")
    require(bool(np.all(np.isfinite(d))), "d", d.tolist(), "must be finite")
    try:
        ch = np.linalg.cholesky(C)
    except np.linalg.LinAlgError:
        raise ValueError(f"C = {C.tolist()}: must be positive definite") from None
    z = np.linalg.solve(ch, d)
    return float(math.sqrt(float(z @ z)))


def _mu(mu) -> float:
    m = float(mu)
    require(m >= 0.0, "mu", mu, "must be >= 0")
    return m


def gaussian_delta(mu: float, epsilon):
    """``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)`` (float or array of ``eps``);
    ``0`` for ``mu = 0``, ``1`` for ``mu = inf``. The second term in log space (no overflow)."""
    m = _mu(mu)
    e = np.asarray(epsilon, dtype=float)
    if m == 0.0:
        out = np.zeros_like(e)
    elif math.isinf(m):
        out = np.ones_like(e)
    else:
        out = ndtr(m / 2 - e / m) - np.exp(e + log_ndtr(-m / 2 - e / m))
        out = np.clip(out, 0.0, 1.0)
    return float(out) if np.ndim(epsilon) == 0 else out


def gaussian_renyi(mu: float, alpha: float) -> float:
    """``D_alpha = alpha mu^2 / 2`` (``alpha = inf``: ``+inf`` unless ``mu = 0``)."""
    m, a = _mu(mu), float(alpha)
    require(a > 1.0, "alpha", alpha, "must be > 1")
    if math.isinf(a):
        return 0.0 if m == 0.0 else math.inf
    return a * m * m / 2.0


def gaussian_beta(mu: float, alpha):
    """The trade-off ``beta(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)`` of ``mu``-GDP."""
    m = _mu(mu)
    a = np.asarray(alpha, dtype=float)
    out = ndtr(ndtri(1.0 - a) - m)
    return float(out) if np.ndim(alpha) == 0 else out


def gaussian_epsilon(mu: float, delta: float) -> float:
    """The least ``eps >= 0`` with ``delta(eps) <= delta`` (``delta(eps)`` decreases strictly while
    positive: bisection to ``1e-12``)."""
    m = _mu(mu)
    d = float(delta)
    require(0.0 < d < 1.0, "delta", delta, "must be in the open interval (0, 1)")
    if gaussian_delta(m, 0.0) <= d:
        return 0.0
    lo, hi = 0.0, 1.0
    while gaussian_delta(m, hi) > d:
        lo, hi = hi, 2 * hi
    root = monotone_root(
        lambda e: gaussian_delta(m, e) - d, hi, lo, rtol=1e-12, atol=1e-12, log=False, expand=False
    )
    return float(root.safe)  # type: ignore[arg-type]  # the given safe end at least
