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


@runtime_checkable
class LaplaceKernel(Protocol):
    """A law whose density is the Laplace kernel ``e^{-|y|/scale} / (2 scale)``: mixtures of it have
    the closed-form suprema of :mod:`bdpsim.kernels.noise.laplace_mixture` (the mixture estimator,
    the per-adversary and enumerated exact engines of a count, the bound-based calibrations)."""

    scale: float


__all__ += ["LaplaceKernel"]
