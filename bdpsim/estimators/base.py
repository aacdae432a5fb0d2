"""The estimator interface and its per-adversary result."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..adversary import Adversary


@dataclass(frozen=True)
class Estimate:
    """One adversary's BDPL estimate (``sup_s ln p(s | x_K, x) / p(s | x_K, x')``, one- or
    two-sided as the estimator says).

    ``nonpositive`` counts KDE evaluation points where a density estimate was <= 0 (those points
    are excluded, never turned into inf/nan); ``argmax`` is the output where the sup was found;
    ``se`` is the estimate's standard error where the estimator derives one (``nan``: unknown);
    ``samples`` the samples per condition it used (``0``: none, e.g. exact).
    """

    value: float
    nonpositive: int = 0
    argmax: float = math.nan
    se: float = math.nan
    samples: int = 0


class Estimator(Protocol):
    """Estimates the adversary-specific target-dependent BDPL of one adversary."""

    name: str

    @staticmethod
    def supports(model, mechanism) -> str | None:
        """``None`` if the estimator handles the (model, mechanism) pair, else the reason."""
        ...

    def estimate(self, model, mechanism, adversary: Adversary,
                 rng: np.random.Generator) -> Estimate: ...

    def reference(self, model, mechanism, adversary: Adversary) -> Estimate:
        """The exact value of the quantity :meth:`estimate` estimates (raises
        :class:`~bdpsim.errors.NotAvailable` where there is none)."""
        ...

    def null_estimate(self, model, mechanism, adversary: Adversary,
                      rng: np.random.Generator) -> Estimate:
        """The same estimate between two independent sample sets drawn under the *same*
        condition ``X_i = x`` (true value 0): the estimator's noise floor."""
        ...
