"""The hockey-stick divergence of two mixtures of product Laplace laws, bracketed by boxes.

``p(y) = sum_j w_j prod_k e^{-|y_k - a_jk| / b} / 2b`` and ``q`` likewise with weights ``w'`` (the
same atoms ``a_j`` in ``R^m``: the joint output law of ``m`` Laplace releases of the same scale
``b`` whose query values are the rows of ``a``). ``H_eps(p || q) = ∫ (p - e^eps q)^+``.

**Boxes.** Cut every axis at the atoms' coordinates: inside a cell of that grid every
``|y_k - a_jk|`` has a fixed sign, every kernel is monotone in each coordinate, and its integral
over any box ``B`` inside the cell is a product of Laplace CDF differences (``P_B = ∫_B p``,
``Q_B``; exact). Per box, with ``r_lo <= q/p <= r_hi`` on ``B`` (inside a cell the kernels of
the atoms of one sign pattern move together: ``q/p`` is a linear-fractional function of one factor
per pattern, each in a known interval on the box, and its extremes are at the vertices of those
intervals, :func:`_ratio_range` — as tight as the crude ratio of each kernel's largest and least
values when the patterns' weight ratios differ most, far tighter where the two laws look alike)::

    r_hi <= e^-eps:  ∫_B (p - e^eps q)^+ = P_B - e^eps Q_B        (exact)
    r_lo >= e^-eps:  ∫_B (p - e^eps q)^+ = 0                      (exact)
    otherwise:       max(0, P_B - e^eps Q_B) <= ∫_B (...)^+
                     <= min(P_B (1 - e^eps r_lo), P_B - Q_B / r_hi)

(the last: ``∫_B (p - e^eps q)^+ = P_B - e^eps Q_B + ∫_B (e^eps q - p)^+`` and
``(e^eps q - p)^+ <= e^eps q (1 - 1 / (e^eps r_hi))``)

Beyond the extreme atoms of axis ``k`` every kernel carries the same factor ``e^{-|y_k| / b}``, so
``q/p`` does not depend on ``y_k`` there: an unbounded box is never split along that axis and its
ratio bounds use the kernels at the box's finite end. Only the boxes the level set ``p = e^eps q``
crosses are split (each finite side halved); their bound gap is ``O(h)`` on a mass ``O(h^m)``, and
about ``h^{1-m}`` of them straddle the level set, so the total gap falls like ``h^2``. The bracket
is certified at every step (rounding aside); refinement stops at :data:`TOLERANCE` or after
:data:`MAX_WORK` kernel evaluations (then wider, still certified).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..argcheck import TooExpensive

#: width of the bracket the refinement aims at
TOLERANCE = 1e-6
#: most kernel evaluations of one bracket (per box and atom: one per axis and one per sign pattern,
#: :func:`box_work`; 4e7 takes about the time 2e7 took when only the axes were counted)
MAX_WORK = 4e7
#: most refinement rounds
MAX_ROUNDS = 400
#: the share of the bracket's gap whose boxes are split in each round (the largest gaps first)
SPLIT_SHARE = 0.5
#: brackets kept by :func:`laplace_boxes_hockey` (the least recently used dropped beyond)
KEPT = 4096
#: decimals of the weights in the key of a kept bracket (a bracket found under it is widened by the
#: weights' distance, :func:`_kept`)
KEY_DECIMALS = 12

_BRACKETS: OrderedDict = OrderedDict()


@dataclass(frozen=True)
class BoxBracket:
    """``lower <= H_eps(p || q) <= upper``; ``boxes``: how many boxes were integrated."""

    lower: float
    upper: float
    boxes: int


def _masses(lo: np.ndarray, hi: np.ndarray, atoms: np.ndarray, b: float) -> np.ndarray:
    """Per box, atom and axis: the kernel's integral over the side (times ``2b``)."""
    a = atoms[None, :, :]
    L, H = lo[:, None, :], hi[:, None, :]
    near = np.where(a <= L, L - a, a - H)  # the side right of the atom, else left of it
    with np.errstate(invalid="ignore"):
        return 0.5 * np.exp(-near / b) * -np.expm1(-(H - L) / b)


def _ratio_range(lo, hi, atoms, w1, w2, b: float) -> tuple[np.ndarray, np.ndarray]:
    """``[r_lo, r_hi]`` bounding ``q/p`` on each box (inside one cell of the atoms' grid).

    Inside a cell atom ``j``'s kernel is ``K_j(ref) x_s(y)``: its value at the box's reference
    corner ``ref`` (the lower end of each side, the finite end of an unbounded one) times a factor
    ``x_s(y) = prod_k e^{-sigma_k (y_k - ref_k) / b}`` shared by every atom of its sign pattern ``s``
    (``sigma_k = +1`` right of the atom on axis ``k``, else ``-1``), which on the box lies in
    ``[lo_s, hi_s]`` (on an unbounded side every atom has the same sign and the factor, common to
    all, cancels: taken as 1). So ``q/p = sum_s B_s x_s / sum_s A_s x_s`` (``A_s``, ``B_s``: the
    weighted kernels of pattern ``s`` at ``ref``), a linear-fractional function of the box ``x in
    prod [lo_s, hi_s]``, whose extremes are at the vertices that put the patterns of larger
    ``B_s / A_s`` at one end and the others at the other (a threshold in that order)."""
    a = atoms[None, :, :]
    L, H = lo[:, None, :], hi[:, None, :]
    m = atoms.shape[1]
    right = a <= L  # the side lies right of the atom (else left of it: no atom inside a cell)
    ref = np.where(np.isfinite(L), L, H)
    kref = np.exp(-np.abs(ref - a).sum(axis=2) / b)
    pattern = (right * (1 << np.arange(m))).sum(axis=2)
    S = 1 << m
    A = np.stack([((pattern == s) * kref) @ w1 for s in range(S)], axis=1)
    B = np.stack([((pattern == s) * kref) @ w2 for s in range(S)], axis=1)
    h = np.where(np.isfinite(hi - lo), hi - lo, 0.0)
    bits = ((np.arange(S)[:, None] >> np.arange(m)) & 1).astype(bool)  # right of the atoms on axis k
    xlo = np.exp(-(h[:, None, :] * bits[None]).sum(axis=2) / b)
    xhi = np.exp((h[:, None, :] * ~bits[None]).sum(axis=2) / b)
    with np.errstate(divide="ignore", invalid="ignore"):
        key = np.where(A > 0, B / A, np.where(B > 0, np.inf, -np.inf))
        order = np.argsort(-key, axis=1)
        Ao, Bo = np.take_along_axis(A, order, 1), np.take_along_axis(B, order, 1)
        xl, xh = np.take_along_axis(xlo, order, 1), np.take_along_axis(xhi, order, 1)
        zero = np.zeros((A.shape[0], 1))

        def vertices(head, tail):  # the first c patterns at ``head``, the others at ``tail``
            num = np.concatenate([zero, np.cumsum(Bo * head, 1)], 1)
            num += np.concatenate([np.cumsum((Bo * tail)[:, ::-1], 1)[:, ::-1], zero], 1)
            den = np.concatenate([zero, np.cumsum(Ao * head, 1)], 1)
            den += np.concatenate([np.cumsum((Ao * tail)[:, ::-1], 1)[:, ::-1], zero], 1)
            return np.where(den > 0, num / den, np.inf)

        r_hi = vertices(xh, xl).max(axis=1)
        r_lo = vertices(xl, xh).min(axis=1)
    return r_lo, r_hi


def _assess(lo, hi, atoms, w1, w2, b, k):
    mass = _masses(lo, hi, atoms, b)
    P = mass.prod(axis=2) @ w1
    Q = mass.prod(axis=2) @ w2
    r_lo, r_hi = _ratio_range(lo, hi, atoms, w1, w2, b)
    diff = P - k * Q
    positive = r_hi * k <= 1.0
    zero = r_lo * k >= 1.0
    low = np.where(positive, diff, np.where(zero, 0.0, np.maximum(diff, 0.0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        cap = np.minimum(P * (1.0 - k * r_lo), np.where(r_hi > 0, P - Q / r_hi, P))
    up = np.where(positive, diff, np.where(zero, 0.0, np.clip(cap, np.maximum(diff, 0.0), P)))
    return np.maximum(low, 0.0), np.maximum(up, 0.0), ~(positive | zero)


def _split(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every box halved along each of its finite sides."""
    for k in range(lo.shape[1]):
        fin = np.isfinite(lo[:, k]) & np.isfinite(hi[:, k])
        mid = np.where(fin, 0.5 * (lo[:, k] + hi[:, k]), hi[:, k])
        lo2, hi2 = lo.copy(), hi.copy()
        hi2[:, k] = mid
        lo3, hi3 = lo[fin].copy(), hi[fin].copy()
        lo3[:, k] = mid[fin]
        lo, hi = np.concatenate([lo2, lo3]), np.concatenate([hi2, hi3])
    return lo, hi


def first_work(atoms: int, cells: Sequence[int]) -> float:
    """Kernel evaluations of the first assessment: every cell of the atoms' grid (``cells[k]``
    intervals on axis ``k``) against every atom (:func:`box_work`)."""
    return float(math.prod(cells)) * box_work(atoms, len(cells))


def box_work(atoms: int, m: int) -> float:
    """Kernel evaluations of one box: each atom's integral on every axis, and its weight in each
    of the ``2^m`` sign patterns (:func:`_ratio_range`)."""
    return float(atoms * (m + 2**m))


def check_box_cost(atoms: int, cells: Sequence[int], max_work: float) -> None:
    """Refuse (:class:`~bdpsim.kernels.argcheck.TooExpensive`, before any work) a bracket whose
    first assessment alone exceeds ``max_work`` kernel evaluations (it holds them all in memory)."""
    work = first_work(atoms, cells)
    if work > max_work:
        raise TooExpensive(
            "boxes",
            f"{len(cells)} Laplace releases of {atoms} atoms ({math.prod(cells)} cells)",
            f"the first box bracket needs ~{work:.3g} kernel evaluations (limit {max_work:.0e}); "
            "a chain of fewer records has fewer atoms",
        )


def _key(at, p, q, b: float, epsilon: float, max_work: float) -> tuple:
    """A bracket's key: the scale, ``eps``, the work limit, the atoms less their least value on each
    axis (every divergence is invariant to a common shift of the atoms) and the weights rounded to
    :data:`KEY_DECIMALS` decimals."""
    return (
        float(b),
        float(epsilon),
        float(max_work),
        at.shape,
        at.tobytes(),
        np.round(p, KEY_DECIMALS).tobytes(),
        np.round(q, KEY_DECIMALS).tobytes(),
    )


def _kept(key: tuple, p, q, k: float, tol: float) -> BoxBracket | None:
    """The bracket kept under ``key`` if it was asked to ``tol`` or finer (or is that narrow),
    widened by ``TV(p, p') + e^eps TV(q, q')`` against the weights ``p', q'`` it was computed with
    (``H_eps(p || q) = sup_S [P(S) - e^eps Q(S)]`` moves by at most that: the same bracket where
    the weights are equal)."""
    got = _BRACKETS.get(key)
    if got is None or (got[0] > tol and got[1].upper - got[1].lower > tol):
        return None
    _BRACKETS.move_to_end(key)
    _, br, p0, q0 = got
    slack = 0.5 * float(np.abs(p - p0).sum()) + k * 0.5 * float(np.abs(q - q0).sum())
    if slack == 0.0:
        return br
    return BoxBracket(max(0.0, br.lower - slack), min(1.0, br.upper + slack), br.boxes)


def _keep(key: tuple, tol: float, br: BoxBracket, p, q) -> None:
    old = _BRACKETS.get(key)
    if old is None or old[0] >= tol:
        _BRACKETS[key] = (tol, br, p, q)
        _BRACKETS.move_to_end(key)
    while len(_BRACKETS) > KEPT:
        _BRACKETS.popitem(last=False)


def laplace_boxes_hockey(
    atoms, w1, w2, b: float, epsilon: float, tol: float = TOLERANCE, max_work: float | None = None
) -> BoxBracket:
    """``[lower, upper]`` of ``H_eps(p || q)`` for the product-Laplace mixtures of the module
    docstring (``atoms``: ``(J, m)``; ``w1``, ``w2``: their weights, normalised here; ``b`` the
    common scale; ``epsilon >= 0``; ``max_work``: most kernel evaluations, ``None``:
    :data:`MAX_WORK` as it is at the call). Refused (:class:`~bdpsim.kernels.argcheck.TooExpensive`,
    before any work) where the first assessment alone exceeds ``max_work`` (:func:`check_box_cost`).

    The atoms are moved to least value 0 on each axis (exact for the integer counts of a
    histogram). The last :data:`KEPT` brackets are kept by content (:func:`_key`): a pair asked
    again — the same laws up to a common shift of the atoms, e.g. a window of a chain and the
    adversary it names — to ``tol`` or coarser gets the bracket found (:func:`_kept`), no work."""
    if max_work is None:
        max_work = MAX_WORK
    at = np.atleast_2d(np.asarray(atoms, dtype=float))
    p, q = np.asarray(w1, dtype=float), np.asarray(w2, dtype=float)
    if at.shape[0] != p.size or p.size != q.size:
        raise ValueError("laplace_boxes_hockey: atoms (J, m) must match both weight vectors")
    if not (p.sum() > 0 and q.sum() > 0) or not b > 0 or not epsilon >= 0:
        raise ValueError("laplace_boxes_hockey: needs two laws of positive mass, b > 0, epsilon >= 0")
    keep = (p > 0) | (q > 0)
    at, p, q = at[keep], p[keep] / p.sum(), q[keep] / q.sum()
    at = at - at.min(axis=0)
    k = math.exp(epsilon)
    key = _key(at, p, q, b, epsilon, max_work)
    found = _kept(key, p, q, k, tol)
    if found is None:
        found = _bracket(at, p, q, b, k, tol, max_work)
        _keep(key, tol, found, p, q)
    return found


def _bracket(at, p, q, b: float, k: float, tol: float, max_work: float) -> BoxBracket:
    """:func:`laplace_boxes_hockey` of normalised weights at ``k = e^eps`` (module docstring)."""
    m = at.shape[1]
    edges = [np.concatenate([[-np.inf], np.unique(at[:, j]), [np.inf]]) for j in range(m)]
    check_box_cost(at.shape[0], [e.size - 1 for e in edges], max_work)
    grids = np.meshgrid(*[np.arange(e.size - 1) for e in edges], indexing="ij")
    idx = np.stack([g.ravel() for g in grids], axis=1)
    lo = np.stack([edges[j][idx[:, j]] for j in range(m)], axis=1)
    hi = np.stack([edges[j][idx[:, j] + 1] for j in range(m)], axis=1)
    done_lo = done_hi = 0.0  # boxes the level set does not cross: exact
    low, up, open_ = _assess(lo, hi, at, p, q, b, k)
    boxes = lo.shape[0]
    per_box = box_work(at.shape[0], m)
    work = boxes * per_box
    for _ in range(MAX_ROUNDS):
        done_lo += float(low[~open_].sum())
        done_hi += float(up[~open_].sum())
        lo, hi, low, up = lo[open_], hi[open_], low[open_], up[open_]
        gap = up - low
        if done_hi + up.sum() - done_lo - low.sum() <= tol or lo.shape[0] == 0:
            break
        # split the boxes holding the larger part of the gap; keep the others as they are
        order = np.argsort(-gap, kind="stable")
        share = np.cumsum(gap[order])
        pick = order[: int(np.searchsorted(share, SPLIT_SHARE * share[-1])) + 1]
        if work + 2**m * pick.size * per_box > max_work:
            break
        keep = np.ones(lo.shape[0], dtype=bool)
        keep[pick] = False
        clo, chi = _split(lo[pick], hi[pick])
        clow, cup, copen = _assess(clo, chi, at, p, q, b, k)
        boxes += clo.shape[0]
        work += clo.shape[0] * per_box
        lo, hi = np.concatenate([lo[keep], clo]), np.concatenate([hi[keep], chi])
        low, up = np.concatenate([low[keep], clow]), np.concatenate([up[keep], cup])
        open_ = np.concatenate([np.ones(int(keep.sum()), dtype=bool), copen])
    else:
        done_lo += float(low[~open_].sum())
        done_hi += float(up[~open_].sum())
        low, up = low[open_], up[open_]
    return BoxBracket(done_lo + float(low.sum()), min(1.0, done_hi + float(up.sum())), boxes)


__all__ = [
    "BoxBracket",
    "KEPT",
    "MAX_WORK",
    "TOLERANCE",
    "box_work",
    "check_box_cost",
    "first_work",
    "laplace_boxes_hockey",
]
