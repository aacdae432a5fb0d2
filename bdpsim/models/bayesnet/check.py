"""Validation of a Bayesian network's structure and tables: one-line errors naming the field.

Every check raises :class:`~bdpsim.core.errors.ConfigError` as ``field = value: rule``, with the node
in the field (``model.parents[3]``, ``model.cpt[3]``, ``model.states[2]``; by name when the nodes
have names: ``model.cpt['HYPOVOLEMIA']``) and messages of bounded length.

**Rounded tables.** A row of a conditional table (a root's table is one row) must sum to 1 within
``table_tolerance`` (default :data:`TABLE_TOLERANCE` = 1e-6, the rounding of published networks
such as pgmpy's ALARM, written to 7 digits): such rows are renormalised (divided by their sum) and
the model keeps a note of it (``BayesNetModel.notes``, written to ``metadata.json``); a row beyond
the tolerance is refused naming the node, the row and its sum.
"""

from __future__ import annotations

import numpy as np

from ...core.errors import check
from ..common.nodes import MAX_MESSAGE, MAX_NODES, brief, check_names, check_records, node_label  # noqa: F401  (their former home)
from ..common.nodes import is_int as _is_int

MAX_TABLE = 1_000_000  # entries of one conditional table
TABLE_TOLERANCE = 1e-6  # |row sum - 1| renormalised silently up to this (with a note), refused beyond
NOTE_ABOVE = 1e-12  # deviations above this (not floating-point rounding) are noted


def rounding_slack(terms: int) -> float:
    """What float rounding alone can move a sum of ``terms`` probabilities from 1: ``terms`` units
    in the last place (``[0.1, 0.2, 0.7]`` sums to ``0.9999999999999999``). Added to
    ``table_tolerance``, so that ``table_tolerance = 0`` asks for exact sums, not exact floats."""
    return 2.0 * max(int(terms), 1) * float(np.finfo(float).eps)


def check_tolerance(tolerance) -> float:
    """``table_tolerance``: a number in [0, 0.1)."""
    ok = (
        isinstance(tolerance, (int, float, np.floating))
        and not isinstance(tolerance, bool)
        and np.isfinite(tolerance)
        and 0 <= tolerance < 0.1
    )
    check(
        ok,
        "model.table_tolerance",
        tolerance,
        "must be a number in [0, 0.1) (rows of a table must sum to 1 within it; they are then renormalised)",
    )
    return float(tolerance)


def _find_cycle(parents) -> list[int] | None:
    """A directed cycle of the graph ``parent -> child`` (``None`` if acyclic)."""
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
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
                return path[path.index(nxt) :] + [nxt]
            elif colour[nxt] == 0:
                colour[nxt] = 1
                stack.append((nxt, iter(children[nxt])))
                path.append(nxt)
    return None


def check_parents(parents) -> tuple[tuple[int, ...], ...]:
    """Lists of earlier, distinct parent indices; a cycle or a later parent is named."""
    check(
        isinstance(parents, (list, tuple)) and len(parents) >= 1,
        "model.parents",
        parents,
        "must be a non-empty list with one parent list per node ([] for a root)",
    )
    check(len(parents) <= MAX_NODES, "model.parents", f"{len(parents)} nodes", f"at most {MAX_NODES} nodes")
    n = len(parents)
    for j, pa in enumerate(parents):
        check(
            isinstance(pa, (list, tuple)),
            f"model.parents[{j}]",
            pa,
            "must be a list of parent node indices ([] for a root)",
        )
        for p in pa:
            check(
                _is_int(p) and 0 <= p < n,
                f"model.parents[{j}]",
                list(pa),
                f"parent indices must be integers in 0..{n - 1}",
            )
        check(j not in pa, f"model.parents[{j}]", list(pa), f"node {j} cannot be its own parent")
        check(len(set(pa)) == len(pa), f"model.parents[{j}]", list(pa), "parents must be distinct")
    cycle = _find_cycle(parents)
    check(
        cycle is None,
        "model.parents",
        " -> ".join(map(str, cycle or [])),
        "the graph has a directed cycle (a Bayesian network must be acyclic)",
    )
    for j, pa in enumerate(parents):
        check(
            all(p < j for p in pa),
            f"model.parents[{j}]",
            list(pa),
            f"parents must be earlier nodes (indices < {j}): list the nodes in topological order",
        )
    return tuple(tuple(int(p) for p in pa) for pa in parents)


def _depth(x) -> int:
    d = 0
    while isinstance(x, (list, tuple)) and x:
        x = x[0]
        d += 1
    return d + (x.ndim if isinstance(x, np.ndarray) else 0)


def check_table(
    j: int,
    table,
    parent_cards: tuple[int, ...],
    card: int | None,
    names=None,
    tolerance: float = TABLE_TOLERANCE,
) -> tuple[np.ndarray, float]:
    """One conditional table: nesting depth, shape, finite entries >= 0, rows (the whole table
    of a root) summing to 1 within ``tolerance``; returns the table with its rows renormalised
    and the largest ``|row sum - 1|`` found."""
    label = node_label(j, names)
    name = f"model.cpt[{label}]"
    k = len(parent_cards)
    want = f"one level per parent ({k}), then the node's own states"
    try:
        t = np.array(table, dtype=float)
    except (ValueError, TypeError):
        depth = _depth(table)
        check(depth == k + 1, name, brief(table), f"must be nested {k + 1} deep ({want}), got depth {depth}")
        check(False, name, brief(table), "ragged: every row at a level must have the same length")
    table = brief(t)
    check(t.ndim == k + 1, name, table, f"must be nested {k + 1} deep ({want}), got depth {t.ndim}")
    check(t.size <= MAX_TABLE, name, f"{t.size} entries", f"at most {MAX_TABLE} entries per table")
    check(
        tuple(t.shape[:-1]) == tuple(parent_cards),
        name,
        table,
        f"must have shape {tuple(parent_cards) + (card or t.shape[-1],)} (parents' states, then "
        f"the node's), got {t.shape}",
    )
    if card is not None:
        check(
            t.shape[-1] == card,
            name,
            table,
            f"rows must have {card} entries (states of node {label}), got {t.shape[-1]}",
        )
    check(t.shape[-1] >= 2, name, table, f"node {label} needs at least 2 states (rows of >= 2 entries)")
    check(bool(np.all(np.isfinite(t))), name, table, "entries must be finite numbers")
    check(bool(np.all(t >= 0)), name, table, "entries must be >= 0")
    rows = np.atleast_1d(t.sum(axis=-1))  # a root's table is one row (0-d sum)
    dev = np.abs(rows - 1)
    bad = np.argwhere(dev > tolerance + rounding_slack(t.shape[-1]))
    if bad.size:
        idx = tuple(int(i) for i in bad[0])[: t.ndim - 1]
        where = f"row {idx}" if idx else "the root's table"
        check(
            False,
            name,
            table,
            f"rows must sum to 1 ({where} sums to {rows[tuple(bad[0])]:.12g}; "
            f"model.table_tolerance = {tolerance:g})",
        )
    worst = float(dev.max()) if dev.size else 0.0
    if worst > 0:
        t = t / t.sum(axis=-1, keepdims=True)
    t.setflags(write=False)
    return t, worst


def check_network(
    parents, cpt, states, names=None, tolerance: float = TABLE_TOLERANCE
) -> tuple[tuple, tuple, tuple[int, ...], tuple[str, ...]]:
    """Validated ``(parents, tables, node_states, notes)``; ``notes`` says which tables were
    renormalised (rows within ``tolerance`` of 1, see the module docstring)."""
    parents = check_parents(parents)
    n = len(parents)
    names = check_names(names, n)
    tolerance = check_tolerance(tolerance)
    check(
        isinstance(cpt, (list, tuple)) and len(cpt) == n,
        "model.cpt",
        f"{len(cpt)} tables" if isinstance(cpt, (list, tuple)) else cpt,
        f"must be a list of one table per node ({n})",
    )
    cards: list[int | None]
    if states is None:
        cards = [None] * n
    elif _is_int(states):
        check(states >= 2, "model.states", states, "must be an integer >= 2 (or a list, one per node)")
        cards = [int(states)] * n
    else:
        check(
            isinstance(states, (list, tuple)) and len(states) == n,
            "model.states",
            states,
            f"must be an integer >= 2 or a list of one per node ({n})",
        )
        for j, s in enumerate(states):
            check(
                _is_int(s) and s >= 2, f"model.states[{node_label(j, names)}]", s, "must be an integer >= 2"
            )
        cards = [int(s) for s in states]
    tables: list[np.ndarray] = []
    node_states: list[int] = []
    fixed: list[tuple[float, int]] = []
    for j in range(n):
        t, dev = check_table(j, cpt[j], tuple(node_states[p] for p in parents[j]), cards[j], names, tolerance)
        tables.append(t)
        node_states.append(t.shape[-1])
        if dev > NOTE_ABOVE:
            fixed.append((dev, j))
    notes: tuple[str, ...] = ()
    if fixed:
        dev, j = max(fixed)
        notes = (
            f"{len(fixed)} conditional table(s) renormalised (rows summing to 1 within "
            f"model.table_tolerance = {tolerance:g}; largest deviation {dev:.3g}, at node "
            f"{node_label(j, names)})",
        )
    return parents, tuple(tables), tuple(node_states), notes
