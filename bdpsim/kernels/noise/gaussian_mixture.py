"""Sup and hockey-stick divergence for two mixtures of ``N(c_j, sigma^2)`` with common atoms.

With ``s = y / sigma^2`` the common factor ``e^{-y^2 / 2 sigma^2}`` cancels from the ratio::

    h(s) = ln p1(y)/p2(y) = LSE_j(ln w1_j + a_j + c_j s) - LSE_j(ln w2_j + a_j + c_j s),
    a_j = -c_j^2 / (2 sigma^2)

(``LSE`` = log-sum-exp). As ``s -> +inf`` the highest atom with positive weight dominates each
mixture: ``h -> +inf`` if the top atom of ``p1`` is above that of ``p2``, ``-inf`` if below, and
``ln w1_top / w2_top`` if they coincide (mirror for ``s -> -inf``). So **the pure supremum is
``+inf`` unless both mixtures have the same lowest and the same highest atom** — the usual case for
a target that moves the query (e.g. a count: the two supports are shifted), and always when one
atom set is a shifted copy of the other. When the extreme atoms coincide the ratio is bounded
(by ``max_j w1_j / w2_j``) and its supremum is found numerically: ``h`` on a uniform grid in ``s``
(spacing ``0.02 / min gap`` in ``1/c`` units, at least 4 000 points) over the range where no line
dominates the others by more than 40 nats, then each grid maximum refined by Brent's method
(``xatol = 1e-12`` relative); beyond that range ``h`` equals its limit to ``~e^{-40}``.

Hockey-stick divergence ``delta = ∫ max(0, p1 - e^eps p2) dy``: the sign changes of
``h(s) - eps`` are bracketed on the same grid (and, beyond it, where ``h`` is linear to ``e^{-40}``,
from the linear asymptote) and solved with ``scipy.optimize.brentq`` (``xtol = 1e-14 (1 + |s|)``,
``rtol = 1e-15``); between consecutive crossings the exact masses are normal-CDF differences,
``sum_j w_j [Phi((y_b - c_j)/sigma) - Phi((y_a - c_j)/sigma)]``. Crossings closer than the grid
spacing could be missed; the brute-force tests compare with ``scipy.integrate.quad`` to 1e-8.
"""

from __future__ import annotations

import math

import numpy as np

_MARGIN = 40.0
_MAX_GRID = 400_000


def _lines(W: np.ndarray, c: np.ndarray, sigma: float):
    with np.errstate(divide="ignore"):
        return np.log(W) - c[None, :] ** 2 / (2.0 * sigma**2)


def _h(s: np.ndarray, I1: np.ndarray, I2: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``h`` at points ``s`` for one row (intercepts ``I1, I2`` of shape ``(J,)``), chunked."""
    out = np.empty(s.size)
    step = max(1, 2_000_000 // c.size)
    for i in range(0, s.size, step):
        ss = s[i : i + step, None] * c[None, :]
        a1, a2 = I1[None, :] + ss, I2[None, :] + ss
        m1, m2 = a1.max(axis=1), a2.max(axis=1)
        out[i : i + step] = (
            m1
            + np.log(np.exp(a1 - m1[:, None]).sum(axis=1))
            - m2
            - np.log(np.exp(a2 - m2[:, None]).sum(axis=1))
        )
    return out


def _range(I: np.ndarray, c: np.ndarray) -> tuple[float, float]:
    """``[s_lo, s_hi]`` outside which the extreme line of ``I`` beats every other by ``_MARGIN``."""
    ok = np.flatnonzero(np.isfinite(I))
    top, bot = ok[-1], ok[0]
    hi = lo = 0.0
    if ok.size > 1:
        o = ok[ok != top]
        hi = float(np.max((_MARGIN + I[o] - I[top]) / (c[top] - c[o])))
        o = ok[ok != bot]
        lo = float(np.min((I[bot] - I[o] - _MARGIN) / (c[o] - c[bot])))
    return lo, hi


def _grid(I1, I2, c):
    lo1, hi1 = _range(I1, c)
    lo2, hi2 = _range(I2, c)
    lo, hi = min(lo1, lo2) - 1.0, max(hi1, hi2) + 1.0
    gap = float(np.min(np.diff(c))) if c.size > 1 else 1.0
    n = int(min(_MAX_GRID, max(4000, math.ceil((hi - lo) * gap / 0.02))))
    return np.linspace(lo, hi, n)


def _extremes(W: np.ndarray) -> tuple[int, int]:
    nz = np.flatnonzero(W > 0)
    return int(nz[0]), int(nz[-1])


def gauss_sup_row(w1: np.ndarray, w2: np.ndarray, c: np.ndarray, sigma: float):
    """``(fwd, bwd, where_f, where_b)`` for one pair of normalised weight rows; ``where`` is the
    output ``y`` attaining the sup or ``±inf`` for a tail."""
    from scipy.optimize import minimize_scalar

    c0 = 0.5 * (float(c[0]) + float(c[-1]))
    c = np.asarray(c, dtype=float) - c0  # shift invariance: centre the atoms
    b1, t1 = _extremes(w1)
    b2, t2 = _extremes(w2)
    I1, I2 = _lines(w1[None], c, sigma)[0], _lines(w2[None], c, sigma)[0]
    res = []
    for sign in (1.0, -1.0):
        # direction sign: sup of sign * h
        up = (t1 > t2) if sign > 0 else (t2 > t1)
        down = (b1 < b2) if sign > 0 else (b2 < b1)
        if up or down:
            res.append((math.inf, math.inf if up else -math.inf))
            continue
        s = _grid(I1, I2, c)
        v = sign * _h(s, I1, I2, c)
        best, where = -math.inf, math.nan
        inner = np.flatnonzero((v[1:-1] >= v[:-2]) & (v[1:-1] >= v[2:])) + 1
        if inner.size > 64:
            inner = inner[np.argsort(v[inner])[-64:]]
        for i in inner:
            f = lambda x, sign=sign: -sign * _h(np.array([x]), I1, I2, c)[0]  # noqa: E731
            r = minimize_scalar(
                f, bounds=(s[i - 1], s[i + 1]), method="bounded", options={"xatol": 1e-12 * (1.0 + abs(s[i]))}
            )
            val = max(-float(r.fun), float(v[i]))
            if val > best:
                best, where = val, float(r.x if -float(r.fun) >= v[i] else s[i]) * sigma**2
        # tail limits: finite where the extreme atoms coincide, else -inf in this direction; a tail
        # that ties with the interior maximum (to 1e-12) is reported as the place (+-inf)
        lim_hi = sign * (math.log(w1[t1]) - math.log(w2[t1])) if t1 == t2 else -math.inf
        lim_lo = sign * (math.log(w1[b1]) - math.log(w2[b1])) if b1 == b2 else -math.inf
        for lim, w in ((lim_hi, math.inf), (lim_lo, -math.inf)):
            if lim >= best - 1e-12 * (1.0 + abs(lim)):
                best, where = max(best, lim), w
        res.append((best, where))
    (fwd, wf), (bwd, wb) = res
    return fwd, bwd, wf + c0, wb + c0


def _mass(w: np.ndarray, c: np.ndarray, sigma: float, ya: float, yb: float) -> float:
    """``sum_j w_j P(ya < N(c_j, sigma^2) < yb)`` with the accurate tail (cdf or sf) per atom."""
    from scipy.special import ndtr

    za, zb = (ya - c) / sigma, (yb - c) / sigma
    right = za > 0
    m = np.where(right, ndtr(-za) - ndtr(-zb), ndtr(zb) - ndtr(za))
    return float(np.dot(w, m))


def gauss_delta_row(w1: np.ndarray, w2: np.ndarray, c: np.ndarray, sigma: float, eps: float) -> float:
    """Exact-up-to-root-finding ``∫ max(0, p1 - e^eps p2) dy`` for one pair of rows."""
    from scipy.optimize import brentq

    c = np.asarray(c, dtype=float) - 0.5 * (float(c[0]) + float(c[-1]))
    I1, I2 = _lines(w1[None], c, sigma)[0], _lines(w2[None], c, sigma)[0]
    s = _grid(I1, I2, c)
    g = _h(s, I1, I2, c) - eps
    H = lambda x: _h(np.array([x]), I1, I2, c)[0] - eps  # noqa: E731
    roots = []
    sg = np.sign(g)
    for i in np.flatnonzero(sg[:-1] * sg[1:] < 0):
        roots.append(brentq(H, s[i], s[i + 1], xtol=1e-14 * (1 + abs(s[i])), rtol=1e-15))
    # beyond the grid h is linear (slope c_top1 - c_top2, resp. c_bot1 - c_bot2) up to e^{-40}
    b1, t1 = _extremes(w1)
    b2, t2 = _extremes(w2)
    for end, slope in ((s[-1], c[t1] - c[t2]), (s[0], c[b1] - c[b2])):
        direction = 1.0 if end == s[-1] else -1.0
        g_end = H(end)
        far = direction * slope  # growth of h per unit of distance from the grid
        if far == 0.0 or g_end == 0.0 or np.sign(g_end) == np.sign(far):
            continue
        dist = abs(g_end / far) + 1.0
        while np.sign(H(end + direction * dist)) == np.sign(g_end):
            dist *= 2.0
        a_, b_ = sorted((end, end + direction * dist))
        roots.append(brentq(H, a_, b_, xtol=1e-14 * (1 + abs(end) + dist), rtol=1e-15))
    ys = np.concatenate([[-np.inf], np.sort(np.asarray(roots)) * sigma**2, [np.inf]])
    total = 0.0
    for ya, yb in zip(ys[:-1], ys[1:]):
        # sign of h - eps on (ya, yb), tested at an interior point
        if np.isinf(ya) and np.isinf(yb):
            x = 0.0
        elif np.isinf(ya):
            x = yb / sigma**2 - 1.0
        elif np.isinf(yb):
            x = ya / sigma**2 + 1.0
        else:
            x = 0.5 * (ya + yb) / sigma**2
        if H(x) > 0:
            total += _mass(w1, c, sigma, ya, yb) - math.exp(eps) * _mass(w2, c, sigma, ya, yb)
    return min(max(total, 0.0), 1.0)
