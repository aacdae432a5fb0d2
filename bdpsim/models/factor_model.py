"""Discrete models given as a product of factors: what Bayesian networks and Markov random
fields share.

A :class:`FactorModel` is a law ``P(x) = (1/Z) prod_k phi_k(x_{C_k})`` over nodes ``0..N-1``
(node ``v`` with ``s_v >= 2`` states) with non-negative tables ``phi_k`` over scopes ``C_k``;
its data tuple is ``X_records`` (record ``r`` is node ``records[r]``, the other nodes hidden).
A Bayesian network has one factor per node (its conditional table, ``Z = 1``); a pairwise
Markov random field has one factor per node (its potential) and one per edge (``Z`` computed
once by elimination). Each node's query increment ``z^{g(x_v)}`` is attached to one factor
holding it (its *home*, factor ``v`` for both), so the running sum of
:mod:`bdpsim.kernels.graphical.elimination` counts every record once.

Everything exact here goes through variable elimination and junction trees on the factors
alone, never through the graph's direction: evidence (clamping), ``log P(x_K)``, laws of
additive queries ``S = sum_r g_r(X_r)`` given evidence or a batch of masks, marginals and exact
conditional sampling. The exact BDPL engines and the all-adversary search
(:mod:`bdpsim.models.bayesnet.search`) depend on this interface only. Every exact computation
is planned first and refused in one line with its estimate when too large (a junction tree
above :data:`MAX_CLIQUE_CELLS` cells, an elimination above its operation limit).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..core.errors import ConfigError, check, naming
from ..core.shown import magnitude
from ..kernels.graphical.elimination import (
    Factor,
    clamp,
    eliminate,
    interaction_graph,
    min_clique_cells,
    plan,
)
from ..kernels.graphical.junction import junction_tree
from .base import additive_query_law
from .common.nodes import brief

MAX_OPERATIONS = 1e10
MAX_CLIQUE_CELLS = 5e7  # junction tree: largest clique table (states product)
#: Python work per factor of one exact adversary (elimination steps, clamping, the junction tree of
#: the draw), in cost units (1e8 per second): measured 0.7-1.7 ms per factor per adversary on the
#: karate club MRF (112 factors), ALARM (37) and CHILD (20), 2 shared cores
FACTOR_OVERHEAD_UNITS = 7e4


class FactorModel:
    """Base of the discrete factor models (module docstring). A subclass (a frozen dataclass)
    calls :meth:`_init_factors` in ``__post_init__`` with its node cardinalities, records, scopes
    and tables; the rest is shared. ``states`` is the largest number of states of a record (the
    width of per-state tables); ``node_states`` keeps one count per node."""

    # what _init_factors sets (declared for type checkers; a subclass's dataclass fields are its own)
    node_states: tuple[int, ...]
    records: tuple[int, ...]
    states: int
    _scopes: tuple[tuple[int, ...], ...]
    _tables: tuple[np.ndarray, ...]
    _home: tuple[int, ...]
    _home_node: dict[int, int]
    _touching: tuple[tuple[int, ...], ...]
    _record_of: dict[int, int]
    _positive: bool
    _cache: dict
    names: tuple[str, ...] | None = None  # node names (a subclass's field)

    # ------------------------------------------------------------------ set-up
    def _init_factors(
        self,
        node_states: Sequence[int],
        records: Sequence[int],
        scopes: Sequence[tuple],
        tables: Sequence[np.ndarray],
        home: Sequence[int],
        names=None,
        log_partition: float | None = None,
    ) -> None:
        """``home[v]``: the factor carrying node ``v``'s increment; ``log_partition``: ``ln Z``
        when known (``0`` for a Bayesian network), else computed on first use."""
        put = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclasses)
        put("node_states", tuple(int(s) for s in node_states))
        put("records", tuple(int(r) for r in records))
        put("states", max(self.node_states[r] for r in self.records))
        put("_scopes", tuple(tuple(int(v) for v in sc) for sc in scopes))
        put("_tables", tuple(tables))
        put("_home", tuple(int(k) for k in home))
        put("_home_node", {k: v for v, k in enumerate(self._home)})
        touching: list[list[int]] = [[] for _ in self.node_states]
        for k, sc in enumerate(self._scopes):
            for v in sc:
                touching[v].append(k)
        put("_touching", tuple(tuple(t) for t in touching))
        put("_record_of", {v: r for r, v in enumerate(self.records)})
        put("_positive", all(bool(np.all(t > 0)) for t in self._tables))
        put("_cache", {} if log_partition is None else {"log_partition": float(log_partition)})
        if names is not None:
            put("names", tuple(str(s) for s in names))

    # ------------------------------------------------------------------ structure
    @property
    def n(self) -> int:
        """Number of records."""
        return len(self.records)

    @property
    def size(self) -> int:
        """Number of nodes (records and hidden)."""
        return len(self.node_states)

    @property
    def record_states(self) -> tuple[int, ...]:
        """States per record."""
        return tuple(self.node_states[v] for v in self.records)

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(v for v in range(self.size) if v not in self._record_of)

    @property
    def is_positive(self) -> bool:
        """Every table entry > 0 (every joint state has positive probability)."""
        return self._positive

    @property
    def scopes(self) -> tuple[tuple[int, ...], ...]:
        """The factors' variables."""
        return self._scopes

    def factors_touching(self, nodes) -> list[int]:
        """Indices of the factors whose scope meets ``nodes`` (sorted)."""
        return sorted(set().union(*(self._touching[v] for v in nodes)))

    def interaction_graph(self) -> dict[int, set[int]]:
        """Undirected graph joining nodes that share a factor (the moral graph of a network)."""
        adj: dict[int, set[int]] = {v: set() for v in range(self.size)}
        for sc in self._scopes:
            for a in sc:
                adj[a].update(b for b in sc if b != a)
        return adj

    def node(self, record: int) -> int:
        return self.records[record]

    def record_label(self, record: int) -> str:
        """``record`` as a user knows it: ``"3 ('HYPOVOLEMIA')"`` or ``"3"``."""
        names = self.names
        return f"{record} ({names[self.records[record]]!r})" if names else str(record)

    def record_names(self) -> tuple[str, ...] | None:
        """The records' node names (``None`` if the nodes have none)."""
        names = self.names
        return tuple(names[v] for v in self.records) if names else None

    # ------------------------------------------------------------------ factors
    def increments(self, increments) -> dict[int, np.ndarray]:
        """Per-record integer increments ``g_r`` (a vector for every record or an ``(n, s)``
        table; non-negative integers) as ``{node: g}`` (records with ``g = 0`` omitted)."""
        g = np.asarray(increments, dtype=float)
        ok = (
            g.ndim in (1, 2)
            and bool(np.all(np.isfinite(g)))
            and bool(np.all(g >= 0))
            and bool(np.all(g == np.round(g)))
        )
        check(
            ok,
            "increments",
            brief(g),
            "must be non-negative integers: one per state, or an (n, states) table",
        )
        if g.ndim == 1:
            g = np.broadcast_to(g, (self.n, g.size))
        check(
            g.shape[0] == self.n and g.shape[1] >= self.states,
            "increments",
            g.shape,
            f"needs {self.n} rows (records) of >= {self.states} states",
        )
        out = {}
        for r, v in enumerate(self.records):
            gr = g[r, : self.node_states[v]].astype(np.int64)
            if gr.any():
                out[v] = gr
        return out

    def potential(self, k: int, g: np.ndarray | None = None) -> Factor:
        """Factor ``k`` as a :class:`~bdpsim.kernels.graphical.elimination.Factor` (batch 1), with
        ``z^{g(x_v)}`` attached for its home node ``v`` when ``g`` is given."""
        sc, t = self._scopes[k], self._tables[k]
        if g is None:
            return Factor(sc, t[None, ..., None])
        ax = sc.index(self._home_node[k])
        tab = np.zeros(t.shape + (int(g.max()) + 1,))
        for x in range(t.shape[ax]):
            idx = (slice(None),) * ax + (x,)
            tab[idx + (Ellipsis, int(g[x]))] = t[idx]
        return Factor(sc, tab[None])

    def factors(
        self,
        evidence: Mapping[int, np.ndarray] | None = None,
        increments: Mapping[int, np.ndarray] | None = None,
        which: Sequence[int] | None = None,
        likelihood: Mapping[int, np.ndarray] | None = None,
    ) -> list[Factor]:
        """The factors (all, or those numbered ``which``) with ``evidence[node] = values (B,)``
        clamped, ``increments`` attached and ``likelihood[node] = (B, s)`` masks multiplied in."""
        evidence = evidence or {}
        increments = increments or {}
        out = []
        for k in range(len(self._scopes)) if which is None else which:
            v = self._home_node.get(k)
            f = self.potential(k, increments.get(v) if v is not None else None)
            for u in f.vars:
                if u in evidence:
                    f = clamp(f, u, evidence[u])
            out.append(f)
        for v, m in (likelihood or {}).items():
            m = np.asarray(m, dtype=float)
            out.append(Factor((v,), m.reshape(m.shape[0], -1, 1)))
        return out

    def evidence(self, known: Mapping[int, int]) -> dict[int, np.ndarray]:
        """``{node: [value]}`` of known records, each checked against its own states."""
        out = {}
        for r, val in known.items():
            ok = isinstance(r, (int, np.integer)) and not isinstance(r, bool) and 0 <= r < self.n
            check(ok, "known position", r, f"must be a record in 0..{self.n - 1}")
            v = self.records[int(r)]
            ok = (
                isinstance(val, (int, np.integer))
                and not isinstance(val, bool)
                and 0 <= val < self.node_states[v]
            )
            check(
                ok,
                "known value",
                val,
                f"must be a state in 0..{self.node_states[v] - 1} of record {self.record_label(int(r))}",
            )
            out[v] = np.array([int(val)])
        return out

    _evidence = evidence

    def law(
        self,
        factors: Sequence[Factor],
        keep: Sequence[int] = (),
        batch: int = 1,
        what: str = "model",
        max_operations: float = MAX_OPERATIONS,
    ):
        """Eliminate everything but ``keep`` (min-fill order, refused with the estimate when too
        expensive): ``(table (B, *cards(keep), Q), log_scale (B,))``, see
        :func:`~bdpsim.kernels.graphical.elimination.eliminate`."""
        p = plan(
            [f.vars for f in factors],
            dict(enumerate(self.node_states)),
            [f.table.shape[-1] for f in factors],
            keep,
            batch,
        )
        with naming():  # the refusal as a one-line ConfigError naming ``what``
            p.check(what, max_operations)
        return eliminate(factors, p.order, keep)

    def elimination_plan(self, keep: Sequence[int] = (), sums: int = 1):
        """The :class:`~bdpsim.kernels.graphical.elimination.Plan` of eliminating the whole model (its
        induced width and cost), with one running sum of ``sums`` values on the first factor."""
        return plan(
            self._scopes, dict(enumerate(self.node_states)), [sums] + [1] * (len(self._scopes) - 1), keep
        )

    def exact_cost(self) -> tuple[float, float, float]:
        """``(per sample, per exact law, largest table cells)`` in elementary operations, from
        the elimination plans (computed once): the clique tables of one pass over the model, and
        the elimination with a running count (``Q = n + 1``) attached to every record, plus
        :data:`FACTOR_OVERHEAD_UNITS` per factor (Python, measured)."""
        if "cost" not in self._cache:
            sums = [2 if self._home_node.get(k) in self._record_of else 1 for k in range(len(self._scopes))]
            cards = dict(enumerate(self.node_states))
            law = plan(self._scopes, cards, sums)
            one = plan(self._scopes, cards, [1] * len(self._scopes), order=law.order)
            self._cache["cost"] = (
                float(one.operations),
                float(law.operations) + FACTOR_OVERHEAD_UNITS * len(self._scopes),
                float(law.max_cells),
            )
        return self._cache["cost"]

    @property
    def log_partition(self) -> float:
        """``ln Z = ln sum_x prod_k phi_k(x)`` (0 for a Bayesian network)."""
        if "log_partition" not in self._cache:
            tab, ls = self.law(self.factors(), what="partition function")
            z = float(tab.sum())
            self._cache["log_partition"] = float(ls[0]) + math.log(z) if z > 0 else -math.inf
        return self._cache["log_partition"]

    # ------------------------------------------------------------------ exact laws
    def log_evidence(self, known: Mapping[int, int]) -> float:
        """``log P(X_K = x_K)`` for known records (``-inf`` if impossible)."""
        tab, ls = self.law(self.factors(self.evidence(known)))
        z = float(tab.sum())
        return float(ls[0]) + math.log(z) - self.log_partition if z > 0 else -math.inf

    def additive_law(self, known: Mapping[int, int], increments) -> np.ndarray:
        """``P(S = k | known)`` for ``S = sum_r g_r(X_r)`` over all records (known ones included),
        ``k = 0 .. sum_r max g_r``: the contract of ``MarkovChainModel.additive_law``."""
        inc = self.increments(increments)
        top = sum(int(g.max()) for g in inc.values())
        tab, _ = self.law(self.factors(self.evidence(known), inc))
        law = tab.reshape(-1)
        z = law.sum()
        if not z > 0:
            raise ConfigError("known", brief(dict(known)), "conditioning event has probability zero")
        return np.pad(law / z, (0, top + 1 - law.size))

    def additive_law_masked(self, allowed: np.ndarray, increments) -> tuple[np.ndarray, np.ndarray]:
        """Law of ``S`` for a batch of masks ``allowed[b, r, x]`` (state ``x`` of record ``r``
        allowed in condition ``b``), as ``MarkovChainModel.additive_law_masked``: ``law``
        ``(B, sum max g + 1)`` (nan rows for impossible conditions) and ``log P(condition)``."""
        inc = self.increments(increments)
        top = sum(int(g.max()) for g in inc.values())
        allowed = np.asarray(allowed, dtype=float)
        check(
            allowed.ndim == 3 and allowed.shape[1] == self.n and allowed.shape[2] >= self.states,
            "allowed",
            allowed.shape,
            f"must have shape (B, {self.n}, {self.states})",
        )
        like = {
            v: allowed[:, r, : self.node_states[v]]
            for r, v in enumerate(self.records)
            if not np.all(allowed[:, r, : self.node_states[v]] == 1)
        }
        tab, ls = self.law(self.factors(increments=inc, likelihood=like), batch=allowed.shape[0])
        law = np.broadcast_to(tab.reshape(tab.shape[0], -1), (allowed.shape[0], tab.shape[-1]))
        z = law.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = law / z[:, None]
            logz = np.broadcast_to(ls, z.shape) + np.log(z) - self.log_partition
        out[~(z > 0)] = np.nan
        return np.pad(out, ((0, 0), (0, top + 1 - out.shape[1]))), logz

    def query_law(self, query, known: Mapping[int, int]) -> tuple[np.ndarray, np.ndarray] | None:
        """Exact law ``(atoms, probabilities)`` of an additive query given ``known``
        (:func:`~bdpsim.models.base.additive_query_law`); ``None`` for other queries."""
        return additive_query_law(self, query, known)

    # ------------------------------------------------------------------ junction tree
    def check_tractable(self, field: str = "junction tree", scopes=None):
        """The min-fill plan of a junction tree of the model (the cost of exact conditional
        sampling, marginals and the Markov Quilt), refused in one line naming ``field`` when
        its largest clique table exceeds :data:`MAX_CLIQUE_CELLS` cells."""
        scopes = self._scopes if scopes is None else scopes
        cards = dict(enumerate(self.node_states))
        width, cells = min_clique_cells(interaction_graph(scopes), cards)  # O(V + E): before min-fill
        if cells > MAX_CLIQUE_CELLS:
            raise ConfigError(
                field,
                f"{self.size} nodes, induced width at least {width}",
                f"infeasible: exact conditional sampling needs a junction tree with a clique "
                f"table of at least {magnitude(cells)} cells (limit {MAX_CLIQUE_CELLS:.3g}; the cost is "
                "O(N s^(w+1)) for treewidth w)",
            )
        p = plan(scopes, cards, [1] * len(scopes))
        if p.max_cells > MAX_CLIQUE_CELLS:
            raise ConfigError(
                field,
                f"{self.size} nodes, induced width {p.width}",
                f"infeasible: exact conditional sampling needs a junction tree with a clique "
                f"table of {magnitude(p.max_cells, p.log10_cells)} cells (limit "
                f"{MAX_CLIQUE_CELLS:.3g}; the cost is O(N s^(w+1)) for treewidth w)",
            )
        return p

    def junction_tree(self, known: Mapping[int, int] | None = None, what: str = "junction tree"):
        """Calibrated junction tree of ``P(. | known)`` (:mod:`bdpsim.kernels.graphical.junction`),
        refused in one line when its largest clique table exceeds :data:`MAX_CLIQUE_CELLS`."""
        fs = self.factors(self.evidence(known or {}))
        p = self.check_tractable(what, [f.vars for f in fs])
        jt = junction_tree(fs, dict(enumerate(self.node_states)), p.order).calibrate(fs)
        if not jt.log_evidence > -math.inf:
            raise ConfigError("known", brief(dict(known or {})), "conditioning event has probability zero")
        return jt

    def marginals(self, known: Mapping[int, int]) -> np.ndarray:
        """``P(X_r = x | known)`` per record, shape ``(n, states)`` (zero-padded)."""
        jt = self.junction_tree(known)
        ev = self.evidence(known)
        out = np.zeros((self.n, self.states))
        for r, v in enumerate(self.records):
            if v in ev:
                out[r, int(ev[v][0])] = 1.0
            else:
                out[r, : self.node_states[v]] = jt.marginal(v)
        return out

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Unconditional draws, shape ``(size, n)``, int16 (junction-tree sampling)."""
        return self._draw({}, size, rng)

    def sample_conditional(self, known: Mapping[int, int], size: int, rng: np.random.Generator) -> np.ndarray:
        """Exact draws of the records given ``X_r = known[r]``, shape ``(size, n)``, int16:
        junction tree of the clamped model, then cliques drawn root first given their
        separators (:meth:`bdpsim.kernels.graphical.junction.JunctionTree.sample`)."""
        if not known:
            return self.sample(size, rng)
        return self._draw(known, size, rng)

    def _draw(self, known, size, rng) -> np.ndarray:
        if known:
            jt = self.junction_tree(known)
        else:  # the prior's tree, calibrated once
            jt = self._cache.get("prior") or self._cache.setdefault("prior", self.junction_tree())
        ev = self.evidence(known)
        vals = jt.sample(size, rng)
        out = np.empty((self.n, size), dtype=np.int16)
        for r, v in enumerate(self.records):
            out[r] = ev[v][0] if v in ev else vals[v]
        return np.ascontiguousarray(out.T)
