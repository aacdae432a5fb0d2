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
class HasDeltaTable(Protocol):
    """Both directions of the privacy profile of rows of law pairs at several ``eps`` (shape
    ``(m,)`` or ``(rows, m)``), what does not depend on ``eps`` prepared once
    (``prepare_deltas(W1, W2, delta)`` returns ``(epsilons, subset=None) -> (forward, backward)``
    for the rows or a subset of them; Laplace, geometric noise):
    :func:`bdpsim.kernels.noise.laws.grid_deltas`."""

    def prepare_deltas(self, W1, W2, delta: float): ...


__all__ += ["HasDeltaTable"]


@runtime_checkable
class LaplaceKernel(Protocol):
    """A law whose density is the Laplace kernel ``e^{-|y|/scale} / (2 scale)``: mixtures of it have
    the closed-form suprema of :mod:`bdpsim.kernels.noise.laplace_mixture` (the mixture estimator,
    the per-adversary and enumerated exact engines of a count, the bound-based calibrations)."""

    scale: float


__all__ += ["LaplaceKernel"]


@runtime_checkable
class GaussianKernel(Protocol):
    """A law whose density is the normal ``N(0, sigma^2)``: a shift of it between two hypotheses is
    a ``mu``-GDP pair with ``mu = |shift| / sigma`` (the attack's closed-form curve)."""

    sigma: float


__all__ += ["GaussianKernel"]


@runtime_checkable
class HasBdplBound(Protocol):
    """Prepared rows of law pairs (:func:`bdpsim.kernels.noise.laws.prepared_deltas`) that also give
    each pair's BDPL ``sup_y |ln p1/p2|`` (``bdpl_bound()``, from the same sides): the profile is 0
    from that eps on."""

    def bdpl_bound(self): ...


__all__ += ["HasBdplBound"]
