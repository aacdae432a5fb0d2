"""Cao et al.'s temporal privacy leakage (TPL): BPL/FPL/TPL timelines, suprema, budget allocations.

A port of the MATLAB code ``yangcao888/TPL`` (Cao, Yoshikawa, Xiao, Xiong: *Quantifying
Differential Privacy under Temporal Correlations*, ICDE 2017; *... in Continuous Data Release
under Temporal Correlations*, IEEE TKDE 31(7), 2019). A person's values ``x_1..x_T`` follow a
Markov chain; step ``t`` releases ``r_t`` by an ``ε_t``-DP mechanism. The adversary knows the
chain (the backward matrix ``P_B = Pr(x_{t-1} | x_t)`` and the forward ``P_F = Pr(x_{t+1} | x_t)``)
and everyone else's data. The TKDE paper bounds the leakage about ``x_t`` by the recursion

.. math::

    \\mathrm{BPL}_1 = ε_1,\\quad \\mathrm{BPL}_t = L_B(\\mathrm{BPL}_{t-1}) + ε_t; \\qquad
    \\mathrm{FPL}_T = ε_T,\\quad \\mathrm{FPL}_t = L_F(\\mathrm{FPL}_{t+1}) + ε_t; \\qquad
    \\mathrm{TPL}_t = \\mathrm{BPL}_t + \\mathrm{FPL}_t - ε_t,

with ``L`` the linear-fractional program of :mod:`bdpsim.temporal.lfp`. The recursion relaxes the
set of reachable likelihood vectors, so it is an upper bound of the exact leakage (tight on
2-state chains that keep the order of the states, P(0→0) ≥ P(1→0); above it on others and on most
chains of 3 or more states); ``bdpsim.temporal_leakage`` computes the exact value.

What the port adds to the MATLAB code, and where it differs:

- **Backward matrices.** The MATLAB functions take ``TM_B`` as an input, independent of ``TM_F``
  (``testPlotBudgetAlloc.m`` draws the two at random); nothing in the code derives one from the
  other. Here, unless ``backward`` is given, it is derived from the forward chain by Bayes with
  the marginal at each step: ``Pr(x_{t-1} = i | x_t = j) = π_{t-1}(i) P[i, j] / π_t(j)``, with
  ``π_1 = initial`` and ``π_{t+1} = π_t P``; without ``initial`` the chain starts in its stationary
  law, so every backward matrix is the time reversal ``π(i) P[i, j] / π(j)``.
- **Time-varying chains.** The MATLAB code has one ``TM_B`` and one ``TM_F`` for all t; here
  ``transition`` (and ``backward``) may also hold one matrix per step, shape ``(T - 1, k, k)``
  (entry ``t - 1`` links steps ``t`` and ``t + 1``); the recursion is the same, step by step.
- ``allocEspByQuantify.m`` and ``allocEspByUpperBound.m`` were deleted from the repository in
  its commit ``5cfd9e0`` (still called by ``testPlotBudgetAlloc.m``); they are ported from the
  first commit ``b375bc0``. Their bisections stop at ``|error| < 10 eps`` and otherwise loop
  forever; here also after :data:`MAX_BISECTIONS` halvings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal, NamedTuple, cast

import numpy as np

from bdpsim.core.errors import ConfigError
from bdpsim.kernels.chains.transition import stationary_distribution
from bdpsim.kernels.roots import MAX_STEPS, monotone_root
from bdpsim.temporal.lfp import (
    LFunction,
    Precomputed,
    check_transition,
    incremental_leakage,
    incremental_leakage_lp,
    l_function,
    l_function_value,
    precompute,
    precomputed_value,
    supremum,
)

#: the ways to evaluate L(α): TKDE Theorem 4 (``calcPLbyThm.m``), the pre-computed transition
#: points (``calcPLbyPreComp.m``), one LP per pair (``calcPLbyLP.m``), or the piecewise L
#: function (``genLFunc.m`` + ``calcPLbyFunc.m``, as ``tools/plotTPL.m`` and the allocations do)
Method = Literal["theorem4", "precomp", "lp", "lfunc"]
METHODS: tuple[str, ...] = ("theorem4", "precomp", "lp", "lfunc")

#: the bisections' stopping rule of the MATLAB code (``abs(err) < eps*10``) and a cap on halvings
BISECTION_TOLERANCE = 10 * np.finfo(float).eps
MAX_BISECTIONS = MAX_STEPS


#: most steps of a timeline: the recursion evaluates one L(alpha) per step and direction in Python
#: (about 1e-4 s each), so 10^6 steps take minutes; more are refused before any list is built
MAX_TIMELINE_STEPS = 10**6


def _check_steps(steps: object) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ConfigError("steps", steps, "must be an integer >= 1")
    if steps > MAX_TIMELINE_STEPS:
        raise ConfigError(
            "steps",
            int(steps),
            f"Cao et al.'s recursion evaluates L(alpha) at every step (about 1e-4 s each): at most "
            f"{MAX_TIMELINE_STEPS:.0e} steps",
        )
    return int(steps)


def _check_epsilon(epsilon: object, steps: int) -> np.ndarray:
    """ε as an array of length ``steps``: a number (constant) or one value per step."""
    try:
        e = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError("epsilon", epsilon, "must be a number or a list of numbers") from None
    if e.ndim == 0:
        e = np.full(steps, float(e))
    elif e.ndim != 1 or e.size != steps:
        raise ConfigError("epsilon", epsilon, f"must be one number or a list of steps = {steps} numbers")
    if not np.all(np.isfinite(e)) or np.any(e <= 0):
        raise ConfigError("epsilon", epsilon, "every value must be a finite number > 0")
    return e


def _check_positive(value: object, name: str) -> float:
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ConfigError(name, value, "must be a number > 0") from None
    if not (math.isfinite(v) and v > 0):
        raise ConfigError(name, value, "must be a finite number > 0")
    return v


def _check_chain(matrices: object, steps: int, name: str) -> np.ndarray:
    """One ``(k, k)`` matrix or one per step ``(steps - 1, k, k)``, as ``(steps - 1, k, k)``."""
    try:
        m = np.asarray(matrices, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(name, matrices, "must be a k x k matrix or a list of steps - 1 of them") from None
    if m.ndim == 2:
        one = check_transition(m, name)
        return np.broadcast_to(one, (steps - 1,) + one.shape)
    if m.ndim != 3 or m.shape[0] != steps - 1:
        raise ConfigError(
            name,
            matrices,
            f"must be one k x k matrix or steps - 1 = {steps - 1} of them (shape (steps - 1, k, k))",
        )
    for t, one in enumerate(m):
        check_transition(one, f"{name}[{t}]")
    return m


def _check_initial(initial: object, k: int) -> np.ndarray | None:
    if initial is None or (isinstance(initial, str) and initial == "stationary"):
        return None
    try:
        p = np.asarray(initial, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError("initial", initial, "must be 'stationary' or a probability vector") from None
    if p.shape != (k,) or not np.all(np.isfinite(p)) or np.any(p < 0) or abs(p.sum() - 1) > 1e-9:
        raise ConfigError(
            "initial",
            initial,
            f"must be 'stationary' or a probability vector of k = {k} entries >= 0 summing to 1",
        )
    return p


def reverse_chain(transition: np.ndarray, before: np.ndarray, name: str = "initial") -> np.ndarray:
    """The backward matrix ``Pr(x_t = i | x_{t+1} = j) = before(i) P[i, j] / after(j)`` (Bayes).

    Parameters
    ----------
    transition : ndarray, shape (k, k)
        The forward matrix ``P`` from step ``t`` to ``t + 1``.
    before : ndarray, shape (k,)
        The marginal law of ``x_t``; ``after = before @ P``.
    name : str
        Argument to blame if some state of ``x_{t+1}`` has probability 0 (its row is undefined).

    Returns
    -------
    ndarray, shape (k, k)
        Rows indexed by ``x_{t+1}``, columns by ``x_t``.
    """
    after = before @ transition
    if np.any(after <= 0):
        raise ConfigError(
            name,
            np.round(before, 6).tolist(),
            "leaves a state with probability 0 at some step, so its backward row is undefined; "
            "pass backward= explicitly",
        )
    return (before[:, None] * transition).T / after[:, None]


def backward_matrices(transition: object, steps: int, initial: object = None) -> np.ndarray:
    """The backward matrices ``P_B`` of steps ``2..T`` derived from the forward chain.

    ``B[t - 1][j, i] = Pr(x_t = i | x_{t+1} = j) = π_t(i) P_t[i, j] / π_{t+1}(j)``, with
    ``π_1 = initial`` (``None``/``"stationary"``: the stationary law of the first matrix) and
    ``π_{t+1} = π_t P_t``. The MATLAB code has no such function: it takes ``TM_B`` as given.

    Parameters
    ----------
    transition : array_like, shape (k, k) or (T - 1, k, k)
        The forward chain.
    steps : int
        ``T >= 1``.
    initial : array_like or "stationary" or None
        The law of ``x_1``.

    Returns
    -------
    ndarray, shape (T - 1, k, k)
    """
    T = _check_steps(steps)
    P = _check_chain(transition, T, "transition")
    k = P.shape[-1]
    start = _check_initial(initial, k)
    if T == 1:
        return np.empty((0, k, k))
    pi = stationary_distribution(P[0]) if start is None else start
    out = np.empty(P.shape)
    for t in range(T - 1):
        out[t] = reverse_chain(P[t], pi, "initial" if start is not None else "transition")
        pi = pi @ P[t]
    return out


@dataclass(frozen=True)
class CaoTimeline:
    """Cao et al.'s BPL, FPL and TPL at every step ``t = 1..T`` (natural log).

    Parameters
    ----------
    t : ndarray of int
        ``1..T``.
    bpl, fpl, tpl : ndarray of float
        Backward, forward and temporal privacy leakage (Cao et al.); upper bounds of the
        exact leakage.
    epsilon : ndarray of float
        The per-step budgets ``ε_t``.
    """

    t: np.ndarray
    bpl: np.ndarray
    fpl: np.ndarray
    tpl: np.ndarray
    epsilon: np.ndarray

    def __post_init__(self) -> None:
        n = np.shape(self.t)
        for name, column in self._columns().items():
            if np.shape(column) != n or len(n) != 1:
                raise ConfigError(
                    f"CaoTimeline.{name}", np.shape(column), f"must be 1-D with the shape of t, {n}"
                )

    def _columns(self) -> dict[str, np.ndarray]:
        return {"t": self.t, "bpl": self.bpl, "fpl": self.fpl, "tpl": self.tpl, "epsilon": self.epsilon}

    def as_dict(self) -> dict[str, list]:
        """The columns as lists (``t``, ``bpl``, ``fpl``, ``tpl``, ``epsilon``), for JSON."""
        return {name: column.tolist() for name, column in self._columns().items()}


def _evaluator(method: str) -> Callable[[np.ndarray, float], float]:
    """``L(matrix, α)`` by ``method`` (``precomp`` pre-computes the matrix at each call)."""
    if method == "theorem4":
        return lambda m, a: incremental_leakage(m, a).value
    if method == "lp":
        return lambda m, a: incremental_leakage_lp(m, a).value
    if method == "precomp":
        return lambda m, a: precomputed_value(a, precompute(m))[0]
    raise ConfigError("method", method, f"must be one of {', '.join(METHODS)}")


def _swap(L: Callable[[np.ndarray, float], float], m: np.ndarray, a: float) -> float:
    return L(m, a)


def _from_precomputed(pre: Precomputed, a: float) -> float:
    return precomputed_value(a, pre)[0]


def _step_functions(matrices: np.ndarray, method: str, an: float = 100.0) -> list[Callable[[float], float]]:
    """``α -> L(α)`` for each matrix of a chain; with ``precomp`` (``lfunc``) each run of equal
    consecutive matrices is pre-computed once (a time-homogeneous chain: once); ``lfunc`` builds
    L on ``[0, an]``."""
    if method not in ("precomp", "lfunc"):
        L = _evaluator(method)
        return [partial(_swap, L, m) for m in matrices]
    out: list[Callable[[float], float]] = []
    if len(matrices) == 0:
        return out
    same = np.concatenate([[False], np.all(matrices[1:] == matrices[:-1], axis=(1, 2))])
    f: Callable[[float], float] | None = None
    for m, repeat in zip(matrices, same):
        if not repeat or f is None:
            pre = precompute(m)
            f = (
                partial(_from_precomputed, pre)
                if method == "precomp"
                else partial(_from_lfunc, l_function(0.0, an, pre))
            )
        out.append(f)
    return out


def _from_lfunc(lf: LFunction, a: float) -> float:
    return l_function_value(a, lf)


def cao_leakage(
    transition: object,
    epsilon: float | Sequence[float] | np.ndarray,
    steps: int,
    initial: object = None,
    backward: object = None,
    method: Method = "precomp",
) -> CaoTimeline:
    """Cao et al.'s BPL/FPL/TPL timeline; ports the loops of ``tools/plotTPL.m``.

    .. math::

        \\mathrm{BPL}_1 = ε_1,\\ \\mathrm{BPL}_t = L_{B,t}(\\mathrm{BPL}_{t-1}) + ε_t;\\quad
        \\mathrm{FPL}_T = ε_T,\\ \\mathrm{FPL}_t = L_{F,t}(\\mathrm{FPL}_{t+1}) + ε_t;\\quad
        \\mathrm{TPL}_t = \\mathrm{BPL}_t + \\mathrm{FPL}_t - ε_t

    (docs/theory/temporal-cao.md, eq. (1)–(3)), ``L_{B,t}`` the LFP of the backward matrix between steps
    ``t - 1`` and ``t``, ``L_{F,t}`` that of the forward matrix between ``t`` and ``t + 1``.

    Parameters
    ----------
    transition : array_like, shape (k, k) or (T - 1, k, k)
        Forward chain ``Pr(x_{t+1} | x_t)``: one matrix, or one per step (not in the MATLAB
        code, which has one ``TM_F``).
    epsilon : float or sequence of float
        ``ε > 0`` at every step, or ``ε_1..ε_T``.
    steps : int
        ``T >= 1``.
    initial : array_like or "stationary" or None
        The law of ``x_1`` used to derive the backward matrices (default: stationary); ignored
        when ``backward`` is given.
    backward : array_like, shape (k, k) or (T - 1, k, k), optional
        ``Pr(x_t | x_{t+1})`` (rows ``x_{t+1}``), as the MATLAB code's ``TM_B``; default: derived
        from ``transition`` and ``initial`` by Bayes (:func:`backward_matrices`).
    method : {"precomp", "theorem4", "lp", "lfunc"}
        How to evaluate L(α): ``calcPLbyPreComp.m`` (default; pre-computed once per distinct
        matrix), ``calcPLbyThm.m``, ``calcPLbyLP.m``, or ``calcPLbyFunc.m`` on ``genLFunc(0, an)``
        with ``an = max(100, ε_1 + ... + ε_T)`` (``plotTPL.m`` uses ``an = 100``; the sum bounds
        every BPL and FPL). They agree to 1e-7 (all but the LP to 1e-12).

    Returns
    -------
    CaoTimeline
    """
    T = _check_steps(steps)
    eps = _check_epsilon(epsilon, T)
    P = _check_chain(transition, T, "transition")
    k = P.shape[-1]
    if backward is None:
        B = backward_matrices(P, T, initial)
    else:
        B = _check_chain(backward, T, "backward")
        if B.shape[-1] != k:
            raise ConfigError("backward", backward, f"must have the k = {k} states of transition")
    if method not in METHODS:
        raise ConfigError("method", method, f"must be one of {', '.join(METHODS)}")
    an = max(100.0, float(eps.sum()))
    LB, LF = _step_functions(B, method, an), _step_functions(P, method, an)
    bpl = np.empty(T)
    fpl = np.empty(T)
    bpl[0] = eps[0]
    for t in range(1, T):
        bpl[t] = LB[t - 1](bpl[t - 1]) + eps[t]
    fpl[T - 1] = eps[T - 1]
    for t in range(T - 2, -1, -1):
        fpl[t] = LF[t](fpl[t + 1]) + eps[t]
    return CaoTimeline(np.arange(1, T + 1), bpl, fpl, bpl + fpl - eps, eps)


class CaoSupremum(NamedTuple):
    """The suprema over t of BPL, FPL and TPL under a constant ε (TKDE Theorem 10).

    ``tpl = bpl + fpl - ε``: the limit of TPL_t in the middle of a long release.
    """

    bpl: float
    fpl: float
    tpl: float


def _one_matrix(matrix: object, name: str) -> np.ndarray:
    m = np.asarray(matrix, dtype=float) if not isinstance(matrix, np.ndarray) else matrix
    if m.ndim != 2:
        raise ConfigError(name, matrix, "must be one k x k matrix (a time-homogeneous chain)")
    return check_transition(m, name)


def _backward_of(P: np.ndarray, backward: object) -> np.ndarray:
    if backward is not None:
        B = _one_matrix(backward, "backward")
        if B.shape != P.shape:
            raise ConfigError("backward", backward, f"must have the shape of transition, {P.shape}")
        return B
    return reverse_chain(P, stationary_distribution(P), "transition")


def cao_supremum(transition: object, epsilon: float, backward: object = None) -> CaoSupremum:
    """The suprema of BPL, FPL and TPL under a constant budget; ``findSup.m`` on ``TM_B``, ``TM_F``.

    ``sup BPL = findSup(P_B, ε)``, ``sup FPL = findSup(P_F, ε)`` (TKDE Theorem 10,
    :func:`bdpsim.temporal.lfp.supremum`), ``sup TPL = sup BPL + sup FPL - ε``.

    Parameters
    ----------
    transition : array_like, shape (k, k)
        Forward chain (time-homogeneous).
    epsilon : float
        ``ε > 0`` at every step.
    backward : array_like, shape (k, k), optional
        Backward matrix; default the stationary time reversal of ``transition``.
    """
    P = _one_matrix(transition, "transition")
    e = _check_positive(epsilon, "epsilon")
    B = _backward_of(P, backward)
    sb = supremum(B, e).value
    sf = supremum(P, e).value
    return CaoSupremum(float(sb), float(sf), float(sb + sf - e))


def _bisect(f: Callable[[float], float], target: float, start: float, width: float) -> float:
    """The MATLAB code's bisection: ``x = start``; halve ``range`` (from ``width``) and step
    towards ``f(x) = target`` (``f`` increasing) until ``|f(x) - target| < 10 eps`` (or
    :data:`MAX_BISECTIONS` halvings): the midpoints of ``[start - width, start + width]``, whose
    ends it never evaluates (:func:`bdpsim.kernels.roots.monotone_root` with trusted ends)."""
    root = monotone_root(
        lambda x: f(x) - target,
        start - width,
        start + width,
        rtol=0.0,
        log=False,
        expand=False,
        ftol=BISECTION_TOLERANCE,
    )
    return float(cast(float, root.safe))  # trusted ends: never None


def allocate_upper_bound(alpha: float, transition: object, backward: object = None) -> float:
    """The constant ε whose supremum of TPL is α; ports ``allocEspByUpperBound.m``.

    Bisection on ε in ``(0, α)`` for ``sup BPL(ε) + sup FPL(ε) - ε = α`` (TKDE Theorem 10,
    :func:`cao_supremum`), so that ``TPL_t <= α`` at every t for any length T.

    Parameters
    ----------
    alpha : float
        The target TPL, ``α > 0``.
    transition : array_like, shape (k, k)
        Forward chain (``TM_F``).
    backward : array_like, shape (k, k), optional
        ``TM_B``; default the stationary time reversal of ``transition``.

    Returns
    -------
    float
        The per-step ε.

    Raises
    ------
    ConfigError
        If no ε > 0 reaches α (some pair of rows has disjoint supports: TPL grows without bound
        for every ε, TKDE Theorem 10).
    """
    a = _check_positive(alpha, "alpha")
    P = _one_matrix(transition, "transition")
    B = _backward_of(P, backward)
    preB, preF = precompute(B), precompute(P)

    def tpl_sup(e: float) -> float:
        if e <= 0:
            return 0.0
        return supremum(B, e, preB).value + supremum(P, e, preF).value - e

    e = _bisect(tpl_sup, a, 0.5 * a, a)
    if not (e > 0 and math.isfinite(tpl_sup(e)) and abs(tpl_sup(e) - a) <= 1e-9 * max(a, 1.0)):
        raise ConfigError(
            "transition",
            P.tolist(),
            f"no constant epsilon > 0 keeps Cao's TPL supremum at "
            f"alpha = {a:g} (it is unbounded for every epsilon)",
        )
    return float(e)


@dataclass(frozen=True)
class QuantifiedBudget:
    """Budgets ``[ε_start, ε_mid, ..., ε_mid, ε_end]`` with TPL_t = α at every t
    (``allocEspByQuantify.m``).

    Parameters
    ----------
    start, middle, end : float
        ``ε_1``, ``ε_t`` for ``1 < t < T`` and ``ε_T`` (all > 0).
    alpha : float
        The target TPL.
    """

    start: float
    middle: float
    end: float
    alpha: float

    def __post_init__(self) -> None:
        for name, v in (
            ("start", self.start),
            ("middle", self.middle),
            ("end", self.end),
            ("alpha", self.alpha),
        ):
            if not (math.isfinite(v) and v > 0):
                raise ConfigError(f"QuantifiedBudget.{name}", v, "must be a finite number > 0")

    def epsilons(self, steps: int) -> np.ndarray:
        """ε_1..ε_T for ``T = steps``: ``[start, middle, ..., middle, end]``; ``[start, end]`` at
        T = 2 (TPL = α still holds); ``[alpha]`` at T = 1 (TPL_1 = ε_1; not in the MATLAB code)."""
        T = _check_steps(steps)
        if T == 1:
            return np.array([self.alpha])
        return np.concatenate([[self.start], np.full(T - 2, self.middle), [self.end]])


def allocate_quantification(
    alpha: float, transition: object, backward: object = None, method: Method = "precomp"
) -> QuantifiedBudget:
    """Budgets that hold TPL_t at exactly α; ports ``allocEspByQuantify.m``.

    Bisection for ``a_B`` in ``(0, α)`` with ``L_F(a_F) + a_B = α`` where ``a_F = α - L_B(a_B)``;
    then ``ε_1 = a_B``, ``ε_mid = a_B + a_F - α``, ``ε_T = a_F``. BPL stays at ``a_B`` and FPL at
    ``a_F`` for ``1 < t < T``, so ``TPL_t = a_B + a_F - ε_mid = α``; ``TPL_1 = a_B + (L_F(a_F) + a_B)
    - a_B = α`` and likewise ``TPL_T = α``.

    Parameters
    ----------
    alpha : float
        The target TPL, ``α > 0``.
    transition : array_like, shape (k, k)
        Forward chain (``TM_F``).
    backward : array_like, shape (k, k), optional
        ``TM_B``; default the stationary time reversal of ``transition``.
    method : {"precomp", "theorem4", "lp", "lfunc"}
        How to evaluate L (see :func:`cao_leakage`); the MATLAB code uses ``lfunc`` on ``[0, α]``.

    Raises
    ------
    ConfigError
        If ``ε_mid`` is not > 0 (``L_B(a) = a``: rows with disjoint supports).
    """
    a = _check_positive(alpha, "alpha")
    P = _one_matrix(transition, "transition")
    B = _backward_of(P, backward)
    if method not in METHODS:
        raise ConfigError("method", method, f"must be one of {', '.join(METHODS)}")
    (LB,), (LF,) = _step_functions(B[None], method, a), _step_functions(P[None], method, a)

    def total(a_b: float) -> float:
        return LF(max(a - LB(a_b), 0.0)) + a_b

    a_b = _bisect(total, a, 0.5 * a, a)
    a_f = a - LB(a_b)
    middle = a_b + a_f - a
    if not middle > 0:
        raise ConfigError(
            "transition",
            P.tolist(),
            f"Cao's quantification allocation gives epsilon = {middle:g} "
            f"<= 0 in the middle steps at alpha = {a:g}",
        )
    return QuantifiedBudget(float(a_b), float(middle), float(a_f), float(a))


__all__ = [
    "METHODS",
    "CaoSupremum",
    "CaoTimeline",
    "QuantifiedBudget",
    "allocate_quantification",
    "allocate_upper_bound",
    "backward_matrices",
    "cao_leakage",
    "cao_supremum",
    "reverse_chain",
]
