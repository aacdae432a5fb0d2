"""The incremental leakage L(α) of Cao et al.: a linear-fractional program, by LP and closed form.

A port of the MATLAB code of Cao, Yoshikawa, Xiao and Xiong (`yangcao888/TPL
<https://github.com/yangcao888/TPL>`_; ICDE 2017, TKDE 2019), function by function. For a
transition matrix ``M`` whose rows are indexed by the value at the released step and a previous
leakage ``α`` (BPL_{t-1} or FPL_{t+1}), the incremental leakage is

.. math::

    L(α) = \\max_{i \\ne j}\\; \\max_{y \\in \\mathbb{R}^k_{>0}:\\; y_a \\le e^{α} y_b\\ \\forall a, b}
           \\log \\frac{M_{i\\cdot}\\, y}{M_{j\\cdot}\\, y},

(docs/theory/temporal-cao.md, eq. (4)): ``y`` is the likelihood vector of the earlier (later) releases, whose
entries differ by at most a factor ``e^α``. The fraction is homogeneous in ``y``, so the
Charnes–Cooper substitution ``M_{j·} y = 1`` makes each pair an LP (:func:`incremental_leakage_lp`).
TKDE Theorem 4 solves it in closed form: with ``q``, ``d`` the sums of ``M_{i·}``, ``M_{j·}`` over
the set of columns kept by their Algorithm 1,
``L(α) = log((q (e^α - 1) + 1) / (d (e^α - 1) + 1))`` (:func:`incremental_leakage`). The
pre-computed transition points of the MATLAB code (:func:`precompute`,
:func:`incremental_leakage_precomputed`)
and the supremum of TKDE Theorem 10 (:func:`theorem10`, :func:`supremum`) complete the port.

Deviations from the MATLAB code, all numerical (same values where MATLAB is not wrong by rounding):
``(q (e^α - 1) + 1)`` is evaluated as ``logaddexp(log q + α, log(1 - q))`` and Algorithm 1's
ratio test ``Q/D > value`` in the log domain, so ``α`` in the hundreds does not overflow (their
comments warn of "precision problems" past α ≈ 30), and with a tolerance
(:data:`KEEP_TOLERANCE`); their bisections' ``eps*10`` stopping rule
gets an iteration cap (:mod:`bdpsim.temporal.cao`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import csr_matrix

from bdpsim.core.errors import ConfigError

#: tolerance of the row-sum check of a transition matrix
ROW_SUM_TOLERANCE = 1e-9

#: Algorithm 1 keeps a column whose log ratio is within this of the current log value (MATLAB:
#: strictly above). A column whose ratio equals the value leaves the value unchanged whether kept
#: or dropped, so this changes L(α) by at most ~1e-12; without it rounding drops every column at
#: large α: ``calcPLbyThm([0.6 0.4; 0.55 0.45], 40)`` returns 0 under Octave instead of
#: log(0.45/0.4) = 0.1178 (``calcPLbyPreComp`` gets it right).
KEEP_TOLERANCE = 1e-12


class LfpSolution(NamedTuple):
    """The value of L(α) and the maximising pair of rows.

    Parameters
    ----------
    value : float
        ``L(α)`` (natural log).
    q, d : float
        The sums of the two maximising rows over the kept columns (TKDE Theorem 4), so that
        ``value = log((q (e^α - 1) + 1) / (d (e^α - 1) + 1))``; ``nan`` from the LP.
    pair : tuple of int
        ``(i, j)``, 0-based: the value pair whose log ratio attains ``L(α)``.
    """

    value: float
    q: float
    d: float
    pair: tuple[int, int]


def check_transition(matrix: object, name: str = "transition") -> np.ndarray:
    """A row-stochastic ``k x k`` matrix (``k >= 2``) as a float array, else :class:`ConfigError`.

    Parameters
    ----------
    matrix : array_like
        The matrix; rows sum to 1 within ``ROW_SUM_TOLERANCE``, entries finite and ``>= 0``.
    name : str
        The argument's name, for the message.
    """
    try:
        m = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(name, matrix, "must be a square matrix of numbers") from None
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] < 2:
        raise ConfigError(f"{name} shape", m.shape, "must be a square k x k matrix with k >= 2")
    bad = np.argwhere(~np.isfinite(m) | (m < 0))
    if bad.size:
        i, j = bad[0]
        raise ConfigError(f"{name}[{i}][{j}]", float(m[i, j]), "entries must be finite and >= 0")
    sums = m.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    if off.size:
        i = off[0]
        raise ConfigError(
            f"{name}[{i}]",
            m[i].tolist(),
            f"a row must sum to 1 (within {ROW_SUM_TOLERANCE:g}); it sums to {sums[i]:.12g}",
        )
    return m


def _check_alpha(alpha: object, name: str = "alpha") -> float:
    try:
        a = float(alpha)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ConfigError(name, alpha, "must be a number >= 0") from None
    if not (math.isfinite(a) and a >= 0):
        raise ConfigError(name, alpha, "must be a finite number >= 0")
    return a


def ordered_pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair ``(i, j)``, ``i != j``, in the authors' order.

    Ports ``pairs = [VChooseK(1:n, 2); fliplr(VChooseK(1:n, 2))]``: the ``k(k-1)/2`` pairs
    ``i < j`` in lexicographic order, then the same pairs reversed (0-based here).
    """
    i, j = np.triu_indices(k, 1)
    return np.concatenate([i, j]), np.concatenate([j, i])


def log_fraction(q: np.ndarray | float, d: np.ndarray | float, alpha: float) -> np.ndarray:
    """``log((q (e^α - 1) + 1) / (d (e^α - 1) + 1))`` without overflow (TKDE Theorem 4).

    ``q (e^α - 1) + 1 = q e^α + (1 - q)``, so the log is ``logaddexp(log q + α, log(1 - q))``.
    """
    q = np.clip(np.asarray(q, dtype=float), 0.0, 1.0)
    d = np.clip(np.asarray(d, dtype=float), 0.0, 1.0)
    if alpha == 0:  # e^0 - 1 = 0: exactly log(1/1), without the rounding of logaddexp
        return np.zeros(np.broadcast(q, d).shape)
    with np.errstate(divide="ignore"):
        top = np.logaddexp(np.log(q) + alpha, np.log1p(-q))
        bottom = np.logaddexp(np.log(d) + alpha, np.log1p(-d))
    return np.asarray(top - bottom)


def incremental_leakage(matrix: object, alpha: float) -> LfpSolution:
    """L(α) by TKDE Theorem 4 (their Algorithm 1); ports ``calcPLbyThm.m``.

    For every ordered pair of rows ``(Q, D) = (M_i, M_j)`` start from the columns with
    ``Q_c > D_c``, and repeatedly drop the columns whose ratio ``Q_c / D_c`` is not above the
    current value ``(q (e^α - 1) + 1) / (d (e^α - 1) + 1)`` (``q``, ``d`` the sums over the kept
    columns) until no column is dropped (all pairs at once, as the MATLAB code does); then
    ``L(α) = log`` of the largest value over the pairs. Unlike the MATLAB code, a column within
    :data:`KEEP_TOLERANCE` of the value is kept, so that rounding cannot empty the set at large
    α (where ``calcPLbyThm.m`` returns 0).

    Parameters
    ----------
    matrix : array_like, shape (k, k)
        Transition matrix, rows indexed by the value whose leakage is measured (backward:
        ``Pr(x_{t-1} | x_t)``; forward: ``Pr(x_{t+1} | x_t)``).
    alpha : float
        The previous leakage ``α >= 0``.

    Returns
    -------
    LfpSolution
        ``L(α)``, the maximising ``q``, ``d`` and pair. ``L(0) = 0``; identical rows give 0.
    """
    m = check_transition(matrix, "matrix")
    a = _check_alpha(alpha)
    pi, pj = ordered_pairs(m.shape[0])
    Q, D = m[pi], m[pj]
    active = Q > D
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(Q) - np.log(D)  # +inf where D = 0 < Q
    while True:
        q = np.where(active, Q, 0.0).sum(axis=1)
        d = np.where(active, D, 0.0).sum(axis=1)
        log_val = log_fraction(q, d, a)
        new = active & (log_ratio > log_val[:, None] - KEEP_TOLERANCE)
        if new.sum() == active.sum():
            break
        active = new
    best = int(np.argmax(log_val))
    return LfpSolution(
        float(max(log_val[best], 0.0)), float(q[best]), float(d[best]), (int(pi[best]), int(pj[best]))
    )


def _pair_lp(Q: np.ndarray, D: np.ndarray, alpha: float, A_ub: csr_matrix) -> float:
    """One pair's LP; ports ``tools/calcPLbyLP_matlab.m``: max ``Q y`` s.t. ``D y = 1`` and
    ``e^{-α} <= y_a / y_b <= e^α`` (no sign bounds, as ``linprog(..., [], [], ...)``)."""
    res = linprog(
        -Q,
        A_ub=A_ub,
        b_ub=np.zeros(A_ub.shape[0]),
        A_eq=D[None, :],
        b_eq=[1.0],
        bounds=(None, None),
        method="highs-ds",
    )
    if res.status != 0:
        raise RuntimeError(f"linprog failed on an L(alpha) pair LP: {res.message}")
    return float(math.log(-res.fun))


def ratio_constraints(k: int, alpha: float) -> csr_matrix:
    """The ``k(k-1)`` rows ``y_b - e^α y_a <= 0`` and ``y_a - e^α y_b <= 0`` (``a < b``) of the LP,
    in the authors' order (``calcPLbyLP_matlab.m``: first every ``-e^α y_a + y_b``, then every
    ``y_a - e^α y_b``)."""
    ia, ib = np.triu_indices(k, 1)
    m = ia.size
    ea = math.exp(alpha)
    rows = np.concatenate([np.arange(m), np.arange(m), m + np.arange(m), m + np.arange(m)])
    cols = np.concatenate([ia, ib, ia, ib])
    vals = np.concatenate([np.full(m, -ea), np.ones(m), np.ones(m), np.full(m, -ea)])
    return csr_matrix((vals, (rows, cols)), shape=(2 * m, k))


def incremental_leakage_lp(matrix: object, alpha: float) -> LfpSolution:
    """L(α) by linear programming, one LP per ordered pair; ports ``calcPLbyLP.m`` with
    ``method = 'matlab'`` (``tools/calcPLbyLP_matlab.m``, dual simplex).

    The linear-fractional program ``max Q y / D y`` over likelihood vectors ``y`` with
    ``y_a <= e^α y_b`` for all ``a, b`` becomes, by Charnes–Cooper (``D y = 1``), the LP
    ``max Q y`` s.t. ``D y = 1``, ``y_b - e^α y_a <= 0``, ``y_a - e^α y_b <= 0`` (``a < b``);
    ``L(α) = log`` of the largest optimum over the ordered pairs. Solved by SciPy's HiGHS dual
    simplex (``method="highs-ds"``) in place of MATLAB's ``linprog``. Slow past ~30 states
    (``k(k-1)`` LPs of ``k(k-1)`` constraints), as the authors' README warns.

    Parameters
    ----------
    matrix : array_like, shape (k, k)
        Transition matrix (see :func:`incremental_leakage`).
    alpha : float
        The previous leakage ``α >= 0``.

    Returns
    -------
    LfpSolution
        ``L(α)`` and the maximising pair (``q``, ``d`` are ``nan``).
    """
    m = check_transition(matrix, "matrix")
    a = _check_alpha(alpha)
    k = m.shape[0]
    A_ub = ratio_constraints(k, a)
    best, best_pair = -1.0, (0, 1)
    for i, j in zip(*ordered_pairs(k)):
        value = _pair_lp(m[i], m[j], a, A_ub)
        if best < value:
            best, best_pair = value, (int(i), int(j))
    return LfpSolution(max(best, 0.0), math.nan, math.nan, best_pair)


@dataclass(frozen=True)
class Precomputed:
    """The transition points of L(α) of one matrix; ports the outputs of ``preCompQDMatrix.m``.

    For every ordered pair of rows, the columns are sorted by ``Q_c / D_c`` descending; for the
    ``n``-th column with ``Q > D``, ``q[p, n]``, ``d[p, n]`` are the sums of ``Q``, ``D`` over the
    first ``n + 1`` sorted columns and ``points[p, n] = log((Q - D) / (q D - Q d) + 1)`` the α
    up to which that column stays in Algorithm 1's set (``inf`` for the first; ``nan`` where
    ``Q <= D``). ``active`` marks ``Q > D``.

    Parameters
    ----------
    points, q, d : ndarray, shape (k(k-1), k)
        ``EspMatrix``, ``qM``, ``dM`` of the MATLAB code.
    active : ndarray of bool, shape (k(k-1), k)
        ``QDplusInd``.
    """

    points: np.ndarray
    q: np.ndarray
    d: np.ndarray
    active: np.ndarray

    def __post_init__(self) -> None:
        shapes = {np.shape(self.points), np.shape(self.q), np.shape(self.d), np.shape(self.active)}
        if len(shapes) != 1 or len(next(iter(shapes))) != 2:
            raise ConfigError("Precomputed", sorted(shapes), "points, q, d, active must share one 2-D shape")


def precompute(matrix: object) -> Precomputed:
    """Sort every pair's columns by ratio and accumulate; ports ``preCompQDMatrix.m`` (with
    ``tools/sortRatioM1M2_DES.m``: ``sort(Q./D, 2, 'descend', 'MissingPlacement', 'last')``).

    Parameters
    ----------
    matrix : array_like, shape (k, k)
        Transition matrix (see :func:`incremental_leakage`).

    Returns
    -------
    Precomputed
        The transition points and prefix sums (:class:`Precomputed`).
    """
    m = check_transition(matrix, "matrix")
    pi, pj = ordered_pairs(m.shape[0])
    Q, D = m[pi], m[pj]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = Q / D  # inf where D = 0 < Q, nan where both are 0
    order = np.argsort(-ratio, axis=1, kind="stable")  # descending, nan last
    Qs = np.take_along_axis(Q, order, axis=1)
    Ds = np.take_along_axis(D, order, axis=1)
    active = Qs > Ds
    Qs, Ds = Qs * active, Ds * active
    q = np.cumsum(Qs, axis=1) * active
    d = np.cumsum(Ds, axis=1) * active
    with np.errstate(divide="ignore", invalid="ignore"):
        points = np.log((Qs - Ds) / (q * Ds - Qs * d) + 1.0)
    return Precomputed(points, q, d, active)


def incremental_leakage_precomputed(alpha: float, pre: Precomputed) -> LfpSolution:
    """L(α) from the transition points; ports ``calcPLbyPreComp.m``.

    For each pair the number of transition points above ``α`` is the length of Algorithm 1's
    sorted prefix at ``α``; its ``q``, ``d`` give ``log((q (e^α - 1) + 1) / (d (e^α - 1) + 1))``
    and ``L(α)`` is the largest over the pairs (0 if no pair has a column with ``Q > D``).

    Parameters
    ----------
    alpha : float
        The previous leakage ``α >= 0``.
    pre : Precomputed
        From :func:`precompute`.
    """
    a = _check_alpha(alpha)
    value, q, d, row = precomputed_value(a, pre)
    if row < 0:
        return LfpSolution(0.0, 0.0, 0.0, (0, 1))
    pi, pj = ordered_pairs(pre.q.shape[1])
    return LfpSolution(value, q, d, (int(pi[row]), int(pj[row])))


def precomputed_value(a: float, pre: Precomputed) -> tuple[float, float, float, int]:
    """:func:`incremental_leakage_precomputed` without input checks, for the recursion's inner loop.

    Returns
    -------
    tuple
        ``(L(a), q, d, row)``: ``row`` indexes :func:`ordered_pairs` (-1 if no pair has a column
        with ``Q > D``, and then ``L(a) = 0``).
    """
    n_kept = np.sum(pre.points > a, axis=1)
    rows = np.flatnonzero(n_kept > 0)
    if rows.size == 0:
        return 0.0, 0.0, 0.0, -1
    q = pre.q[rows, n_kept[rows] - 1]
    d = pre.d[rows, n_kept[rows] - 1]
    if a < 700:  # e^a - 1 finite: the plain formula, as calcPLbyPreComp.m (3x faster than logaddexp)
        em1 = math.expm1(a)
        values = np.log((q * em1 + 1.0) / (d * em1 + 1.0))
    else:
        values = log_fraction(q, d, a)
    best = int(np.argmax(values))
    return float(max(values[best], 0.0)), float(q[best]), float(d[best]), int(rows[best])


@dataclass(frozen=True)
class LFunction:
    """L(α) on ``[a1, an]`` as pieces ``log((q_n (e^α - 1) + 1) / (d_n (e^α - 1) + 1))``; the
    outputs ``aArrMax``, ``qArrMax``, ``dArrMax`` of ``genLFunc.m``.

    Parameters
    ----------
    points : ndarray
        Right ends of the pieces, increasing; the last is ``an``. Empty: ``L = 0`` (equal rows).
    q, d : ndarray
        The pieces' parameters.
    """

    points: np.ndarray
    q: np.ndarray
    d: np.ndarray

    def __post_init__(self) -> None:
        if not (np.shape(self.points) == np.shape(self.q) == np.shape(self.d)) or np.ndim(self.points) != 1:
            raise ConfigError(
                "LFunction",
                (np.shape(self.points), np.shape(self.q), np.shape(self.d)),
                "points, q, d must be 1-D of one length",
            )


#: the recursion depth past which :func:`l_function` gives up (``genLFunc.m`` has no limit)
MAX_L_FUNCTION_DEPTH = 200


def l_function(a1: float, an: float, pre: Precomputed) -> LFunction:
    """L(α) on ``[a1, an]`` as a piecewise function; ports ``genLFunc.m`` (recursive).

    Evaluate L at both ends (:func:`incremental_leakage_precomputed`, giving ``(q1, d1)`` and
    ``(qn, dn)``). If the end pieces meet at ``an`` (or ``a1 = an``) the piece ``(q1, d1)`` covers
    the range; if they meet at ``a1``, or do not cross at ``α > 0`` (``k <= 0``), the piece
    ``(qn, dn)`` does; otherwise split at their crossing ``a_k = log(k + 1)``,
    ``k = (qn + d1 - q1 - dn) / (q1 dn - qn d1)``, and recurse on both halves. ``a1 = 0`` is moved
    to ``1e-4`` as in the MATLAB code; the equality tests use its ``eps`` and ``10 eps``.

    Parameters
    ----------
    a1, an : float
        The range, ``0 <= a1 <= an``.
    pre : Precomputed
        :func:`precompute` of the matrix.
    """
    lo, hi = _check_alpha(a1, "a1"), _check_alpha(an, "an")
    if hi < lo:
        raise ConfigError("an", an, f"must be >= a1 = {a1}")
    if not np.any(pre.active):  # all(all(isnan(EspMatrix))): equal rows, L = 0
        empty = np.empty(0)
        return LFunction(empty, empty.copy(), empty.copy())
    pts: list[float] = []
    qs: list[float] = []
    ds: list[float] = []
    _l_function(lo, hi, pre, pts, qs, ds, 0)
    return LFunction(np.array(pts), np.array(qs), np.array(ds))


def _l_function(
    a1: float, an: float, pre: Precomputed, pts: list[float], qs: list[float], ds: list[float], depth: int
) -> None:
    eps = np.finfo(float).eps
    if depth > MAX_L_FUNCTION_DEPTH:
        raise RuntimeError(f"genLFunc recursion deeper than {MAX_L_FUNCTION_DEPTH} on [{a1}, {an}]")
    if a1 == 0:
        a1 = 0.0001
    v1, q1, d1, _ = precomputed_value(a1, pre)
    vn, qn, dn, _ = precomputed_value(an, pre)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = float(
            np.float64(qn + d1 - q1 - dn) / np.float64(q1 * dn - qn * d1)
        )  # MATLAB: x/0 = ±Inf, 0/0 = NaN
    if abs(a1 - an) <= eps or abs(vn - float(log_fraction(q1, d1, an))) <= eps * 10:
        pts.append(an)
        qs.append(q1)
        ds.append(d1)
    elif abs(v1 - float(log_fraction(qn, dn, a1))) <= eps * 10 or k <= 0:
        pts.append(an)
        qs.append(qn)
        ds.append(dn)
    else:
        ak = math.log(k + 1)
        _l_function(a1, ak, pre, pts, qs, ds, depth + 1)
        _l_function(ak, an, pre, pts, qs, ds, depth + 1)


def l_function_value(alpha: float, lf: LFunction) -> float:
    """L(α) from its pieces; ports ``calcPLbyFunc.m``: the piece of the first right end
    ``>= α``; 0 if there are no pieces.

    Parameters
    ----------
    alpha : float
        ``0 <= α <= lf.points[-1]``.
    lf : LFunction
        From :func:`l_function`.
    """
    a = _check_alpha(alpha)
    if lf.points.size == 0:
        return 0.0
    if a > lf.points[-1]:
        raise ConfigError("alpha", alpha, f"must be in the range of the L function, <= {lf.points[-1]}")
    idx = int(np.sum(lf.points < a))
    return float(log_fraction(lf.q[idx], lf.d[idx], a))


def theorem10(q: np.ndarray | float, d: np.ndarray | float, epsilon: float) -> np.ndarray:
    """The fixed point of ``a = log((q (e^a - 1) + 1) / (d (e^a - 1) + 1)) + ε``; ports
    ``tools/theorem10.m`` (TKDE Theorem 10).

    .. math::

        \\sup = \\begin{cases}
          ε & |q - d| < \\texttt{eps} \\\\
          \\log \\dfrac{\\sqrt{4 d e^ε (1 - q) + (d + q e^ε - 1)^2} + d + q e^ε - 1}{2 d} & d \\ne 0 \\\\
          \\log \\dfrac{(1 - q) e^ε}{1 - q e^ε} & d = 0,\\ q \\ne 1,\\ ε \\le \\log(1/q) \\\\
          \\infty & \\text{otherwise.}
        \\end{cases}

    (the positive root of ``d x^2 - (d + q e^ε - 1) x - e^ε (1 - q) = 0`` in ``x = e^a``).

    Parameters
    ----------
    q, d : array_like
        Prefix sums of a pair of rows (:class:`Precomputed`), ``0 <= d < q <= 1``.
    epsilon : float
        The constant per-step budget ``ε > 0``.
    """
    q = np.asarray(q, dtype=float)
    d = np.asarray(d, dtype=float)
    ee = math.exp(epsilon)
    out = np.full(np.broadcast(q, d).shape, np.inf)
    same = np.abs(q - d) < np.finfo(float).eps
    pos = ~same & (d != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = d + q * ee - 1.0
        root = (np.sqrt(4.0 * d * ee * (1.0 - q) + b * b) + b) / (2.0 * d)
        zero_d = ~same & (d == 0) & (q != 1) & (epsilon <= np.log(1.0 / q))
        finite = np.log((1.0 - q) * ee / (1.0 - q * ee))
    out = np.where(pos, np.log(root), out)
    out = np.where(zero_d, finite, out)
    out = np.where(same, epsilon, out)
    return out


def supremum(matrix: object, epsilon: float, pre: Precomputed | None = None) -> LfpSolution:
    """The supremum over t of BPL_t (or FPL_t) under a constant budget ε; ports ``findSup.m``.

    The largest :func:`theorem10` value over every pair's sorted prefixes ``(q, d)``
    (``qM(QDplusInd)``, ``dM(QDplusInd)``); ε itself if no pair has a column with ``Q > D``
    (independent values). ``inf`` when the leakage grows without bound (a prefix with
    ``d = 0`` and ``ε > log(1/q)``, e.g. two rows with disjoint supports).

    Parameters
    ----------
    matrix : array_like, shape (k, k)
        The backward (for BPL) or forward (for FPL) transition matrix.
    epsilon : float
        The constant per-step budget ``ε > 0``.
    pre : Precomputed, optional
        :func:`precompute` of ``matrix``, if already at hand.

    Returns
    -------
    LfpSolution
        The supremum and its ``q``, ``d`` (``nan`` if independent) and pair.
    """
    e = _check_alpha(epsilon, "epsilon")
    if e <= 0:
        raise ConfigError("epsilon", epsilon, "must be > 0")
    p = precompute(matrix) if pre is None else pre
    rows, cols = np.nonzero(p.active)
    if rows.size == 0:
        return LfpSolution(e, math.nan, math.nan, (0, 1))
    qs, ds = p.q[rows, cols], p.d[rows, cols]
    sups = theorem10(qs, ds, e)
    best = int(np.argmax(sups))
    pi, pj = ordered_pairs(p.q.shape[1])
    return LfpSolution(
        float(sups[best]), float(qs[best]), float(ds[best]), (int(pi[rows[best]]), int(pj[rows[best]]))
    )


__all__ = [
    "LFunction",
    "LfpSolution",
    "Precomputed",
    "incremental_leakage",
    "incremental_leakage_lp",
    "incremental_leakage_precomputed",
    "l_function",
    "l_function_value",
    "precompute",
    "supremum",
    "theorem10",
]
