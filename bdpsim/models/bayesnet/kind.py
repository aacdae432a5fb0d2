"""``[model] kind = "bayesnet"``: discrete Bayesian networks — chains, pedigrees, hidden Markov
models and any other DAG of conditional probability tables (Pufferfish paper §4).

Owns the network's config keys (``states``, ``parents``, ``cpt``, ``records``; or ``hmm = {...}``;
or ``bif = "path"`` via pgmpy), the number of correlated records for the general bound (records of
the largest connected component of the moral graph), the cost of sampling and of exact laws, and
the exact engine of an additive query plus noise (:mod:`bdpsim.models.bayesnet.search`): one
adversary by variable elimination over (clique, running query value), every adversary by the
separated-region search (exhaustive where the regions do not prune).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...adversary import Adversary
from ...core.errors import ConfigError, NotAvailable
from ...core.schema import Key
from ...kernels.chains.lattice import integer_lattice, lattice
from ...kernels.noise.scores import BdplScore, ProfileScore, Scored, names_of, reads_query_values
from ...queries import additive_noisy
from ..base import ModelKind, ModelSpec, SampleCost, register_model_kind
from ..common.nodes import NODE_KEYS, correlated_records  # noqa: F401  (NODE_KEYS: its former home)
from ..engines import AdversarySearch, PairScore, QueryLaws, QueryLawsEngine, SearchCost, SearchTooLarge
from ..factor_model import FactorModel
from . import search as BS
from .build import build

if TYPE_CHECKING:  # pragma: no cover
    from ..engines import WindowSearchResult


def _laws(model: FactorModel, query, adv: Adversary) -> QueryLaws:
    """The laws of ``S`` under ``(x_K, x)`` and ``(x_K, x')`` on its lattice ``n f_min + delta j``
    by variable elimination."""
    g, delta, fmin = lattice(query.per_state(model.states))
    laws = []
    for v in (adv.x, adv.x_prime):
        try:
            laws.append(model.additive_law(adv.condition(v), g))
        except ConfigError:
            raise NotAvailable(
                f"adversary i = {model.record_label(adv.i)}, |K| = {len(adv.known)}: a "
                "conditioning event has probability zero"
            ) from None
    atoms = model.n * fmin + delta * np.arange(laws[0].size, dtype=float)
    return QueryLaws(atoms, laws[0], laws[1], float(delta))


class _Row:
    """The worst adversary of a search as a table row (``adversaries.csv.gz``)."""

    def __init__(self, worst: BS.WorstAdversary, y: float) -> None:
        self.worst, self.i, self.bdpl, self.argmax = worst, worst.i, worst.bdpl, y

    def table_row(self) -> dict:
        w = self.worst
        return {
            "i": w.i,
            "known": ";".join(map(str, w.known)),
            "x_known": ";".join(map(str, w.x_known)),
            "x": str(w.x),
            "x_prime": str(w.x_prime),
        }

    def adversary(self) -> Adversary:
        return self.worst.adversary()


def _scored(model: FactorModel, query, noise, score, min_known: int, targets=None):
    """The separated-region search (:func:`~bdpsim.models.bayesnet.search.bdpl_search`) ranked by
    ``score`` (a :class:`~bdpsim.models.engines.PairScore`): its result and the worst adversary of
    each component as a row (the output where attained: ``n f_min + delta atom``). A score reading
    the query's values (:class:`~bdpsim.kernels.noise.scores.ReadsQueryValues`) gets rows on the
    values as they are (non-negative integers, step 1)."""
    if reads_query_values(score):
        g, delta, fmin = integer_lattice(query.per_state(model.states))
    else:
        g, delta, fmin = lattice(query.per_state(model.states))

    def fn(W1, W2):  # the BDPL: the noise law's grid_sup, the numbers of the region search
        return Scored.of(score(W1, W2, delta, noise), W1.shape[0]).triple()

    res = BS.bdpl_search(model, g, fn, min_known=min_known, targets=targets)
    rows = [_Row(w, model.n * fmin + delta * w.atom) for w in (res.by_component or (res.worst,))]
    return res, rows


MAX_PARTS = 100  # tasks of an all-adversary search (targets split evenly; progress per task)


def _search_plan(model: FactorModel, query) -> BS.SearchPlan:
    g, _, _ = lattice(query.per_state(model.states))
    return BS.search_plan(model, g)


class BayesNetKind(ModelKind):
    name = "bayesnet"
    doc = "discrete Bayesian network (states, parents, cpt[, records]; or hmm = {...}; or bif = 'path')"
    example = {
        "states": 2,
        "parents": [[], [0], [0], [1, 2]],
        "cpt": [
            [0.6, 0.4],
            [[0.8, 0.2], [0.3, 0.7]],
            [[0.9, 0.1], [0.25, 0.75]],
            [[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]],
        ],
    }
    keys = {
        "states": NODE_KEYS["states"],
        "parents": Key(
            "any",
            hashed=False,
            sweep=False,
            doc="each node's parents (a DAG in topological order)",
            rule="a list of lists of earlier node indices",
        ),
        "cpt": Key(
            "any",
            hashed=False,
            sweep=False,
            doc="per node, its law given its parents' states",
            rule="rows are probability vectors",
        ),
        "records": NODE_KEYS["records"],
        "names": NODE_KEYS["names"],
        "table_tolerance": Key(
            "float",
            hashed=False,
            sweep=False,
            doc="how far a table row may sum from 1 and still be renormalised",
            rule="a number in [0, 0.1)",
        ),
        "hmm": Key(
            "any",
            hashed=False,
            sweep=False,
            doc="a hidden Markov model {transition, emission, n}",
            rule="a table; exclusive with parents/cpt and bif",
        ),
        "bif": Key(
            "str",
            hashed=False,
            doc="a BIF network file (its state names usable in counted_states)",
            rule="a readable .bif path; exclusive with parents/cpt and hmm",
        ),
    }
    domain = "discrete"

    def build(self, params: dict, present: set, hints=None) -> ModelSpec:
        model = build({k: params[k] for k in self.keys if k in present})
        model.check_tractable(
            "model.bif" if "bif" in present else "model.parents"
        )  # exact conditional sampling
        return ModelSpec(
            self.name,
            model.n,
            correlated_records(model),
            fixed=model,
            owner=self,
            detail={"notes": model.notes} if model.notes else {},
        )

    def cost(self, spec: ModelSpec) -> SampleCost:
        """Per sample: the junction tree's clique tables (exact conditional sampling); per exact
        value: the planned operations of eliminating the model with a count on every record
        (:meth:`~bdpsim.models.factor_model.FactorModel.exact_cost`, both laws of an adversary)."""
        model = spec.fixed
        sample, exact, cells = model.exact_cost()
        return SampleCost(sample, exact, exact_bytes=8.0 * cells)

    def exact(self, model, mechanism) -> FactorModelEngine:
        qn = additive_noisy(mechanism)
        if qn is None:
            self.no_engine(mechanism, "exact engines: count and state sums plus noise")
        return FactorModelEngine(model, *qn)


class FactorModelEngine(QueryLawsEngine):
    """The exact engine of ``query + noise`` (an additive query on a lattice, any noise law) on a
    factor model (a Bayesian network, a Markov random field): per adversary the two query laws by
    variable elimination over (clique, running query value), then the noise law's exact sup of two
    mixtures (:class:`~bdpsim.models.engines.QueryLawsEngine`); every adversary by the
    separated-region search (:mod:`bdpsim.models.bayesnet.search`), planned up front and run in
    parts of the targets.

    Capabilities: :class:`~bdpsim.models.engines.HasSearch` (any score),
    :class:`~bdpsim.models.engines.HasNoiseLaw`, :class:`~bdpsim.models.engines.HasWindowSearch`,
    :class:`~bdpsim.models.engines.HasWindowPlan`, :class:`~bdpsim.models.engines.HasProfile`,
    :class:`~bdpsim.models.engines.HasProfileSearch`, :class:`~bdpsim.models.engines.HasQueryLaws`,
    :class:`~bdpsim.models.engines.HasSearchCost`.
    """

    method = (
        "variable elimination over (clique, running query value), then the noise law's exact sup "
        "of two mixtures; all adversaries by the separated-region search (exhaustive where the "
        "known records separate nothing, e.g. a hidden Markov model)"
    )

    def __init__(self, model: FactorModel, query, noise) -> None:
        self.model, self.query, self.noise = model, query, noise

    def query_laws(self, adversary: Adversary) -> QueryLaws:
        return _laws(self.model, self.query, adversary)

    def check_search(self, min_known: int) -> None:
        self.check_window(min_known)

    def search(
        self, score: PairScore, min_known: int = 0, top: int | None = 1, targets: Sequence[int] | None = None
    ) -> AdversarySearch:
        """Every adversary scored by the separated-region search
        (:func:`~bdpsim.models.bayesnet.search.bdpl_search`, exhaustive where the regions do not
        prune): each component's supremum and worst adversary; the worst of the first is the one
        row (``top`` is not used: the search keeps no other cell)."""
        names = names_of(score)
        res, rows = _scored(self.model, self.query, self.noise, score, min_known, targets)
        value = np.array([r.bdpl for r in rows])
        return AdversarySearch(
            names, value, tuple(rows), rows[:1], value[None, :], 0.0, res, tuple([r] for r in rows)
        )

    def window(self, min_known: int, top: int | None, targets=None) -> WindowSearchResult:
        try:
            found = self.search(BdplScore(), min_known, top, targets)
        except NotAvailable:
            if targets is None:
                raise
            # one part of a split search whose targets never take two values (a root of a state of
            # probability 0): no adversary of theirs leaks; the other parts answer for the model
            return None, [], np.zeros(0)
        return found.detail, found.rows, found.values[:, 0]

    def profile_window(self, min_known: int, epsilon: float, top: int | None) -> WindowSearchResult:
        found = self.search(ProfileScore(epsilon), min_known, top)
        return found.detail, found.rows, found.values[:, 0]

    def search_cost(self, min_known: int) -> SearchCost:
        """The region search's up-front estimate (:func:`~bdpsim.models.bayesnet.search.search_plan`,
        with no limit of time; :class:`~bdpsim.models.engines.SearchTooLarge` when it cannot be planned
        at all: too many regions and too large an exhaustive table)."""
        g, _, _ = lattice(self.query.per_state(self.model.states))
        try:
            plan = BS.search_plan(self.model, g, max_seconds=math.inf)
        except ConfigError as err:
            raise SearchTooLarge("run.adversaries", err.rule.removesuffix(". " + BS.REFUSAL_ADVICE)) from None
        return SearchCost(plan.seconds, plan.text())

    def check_window(self, min_known: int) -> None:
        """Raise :class:`~bdpsim.models.engines.SearchTooLarge` (field ``run.adversaries``) unless the
        search fits its up-front estimate (:func:`~bdpsim.models.bayesnet.search.search_plan`)."""
        try:
            _search_plan(self.model, self.query)
        except ConfigError as err:
            raise SearchTooLarge("run.adversaries", err.rule) from None

    def window_estimate(self, min_known: int) -> str:
        return _search_plan(self.model, self.query).text()

    def window_parts(self) -> list[list[int]]:
        n = self.model.n
        return [list(map(int, p)) for p in np.array_split(np.arange(n), min(n, MAX_PARTS))]


KIND = register_model_kind(BayesNetKind())
