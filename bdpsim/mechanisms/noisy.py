"""The query + noise mechanism family: ``query(D) + Z`` for any noise law of
:mod:`bdpsim.kernels.noise.laws` (Laplace, geometric, staircase, Gaussian, a table, or a law
registered by a user).

:class:`QueryNoiseMechanism` is the one implementation (sampling, DP parameter, summary cells,
adversary targets), for a ``query_function`` (:mod:`bdpsim.queries`) and a ``noise`` law.
:class:`NoisyQueryMechanism` holds both as fields; the Laplace mechanisms of :mod:`.laplace`
(``LaplaceCount``, ``ClippedSum``, ``LaplaceSum``, ``LaplaceStateSum``) are thin constructors of
the same family whose noise is ``Lap(noise_scale)``. Its DP parameter is the noise law's
``dp_epsilon(sensitivity)`` (``None`` for Gaussian noise: no pure DP). Exact engines read its
``query_function`` and ``noise`` (:class:`~bdpsim.queries.NoisyQuery`) and ask the law for its
capabilities; the black-box estimators run it as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..core.columns import Column, register_columns
from ..kernels.noise.protocols import HasStaircaseGamma, LaplaceKernel
from ..kernels.noise.traits import DEFAULT_LAW, TRAITS, one_of
from .base import NO_COLUMNS
from .protocols import HasClip

_OTHERS = tuple(t for t in TRAITS.values() if t.name != DEFAULT_LAW)  # the laws named in the columns
COLUMNS = register_columns(
    "summary",
    Column(
        "noise",
        str,
        f"noise law of the mechanism when it is not Laplace: {one_of(tuple(t.name for t in _OTHERS))}",
    ),
    Column(
        "noise_parameter",
        float,
        "its parameter: "
        + ", ".join(f"{t.amount} ({t.name})" for t in _OTHERS)
        + "; geometric epsilon per lattice step",
    ),
    Column("staircase_gamma", float, "staircase noise: the gamma in use"),
    owner="mechanism noise law",
)


def noise_cells(noise) -> dict:
    """The ``summary.csv`` cells describing the noise law: ``noise_scale = b`` for Laplace noise
    (:class:`~bdpsim.kernels.noise.protocols.LaplaceKernel`), else ``noise`` (its name),
    ``noise_parameter`` and ``staircase_gamma`` (NaN but for staircase noise)."""
    if isinstance(noise, LaplaceKernel):
        return {"noise_scale": float(noise.scale)}
    gamma = noise.g if isinstance(noise, HasStaircaseGamma) else math.nan
    return {"noise": noise.name, "noise_parameter": float(noise.parameter), "staircase_gamma": float(gamma)}


class QueryNoiseMechanism:
    """``query_function(data) + noise``, one output per data tuple (subclasses provide
    ``query_function``, ``noise`` and ``kind``)."""

    query_function: Any
    noise: Any
    kind: str
    summary_extras: ClassVar[
        tuple[str, ...]
    ] = ()  # extra summary.csv columns (bdpsim.pipeline.rows.register_columns)

    @property
    def sensitivity(self) -> float:
        return float(self.query_function.sensitivity)

    @property
    def epsilon(self) -> float | None:
        """The DP parameter ``noise.dp_epsilon(sensitivity)`` (``None``: not eps-DP for any eps)."""
        e = self.noise.dp_epsilon(self.sensitivity)
        return e if math.isfinite(e) else None

    def query(self, data: np.ndarray) -> np.ndarray:
        """The noiseless answers ``f(D)``, shape ``(N,)``."""
        return self.query_function(data)

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        q = self.query(data)
        return q + self.noise.sample(q.shape[0], rng)

    def columns(self) -> dict:
        return {**NO_COLUMNS, **noise_cells(self.noise)}

    def adversary_targets(self, targets: str) -> tuple[str, tuple[float, float] | None]:
        return targets, self.query_function.clip if isinstance(self.query_function, HasClip) else None


@dataclass(frozen=True)
class NoisyQueryMechanism(QueryNoiseMechanism):
    """``query_function(data) + noise`` for a query and a noise law given as they are.

    Parameters
    ----------
    query_function : query
        E.g. :class:`~bdpsim.queries.CountQuery` (:mod:`bdpsim.queries`).
    noise : NoiseLaw
        E.g. :class:`~bdpsim.kernels.noise.laws.GaussianNoise`.
    kind : str
        The mechanism kind it was built as (``count``, ``sum``, ``clipped_sum``).
    """

    query_function: Any
    noise: Any
    kind: str = field(default="count")
    summary_extras: ClassVar[tuple[str, ...]] = tuple(c.name for c in COLUMNS)
