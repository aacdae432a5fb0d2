"""Distribution-free confidence interval for a percentile (order statistics).

For ``A`` i.i.d. values with any distribution ``F`` and ``xi_p`` its ``p``-quantile, the number of
values ``<= xi_p`` is ``Binomial(A, F(xi_p))`` with ``F(xi_p) >= p`` and the number ``< xi_p`` is
``Binomial(A, F(xi_p-))`` with ``F(xi_p-) <= p``. Hence, with ``B ~ Binomial(A, p)`` and the
sorted values ``X_(1) <= ... <= X_(A)``,

    P(X_(l) > xi_p) <= P(B <= l - 1),      P(X_(u) < xi_p) <= P(B >= u),

and ``[X_(l), X_(u)]`` covers ``xi_p`` with probability at least
``1 - P(B <= l - 1) - P(B >= u)`` (exactly ``P(l <= B <= u - 1)`` for continuous ``F``). We take
the largest ``l`` with ``P(B <= l - 1) <= alpha/2`` and the smallest ``u`` with
``P(B >= u) <= alpha/2`` (equal tails, ``alpha = 1 - confidence``). When no order statistic is
large enough (``u > A``: the sample cannot bound the percentile from above, e.g. the 99th
percentile of fewer than ~300 values at 95 %) the upper limit is ``+inf``; when ``l < 1`` the
lower limit is ``-inf``. (Conover, *Practical Nonparametric Statistics*, §3.2; Hahn & Meeker,
*Statistical Intervals*, §5.2.)
"""

from __future__ import annotations

import math

import numpy as np

from .argcheck import require


def order_statistic_ranks(size: int, q: float, confidence: float = 0.95) -> tuple[int, int]:
    """1-based ranks ``(l, u)`` of the interval ``[X_(l), X_(u)]`` for the ``q``-th percentile
    (``q`` in percent); ``l = 0`` means ``-inf``, ``u = size + 1`` means ``+inf``."""
    from scipy.stats import binom  # lazy: scipy is heavy to import

    require(isinstance(size, (int, np.integer)) and size >= 1, "size", size, "must be an integer >= 1")
    require(0 < q <= 100, "q", q, "must be in (0, 100]")
    require(0 < confidence < 1, "confidence", confidence, "must be in (0, 1)")
    p, half = q / 100.0, (1.0 - confidence) / 2.0
    k = np.arange(size + 1)
    cdf = binom.cdf(k, size, p)  # P(B <= k)
    sf = binom.sf(k - 1, size, p)  # P(B >= k)
    ok_l = np.flatnonzero(cdf[:size] <= half)  # l - 1 = k  ->  l = k + 1 in 1..size
    low = int(ok_l[-1]) + 1 if ok_l.size else 0
    ok_u = np.flatnonzero(sf[1:] <= half) + 1  # u in 1..size
    high = int(ok_u[0]) if ok_u.size else size + 1
    return low, high


def percentile_ci(values: np.ndarray, q: float, confidence: float = 0.95) -> tuple[float, float]:
    """Distribution-free ``confidence`` interval for the ``q``-th percentile of the law of
    ``values`` (see module docstring); ``(nan, nan)`` for an empty sample."""
    v = np.sort(np.asarray(values, dtype=float).ravel())
    if v.size == 0:
        return math.nan, math.nan
    low, high = order_statistic_ranks(int(v.size), q, confidence)
    lo = float(v[low - 1]) if low >= 1 else -math.inf
    hi = float(v[high - 1]) if high <= v.size else math.inf
    return lo, hi


def interval_coverage(size: int, q: float, confidence: float = 0.95) -> float:
    """Exact coverage ``P(l <= B <= u - 1)`` of :func:`percentile_ci` for a continuous law (the
    guaranteed minimum for any law: at least ``confidence``)."""
    from scipy.stats import binom  # lazy: scipy is heavy to import

    low, high = order_statistic_ranks(size, q, confidence)
    p = q / 100.0
    upper = binom.cdf(high - 1, size, p) if high <= size else 1.0
    lower = binom.cdf(low - 1, size, p) if low >= 1 else 0.0
    return float(upper - lower)


def interval_percentile_ci(
    lows: np.ndarray, highs: np.ndarray, q: float, confidence: float = 0.95, own: float | None = None
) -> tuple[float, float]:
    """Distribution-free ``confidence`` interval for the ``q``-th percentile ``xi`` of the law of
    the adversaries' *true* values ``theta_j``, when each is known only through an interval
    ``[L_j, U_j]`` that holds with probability ``>= own`` (default ``confidence``).

    ``P(L_j <= xi) >= P(theta_j <= xi, L_j <= theta_j) >= p - (1 - own)/2`` and
    ``P(U_j < xi) <= p + (1 - own)/2`` (one-sided failures of the adversaries' intervals), with
    ``p = q/100``; the ``L_j`` (``U_j``) are i.i.d., so the order-statistic argument of
    :func:`percentile_ci` holds for the lower ends with ``p`` lowered and for the upper ends with
    ``p`` raised by ``(1 - own)/2``: ``[L_(l), U_(u)]`` covers ``xi`` with probability
    ``>= confidence``, the adversary draw *and* each estimate's own error accounted for (with
    exact values, ``L_j = U_j = theta_j``, it is :func:`percentile_ci`'s interval at ``p +- 0``
    only when ``own = 1``).
    """
    lo = np.sort(np.asarray(lows, dtype=float).ravel())
    hi = np.sort(np.asarray(highs, dtype=float).ravel())
    if lo.size == 0:
        return math.nan, math.nan
    shift = 50.0 * (1.0 - (confidence if own is None else own))  # (1 - own)/2 in percent
    low = math.nan
    if q - shift > 0:
        l_rank, _ = order_statistic_ranks(int(lo.size), q - shift, confidence)
        low = float(lo[l_rank - 1]) if l_rank >= 1 else -math.inf
    else:
        low = -math.inf
    high = math.inf
    if q + shift <= 100:
        _, u_rank = order_statistic_ranks(int(hi.size), q + shift, confidence)
        high = float(hi[u_rank - 1]) if u_rank <= hi.size else math.inf
    return low, high


def own_level(q: float, confidence: float = 0.95) -> float:
    """The level of the per-adversary intervals :func:`interval_percentile_ci` reads for the
    ``q``-th percentile: their one-sided failures shift the percentile by ``(1 - own)/2``, here a
    tenth of the distance to the nearer end (``0.1`` points for the 99th percentile), and never
    less than ``confidence``."""
    return max(confidence, 1.0 - min(q, 100.0 - q) / 100.0 / 5.0)
