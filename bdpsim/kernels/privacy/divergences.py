"""Divergences of two finite laws ``p, q`` on the same outcomes, and the monotone inversion of a
privacy profile.

* hockey-stick ``H_eps(p || q) = sum (p - e^eps q)^+`` (the privacy profile ``delta(eps)``);
* Rényi ``D_alpha(p || q) = ln(sum p^alpha q^{1 - alpha}) / (alpha - 1)`` for ``alpha > 1``, and
  ``D_inf = max ln p/q`` over ``p > 0`` (``+inf`` where ``q = 0 < p``);
* :func:`invert_profile`: ``eps(delta) = min{eps >= 0 : delta(eps) <= delta}`` of a non-increasing
  profile, by bisection;
* :func:`renyi_from_profile`: ``D_alpha`` bounded from the two privacy profiles on a grid.
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


#: the largest order :func:`renyi_from_profile` integrates (beyond, ``(alpha - 1) eps`` overflows)
MAX_ORDER = 1e6


def renyi_from_profile(alpha: float, grid, forward, backward, end: str, chord: int = 0) -> float:
    """A bound of ``D_alpha(P || Q)`` (``alpha`` in ``(1, inf)``) from the two privacy profiles
    ``H_eps(P || Q)`` and ``H_eps(Q || P)`` known at the points of ``grid`` only.

    The integral representation of an f-divergence by the hockey-stick divergences (Sason and Verdú
    2016, *f-divergence inequalities*, Prop. 3), with ``f(t) = t^alpha - 1`` and ``gamma = e^eps``::

        E_Q[(p/q)^alpha] = 1 + alpha (alpha - 1) int_0^inf [e^{(alpha - 1) eps} H_eps(P || Q)
                                                           + e^{-alpha eps} H_eps(Q || P)] d eps,

    ``D_alpha = ln E_Q[(p/q)^alpha] / (alpha - 1)``. Both profiles are non-increasing in ``eps``, so
    on each cell ``[eps_i, eps_{i+1}]`` they lie between their values at its two ends: ``end =
    "upper"`` integrates the left ends (``forward``, ``backward``: upper ends of the profiles at the
    grid points; the profiles must vanish beyond the last point — e.g. at a certified upper end of
    the BDPL), ``"lower"`` the right ends (lower ends of the profiles; nothing beyond the grid).

    ``H_eps = E_Q[(p/q - gamma)_+]`` is also convex in ``gamma = e^eps`` (and so is a supremum of
    such profiles): on each cell it lies below the chord in ``gamma`` between its two ends. With
    ``chord = m > 0`` the upper end integrates that chord's left ends on ``m`` sub-cells of each
    cell (still an upper end; the gap to the true integral shrinks like the square of the cell).

    Parameters
    ----------
    alpha : float
        The order, ``1 < alpha <=`` :data:`MAX_ORDER`.
    grid : array_like
        Increasing values ``0 = eps_0 < ... < eps_G``.
    forward, backward : array_like
        ``H_eps(P || Q)`` and ``H_eps(Q || P)`` at the grid points (their ends as ``end`` says).
    end : {"upper", "lower"}
        Which bound.
    """
    a = float(alpha)
    require(
        1.0 < a <= MAX_ORDER, "alpha", alpha, f"must be in (1, {MAX_ORDER:g}] (beyond: the BDPL bounds it)"
    )
    require(end in ("upper", "lower"), "end", end, "must be 'upper' or 'lower'")
    e = np.asarray(grid, dtype=float)
    f, b = np.asarray(forward, dtype=float), np.asarray(backward, dtype=float)
    require(
        e.ndim == 1 and e.size >= 2 and e[0] == 0.0 and bool(np.all(np.diff(e) > 0)),
        "grid",
        "the values given",
        "must increase from 0 (at least two points)",
    )
    require(f.shape == e.shape and b.shape == e.shape, "forward", f.shape, "must have the grid's shape")
    if chord > 0 and end == "upper":  # the chords in gamma, on m sub-cells of each cell
        t = np.linspace(0.0, 1.0, int(chord) + 1)[:-1]
        # ln(g0 + t (g1 - g0)) = eps_i + ln(1 + t expm1(eps_{i+1} - eps_i)): no overflow
        sub = e[:-1, None] + np.log1p(t[None, :] * np.expm1(np.diff(e))[:, None])
        f = np.append((f[:-1, None] + t[None, :] * (f[1:, None] - f[:-1, None])).ravel(), f[-1])
        b = np.append((b[:-1, None] + t[None, :] * (b[1:, None] - b[:-1, None])).ravel(), b[-1])
        e = np.append(sub.ravel(), e[-1])
    lo, width = e[:-1], np.diff(e)
    # in logs (the weights overflow beyond (alpha - 1) eps = 709): the cells' integrals
    # ln int e^{(a-1) eps} = (a-1) eps_i + ln expm1((a-1) w) - ln(a-1), ln int e^{-a eps} likewise
    x = (a - 1.0) * width
    big = np.maximum(x, 30.0)  # ln expm1(x) = x + ln(1 - e^-x) beyond 30, else as it is
    with np.errstate(divide="ignore"):  # a profile value 0 (or a cell of width 0): a term -inf, dropped
        log_up = (a - 1.0) * lo - math.log(a - 1.0)
        log_up += np.where(x > 30.0, big + np.log1p(-np.exp(-big)), np.log(np.expm1(np.minimum(x, 30.0))))
        log_down = -a * lo + np.log(-np.expm1(-a * width)) - math.log(a)
        pick = slice(None, -1) if end == "upper" else slice(1, None)
        weights, values = np.concatenate([log_up, log_down]), np.concatenate([f[pick], b[pick]])
        terms = np.where(values > 0, weights + np.log(np.maximum(values, 0.0)), -np.inf)
    if not np.any(terms > -np.inf):
        return 0.0
    log_moment = math.log(a) + math.log(a - 1.0) + float(logsumexp(terms))
    return float(np.logaddexp(0.0, log_moment)) / (a - 1.0)


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
