"""The two output laws of an adversary, as plain data: the ONE adapter between the attack
quantities and bdpsim's exact engines.

For an additive mechanism ``M(X) = q(X) + Z`` and an adversary ``(i, K, x_K, x, x')`` the output
laws are the mixtures ``P = sum_v p_v Noise(. - v)`` with ``p_v = P(q(X) = v | X_K = x_K, X_i = x)``
(the records outside ``K ∪ {i}`` integrated out under the data law; thesis §3.1, paper §3) and
``Q`` likewise with ``x'``. The query laws come from the model's exact ``query_law`` (chains,
Bayesian networks, random fields, factor models, pedigrees: counts and sums of per-state values),
the noise law from the mechanism (:class:`bdpsim.kernels.noise.laws.NoiseLaw`). For Gaussian records
with an unclipped sum the query law given the adversary's knowledge is normal,
``N(m(x), v)`` (Schur complement), so with Gaussian noise ``N(0, sigma^2)`` the pair is a shift of
one normal law: ``mu``-GDP with ``mu = |m(x) - m(x')| / sqrt(v + sigma^2)``.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import cast

import numpy as np

from ..adversary import Adversary
from ..core.errors import NotAvailable
from ..kernels.noise.laws import NoiseLaw
from ..models.protocols import HasGaussianConditional, HasQueryLaw
from ..queries import NoisyQuery
from .tradeoff import TradeOff, gaussian_tradeoff, mixture_tradeoff


@dataclass(frozen=True)
class OutputLaws:
    """``P = sum_j w_x[j] noise(. - atoms_x[j])`` (given ``X_i = x``) and ``Q`` likewise (``x'``)."""

    atoms_x: np.ndarray
    w_x: np.ndarray
    atoms_x_prime: np.ndarray
    w_x_prime: np.ndarray
    noise: NoiseLaw

    def __post_init__(self) -> None:
        values = (self.atoms_x, self.w_x, self.atoms_x_prime, self.w_x_prime)
        for name, value in zip(("atoms_x", "w_x", "atoms_x_prime", "w_x_prime"), values):
            arr = np.asarray(value, dtype=float).ravel()
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} = {arr.tolist()[:5]}: must be finite")
            object.__setattr__(self, name, arr)
        if self.atoms_x.size != self.w_x.size or self.atoms_x_prime.size != self.w_x_prime.size:
            raise ValueError(
                f"w_x = {self.w_x.size} weights: need one per atom ({self.atoms_x.size}, "
                f"{self.atoms_x_prime.size})"
            )

    def tradeoff(self) -> TradeOff:
        return mixture_tradeoff(self.noise, self.atoms_x, self.w_x, self.atoms_x_prime, self.w_x_prime)

    def swapped(self) -> OutputLaws:
        """The same pair with the roles of ``x`` and ``x'`` exchanged."""
        return OutputLaws(self.atoms_x_prime, self.w_x_prime, self.atoms_x, self.w_x, self.noise)


@dataclass(frozen=True)
class GaussianShift:
    """``P = N(m_x, s^2)`` against ``Q = N(m_x', s^2)``: ``mu = |m_x - m_x'| / s``-GDP."""

    mean_x: float
    mean_x_prime: float
    sd: float

    @property
    def mu(self) -> float:
        return abs(self.mean_x - self.mean_x_prime) / self.sd

    def tradeoff(self) -> TradeOff:
        return gaussian_tradeoff(self.mu)

    def swapped(self) -> GaussianShift:
        return GaussianShift(self.mean_x_prime, self.mean_x, self.sd)


def _noise(mechanism) -> NoiseLaw:
    if not (isinstance(mechanism, NoisyQuery) and isinstance(mechanism.noise, NoiseLaw)):
        raise NotAvailable(
            f"mechanism {type(mechanism).__name__}: not 'query + noise' with a known noise law; "
            "give a Monte Carlo budget (samples)"
        )
    return mechanism.noise


def _gaussian_pair(model, mechanism, adv: Adversary) -> GaussianShift:
    from ..kernels.noise.protocols import GaussianKernel
    from ..queries import SumQuery

    noise = _noise(mechanism)
    if not isinstance(cast(NoisyQuery, mechanism).query_function, SumQuery) or not isinstance(
        noise, GaussianKernel
    ):
        raise NotAvailable(
            f"gaussian model with {type(mechanism.query_function).__name__} + {noise.name} noise: "
            "no exact output law (only the unclipped sum + Gaussian noise); give a Monte Carlo "
            "budget (samples)"
        )
    means = []
    var = 0.0
    for v in (adv.x, adv.x_prime):
        cond = model.conditional(adv.condition(v))
        means.append(float(np.sum(cond.known_values)) + float(np.sum(cond.mean)))
        var = float(np.sum(cond.cov)) if cond.unknown else 0.0
    return GaussianShift(means[0], means[1], math.sqrt(var + noise.sigma**2))


def output_laws(model, mechanism, adversary: Adversary) -> OutputLaws | GaussianShift:
    """The adversary's two output laws as plain data (atoms and weights of the query under ``x``
    and ``x'`` plus the noise law; a normal shift for Gaussian records).

    Raises
    ------
    NotAvailable
        When the model has no exact law of this mechanism's query, or a conditioning event has
        probability zero.
    """
    if isinstance(model, HasGaussianConditional):
        return _gaussian_pair(model, mechanism, adversary)
    noise = _noise(mechanism)
    query = cast(NoisyQuery, mechanism).query_function
    laws = [
        model.query_law(query, adversary.condition(v)) if isinstance(model, HasQueryLaw) else None
        for v in (adversary.x, adversary.x_prime)
    ]
    if any(law is None for law in laws):
        raise NotAvailable(
            f"{type(model).__name__}: no exact law of {type(query).__name__}; give a Monte "
            "Carlo budget (samples)"
        )
    (a1, w1), (a2, w2) = laws  # type: ignore[misc]
    for w in (w1, w2):
        if not (np.all(np.isfinite(w)) and abs(float(np.sum(w)) - 1.0) < 1e-9):
            raise NotAvailable(f"adversary {adversary}: a conditioning event has probability zero")
    return OutputLaws(a1, w1, a2, w2, noise)


def _both_at_zero(self, W1, W2, delta: float, epsilon: float):
    """``(delta(P||Q), delta(Q||P))`` at ``eps = 0``: both are ``TV(P, Q)``, computed once."""
    if epsilon != 0.0:
        return self.grid_delta(W1, W2, delta, epsilon), self.grid_delta(W2, W1, delta, epsilon)
    d = self.grid_delta(W1, W2, delta, 0.0)
    return d, d


def _tv_law(noise: NoiseLaw) -> NoiseLaw:
    """``noise`` whose two-sided profile at ``eps = 0`` is computed in one pass (the total variation
    is symmetric): the same law, half the work of the window search's profile at 0."""
    cls = type(noise)
    sub = _TV_LAWS.setdefault(cls, type(f"TV{cls.__name__}", (cls,), {"grid_delta_both": _both_at_zero}))
    obj = copy.copy(noise)
    object.__setattr__(obj, "__class__", sub)
    return obj


_TV_LAWS: dict[type, type] = {}


def markov_worst_tv(model, mechanism, min_known: int) -> tuple[float, Adversary] | None:
    """``max_a TV(P_a, Q_a)`` over every adversary with ``|K| >= min_known`` of "additive query +
    noise" on a Markov chain, and the adversary attaining it, by the window reduction of the
    privacy profile at ``eps = 0`` (:func:`bdpsim.models.markov.window.window_table`); ``None`` for
    other pairs (the caller uses the engine's profile search)."""
    from ..models.markov.model import MarkovChainModel
    from ..models.markov.window import window_table
    from ..models.protocols import MarkovChain
    from ..queries import AdditiveQuery

    if not (
        isinstance(model, MarkovChain)
        and isinstance(mechanism, NoisyQuery)
        and isinstance(mechanism.query_function, AdditiveQuery)
        and isinstance(mechanism.noise, NoiseLaw)
    ):
        return None
    f = mechanism.query_function.per_state(model.states)
    noise = cast(float, _tv_law(mechanism.noise))  # window_table takes a scale or any noise law
    res, advs, _ = window_table(
        cast(MarkovChainModel, model), f, noise, min_known=min_known, top=1, profile=0.0
    )
    return float(res.bdpl), advs[0].adversary()


__all__ = ["OutputLaws", "GaussianShift", "output_laws", "markov_worst_tv"]
