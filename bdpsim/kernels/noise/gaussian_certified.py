"""Certified, vectorised sup and hockey-stick divergence of two mixtures of ``N(c_j, sigma^2)``.

Both functions take many pairs of rows at once (batch on the first axis) over common atoms
``c_j`` and replace the per-row grid + Brent kernel of :mod:`bdpsim.kernels.noise.gaussian_mixture` (kept
as the
reference the tests compare with). In units of ``sigma`` (``u = y / sigma``, ``z_j = c_j / sigma``)
the two log-densities are, up to the common constant,

    G_k(u) = LSE_j(ln w_kj - (u - z_j)^2 / 2),     h(u) = G_1(u) - G_2(u) = ln p1/p2,

and ``h'(u) = m_1(u) - m_2(u)`` where ``m_k(u) = E_k[z | u]`` is the posterior mean of the atom
given the output. **Each m_k is non-decreasing in u** (its derivative is the posterior variance),
so on a cell ``[a, b]`` the derivative is bracketed by the endpoint values alone::

    h'(u) in [m_1(a) - m_2(b), m_1(b) - m_2(a)] = [d_lo, d_hi].

That gives (i) a **certified upper bound** of ``h`` on the cell (the Lipschitz bound
``min(h(a) + d_hi (u - a), h(b) - d_lo (b - u))``, maximal where the two lines meet; its excess
over ``max(h(a), h(b))`` shrinks like the cell width squared), (ii) the same lower bound, and
(iii) a **monotonicity certificate** (``d_lo > 0`` or ``d_hi < 0``): a monotone cell holds at most
one crossing of any level.

Supremum (:func:`gauss_sup`). As ``u -> +inf`` the highest atom with positive weight dominates
each mixture: ``h -> +inf`` if the top atom of ``p1`` is above that of ``p2``, ``-inf`` if below,
and ``ln w1_top / w2_top`` if they coincide (mirror for ``u -> -inf``). So **the supremum of
``ln p1/p2`` is ``+inf`` unless ``p1``'s lowest and highest atoms lie within ``p2``'s** (the usual
case for a target that moves the query: Gaussian noise has no pure DP), and it is then bounded.
Beyond ``U_hi`` (where the top line of each mixture beats every other line by ``MARGIN = 40``
nats) ``h`` stays within ``J e^{-40}`` of ``ln w1_top/w2_top + (z_top1 - z_top2)(...)``: equal to
its limit to ``1e-16`` when the tops coincide, decreasing when they do not; the same below
``U_lo``. On ``[U_lo, U_hi]`` a branch and bound over cells (initial spacing ~2, split at the
midpoint) discards a cell once its certified bound is below the best value found plus the
tolerance. Returned: a value ``v`` attained by ``h`` (or its tail limit) with
**``v <= sup h <= v + 1e-11 (1 + |v|)``** (up to the rounding of ``h``, about ``2^-48`` times the
magnitude of the log-densities), and where it is attained (``+-inf`` for a tail limit that ties
with the interior maximum to that tolerance — the semantics of the reference kernel). Identical
mixtures give 0 at once; a row whose log-ratio is flat to the bounds' slack over more than
``_CROWDED`` cells (nearly identical mixtures) stops refining with ``v`` still attained. Atoms at
least ``80 sigma`` apart with the numerator's atoms among the denominator's: the largest ratio of
weights (the components do not overlap); ``|c / sigma| > 1e150`` otherwise: ``+inf`` (the sup
exceeds ``1e299`` nats).

Hockey-stick divergence (:func:`gauss_delta`), ``delta = ∫ max(0, p1 - e^eps p2) dy``. Outside
``[z_min - 9, z_max + 9]`` the positive part carries less than ``2 Phi(-9) ~ 2e-19``. **Fast
path:** ``p1 - e^eps p2 = sum_j (w1_j - e^eps w2_j) phi(u - z_j)`` and the Gaussian kernel is
totally positive (variation diminishing): it changes sign at most as often as its coefficients
do. A row whose coefficients change sign once has exactly one crossing (the extreme coefficients
give its side), found by safeguarded Halley steps (``h'`` and ``h'' = v_1 - v_2``, the posterior
variances) from the coefficients' sign change, inside ``[z_min - 9, z_max + 9]``; no change: one
sign everywhere. **Other rows:** cells are split until each is certified **positive** (lower
bound >= eps), **negative** (upper bound <= eps), **monotone** (one crossing at most, solved the
same way), or undecided within ``DTOL = 1e-14`` of ``eps`` (counted as the nearer sign: an error
below ``1e-14`` times the cell's mass; a row with more than ``_CROWDED`` such cells — ``h`` within
the bounds' slack of ``eps`` over a long stretch, nearly identical mixtures — decides them by
their ends' mean, an error below their bound's distance to ``eps`` times their mass). A root is accepted
when the error it leaves in ``delta``
is below ``1e-17``. Between crossings the masses are exact normal-CDF differences
``sum_j w_j [Phi(b - z_j) - Phi(a - z_j)]`` (upper tail where accurate), adjacent pieces merged.
No crossing can be missed: ``delta`` is exact to about ``1e-14`` absolute. With ``both`` the two
directions share the cells (region ``h >= eps`` and region ``h <= -eps``). When the atoms are at
least ``80 sigma`` apart (``DISJOINT``) the components do not overlap in double precision and
``delta = sum_j (w1_j - e^eps w2_j)^+`` exactly (error below ``J (1 + e^eps) Phi(-40)``); this
also covers a ``sigma`` so small that ``c / sigma`` overflows.
"""

from __future__ import annotations

import math

import numpy as np

MARGIN = 40.0  # nats: beyond [U_lo, U_hi] the extreme line of each mixture dominates by this
TAIL = 9.0  # sigmas beyond the extreme atoms: positive part below 2 Phi(-9) = 2e-19 there
DISJOINT = 80.0  # atom gap / sigma from which the components do not overlap (delta in closed form)
RTOL = 1e-11  # sup: v <= sup <= v + RTOL (1 + |v|)
DTOL = 1e-14  # delta: a cell within DTOL of eps is decided by the nearer sign
HUGE = 1e150  # |z| beyond this: (u - z)^2 would overflow
_ULP = 2.0**-48  # rounding of h relative to the magnitude of the log-densities
_CHUNK = 1_000_000  # points x atoms per evaluation block
_LEVELS = 200  # bisection levels at most (each halves the undecided cells)
_DELTA_CELL = 2.0  # initial cell width (sigmas) of the hockey-stick search
_CROWDED = 1024  # open cells of one row beyond which its branch and bound stops


def _logs(W: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(W)


def _gap(c: np.ndarray, sigma: float) -> float:
    """The smallest atom spacing in units of ``sigma`` (``inf`` for one atom)."""
    with np.errstate(over="ignore"):
        return float(np.min(np.diff(c))) / sigma if c.size > 1 else math.inf


def _ends(L: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last atom with positive weight per row."""
    pos = np.isfinite(L)
    return pos.argmax(axis=1), L.shape[1] - 1 - pos[:, ::-1].argmax(axis=1)


def _evaluate(
    L1: np.ndarray, L2: np.ndarray, z: np.ndarray, row: np.ndarray, u: np.ndarray, second: bool = False
):
    """``h, m1, m2, err`` at points ``u`` of rows ``row`` (``err``: rounding bound of ``h``), and
    with ``second`` also ``h'' = v1 - v2`` (posterior variances).

    Each log-density is taken relative to its dominant line ``k``:
    ``G = L_k - q_k + ln sum_j e^{d_j}``, ``d_j = L_j - L_k - (z_k - z_j)(u - (z_j + z_k)/2)``,
    and ``q_k1 - q_k2 = (z_k2 - z_k1)(u - (z_k1 + z_k2)/2)`` in product form, so the common
    ``(u - z_k)^2 / 2`` cancels exactly and ``h`` is accurate to a few ulps of ``|h|`` and the
    log-weights, also far in the tails (the ``d_j`` errors are weighted by
    ``E|z - z_k| <= sqrt(E (z - z_k)^2)``)."""
    n = u.size
    h, m1, m2, err = (np.empty(n) for _ in range(4))
    hpp = np.empty(n if second else 0)  # h'' only when asked for
    step = max(1, _CHUNK // z.size)
    zmax = float(np.max(np.abs(z))) if z.size else 0.0
    z2 = z * z
    for s in range(0, n, step):
        r, uu = row[s : s + step], u[s : s + step]
        half = uu[:, None] - 0.5 * z[None, :]
        lin = half * z[None, :]  # ln w_j - (u - z_j)^2 / 2 = ln w_j + z_j (u - z_j / 2) - u^2 / 2
        out = []
        for L in (L1, L2):
            Lr = L[r]
            k = np.argmax(Lr + lin, axis=1)
            Lk, zk = Lr[np.arange(r.size), k], z[k]
            d = (Lr - Lk[:, None]) - (zk[:, None] - z[None, :]) * (half - 0.5 * zk[:, None])
            e = np.exp(d, out=d)
            S = e.sum(axis=1)
            m = (e @ z) / S
            mom2 = (e @ z2) / S
            spread = np.sqrt(np.maximum(mom2 - 2.0 * zk * m + zk * zk, 0.0))
            out.append((Lk, zk, np.log(S), m, spread, mom2 - m * m))
        (L1k, z1, l1, a1, f1, v1), (L2k, z2k, l2, a2, f2, v2) = out
        dq = (z2k - z1) * (uu - 0.5 * (z1 + z2k))
        h[s : s + step] = (L1k - L2k) - dq + (l1 - l2)
        m1[s : s + step], m2[s : s + step] = a1, a2
        err[s : s + step] = _ULP * (
            np.abs(L1k) + np.abs(L2k) + np.abs(dq) + z.size + (np.abs(uu) + zmax) * (f1 + f2)
        )
        if second:
            hpp[s : s + step] = v1 - v2
    return (h, m1, m2, err, hpp) if second else (h, m1, m2, err)


def _upper(ha, hb, dlo, dhi, w):
    """Largest value on a cell of width ``w`` of a function with end values ``ha, hb`` and
    derivative in ``[dlo, dhi]``: where ``ha + dhi t`` meets ``hb - dlo (w - t)``."""
    mixed = (dlo < 0) & (dhi > 0)
    t = np.clip((hb - ha - dlo * w) / np.where(mixed, dhi - dlo, 1.0), 0.0, w)
    ub = np.where(mixed, ha + dhi * t, np.maximum(ha, hb))
    return np.maximum(ub, np.maximum(ha, hb))


class _Cells:
    """Cells ``[a, b]`` of rows ``row`` with ``h, m1, m2, err`` at both ends (column arrays)."""

    KEYS = ("row", "a", "b", "ha", "hb", "m1a", "m1b", "m2a", "m2b", "ea", "eb")
    row: np.ndarray
    a: np.ndarray
    b: np.ndarray
    ha: np.ndarray
    hb: np.ndarray
    m1a: np.ndarray
    m1b: np.ndarray
    m2a: np.ndarray
    m2b: np.ndarray
    ea: np.ndarray
    eb: np.ndarray

    def __init__(self, **cols):
        self.__dict__.update(cols)

    @classmethod
    def grid(cls, L1, L2, z, rows, lo, hi, count):
        """``count[i]`` equal cells on ``[lo[i], hi[i]]`` of row ``rows[i]`` (rows of ``L1, L2``)."""
        k = count + 1
        idx = np.repeat(np.arange(rows.size), k)
        j = np.arange(idx.size) - np.repeat(np.cumsum(k) - k, k)
        u = lo[idx] + (hi - lo)[idx] * (j / count[idx])
        u[j == count[idx]] = hi[idx][j == count[idx]]  # exact right ends
        idx = rows[idx]
        h, m1, m2, e = _evaluate(L1, L2, z, idx, u)
        left = np.flatnonzero(j < np.repeat(count, k))
        right = left + 1
        return cls(
            row=idx[left],
            a=u[left],
            b=u[right],
            ha=h[left],
            hb=h[right],
            m1a=m1[left],
            m1b=m1[right],
            m2a=m2[left],
            m2b=m2[right],
            ea=e[left],
            eb=e[right],
        ), (idx, u, h)

    def take(self, sel) -> _Cells:
        return _Cells(**{k: self.__dict__[k][sel] for k in self.KEYS})

    def split(self, L1, L2, z):
        """Both halves of every cell (the midpoints evaluated) and the midpoints ``(u, h)``."""
        mid = 0.5 * (self.a + self.b)
        h, m1, m2, e = _evaluate(L1, L2, z, self.row, mid)
        cat = np.concatenate
        halves = _Cells(
            row=cat([self.row, self.row]),
            a=cat([self.a, mid]),
            b=cat([mid, self.b]),
            ha=cat([self.ha, h]),
            hb=cat([h, self.hb]),
            m1a=cat([self.m1a, m1]),
            m1b=cat([m1, self.m1b]),
            m2a=cat([self.m2a, m2]),
            m2b=cat([m2, self.m2b]),
            ea=cat([self.ea, e]),
            eb=cat([e, self.eb]),
        )
        return halves, mid, h

    def bounds(self):
        """Certified ``(lower, upper)`` bounds of ``h`` on each cell, derivative bounds."""
        w = self.b - self.a
        dlo, dhi = self.m1a - self.m2b, self.m1b - self.m2a
        ub = _upper(self.ha, self.hb, dlo, dhi, w)
        lb = -_upper(-self.ha, -self.hb, -dhi, -dlo, w)
        return lb, ub, dlo, dhi

    @property
    def narrow(self) -> np.ndarray:
        return (self.b - self.a) <= 1e-13 * (1.0 + np.abs(self.a) + np.abs(self.b))


def _edge(L: np.ndarray, z: np.ndarray, upper: bool) -> np.ndarray:
    """Per row, the ``u`` beyond which the extreme line of ``L`` beats every other by ``MARGIN``."""
    first, last = _ends(L)
    t = last if upper else first
    R = np.arange(L.shape[0])
    zt, Lt = z[t], L[R, t]
    dz = (zt[:, None] - z[None, :]) if upper else (z[None, :] - zt[:, None])
    ok = np.isfinite(L) & (dz > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = 0.5 * (zt[:, None] + z[None, :]) + np.where(upper, 1.0, -1.0) * (MARGIN + L - Lt[:, None]) / dz
    v = np.where(ok, v, zt[:, None])
    return v.max(axis=1) if upper else v.min(axis=1)


def _sup_rows(L1: np.ndarray, L2: np.ndarray, z: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """``sup_u h`` per row (``L1`` over ``L2``) and the ``u`` attaining it (``+-inf``: a tail);
    ``gap``: the smallest atom spacing in units of sigma."""
    R = L1.shape[0]
    f1, t1 = _ends(L1)
    f2, t2 = _ends(L2)
    val, where = np.full(R, -np.inf), np.full(R, np.nan)
    up, down = t1 > t2, f1 < f2
    val[up | down] = np.inf
    where[up | down] = np.where(up, np.inf, -np.inf)[up | down]
    same = ~(up | down) & np.all(L1 == L2, axis=1)  # identical mixtures: h = 0 everywhere
    val[same] = 0.0
    rows = np.flatnonzero(~(up | down | same))
    if (
        rows.size and gap >= DISJOINT
    ):  # components do not overlap: inside the common support, the ratio at an atom
        inside = ~np.any(np.isfinite(L1[rows]) & ~np.isfinite(L2[rows]), axis=1)
        closed = rows[inside]
        with np.errstate(invalid="ignore"):
            d = np.where(np.isfinite(L1[closed]), L1[closed] - L2[closed], -np.inf)
        j = d.argmax(axis=1)
        val[closed], where[closed] = d[np.arange(closed.size), j], z[j]
        rows = rows[~inside]
    if rows.size and float(np.max(np.abs(z))) > HUGE:  # an atom of p1 alone, sigma -> 0: > 1e299 nats
        val[rows], where[rows] = np.inf, np.nan
        rows = rows[:0]
    lim_hi = np.where(t1 == t2, L1[np.arange(R), t1] - L2[np.arange(R), t1], -np.inf)
    lim_lo = np.where(f1 == f2, L1[np.arange(R), f1] - L2[np.arange(R), f1], -np.inf)
    if rows.size:
        A, B = L1[rows], L2[rows]
        lo = np.maximum(np.minimum(_edge(A, z, False), _edge(B, z, False)) - 1.0, -HUGE)
        hi = np.minimum(np.maximum(_edge(A, z, True), _edge(B, z, True)) + 1.0, HUGE)
        best, bu = _branch_and_bound(A, B, z, lo, hi, np.maximum(lim_hi[rows], lim_lo[rows]))
        val[rows], where[rows] = best, bu
    # tail limits: a tail within the tolerance of the interior maximum is reported as the place
    for lim, w in ((lim_hi, np.inf), (lim_lo, -np.inf)):
        fin = np.isfinite(lim)
        tie = fin & (np.where(fin, lim, 0.0) >= val - RTOL * (1.0 + np.abs(np.where(fin, lim, 0.0))))
        val = np.where(tie, np.maximum(val, lim), val)
        where = np.where(tie, w, where)
    return val, where


def _branch_and_bound(A, B, z, lo, hi, floor):
    """Interior maximum of ``h`` on ``[lo, hi]`` per row to ``RTOL``: the best value found and
    where; cells whose certified bound is below ``max(best, floor) + tol`` are dropped. A row
    with more than ``_CROWDED`` cells still open (a log-ratio flat to the bounds' slack over a
    long stretch: nearly identical mixtures) stops refining: its value is still attained, within
    the slack of its open cells (``(v1 + v2) w^2 / 4`` for a cell of width ``w``) of the sup."""
    n = A.shape[0]
    local = np.arange(n)
    count = np.clip(np.ceil((hi - lo) / 2.0), 8, 64).astype(np.int64)
    cells, (idx, u, h) = _Cells.grid(A, B, z, local, lo, hi, count)
    best, where = np.full(n, -np.inf), np.full(n, np.nan)

    def record(r, uu, hh):
        np.maximum.at(best, r, hh)
        hit = hh >= best[r]
        where[r[hit]] = uu[hit]

    record(idx, u, h)
    for _ in range(_LEVELS):
        top = np.maximum(best, floor)
        _, ub, _, _ = cells.bounds()
        tol = np.maximum(RTOL * (1.0 + np.abs(top[cells.row])), 2.0 * (cells.ea + cells.eb))
        keep = ub > top[cells.row] + tol
        keep &= ~cells.narrow
        crowded = np.bincount(cells.row[keep], minlength=n) > _CROWDED
        if crowded.any():  # h within the bounds' slack of its maximum almost everywhere: stop there
            keep &= ~crowded[cells.row]
        if not keep.any():
            break
        cells, mid, hm = cells.take(keep).split(A, B, z)
        record(cells.row[: mid.size], mid, hm)
    return best, where


def gauss_sup(W1: np.ndarray, W2: np.ndarray, c: np.ndarray, sigma: float):
    """``(fwd, bwd, where_f, where_b)`` per row: ``sup_y ln p1/p2``, ``sup_y ln p2/p1`` and the
    outputs ``y`` attaining them (``+-inf`` for a tail) of two mixtures of ``N(c_j, sigma^2)``.

    Parameters
    ----------
    W1, W2 : ndarray, shape (B, J)
        Normalised non-negative weights on the common sorted atoms ``c`` (shape ``(J,)``).
    sigma : float
        Noise standard deviation.
    """
    c = np.asarray(c, dtype=float)
    c0 = 0.5 * (float(c[0]) + float(c[-1]))
    with np.errstate(over="ignore"):
        z = (c - c0) / sigma
    L1, L2 = _logs(W1), _logs(W2)
    R = L1.shape[0]
    val, where = _sup_rows(np.vstack([L1, L2]), np.vstack([L2, L1]), z, _gap(c, sigma))
    with np.errstate(over="ignore", invalid="ignore"):
        y = np.where(np.isfinite(where), where * sigma + c0, where)
    lone = np.isnan(y)  # sigma -> 0 (``|c / sigma| > HUGE``): an atom of the numerator alone
    if lone.any():
        num, den = np.vstack([L1, L2])[lone], np.vstack([L2, L1])[lone]
        y[lone] = c[np.argmax(np.isfinite(num) & ~np.isfinite(den), axis=1)]
    return val[:R], val[R:], y[:R], y[R:]


def _masses(W1, W2, z, row, a, b) -> tuple[np.ndarray, np.ndarray]:
    """``sum_j w_kj P(a < N(z_j, 1) < b)`` per interval for both mixtures (one normal-CDF
    difference per interval and atom, the upper tail where it is the accurate one)."""
    from scipy.special import ndtr

    P1, P2 = np.empty(a.size), np.empty(a.size)
    step = max(1, _CHUNK // z.size)
    for s in range(0, a.size, step):
        sl = slice(s, s + step)
        za, zb = a[sl, None] - z[None, :], b[sl, None] - z[None, :]
        m = np.where(za > 0, ndtr(-za) - ndtr(-zb), ndtr(zb) - ndtr(za))
        P1[sl] = np.einsum("ij,ij->i", W1[row[sl]], m)
        P2[sl] = np.einsum("ij,ij->i", W2[row[sl]], m)
    return P1, P2


def _roots(A, B, z, row, a, b, fa, x, target) -> np.ndarray:
    """The one crossing of ``h = target`` in each bracket ``[a, b]`` (``fa``: the sign of
    ``h - target`` at ``a``, the opposite at ``b``), from the start ``x``: safeguarded Halley
    steps (``h'`` and ``h''`` are the posterior means' and variances' differences), kept when
    inside the bracket and at most half the previous step, bisection otherwise; all at once."""
    a, b, fa, x = a.copy(), b.copy(), np.sign(fa), x.copy()
    last = b - a
    act = np.arange(a.size)
    for _ in range(_LEVELS):
        if act.size == 0:
            break
        xa = x[act]
        h, m1, m2, e, d2 = _evaluate(A, B, z, row[act], xa, second=True)
        f = h - target[act]
        same = np.sign(f) == fa[act]
        a[act] = np.where(same, xa, a[act])
        b[act] = np.where(same, b[act], xa)
        d1 = m1 - m2
        # a root off by f / h' moves delta by at most f^2 / (2 sqrt(2 pi) |h'|) (the integrand
        # vanishes at the root and its density factor is at most 1 / sqrt(2 pi)): below 1e-17
        done = (
            (np.abs(f) <= e) | (f * f <= 5e-17 * np.abs(d1)) | (b[act] - a[act] <= 4e-16 * (1.0 + np.abs(xa)))
        )
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            nx = xa - 2.0 * f * d1 / (2.0 * d1 * d1 - f * d2)
        ok = np.isfinite(nx) & (nx > a[act]) & (nx < b[act]) & (np.abs(nx - xa) <= 0.5 * last[act])
        nx = np.where(ok, nx, 0.5 * (a[act] + b[act]))
        last[act] = np.abs(nx - xa)
        x[act] = np.where(done, xa, nx)
        act = act[~done]
    return x


def _classify(cells: _Cells, lb, ub, mono, sign: float, eps: float):
    """For the region ``sign * h >= eps``: cells wholly inside it (``take``), monotone cells
    with one crossing (``cross``) and cells to split (``split``). A cell within
    ``max(DTOL, rounding)`` of the level, or too narrow to split, takes the nearer side."""
    if sign < 0:
        lb, ub = -ub, -lb
    fa, fb = sign * cells.ha - eps, sign * cells.hb - eps
    slack = cells.ea + cells.eb
    pos = (lb - slack >= eps) | (mono & (fa >= 0) & (fb >= 0))
    neg = ~pos & ((ub + slack <= eps) | (mono & (fa <= 0) & (fb <= 0)))
    cross = ~pos & ~neg & mono
    rest = ~(pos | neg | cross)
    near = np.maximum(DTOL, 2.0 * slack)
    near_neg = rest & (ub - eps <= near)
    near_pos = rest & ~near_neg & (eps - lb <= near)
    tiny = rest & ~near_neg & ~near_pos & cells.narrow
    take = pos | near_pos | (tiny & (fa + fb >= 0))
    return take, cross, rest & ~near_neg & ~near_pos & ~tiny


def _merge(job, row, a, b):
    """Adjacent intervals of the same (job, row) joined (the masses need one CDF pair each)."""
    if a.size == 0:
        return job, row, a, b
    o = np.lexsort((a, row, job))
    job, row, a, b = job[o], row[o], a[o], b[o]
    new = np.ones(a.size, dtype=bool)
    new[1:] = (job[1:] != job[:-1]) | (row[1:] != row[:-1]) | (a[1:] != b[:-1])
    start = np.flatnonzero(new)
    end = np.append(start[1:], a.size) - 1
    return job[start], row[start], a[start], b[end]


def _sign_changes(C: np.ndarray, scale: np.ndarray):
    """Per row of coefficients ``C``: the number of sign changes (exact zeros skipped), whether an
    entry is too close to zero (relative to ``scale``) for its sign to be trusted, the sign of the
    first non-zero entry and the two entries around the first change."""
    s = np.sign(C)
    doubt = np.any((s != 0) & (np.abs(C) <= 1e-13 * scale), axis=1)
    idx = np.where(s != 0, np.arange(C.shape[1]), -1)
    prev = np.concatenate([np.full((C.shape[0], 1), -1), np.maximum.accumulate(idx, axis=1)[:, :-1]], axis=1)
    before = np.take_along_axis(s, np.maximum(prev, 0), axis=1)
    change = (s != 0) & (prev >= 0) & (s != before)
    j1 = change.argmax(axis=1)
    j0 = np.maximum(prev[np.arange(C.shape[0]), j1], 0)
    first = s[np.arange(C.shape[0]), (s != 0).argmax(axis=1)]
    return change.sum(axis=1), doubt, first, j0, j1


def _delta_rows(W1, W2, L1, L2, z, gap: float, eps: float, both: bool) -> np.ndarray:
    """``delta(eps)`` of ``p1`` over ``p2`` per row, and with ``both`` also of ``p2`` over
    ``p1`` (region ``h <= -eps``, same cells): shape ``(1 or 2, R)``.

    Fast path: ``p1 - e^eps p2 = sum_j (w1_j - e^eps w2_j) phi(u - z_j)`` changes sign at most as
    often as its coefficients do (the Gaussian kernel is totally positive: variation
    diminishing), so a row whose coefficients change sign at most once has at most one crossing,
    solved on the whole line; the other rows go through the cells."""
    R = L1.shape[0]
    ee = math.exp(eps)
    signs = (1.0, -1.0) if both else (1.0,)
    pairs = ((W1, W2), (W2, W1))[: len(signs)]
    if gap >= DISJOINT:
        return np.array([np.clip(np.maximum(A - ee * B, 0.0).sum(axis=1), 0.0, 1.0) for A, B in pairs])
    f1, t1 = _ends(L1)
    f2, t2 = _ends(L2)
    lo, hi = z[np.minimum(f1, f2)] - TAIL, z[np.maximum(t1, t2)] + TAIL
    pieces, crossing = [], []  # (job, row, a, b) regions; (job, row, a, b, sign at a, start, whole)
    pending = np.ones((R, len(signs)), dtype=bool)
    for k, (A, B) in enumerate(pairs):
        n, doubt, first, j0, j1 = _sign_changes(A - ee * B, A + ee * B)
        n = np.where(doubt, 2, n)
        pending[:, k] = n >= 2
        whole = np.flatnonzero((n == 0) & (first > 0))
        pieces.append(
            (np.full(whole.size, k), whole, np.full(whole.size, -np.inf), np.full(whole.size, np.inf))
        )
        one = np.flatnonzero(n == 1)  # exactly one crossing on the line (the extreme signs differ)
        if one.size:
            crossing.append(
                (
                    np.full(one.size, k),
                    one,
                    lo[one],
                    hi[one],
                    first[one],
                    0.5 * (z[j0[one]] + z[j1[one]]),
                    np.ones(one.size, dtype=bool),
                )
            )
    busy = np.flatnonzero(pending.any(axis=1))
    if busy.size:
        count = np.clip(np.ceil((hi[busy] - lo[busy]) / _DELTA_CELL), 8, 512).astype(np.int64)
        cells, _ = _Cells.grid(L1, L2, z, busy, lo[busy], hi[busy], count)
        todo = pending[cells.row]
        for _ in range(_LEVELS):
            if cells.row.size == 0:
                break
            lb, ub, dlo, dhi = cells.bounds()
            mono = (dlo > 0) | (dhi < 0)
            again = np.zeros_like(todo)
            for k, sign in enumerate(signs):
                take, cross, more = (m & todo[:, k] for m in _classify(cells, lb, ub, mono, sign, eps))
                crowded = (np.bincount(cells.row[more], minlength=R) > _CROWDED)[cells.row] & more
                if crowded.any():  # h within the bounds' slack of eps over a long stretch: nearer side
                    take |= crowded & (sign * (cells.ha + cells.hb) >= 2.0 * eps)
                    more &= ~crowded
                pieces.append((np.full(int(take.sum()), k), cells.row[take], cells.a[take], cells.b[take]))
                if cross.any():
                    cc = cells.take(cross)
                    fa, fb = sign * cc.ha - eps, sign * cc.hb - eps
                    x0 = np.clip(cc.a - fa * (cc.b - cc.a) / (fb - fa), cc.a, cc.b)
                    crossing.append(
                        (
                            np.full(cc.row.size, k),
                            cc.row,
                            cc.a,
                            cc.b,
                            np.sign(fa),
                            x0,
                            np.zeros(cc.row.size, dtype=bool),
                        )
                    )
                again[:, k] = more
            split = again.any(axis=1)
            if not split.any():
                break
            cells, _, _ = cells.take(split).split(L1, L2, z)
            todo = np.vstack([again[split], again[split]])
    if crossing:
        job, row, a, b, sa, x0, whole = (np.concatenate([c[i] for c in crossing]) for i in range(7))
        sign = np.asarray(signs)[job]
        x = _roots(L1, L2, z, row, a, b, sign * sa, x0, sign * eps)  # sign of h - sign*eps at a
        upper = sa < 0  # the region (sign * h > eps) is the bracket's upper part
        a = np.where(whole, -np.inf, a)  # one crossing on the line: the region runs to infinity
        b = np.where(whole, np.inf, b)
        pieces.append((job, row, np.where(upper, x, a), np.where(upper, b, x)))
    job, row, a, b = _merge(*(np.concatenate([p[i] for p in pieces]) for i in range(4)))
    P1, P2 = _masses(W1, W2, z, row, a, b)
    part = np.where(job == 0, P1 - ee * P2, P2 - ee * P1)
    out = np.bincount(job * R + row, weights=part, minlength=len(signs) * R).reshape(len(signs), R)
    return np.clip(out, 0.0, 1.0)


def gauss_delta(
    W1: np.ndarray, W2: np.ndarray, c: np.ndarray, sigma: float, eps: float, both: bool = False
) -> np.ndarray:
    """``delta(eps) = ∫ max(0, p1 - e^eps p2) dy`` per row of two mixtures of ``N(c_j, sigma^2)``
    (normalised weights ``W1, W2`` of shape ``(B, J)`` on sorted atoms ``c``), exact to ~1e-14;
    with ``both``, shape ``(2, B)``: also ``∫ max(0, p2 - e^eps p1) dy`` (on the same cells)."""
    c = np.asarray(c, dtype=float)
    c0 = 0.5 * (float(c[0]) + float(c[-1]))
    with np.errstate(over="ignore"):
        z = (c - c0) / sigma
    W1, W2 = np.asarray(W1, dtype=float), np.asarray(W2, dtype=float)
    out = _delta_rows(W1, W2, _logs(W1), _logs(W2), z, _gap(c, sigma), float(eps), both)
    return out if both else out[0]
