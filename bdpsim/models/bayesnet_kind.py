"""``[model] kind = "bayesnet"``: discrete Bayesian networks — chains, pedigrees, hidden Markov
models and any other DAG of conditional probability tables (issue 18; Pufferfish paper §4).

Owns the network's config keys (``states``, ``parents``, ``cpt``, ``records``; or ``hmm = {...}``;
or ``bif = "path"`` via pgmpy), the number of correlated records for the general bound (records of
the largest connected component of the moral graph), the cost of sampling and of exact laws, and
the exact engine of an additive query plus noise (:mod:`bdpsim.models.bayesnet_search`): one
adversary by variable elimination over (clique, running query value), every adversary by the
separated-region search (exhaustive where the regions do not prune).
"""

from __future__ import annotations

import numpy as np

from ..adversary import Adversary
from ..errors import ConfigError, NotAvailable
from ..kernels.lattice import lattice
from ..queries import additive_noisy
from ..schema import Key
from . import bayesnet_search as BS
from .base import ExactEngine, ModelKind, ModelSpec, SampleCost, register_model_kind
from .bayesnet import BayesNetModel
from .bayesnet_build import build
from .markov_window import pair_score
from .noisy import noisy_bdpl, noisy_profile


def correlated_records(model: BayesNetModel) -> int:
    """Records in the largest connected component of the moral graph: no record is correlated
    with more than ``m - 1`` others (the general bound's ``m``, paper Thm 4.3)."""
    adj, records = model.moral_graph(), set(model.records)
    seen: set[int] = set()
    best = 0
    for start in adj:
        if start in seen:
            continue
        comp, stack = set(), [start]
        while stack:
            v = stack.pop()
            if v in comp:
                continue
            comp.add(v)
            stack.extend(adj[v] - comp)
        seen |= comp
        best = max(best, len(comp & records))
    return max(best, 1)


def _laws(model: BayesNetModel, query, adv: Adversary):
    """``(law under x, law under x', lattice step, atoms)`` of ``S`` by variable elimination."""
    g, delta, fmin = lattice(query.per_state(model.states))
    laws = []
    for v in (adv.x, adv.x_prime):
        try:
            laws.append(model.additive_law(adv.condition(v), g))
        except ConfigError:
            raise NotAvailable(f"adversary {adv}: a conditioning event has probability zero") from None
    return laws[0][None], laws[1][None], delta, model.n * fmin + delta * np.arange(laws[0].size, dtype=float)


class _Row:
    """The worst adversary of a search as a table row (``adversaries.csv.gz``)."""

    def __init__(self, worst: BS.WorstAdversary, y: float) -> None:
        self.worst, self.i, self.bdpl, self.argmax = worst, worst.i, worst.bdpl, y

    def table_row(self) -> dict:
        w = self.worst
        return {"i": w.i, "known": ";".join(map(str, w.known)), "x_known": ";".join(map(str, w.x_known)),
                "x": str(w.x), "x_prime": str(w.x_prime)}

    def adversary(self) -> Adversary:
        return self.worst.adversary()


def _search(model: BayesNetModel, query, noise, min_known: int, profile: float | None = None):
    g, delta, fmin = lattice(query.per_state(model.states))
    res = BS.bdpl_search(model, g, pair_score(noise, delta, profile), min_known=min_known)
    y = model.n * fmin + delta * res.worst.atom
    return res, [_Row(res.worst, y)], np.array([res.bdpl])


class BayesNetKind(ModelKind):
    name = "bayesnet"
    doc = "discrete Bayesian network (states, parents, cpt[, records]; or hmm = {...}; or bif = 'path')"
    keys = {"states": Key("any", hashed=False, sweep=False), "parents": Key("any", hashed=False, sweep=False),
            "cpt": Key("any", hashed=False, sweep=False), "records": Key("any", hashed=False, sweep=False),
            "hmm": Key("any", hashed=False, sweep=False), "bif": Key("str", hashed=False)}
    domain = "discrete"

    def build(self, params: dict, present: set, hints=None) -> ModelSpec:
        model = build({k: params[k] for k in self.keys if k in present})
        return ModelSpec(self.name, model.n, correlated_records(model), fixed=model, owner=self)

    def cost(self, spec: ModelSpec) -> SampleCost:
        model = spec.fixed
        size, s = float(model.size), float(max(model.node_states))
        return SampleCost(size * s, size * s * s * spec.n)

    def exact(self, model, mechanism) -> ExactEngine | str:
        qn = additive_noisy(mechanism)
        if qn is None:
            return super().exact(model, mechanism) + " (exact engines: count and state sums plus noise)"
        query, noise = qn
        return ExactEngine(
            bdpl=lambda adv: noisy_bdpl(model, _laws, query, noise, adv),
            one_sided=lambda adv: noisy_bdpl(model, _laws, query, noise, adv, signed=True),
            profile=lambda adv, eps: noisy_profile(model, _laws, query, noise, adv, eps),
            method=("variable elimination over (clique, running query value), then the noise law's exact sup "
                    "of two mixtures; all adversaries by the separated-region search (exhaustive where the "
                    "known records separate nothing, e.g. a hidden Markov model)"),
            window=lambda min_known, top: _search(model, query, noise, min_known),
            window_profile=lambda min_known, eps: _search(model, query, noise, min_known, eps)[0].bdpl,
            profile_window=lambda min_known, eps, top: _search(model, query, noise, min_known, eps))


KIND = register_model_kind(BayesNetKind())
