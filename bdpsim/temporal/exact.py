"""Exact temporal leakage of a continual release: BPL_t, FPL_t, TPL_t by reachable-set propagation.

Setting (Cao et al., ICDE 2017 / TKDE 2019). A person's values ``x_1..x_T`` follow a
Markov chain (``k`` states, initial law ``pi_1``, transition ``P_t`` from step ``t`` to ``t+1``);
step ``t`` releases ``r_t ~ M_t(x_t)`` independently given ``x_t``, with likelihood vector
``l_t(r) = (P(r_t = r | x_t = x))_x`` (:mod:`bdpsim.temporal.mechanisms`). For a target step ``t``
and values ``a != b``

* ``BPL_t = sup_{r_1..r_t, a, b} ln P(r_1..r_t | x_t = a) / P(r_1..r_t | x_t = b)``,
* ``FPL_t = sup_{r_t..r_T, a, b} ln P(r_t..r_T | x_t = a) / P(r_t..r_T | x_t = b)``,
* ``TPL_t = sup_{r_1..r_T, a, b} ln P(r_1..r_T | x_t = a) / P(r_1..r_T | x_t = b)``.

Past and future releases are independent given ``x_t``, so for a fixed pair the log ratio of the
whole release is a sum of terms in disjoint outputs (past, ``r_t``, future) and
``TPL_t(a, b) = BPL_t(a, b) + FPL_t(a, b) - eps_t(a, b)`` exactly, ``eps_t(a, b) = sup_r ln
l_t(r)_a / l_t(r)_b``. ``TPL_t`` is the max over pairs of that sum, which can be below Cao et al.'s
``max BPL + max FPL - eps`` (their pairs need not coincide).

Computation. ``P(r_1..r_{t-1} | x_t = a) = u_t(a) / pi_t(a)`` with the forward vector
``u_1 = pi_1``, ``u_{t+1} = P_t^T (u_t * l_t(r_t))``; ``P(r_{t+1}..r_T | x_t = a) = v_t(a)`` with
``v_T = 1``, ``v_t = P_t (l_{t+1}(r_{t+1}) * v_{t+1})``. Each leakage is a supremum of a ratio of two
linear forms in ``u_t`` (or ``v_t``), and ``u_{t+1}`` is linear in ``u_t`` for each output; a ratio of
linear forms over a convex cone is maximised at an extreme ray. So the reachable set may be
replaced, step by step, by the extreme points of the convex hull of its normalised vectors (each
mapped forward by every extreme output of the step): nothing that can be extreme is lost, and the
suprema are exact. For 2 states the hull is 2 points (the smallest and largest ratio).

An adversary who also knows ``x_s`` for ``s`` in a known set ``K`` (beyond TPL): given
``x_s`` the releases on the other side of ``s`` are independent of ``x_t``, so the past starts at
the last known step ``s < t`` from the law ``P_s[c, :]`` (with ``pi_t`` replaced by the law of
``x_t`` given ``x_s = c``) and the future stops at the first known step ``s' > t`` with
``v_{s'-1} = P_{s'-1}[:, d]`` (divided by ``P(x_{s'} = d | x_t)``); the supremum runs over the known
values ``c, d`` of positive probability as well. A pair ``(a, b)`` counts only where both values
are possible given the known values on both sides (so ``BPL_t`` needs a later known value
compatible with ``a`` and ``b`` even though the ratio does not depend on it). A target that is
itself known, or one with a single possible value, has no leakage (``nan``).

Where the hull outgrows ``max_points`` the engine keeps a subset (a lower bound: every kept vector
is reached by an output sequence) and propagates from there on an outer relaxation, the cone
``{u : u_a <= e^{R_ab} u_b}`` of pairwise log-ratio bounds, by one linear-fractional program per
pair and step (an upper bound): the result is an interval ``[low, high]`` that provably holds.

The engine. :class:`TemporalEngine` (one per :class:`~bdpsim.temporal.chain.ReleasedChain`, the
chain and its releases checked once) answers every exact question from the same cached sweeps:
:meth:`TemporalEngine.leakage` (``BPL_t``, ``FPL_t``, ``TPL_t`` of every step, what
:func:`temporal_exact` returns) and, for one adversary of bdpsim's model (target step ``t``, known
steps ``K`` with values ``x_K``, values ``a`` vs ``b``), :meth:`TemporalEngine.one_sided` and
:meth:`TemporalEngine.two_sided`. Given ``x_K`` the chain splits at the known steps: with ``s`` the
last known step before ``t`` (value ``c``; or the chain start) and ``s'`` the first after (value
``d``; or the chain end),

``sup_r ln P(r | x_t = a, x_K) / P(r | x_t = b, x_K) = D_past(a, b) + eps_t(a, b) + D_fut(a, b)``

with ``D_past(a, b) = sup ln P(r_{s+1..t-1} | x_t = a, x_s = c) / P(... | x_t = b, x_s = c)`` and
``D_fut`` likewise with ``r_{t+1..s'-1}`` and ``x_{s'} = d``. Both come from one sweep each, cached
by its start (``s``, ``c``) and length: with ``K`` empty every target reads the same two sweeps (one
forward from the start law, one backward from the chain end) that give ``TPL_t``, so every
adversary of a chain costs one lookup after ``O(T)`` work.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import ConfigError, NotAvailable, check
from ..kernels.argcheck import TooExpensive, require
from .chain import ReleasedChain, arguments, released_chain
from .mechanisms import StepRelease

#: default cap on the points of a propagated hull before the engine falls back to an interval
MAX_POINTS = 1000
#: default cap on the estimated work (points x outputs x states^2 summed over the steps)
MAX_WORK = 4e10
#: most states the hull propagation accepts (hulls in k - 1 dimensions)
MAX_STATES = 8


# ----------------------------------------------------------------------------- hulls


def extreme_indices(Y: np.ndarray) -> np.ndarray:
    """Indices of rows of ``Y`` (``(n, k)``, entries >= 0, rows not all 0) that span the extreme
    rays of the cone they generate: every extreme ray is kept (a few non-extreme rows may be kept
    too where Qhull cannot decide, which is safe).

    The columns are first rescaled by their maxima (a diagonal map keeps extreme rays, and puts
    small coordinates on the same footing as large ones), the rows normalised to sum 1, duplicates
    merged, and the hull taken in the affine span of the points."""
    n, k = Y.shape
    if n <= 2:
        return np.arange(n)
    if k == 2:  # the smallest and largest ratio
        r = Y[:, 0] / (Y[:, 0] + Y[:, 1])
        lo, hi = int(np.argmin(r)), int(np.argmax(r))
        return np.array([lo]) if lo == hi else np.array(sorted((lo, hi)))
    colmax = Y.max(axis=0)
    Z = Y / np.where(colmax > 0, colmax, 1.0)
    Z = Z / Z.sum(axis=1, keepdims=True)
    if n <= 4096:  # merge duplicates (cheap at this size; Qhull copes with them otherwise)
        _, idx = np.unique(np.round(Z, 13), axis=0, return_index=True)
        idx = np.sort(idx)
    else:
        idx = np.arange(n)
    W = Z[idx]
    if len(idx) <= 2:
        return idx
    C = W - W.mean(axis=0)
    _, s, Vt = np.linalg.svd(C, full_matrices=False)
    if s[0] <= 1e-14:
        return idx[:1]
    d = int(np.sum(s > 1e-11 * s[0]))
    proj = C @ Vt[:d].T
    if d == 1:
        return np.unique(idx[[int(np.argmin(proj[:, 0])), int(np.argmax(proj[:, 0]))]])
    if len(idx) <= d + 1:
        return idx
    from scipy.spatial import ConvexHull, QhullError

    try:
        return idx[np.sort(ConvexHull(proj).vertices)]
    except QhullError:  # pragma: no cover - degenerate beyond the span test: keep everything (safe)
        return idx


def _closure(R: np.ndarray) -> np.ndarray:
    """Tighten pairwise log-ratio bounds: ``R_ab <= R_ac + R_cb`` (Floyd-Warshall)."""
    R = R.copy()
    for c in range(R.shape[0]):
        R = np.minimum(R, R[:, c : c + 1] + R[c : c + 1, :])
    return R


def _relaxed_step(R: np.ndarray, eps_pair: np.ndarray, M: np.ndarray, support: np.ndarray) -> np.ndarray:
    """Pairwise log-ratio bounds of ``M^T (u * l)`` over the cone ``{u : u_a <= e^{R_ab} u_b}``
    and every ``l`` with ``l_a / l_b <= e^{eps_ab}``: ``max (M^T y)_a / (M^T y)_b`` over
    ``{y >= 0 : y_a <= e^{R_ab + eps_ab} y_b}``, a linear-fractional program solved as an LP
    (Charnes-Cooper: ``max c.y`` s.t. ``d.y = 1``)."""
    from scipy.optimize import linprog

    k = R.shape[0]
    S = np.flatnonzero(support)
    B = R + eps_pair
    rows = []
    for i in S:
        for j in S:
            if i != j:
                row = np.zeros(k)
                row[i], row[j] = 1.0, -math.exp(min(B[i, j], 700.0))
                rows.append(row)
    A_ub = np.array(rows) if rows else None
    b_ub = np.zeros(len(rows)) if rows else None
    bounds = [(0, None) if s else (0, 0) for s in support]
    out_support = (M.T @ support.astype(float)) > 0
    Rn = np.full((k, k), np.inf)
    np.fill_diagonal(Rn, 0.0)
    for a in np.flatnonzero(out_support):
        for b in np.flatnonzero(out_support):
            if a == b:
                continue
            res = linprog(
                -M[:, a],
                A_ub=A_ub,
                b_ub=b_ub,
                A_eq=M[:, b][None, :],
                b_eq=[1.0],
                bounds=bounds,
                method="highs",
            )
            if res.status == 0:
                Rn[a, b] = math.log(max(-res.fun, 1e-300)) + 1e-9  # a hair of slack for the solver
    return _closure(Rn)


def _leaders(Y: np.ndarray, max_points: int) -> np.ndarray:
    """A subset of the rows of ``Y`` for the lower bound: for each pair ``(a, b)`` the rows of
    largest ``ln Y_a / Y_b`` (at most ``max_points`` in all, each pair's maximiser first)."""
    n, k = Y.shape
    per = max(1, max_points // max(k * (k - 1), 1))
    with np.errstate(divide="ignore"):
        lY = np.log(Y)
    pick: list[int] = []
    for a in range(k):
        for b in range(k):
            if a != b:
                d = lY[:, a] - lY[:, b]
                top = np.argpartition(-d, min(per, n) - 1)[:per] if per < n else np.arange(n)
                pick.extend(top.tolist())
    return np.unique(np.array(pick, dtype=np.int64))


# ----------------------------------------------------------------------------- one sweep


@dataclass
class _Sweep:
    """Propagation from a start law through ``n`` steps: per step ``i`` the pairwise maxima
    ``D[i][a, b] = max ln (u/q)_a - ln (u/q)_b`` over the reachable ``u`` (``-inf`` where ``q_a``
    or ``q_b`` is 0), their upper bounds ``H[i]`` (equal where exact), the maximising point and
    the back-pointers that rebuild its output sequence."""

    D: list[np.ndarray] = field(default_factory=list)
    H: list[np.ndarray] = field(default_factory=list)
    best: list[np.ndarray] = field(default_factory=list)
    parents: list[np.ndarray] = field(default_factory=list)
    outs: list[np.ndarray] = field(default_factory=list)
    exact: bool = True
    points: int = 0

    def outputs(self, i: int, p: int) -> list[int]:
        """Output indices of steps ``0..i-1`` leading to point ``p`` of step ``i``."""
        seq: list[int] = []
        for j in range(i - 1, -1, -1):
            seq.append(int(self.outs[j][p]))
            p = int(self.parents[j][p])
        return seq[::-1]


def _pairwise(X: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``D[a, b] = max_p ln (X_p / q)_a - ln (X_p / q)_b`` and its maximiser ``p``; ``-inf`` where
    ``q_a`` or ``q_b`` is 0."""
    ok = q > 0
    with np.errstate(divide="ignore"):
        lx = np.log(np.where(X > 0, X, 1.0)) - np.log(np.where(ok, q, 1.0))
    diff = lx[:, :, None] - lx[:, None, :]
    best = np.argmax(diff, axis=0)
    D = np.take_along_axis(diff, best[None], axis=0)[0]
    D[~(ok[:, None] & ok[None, :])] = -np.inf
    return D, best


def _sweep2(start: np.ndarray, mats: Sequence[np.ndarray], rels: Sequence[StepRelease], n: int) -> _Sweep:
    """:func:`_sweep` for 2 states in plain floats: the hull is the smallest and largest ratio
    ``x_0 / x_1`` (always exact; the same recursion without NumPy's per-call cost)."""
    sw = _Sweep()
    D = np.full((n, 2, 2), -np.inf)
    best = np.zeros((n, 2, 2), dtype=np.int64)
    parents = np.zeros((max(n - 1, 0), 2), dtype=np.int64)
    outs = np.zeros((max(n - 1, 0), 2), dtype=np.int64)
    tot = float(start.sum())
    pts = [(float(start[0]) / tot, float(start[1]) / tot)]
    q0, q1 = float(start[0]), float(start[1])
    cache: dict[int, list] = {}
    log = math.log
    for i in range(n):
        if q0 > 0 and q1 > 0:
            D[i, 0, 0] = D[i, 1, 1] = 0.0
            lq = log(q0) - log(q1)
            vals = [log(x0) - log(x1) - lq for x0, x1 in pts]
            hi = max(range(len(vals)), key=vals.__getitem__)
            lo = min(range(len(vals)), key=vals.__getitem__)
            D[i, 0, 1], best[i, 0, 1] = vals[hi], hi
            D[i, 1, 0], best[i, 1, 0] = -vals[lo], lo
        elif q0 > 0 or q1 > 0:
            j = 0 if q0 > 0 else 1
            D[i, j, j] = 0.0
        if i == n - 1:
            break
        key = id(mats[i]) * 31 + id(rels[i])
        if key not in cache:
            M = mats[i]
            cache[key] = [
                float(M[0, 0]),
                float(M[0, 1]),
                float(M[1, 0]),
                float(M[1, 1]),
                rels[i].likelihoods.tolist(),
            ]
        m00, m01, m10, m11, L = cache[key]
        cand = []
        for p, (x0, x1) in enumerate(pts):
            for o, (l0, l1) in enumerate(L):
                a0, a1 = x0 * l0, x1 * l1
                y0, y1 = m00 * a0 + m10 * a1, m01 * a0 + m11 * a1
                t = y0 + y1
                cand.append((y0 / t, y1 / t, p, o))
        lo_c = min(cand, key=lambda c: c[0])
        hi_c = max(cand, key=lambda c: c[0])
        keep = [lo_c] if lo_c[0] == hi_c[0] else [lo_c, hi_c]
        for j, c in enumerate(keep):
            parents[i, j], outs[i, j] = c[2], c[3]
        pts = [(c[0], c[1]) for c in keep]
        q0, q1 = m00 * q0 + m10 * q1, m01 * q0 + m11 * q1
        sw.points = max(sw.points, len(pts))
    sw.D = list(D)
    sw.H = sw.D
    sw.best = list(best)
    sw.parents = list(parents)
    sw.outs = list(outs)
    return sw


def _sweep(
    start: np.ndarray, mats: Sequence[np.ndarray], rels: Sequence[StepRelease], n: int, max_points: int
) -> _Sweep:
    """``x_0 = start``, ``x_{i+1} = M_i^T (x_i * l_i)`` for each extreme output ``l_i`` of
    ``rels[i]``; records step ``0..n-1``."""
    if start.shape[0] == 2 and max_points >= 2:
        return _sweep2(start, mats, rels, n)
    sw = _Sweep()
    X = (start / start.sum())[None, :]
    q = start.astype(float)
    R: np.ndarray | None = None  # relaxation bounds once inexact
    for i in range(n):
        D, best = _pairwise(X, q)
        sw.D.append(D)
        sw.best.append(best)
        support = q > 0
        if R is None:
            sw.H.append(D)
        else:
            with np.errstate(invalid="ignore"):
                lq = np.log(np.where(support, q, 1.0))
                H = R - lq[:, None] + lq[None, :]
            H = np.where(support[:, None] & support[None, :], H, -np.inf)
            sw.H.append(np.maximum(H, D))
        if i == n - 1:
            break
        L = rels[i].likelihoods
        M = mats[i]
        m = L.shape[0]
        Y = (X[:, None, :] * L[None, :, :]).reshape(-1, X.shape[1]) @ M
        Y = Y / Y.sum(axis=1, keepdims=True)
        if R is not None:  # interval mode: the relaxation bounds above, a few attained points below
            R = _relaxed_step(R, rels[i].pair_epsilon(), M, support)
            keep = _leaders(Y, max_points)
        else:
            keep = extreme_indices(Y)
            if len(keep) > max_points:  # switch to an interval: bounds from the whole hull
                Dfull, _ = _pairwise(Y[keep], np.ones(Y.shape[1]))
                R = _closure(np.where(np.isfinite(Dfull), Dfull, np.inf))
                sw.exact = False
                keep = keep[_leaders(Y[keep], max_points)]
        sw.parents.append(keep // m)
        sw.outs.append(keep % m)
        X = Y[keep]
        q = q @ M
        sw.points = max(sw.points, len(keep))
    return sw


#: the propagation and its record under public names
Sweep = _Sweep
propagate = _sweep


# ----------------------------------------------------------------------------- result


@dataclass(frozen=True)
class TemporalLeakage:
    """Exact BPL_t, FPL_t, TPL_t of a continual release (module docstring), ``t = 1..T``.

    Where the hull outgrew the cap, ``bpl``/``fpl``/``tpl`` are provable lower ends and
    ``*_high`` the upper ends (``exact`` False); otherwise the ``*_high`` arrays equal the values.
    ``pair[t-1]`` is the value pair ``(a, b)`` attaining ``TPL_t`` (states numbered from 0; -1 where
    ``t`` is known); :meth:`witness` gives an output sequence attaining it.
    """

    t: np.ndarray
    epsilon: np.ndarray
    bpl: np.ndarray
    fpl: np.ndarray
    tpl: np.ndarray
    bpl_high: np.ndarray
    fpl_high: np.ndarray
    tpl_high: np.ndarray
    pair: np.ndarray
    known: tuple[int, ...]
    exact: bool
    points: int
    _witness: object = field(default=None, repr=False, compare=False)

    @property
    def steps(self) -> int:
        return int(self.t.size)

    def witness(self, t: int) -> list[str]:
        """Labels of an output sequence ``r_1..r_T`` attaining ``TPL_t`` (lower end) for the pair
        :attr:`pair`: ``known x=c`` at known steps, ``*`` where the output does not matter."""
        require(1 <= t <= self.steps, "t", t, f"must be a step in 1..{self.steps}")
        fn = self._witness
        return fn(t) if callable(fn) else []


def _absorb(sw, steps: list[int], c, D: np.ndarray, H: np.ndarray, src: dict) -> None:
    """Fold one sweep ``sw`` (from known value ``c``; its ``i``-th result at 0-based step
    ``steps[i]``) into the running maxima ``D`` (exact) and ``H`` (hull bound) and their sources
    ``src``, in place."""
    for i, t0 in enumerate(steps):
        better = sw.D[i] > D[t0]
        D[t0] = np.where(better, sw.D[i], D[t0])
        H[t0] = np.maximum(H[t0], sw.H[i])
        prev = src.get(t0, (None, None, None))
        src[t0] = _merge_src(prev, better, (sw, i, c))


def _worst(V: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per step, the largest ``V`` over the ``valid`` pairs (``nan`` where none is finite)."""
    W = np.where(valid, V, -np.inf)
    best = W.reshape(W.shape[0], -1).max(axis=1)
    return np.where(np.isfinite(best), best, np.nan)


def _check_work(T: int, m: int, k: int, known: bool, max_points: int, max_work: float) -> None:
    """Refuse (``TooExpensive``) a hull propagation whose operation count, about
    ``2 T max_points m k^2`` (times ``k`` with known steps), exceeds ``max_work``."""
    K = known
    work = 2.0 * T * max_points * m * k * k * (k if K else 1)
    if work > max_work:
        raise TooExpensive(
            "steps",
            T,
            f"the hull propagation may take ~{work:.2g} operations "
            f"({m} outputs per step, up to {max_points} points), above the limit "
            f"{max_work:.2g}",
        )


def _priors(pi1: np.ndarray, mats: list) -> list[np.ndarray]:
    """The priors ``pi_t`` of every step: ``pi_1`` pushed through the transitions ``mats``."""
    pis = [pi1]
    for P in mats:
        pis.append(pis[-1] @ P)
    return pis


def temporal_exact(
    transition,
    epsilon=None,
    steps: int | None = None,
    mechanism: str = "any",
    *,
    initial="stationary",
    known: Sequence[int] = (),
    values=None,
    max_points: int = MAX_POINTS,
    max_work: float = MAX_WORK,
) -> TemporalLeakage:
    """Exact ``BPL_t``, ``FPL_t``, ``TPL_t`` for ``t = 1..steps`` (module docstring).

    Parameters
    ----------
    transition : array_like or ReleasedChain
        A ``(k, k)`` row-stochastic matrix, or ``steps - 1`` of them (``P_t``: step ``t`` to
        ``t+1``); or a :class:`~bdpsim.temporal.chain.ReleasedChain` checked before (then
        ``epsilon``, ``steps``, ``mechanism``, ``initial`` and ``values`` are its own).
    epsilon : float or sequence of float
        The per-step DP level ``eps_t``: one value, or one per step.
    steps : int
        ``T >= 1``.
    mechanism : str
        ``krr``, ``laplace``, ``geometric``, ``staircase`` (noise on the one-hot histogram, or on
        ``values``) or ``any`` (every eps_t-DP step): :func:`bdpsim.temporal.mechanisms.step_release`.
    initial : "stationary" or array_like
        The law of ``x_1`` (default the stationary law of the first matrix).
    known : sequence of int
        Steps ``s`` (1-based) whose value ``x_s`` the adversary knows.
    values : sequence of float, optional
        A value per state: the noise is on ``v_{x_t}`` instead of the one-hot histogram.
    max_points, max_work
        The hull cap (past it, an interval) and the work refused up front
        (:class:`~bdpsim.kernels.argcheck.TooExpensive`).

    Raises
    ------
    ConfigError
        A bad argument, named (the chain and its releases are one value, checked once:
        :meth:`bdpsim.temporal.chain.ReleasedChain.of`).
    """
    with arguments({"release": "mechanism", "state_values": "values"}):
        chain = released_chain(transition, epsilon, steps, mechanism, initial=initial, state_values=values)
    check(steps is None or steps == chain.steps, "steps", steps, f"must be the chain's {chain.steps} steps")
    eng = TemporalEngine.of(chain, max_points=max_points, max_work=max_work)
    return eng.leakage(known)


# ----------------------------------------------------------------------------- the engine


def check_states(k: int, field: str = "transition") -> None:
    """The hull propagation's limit on the states (:data:`~bdpsim.temporal.exact.MAX_STATES`)."""
    check(
        k <= MAX_STATES,
        field,
        f"{k} states",
        f"exact temporal leakage propagates convex hulls in k - 1 dimensions: at most {MAX_STATES} states",
    )


class TemporalEngine:
    """Exact leakage of the releases ``rels`` (one :class:`StepRelease` per step) of a chain with
    transitions ``mats`` (``T - 1`` matrices, ``mats[s]`` from step ``s`` to ``s + 1``, 0-based) and
    start law ``initial`` (module docstring); :meth:`of` builds it from a
    :class:`~bdpsim.temporal.chain.ReleasedChain` after its work check."""

    def __init__(
        self,
        mats: Sequence[np.ndarray],
        initial: np.ndarray,
        rels: Sequence[StepRelease],
        max_points: int = MAX_POINTS,
        max_work: float = MAX_WORK,
    ):
        self.mats = [np.asarray(M, dtype=float) for M in mats]
        self.initial = np.asarray(initial, dtype=float)
        self.rels = list(rels)
        self.T = len(self.rels)
        check(
            len(self.mats) == max(self.T - 1, 0),
            "mats",
            f"{len(self.mats)} matrices",
            f"need T - 1 = {self.T - 1}",
        )
        self.k = int(self.initial.shape[0])
        self.max_points = int(max_points)
        self.max_work = float(max_work)
        self.outputs = int(self.rels[0].likelihoods.shape[0]) if self.rels else 0
        # each distinct matrix transposed once (a time-homogeneous chain: one object, so the
        # 2-state sweep's per-matrix cache hits at every step)
        seen: dict[int, np.ndarray] = {}
        self.mats_t = [seen.setdefault(id(M), M.T) for M in self.mats]
        self.epsilon = np.array([float(r.epsilon) for r in self.rels])
        self.priors = _priors(self.initial, self.mats)
        self._sweeps: dict[tuple, Sweep] = {}
        self._leakage: dict[tuple[int, ...], TemporalLeakage] = {}

    @classmethod
    def of(
        cls, chain: ReleasedChain, *, max_points: int = MAX_POINTS, max_work: float = MAX_WORK
    ) -> TemporalEngine:
        """The engine of ``chain``: its states and its work (``2 T points outputs k^2``) checked
        first (``ConfigError`` naming ``transition``; :class:`~bdpsim.kernels.argcheck.TooExpensive`
        naming ``steps``), then its step releases built."""
        check_states(chain.states)
        _check_work(chain.steps, chain.outputs, chain.states, False, max_points, max_work)
        eng = cls(chain.matrices, chain.initial, chain.step_releases(), max_points, max_work)
        eng.epsilon = np.array(chain.epsilons, dtype=float)
        return eng

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_sweeps"], state["_leakage"] = {}, {}  # caches stay where they were computed
        return state

    # ------------------------------------------------------------------ sweeps, cached
    def forward(self, s0: int, c: int, n: int | None = None) -> Sweep:
        """The sweep from step ``s0`` (law of ``x_{s0}``: the start law if ``c < 0``, else
        ``P[c, :]`` from ``x_{s0 - 1} = c``) over ``n`` steps (default: to the chain end)."""
        n = self.T - s0 if n is None else n
        key = ("f", s0, c, n)
        if key not in self._sweeps:
            start = self.initial if c < 0 else self.mats[s0 - 1][c]
            self._sweeps[key] = propagate(
                start, self.mats[s0 : s0 + n - 1], self.rels[s0 : s0 + n - 1], n, self.max_points
            )
        return self._sweeps[key]

    def backward(self, e0: int, d: int, n: int | None = None) -> Sweep:
        """The sweep from step ``e0`` (``1`` if ``d < 0``, else ``P(x_{e0 + 1} = d | x_{e0})``)
        down over ``n`` steps (default: to step 0)."""
        n = e0 + 1 if n is None else n
        key = ("b", e0, d, n)
        if key not in self._sweeps:
            start = np.ones(self.k) if d < 0 else self.mats[e0][:, d].copy()
            steps = range(e0 - 1, e0 - n, -1)
            mats = [self.mats_t[s] for s in steps]
            rels = [self.rels[s + 1] for s in steps]
            self._sweeps[key] = propagate(start, mats, rels, n, self.max_points)
        return self._sweeps[key]

    # ------------------------------------------------------------------ one adversary
    def one_sided(self, t: int, known: Mapping[int, int], a: int, b: int) -> float:
        """``sup_r ln P(r | x_t = a, x_K) / P(r | x_t = b, x_K)`` (0-based steps and states); a
        :class:`~bdpsim.core.errors.NotAvailable` where ``a`` or ``b`` is impossible given ``x_K`` or
        the propagation fell back to an interval (``max_points``)."""
        before = [s for s in known if s < t]
        after = [s for s in known if s > t]
        lo = max(before) if before else -1
        hi = min(after) if after else self.T
        past = self.forward(lo + 1, int(known[lo]) if before else -1)
        fut = self.backward(hi - 1, int(known[hi]) if after else -1)
        if not (past.exact and fut.exact):
            raise NotAvailable(
                f"the reachable hull outgrew {self.max_points} points: only an interval is known"
            )
        dp = past.D[t - (lo + 1)][a, b]
        df = fut.D[hi - 1 - t][a, b]
        if not (math.isfinite(dp) and math.isfinite(df)):
            raise NotAvailable(f"x_{t} = {a} or {b} is impossible given the known values")
        return float(dp + self.rels[t].pair_epsilon()[a, b] + df)

    def two_sided(self, t: int, known: Mapping[int, int], a: int, b: int) -> float:
        """``max`` of :meth:`one_sided` over both orders of the pair."""
        return max(self.one_sided(t, known, a, b), self.one_sided(t, known, b, a))

    # ------------------------------------------------------------------ every step
    def leakage(self, known: Sequence[int] = ()) -> TemporalLeakage:
        """``BPL_t``, ``FPL_t``, ``TPL_t`` of every step for an adversary who knows the steps
        ``known`` (numbered from 1, as :func:`~bdpsim.temporal.exact.temporal_exact`; checked:
        ``ConfigError`` naming ``known``); with none known, computed once."""
        T = self.T
        for s in known or ():
            check(
                isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 1 <= int(s) <= T,
                "known",
                s,
                f"must be steps in 1..{T}",
            )
        K = sorted({int(s) for s in known}) if known else []
        if K:
            _check_work(T, self.outputs, self.k, True, self.max_points, self.max_work)
        key = tuple(K)
        if key not in self._leakage:
            self._leakage[key] = self._leakage_of(K)
        return self._leakage[key]

    def _leakage_of(self, K: list[int]) -> TemporalLeakage:
        T, k, rels, pis = self.T, self.k, self.rels, self.priors
        Kset = set(K)
        bplD = np.full((T, k, k), -np.inf)
        bplH = np.full((T, k, k), -np.inf)
        fplD = np.full((T, k, k), -np.inf)
        fplH = np.full((T, k, k), -np.inf)
        src_b: dict[int, Any] = {}  # t -> per pair (a, b): (sweep, index, known value c)
        src_f: dict[int, Any] = {}
        exact_all = True
        points = 0
        cuts = [0] + K + [T + 1]
        for lo, hi in zip(cuts[:-1], cuts[1:]):  # targets lo+1 .. hi-1 (steps from 1)
            n = hi - lo - 1
            if n <= 0:
                continue
            starts_f = [None] if lo == 0 else [c for c in range(k) if pis[lo - 1][c] > 0]
            for c in starts_f:  # forward: starts at step lo+1, 0-based lo
                sw = self.forward(lo, -1 if c is None else c, n)
                exact_all &= sw.exact
                points = max(points, sw.points)
                _absorb(sw, [lo + i for i in range(n)], c, bplD, bplH, src_b)  # 0-based steps
            starts_b = [None] if hi == T + 1 else [d for d in range(k) if pis[hi - 1][d] > 0]
            for d in starts_b:  # backward: starts at step hi-1, 0-based hi-2, down to lo+1
                sw = self.backward(hi - 2, -1 if d is None else d, n)
                exact_all &= sw.exact
                points = max(points, sw.points)
                _absorb(sw, [hi - 2 - i for i in range(n)], d, fplD, fplH, src_f)
        E = (
            np.stack([r.pair_epsilon() for r in rels])
            if len({id(r) for r in rels}) > 1
            else np.broadcast_to(rels[0].pair_epsilon(), (T, k, k))
        )
        possible = np.stack(pis) > 0
        valid = ~np.eye(k, dtype=bool)[None] & possible[:, :, None] & possible[:, None, :]
        valid[[s - 1 for s in K]] = False

        # a pair counts where both values are possible given some known values on each side: the
        # past ratio needs a future known value compatible with a and b (and the future one a past)
        past_ok, fut_ok = np.isfinite(bplD), np.isfinite(fplD)
        tp = np.where(valid, bplD + fplD + E, -np.inf)
        bpl = _worst(np.where(fut_ok, bplD + E, -np.inf), valid)
        fpl = _worst(np.where(past_ok, fplD + E, -np.inf), valid)
        tpl = _worst(bplD + fplD + E, valid)
        bplh = _worst(np.where(fut_ok, bplH + E, -np.inf), valid)
        fplh = _worst(np.where(past_ok, fplH + E, -np.inf), valid)
        tplh = _worst(bplH + fplH + E, valid)
        flat = np.argmax(tp.reshape(T, -1), axis=1)
        pair = np.stack([flat // k, flat % k], axis=1).astype(np.int64)
        pair[np.isnan(tpl)] = -1

        def witness(t: int) -> list[str]:
            t0 = t - 1
            labels = ["*"] * T
            for s in K:
                labels[s - 1] = "known"
            if t in Kset or pair[t0, 0] < 0:
                return labels
            a_, b_ = int(pair[t0, 0]), int(pair[t0, 1])
            lo = max([s for s in K if s < t], default=0)
            hi = min([s for s in K if s > t], default=T + 1)
            sw, i, c = src_b[t0][a_][b_]
            if c is not None:
                labels[lo - 1] = f"known x={c}"
            p = int(sw.best[i][a_, b_])
            for j, o in enumerate(sw.outputs(i, p)):
                labels[lo + j] = rels[lo + j].labels[o]
            labels[t0] = rels[t0].labels[int(rels[t0].pair_argmax()[a_, b_])]
            sw, i, d = src_f[t0][a_][b_]
            if d is not None:
                labels[hi - 1] = f"known x={d}"
            p = int(sw.best[i][a_, b_])
            for j, o in enumerate(sw.outputs(i, p)):
                labels[hi - 2 - j] = rels[hi - 2 - j].labels[o]
            return labels

        return TemporalLeakage(
            np.arange(1, T + 1),
            self.epsilon,
            bpl,
            fpl,
            tpl,
            bplh,
            fplh,
            tplh,
            pair,
            tuple(K),
            bool(exact_all),
            int(points),
            witness,
        )


def engine_of(
    chain: ReleasedChain, *, max_points: int | None = None, max_work: float = MAX_WORK
) -> TemporalEngine:
    """:meth:`TemporalEngine.of` with ``max_points`` checked (``None``: the default cap)."""
    cap = MAX_POINTS if max_points is None else max_points
    if not (isinstance(cap, (int, np.integer)) and not isinstance(cap, bool) and cap >= 2):
        raise ConfigError("max_points", cap, "must be an integer >= 2")
    return TemporalEngine.of(chain, max_points=int(cap), max_work=max_work)


def _merge_src(prev, better: np.ndarray, new) -> list[list]:
    """Per pair ``(a, b)``: the ``(sweep, index, known value)`` holding the best value so far."""
    k = better.shape[0]
    if prev == (None, None, None):
        return [[new for _ in range(k)] for _ in range(k)]
    return [[new if better[a, b] else prev[a][b] for b in range(k)] for a in range(k)]
