"""Optional capabilities of a noise law (:class:`bdpsim.kernels.noise.laws.NoiseLaw`), as
runtime-checkable protocols."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class HasStaircaseGamma(Protocol):
    """A staircase law's ``gamma`` (reported in the ``staircase_gamma`` column)."""

    @property
    def g(self) -> float: ...


@runtime_checkable
class HasStep(Protocol):
    """A lattice law on ``step * Z``."""

    step: float


__all__ = ["HasStaircaseGamma", "HasStep"]


@runtime_checkable
class HasBothDeltas(Protocol):
    """Both directions of the privacy profile in one pass (Gaussian noise)."""

    def grid_delta_both(self, W1, W2, delta: float, epsilon: float): ...


__all__ += ["HasBothDeltas"]
