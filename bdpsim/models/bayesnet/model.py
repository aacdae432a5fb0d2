"""Discrete Bayesian-network data model (Pufferfish paper §4).

Nodes ``0..N-1`` in topological order, node ``j`` with ``s_j >= 2`` states, parents ``pa(j)``
(earlier nodes) and conditional table ``cpt[j][x_pa(j)..., x_j] = P(X_j = x_j | X_pa(j))``, so
``P(x) = prod_j cpt[j][x_pa(j), x_j]``. The data tuple is ``X_records``: record ``r`` is node
``records[r]`` (default: every node); the other nodes are hidden (the states of a hidden Markov
model). Markov chains, pedigrees and HMMs are special cases (:meth:`BayesNetModel.from_markov`,
:meth:`~BayesNetModel.from_pedigree`, :meth:`~BayesNetModel.hmm`).

The network is a :class:`~bdpsim.models.factor_model.FactorModel` with one factor per node (its
table; ``Z = 1``), and everything exact is the factor model's (shared with the Markov random
fields of :mod:`bdpsim.models.mrf`); only ancestral sampling is the network's own.
Exact computations go through :mod:`bdpsim.kernels.graphical.elimination` (laws of additive queries
``S = sum_r g_r(X_r)`` by variable elimination over (clique, running sum), ``O(N s^(w+1) Q)``
for induced width ``w``; refused up front with the estimate when infeasible) and
:mod:`bdpsim.kernels.graphical.junction` (evidence, marginals and exact conditional sampling by a
calibrated junction tree, ``O(N s^(w+1))``). Evidence is clamped, so both are exact for any known
set. Config reading (``build``), pgmpy and BIF import (``from_pgmpy``, ``from_bif``) are in
:mod:`bdpsim.models.bayesnet.build`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from ...core.errors import check, naming
from ...kernels.chains.transition import stationary_distribution, transition_matrix
from ...kernels.graphical.elimination import Factor
from ..common.genetics import TRANSMISSION
from ..common.nodes import brief
from ..factor_model import MAX_OPERATIONS, FactorModel  # noqa: F401 (MAX_OPERATIONS re-exported)
from .check import MAX_NODES, TABLE_TOLERANCE, check_network, check_records, rounding_slack
from .states import CountCodes, check_state_names, count_codes


@dataclass(frozen=True)
class BayesNetModel(FactorModel):
    """A discrete Bayesian network whose ``records`` are the data tuple.

    Parameters
    ----------
    parents : sequence of sequences of int
        ``parents[j]``: the parents of node ``j``, all earlier nodes (topological order).
    cpt : sequence of nested lists / arrays
        ``cpt[j]`` indexed by the parents' states (in ``parents[j]`` order), then ``x_j``; every
        row (a root's whole table) sums to 1 within ``table_tolerance`` and is renormalised.
    states : int or sequence of int, optional
        States per node (one int for all); default read from the tables. After construction
        ``states`` is the largest number of states of a record (as ``MarkovChainModel.states``);
        ``node_states`` keeps one count per node and ``record_states`` one per record.
    records : sequence of int, optional
        Nodes that are the data records (record ``r`` is node ``records[r]``); default all.
    names : sequence of str, optional
        Node names, distinct (for reports and messages; set by
        :func:`~bdpsim.models.bayesnet.build.from_pgmpy`); ``records`` may then name nodes.
    state_names : sequence of sequences of str, optional
        Per node, the names of its states in index order (distinct within a node; set from a BIF
        file or a pgmpy model): counted states may then be given by name
        (:meth:`count_codes`) and results and messages quote them.
    table_tolerance : float
        Largest ``|row sum - 1|`` renormalised (default 1e-6); ``notes`` then says so.
    """

    parents: tuple
    cpt: tuple
    # the types after __post_init__ (the constructor's are below); states and records as FactorModel's
    states: int = cast(int, None)  # None, an int or one count per node; then the most states of a record
    records: tuple[int, ...] = cast("tuple[int, ...]", None)  # None: every node
    names: tuple | None = None
    table_tolerance: float = TABLE_TOLERANCE
    state_names: tuple | None = None
    kind: str = field(default="bayesnet", init=False)
    node_states: tuple = field(default=(), init=False, repr=False)
    notes: tuple = field(default=(), init=False, repr=False, compare=False)

    if TYPE_CHECKING:  # what the constructor accepts (checked and normalised in __post_init__)

        def __init__(
            self,
            parents: Sequence,
            cpt: Sequence,
            states: int | Sequence[int] | None = None,
            records: Sequence[int | str] | None = None,
            names: Sequence[str] | None = None,
            table_tolerance: float = TABLE_TOLERANCE,
            state_names: Sequence[Sequence[str] | None] | None = None,
        ) -> None: ...

    def __post_init__(self) -> None:
        parents, cpt, node_states, notes = check_network(
            self.parents, self.cpt, self.states, self.names, self.table_tolerance
        )
        records = check_records(self.records, len(parents), self.names)
        object.__setattr__(self, "parents", parents)
        object.__setattr__(self, "cpt", cpt)
        object.__setattr__(self, "notes", notes)
        self._init_factors(
            node_states,
            records,
            [pa + (j,) for j, pa in enumerate(parents)],
            cpt,
            range(len(parents)),
            self.names,
            log_partition=0.0,
        )
        object.__setattr__(self, "state_names", check_state_names(self.state_names, self.node_states))

    def __repr__(self) -> str:
        """Nodes, per-node cardinalities, records and names (not the tables)."""
        parts = [f"nodes={self.size}", f"states={self.node_states}"]
        if self.records != tuple(range(self.size)):
            parts.append(f"records={self.records}")
        if self.names is not None:
            parts.append(f"names={brief(self.names)}")
        if self.state_names is not None:
            parts.append(f"state_names={brief(self.state_names)}")
        return f"BayesNetModel({', '.join(parts)})"

    # ------------------------------------------------------------------ states by name
    def state_label(self, record: int, state: int) -> str:
        """``'yes'`` (the state's name) or ``'1'`` for state ``state`` of record ``record``."""
        names = self.state_names
        return names[self.records[record]][state] if names is not None else str(state)

    def count_codes(self, values, field_name: str = "mechanism.counted_states") -> CountCodes:
        """The state indices a count of ``values`` (the network's state names, or indices) counts
        on each record: a name counts on the records that have it (at its index there); records
        with no counted state are listed in the result (:mod:`bdpsim.models.bayesnet.states`).
        Raises :class:`~bdpsim.core.errors.ConfigError` naming the records when an index is past
        some records' states, and listing the network's state names when a name is none of them.

        Returns
        -------
        CountCodes
            Per-record indices, the records left out, and the query
            (:meth:`~bdpsim.models.bayesnet.states.CountCodes.query`).
        """
        return count_codes(self, values, field_name)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_markov(cls, model) -> BayesNetModel:
        """The chain ``X_0 -> X_1 -> ...`` of a :class:`~bdpsim.models.MarkovChainModel`."""
        P, w = np.asarray(model.transition), np.asarray(model.initial)
        return cls(((),) + tuple((t - 1,) for t in range(1, model.n)), (w,) + (P,) * (model.n - 1))

    @classmethod
    def from_pedigree(cls, model) -> BayesNetModel:
        """The Mendelian model of a :class:`~bdpsim.models.PedigreeModel` (thesis Table 3):
        founders with the founder law, children with ``T[g_parent1, g_parent2, .]``."""
        law = np.asarray(model.founder_probabilities)
        return cls(
            tuple(tuple(p) for p in model.parents), tuple(TRANSMISSION if p else law for p in model.parents)
        )

    @classmethod
    def hmm(
        cls, transition, emission, n: int, initial=None, table_tolerance: float = TABLE_TOLERANCE
    ) -> BayesNetModel:
        """Hidden chain ``H_0 -> H_1 -> ...`` (``transition``, start law ``initial``, default
        stationary) with one observed record ``O_t ~ emission[H_t]`` per step; node ``2t`` is
        ``H_t``, node ``2t + 1`` is ``O_t`` (named ``H0, O0, H1, ...``), and the records are the
        observations. ``n`` is checked (at most ``MAX_NODES / 2``) before anything is built."""
        check(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) and 1 <= n <= MAX_NODES // 2,
            "model.hmm.n",
            n,
            f"must be an integer in 1..{MAX_NODES // 2} (2n nodes, at most {MAX_NODES})",
        )
        with naming(fields={"P": "model.hmm.transition"}):
            P = transition_matrix(transition)
        E = np.asarray(emission, dtype=float)
        check(
            E.ndim == 2 and E.shape[0] == P.shape[0] and E.shape[1] >= 2,
            "model.hmm.emission",
            E.tolist() if E.size < 50 else E.shape,
            f"must be a matrix with one row per hidden state ({P.shape[0]}) and >= 2 columns",
        )
        if initial is None:
            w = stationary_distribution(P)
        else:
            try:
                w = np.asarray(initial, dtype=float)
            except (TypeError, ValueError):
                w = np.full(0, np.nan)
            ok = (
                w.shape == (P.shape[0],)
                and bool(np.all(np.isfinite(w)))
                and bool(np.all(w >= 0))
                and abs(float(w.sum()) - 1) <= table_tolerance + rounding_slack(w.size)
            )
            check(
                ok,
                "model.hmm.initial",
                initial,
                f"must be {P.shape[0]} probabilities >= 0 summing to 1 "
                f"(within model.table_tolerance = {table_tolerance:g})",
            )
        parents, cpt, names = [], [], []
        for t in range(int(n)):
            parents += [(2 * t - 2,) if t else (), (2 * t,)]
            cpt += [P if t else w, E]
            names += [f"H{t}", f"O{t}"]
        return cls(
            tuple(parents),
            tuple(cpt),
            records=tuple(range(1, 2 * int(n), 2)),
            names=tuple(names),
            table_tolerance=table_tolerance,
        )

    # ------------------------------------------------------------------ structure
    def moral_graph(self) -> dict[int, set[int]]:
        """Undirected moral graph: parent-child edges plus edges between co-parents (the
        interaction graph of the conditional tables)."""
        return self.interaction_graph()

    def node_factor(self, j: int, g: np.ndarray | None = None) -> Factor:
        """``P(X_j | X_pa(j))`` as a factor over ``(pa(j)..., j)``, with ``z^{g(x_j)}`` attached."""
        return self.potential(j, g)

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
