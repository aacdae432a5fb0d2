"""The estimator interface and its per-adversary result."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..adversary import Adversary


@dataclass(frozen=True)
class Estimate:
    """One adversary's BDPL estimate ``sup_s |ln p(s | x_K, x) / p(s | x_K, x')|``.

    ``nonpositive`` counts KDE evaluation points where a density estimate was <= 0 (those points
    are excluded, never turned into inf/nan); ``argmax`` is the output where the sup was found.
    """

    value: float
    nonpositive: int = 0
    argmax: float = math.nan


class Estimator(Protocol):
    """Estimates the adversary-specific target-dependent BDPL of one adversary."""

    name: str

    @staticmethod
    def supports(model, mechanism) -> str | None:
        """``None`` if the estimator handles the (model, mechanism) pair, else the reason."""
        ...

    def estimate(self, model, mechanism, adversary: Adversary,
                 rng: np.random.Generator) -> Estimate: ...

    def null_estimate(self, model, mechanism, adversary: Adversary,
                      rng: np.random.Generator) -> Estimate:
        """The same estimate between two independent sample sets drawn under the *same*
        condition ``X_i = x`` (true value 0): the estimator's noise floor."""
        ...
