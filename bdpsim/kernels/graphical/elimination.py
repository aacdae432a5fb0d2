"""Variable elimination over discrete variables carrying the law of a running integer sum.

A :class:`Factor` is a non-negative table ``phi(b, x_V, q)`` over a batch index ``b`` (independent
conditions computed together; size 1 broadcasts), the states ``x_V`` of its variables ``V`` and a
running sum ``q = 0..Q-1``: the generating polynomial ``sum_q phi(b, x_V, q) z^q`` of the part of
``S = sum_r g_r(X_r)`` it has absorbed. Products multiply over shared variables and *convolve*
over ``q``; eliminating ``v`` sums over ``x_v``::

    (phi1 * phi2)(b, x, q) = sum_k phi1(b, x, k) phi2(b, x, q - k),     (sum_v phi)(b, x, q) = sum_{x_v} phi.

Eliminating every variable except ``keep`` in an order ``v_1, v_2, ...`` (bucket elimination) gives
``P(X_keep = x, S = q, evidence)`` up to one positive scale per batch row (tracked in log space;
each intermediate factor is rescaled to maximum 1, so nothing underflows except probabilities below
~1e-308 relative to the largest one). All terms are non-negative: no cancellation.

**Cost.** With elimination cliques of at most ``w + 1`` variables of ``s`` states (``w``: the
induced width of the order) and sums of at most ``Q`` values, one step costs
``O(s^(w+1) Q_1 Q_2)`` per product; each record's increment sits in exactly one input factor, so
the ``Q_1 Q_2`` terms over all products count pairs of records and sum to ``O(N Q)``: the whole
elimination is ``O(B N s^(w+1) Q)`` for ``N`` variables and ``B`` batch rows. :func:`plan` computes
the order (greedy min-fill, ties by degree then index), the induced width and this cost *before*
any arithmetic, by replaying the elimination on the scopes only.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...core.shown import magnitude
from ..argcheck import TooExpensive

MAX_OPERATIONS = 1e10  # default refusal threshold of plan()
MAX_CELLS = 5e7  # largest intermediate table (batch x states x sums) allowed by plan()


class Factor(NamedTuple):
    """``vars``: distinct variable ids; ``table``: shape ``(B, *cards(vars), Q)``, ``>= 0``."""

    vars: tuple[int, ...]
    table: np.ndarray


def _align(f: Factor, union: tuple[int, ...]) -> np.ndarray:
    """``f.table`` with its variable axes moved to their positions in ``union`` (singleton
    axes for the variables it lacks), so that tables over different scopes broadcast."""
    pos = [union.index(v) for v in f.vars]
    order = sorted(range(len(pos)), key=pos.__getitem__)
    t = f.table
    if order != list(range(len(pos))):
        t = t.transpose([0] + [1 + k for k in order] + [t.ndim - 1])
    shape = [t.shape[0]] + [1] * len(union) + [t.shape[-1]]
    for k in order:
        shape[1 + pos[k]] = f.table.shape[1 + k]
    return t.reshape(shape)


def convolve_last(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Broadcast product over all axes but the last, convolution over the last (direct sum of
    non-negative terms: exact up to rounding, no cancellation)."""
    qa, qb = A.shape[-1], B.shape[-1]
    if qa == 1 or qb == 1:
        return A * B
    if qa < qb:
        A, B, qa, qb = B, A, qb, qa
    out = np.zeros(np.broadcast_shapes(A.shape[:-1], B.shape[:-1]) + (qa + qb - 1,))
    for k in range(qb):
        col = B[..., k : k + 1]
        if col.any():
            out[..., k : k + qa] += A * col
    return out


def multiply(f: Factor, g: Factor) -> Factor:
    """Product of two factors (union scope, ``f``'s variables first; sums convolved)."""
    if g.vars == f.vars:
        return Factor(f.vars, convolve_last(f.table, g.table))
    union = f.vars + tuple(v for v in g.vars if v not in f.vars)
    return Factor(union, convolve_last(_align(f, union), _align(g, union)))


def sum_out(f: Factor, v: int) -> Factor:
    """``sum_{x_v} f``."""
    k = f.vars.index(v)
    return Factor(f.vars[:k] + f.vars[k + 1 :], f.table.sum(axis=1 + k))


def clamp(f: Factor, v: int, values: np.ndarray) -> Factor:
    """Restrict ``f`` to ``X_v = values[b]`` per batch row (``values`` shape ``(B,)``; a factor
    without a batch broadcasts to ``B`` rows)."""
    k = f.vars.index(v)
    t = np.moveaxis(f.table, 1 + k, 1)
    values = np.asarray(values, dtype=np.int64)
    if t.shape[0] == 1:
        t = t[0][values]
    else:
        t = t[np.arange(t.shape[0]), values]
    return Factor(f.vars[:k] + f.vars[k + 1 :], t)


def rescale(f: Factor) -> tuple[Factor, np.ndarray]:
    """``f / m_b`` with ``m_b`` the row maximum, and ``ln m_b`` (``-inf`` for an all-zero row)."""
    t = f.table
    m = t.reshape(t.shape[0], -1).max(axis=1)
    ok = m > 0
    with np.errstate(divide="ignore"):
        ls = np.where(ok, np.log(np.where(ok, m, 1.0)), -np.inf)
    t = t / np.where(ok, m, 1.0).reshape((-1,) + (1,) * (t.ndim - 1))
    return Factor(f.vars, t), ls


def product(factors: Sequence[Factor]) -> Factor:
    """Product of several factors, shortest sums first (keeps the convolutions cheap)."""
    fs = sorted(factors, key=lambda f: f.table.shape[-1])
    out = fs[0]
    for f in fs[1:]:
        out = multiply(out, f)
    return out


#: :func:`scaled_product` rescales a row when its maximum leaves [1/SCALE_AT, SCALE_AT]
SCALE_AT = 1e150


def scaled_product(factors: Sequence[Factor]) -> tuple[Factor, np.ndarray]:
    """:func:`product` with every batch row rescaled to maximum 1 whenever its maximum leaves
    ``[1/SCALE_AT, SCALE_AT]`` (the log of the scale returned per row): a product of thousands of
    factors (a long chain cut by evidence into independent parts) neither overflows nor
    underflows, and the division is paid only when needed."""
    fs = sorted(factors, key=lambda f: f.table.shape[-1])
    out, ls = fs[0], np.zeros(1)
    for f in fs[1:]:
        out = multiply(out, f)
        m = out.table.reshape(out.table.shape[0], -1).max(axis=1)
        if np.any((m > SCALE_AT) | ((m < 1 / SCALE_AT) & (m > 0))):
            out, step = rescale(out)
            ls = ls + step
    return out, ls


# ---------------------------------------------------------------------------------- ordering


def interaction_graph(scopes: Iterable[Sequence[int]]) -> dict[int, set[int]]:
    """Undirected graph joining the variables that share a scope (the moral graph of a BN)."""
    adj: dict[int, set[int]] = {}
    for sc in scopes:
        for v in sc:
            adj.setdefault(v, set()).update(u for u in sc if u != v)
    return adj


def _fill(adj: dict[int, set[int]], v: int) -> int:
    """Missing edges among the neighbours of ``v``."""
    nb = adj[v]
    d = len(nb)
    return d * (d - 1) // 2 - sum(len(adj[u] & nb) for u in nb) // 2


def degeneracy(adj: dict[int, set[int]]) -> int:
    """The degeneracy of the graph ``adj``: the largest ``k`` such that some subgraph has minimum
    degree ``k`` (peel a vertex of least degree, repeatedly; the largest degree seen at peeling).

    Every elimination order of the graph meets a clique of at least ``k + 1`` variables (the first
    vertex of that subgraph to be eliminated has its ``>= k`` neighbours there), so the induced
    width is at least ``k``. ``O(V + E)`` with a bucket queue: a cheap refusal of a dense graph before
    :func:`min_fill_order`, whose cost grows with the cube of the degree.
    """
    deg = {v: len(nb) for v, nb in adj.items()}
    buckets: dict[int, set[int]] = {}
    for v, d in deg.items():
        buckets.setdefault(d, set()).add(v)
    done: set[int] = set()
    k, low = 0, 0
    for _ in range(len(adj)):
        while not buckets.get(low):
            low += 1
        v = buckets[low].pop()
        k = max(k, low)
        done.add(v)
        for u in adj[v]:
            if u not in done:
                d = deg[u]
                buckets[d].discard(u)
                deg[u] = d - 1
                buckets.setdefault(d - 1, set()).add(u)
        low = max(low - 1, 0)
    return k


def min_clique_cells(adj: dict[int, set[int]], cards: dict[int, int]) -> tuple[int, int]:
    """``(k, c)``: a lower bound ``k`` on the induced width of any elimination order
    (:func:`degeneracy`) and a lower bound ``c`` on the cells of its largest clique table, the
    product of the ``k + 1`` smallest cardinalities (an exact integer, past the float range too:
    :func:`bdpsim.core.shown.magnitude` shows it)."""
    k = degeneracy(adj)
    small = sorted(cards[v] for v in adj)[: k + 1]
    return k, math.prod(int(c) for c in small)


def min_fill_order(adj: dict[int, set[int]], eliminate: Iterable[int]) -> list[int]:
    """Greedy min-fill order of the variables ``eliminate`` (the others stay in the graph and
    create fill, but are never eliminated); ties by fewest neighbours, then smallest id.
    Only the nodes whose score can change are rescored (lazy heap): the neighbours of the
    eliminated node and, for each fill edge, the common neighbours of its two ends."""
    adj = {v: set(nb) for v, nb in adj.items()}
    todo = set(eliminate)
    stamp = dict.fromkeys(todo, 0)
    heap = [(_fill(adj, v), len(adj[v]), v, 0) for v in todo]
    heapq.heapify(heap)
    order = []
    while heap:
        _, _, v, st = heapq.heappop(heap)
        if v not in todo or st != stamp[v]:
            continue
        order.append(v)
        todo.discard(v)
        nb = adj.pop(v)
        touched = set(nb)
        for u in nb:
            adj[u].discard(v)
        for u in nb:
            new = nb - adj[u] - {u}
            if new:
                for w in new:
                    touched.update(adj[u] & adj[w])
                adj[u].update(new)
        for u in touched & todo:
            stamp[u] += 1
            heapq.heappush(heap, (_fill(adj, u), len(adj[u]), u, stamp[u]))
    return order


@dataclass(frozen=True)
class Plan:
    """An elimination order and its cost, computed on the scopes alone.

    ``width``: induced width (largest elimination clique minus one, the kept variables' final
    table included); ``operations``: estimated multiply-adds (module docstring); ``max_cells``: the
    largest intermediate table (batch x states x sums); both ``inf`` past the float range, their
    base-10 logarithms ``log10_operations``, ``log10_cells`` finite (the refusal's exponent).
    """

    order: tuple[int, ...]
    keep: tuple[int, ...]
    width: int
    operations: float
    max_cells: float
    log10_operations: float = -math.inf
    log10_cells: float = -math.inf

    def check(
        self, what: str = "elimination", max_operations: float = MAX_OPERATIONS, max_cells: float = MAX_CELLS
    ) -> Plan:
        """Refuse when too expensive: :class:`~bdpsim.kernels.argcheck.TooExpensive` naming ``what``
        (the caller's name of the problem) with the estimate."""
        if self.operations > max_operations or self.max_cells > max_cells:
            raise TooExpensive(
                what,
                f"{len(self.order)} variables, induced width {self.width}",
                f"infeasible: about {magnitude(self.operations, self.log10_operations)} operations "
                f"(limit {max_operations:.3g}) and tables of {magnitude(self.max_cells, self.log10_cells)} "
                "cells (limit "
                f"{max_cells:.3g}); the cost is O(N s^(w+1) Q) for treewidth w",
            )
        return self


def plan(
    scopes: Sequence[Sequence[int]],
    cards: dict[int, int],
    sums: Sequence[int],
    keep: Sequence[int] = (),
    batch: int = 1,
    order: Sequence[int] | None = None,
) -> Plan:
    """Order (min-fill unless given), induced width and cost of eliminating every variable of
    ``scopes`` except ``keep``; ``sums[j]`` is the sum length ``Q`` of factor ``j``."""
    adj = interaction_graph(scopes)
    for v in keep:
        adj.setdefault(v, set())
    keep = tuple(keep)
    if order is None:
        order = min_fill_order(adj, [v for v in adj if v not in set(keep)])
    live = {j: (frozenset(sc), int(sums[j])) for j, sc in enumerate(scopes)}
    by_var: dict[int, set[int]] = {}
    for j, (sc, _) in live.items():
        for v in sc:
            by_var.setdefault(v, set()).add(j)
    ops, cells_max, width, nxt = 0.0, 0.0, 0, len(scopes)
    log_ops, log_cells = -math.inf, -math.inf  # their log10, finite where they overflow
    steps: list[int | None] = [*order, None]
    for e in steps:  # the variable eliminated (None: the last product)
        ids = set(live) if e is None else by_var.pop(e, set())
        if not ids:
            continue
        parts = sorted((live.pop(j) for j in ids), key=lambda p: p[1])
        scope = frozenset().union(*(p[0] for p in parts))
        cells = float(batch) * math.prod(float(cards[u]) for u in scope)  # inf, never OverflowError
        log_c = math.log10(batch) + math.fsum(math.log10(cards[u]) for u in scope)
        width = max(width, len(scope) - 1)
        q = parts[0][1]
        for _, qj in parts[1:]:
            ops += cells * q * qj
            log_ops = _log10_add(log_ops, log_c + math.log10(q * qj))
            q += qj - 1
        ops += cells * q
        log_ops = _log10_add(log_ops, log_c + math.log10(q))
        cells_max = max(cells_max, cells * q)
        log_cells = max(log_cells, log_c + math.log10(q))
        if e is None:
            break
        new = scope - {e}
        for u in scope:
            if u != e:
                by_var[u] -= ids
                by_var[u].add(nxt)
        live[nxt] = (new, q)
        nxt += 1
    return Plan(tuple(order), keep, width, ops, cells_max, log_ops, log_cells)


def _log10_add(a: float, b: float) -> float:
    """``log10(10^a + 10^b)`` without leaving the float range."""
    hi, lo = max(a, b), min(a, b)
    return hi if lo == -math.inf else hi + math.log10(1.0 + 10.0 ** (lo - hi))


# ---------------------------------------------------------------------------------- elimination


def eliminate(
    factors: Sequence[Factor], order: Sequence[int], keep: Sequence[int] = ()
) -> tuple[np.ndarray, np.ndarray]:
    """Bucket elimination of ``order`` from the product of ``factors``.

    Returns ``table`` of shape ``(B, *cards(keep), Q)`` proportional to ``P(X_keep, S = q, .)``
    with every row rescaled (maximum 1), and ``log_scale`` (shape ``(B,)``): the true values are
    ``table * exp(log_scale)``. Variables neither in ``order`` nor ``keep`` must not occur.
    """
    live = dict(enumerate(factors))
    by_var: dict[int, set[int]] = {}
    for j, f in live.items():
        for v in f.vars:
            by_var.setdefault(v, set()).add(j)
    log_scale = np.zeros(1)
    nxt = len(live)
    for v in order:
        ids = by_var.pop(v, None)
        if not ids:
            continue
        fs = [live.pop(j) for j in sorted(ids)]
        prod, ls0 = scaled_product(fs)
        msg, ls = rescale(sum_out(prod, v))
        log_scale = log_scale + ls0 + ls
        for u in msg.vars:
            by_var[u] -= ids
            by_var[u].add(nxt)
        live[nxt] = msg
        nxt += 1
    left = set(by_var) - set(keep)
    if left:
        raise ValueError(f"variables {sorted(left)} are neither eliminated nor kept")
    keep = tuple(keep)
    final, ls = scaled_product(list(live.values())) if live else (Factor((), np.ones((1, 1))), np.zeros(1))
    if set(final.vars) != set(keep):
        raise ValueError(f"kept variables {keep} do not match the remaining scope {final.vars}")
    return _align(final, keep), log_scale + ls
