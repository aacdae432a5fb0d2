"""Optional capabilities of an estimator, as runtime-checkable protocols (asked with
``isinstance(estimator, HasX)``, never a ``getattr`` probe or a concrete class)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class HasEvalPoints(Protocol):
    """An estimator evaluating densities at ``points`` points per adversary (its arrays count in
    the memory estimate; a few of them dropped is a flag, :mod:`bdpsim.pipeline.flags`)."""

    points: int


@runtime_checkable
class HasSpeed(Protocol):
    """The estimator's own ``(low, high)`` seconds per unit of work (:mod:`bdpsim.pipeline.cost`)."""

    seconds_per_unit: tuple[float, float]


@runtime_checkable
class HasRatioMode(Protocol):
    """An estimator of a one-sided (``"signed"``) or two-sided (``"symmetric"``) log-ratio."""

    ratio: str


__all__ = ["HasEvalPoints", "HasRatioMode", "HasSpeed"]


@runtime_checkable
class HasCostCulprit(Protocol):
    """An estimator whose cost another key sets (the audit: its budget): ``cost_culprit()`` gives
    ``(ratio, field, value)`` for the refusal message."""

    def cost_culprit(self) -> tuple: ...


@runtime_checkable
class HasWindowRows(Protocol):
    """An estimator that shapes the rows of an all-adversary window search (the exact estimator's
    privacy profile): ``window_rows(point, advs, values)``."""

    def window_rows(self, point, advs, values) -> list: ...


__all__ += ["HasCostCulprit", "HasWindowRows"]


@runtime_checkable
class HasAdversaryIntervals(Protocol):
    """An estimator whose rows carry a per-adversary interval ``bdpl_ci_low/high`` of the two-sided
    BDPL (the mixture): ``adversary_intervals`` is True."""

    adversary_intervals: bool


@runtime_checkable
class ComparedWithIntervals(Protocol):
    """An estimator without intervals whose estimates are checked against another point's
    per-adversary intervals (the KDE): ``outside_intervals(values, low, high)`` gives
    ``(above, below)`` counts, :func:`bdpsim.pipeline.driver.compare_kde_with_mixture`."""

    def outside_intervals(self, values, low, high) -> tuple[int, int]: ...


__all__ += ["ComparedWithIntervals", "HasAdversaryIntervals"]
