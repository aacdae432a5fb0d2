"""``[model] kind = "mrf"``: a pairwise Potts Markov random field (:class:`.model.MRFModel`).

Keys: ``states`` (default 2), exactly one of ``edges = [[i, j], ...]`` or ``graph = "karate"``
(Zachary's karate club from networkx, an optional dependency: ``pip install bdpsim[mrf]``),
``coupling`` (scalar or one per edge, default 0), ``field`` (one value per state or one row per
node), ``nodes`` (with ``edges``: isolated nodes), ``node_potentials``, ``edge_potentials``,
``records`` and ``names``. The model is checked up front: normalisable, and a junction tree small
enough for exact conditional sampling (else one line with the induced width).

Bounds, cost, adversaries and the exact engines are those of a Bayesian network
(:class:`~bdpsim.models.bayesnet.kind.BayesNetKind`), which depend only on the factor-model
interface: exact BDPL of counts and state sums plus any noise law by variable elimination, and
every adversary by the separated-region search over the graph.
"""

from __future__ import annotations

from ...core.errors import check
from ...core.schema import Key
from ..base import ModelSpec, register_model_kind
from ..bayesnet.kind import BayesNetKind  # the one sibling import: MRFKind subclasses it
from ..common.nodes import NODE_KEYS, brief, correlated_records
from .check import named_graph
from .model import MRFModel

KEYS = (
    "states",
    "edges",
    "graph",
    "nodes",
    "coupling",
    "field",
    "node_potentials",
    "edge_potentials",
    "records",
    "names",
)


def build(params: dict) -> MRFModel:
    """The model of a ``[model] kind = "mrf"`` table (keys with value ``None`` are absent)."""
    check(isinstance(params, dict), "model", brief(params), "must be a table")
    given = {k: v for k, v in params.items() if v is not None and k != "kind"}
    for k in given:
        check(
            k in KEYS, f"model.{k}", brief(given[k]), f"not a key of an mrf model (keys: {', '.join(KEYS)})"
        )
    ways = [w for w in ("edges", "graph") if w in given]
    check(
        len(ways) == 1,
        "model",
        sorted(given),
        'give exactly one of edges = [[i, j], ...] or graph = "karate"',
    )
    nodes = given.get("nodes")
    if "graph" in given:
        check(nodes is None, "model.nodes", nodes, "only with edges (a named graph has its own nodes)")
        nodes, edges = named_graph(given["graph"])
    else:
        edges = given["edges"]
    model = MRFModel(
        edges,
        given.get("states", 2),
        given.get("coupling", 0.0),
        given.get("field"),
        nodes,
        given.get("node_potentials"),
        given.get("edge_potentials"),
        given.get("records"),
        given.get("names"),
    )
    model.check_tractable("model.edges")
    model.check_normalisable()
    return model


class MRFKind(BayesNetKind):
    name = "mrf"
    doc = (
        "pairwise Potts Markov random field on a graph (states, edges or graph = 'karate', coupling, "
        "field[, node_potentials, edge_potentials, records, names])"
    )
    example = {"states": 2, "edges": [[0, 1], [1, 2], [2, 0], [2, 3]], "coupling": 0.5}
    keys = {
        "states": NODE_KEYS["states"],
        "edges": Key(
            "any",
            hashed=False,
            sweep=False,
            doc="the graph's edges [[i, j], ...]",
            rule="pairs of distinct node indices; exclusive with graph",
        ),
        "graph": Key(
            "str",
            hashed=False,
            doc="a named graph ('karate': Zachary's karate club, networkx)",
            rule="'karate'; exclusive with edges",
        ),
        "nodes": Key(
            "int",
            hashed=False,
            doc="number of nodes (with edges: counts isolated nodes)",
            rule="an integer >= the largest node index + 1",
        ),
        "coupling": Key(
            "any",
            hashed=False,
            doc="Potts coupling: weight of each edge whose ends agree",
            rule="a finite number or one per edge",
        ),
        "field": Key(
            "any",
            hashed=False,
            sweep=False,
            doc="per-state log-potential of every node",
            rule="one value per state, or one row per node",
        ),
        "node_potentials": Key(
            "any",
            hashed=False,
            sweep=False,
            doc="explicit per-node potentials",
            rule="one row of positive numbers per node",
        ),
        "edge_potentials": Key(
            "any",
            hashed=False,
            sweep=False,
            doc="explicit per-edge potential tables",
            rule="one s_i x s_j table of positive numbers per edge",
        ),
        "records": NODE_KEYS["records"],
        "names": NODE_KEYS["names"],
    }
    domain = "discrete"

    def build(self, params: dict, present: set, hints=None) -> ModelSpec:
        model = build({k: params[k] for k in self.keys if k in present})
        return ModelSpec(self.name, model.n, correlated_records(model), fixed=model, owner=self)


KIND = register_model_kind(MRFKind())
