"""Validation of a Bayesian network's structure and tables: one-line errors naming the field.

Every check raises :class:`~bdpsim.errors.ConfigError` as ``field = value: rule``, with the node
in the field (``model.parents[3]``, ``model.cpt[3]``, ``model.states[2]``).
"""

from __future__ import annotations

import numpy as np

from ..errors import check

MAX_NODES = 100_000
MAX_TABLE = 1_000_000   # entries of one conditional table
ROW_TOLERANCE = 1e-9


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _find_cycle(parents) -> list[int] | None:
    """A directed cycle of the graph ``parent -> child`` (``None`` if acyclic)."""
    n = len(parents)
    children = [[] for _ in range(n)]
    for j, pa in enumerate(parents):
        for p in pa:
            if 0 <= p < n:
                children[p].append(j)
    colour = [0] * n
    for s in range(n):
        if colour[s]:
            continue
        stack, path = [(s, iter(children[s]))], [s]
        colour[s] = 1
        while stack:
            v, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[v] = 2
                stack.pop()
                path.pop()
            elif colour[nxt] == 1:
                return path[path.index(nxt):] + [nxt]
            elif colour[nxt] == 0:
                colour[nxt] = 1
                stack.append((nxt, iter(children[nxt])))
                path.append(nxt)
    return None


def check_parents(parents) -> tuple[tuple[int, ...], ...]:
    """Lists of earlier, distinct parent indices; a cycle or a later parent is named."""
    check(isinstance(parents, (list, tuple)) and len(parents) >= 1, "model.parents", parents,
          "must be a non-empty list with one parent list per node ([] for a root)")
    check(len(parents) <= MAX_NODES, "model.parents", f"{len(parents)} nodes", f"at most {MAX_NODES} nodes")
    n = len(parents)
    for j, pa in enumerate(parents):
        check(isinstance(pa, (list, tuple)), f"model.parents[{j}]", pa,
              "must be a list of parent node indices ([] for a root)")
        for p in pa:
            check(_is_int(p) and 0 <= p < n, f"model.parents[{j}]", list(pa),
                  f"parent indices must be integers in 0..{n - 1}")
        check(j not in pa, f"model.parents[{j}]", list(pa), f"node {j} cannot be its own parent")
        check(len(set(pa)) == len(pa), f"model.parents[{j}]", list(pa), "parents must be distinct")
    cycle = _find_cycle(parents)
    check(cycle is None, "model.parents", " -> ".join(map(str, cycle or [])),
          "the graph has a directed cycle (a Bayesian network must be acyclic)")
    for j, pa in enumerate(parents):
        check(all(p < j for p in pa), f"model.parents[{j}]", list(pa),
              f"parents must be earlier nodes (indices < {j}): list the nodes in topological order")
    return tuple(tuple(int(p) for p in pa) for pa in parents)


def _depth(x) -> int:
    d = 0
    while isinstance(x, (list, tuple)) and x:
        x = x[0]
        d += 1
    return d + (x.ndim if isinstance(x, np.ndarray) else 0)


def check_table(j: int, table, parent_cards: tuple[int, ...], card: int | None) -> np.ndarray:
    """One conditional table: nesting depth, shape, finite entries >= 0, rows summing to 1."""
    name = f"model.cpt[{j}]"
    k = len(parent_cards)
    want = f"one level per parent ({k}), then the node's own states"
    try:
        t = np.array(table, dtype=float)
    except (ValueError, TypeError):
        depth = _depth(table)
        check(depth == k + 1, name, table, f"must be nested {k + 1} deep ({want}), got depth {depth}")
        check(False, name, table, "ragged: every row at a level must have the same length")
    check(t.ndim == k + 1, name, table, f"must be nested {k + 1} deep ({want}), got depth {t.ndim}")
    check(t.size <= MAX_TABLE, name, f"{t.size} entries", f"at most {MAX_TABLE} entries per table")
    check(tuple(t.shape[:-1]) == tuple(parent_cards), name, table,
          f"must have shape {tuple(parent_cards) + (card or t.shape[-1],)} (parents' states, then "
          f"the node's), got {t.shape}")
    if card is not None:
        check(t.shape[-1] == card, name, table, f"rows must have {card} entries (states of node {j}),"
              f" got {t.shape[-1]}")
    check(t.shape[-1] >= 2, name, table, f"node {j} needs at least 2 states (rows of >= 2 entries)")
    check(bool(np.all(np.isfinite(t))), name, table, "entries must be finite numbers")
    check(bool(np.all(t >= 0)), name, table, "entries must be >= 0")
    rows = t.sum(axis=-1)
    bad = np.argwhere(np.abs(rows - 1) > ROW_TOLERANCE)
    if bad.size:
        idx = tuple(int(i) for i in bad[0])
        check(False, name, table, f"rows must sum to 1 (row {idx} sums to {rows[idx]:.12g})")
    t.setflags(write=False)
    return t


def check_network(parents, cpt, states) -> tuple[tuple, tuple, tuple[int, ...]]:
    """Validated ``(parents, tables, node_states)``."""
    parents = check_parents(parents)
    n = len(parents)
    check(isinstance(cpt, (list, tuple)) and len(cpt) == n, "model.cpt",
          f"{len(cpt)} tables" if isinstance(cpt, (list, tuple)) else cpt,
          f"must be a list of one table per node ({n})")
    if states is None:
        cards = [None] * n
    elif _is_int(states):
        check(states >= 2, "model.states", states, "must be an integer >= 2 (or a list, one per node)")
        cards = [int(states)] * n
    else:
        check(isinstance(states, (list, tuple)) and len(states) == n, "model.states", states,
              f"must be an integer >= 2 or a list of one per node ({n})")
        for j, s in enumerate(states):
            check(_is_int(s) and s >= 2, f"model.states[{j}]", s, "must be an integer >= 2")
        cards = [int(s) for s in states]
    tables, node_states = [], []
    for j in range(n):
        t = check_table(j, cpt[j], tuple(node_states[p] for p in parents[j]), cards[j])
        tables.append(t)
        node_states.append(t.shape[-1])
    return parents, tuple(tables), tuple(node_states)


def check_records(records, n: int) -> tuple[int, ...]:
    """Distinct node indices (default: every node)."""
    if records is None:
        return tuple(range(n))
    check(isinstance(records, (list, tuple, np.ndarray)) and len(records) >= 1, "model.records",
          records, "must be a non-empty list of node indices")
    out = []
    for r in records:
        check(_is_int(r) and 0 <= r < n, "model.records", list(records), f"entries must be nodes in 0..{n - 1}")
        out.append(int(r))
    check(len(set(out)) == len(out), "model.records", list(records), "nodes must be distinct")
    return tuple(out)

