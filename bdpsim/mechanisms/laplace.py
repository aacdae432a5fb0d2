"""Laplace mechanisms: thin constructors of the query + noise family
(:class:`~bdpsim.mechanisms.noisy.QueryNoiseMechanism`) whose noise is ``Lap(noise_scale)``
(thesis §3, paper Def. 5.6, Lemma 5.7).

Each keeps its public name, its config fields and its ``summary.csv`` cells (``noise_scale``, and
``clip_low``/``clip_high`` or ``x``/``x_prime``); ``query(data)`` maps a batch ``(N, n)`` of data
tuples to ``(N,)`` noiseless answers, ``__call__(data, rng)`` adds ``noise.sample``. The mixture
estimator and the Laplace exact engines apply to every mechanism whose noise law is a Laplace
kernel (:func:`has_laplace_noise`), whatever its class.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from ..core.errors import check
from ..kernels.noise.laws import LaplaceNoise
from ..queries import ClippedSumQuery, CountQuery, StateSumQuery, SumQuery, laplace_noisy
from .base import NO_COLUMNS, positive
from .noisy import QueryNoiseMechanism


class LaplaceMechanism(QueryNoiseMechanism):
    """``query(data) + Lap(noise_scale)``: the query + noise mechanism with Laplace noise, its scale
    given by the subclass (``noise_scale``)."""

    if TYPE_CHECKING:  # subclass fields or properties (read-only for the type checker)

        @property
        def epsilon(self) -> float | None: ...

        @property
        def noise_scale(self) -> float: ...
    else:
        epsilon = None  # a subclass field (the given eps), or None: not claimed eps-DP

    @property
    def noise(self) -> LaplaceNoise:
        """The noise law ``Lap(noise_scale)`` (:mod:`bdpsim.kernels.noise.laws`)."""
        return LaplaceNoise(self.noise_scale)

    def columns(self) -> dict:
        return {**NO_COLUMNS, "noise_scale": self.noise_scale}


def has_laplace_noise(mech: object) -> bool:
    """True when the mechanism is ``query + noise`` with a Laplace-kernel noise law
    (:class:`~bdpsim.kernels.noise.protocols.LaplaceKernel`): the mixture estimator and the
    Laplace exact engines apply."""
    return laplace_noisy(mech) is not None


@dataclass(frozen=True)
class LaplaceCount(LaplaceMechanism):
    """``#{j : X_j in counted_states} + Lap(1/eps)``; sensitivity 1 (eps-DP)."""

    epsilon: float
    counted_states: tuple[int, ...] = (1,)
    kind: str = field(default="count", init=False)

    def __post_init__(self) -> None:
        positive("mechanism.epsilon", self.epsilon)
        object.__setattr__(self, "counted_states", CountQuery(self.counted_states).counted_states)

    sensitivity = 1.0

    @property
    def query_function(self) -> CountQuery:
        return CountQuery(self.counted_states)

    @property
    def noise_scale(self) -> float:
        return 1.0 / self.epsilon


@dataclass(frozen=True)
class ClippedSum(LaplaceMechanism):
    """``sum_j clip(X_j, a, b) + Lap((b - a)/eps)``: eps-DP and (eps/(b-a))-l1-metric private."""

    epsilon: float
    clip: tuple[float, float] = (0.0, 10.0)
    kind: str = field(default="clipped_sum", init=False)

    def __post_init__(self) -> None:
        positive("mechanism.epsilon", self.epsilon)
        object.__setattr__(self, "clip", ClippedSumQuery(self.clip).clip)

    @property
    def query_function(self) -> ClippedSumQuery:
        return ClippedSumQuery(self.clip)

    @property
    def sensitivity(self) -> float:
        return self.clip[1] - self.clip[0]

    @property
    def noise_scale(self) -> float:
        return self.sensitivity / self.epsilon

    def columns(self) -> dict:
        return {**super().columns(), "clip_low": self.clip[0], "clip_high": self.clip[1]}

    def adversary_targets(self, targets: str) -> tuple[str, tuple[float, float] | None]:
        return targets, self.clip


@dataclass(frozen=True)
class LaplaceSum(LaplaceMechanism):
    """Unclipped ``sum_j X_j + Lap(beta)``: (1/beta)-l1-metric private, not DP (thesis Fig. 10).

    ``target_values`` are the fixed pair ``(x, x')`` every adversary distinguishes.
    """

    noise_scale: float
    target_values: tuple[float, float] = (0.0, 10.0)
    kind: str = field(default="sum", init=False)

    def __post_init__(self) -> None:
        positive("mechanism.noise_scale", self.noise_scale)
        tv = tuple(float(v) for v in self.target_values)
        check(
            len(tv) == 2 and tv[0] != tv[1] and all(map(math.isfinite, tv)),
            "mechanism.target_values",
            list(self.target_values),
            "must be two different finite values [x, x']",
        )
        object.__setattr__(self, "target_values", tv)

    sensitivity = math.inf
    query_function = SumQuery()

    @property
    def metric_epsilon(self) -> float:
        """The l1-metric parameter ``eps' = 1 / beta``."""
        return 1.0 / self.noise_scale

    def columns(self) -> dict:
        x, xp = self.target_values
        return {**super().columns(), "x": x, "x_prime": xp}

    def adversary_targets(self, targets: str) -> tuple[str, tuple[float, float] | None]:
        return "fixed", self.target_values


@dataclass(frozen=True)
class LaplaceStateSum(LaplaceMechanism):
    """``sum_t f(X_t) + Lap(b)`` on a model with discrete states: ``f = state_values`` per state.

    Sensitivity ``max f - min f``; ``b = sensitivity / epsilon`` (eps-DP) or a given ``noise_scale``.
    """

    state_values: tuple[float, ...]
    epsilon: float | None = None
    noise_scale: float = cast(float, None)  # None: set from epsilon in __post_init__
    kind: str = field(default="sum", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "state_values", StateSumQuery(self.state_values).state_values)
        check(
            (self.epsilon is None) != (self.noise_scale is None),
            "mechanism.epsilon",
            self.epsilon,
            "a state sum takes exactly one of epsilon (eps-DP) or noise_scale",
        )
        if self.epsilon is not None:
            object.__setattr__(
                self, "noise_scale", self.sensitivity / positive("mechanism.epsilon", self.epsilon)
            )
        else:
            positive("mechanism.noise_scale", self.noise_scale)

    @property
    def query_function(self) -> StateSumQuery:
        return StateSumQuery(self.state_values)

    @property
    def sensitivity(self) -> float:
        return max(self.state_values) - min(self.state_values)
