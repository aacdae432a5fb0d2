"""Divergences of two finite laws ``p, q`` on the same outcomes, and the monotone inversion of a
privacy profile.

* hockey-stick ``H_eps(p || q) = sum (p - e^eps q)^+`` (the privacy profile ``delta(eps)``);
* Rényi ``D_alpha(p || q) = ln(sum p^alpha q^{1 - alpha}) / (alpha - 1)`` for ``alpha > 1``, and
  ``D_inf = max ln p/q`` over ``p > 0`` (``+inf`` where ``q = 0 < p``);
* :func:`invert_profile`: ``eps(delta) = min{eps >= 0 : delta(eps) <= delta}`` of a non-increasing
  profile, by bisection.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import logsumexp

from ..argcheck import require
from ..roots import monotone_root


def _pair(p, q) -> tuple[np.ndarray, np.ndarray]:
    P, Q = np.asarray(p, dtype=float).ravel(), np.asarray(q, dtype=float).ravel()
    require(P.shape == Q.shape, "q", Q.shape, f"must have the shape of p {P.shape}")
    require(bool(np.all(P >= 0) & np.all(Q >= 0)), "p", "negative entries", "must be non-negative")
    return P, Q


def hockey_stick(p, q, epsilon):
    """``sum (p - e^eps q)^+`` for one ``eps`` or an array of them."""
    P, Q = _pair(p, q)
    e = np.atleast_1d(np.asarray(epsilon, dtype=float))
    out = np.array([float(np.maximum(P - math.exp(v) * Q, 0.0).sum()) for v in e])
    out = np.clip(out, 0.0, 1.0)
    return float(out[0]) if np.ndim(epsilon) == 0 else out


def max_log_ratio(p, q) -> float:
    """``max ln p/q`` over the outcomes with ``p > 0`` (``+inf`` if some has ``q = 0``)."""
    P, Q = _pair(p, q)
    use = P > 0
    if not use.any():
        return -math.inf
    if np.any(Q[use] == 0):
        return math.inf
    return float(np.max(np.log(P[use]) - np.log(Q[use])))


def renyi(p, q, alpha: float) -> float:
    """``D_alpha(p || q)`` for ``alpha`` in ``(1, inf]`` (log-space sum; ``+inf`` where ``q = 0 < p``)."""
    a = float(alpha)
    require(a > 1.0, "alpha", alpha, "must be > 1")
    if math.isinf(a):
        return max_log_ratio(p, q)
    P, Q = _pair(p, q)
    use = P > 0
    if np.any(Q[use] == 0):
        return math.inf
    lp, lq = np.log(P[use]), np.log(Q[use])
    return float(logsumexp(a * lp + (1.0 - a) * lq) / (a - 1.0))


def invert_profile(
    profile: Callable[[float], float], delta: float, upper: float, tol: float = 1e-10
) -> float:
    """The least ``eps`` in ``[0, upper]`` with ``profile(eps) <= delta`` for a non-increasing
    ``profile`` (``upper`` must satisfy it; ``0`` when ``profile(0) <= delta``), to ``tol``."""
    d = float(delta)
    require(0.0 < d < 1.0, "delta", delta, "must be in the open interval (0, 1)")
    if profile(0.0) <= d:
        return 0.0
    hi = float(upper)
    require(math.isfinite(hi) and profile(hi) <= d, "upper", upper, "must satisfy profile(upper) <= delta")
    root = monotone_root(lambda e: profile(e) - d, hi, 0.0, rtol=tol, atol=tol, log=False, expand=False)
    return float(root.safe)  # type: ignore[arg-type]  # the given safe end at least
