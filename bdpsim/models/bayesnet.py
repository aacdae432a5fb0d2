"""Discrete Bayesian-network data model (Pufferfish paper §4; issue 18).

Nodes ``0..N-1`` in topological order, node ``j`` with ``s_j >= 2`` states, parents ``pa(j)``
(earlier nodes) and conditional table ``cpt[j][x_pa(j)..., x_j] = P(X_j = x_j | X_pa(j))``, so
``P(x) = prod_j cpt[j][x_pa(j), x_j]``. The data tuple is ``X_records``: record ``r`` is node
``records[r]`` (default: every node); the other nodes are hidden (the states of a hidden Markov
model). Markov chains, pedigrees and HMMs are special cases (:meth:`BayesNetModel.from_markov`,
:meth:`~BayesNetModel.from_pedigree`, :meth:`~BayesNetModel.hmm`).

Exact computations go through :mod:`bdpsim.kernels.elimination` (laws of additive queries
``S = sum_r g_r(X_r)`` by variable elimination over (clique, running sum), ``O(N s^(w+1) Q)``
for induced width ``w``; refused up front with the estimate when infeasible) and
:mod:`bdpsim.kernels.junction` (evidence, marginals and exact conditional sampling by a
calibrated junction tree, ``O(N s^(w+1))``). Evidence is clamped, so both are exact for any known
set. Config reading (``build``), pgmpy and BIF import (``from_pgmpy``, ``from_bif``) are in
:mod:`.bayesnet_build`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError, check
from ..kernels.chains import stationary_distribution, transition_matrix
from ..kernels.elimination import Factor, clamp, eliminate, plan
from .base import additive_query_law
from ..kernels.junction import junction_tree
from .bayesnet_check import check_network, check_records

MAX_OPERATIONS = 1e10


@dataclass(frozen=True)
class BayesNetModel:
    """A discrete Bayesian network whose ``records`` are the data tuple.

    Parameters
    ----------
    parents : sequence of sequences of int
        ``parents[j]``: the parents of node ``j``, all earlier nodes (topological order).
    cpt : sequence of nested lists / arrays
        ``cpt[j]`` indexed by the parents' states (in ``parents[j]`` order), then ``x_j``; every
        row sums to 1 (within 1e-9).
    states : int or sequence of int, optional
        States per node (one int for all); default read from the tables. After construction
        ``states`` is the largest number of states of a record (as ``MarkovChainModel.states``);
        ``node_states`` keeps one count per node and ``record_states`` one per record.
    records : sequence of int, optional
        Nodes that are the data records (record ``r`` is node ``records[r]``); default all.
    names : sequence of str, optional
        Node names (for reports; set by :func:`~bdpsim.models.bayesnet_build.from_pgmpy`).
    """

    parents: tuple
    cpt: tuple
    states: int | tuple | None = None
    records: tuple | None = None
    names: tuple | None = None
    kind: str = field(default="bayesnet", init=False)
    node_states: tuple = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        parents, cpt, node_states = check_network(self.parents, self.cpt, self.states)
        records = check_records(self.records, len(parents))
        if self.names is not None:
            check(len(self.names) == len(parents), "model.names", list(self.names)[:5],
                  f"needs one name per node ({len(parents)})")
            object.__setattr__(self, "names", tuple(str(s) for s in self.names))
        object.__setattr__(self, "parents", parents)
        object.__setattr__(self, "cpt", cpt)
        object.__setattr__(self, "node_states", node_states)
        object.__setattr__(self, "records", records)
        object.__setattr__(self, "states", max(node_states[r] for r in records))
        object.__setattr__(self, "_record_of", {v: r for r, v in enumerate(records)})
        object.__setattr__(self, "_positive", all(bool(np.all(t > 0)) for t in cpt))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_markov(cls, model) -> "BayesNetModel":
        """The chain ``X_0 -> X_1 -> ...`` of a :class:`~bdpsim.models.MarkovChainModel`."""
        P, w = np.asarray(model.transition), np.asarray(model.initial)
        return cls(((),) + tuple((t - 1,) for t in range(1, model.n)), (w,) + (P,) * (model.n - 1))

    @classmethod
    def from_pedigree(cls, model) -> "BayesNetModel":
        """The Mendelian model of a :class:`~bdpsim.models.PedigreeModel` (thesis Table 3):
        founders with the founder law, children with ``T[g_parent1, g_parent2, .]``."""
        from .pedigree import TRANSMISSION

        law = np.asarray(model.founder_probabilities)
        return cls(tuple(tuple(p) for p in model.parents),
                   tuple(TRANSMISSION if p else law for p in model.parents))

    @classmethod
    def hmm(cls, transition, emission, n: int, initial=None) -> "BayesNetModel":
        """Hidden chain ``H_0 -> H_1 -> ...`` (``transition``, start law ``initial``, default
        stationary) with one observed record ``O_t ~ emission[H_t]`` per step; node ``2t`` is
        ``H_t``, node ``2t + 1`` is ``O_t``, and the records are the observations."""
        P = transition_matrix(transition)
        E = np.asarray(emission, dtype=float)
        check(E.ndim == 2 and E.shape[0] == P.shape[0] and E.shape[1] >= 2, "model.hmm.emission",
              E.tolist() if E.size < 50 else E.shape,
              f"must be a matrix with one row per hidden state ({P.shape[0]}) and >= 2 columns")
        check(isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1, "model.hmm.n", n,
              "must be an integer >= 1")
        w = stationary_distribution(P) if initial is None else np.asarray(initial, dtype=float)
        parents, cpt = [], []
        for t in range(int(n)):
            parents += [(2 * t - 2,) if t else (), (2 * t,)]
            cpt += [P if t else w, E]
        return cls(tuple(parents), tuple(cpt), records=tuple(range(1, 2 * int(n), 2)))

    # ------------------------------------------------------------------ structure
    @property
    def n(self) -> int:
        """Number of records."""
        return len(self.records)

    @property
    def size(self) -> int:
        """Number of nodes (records and hidden)."""
        return len(self.parents)

    @property
    def record_states(self) -> tuple[int, ...]:
        return tuple(self.node_states[v] for v in self.records)

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(v for v in range(self.size) if v not in self._record_of)

    @property
    def is_positive(self) -> bool:
        """Every table entry > 0 (every joint state has positive probability)."""
        return self._positive

    def moral_graph(self) -> dict[int, set[int]]:
        """Undirected moral graph: parent-child edges plus edges between co-parents."""
        adj = {v: set() for v in range(self.size)}
        for j, pa in enumerate(self.parents):
            fam = (j,) + pa
            for a in fam:
                adj[a].update(b for b in fam if b != a)
        return adj

    def node(self, record: int) -> int:
        return self.records[record]

    # ------------------------------------------------------------------ factors
    def increments(self, increments) -> dict[int, np.ndarray]:
        """Per-record integer increments ``g_r`` (a vector for every record or an ``(n, s)``
        table; non-negative integers) as ``{node: g}`` (records with ``g = 0`` omitted)."""
        g = np.asarray(increments, dtype=float)
        ok = g.ndim in (1, 2) and bool(np.all(np.isfinite(g))) and bool(np.all(g >= 0)) \
            and bool(np.all(g == np.round(g)))
        check(ok, "increments", g.tolist() if g.size < 40 else g.shape,
              "must be non-negative integers: one per state, or an (n, states) table")
        if g.ndim == 1:
            g = np.broadcast_to(g, (self.n, g.size))
        check(g.shape[0] == self.n and g.shape[1] >= self.states, "increments", g.shape,
              f"needs {self.n} rows (records) of >= {self.states} states")
        out = {}
        for r, v in enumerate(self.records):
            gr = g[r, :self.node_states[v]].astype(np.int64)
            if gr.any():
                out[v] = gr
        return out

    def node_factor(self, j: int, g: np.ndarray | None = None) -> Factor:
        """``P(X_j | X_pa(j))`` as a factor over ``(pa(j)..., j)``, with ``z^{g(x_j)}`` attached."""
        t = self.cpt[j]
        if g is None:
            return Factor(self.parents[j] + (j,), t[None, ..., None])
        tab = np.zeros(t.shape + (int(g.max()) + 1,))
        for x in range(t.shape[-1]):
            tab[..., x, g[x]] = t[..., x]
        return Factor(self.parents[j] + (j,), tab[None])

    def factors(self, evidence: Mapping[int, np.ndarray] | None = None,
                increments: Mapping[int, np.ndarray] | None = None,
                nodes: Sequence[int] | None = None,
                likelihood: Mapping[int, np.ndarray] | None = None) -> list[Factor]:
        """Node factors (all, or the CPTs of ``nodes``) with ``evidence[node] = values (B,)``
        clamped, ``increments`` attached and ``likelihood[node] = (B, s)`` masks multiplied in."""
        evidence = evidence or {}
        increments = increments or {}
        out = []
        for j in (range(self.size) if nodes is None else nodes):
            f = self.node_factor(j, increments.get(j))
            for v in f.vars:
                if v in evidence:
                    f = clamp(f, v, evidence[v])
            out.append(f)
        for v, m in (likelihood or {}).items():
            m = np.asarray(m, dtype=float)
            out.append(Factor((v,), m.reshape(m.shape[0], -1, 1)))
        return out

    def _evidence(self, known: Mapping[int, int]) -> dict[int, np.ndarray]:
        out = {}
        for r, val in known.items():
            ok = isinstance(r, (int, np.integer)) and not isinstance(r, bool) and 0 <= r < self.n
            check(ok, "known position", r, f"must be a record in 0..{self.n - 1}")
            v = self.records[int(r)]
            ok = isinstance(val, (int, np.integer)) and not isinstance(val, bool) and 0 <= val < self.node_states[v]
            check(ok, "known value", val, f"must be a state in 0..{self.node_states[v] - 1} of record {r}")
            out[v] = np.array([int(val)])
        return out

    def law(self, factors: Sequence[Factor], keep: Sequence[int] = (), batch: int = 1,
            what: str = "model", max_operations: float = MAX_OPERATIONS):
        """Eliminate everything but ``keep`` (min-fill order, refused with the estimate when too
        expensive): ``(table (B, *cards(keep), Q), log_scale (B,))``, see
        :func:`~bdpsim.kernels.elimination.eliminate`."""
        p = plan([f.vars for f in factors], dict(enumerate(self.node_states)),
                 [f.table.shape[-1] for f in factors], keep, batch)
        p.check(what, max_operations)
        return eliminate(factors, p.order, keep)

    # ------------------------------------------------------------------ exact laws
    def log_evidence(self, known: Mapping[int, int]) -> float:
        """``log P(X_K = x_K)`` for known records (``-inf`` if impossible)."""
        tab, ls = self.law(self.factors(self._evidence(known)))
        z = float(tab.sum())
        return float(ls[0]) + math.log(z) if z > 0 else -math.inf

    def additive_law(self, known: Mapping[int, int], increments) -> np.ndarray:
        """``P(S = k | known)`` for ``S = sum_r g_r(X_r)`` over all records (known ones included),
        ``k = 0 .. sum_r max g_r``: the contract of ``MarkovChainModel.additive_law``."""
        inc = self.increments(increments)
        top = sum(int(g.max()) for g in inc.values())
        tab, _ = self.law(self.factors(self._evidence(known), inc))
        law = tab.reshape(-1)
        z = law.sum()
        if not z > 0:
            raise ConfigError("known", dict(known), "conditioning event has probability zero")
        return np.pad(law / z, (0, top + 1 - law.size))

    def additive_law_masked(self, allowed: np.ndarray, increments) -> tuple[np.ndarray, np.ndarray]:
        """Law of ``S`` for a batch of masks ``allowed[b, r, x]`` (state ``x`` of record ``r``
        allowed in condition ``b``), as ``MarkovChainModel.additive_law_masked``: ``law``
        ``(B, sum max g + 1)`` (nan rows for impossible conditions) and ``log P(condition)``."""
        inc = self.increments(increments)
        top = sum(int(g.max()) for g in inc.values())
        allowed = np.asarray(allowed, dtype=float)
        check(allowed.ndim == 3 and allowed.shape[1] == self.n and allowed.shape[2] >= self.states,
              "allowed", allowed.shape, f"must have shape (B, {self.n}, {self.states})")
        like = {v: allowed[:, r, :self.node_states[v]] for r, v in enumerate(self.records)
                if not np.all(allowed[:, r, :self.node_states[v]] == 1)}
        tab, ls = self.law(self.factors(increments=inc, likelihood=like), batch=allowed.shape[0])
        law = np.broadcast_to(tab.reshape(tab.shape[0], -1), (allowed.shape[0], tab.shape[-1]))
        z = law.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = law / z[:, None]
            logz = np.broadcast_to(ls, z.shape) + np.log(z)
        out[~(z > 0)] = np.nan
        return np.pad(out, ((0, 0), (0, top + 1 - out.shape[1]))), logz

    def query_law(self, query, known: Mapping[int, int]) -> tuple[np.ndarray, np.ndarray] | None:
        """Exact law ``(atoms, probabilities)`` of an additive query given ``known``
        (:func:`~bdpsim.models.base.additive_query_law`); ``None`` for other queries."""
        return additive_query_law(self, query, known)

    # ------------------------------------------------------------------ junction tree
    def junction_tree(self, known: Mapping[int, int] | None = None):
        """Calibrated junction tree of ``P(. | known)`` (:mod:`bdpsim.kernels.junction`)."""
        fs = self.factors(self._evidence(known or {}))
        jt = junction_tree(fs, dict(enumerate(self.node_states))).calibrate(fs)
        if not jt.log_evidence > -math.inf:
            raise ConfigError("known", dict(known or {}), "conditioning event has probability zero")
        return jt

    def marginals(self, known: Mapping[int, int]) -> np.ndarray:
        """``P(X_r = x | known)`` per record, shape ``(n, states)`` (zero-padded)."""
        jt = self.junction_tree(known)
        ev = self._evidence(known)
        out = np.zeros((self.n, self.states))
        for r, v in enumerate(self.records):
            if v in ev:
                out[r, int(ev[v][0])] = 1.0
            else:
                out[r, :self.node_states[v]] = jt.marginal(v)
        return out

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Unconditional draws (ancestral sampling), shape ``(size, n)``, int16."""
        x = np.empty((size, self.size), dtype=np.int64)
        for j in range(self.size):
            t = self.cpt[j]
            pa = self.parents[j]
            idx = np.ravel_multi_index(tuple(x[:, p] for p in pa), t.shape[:-1]) if pa else 0
            cdf = np.cumsum(t.reshape(-1, t.shape[-1]), axis=1)[:, :-1]
            x[:, j] = (rng.random(size)[:, None] >= np.atleast_2d(cdf[idx])).sum(axis=1)
        return x[:, list(self.records)].astype(np.int16)

    def sample_conditional(self, known: Mapping[int, int], size: int,
                           rng: np.random.Generator) -> np.ndarray:
        """Exact draws of the records given ``X_r = known[r]``, shape ``(size, n)``, int16:
        junction tree of the clamped network, then cliques drawn root first given their
        separators (:meth:`bdpsim.kernels.junction.JunctionTree.sample`)."""
        if not known:
            return self.sample(size, rng)
        jt = self.junction_tree(known)
        ev = self._evidence(known)
        vals = jt.sample(size, rng)
        out = np.empty((self.n, size), dtype=np.int16)
        for r, v in enumerate(self.records):
            out[r] = ev[v][0] if v in ev else vals[v]
        return np.ascontiguousarray(out.T)
