"""A query plus any noise law of :mod:`bdpsim.kernels.noise.laws` (``[mechanism] noise = "geometric" |
"staircase" | "gaussian"``; Laplace noise keeps the classes of :mod:`.laplace`).

``query(D) + Z`` with ``Z`` geometric (integer multiples of a step, ``P(k) ∝ e^{-eps |k|}``),
Geng & Viswanath's staircase, or ``N(0, sigma^2)``. Its DP parameter is the noise law's
``dp_epsilon(sensitivity)`` (``None`` for Gaussian noise: no pure DP). Exact engines read its
``query_function`` and ``noise`` (:class:`~bdpsim.queries.NoisyQuery`); the black-box estimators
run it as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..core.columns import Column, register_columns
from .base import NO_COLUMNS
from ..kernels.noise.protocols import HasStaircaseGamma
from .protocols import HasClip

COLUMNS = register_columns(
    "summary",
    Column("noise", str, "noise law of the mechanism when it is not Laplace: geometric, staircase or gaussian"),
    Column("noise_parameter", float, "its parameter: epsilon (geometric, staircase; per lattice step for "
                                     "geometric) or sigma (gaussian)"),
    Column("staircase_gamma", float, "staircase noise: the gamma in use"), owner="mechanism noise law")


@dataclass(frozen=True)
class NoisyQueryMechanism:
    """``query_function(data) + noise`` for a noise law other than Laplace.

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

    @property
    def sensitivity(self) -> float:
        return float(self.query_function.sensitivity)

    @property
    def epsilon(self) -> float | None:
        """The DP parameter ``noise.dp_epsilon(sensitivity)`` (``None``: not eps-DP for any eps)."""
        e = self.noise.dp_epsilon(self.sensitivity)
        return e if math.isfinite(e) else None

    def query(self, data: np.ndarray) -> np.ndarray:
        return self.query_function(data)

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        q = self.query(data)
        return q + self.noise.sample(q.shape[0], rng)

    def columns(self) -> dict:
        gamma = self.noise.g if isinstance(self.noise, HasStaircaseGamma) else math.nan
        return {**NO_COLUMNS, "noise": self.noise.name, "noise_parameter": float(self.noise.parameter),
                "staircase_gamma": float(gamma)}

    def adversary_targets(self, targets: str) -> tuple[str, tuple[float, float] | None]:
        return targets, self.query_function.clip if isinstance(self.query_function, HasClip) else None
