"""Node vocabulary shared by the factor-model kinds (Bayesian networks, Markov random fields):
bounded one-line message values, node labels and names, the records among the nodes, the config
keys every such kind has, and the records a record is correlated with."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ...core.errors import check
from ...core.schema import Key
from ..protocols import FactorGraph

MAX_NODES = 100_000
MAX_MESSAGE = 200  # characters of a value or a name list quoted in a message


def brief(value, limit: int = MAX_MESSAGE):
    """``value`` itself when short, else a text of at most ``limit`` characters (arrays by
    shape, long lists and mappings cut): what a one-line message quotes."""
    if isinstance(value, np.ndarray):
        if value.size > 20:
            return f"array of shape {value.shape}"
        value = value.tolist()
    text = repr(value)
    return value if len(text) <= limit else text[: limit - 3] + "..."


def node_label(j: int, names=None) -> str:
    """``3`` or ``'HYPOVOLEMIA'`` (the name when the nodes have names)."""
    return repr(str(names[j])) if names is not None else str(j)


def is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def check_names(names, n: int) -> tuple[str, ...] | None:
    """One distinct non-empty name per node (``None``: unnamed)."""
    if names is None:
        return None
    check(
        isinstance(names, (list, tuple)) and len(names) == n,
        "model.names",
        brief(names),
        f"must be a list of one name per node ({n})",
    )
    out = tuple(str(s) for s in names)
    check(
        all(isinstance(s, (str, int, np.integer)) and str(s) for s in names),
        "model.names",
        brief(names),
        "names must be non-empty strings",
    )
    dup = sorted({s for s in out if out.count(s) > 1}) if len(set(out)) < n else []
    check(not dup, "model.names", brief(dup), "names must be distinct")
    return out


def check_records(records, n: int, names=None) -> tuple[int, ...]:
    """Distinct node indices, or node names when the nodes have ``names`` (default: every node)."""
    if records is None:
        return tuple(range(n))
    check(
        isinstance(records, (list, tuple, np.ndarray)) and len(records) >= 1,
        "model.records",
        brief(records),
        "must be a non-empty list of node indices" + (" or names" if names else ""),
    )
    index = {s: k for k, s in enumerate(names or ())}
    out = []
    for r in records:
        if isinstance(r, str) and r in index:
            r = index[r]
        check(
            is_int(r) and 0 <= r < n,
            "model.records",
            brief(r),
            f"entries must be nodes in 0..{n - 1}" + (" or node names" if names else ""),
        )
        out.append(int(r))
    check(len(set(out)) == len(out), "model.records", brief(list(records)), "nodes must be distinct")
    return tuple(out)


#: the keys every factor-model kind shares (networks, Markov random fields)
NODE_KEYS = {
    "states": Key(
        "any",
        hashed=False,
        sweep=False,
        doc="states per node (one number or one per node)",
        rule="integers >= 2",
    ),
    "records": Key(
        "any",
        hashed=False,
        sweep=False,
        doc="the nodes that are records (absent: every node)",
        rule="distinct node indices",
    ),
    "names": Key(
        "any",
        hashed=False,
        sweep=False,
        doc="node names (absent: those of the BIF file or named graph, if any)",
        rule="distinct strings, one per node",
    ),
}


def correlated_records(model: FactorGraph) -> int:
    """Records in the largest connected component of the moral (interaction) graph: no record
    is correlated with more than ``m - 1`` others (the general bound's ``m``, paper Thm 4.3)."""
    adj, records = model.interaction_graph(), set(cast(Any, model).records)
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
