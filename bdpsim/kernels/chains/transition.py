"""Pure functions of a finite Markov chain's transition matrix (paper Def. 6.1, Thm 6.2).

Validation, the Markov bound's ``gamma = max P / min P``, Zhao et al.'s ``omega``, the thesis'
Fig. 14 chain, stationary laws and transient states. Bounds, models and competing mechanisms all
read these; they import nothing of bdpsim but :mod:`bdpsim.kernels.argcheck`.
"""

from __future__ import annotations

import math

import numpy as np

from ..argcheck import require

#: the activity data's fitted chain (0.882/0.118 from inactive, 0.305/0.695 from active; paper §7.1.2)
ACTIVITY = ((0.882, 0.118), (0.305, 0.695))


def _has_non_number(value) -> bool:
    """True when a nested list holds a bool or a non-number (``true`` is not a probability)."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind not in "iuf"
    if isinstance(value, (list, tuple)):
        return any(_has_non_number(v) for v in value)
    return isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating))


def transition_matrix(P) -> np.ndarray:
    """Validate a transition matrix (square, numbers, finite, >= 0, no subnormal entry, rows
    summing to 1).

    A subnormal entry (``0 < P_xy < 2.2e-308``) is refused: ratios such as ``gamma = max P /
    min P`` overflow and the chain's bounds would be computed from ``inf``, not from its value."""
    shown = lambda M: M.tolist() if M.size < 50 else M.shape
    require(
        not _has_non_number(P),
        "P",
        P if np.size(P) < 50 else np.shape(P),
        "entries must be numbers (not booleans or strings)",
    )
    P = np.asarray(P, dtype=float)
    require(
        P.ndim == 2 and P.shape[0] == P.shape[1] and P.shape[0] >= 2,
        "P",
        shown(P),
        "must be a square matrix with >= 2 states",
    )
    require(
        bool(np.all(np.isfinite(P))) and bool(np.all(P >= 0)),
        "P",
        shown(P),
        "entries must be finite and >= 0",
    )
    tiny = np.finfo(float).tiny
    sub = np.argwhere((P > 0) & (P < tiny))
    if sub.size:
        x, y = (int(v) for v in sub[0])
        require(
            False,
            "P",
            shown(P),
            f"entry P[{x}][{y}] = {P[x, y]:.3g} is subnormal (below {tiny:.3g}): "
            "floating point cannot compute with it; use 0 or a value >= 1e-300",
        )
    rows = P.sum(axis=1)
    require(
        bool(np.all(np.abs(rows - 1) < 1e-8)),
        "P",
        shown(P),
        f"each row must sum to 1 (row sums {np.round(rows, 6).tolist()})",
    )
    return P


def communicating_classes(P) -> tuple[list[list[int]], list[bool]]:
    """The communicating classes of ``P`` (states that reach each other), in order of their
    smallest state, and whether each is closed (no transition leaves it)."""
    reach = np.asarray(P) > 0
    reach = reach | np.eye(reach.shape[0], dtype=bool)
    while True:  # reflexive transitive closure
        nxt = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if np.array_equal(nxt, reach):
            break
        reach = nxt
    both = reach & reach.T
    classes, seen = [], set()
    for x in range(reach.shape[0]):
        if x not in seen:
            c = [int(y) for y in np.flatnonzero(both[x])]
            seen |= set(c)
            classes.append(c)
    closed = [
        not bool(np.any(reach[c][:, [y for y in range(reach.shape[0]) if y not in c]])) for c in classes
    ]
    return classes, closed


def chain_structure(P) -> str | None:
    """What is unusual about the chain ``P`` in words (``None`` for an irreducible chain):
    reducible (its classes, which are closed) — the stationary law is then not unique, or puts
    mass 0 on transient states, and correlations need not reach every record."""
    classes, closed = communicating_classes(transition_matrix(P))
    if len(classes) == 1:
        return None
    text = ", ".join(
        "{" + ", ".join(map(str, c)) + "}" + ("" if k else " (transient)") for c, k in zip(classes, closed)
    )
    return f"reducible: {len(classes)} communicating classes {text}"


def gamma_of(P) -> float:
    """``gamma = max P / min P`` (inf when some entry is 0), the Markov bound's parameter
    (paper Thm 6.2).

    Parameters
    ----------
    P : array_like
        Transition matrix (rows sum to 1).

    Returns
    -------
    float
        ``max_{x,y} P_xy / min_{x,y} P_xy``.
    """
    P = transition_matrix(P)
    return math.inf if P.min() == 0 else float(P.max() / P.min())


def omega_of(P) -> float:
    """Zhao et al.'s ``omega = max_{x,y,y'} P_{y,x} / P_{y',x}`` (column-wise max/min ratio;
    thesis eq. 20).

    Parameters
    ----------
    P : array_like
        Transition matrix (rows sum to 1).

    Returns
    -------
    float
        ``omega`` (inf when some entry is 0).
    """
    P = transition_matrix(P)
    cmin, cmax = P.min(axis=0), P.max(axis=0)
    if np.any(cmin == 0):
        return math.inf
    return float(np.max(cmax / cmin))


def symmetric_chain(gamma: float) -> np.ndarray:
    """Thesis Figure 14 chain ``[[g, 1], [1, g]] / (1 + g)`` with max/min ratio ``gamma``.

    Parameters
    ----------
    gamma : float
        The ratio ``g = max P / min P`` (>= 1; 1 gives independent records).

    Returns
    -------
    numpy.ndarray
        The 2 x 2 transition matrix.
    """
    g = float(gamma)
    require(math.isfinite(g) and g >= 1, "gamma", gamma, "must be a finite number >= 1")
    return np.array([[g, 1.0], [1.0, g]]) / (1.0 + g)


def transient_states(P: np.ndarray) -> np.ndarray:
    """``True`` for the transient states of ``P``: some state reachable from them cannot reach
    them back. Every stationary law puts mass 0 on them."""
    reach = np.asarray(P) > 0
    while True:  # transitive closure (paths of length >= 1)
        nxt = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if np.array_equal(nxt, reach):
            break
        reach = nxt
    return np.any(reach & ~reach.T, axis=1)


def stationary_distribution(P: np.ndarray) -> np.ndarray:
    """Solve ``w P = w``, ``sum w = 1`` (least squares; unique for irreducible chains).

    Transient states get exactly 0 (least squares alone leaves rounding residue such as 6e-17,
    which would make an unreachable state look possible)."""
    s = P.shape[0]
    A = np.vstack([P.T - np.eye(s), np.ones((1, s))])
    b = np.zeros(s + 1)
    b[-1] = 1.0
    w, *_ = np.linalg.lstsq(A, b, rcond=None)
    w = np.clip(w, 0.0, None)
    w[transient_states(P)] = 0.0
    return w / w.sum()
