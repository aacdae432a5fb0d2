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

    def check_states(self, states: int) -> None:
        """Raise :class:`~bdpsim.core.errors.ConfigError` unless the query fits ``states`` states."""
        self.per_state(states)


@dataclass(frozen=True)
class CountQuery(AdditiveQuery):
    """``#{t : X_t in counted_states}``; sensitivity 1."""

    counted_states: tuple[int, ...] = (1,)
    sensitivity = 1.0

    def __post_init__(self) -> None:
        cs = tuple(int(c) for c in self.counted_states)
        check(
            len(cs) >= 1 and len(set(cs)) == len(cs) and min(cs) >= 0,
            "mechanism.counted_states",
            list(self.counted_states),
            "must be a non-empty list of distinct states >= 0",
        )
        object.__setattr__(self, "counted_states", cs)

    def __call__(self, data: np.ndarray) -> np.ndarray:
        return np.isin(data, self.counted_states).sum(axis=1).astype(float)

    def per_state(self, states: int) -> np.ndarray:
        bad = [c for c in self.counted_states if c >= states]
        check(
            not bad,
            "mechanism.counted_states",
            list(self.counted_states),
            f"states must be in 0..{states - 1}",
        )
        f = np.zeros(states)
        f[list(self.counted_states)] = 1.0
        return f


@dataclass(frozen=True)
class StateSumQuery(AdditiveQuery):
    """``sum_t v(X_t)`` with ``v = state_values`` (one per state); sensitivity ``max v - min v``."""

    state_values: tuple[float, ...]

    def __post_init__(self) -> None:
        f = tuple(float(v) for v in self.state_values)
        check(
            len(f) >= 2 and all(map(math.isfinite, f)) and max(f) > min(f),
            "mechanism.state_values",
            list(self.state_values),
            "must be >= 2 finite values per state, not all equal",
        )
        object.__setattr__(self, "state_values", f)

    @property
    def sensitivity(self) -> float:
        return max(self.state_values) - min(self.state_values)

    def __call__(self, data: np.ndarray) -> np.ndarray:
        return np.asarray(self.state_values)[np.asarray(data, dtype=np.int64)].sum(axis=1)

    def per_state(self, states: int) -> np.ndarray:
        check(
            len(self.state_values) == states,
            "mechanism.state_values",
            list(self.state_values),
            f"must have one value per state ({states})",
        )
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


@runtime_checkable
class LaplaceQuery(Protocol):
    """Deprecated (kept for one release): a mechanism with ``query_function`` and ``noise_scale``.
    Ask :func:`laplace_noisy` (the noise law's capability) instead."""

    query_function: Any
    noise_scale: float


def additive_laplace(mechanism) -> tuple[AdditiveQuery, float] | None:
    """``(query, b)`` when ``mechanism`` is an additive query on discrete records plus ``Lap(b)``
    (:func:`laplace_noisy`)."""
    qn = laplace_noisy(mechanism)
    if qn is not None and isinstance(qn[0], AdditiveQuery):
        return qn[0], float(qn[1].scale)
    return None
