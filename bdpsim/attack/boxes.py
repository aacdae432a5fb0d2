"""The worst TPR at a false-positive rate of the Laplace histogram of three states over every
adversary, by the accountant's box brackets of R^3 (:mod:`bdpsim.kernels.privacy.boxes`).

As :meth:`bdpsim.accounting.accountant.Account.tpr_at`: the TPR attained by the adversary of the
largest advantage, ``TPR(alpha) = inf_t [t alpha + H(t)]`` (Neyman-Pearson; ``H(t)`` its
hockey-stick divergence at ``eps = ln t``, the larger of both orders), with ``H`` at its
bracket's lower end; and the bound ``t* alpha + sup_adv H(t*)`` for every adversary at the
threshold ``t*`` found (one search over every adversary), or the pure-DP value ``e^B alpha`` of
the BDPL ``B`` over every adversary where smaller. A fine bracket of R^3 costs seconds, so
the threshold is searched on brackets of width :data:`SEARCH_WIDTH` (golden section in ``ln t``
to :data:`SEARCH_TOLERANCE`) and only the threshold found is bracketed to the full tolerance;
beside it the kink ``t = e^L`` (``L = sup ln p/q``, the order's own BDPL, exact), where ``H(t) = 0``
exactly and ``t alpha`` is the pure-DP value of the order (where the infimum sits at small FPRs,
which the coarse middles round past). Each is a value of ``t alpha + H(t)`` (``H`` at its lower
end), the smaller is kept: the search's point of :meth:`Account.tpr_at`, found with coarser
brackets.
"""

from __future__ import annotations

import math

from ..accounting.pairs import box_scale
from ..adversary import Adversary
from ..kernels.chains.histogram_sup import histogram_sup
from ..kernels.privacy.boxes import TOLERANCE, laplace_boxes_hockey
from .tradeoff import LOG_T_MAX, argmin_log_t, pure_dp_tpr

#: width of the brackets the threshold is searched on (measured: 0.1-0.3 s a bracket of R^3)
SEARCH_WIDTH = 1e-4
#: relative width in ``ln t`` the golden-section search stops at
SEARCH_TOLERANCE = 1e-7


def _scale(pair) -> float:
    """The common Laplace scale of the pair's releases (an account of three of one scale)."""
    b = box_scale(pair.plan)
    assert b is not None  # box_tpr is reached for the box brackets' accounts only
    return b


def _hockey(pair, u: float, forward: bool, tol: float | None) -> tuple[float, float]:
    """``(lower, upper)`` of the pair's ``H_u`` (``forward``: ``p || q``), bracketed to ``tol``
    (``None``: the kernel's :data:`~bdpsim.kernels.privacy.boxes.TOLERANCE`); ``u < 0`` by
    ``H_u(p||q) = 1 - e^u + e^u H_{-u}(q||p)``."""
    if u < 0:
        lo, hi = _hockey(pair, -u, not forward, tol)
        k = math.exp(u)
        return 1.0 - k + k * lo, 1.0 - k + k * hi
    cols = [c for c, _ in pair.plan.reduced]
    p, q = (pair.w1, pair.w2) if forward or u == 0.0 else (pair.w2, pair.w1)
    at = pair.atoms[:, cols]
    br = laplace_boxes_hockey(at, p, q, _scale(pair), u, tol=TOLERANCE if tol is None else tol)
    return br.lower, br.upper


def box_tpr(acc, alpha: float) -> tuple[float, float, Adversary]:
    """``(attained, upper, adversary)`` of the worst TPR at FPR ``alpha`` of the account ``acc`` of
    three Laplace releases over every adversary (module docstring)."""
    adv = acc.advantage.adversary
    pair = acc.pair(adv)
    cols = [c for c, _ in pair.plan.reduced]
    at = pair.atoms[:, cols]
    own = histogram_sup(at, pair.w1, at, pair.w2, _scale(pair))
    best = (-1.0, 0.0)
    for forward in (True, False):

        def fn(u: float, forward: bool = forward) -> float:
            lo, hi = _hockey(pair, u, forward, SEARCH_WIDTH)
            return math.exp(u) * alpha + min(1.0, max(0.0, 0.5 * (lo + hi)))

        u, _ = argmin_log_t(fn, -LOG_T_MAX, LOG_T_MAX, SEARCH_TOLERANCE)
        lo, _ = _hockey(pair, u, forward, None)
        v = math.exp(u) * alpha + max(0.0, lo)
        kink = own.forward if forward else own.backward
        if math.isfinite(kink) and abs(kink) <= LOG_T_MAX and math.exp(kink) * alpha < v:
            v, u = math.exp(kink) * alpha, kink
        v = min(1.0, max(alpha, v))
        if v > best[0]:
            best = (v, u)
    v, u = best
    t = math.exp(u)
    d = acc.delta(abs(u)).upper
    upper = t * alpha + (d if u >= 0 else 1.0 - t + t * d)
    upper = min(upper, pure_dp_tpr(acc.bdpl.upper, alpha))  # every adversary's BDPL is at most it
    return v, min(1.0, max(upper, v)), adv


__all__ = ["SEARCH_TOLERANCE", "SEARCH_WIDTH", "box_tpr"]
