"""Optional capabilities of a mechanism, as runtime-checkable protocols.

Every mechanism satisfies :class:`~bdpsim.mechanisms.base.Mechanism`; what else a caller may use is
asked with ``isinstance(mechanism, HasX)`` — never a ``getattr`` probe or a concrete class — so a
mechanism from anywhere (a user module, a test) gets the same treatment by implementing it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

#: the mechanism's own exact engine on a model: declared beside the engine protocol (the models
#: layer, below this one, asks it in :func:`bdpsim.models.engines.engine_for`)
from ..models.engines import HasExactMechanism


@runtime_checkable
class HasOutputDim(Protocol):
    """Outputs of more than one value per data tuple (shape ``(N, output_dim)``)."""

    output_dim: int


@runtime_checkable
class HasFlip(Protocol):
    """Randomized response: each record flipped with probability ``flip``."""

    flip: float


@runtime_checkable
class HasClip(Protocol):
    """A query that clips each record to ``clip = (low, high)`` (real-valued targets are drawn in it)."""

    clip: tuple[float, float]


__all__ = ["HasClip", "HasExactMechanism", "HasFlip", "HasOutputDim"]


@runtime_checkable
class HasTargetEpsilon(Protocol):
    """A calibrated mechanism: the BDP epsilon its noise was chosen for."""

    target_epsilon: float


@runtime_checkable
class HasQueryFunction(Protocol):
    """A query-plus-noise mechanism: the noiseless query it adds noise to."""

    query_function: object


@runtime_checkable
class RunsUserCode(Protocol):
    """A mechanism that runs a user's function (``kind = "python"``): a worker process that dies
    under it is an error of ``mechanism.function``."""

    name: str
    func: object
    search_dir: str | None


__all__ += ["HasQueryFunction", "HasTargetEpsilon", "RunsUserCode"]


@runtime_checkable
class HasModelColumns(Protocol):
    """A mechanism whose summary cells read the model (a local release: Cao et al.'s bound of the
    chain); the run's summary asks :meth:`model_columns` instead of ``columns()``."""

    def model_columns(self, model) -> dict: ...


__all__ += ["HasModelColumns"]


@runtime_checkable
class HasEpsilonSchedule(Protocol):
    """A mechanism with one budget per step (``None``: the same ``epsilon`` at every step)."""

    epsilon_schedule: tuple[float, ...] | None


__all__ += ["HasEpsilonSchedule"]


@runtime_checkable
class ReleasesEveryRecord(Protocol):
    """A local release of every record (:class:`~bdpsim.mechanisms.local.LocalRelease`): each record
    through its own randomiser, whose likelihood matrix on ``states`` states the accountant reads."""

    @property
    def label(self) -> str: ...

    def matrix(self, states: int): ...

    def likelihoods(self, states: int): ...


__all__ += ["ReleasesEveryRecord"]
