"""Pairwise Markov random fields (Potts models) on a graph: undirected correlation, e.g.
friendships in a social network.

``P(x) ∝ exp( sum_{(i,j) in E} J_ij 1[x_i = x_j] + sum_i h_i(x_i) ) prod_i phi_i(x_i) prod_{(i,j)}
psi_ij(x_i, x_j)``

with ``J_ij`` the ``coupling`` (one for all edges or one per edge; ``J > 0``: friends tend to
agree), ``h_i`` the ``field`` (one value per state, or one row per node) and optional explicit
``node_potentials`` ``phi_i`` and ``edge_potentials`` ``psi_ij`` (non-negative). The model is a
:class:`~bdpsim.models.factor_model.FactorModel` with one factor per node (its field and
potential; factor ``v`` carries node ``v``'s query increment) and one per edge, so exact laws,
evidence, conditional sampling and the all-adversary search are those of Bayesian networks;
``Z`` is computed once by variable elimination. Each factor is stored divided by its maximum
(``Z`` absorbs the scale), so couplings up to 100 neither overflow nor underflow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import TYPE_CHECKING, cast

import numpy as np

from ...core.errors import ConfigError, check
from ..common.nodes import check_names, check_records
from ..factor_model import FactorModel
from .check import check_coupling, check_edges, check_field, check_potentials, check_size, check_states


@dataclass(frozen=True)
class MRFModel(FactorModel):
    """A pairwise Potts Markov random field whose ``records`` are the data tuple.

    Parameters
    ----------
    edges : sequence of (int, int)
        Undirected edges between nodes ``0..nodes-1``.
    states : int or sequence of int
        States per node (one int for all).
    coupling : float or sequence of float
        ``J``: one for every edge, or one per edge (default 0: independent nodes).
    field : sequence, optional
        ``h``: one value per state (every node alike) or one row per node (default 0).
    nodes : int, optional
        Number of nodes (default: largest index in ``edges`` + 1).
    node_potentials, edge_potentials : sequence, optional
        Explicit non-negative potentials multiplied in: one row per node, one ``s_i x s_j``
        table per edge.
    records : sequence of int or str, optional
        The nodes that are the data records (default all; names when ``names`` is given).
    names : sequence of str, optional
        Node names (messages and the result tables' name columns).
    """

    # the types after __post_init__ (the constructor's are below); states and records as FactorModel's
    edges: tuple
    states: int = 2  # an int or one count per node; then the most states of a record (_init_factors)
    coupling: float | tuple = 0.0
    field: tuple | None = None
    nodes: int | None = None
    node_potentials: tuple | None = None
    edge_potentials: tuple | None = None
    records: tuple[int, ...] = cast("tuple[int, ...]", None)  # None: every node
    names: tuple | None = None
    kind: str = dc_field(default="mrf", init=False)
    node_states: tuple = dc_field(default=(), init=False, repr=False)

    if TYPE_CHECKING:  # what the constructor accepts (checked and normalised in __post_init__)

        def __init__(
            self,
            edges: Sequence,
            states: int | Sequence[int] = 2,
            coupling: float | Sequence[float] = 0.0,
            field: Sequence | None = None,
            nodes: int | None = None,
            node_potentials: Sequence | None = None,
            edge_potentials: Sequence | None = None,
            records: Sequence[int | str] | None = None,
            names: Sequence[str] | None = None,
        ) -> None: ...

    def __post_init__(self) -> None:
        nodes, edges = check_edges(self.edges, self.nodes)
        cards = check_states(self.states, nodes)
        check_size(cards, edges)  # cheap counts first: before any table is built or ordered
        coupling = check_coupling(self.coupling, len(edges))
        h = check_field(self.field, cards)
        phi, psi = check_potentials(self.node_potentials, self.edge_potentials, cards, edges)
        names = check_names(self.names, nodes)
        records = check_records(self.records, nodes, names)
        tables = []
        for v in range(nodes):
            t = np.exp(h[v] - h[v].max())
            if phi is not None:
                t = t * phi[v]
            check(
                bool(t.max() > 0),
                f"model.node_potentials[{v}]",
                phi[v].tolist() if phi else None,
                "needs an entry > 0",
            )
            tables.append(t / t.max())
        for k, (i, j) in enumerate(edges):
            same = np.equal.outer(np.arange(cards[i]), np.arange(cards[j]))
            t = np.exp(coupling[k] * same - max(coupling[k], 0.0))
            if psi is not None:
                t = t * psi[k]
                check(bool(t.max() > 0), f"model.edge_potentials[{k}]", psi[k].tolist(), "needs an entry > 0")
            tables.append(t / t.max())
        for t in tables:
            t.setflags(write=False)
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "edges", edges)
        object.__setattr__(
            self,
            "coupling",
            tuple(coupling.tolist()) if not np.isscalar(self.coupling) else float(cast(float, self.coupling)),
        )
        self._init_factors(
            cards, records, [(v,) for v in range(nodes)] + list(edges), tables, range(nodes), names
        )

    def check_normalisable(self) -> None:
        """Refuse a model whose potentials give every joint state weight zero."""
        lz = self.log_partition
        if not np.isfinite(lz):
            raise ConfigError("model", "potentials", "every joint state has weight zero (Z = 0)")

    def joint_table(self) -> np.ndarray:
        """``P(x)`` over every joint state of the nodes (small models; for checks)."""
        check(
            bool(np.prod([float(s) for s in self.node_states]) <= 1e7),
            "model",
            f"{self.size} nodes",
            "joint_table needs at most 1e7 joint states",
        )
        logp = np.zeros(self.node_states)
        for sc, t in zip(self.scopes, self._tables, strict=True):
            shape = [1] * self.size
            for v in sc:
                shape[v] = self.node_states[v]
            with np.errstate(divide="ignore"):
                logp = logp + np.log(t).transpose(np.argsort(sc)).reshape(shape)
        p = np.exp(logp - logp.max())
        return p / p.sum()
