"""Randomized response as a mechanism kind (``[mechanism] kind = "randomized_response"``) with its
own exact engine on binary Markov chains (Chakrabarti et al.; paper §6.2).

Every record is flipped independently with probability ``rho`` — given as ``flip``, or by
Chakrabarti et al.'s rule for a target ``epsilon`` on a symmetric binary chain
(:func:`~bdpsim.mechanisms.randomized_response.core.flip_for_chain`) — and the debiased count
``(Z - T rho)/(1 - 2 rho)`` is released. Each record's flip is ``eps0``-DP with
``eps0 = ln((1 - rho)/rho)`` and the count is a post-processing of the flips, so the mechanism is
``eps0``-DP: that is its ``epsilon`` for the bounds. Its exact BDPL over all adversaries is the
window search of :mod:`bdpsim.mechanisms.randomized_response.window` (brute force,
:mod:`bdpsim.mechanisms.randomized_response.direct`, where the chain has zeros).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar, cast

import numpy as np

from ...adversary import Adversary, Estimate
from ...core.errors import NotAvailable, check
from ...core.schema import Key
from ...models.engines import AdversaryRow, AdversarySearch
from ...models.markov.model import MarkovChainModel
from ...models.pairs import FinitePair
from ...models.protocols import MarkovChain
from ..base import NO_COLUMNS, MechanismKind, register_mechanism_kind
from .core import RRResult, check_rr, debiased_count, flip_for_chain
from .direct import rr_bdpl_bruteforce
from .profiles import check_search as check_profile_search
from .profiles import rr_profiles
from .window import rr_adversary_bdpl, rr_bdpl, rr_laws


def randomized_response_bdpl(model: MarkovChainModel, rho: float) -> RRResult:
    """Exact BDPL over all adversaries of randomized response (debiased count) on a binary chain.

    Parameters
    ----------
    model : MarkovChainModel
        A binary chain.
    rho : float
        Flip probability in (0, 1/2) (e.g.
        :func:`~bdpsim.mechanisms.randomized_response.core.flip_for_chain`).

    Returns
    -------
    RRResult
        The BDPL and a worst adversary: by the window search when ``P > 0`` and the start law is
        positive, else by brute force (``T <= 12``).
    """
    check_rr(model, rho)
    if model.transition.min() > 0 and model.initial.min() > 0:
        return rr_bdpl(model, rho)
    return rr_bdpl_bruteforce(model, rho)


@dataclass(frozen=True)
class RandomizedResponse:
    """Flip every record of a binary data tuple with probability ``flip``; release the debiased
    count of ones ``(Z - n rho)/(1 - 2 rho)``."""

    flip: float
    kind: str = field(default="randomized_response", init=False)

    def __post_init__(self) -> None:
        check(
            isinstance(self.flip, (int, float)) and not isinstance(self.flip, bool) and 0 < self.flip < 0.5,
            "mechanism.flip",
            self.flip,
            "the flip probability must be in (0, 1/2)",
        )

    @property
    def epsilon(self) -> float:
        """``ln((1 - rho)/rho)``: each record's flip is that DP, the count post-processes them."""
        return math.log((1 - self.flip) / self.flip)

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        flips = rng.random(data.shape) < self.flip
        z = np.where(flips, 1 - data, data).sum(axis=1)
        return debiased_count(z, data.shape[1], self.flip)

    summary_extras: ClassVar[
        tuple[str, ...]
    ] = ()  # extra summary.csv columns (bdpsim.pipeline.rows.register_columns)

    def columns(self) -> dict:
        return dict(NO_COLUMNS)

    def adversary_targets(self, targets: str):
        return targets, None

    def exact(self, model) -> RandomizedResponseEngine:
        """The mechanism's own exact engine on a binary Markov chain (the output law is that of the
        flipped count ``Z``: the debiasing is a bijection); raises
        :class:`~bdpsim.core.errors.NotAvailable` on other models."""
        if not (isinstance(model, MarkovChain) and model.states == 2):
            raise NotAvailable("randomized response has an exact BDPL on binary Markov chains only")
        return RandomizedResponseEngine(cast(MarkovChainModel, model), self.flip)


class RandomizedResponseEngine:
    """The exact engine of randomized response on a binary Markov chain: the forward recursion over
    (position, state, flipped count) (:func:`~bdpsim.mechanisms.randomized_response.window.rr_adversary_bdpl`,
    the one-sided value; the two-sided one is the larger of both orders of the pair); an
    adversary's two output laws (the flipped count's, :func:`~.window.rr_laws`) and the privacy
    profile over every adversary (:func:`~.profiles.rr_profiles`; capabilities
    :class:`~bdpsim.models.engines.HasOutputPair`, :class:`~bdpsim.models.engines.HasProfiles`)."""

    method = (
        "forward recursion over (position, state, flipped count); all adversaries by "
        "the window search with the outside ones as one more parameter"
    )
    incomplete: str | None = None

    def __init__(self, chain: MarkovChainModel, flip: float) -> None:
        self.chain, self.flip = chain, flip  # the rr_* functions read only transition, initial and n

    def bdpl(self, adversary: Adversary) -> Estimate:
        adv = adversary
        fwd = rr_adversary_bdpl(self.chain, self.flip, adv)
        bwd = rr_adversary_bdpl(
            self.chain, self.flip, Adversary(adv.i, adv.known, adv.x_known, adv.x_prime, adv.x)
        )
        return Estimate(max(fwd, bwd))

    def one_sided(self, adversary: Adversary) -> Estimate:
        return Estimate(rr_adversary_bdpl(self.chain, self.flip, adversary))

    def output_pair(self, adversary: Adversary) -> FinitePair:
        """The flipped count's laws given ``(x_K, x)`` and ``(x_K, x')`` on ``0..n``."""
        return FinitePair(*rr_laws(self.chain, self.flip, adversary))

    def check_profiles(self, min_known: int) -> None:
        check_profile_search(self.chain, self.flip)

    def profiles(
        self, epsilons: Sequence[float], min_known: int = 0, top: int | None = 1, bdpl: bool = False
    ) -> AdversarySearch:
        """The privacy profile at each of ``epsilons`` over every adversary
        (:func:`~.profiles.rr_profiles`), then with ``bdpl`` the BDPL over every adversary
        (:func:`randomized_response_bdpl`; every known-set size: ``min_known`` 0 only)."""
        found = rr_profiles(self.chain, self.flip, epsilons, min_known, top)
        if not bdpl:
            return found
        if min_known:
            raise NotAvailable(
                "randomized response's BDPL over every adversary: every known set only (min_known = 0)"
            )
        res = randomized_response_bdpl(self.chain, self.flip)
        w = res.worst
        row = AdversaryRow(Adversary(w.i, w.known, w.x_known, w.x, w.x_prime), float(res.bdpl))
        return replace(
            found,
            names=(*found.names, "bdpl"),
            value=np.append(found.value, res.bdpl),
            worst=(*found.worst, row),
            values=np.append(found.values, [[res.bdpl]], axis=1),
            leaders=(*found.leaders, [row]),
        )


class RandomizedResponseKind(MechanismKind):
    name = "randomized_response"
    example = {
        "model": {"kind": "markov", "n": 4, "transition": [[0.8, 0.2], [0.2, 0.8]]},
        "mechanism": {"flip": 0.2},
    }
    doc = (
        "flip each binary record with probability flip (or Chakrabarti et al.'s flip for epsilon on a "
        "symmetric chain), release the debiased count"
    )
    keys = {
        "flip": Key(
            "float",
            hashed=False,
            doc="the probability a record is flipped",
            rule="in (0, 1/2]; exactly one of flip, epsilon",
        ),
        "epsilon": Key(
            "float", doc="the DP parameter (flip = 1/(1+e^eps))", rule="> 0; exactly one of flip, epsilon"
        ),
    }
    domain = "discrete"

    def build(self, params: dict, spec) -> RandomizedResponse:
        check(
            isinstance(spec.fixed, MarkovChain) and spec.fixed.states == 2,
            "mechanism.kind",
            self.name,
            "randomized response needs a binary Markov chain (kind = 'markov', 2 states)",
        )
        flip, eps = params.get("flip"), params.get("epsilon")
        check((flip is None) != (eps is None), "mechanism.flip", flip, "give exactly one of flip or epsilon")
        if eps is not None:
            flip = flip_for_chain(spec.fixed.transition, eps)
        return RandomizedResponse(float(cast(float, flip)))  # one of flip, epsilon was given (checked)


register_mechanism_kind(RandomizedResponseKind())
