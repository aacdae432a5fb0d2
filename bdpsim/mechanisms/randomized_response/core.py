"""Randomized response on a binary Markov chain: the mechanism's parameters and result types
(Chakrabarti et al.; paper §6.2).

Every record ``X_t in {0, 1}`` is flipped independently with probability ``rho`` and the analyst
releases the debiased count ``(Z - T rho) / (1 - 2 rho)``, ``Z`` the count of ones after flipping.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.errors import check
from ...models.markov.model import MarkovChainModel
from ...models.protocols import MarkovChain


def rr_flip_probability(t: float, epsilon: float) -> float:
    """Chakrabarti et al.'s flip probability for a lazy symmetric binary chain with switch prob. t:
    ``rho = [4 + t(t e^eps - 2) - sqrt(t^2 e^eps (4 + t(t e^eps - 4)))] / [8 + 2t(t e^eps + t - 4)]``."""
    E = math.exp(epsilon)
    num = 4 + t * (t * E - 2) - math.sqrt(t * t * E * (4 + t * (t * E - 4)))
    return num / (8 + 2 * t * (t * E + t - 4))


BRUTE_FORCE_MAX_T = 12
START = "start"
END = "end"


def flip_for_chain(P, epsilon: float) -> float:
    """Chakrabarti et al.'s ``rho`` for the lazy symmetric chain ``P = [[1-t, t], [t, 1-t]]``."""
    P = np.asarray(P, dtype=float)
    check(
        P.shape == (2, 2) and abs(P[0, 1] - P[1, 0]) < 1e-12,
        "transition",
        P.tolist(),
        "Chakrabarti et al.'s flip probability is for a symmetric binary chain [[1-t, t], [t, 1-t]]",
    )
    return rr_flip_probability(float(P[0, 1]), float(epsilon))


def debiased_count(flipped_count, T: int, rho: float):
    """The released value ``(Z - T rho)/(1 - 2 rho)``."""
    return (np.asarray(flipped_count, dtype=float) - T * rho) / (1 - 2 * rho)


def rr_noise_std(T: int, rho: float) -> float:
    """Standard deviation of the debiased count's error for a data set of ``T`` records
    (the same for every data set: ``sqrt(T rho (1 - rho)) / (1 - 2 rho)``)."""
    return math.sqrt(T * rho * (1 - rho)) / (1 - 2 * rho)


def check_rr(model: MarkovChainModel, rho: float) -> None:
    """A binary chain and a flip probability in (0, 1/2), or a one-line error."""
    chain = isinstance(model, MarkovChain)
    check(
        chain and model.states == 2,
        "model",
        model.states if chain else type(model).__name__,
        "randomized response needs a binary MarkovChainModel",
    )
    check(
        isinstance(rho, (int, float, np.floating)) and 0 < rho < 0.5,
        "rho",
        rho,
        "the flip probability must be in (0, 1/2)",
    )


@dataclass(frozen=True)
class RRAdversary:
    """The worst adversary found: target ``i`` (0-indexed), known set ``known`` with values
    ``x_known``, target values ``x`` (numerator) and ``x_prime``, output ``z`` (flipped count)."""

    i: int
    known: tuple[int, ...]
    x_known: tuple[int, ...]
    x: int
    x_prime: int
    z: int


@dataclass(frozen=True)
class RRResult:
    """Exact BDPL of randomized response with flip probability ``rho`` and its worst adversary.

    ``windows`` is the number of window classes searched (0 for the brute force);
    ``exact_evaluations`` how many needed the full ``m1`` search; ``outside_ones`` the worst ``m1``.
    """

    bdpl: float
    rho: float
    T: int
    worst: RRAdversary
    method: str
    windows: int = 0
    exact_evaluations: int = 0
    outside_ones: int | None = None
