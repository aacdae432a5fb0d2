"""Queries: the noiseless part ``f(D)`` of a mechanism ``f(D) + noise`` (thesis §3, paper Def. 5.6).

A query maps a batch ``(N, n)`` of data tuples to ``(N,)`` answers and knows its sensitivity.
*Additive* queries on discrete records, ``f(D) = sum_t v(X_t)`` with one value ``v`` per state
(a count of a state set, a sum of per-state values), are what the exact engines of discrete
models compute laws of: they expose :meth:`AdditiveQuery.per_state`. Models read queries;
mechanisms (:mod:`bdpsim.mechanisms`) pair a query with a noise law.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from .core.errors import check
from .kernels.noise.protocols import LaplaceKernel


class AdditiveQuery:
    """``f(D) = sum_t v(X_t)`` on records with states ``0..s-1`` (``v``: :meth:`per_state`)."""

    field = "mechanism"

    if TYPE_CHECKING:  # every subclass's attribute or property

        @property
        def sensitivity(self) -> float: ...

    def per_state(self, states: int) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def label(self) -> str:
        """How reports name the query (``count of 1``, ``sum of state values 0,1,3``)."""
        return f"sum of {type(self).__name__}"

    def check_states(self, states: int) -> None:
        """Raise :class:`~bdpsim.core.errors.ConfigError` unless the query fits ``states`` states."""
        self.per_state(states)


#: the config fields of a discrete query (:func:`discrete_query`); the CLI passes its flags instead
QUERY_FIELDS = ("mechanism.counted_states", "mechanism.state_values")


def _is_state(c: Any) -> bool:
    """Whether ``c`` is an integer state code (a bool or a float is not)."""
    return isinstance(c, (int, np.integer)) and not isinstance(c, bool)


def _shown(values: Any) -> Any:
    """``values`` as the error shows it (a list when it is one)."""
    return list(values) if isinstance(values, (list, tuple, np.ndarray)) else values


def check_counted(counted: Any, states: int, field: str = QUERY_FIELDS[0]) -> tuple[int, ...]:
    """The counted states of a count on records with states ``0..states-1``, checked by the one
    rule every path applies (``bdpsim run``, ``attack``, ``calibrate``): a non-empty list of
    distinct integer states in ``0..states-1`` that leaves at least one state out.

    Counting every state is refused: then ``f(D) = n`` for every database ``D``, the query's
    sensitivity is 0 and ``P(r | x) = P(r | x')`` for every target values ``x, x'``, so its BDPL is 0
    whatever the noise: there is nothing to measure nor to calibrate (and the count's stated
    sensitivity 1 would be wrong). A one-line :class:`~bdpsim.core.errors.ConfigError` names ``field``.
    """
    seq = isinstance(counted, (list, tuple, np.ndarray))
    cs = list(counted) if seq else []
    check(
        seq
        and len(cs) >= 1
        and all(_is_state(c) and 0 <= c < states for c in cs)
        and len(set(cs)) == len(cs),
        field,
        _shown(counted),
        f"must be a non-empty list of distinct states in 0..{states - 1}",
    )
    check(
        len(cs) < states,
        field,
        cs,
        f"counts every one of the {states} states: the count is n for every database "
        "(sensitivity 0, BDPL 0 whatever the noise); count a proper subset of the states",
    )
    return tuple(int(c) for c in cs)


def check_state_values(values: Any, states: int, field: str = QUERY_FIELDS[1]) -> tuple[float, ...]:
    """The per-state values ``v`` of a sum ``sum_t v(X_t)`` on records with states
    ``0..states-1``, checked by the one rule every path applies: ``states`` finite numbers, not
    all equal (all equal, the sum is ``n v`` for every database: sensitivity 0 and BDPL 0 whatever
    the noise, as a count of every state). A one-line
    :class:`~bdpsim.core.errors.ConfigError` names ``field``."""
    seq = isinstance(values, (list, tuple, np.ndarray))
    vs = list(values) if seq else []
    check(
        seq
        and len(vs) == states
        and all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in vs)
        and all(math.isfinite(float(v)) for v in vs),
        field,
        _shown(values),
        f"must be {states} finite numbers (one per state)",
    )
    f = tuple(float(v) for v in vs)
    check(
        max(f) > min(f),
        field,
        list(f),
        "are all equal: the sum is the same for every database "
        "(sensitivity 0, BDPL 0 whatever the noise); give two different values at least",
    )
    return f


def discrete_query(
    states: int, counted_states: Any = None, state_values: Any = None, fields: tuple[str, str] = QUERY_FIELDS
) -> CountQuery | StateSumQuery:
    """The query of ``counted_states`` (a :class:`CountQuery`, ``#{t : X_t in S}``) or
    ``state_values`` (a :class:`StateSumQuery`, ``sum_t v(X_t)``) on records with states
    ``0..states-1``; neither: the count of state 1. The one check of a discrete query
    (:func:`check_counted`, :func:`check_state_values`) shared by ``bdpsim run``'s ``[mechanism]``,
    ``bdpsim attack`` and ``bdpsim calibrate``; ``fields`` are the names the errors give
    (the config's keys, or a command's ``("--counted", "--state-values")``)."""
    check(
        counted_states is None or state_values is None,
        fields[1],
        _shown(state_values),
        f"give {fields[0]} or {fields[1]}, not both",
    )
    if state_values is not None:
        return StateSumQuery(check_state_values(state_values, states, fields[1]))
    return CountQuery(check_counted([1] if counted_states is None else counted_states, states, fields[0]))


@dataclass(frozen=True)
class CountQuery(AdditiveQuery):
    """``#{t : X_t in counted_states}``; sensitivity 1 (as long as some state is left out:
    :func:`check_counted`, applied by :meth:`per_state`)."""

    counted_states: tuple[int, ...] = (1,)
    sensitivity = 1.0

    def __post_init__(self) -> None:
        cs = self.counted_states
        check(
            isinstance(cs, (list, tuple, np.ndarray))
            and len(cs) >= 1
            and all(_is_state(c) and c >= 0 for c in cs)
            and len(set(cs)) == len(cs),
            "mechanism.counted_states",
            _shown(cs),
            "must be a non-empty list of distinct states >= 0",
        )
        object.__setattr__(self, "counted_states", tuple(int(c) for c in cs))

    def __call__(self, data: np.ndarray) -> np.ndarray:
        return np.isin(data, self.counted_states).sum(axis=1).astype(float)

    @property
    def label(self) -> str:
        return "count of " + ",".join(map(str, self.counted_states))

    def per_state(self, states: int) -> np.ndarray:
        check_counted(self.counted_states, states)
        f = np.zeros(states)
        f[list(self.counted_states)] = 1.0
        return f


@dataclass(frozen=True)
class StateSumQuery(AdditiveQuery):
    """``sum_t v(X_t)`` with ``v = state_values`` (one per state); sensitivity ``max v - min v``."""

    state_values: tuple[float, ...]

    def __post_init__(self) -> None:
        f = self.state_values
        check(
            isinstance(f, (list, tuple, np.ndarray))
            and len(f) >= 2
            and all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in f)
            and all(math.isfinite(float(v)) for v in f),
            "mechanism.state_values",
            _shown(f),
            "must be >= 2 finite numbers (one per state)",
        )
        check_state_values(f, len(f))  # not all equal
        object.__setattr__(self, "state_values", tuple(float(v) for v in f))

    @property
    def sensitivity(self) -> float:
        return max(self.state_values) - min(self.state_values)

    @property
    def label(self) -> str:
        return "sum of state values " + ",".join(f"{v:g}" for v in self.state_values)

    def __call__(self, data: np.ndarray) -> np.ndarray:
        return np.asarray(self.state_values)[np.asarray(data, dtype=np.int64)].sum(axis=1)

    def per_state(self, states: int) -> np.ndarray:
        check_state_values(self.state_values, states)
        return np.asarray(self.state_values, dtype=float)


@dataclass(frozen=True)
class ClippedSumQuery:
    """``sum_t clip(X_t, a, b)`` on real records; sensitivity ``b - a``."""

    clip: tuple[float, float] = (0.0, 10.0)

    def __post_init__(self) -> None:
        lo, hi = (float(v) for v in self.clip)
        check(
            math.isfinite(lo) and math.isfinite(hi) and lo < hi,
            "mechanism.clip",
            list(self.clip),
            "must be [low, high] with low < high",
        )
        object.__setattr__(self, "clip", (lo, hi))

    @property
    def sensitivity(self) -> float:
        return self.clip[1] - self.clip[0]

    def __call__(self, data: np.ndarray) -> np.ndarray:
        return np.clip(data, *self.clip).sum(axis=1)


@dataclass(frozen=True)
class SumQuery:
    """Unclipped ``sum_t X_t`` on real records: unbounded sensitivity (metric privacy only)."""

    sensitivity = math.inf

    def __call__(self, data: np.ndarray) -> np.ndarray:
        return data.sum(axis=1)


@runtime_checkable
class NoisyQuery(Protocol):
    """A mechanism ``query_function(D) + noise`` with a known noise law (a
    :class:`~bdpsim.kernels.noise.laws.NoiseLaw`): what exact engines need of a mechanism to compute
    its output laws exactly."""

    query_function: Any
    noise: Any


def additive_noisy(mechanism) -> tuple[AdditiveQuery, Any] | None:
    """``(query, noise law)`` when ``mechanism`` is an additive query on discrete records plus noise."""
    if isinstance(mechanism, NoisyQuery) and isinstance(mechanism.query_function, AdditiveQuery):
        return mechanism.query_function, mechanism.noise
    return None


def laplace_noisy(mechanism) -> tuple[Any, Any] | None:
    """``(query, noise law)`` when ``mechanism`` is ``query + noise`` (:class:`NoisyQuery`) with a
    Laplace-kernel noise law (:class:`~bdpsim.kernels.noise.protocols.LaplaceKernel`, its
    ``scale`` the ``b`` of ``Lap(b)``): what the mixture estimator, the exact query-law sampling and
    the Laplace bounds need (models read the law's capability, never mechanism or noise classes)."""
    if isinstance(mechanism, NoisyQuery) and isinstance(mechanism.noise, LaplaceKernel):
        return mechanism.query_function, mechanism.noise
    return None
