"""Exact sup and hockey-stick divergence for mixtures of staircase densities (Geng & Viswanath).

The staircase density with parameters ``epsilon``, ``gamma in [0, 1]`` and sensitivity ``Delta``
(Geng & Viswanath, *The optimal noise-adding mechanism in differential privacy*, IEEE Trans. IT
2016, eq. (14)) is, with ``b = e^{-epsilon}``, ::

    f(y) = a(gamma) b^{L(|y|)},     L(t) = 0 for t < gamma Delta,  L(t) = floor((t - gamma Delta)/Delta) +
    1 otherwise,
    a(gamma) = (1 - b) / (2 Delta (gamma + (1 - gamma) b)),

i.e. ``a`` on ``[0, gamma Delta)``, ``b a`` on ``[gamma Delta, Delta)``, and ``b^k`` times that on
``[k Delta, (k+1) Delta)``; symmetric. It jumps only at ``±(k + gamma) Delta``, ``k >= 0`` (at
``k Delta`` the two pieces have the same height).

For mixtures ``p(y) = sum_j w_j f(y - c_j)`` both densities are constant between consecutive points
of ``{c_j ± (k + gamma) Delta}``, so their ratio is piecewise constant. Beyond the extreme atoms the
ratio is periodic with period ``Delta``: for ``y >= max c`` every ``y - c_j >= 0`` and
``L(t + Delta) = L(t) + 1`` (``t >= 0``), so ``p(y + Delta) = b p(y)`` for both mixtures (mirror on the
left). Hence

* ``sup_y ln p1/p2`` is the max over the cells of ``[min c - Delta, max c + Delta]`` (one period past
  each end covers the tails);
* ``∫ max(0, p1 - e^eps p2)`` is the exact sum over the cells of ``[min c, max c]`` plus
  ``1/(1 - b)`` times the sum over the one period past each end (a geometric series of periods).

Cells are found by sorting all breakpoints; breakpoints closer than ``1e-9 * max(Delta, range)``
are merged (coincident in exact arithmetic on a lattice), and densities are evaluated at cell
midpoints. Cost ``O(J * M)`` for ``M`` cells, ``M <= 2 J (range/Delta + 3)``.
"""

from __future__ import annotations

import math

import numpy as np

_CHUNK = 2_000_000  # cells * atoms per block


def default_gamma(epsilon: float) -> float:
    """``gamma* = 1/(1 + e^{epsilon/2})``, minimising the expected noise amplitude (Geng &
    Viswanath, Theorem 5, cost ``|x|``)."""
    return 1.0 / (1.0 + math.exp(epsilon / 2.0))


def log_a(epsilon: float, gamma: float, Delta: float) -> float:
    """``ln a(gamma)`` with ``a = (1 - b) / (2 Delta (gamma + (1 - gamma) b))``, ``b = e^{-epsilon}``."""
    b = math.exp(-epsilon)
    return math.log(-math.expm1(-epsilon)) - math.log(2.0 * Delta * (gamma + (1.0 - gamma) * b))


def levels(t: np.ndarray, gamma: float, Delta: float) -> np.ndarray:
    """``L(|t|)`` of the module docstring (integer-valued float array)."""
    a = np.abs(t)
    return np.where(a < gamma * Delta, 0.0, np.floor((a - gamma * Delta) / Delta) + 1.0)


def cells(c: np.ndarray, gamma: float, Delta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cell edges on ``[min c - Delta, max c + Delta]``: returns ``(mid, width, region)`` with
    ``region`` -1 (left tail period), 0 (between the extreme atoms) or +1 (right tail period)."""
    c = np.asarray(c, dtype=float)
    lo, hi = c[0] - Delta, c[-1] + Delta
    kmax = int(math.ceil((hi - lo) / Delta)) + 1
    k = np.arange(kmax + 1, dtype=float)
    off = (k + gamma) * Delta
    pts = np.concatenate(
        [(c[:, None] + off[None, :]).ravel(), (c[:, None] - off[None, :]).ravel(), [lo, c[0], c[-1], hi]]
    )
    pts = np.sort(pts[(pts >= lo) & (pts <= hi)])
    tol = 1e-9 * max(Delta, hi - lo)
    keep = np.concatenate([[True], np.diff(pts) > tol])
    pts = pts[keep]
    pts[-1] = hi
    # snap the region boundaries exactly
    for v in (c[0], c[-1]):
        pts[np.argmin(np.abs(pts - v))] = v
    mid = 0.5 * (pts[:-1] + pts[1:])
    width = np.diff(pts)
    region = np.where(mid < c[0], -1, np.where(mid > c[-1], 1, 0))
    return mid, width, region


def log_mixture(
    W: np.ndarray, c: np.ndarray, y: np.ndarray, epsilon: float, gamma: float, Delta: float
) -> np.ndarray:
    """``ln sum_j w_j b^{L(|y_m - c_j|)}`` (the mixture density divided by ``a``), shape ``(B, M)``.

    Per block of outputs the kernel is scaled by its largest entry (the nearest atom) and applied
    with a matrix product; a row whose scaled value underflows is recomputed with a log-sum-exp.
    """
    B, J = W.shape
    out = np.empty((B, y.size))
    step = max(1, _CHUNK // max(J, 1))
    with np.errstate(divide="ignore"):
        lw = np.log(W)
    for s in range(0, y.size, step):
        yy = y[s : s + step]
        lk = -epsilon * levels(yy[:, None] - c[None, :], gamma, Delta)  # (m, J)
        top = lk.max(axis=1)
        vals = W @ np.exp(lk - top[:, None]).T  # (B, m)
        with np.errstate(divide="ignore"):
            blk = np.log(vals) + top[None, :]
        bad = np.flatnonzero(np.any(vals < 1e-290, axis=1))
        for r in bad:
            a = lw[r][None, :] + lk
            m = a.max(axis=1)
            with np.errstate(invalid="ignore"):
                blk[r] = m + np.log(np.sum(np.exp(a - m[:, None]), axis=1))
        out[:, s : s + step] = blk
    return out


def stair_sup(W1, W2, c, epsilon, gamma, Delta):
    """Forward/backward sup of ``ln p1/p2`` over the cells; returns ``(fwd, bwd, where_f, where_b)``
    with ``where`` the cell midpoint, or ``±inf`` for a cell in a tail period."""
    mid, _, region = cells(c, gamma, Delta)
    l1 = log_mixture(W1, c, mid, epsilon, gamma, Delta)
    l2 = log_mixture(W2, c, mid, epsilon, gamma, Delta)
    d = l1 - l2
    jf, jb = np.argmax(d, axis=1), np.argmin(d, axis=1)
    r = np.arange(d.shape[0])
    place = np.where(region < 0, -np.inf, np.where(region > 0, np.inf, mid))
    return d[r, jf], -d[r, jb], place[jf], place[jb]


def stair_delta(W1, W2, c, epsilon, gamma, Delta, eps):
    """``∫ max(0, p1 - e^eps p2) dy`` exactly (module docstring)."""
    mid, width, region = cells(c, gamma, Delta)
    la = log_a(epsilon, gamma, Delta)
    l1 = log_mixture(W1, c, mid, epsilon, gamma, Delta) + la
    l2 = log_mixture(W2, c, mid, epsilon, gamma, Delta) + la
    f = np.maximum(np.exp(l1) - np.exp(l2 + eps), 0.0) * width
    factor = np.where(region == 0, 1.0, 1.0 / -math.expm1(-epsilon))
    return np.minimum(f @ factor, 1.0)
