"""Query values on an integer lattice: ``f = f_min + delta * g`` with ``g`` integers ``0..Delta``.

Additive queries (a count of a state set, a sum of per-state values) are computed exactly by
recursions over the running sum; those need the per-state values on a common lattice with at most
:data:`MAX_LATTICE_STEPS` steps between their minimum and maximum (integers, halves,
0.1-multiples, ...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ..argcheck import ParameterError, require

MAX_LATTICE_STEPS = 1000


def query_values(
    states: int, counted_states: Sequence[int] | None = None, state_values: Sequence[float] | None = None
) -> np.ndarray:
    """Per-state query values ``f(x)``: indicator of ``counted_states`` or ``state_values``.

    With neither given, the count of state 1 (as :class:`~bdpsim.mechanisms.LaplaceCount`).
    """
    require(
        isinstance(states, (int, np.integer)) and states >= 2, "states", states, "must be an integer >= 2"
    )
    if counted_states is not None and state_values is not None:
        raise ParameterError(
            "state_values", list(state_values), "give counted_states or state_values, not both"
        )
    if state_values is not None:
        f = np.asarray(state_values, dtype=float)
        require(
            f.shape == (states,) and bool(np.all(np.isfinite(f))),
            "state_values",
            np.asarray(state_values).tolist(),
            f"must be {states} finite numbers (one per state)",
        )
        return f
    cs = [1] if counted_states is None else list(counted_states)
    ok = (
        len(cs) >= 1
        and all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c < states for c in cs)
        and len(set(cs)) == len(cs)
    )
    require(ok, "counted_states", cs, f"must be a non-empty list of distinct states in 0..{states - 1}")
    require(
        len(cs) < states,
        "counted_states",
        cs,
        f"counts every one of the {states} states: the count is n for every database "
        "(sensitivity 0, BDPL 0 whatever the noise); count a proper subset of the states",
    )
    f = np.zeros(states)
    f[cs] = 1.0
    return f


def lattice(values: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``(g, delta, f_min)`` with ``values = f_min + delta * g`` and ``g`` integers ``>= 0`` (of the
    shape of ``values``: one value per state, or an ``(n, states)`` table of per-record values)."""
    f = np.asarray(values, dtype=float)
    if f.ndim > 1:
        g, delta, fmin = lattice(f.ravel())
        return g.reshape(f.shape), delta, fmin
    d = f - f.min()
    top = float(d.max())
    if top == 0:
        return np.zeros(f.size, dtype=np.int64), 1.0, float(f.min())
    fr = [Fraction(float(v / top)).limit_denominator(MAX_LATTICE_STEPS) for v in d]
    require(
        all(abs(float(q) - v / top) <= 1e-9 for q, v in zip(fr, d)),
        "values",
        f.tolist(),
        f"must lie on a common grid f_min + delta * k with at most {MAX_LATTICE_STEPS} steps",
    )
    Q = math.lcm(*(q.denominator for q in fr))
    ints = [int(q * Q) for q in fr]
    G = math.gcd(*ints)
    g = np.array([k // G for k in ints], dtype=np.int64)
    require(
        int(g.max()) <= MAX_LATTICE_STEPS,
        "values",
        f.tolist(),
        f"needs {int(g.max())} grid steps between min and max (at most {MAX_LATTICE_STEPS})",
    )
    return g, top / int(g.max()), float(f.min())


def integer_lattice(values: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``(g, 1.0, 0.0)`` with ``g = values`` taken as they are: per-state values that are already
    non-negative integers (several queries packed into one integer per state), not moved to their
    least value nor divided by their step as :func:`lattice` does (what a score reading the sums
    themselves needs, :class:`~bdpsim.kernels.noise.scores.ReadsQueryValues`)."""
    f = np.asarray(values, dtype=float)
    require(
        bool(np.all(f >= 0) and np.all(f == np.round(f))),
        "values",
        f.tolist(),
        "must be non-negative integers (a score reading the query's values takes them as they are)",
    )
    return f.astype(np.int64), 1.0, 0.0
