"""Rao–Blackwellised estimator for "query + Laplace" mechanisms (SCIENCE.md §5).

Sample ``N`` noiseless query values under each condition, then take the *exact* supremum over
outputs of ``|ln p1/p2|`` between the two empirical Laplace mixtures
``p_k(y) = (1/N) sum_j e^{-|y - c_kj|/b} / 2b`` (:func:`mixture_sup`): no bandwidth, no window,
tails included. The only error left is the sampling error of the empirical mixtures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import NotAvailable, check
from ..mechanisms import has_laplace_noise
from ..sampling import sample_query_counts
from .base import Estimate
from .laplace_mixture import mixture_sup


def empirical_sup(law1: tuple[np.ndarray, np.ndarray], law2: tuple[np.ndarray, np.ndarray],
                  b: float) -> Estimate:
    """Exact sup of ``|ln p1/p2|`` for two empirical Laplace mixtures given as (atoms, counts)."""
    s = mixture_sup(*law1, *law2, b)
    return Estimate(s.value, 0, s.argmax)


@dataclass(frozen=True)
class MixtureEstimator:
    """See module docstring."""

    samples: int = 100_000
    sampling: str = "auto"
    chunk: int = 65_536
    name: str = field(default="mixture", init=False)

    def __post_init__(self) -> None:
        check(self.samples >= 1, "run.samples", self.samples, "must be >= 1")

    @classmethod
    def from_settings(cls, settings) -> "MixtureEstimator":
        return cls(settings.samples, settings.sampling, settings.chunk)

    @staticmethod
    def supports(model, mechanism) -> str | None:
        return None if has_laplace_noise(mechanism) else \
            "the mixture estimator needs a 'query + Laplace' mechanism (count, clipped_sum, sum)"

    def _query(self, model, mech, cond, rng):
        return sample_query_counts(model, mech, cond, self.samples, rng, self.sampling, self.chunk)

    def estimate(self, model, mechanism, adversary, rng) -> Estimate:
        if (why := self.supports(model, mechanism)) is not None:
            raise NotAvailable(why)
        q1 = self._query(model, mechanism, adversary.condition(adversary.x), rng)
        q2 = self._query(model, mechanism, adversary.condition(adversary.x_prime), rng)
        return empirical_sup(q1, q2, mechanism.noise_scale)

    def null_estimate(self, model, mechanism, adversary, rng) -> Estimate:
        cond = adversary.condition(adversary.x)
        return empirical_sup(self._query(model, mechanism, cond, rng),
                             self._query(model, mechanism, cond, rng), mechanism.noise_scale)
