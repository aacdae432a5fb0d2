"""``[model] kind = "markov"``: a finite Markov chain (paper Def. 6.1; thesis Fig. 14).

Owns the chain's config keys, the Markov and Zhao bounds with their conditions (H1) every
``P > 0`` and (H2) a stationary start (paper Thm 6.2, thesis eq. 20), its cost, and its exact
engines (:mod:`bdpsim.models.markov.exact`, window reduction :mod:`bdpsim.models.markov.window`).
"""

from __future__ import annotations

import math

import numpy as np

from ... import bounds as B
from ...adversary import Adversary
from ...core.columns import Column, owned_columns
from ...core.errors import ConfigError, check, naming
from ...core.schema import Key
from ...kernels.chains.transition import gamma_of, symmetric_chain, transition_matrix
from ...queries import additive_noisy
from ..base import ModelKind, ModelSpec, SampleCost, register_model_kind
from .exact import MarkovEngine, markov_engine
from .model import MarkovChainModel
from .window import auto_window_limit

#: window adversaries: unknowns per side up to the least ``d - 1`` whose truncation bound
#: ``D_d + E_d`` (:func:`~bdpsim.models.markov.window.truncation_bound`) is at most this
WINDOW_TOLERANCE = 0.01


#: what the ``gamma`` column is (a continual release's chain too)
GAMMA_DOC = (
    "Markov chain: its transition ratio max P / min P over the transition matrix's entries (inf when "
    "one is 0; 1: independent records), the chain's correlation the Markov bound bound_model = "
    "eps + 4 ln gamma and bound_zhao read"
)


class MarkovKind(ModelKind):
    name = "markov"
    doc = "finite Markov chain (transition or gamma, optional initial law)"
    example = {"n": 4, "gamma": 3.0}
    keys = {
        "n": Key("int", doc="number of records (the chain's length)", rule="integer >= 2"),
        "transition": Key(
            "matrix",
            doc="transition matrix P (absent: gamma's 2-state chain of thesis Fig. 14)",
            rule="square, rows are probability vectors; exactly one of transition, gamma",
        ),
        "gamma": Key(
            "float",
            doc="max P / min P of the chain of thesis Fig. 14 (absent: transition)",
            rule="finite number >= 1; exactly one of transition, gamma",
        ),
        "initial": Key(
            "vector",
            doc="law of X_1 (absent: the stationary law)",
            rule="a probability vector over the chain's states",
        ),
    }
    domain = "discrete"
    summary_columns = owned_columns("epsilon", Column("gamma", float, GAMMA_DOC), rank=1)

    def build(self, params: dict, present: set, hints=None) -> ModelSpec:
        """``transition`` or ``gamma`` (thesis Fig. 14 chain), optional ``initial`` (default: the
        stationary law)."""
        has_t, has_g = "transition" in present, "gamma" in present
        check(
            has_t != has_g,
            "model.transition",
            params["transition"],
            "give exactly one of transition or gamma",
        )
        check(params["n"] is not None, "model.n", None, "is required")
        with naming("model", {"P": "model.transition"}):
            P = transition_matrix(params["transition"]) if has_t else symmetric_chain(params["gamma"])
        model = MarkovChainModel(P, params["n"], params["initial"])
        return ModelSpec(
            self.name,
            model.n,
            model.n,
            fixed=model,
            detail={"gamma": params["gamma"] if has_g else gamma_of(P)},
            owner=self,
        )

    def summary_cells(self, spec: ModelSpec) -> dict:
        """``gamma``: the chain's ``max P / min P`` (given, or of its transition matrix)."""
        return {"gamma": spec.detail["gamma"]}

    def cost(self, spec: ModelSpec) -> SampleCost:
        n, s = float(spec.n), float(spec.fixed.states)
        return SampleCost(n, n * n * s * s, exact_bytes=8 * 4 * n * n * s)

    def bounds(self, spec: ModelSpec, mechanism, epsilon: float) -> dict[str, B.Bound]:
        if not math.isfinite(epsilon):
            why = B.not_dp_reason(mechanism)
            return {"model": B.not_applicable("markov", why), "zhao": B.not_applicable("zhao", why)}
        model = spec.fixed
        if not model.is_stationary:
            return {
                "model": B.not_applicable("markov", "needs a stationary start (H2)"),
                "zhao": B.not_applicable("zhao", "needs a stationary start (H2)"),
            }
        return {
            "model": B.markov_bound(epsilon, model.transition),
            "zhao": B.zhao_bound(epsilon, model.transition),
        }

    def windows(self, spec: ModelSpec) -> str | None:
        return None

    @staticmethod
    def window_half_length(model: MarkovChainModel) -> int:
        """Largest number of unknown records per side of a window adversary: the least ``d - 1``
        with ``D_d + E_d <= WINDOW_TOLERANCE`` (the records further away change an additive query's
        BDPL by less, :mod:`bdpsim.models.markov.window`), at most ``n - 1``."""
        h = auto_window_limit(model.transition, model.n, WINDOW_TOLERANCE)
        return model.n - 1 if h is None else min(int(h), model.n - 1)

    def window_adversary(self, model, sizes, rng, *, spec=None):
        """Target ``i`` uniform, ``L`` and ``R`` unknowns on its left and right each uniform in
        ``0..window_half_length`` (cut at the chain's ends), every other record known with values
        from the chain's marginal law (as the thesis draws ``x_K``), an ordered pair of distinct
        states ``(x, x')``; redrawn until ``|K|`` is in ``sizes`` and both conditions are possible."""
        n, s, h = model.n, model.states, self.window_half_length(model)
        allowed = set(int(k) for k in sizes)
        for _ in range(1000):
            i = int(rng.integers(n))
            L, R = (int(v) for v in rng.integers(0, h + 1, size=2))
            known = tuple(j for j in range(n) if j < i - L or j > i + R)
            x, xp = (int(v) for v in rng.choice(s, size=2, replace=False))
            if len(known) not in allowed:
                continue
            x_known = tuple(int(v) for v in model.sample(1, rng)[0, list(known)])
            adv = Adversary(i, known, x_known, x, xp)
            if np.isfinite(model.log_evidence(adv.condition(x))) and np.isfinite(
                model.log_evidence(adv.condition(xp))
            ):
                return adv
        raise ConfigError(
            "run.adversary_family",
            "windows",
            f"no window adversary with |K| in known_sizes and "
            f"positive-probability conditions found (windows of up to {h} unknowns per side)",
        )

    def exact(self, model, mechanism) -> MarkovEngine:
        qn = additive_noisy(mechanism)
        if qn is None:
            self.no_engine(mechanism, "exact engines: count and state sums plus noise")
        return markov_engine(model, mechanism, *qn)


KIND = register_model_kind(MarkovKind())
