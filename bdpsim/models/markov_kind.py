"""``[model] kind = "markov"``: a finite Markov chain (paper Def. 6.1; thesis Fig. 14).

Owns the chain's config keys, the Markov and Zhao bounds with their conditions (H1) every
``P > 0`` and (H2) a stationary start (paper Thm 6.2, thesis eq. 20), its cost, and its exact
engines (:mod:`bdpsim.models.markov_exact`, window reduction :mod:`bdpsim.models.markov_window`).
"""

from __future__ import annotations

import math

from .. import bounds as B
from ..errors import check
from ..kernels.chains import gamma_of, symmetric_chain, transition_matrix
from ..queries import additive_noisy
from ..schema import Key
from .base import ExactEngine, ModelKind, ModelSpec, SampleCost, register_model_kind
from .markov import MarkovChainModel
from .markov_exact import markov_engine


class MarkovKind(ModelKind):
    name = "markov"
    doc = "finite Markov chain (transition or gamma, optional initial law)"
    keys = {"n": Key("int"), "transition": Key("matrix"), "gamma": Key("float"), "initial": Key("vector")}
    domain = "discrete"

    def build(self, params: dict, present: set, hints=None) -> ModelSpec:
        """``transition`` or ``gamma`` (thesis Fig. 14 chain), optional ``initial`` (default: the
        stationary law)."""
        has_t, has_g = "transition" in present, "gamma" in present
        check(has_t != has_g, "model.transition", params["transition"], "give exactly one of transition or gamma")
        check(params["n"] is not None, "model.n", None, "is required")
        P = transition_matrix(params["transition"]) if has_t else symmetric_chain(params["gamma"])
        model = MarkovChainModel(P, params["n"], params["initial"])
        return ModelSpec(self.name, model.n, model.n, fixed=model,
                         gamma=params["gamma"] if has_g else gamma_of(P), owner=self)

    def cost(self, spec: ModelSpec) -> SampleCost:
        n, s = float(spec.n), float(spec.fixed.states)
        return SampleCost(n, n * n * s * s, exact_bytes=8 * 4 * n * n * s)

    def bounds(self, spec: ModelSpec, mechanism, epsilon: float) -> dict[str, B.Bound]:
        if not math.isfinite(epsilon):
            why = B.not_dp_reason(mechanism)
            return {"model": B.not_applicable("markov", why), "zhao": B.not_applicable("zhao", why)}
        model = spec.fixed
        if not model.is_stationary:
            return {"model": B.not_applicable("markov", "needs a stationary start (H2)"),
                    "zhao": B.not_applicable("zhao", "needs a stationary start (H2)")}
        return {"model": B.markov_bound(epsilon, model.transition), "zhao": B.zhao_bound(epsilon, model.transition)}

    def exact(self, model, mechanism) -> ExactEngine | str:
        qn = additive_noisy(mechanism)
        if qn is None:
            return super().exact(model, mechanism) + " (exact engines: count and state sums plus noise)"
        return markov_engine(model, mechanism, *qn)


KIND = register_model_kind(MarkovKind())
