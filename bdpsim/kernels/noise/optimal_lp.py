"""The least noise of any shape: a linear program over integer noise pmfs.

Numerics only (no models): given the pairs of output laws of an additive query ``S`` that an
adversary must not tell apart — rows ``w, w'`` on integer atoms ``c_j`` — find the pmf ``f`` of an
integer noise ``Z`` minimising ``E|Z|`` (or ``E Z^2``) subject to, for every pair, both directions
and every integer output ``s``::

    sum_j w_j f(s - c_j) <= e^eps sum_j w'_j f(s - c_j)                       (1)

Each condition is linear in ``f``, so this is a linear program; the rest makes it finite and exact.

**Finite parametrisation.** ``f`` has free masses on ``[-M, M]`` and geometric tails of a fixed
ratio ``r``: ``f(-M - k) = f(-M) r^k``, ``f(M + k) = f(M) r^k`` (the :class:`TableNoise`
shape, :mod:`bdpsim.kernels.noise.table`). Then ``f(z)`` for any ``z`` is one variable times a constant, every
condition (1) is a row over the ``2M + 1`` variables, and the objective and the total mass are
linear: ``sum_{k>=1} (M + k) r^k = M r/(1-r) + r/(1-r)^2`` and
``sum_{k>=1} (M + k)^2 r^k = M^2 r/(1-r) + 2 M r/(1-r)^2 + r(1+r)/(1-r)^3``.

**Finitely many outputs.** For ``s <= c_min - M`` every ``s - c_j <= -M`` lies in the left tail,
so (1) reads ``f(-M) r^{-M-s} (sum_j w_j r^{c_j} - e^eps sum_j w'_j r^{c_j}) <= 0``: the same
condition for all such ``s``, namely the one at ``s = c_min - M``. Likewise every
``s >= c_max + M`` gives the condition at ``s = c_max + M``. So (1) over all integers is (1) over
the window ``s in [c_min - M, c_max + M]`` — ``2M + 1 + c_max - c_min`` conditions per pair and
direction, exactly. (With ``r`` below the least ratio :func:`min_tail_ratio` the two extreme
conditions force ``f(-M) = 0`` or ``f(M) = 0``; the search sweeps ``r`` above it.)

**Constraint generation.** The conditions are far too many to hand to the solver at once (pairs x
outputs x 2), and nearly all are slack. :func:`solve` solves on a working set, evaluates every
condition for the current ``f`` by the direct sums of :func:`bdpsim.kernels.noise.table.class_laws` (the exact
table-noise engine), adds the most violated ones and repeats until none is violated by more than
``tol`` in log-ratio; the optimum of the working set is a lower bound, and once feasible for every
condition it is the optimum. HiGHS (``scipy.optimize.linprog``) solves each LP.

**Scaling.** The conditions at outputs far from the centre involve masses like ``1e-15``; the
solver's absolute feasibility tolerance would make them meaningless. Each LP's variables are
``x_k = f(k) / sigma_k`` with ``sigma`` the previous round's pmf, floored by the decay
``e^{-eps/Delta}`` per step from its mode (the DP adversary's conditions — who knows every other
record; they are in the first working set — allow no faster decay), so ``x ~ 1`` near the
solution, and each row is divided by the sum of its absolute coefficients: a row residual ``tau``
is then a *relative* error ``~tau`` of the two densities at ``s``.
The exact engine checks the result anyway (:mod:`bdpsim.calibration.optimal`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from .table import class_laws

OBJECTIVES = ("mean_abs", "variance")


class Infeasible(ValueError):
    """No pmf of the given shape (``M``, ``r``) satisfies the working set's conditions (or the solver
    failed on it)."""


@dataclass(frozen=True)
class LawPairs:
    """Rows ``W1, W2`` (shape ``(P, J)``, each normalised) of output laws on atoms ``c_j = delta * j``
    (``delta`` a positive integer). Every pair is constrained in both directions."""

    W1: np.ndarray
    W2: np.ndarray
    delta: int = 1

    @property
    def atoms(self) -> np.ndarray:
        return np.arange(self.W1.shape[1], dtype=np.int64) * int(self.delta)


def dedupe(
    W1: np.ndarray, W2: np.ndarray, digits: int = 13, normalised: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Normalised rows (``normalised``: as given, already normalised), with pairs equal (either
    order) to ``digits`` significant digits kept once (both directions are constrained anyway)."""
    if not normalised:
        W1 = W1 / W1.sum(axis=1, keepdims=True)
        W2 = W2 / W2.sum(axis=1, keepdims=True)
    a, b = np.round(W1, digits), np.round(W2, digits)
    swap = np.array([tuple(x) > tuple(y) for x, y in zip(a, b, strict=True)], dtype=bool)
    key = np.where(swap[:, None], np.hstack([b, a]), np.hstack([a, b]))
    _, keep = np.unique(key, axis=0, return_index=True)
    keep = np.sort(keep)
    return W1[keep], W2[keep]


def tail_log_ratio(pairs: LawPairs, r: float) -> float:
    """Largest ``|ln sum_j w_j r^{±c_j} / sum_j w'_j r^{±c_j}|``: the log-ratio of the two output laws
    far out in either tail (where it is constant) when the noise has tail ratio ``r``."""
    c = pairs.atoms.astype(float)
    worst = 0.0
    with np.errstate(divide="ignore"):
        l1, l2 = np.log(pairs.W1), np.log(pairs.W2)
        for sign in (1.0, -1.0):
            e = sign * c * math.log(r)
            a, b = logsumexp(l1 + e, axis=1), logsumexp(l2 + e, axis=1)
            with np.errstate(invalid="ignore"):
                d = np.abs(a - b)
            worst = max(worst, float(np.nanmax(np.where(np.isnan(d), np.inf, d))))
    return worst


def min_tail_ratio(pairs: LawPairs, epsilon: float, xtol: float = 1e-13) -> float:
    """Least tail ratio ``r`` whose tail conditions hold (:func:`tail_log_ratio` ``<= epsilon``), by
    Brent's method on ``r`` (the tail log-ratio falls to 0 as ``r -> 1``), returned from above; below
    it a geometric tail is not eps-BDP."""
    from scipy.optimize import brentq

    hi = 1.0 - 1e-12
    if tail_log_ratio(pairs, hi) > epsilon:
        raise ValueError(f"no tail ratio below 1 satisfies the tail conditions at eps = {epsilon}")
    lo = 1e-3
    while tail_log_ratio(pairs, lo) <= epsilon:
        lo *= 1e-3
        if lo < 1e-300:
            return lo
    r = brentq(lambda x: tail_log_ratio(pairs, x) - epsilon, lo, hi, xtol=xtol)
    while tail_log_ratio(pairs, r) > epsilon:
        r += xtol
    return r


def objective_vector(M: int, r: float, objective: str) -> tuple[np.ndarray, np.ndarray]:
    """``(cost, mass)`` over ``f(-M..M)``: ``E|Z|`` or ``E Z^2`` and the total mass, tails included."""
    k = np.arange(-M, M + 1, dtype=float)
    s0 = r / (1 - r)
    s1 = r / (1 - r) ** 2
    s2 = r * (1 + r) / (1 - r) ** 3
    mass = np.ones(2 * M + 1)
    mass[0] += s0
    mass[-1] += s0
    if objective == "mean_abs":
        cost = np.abs(k)
        tail = M * s0 + s1
    elif objective == "variance":
        cost = k * k
        tail = M * M * s0 + 2 * M * s1 + s2
    else:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    cost[0] += tail
    cost[-1] += tail
    return cost, mass


def noise_table(f: np.ndarray, M: int, r: float) -> tuple[int, np.ndarray, float]:
    """``(offset, pmf, tail_ratio)`` of the noise with masses ``f`` on ``[-M, M]``, normalised."""
    _, mass = objective_vector(M, r, "mean_abs")
    f = np.maximum(np.asarray(f, dtype=float), 0.0)
    return -M, f / float(mass @ f), r


def violations(
    pairs: LawPairs,
    f: np.ndarray,
    M: int,
    r: float,
    epsilon: float,
    *,
    tol: float = 0.0,
    per_pair: int = 4,
    chunk: int = 4000,
):
    """Every condition (1) evaluated for the noise ``f`` (masses on ``[-M, M]``, tails of ratio ``r``)
    by the exact table-noise sums (:func:`bdpsim.kernels.noise.table.class_laws`).

    Returns ``(excess, keys, scores)``: ``excess = max ln p1(s)/p2(s) - eps`` over every pair,
    direction (0: ``w`` over ``w'``; 1: the reverse) and output (``+inf`` where one density vanishes
    and the other does not), and the ``(pair, direction, output)`` keys of at most ``per_pair``
    worst outputs per pair and direction whose excess is ``> tol``, with their excesses, worst
    first."""
    P = pairs.W1.shape[0]
    c = pairs.atoms
    pmf = np.maximum(np.asarray(f, dtype=float), 0.0)
    excess, keys, scores = -np.inf, [], []
    for a in range(0, P, chunk):
        b = min(P, a + chunk)
        l1, l2, s0 = class_laws(pairs.W1[a:b], pairs.W2[a:b], c, -M, pmf, r)
        both = np.isneginf(l1) & np.isneginf(l2)
        with np.errstate(invalid="ignore"):
            d = l1 - l2
        for dirn, v in enumerate((d, -d)):
            v = np.where(both, -np.inf, v) - epsilon
            excess = max(excess, float(v.max()))
            k = min(per_pair, v.shape[1])
            top = np.argpartition(-v, k - 1, axis=1)[:, :k]
            tv = np.take_along_axis(v, top, axis=1)
            rr, cc = np.nonzero(tv > tol)
            keys.append(np.column_stack([a + rr, np.full(rr.size, dirn), s0 + top[rr, cc]]))
            scores.append(tv[rr, cc])
    key_arr = np.vstack(keys) if keys else np.zeros((0, 3), dtype=np.int64)
    score_arr = np.concatenate(scores) if scores else np.zeros(0)
    order = np.argsort(-score_arr, kind="stable")
    return excess, key_arr[order], score_arr[order]


def condition_row(
    w: np.ndarray, wp: np.ndarray, c: np.ndarray, s: int, M: int, r: float, epsilon: float
) -> np.ndarray:
    """Coefficients over ``f(-M..M)`` of ``sum_j w_j f(s - c_j) - e^eps sum_j w'_j f(s - c_j)`` (the
    condition (1) is ``row @ f <= 0``; tails folded onto ``f(-M)``, ``f(M)``)."""
    a = w - math.exp(epsilon) * wp
    nz = np.flatnonzero((w > 0) | (wp > 0))
    z = s - c[nz]
    k = np.clip(z, -M, M) + M
    fac = np.ones(z.size)
    if r > 0:
        fac = np.where(z < -M, r ** np.maximum(-M - z, 0).astype(float), fac)
        fac = np.where(z > M, r ** np.maximum(z - M, 0).astype(float), fac)
    else:
        fac = np.where((z < -M) | (z > M), 0.0, fac)
    row = np.zeros(2 * M + 1)
    np.add.at(row, k, a[nz] * fac)
    return row


@dataclass(frozen=True)
class LPSolution:
    """Result of :func:`solve`: masses ``f`` on ``[-M, M]`` (normalised with the tails), the LP
    objective, the worst log-ratio excess over ``epsilon`` of any condition (``<= tol``), the
    number of conditions in the final working set and of generation rounds; ``working`` the working
    set's ``(pair, direction, output)`` keys (a warm start for another ``r``)."""

    f: np.ndarray
    M: int
    tail_ratio: float
    objective: float
    excess: float
    conditions: int
    rounds: int
    working: tuple = ()


def _equalities(
    mass: np.ndarray, sigma: np.ndarray, M: int, symmetric: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Equality constraints of the scaled LP (variables ``x_k = f(k) / sigma_k``): total mass 1 and,
    when ``symmetric``, ``f(k) = f(-k)`` for ``k = 1..M``."""
    A_eq, b_eq = [mass * sigma], [1.0]
    if symmetric:
        for k in range(1, M + 1):
            e = np.zeros(2 * M + 1)
            e[M + k], e[M - k] = sigma[M + k], -sigma[M - k]
            A_eq.append(e)
            b_eq.append(0.0)
    return np.array(A_eq), np.array(b_eq)


def _narrow_start(pairs: LawPairs, M: int, max_narrow: int) -> list[tuple[int, int, int]]:
    """The default first working set of :func:`solve`: every condition ``(pair, direction, output)``
    of the pairs on at most 2 atoms (of more than ``max_narrow`` such pairs, the ``max_narrow`` whose
    two laws differ most in log-ratio)."""
    c = pairs.atoms
    # every condition of the pairs on <= 2 atoms (the DP adversary knowing all other
    # records: f(k) <= e^eps f(k + Delta) and back), so that no mass is ever exactly 0 next to mass;
    # of many such pairs (a network's one-node regions: 10^4 and more) the max_narrow most unequal
    narrow = np.flatnonzero(((pairs.W1 > 0) | (pairs.W2 > 0)).sum(axis=1) <= 2)
    if narrow.size > max_narrow:
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = np.nan_to_num(
                np.abs(np.log(pairs.W1[narrow]) - np.log(pairs.W2[narrow])), nan=0.0, posinf=np.inf
            ).max(axis=1)
        narrow = narrow[np.argsort(-gap, kind="stable")[:max_narrow]]
    return [
        (int(p), d, s)
        for p in narrow
        for d in (0, 1)
        for s in range(
            int(c[pairs.W1[p] + pairs.W2[p] > 0].min()) - M,
            int(c[pairs.W1[p] + pairs.W2[p] > 0].max()) + M + 1,
        )
    ]


def _linprog(
    cost: np.ndarray,
    A: np.ndarray,
    A_eq: np.ndarray,
    b_eq: np.ndarray,
    feasibility: float,
    M: int,
    r: float,
    rnd: int,
):
    """One scaled LP of :func:`solve` by HiGHS (its simplex, then its interior-point method when the
    simplex gives up); raises :class:`Infeasible` when it has no solution or the solver fails."""
    from scipy.optimize import linprog  # imported when used: the CLI's parser stays light

    opts = {"primal_feasibility_tolerance": feasibility, "dual_feasibility_tolerance": 1e-10}
    res = linprog(
        cost,
        A_ub=A,
        b_ub=np.zeros(len(A)),
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=(0, None),
        method="highs",
        options=opts,
    )
    if res.status != 0:  # HiGHS' simplex gave up (numerics): its interior-point method
        res = linprog(
            cost,
            A_ub=A,
            b_ub=np.zeros(len(A)),
            A_eq=A_eq,
            b_eq=b_eq,
            bounds=(0, None),
            method="highs-ipm",
            options={"primal_feasibility_tolerance": feasibility},
        )
    if res.status == 2:
        raise Infeasible(f"no noise on [-{M}, {M}] with tails of ratio {r:.6g} meets the conditions")
    if res.status != 0:
        raise Infeasible(
            f"the LP solver failed at round {rnd} ({res.message}) with M = {M}, r = {r:.6g} "
            "(numerics: try a smaller M)"
        )
    return res


def _scales(f: np.ndarray, k_all: np.ndarray, rate: float) -> np.ndarray:
    """``sigma_k``: the pmf ``f`` on ``k_all``, floored by the decay ``e^{-rate}`` per step from its
    mode (``rate = eps/Delta``: the DP adversary's conditions allow no faster decay, so the floor is
    a lower bound of every feasible pmf up to a factor)."""
    j = int(np.argmax(f))
    floor = f[j] * np.exp(-rate * np.abs(k_all - k_all[j]))
    return np.maximum(f, floor)


def _add_violated(cand: np.ndarray, have: set, put: Callable[[tuple], bool], add: int) -> int:
    """Put the violated conditions ``cand`` (most violated first) not yet in the working set ``have``,
    at most ``add`` of those ``put`` keeps; how many it kept."""
    new = 0
    for key in map(tuple, cand.tolist()):
        if key not in have:
            new += put(key)
            if new >= add:
                break
    return new


def _live(A: np.ndarray, res, fixed: int, keys_in: list, have: set) -> np.ndarray:
    """Which conditions (rows of ``A``, keys ``keys_in``) of the solved LP ``res`` to keep: those with
    dual weight or tight at its solution, and the first ``fixed`` (the first working set); the others
    leave the working set ``have`` (re-added if violated again)."""
    slack = -(A @ res.x)
    marg = np.asarray(res.ineqlin.marginals)
    live = (np.abs(marg) > 0) | (slack <= 1e-9 * max(1.0, float(np.abs(res.x).max())))
    live[:fixed] = True
    for j in np.flatnonzero(~live):
        have.discard(keys_in[j])
    return live


def _first_pmf(f0, sigma: np.ndarray, M: int) -> np.ndarray:
    """The pmf whose violations start :func:`solve`: ``f0``, else all mass at 0 (what an LP without
    conditions gives)."""
    if f0 is None:
        f = sigma * 0.0
        f[M] = 1.0
        return f
    return np.asarray(f0, dtype=float)


def solve(
    pairs: LawPairs,
    epsilon: float,
    M: int,
    r: float,
    *,
    objective: str = "mean_abs",
    symmetric: bool = False,
    tol: float = 1e-9,
    add: int = 1000,
    keep: int = 3000,
    max_rounds: int = 300,
    feasibility: float = 1e-10,
    start=None,
    f0=None,
    progress=None,
    max_narrow: int = 16,
) -> LPSolution:
    """Minimise the objective over ``f`` on ``[-M, M]`` with tails of ratio ``r`` subject to every
    condition (1) of every pair, by constraint generation (module docstring).

    Parameters
    ----------
    pairs : LawPairs
    epsilon : float
        Target log-ratio of every condition.
    M : int
        Half-width of the free masses.
    r : float
        Tail ratio in ``(0, 1)``.
    objective : {"mean_abs", "variance"}
        ``E|Z|`` or ``E Z^2``.
    symmetric : bool
        Impose ``f(k) = f(-k)``.
    tol : float
        Stop when no condition exceeds ``epsilon`` by more than ``tol`` in log-ratio.
    add : int
        Most conditions added per round (the most violated first, at most 4 outputs per pair and
        direction).
    keep : int
        Above this many conditions, those slack at the current solution and without dual weight are
        dropped (and re-added if violated again).
    start : iterable of (pair, direction, output), optional
        A first working set (e.g. :attr:`LPSolution.working` of a solve with another ``r``); default:
        every condition of the pairs on at most 2 atoms (of more than ``max_narrow`` such pairs, the
        ``max_narrow`` whose two laws differ most in log-ratio; the others join when violated).
    f0 : array of shape (2M + 1,), optional
        A pmf close to the solution (e.g. a solution for a smaller ``M``, :func:`extend`): the first
        LP's scaling and the first conditions checked.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    cost, mass = objective_vector(M, r, objective)
    c = pairs.atoms
    k_all = np.arange(-M, M + 1, dtype=float)

    rate = epsilon / pairs.delta
    sigma = _scales(np.exp(-rate * np.abs(k_all)) if f0 is None else np.asarray(f0, dtype=float), k_all, rate)

    rows, keys_in, have = [], [], set()

    def put(key) -> bool:
        have.add(key)
        p, dirn, s = key
        w, wp = (pairs.W1[p], pairs.W2[p]) if dirn == 0 else (pairs.W2[p], pairs.W1[p])
        row = condition_row(w, wp, c, s, M, r, epsilon)
        if np.any(row != 0):
            rows.append(row)
            keys_in.append(key)
        return bool(np.any(row != 0))

    if start is None:
        start = _narrow_start(pairs, M, max_narrow)
    for key in start:
        put(tuple(key))
    fixed = len(rows)  # the first working set is never dropped
    f = _first_pmf(f0, sigma, M)
    excess, dropped = math.inf, 0
    for rnd in range(1, max_rounds + 1):
        if rnd > 1 or not rows or f0 is not None:
            excess, cand, _ = violations(pairs, f, M, r, epsilon, tol=tol)
            if excess <= tol and rnd > 1:
                break
            new = _add_violated(cand, have, put, add)
            if new == 0 and rnd > 1:  # every violated condition is in the working set: solver tolerance
                break
        A = np.array(rows) * sigma[None, :]  # variables x_k = f(k) / sigma_k, rows relative
        A /= np.abs(A).sum(axis=1, keepdims=True)
        A_eq, b_eq = _equalities(mass, sigma, M, symmetric)
        res = _linprog(cost * sigma, A, A_eq, b_eq, feasibility, M, r, rnd)
        f = np.maximum(res.x, 0.0) * sigma
        f = f / float(mass @ f)
        sigma = _scales(f, k_all, rate)  # the next LP's scaling: x_k ~ 1 near the current solution
        if len(rows) > keep:  # drop conditions that are slack and carry no dual weight (re-added if violated)
            live = _live(A, res, fixed, keys_in, have)
            rows = [rw for rw, ok in zip(rows, live, strict=True) if ok]
            keys_in = [k for k, ok in zip(keys_in, live, strict=True) if ok]
            dropped += int((~live).sum())
        if progress is not None:
            progress(rnd, len(rows), excess, float(cost @ f))
    else:
        excess = violations(pairs, f, M, r, epsilon, tol=tol)[0]
    return LPSolution(f, M, r, float(cost @ f), excess, len(rows), rnd, tuple(keys_in))


def extend(f: np.ndarray, M: int, M_new: int, r: float) -> np.ndarray:
    """Masses on ``[-M_new, M_new]`` of the noise with masses ``f`` on ``[-M, M]`` and tails of ratio
    ``r`` (the same law, ``M_new >= M``)."""
    k = np.arange(M + 1, M_new + 1) - M
    tail = r ** k.astype(float)
    return np.concatenate([f[0] * tail[::-1], f, f[-1] * tail])


def mean_abs(law) -> float:
    """``E|Z|`` of a noise law (:class:`~bdpsim.kernels.noise.laws.NoiseLaw`): its ``mean_abs``,
    which each law computes in closed form."""
    return float(law.mean_abs())
