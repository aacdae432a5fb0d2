"""Data models of a calibration problem that are not a Markov chain: independent groups of
correlated records (paper §5.2, §6.1, §7).

The utility experiment (paper §7) calibrates Laplace noise on data whose records fall into
independent groups of at most ``m`` mutually correlated records: Galton's families (``m = 3``),
kid/mother pairs (``m = 2``), the genomic study's nuclear families. On such a model the general
bound (group privacy with groups of ``m``, paper Thm 4.3: ``tau = eps / m``) applies, and on an
equicorrelated Gaussian group the Gaussian bound (paper Cor. 5.9, §6.1:
``tau = eps / h(rho, m)``, ``h = m^2 / (4 (1/rho - m + 2)) + 1`` while ``rho (m - 2) < 1``).

A calibration method says which of these models it takes
(:meth:`bdpsim.calibration.methods.Method.supports`); a Markov chain is the model
:class:`bdpsim.models.protocols.MarkovChain` describes (every record correlated with every other:
one group of ``m = n``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..core.errors import check


@runtime_checkable
class CorrelatedGroups(Protocol):
    """``n`` records in independent groups of at most ``m`` mutually correlated records."""

    n: int
    m: int


@runtime_checkable
class EquicorrelatedGaussian(Protocol):
    """Groups of ``m`` jointly Gaussian records with pairwise correlation at most ``rho``;
    ``condition`` says whether ``rho (m - 2) < 1`` holds (the Gaussian bound's condition)."""

    n: int
    m: int
    rho: float
    condition: str


def _size(name: str, v, least: int) -> int:
    check(
        isinstance(v, int) and not isinstance(v, bool) and v >= least,
        name,
        v,
        f"must be an integer >= {least}",
    )
    return v


@dataclass(frozen=True)
class RecordGroups:
    """``n`` records in independent groups of at most ``m`` correlated records (no further
    structure known: the general bound's model)."""

    n: int
    m: int

    def __post_init__(self) -> None:
        _size("n", self.n, 1)
        _size("m", self.m, 1)


@dataclass(frozen=True)
class GaussianGroups(RecordGroups):
    """Groups of ``m`` equicorrelated Gaussian records, ``|rho|`` the largest fitted pairwise
    correlation; ``condition`` the fit's statement of ``rho (m - 2) < 1`` (or why it fails)."""

    rho: float = 0.0
    condition: str = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        check(
            isinstance(self.rho, (int, float))
            and not isinstance(self.rho, bool)
            and math.isfinite(self.rho)
            and 0 <= self.rho < 1,
            "rho",
            self.rho,
            "must be in [0, 1)",
        )


__all__ = ["CorrelatedGroups", "EquicorrelatedGaussian", "GaussianGroups", "RecordGroups"]
