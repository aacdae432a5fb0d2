"""Validation of a pairwise Markov random field's config: one-line errors naming the field.

Every check raises :class:`~bdpsim.core.errors.ConfigError` as ``field = value: rule`` (values cut
to a bounded length): ``model.edges``, ``model.coupling``, ``model.field``,
``model.node_potentials[3]``, ``model.edge_potentials[5]``, ``model.graph``.
"""

from __future__ import annotations

import math

import numpy as np

from ...core.errors import ConfigError, check
from ...core.shown import magnitude
from ...kernels.graphical.elimination import min_clique_cells
from ..common.nodes import MAX_NODES, brief
from ..factor_model import MAX_CLIQUE_CELLS

MAX_EDGES = 1_000_000
MAX_POTENTIAL_CELLS = 5e7  # node and edge tables of a field (400 MB of float64)
MAX_COUPLING = 100.0  # |coupling| and |field|: exp(100) ratios are far beyond any leakage of interest
INSTALL = "pip install bdpsim[mrf]"
GRAPHS = ("karate",)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _number(v) -> bool:
    return (
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and math.isfinite(v)
    )


def named_graph(name) -> tuple[int, list[tuple[int, int]]]:
    """``(nodes, edges)`` of a named graph: ``"karate"`` is Zachary's karate club (34 members,
    78 friendships) as networkx ships it (``networkx.karate_club_graph``)."""
    check(
        isinstance(name, str) and name in GRAPHS, "model.graph", brief(name), f"must be one of {list(GRAPHS)}"
    )
    try:
        import networkx as nx
    except ImportError:
        raise ConfigError("model.graph", name, f"the karate club graph needs networkx: {INSTALL}") from None
    g = nx.karate_club_graph()
    nodes = sorted(g.nodes())
    index = {v: k for k, v in enumerate(nodes)}
    return len(nodes), [(index[a], index[b]) for a, b in g.edges()]


def check_edges(edges, nodes) -> tuple[int, tuple[tuple[int, int], ...]]:
    """``(nodes, edges)``: pairs of distinct node indices, each undirected edge once; ``nodes``
    (optional) at least the largest index + 1 (isolated nodes allowed)."""
    check(
        isinstance(edges, (list, tuple)), "model.edges", brief(edges), "must be a list of [i, j] node pairs"
    )
    check(len(edges) <= MAX_EDGES, "model.edges", f"{len(edges)} edges", f"at most {MAX_EDGES} edges")
    out, seen = [], set()
    for k, e in enumerate(edges):
        ok = isinstance(e, (list, tuple)) and len(e) == 2 and all(_is_int(v) and v >= 0 for v in e)
        check(ok, f"model.edges[{k}]", brief(e), "must be a pair [i, j] of node indices >= 0")
        i, j = int(e[0]), int(e[1])
        check(i != j, f"model.edges[{k}]", [i, j], "an edge joins two different nodes")
        key = (min(i, j), max(i, j))
        check(key not in seen, f"model.edges[{k}]", [i, j], "each edge once (edges are undirected)")
        seen.add(key)
        out.append((i, j))
    top = 1 + max((max(e) for e in out), default=-1)
    if nodes is None:
        check(top >= 2, "model.edges", brief(edges), "needs at least one edge (or give nodes)")
        nodes = top
    check(
        _is_int(nodes) and 2 <= nodes <= MAX_NODES,
        "model.nodes",
        nodes,
        f"must be an integer in 2..{MAX_NODES}",
    )
    check(
        top <= nodes, "model.edges", brief(edges), f"node indices must be in 0..{nodes - 1} (nodes = {nodes})"
    )
    return int(nodes), tuple(out)


def check_size(cards: tuple[int, ...], edges: tuple[tuple[int, int], ...]) -> None:
    """Refuse, from counts alone, a field whose potential tables or junction tree cannot be held:
    more than :data:`MAX_POTENTIAL_CELLS` cells of node and edge tables (``sum_v s_v + sum_ij s_i
    s_j``), or a clique table over :data:`~bdpsim.models.factor_model.MAX_CLIQUE_CELLS` cells for
    every elimination order (the graph's degeneracy ``k`` bounds the induced width from below:
    at least the ``k + 1`` smallest state counts multiply). ``O(V + E)``: run before the tables are
    built and before the min-fill order, which is cubic in the degree of a dense graph."""
    cells = float(sum(cards)) + float(sum(cards[i] * cards[j] for i, j in edges))
    check(
        cells <= MAX_POTENTIAL_CELLS,
        "model.states",
        f"{len(cards)} nodes, {len(edges)} edges",
        f"the potential tables would hold {cells:.3g} cells (limit {MAX_POTENTIAL_CELLS:.3g}): fewer "
        "states or edges",
    )
    adj: dict[int, set[int]] = {v: set() for v in range(len(cards))}
    for i, j in edges:
        adj[i].add(j)
        adj[j].add(i)
    width, clique = min_clique_cells(adj, dict(enumerate(cards)))
    check(
        clique <= MAX_CLIQUE_CELLS,
        "model.edges",
        f"{len(cards)} nodes, induced width at least {width}",
        f"infeasible: exact conditional sampling needs a junction tree with a clique table of at least "
        f"{magnitude(clique)} cells (limit {MAX_CLIQUE_CELLS:.3g}; the cost is O(N s^(w+1)) for treewidth w)",
    )


def check_states(states, nodes: int) -> tuple[int, ...]:
    """One count per node from an int or a list."""
    if _is_int(states):
        check(2 <= states <= 1000, "model.states", states, "must be an integer in 2..1000 (or one per node)")
        return (int(states),) * nodes
    check(
        isinstance(states, (list, tuple)) and len(states) == nodes,
        "model.states",
        brief(states),
        f"must be an integer >= 2 or a list of one per node ({nodes})",
    )
    for j, s in enumerate(states):
        check(_is_int(s) and 2 <= s <= 1000, f"model.states[{j}]", s, "must be an integer in 2..1000")
    return tuple(int(s) for s in states)


def check_coupling(coupling, n_edges: int) -> np.ndarray:
    """One coupling per edge from a scalar or a list."""
    if _number(coupling):
        c = np.full(n_edges, float(coupling))
    else:
        ok = isinstance(coupling, (list, tuple)) and len(coupling) == n_edges and all(map(_number, coupling))
        check(
            ok,
            "model.coupling",
            brief(coupling),
            f"must be a finite number or a list of one per edge ({n_edges})",
        )
        c = np.asarray(coupling, dtype=float)
    check(
        bool(np.all(np.abs(c) <= MAX_COUPLING)),
        "model.coupling",
        brief(coupling),
        f"must be at most {MAX_COUPLING:g} in absolute value",
    )
    return c


def check_field(field, cards: tuple[int, ...]) -> list[np.ndarray]:
    """Per-node log-potentials ``field[v][x]``: one value per state (all nodes alike), or one row
    per node; default 0."""
    n = len(cards)
    if field is None:
        return [np.zeros(s) for s in cards]
    check(
        isinstance(field, (list, tuple)) and len(field) > 0,
        "model.field",
        brief(field),
        "must be a list of one value per state, or one row per node",
    )
    if all(_number(v) for v in field):
        check(
            len(set(cards)) == 1 and len(field) == cards[0],
            "model.field",
            brief(field),
            f"one value per state needs every node with {len(field)} states (else one row per node)",
        )
        rows = [np.asarray(field, dtype=float)] * n
    else:
        check(
            len(field) == n,
            "model.field",
            brief(field),
            f"must have one row per node ({n}) or one value per state",
        )
        rows = []
        for v, row in enumerate(field):
            ok = isinstance(row, (list, tuple)) and len(row) == cards[v] and all(map(_number, row))
            check(
                ok, f"model.field[{v}]", brief(row), f"must be {cards[v]} finite numbers (the node's states)"
            )
            rows.append(np.asarray(row, dtype=float))
    for v, r in enumerate(rows):
        check(
            bool(np.all(np.abs(r) <= MAX_COUPLING)),
            f"model.field[{v}]",
            brief(r.tolist()),
            f"must be at most {MAX_COUPLING:g} in absolute value",
        )
    return rows


def _table(value, shape: tuple[int, ...], name: str) -> np.ndarray:
    try:
        t = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(name, brief(value), f"must be a table of numbers of shape {shape}") from None
    check(t.shape == shape, name, brief(value), f"must have shape {shape}, got {t.shape}")
    check(
        bool(np.all(np.isfinite(t))) and bool(np.all(t >= 0)),
        name,
        brief(value),
        "entries must be finite and >= 0",
    )
    check(bool(t.max() > 0), name, brief(value), "needs an entry > 0")
    return t


def check_potentials(node_potentials, edge_potentials, cards, edges):
    """Optional explicit potentials: one row of ``s_v`` values >= 0 per node, one ``s_i x s_j``
    table per edge (multiplied into the Potts terms)."""
    nodes = None
    if node_potentials is not None:
        check(
            isinstance(node_potentials, (list, tuple)) and len(node_potentials) == len(cards),
            "model.node_potentials",
            brief(node_potentials),
            f"must be a list of one row per node ({len(cards)})",
        )
        nodes = [_table(p, (cards[v],), f"model.node_potentials[{v}]") for v, p in enumerate(node_potentials)]
    pairs = None
    if edge_potentials is not None:
        check(
            isinstance(edge_potentials, (list, tuple)) and len(edge_potentials) == len(edges),
            "model.edge_potentials",
            brief(edge_potentials),
            f"must be a list of one table per edge ({len(edges)})",
        )
        pairs = [
            _table(p, (cards[i], cards[j]), f"model.edge_potentials[{k}]")
            for k, (p, (i, j)) in enumerate(zip(edge_potentials, edges, strict=True))
        ]
    return nodes, pairs
