"""The quilt search of :mod:`bdpsim.calibration.quilt.bayesnet`: junction-tree branches around a record,
their quilts per depth, and the max-influence / ``card(X_N)`` of depth combinations.

See :mod:`bdpsim.calibration.quilt.bayesnet` for the family and the formulas. Internal module.
"""

from __future__ import annotations

import math

import numpy as np

from ...kernels.graphical.elimination import Factor, _align, product
from ...kernels.graphical.junction import divide, marginalize
from ...models.bayesnet.model import BayesNetModel

MAX_TABLE = 1_000_000  # largest joint table of X_i, X_Q (and the clique variables around X_i) computed


class _Branch:
    """One branch of the junction tree leaving ``T_i`` through clique edge ``(entry, root)``:
    its levels (breadth first), and per depth ``k`` (lazily) the quilt part ``Q(k)``, the
    variables ``B(k)`` of levels ``1..k``, the change ``delta(k)`` of ``card(X_N)`` relative to
    the records of ``V_i`` and the kernel ``K_k``. Depth ``H + 1`` ("rim") is the whole branch
    with the private variables of its leaf cliques as quilt nodes (nothing remote behind them)."""

    def __init__(self, jt, nbrs, entry, root, S, V, rec):
        self.jt, self.nbrs, self.V, self.rec = jt, nbrs, V, rec
        self.S = frozenset(S)
        self.levels, prev = [], [(root, entry)]
        while prev:
            self.levels.append(prev)
            prev = [(d, c) for c, f in prev for d in nbrs[c] if d != f]
        self.vars = self.S.union(*(jt.cliques[c] for lev in self.levels for c, _ in lev))
        self.leaf = {c for lev in self.levels for c, f in lev if all(d == f for d in nbrs[c])}
        self.rim = frozenset().union(
            *(
                frozenset(jt.cliques[c]) - _sep(jt, c, f)
                for lev in self.levels
                for c, f in lev
                if c in self.leaf
            )
        )
        self._Q, self._B = [self.S], [frozenset()]
        self.K = [
            Factor(tuple(sorted(self.S)), np.ones((1,) + tuple(jt.cards[v] for v in sorted(self.S)) + (1,)))
        ]
        self.K_rim = None
        self.r: dict[int, np.ndarray] = {}

    @property
    def height(self) -> int:
        return len(self.levels)

    def Q(self, k: int) -> frozenset:
        if k >= self.height:
            return self.rim if k > self.height else frozenset()
        while len(self._Q) <= k:
            j = len(self._Q)
            self._Q.append(
                frozenset().union(
                    *(_sep(self.jt, c, d) for c, f in self.levels[j - 1] for d in self.nbrs[c] if d != f)
                )
            )
        return self._Q[k]

    def B(self, k: int) -> frozenset:
        if k >= self.height:
            return self.vars - self.S
        while len(self._B) <= k:
            j = len(self._B)
            self._B.append(self._B[-1].union(*(self.jt.cliques[c] for c, _ in self.levels[j - 1])))
        return self._B[k]

    def cells(self, k: int) -> int:
        """Entries of the kernel table ``K_k`` (over ``S ∪ Q(k)``)."""
        return math.prod(self.jt.cards[v] for v in self.S | self.Q(k))

    def delta(self, k: int) -> int:
        Q = self.Q(k)
        return len(self.rec & ((self.B(k) - self.V) - Q)) - len(self.rec & self.V & Q)

    def kernel(self, k: int, step, leaf_step) -> Factor:
        """``K_k(x_S, x_Q(k)) = P(X_Q(k) | X_S)`` (``k = H``: no quilt nodes, ones over ``S``)."""
        if k == self.height:
            return self.K[0]
        if k > self.height:
            if self.K_rim is None:
                K, kept = self.K[0], self.S
                for j, lev in enumerate(self.levels, start=1):
                    kept = (
                        kept
                        | frozenset().union(
                            *(frozenset(self.jt.cliques[c]) for c, _ in lev if c in self.leaf)
                        )
                        & self.rim
                    )
                    parts = [K] + [leaf_step(c, f) if c in self.leaf else step(c, f) for c, f in lev]
                    K = marginalize(product(parts), tuple(kept | self.Q(j)))
                self.K_rim = K
            return self.K_rim
        while len(self.K) <= k:
            j = len(self.K)
            parts = [self.K[-1]] + [step(c, f) for c, f in self.levels[j - 1]]
            self.K.append(marginalize(product(parts), tuple(self.S | self.Q(j))))
        return self.K[k]


def _sep(jt, a: int, b: int) -> frozenset:
    return frozenset(jt.cliques[a]) & frozenset(jt.cliques[b])


def _ratio_matrix(J: Factor, v: int, s: int) -> np.ndarray:
    """``r[a, b] = max_{x_Q} ln P(x_Q | a) / P(x_Q | b)`` from the joint ``J`` over ``{v} ∪ Q``;
    ``-inf`` on the diagonal and for values of probability 0; ``+inf`` if ``P(x_Q | b) = 0 <
    P(x_Q | a)``."""
    order = (v,) + tuple(u for u in J.vars if u != v)
    tab = _align(J, order)[0, ..., 0].reshape(s, -1)
    pa = tab.sum(axis=1)
    ok = pa > 0
    c = tab[ok] / pa[ok, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        lc = np.log(c)
        D = lc[:, None, :] - lc[None, :, :]
    D[np.broadcast_to(c[:, None, :] == 0, D.shape)] = -np.inf
    r = np.full((s, s), -np.inf)
    r[np.ix_(ok, ok)] = D.max(axis=2)
    np.fill_diagonal(r, -np.inf)
    return r


def _components_without(adj: dict, v: int) -> dict:
    comp, k = {}, 0
    for s in adj:
        if s == v or s in comp:
            continue
        stack = [s]
        comp[s] = k
        while stack:
            u = stack.pop()
            for w in adj[u]:
                if w != v and w not in comp:
                    comp[w] = k
                    stack.append(w)
        k += 1
    return comp


class QuiltContext:
    """The calibrated junction tree of the prior and what every record's search shares."""

    def __init__(self, model: BayesNetModel):
        self.model = model
        self.jt = jt = model.junction_tree()
        self.nbrs: list[list[int]] = [[] for _ in jt.cliques]
        for c, p in enumerate(jt.parent):
            if p >= 0:
                self.nbrs[c].append(p)
                self.nbrs[p].append(c)
        self.adj = model.moral_graph()
        self.rec = frozenset(model.records)
        self.cache: dict = {}
        tree_of: dict[int, int] = {}
        self.comp_records: dict = {}
        for c in jt.preorder:
            tree_of[c] = c if jt.parent[c] < 0 else tree_of[jt.parent[c]]
        for c, C in enumerate(jt.cliques):
            self.comp_records.setdefault(tree_of[c], set()).update(self.rec & set(C))
        self.tree_of = tree_of

    def step(self, e: int, f: int) -> Factor:
        """``P(X_{Q_e} | X_{S_ef})``: clique ``e`` entered from ``f``, ``Q_e`` its other separators."""
        if (e, f) not in self.cache:
            jt = self.jt
            S = _sep(jt, e, f)
            Qe = frozenset().union(*(_sep(jt, e, g) for g in self.nbrs[e] if g != f))
            self.cache[e, f] = divide(
                marginalize(jt.beliefs[e], tuple(S | Qe)), marginalize(jt.beliefs[e], tuple(S))
            )
        return self.cache[e, f]

    def leaf_step(self, e: int, f: int) -> Factor:
        """``P(X_{C_e} | X_{S_ef})``: a leaf clique's private variables given its separator."""
        if (e, f, "leaf") not in self.cache:
            b = self.jt.beliefs[e]
            self.cache[e, f, "leaf"] = divide(b, marginalize(b, tuple(_sep(self.jt, e, f))))
        return self.cache[e, f, "leaf"]

    def node(self, node: int) -> _Node:
        return _Node(self, node)


class _Node:
    """The branches around one record node and the influence / card of depth combinations."""

    def __init__(self, ctx: QuiltContext, node: int):
        jt, nbrs = ctx.jt, ctx.nbrs
        self.ctx, self.node, self.s = ctx, node, ctx.model.node_states[node]
        Ti = [c for c, C in enumerate(jt.cliques) if node in C]
        self.V = V = frozenset().union(*(jt.cliques[c] for c in Ti))
        P_V, inside, seen = jt.beliefs[Ti[0]], [Ti[0]], {Ti[0]}
        while inside:
            c = inside.pop()
            for d in nbrs[c]:
                if d in Ti and d not in seen:
                    seen.add(d)
                    inside.append(d)
                    P_V = divide(
                        product([P_V, jt.beliefs[d]]), marginalize(jt.beliefs[d], tuple(_sep(jt, c, d)))
                    )
        self.P_V = P_V
        self.branches = [
            _Branch(jt, nbrs, c, d, _sep(jt, c, d), V, ctx.rec) for c in Ti for d in nbrs[c] if d not in Ti
        ]
        self.positive = int((marginalize(P_V, (node,)).table > 0).sum())
        comp = _components_without(ctx.adj, node)
        ids = [{comp[u] for u in b.vars - {node}} for b in self.branches]
        self.separable = all(not (ids[a] & ids[b]) for a in range(len(ids)) for b in range(a + 1, len(ids)))
        self.base = len(ctx.rec & V)
        self.component = len(ctx.comp_records[ctx.tree_of[jt.home[node]]])

    def quilt(self, row) -> tuple[frozenset, frozenset]:
        """``(X_Q, X_N)`` of a depth combination."""
        Q = frozenset().union(*(b.Q(int(d)) for b, d in zip(self.branches, row)))
        return Q, self.V.union(*(b.B(int(d)) for b, d in zip(self.branches, row))) - Q

    def influences(self, combos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Max-influence ``e`` and ``card(X_N)`` of each depth combination (rows of ``combos``)."""
        node, s, off = self.node, self.s, ~np.eye(self.s, dtype=bool)
        kern = lambda b, d: b.kernel(int(d), self.ctx.step, self.ctx.leaf_step)  # noqa: E731
        if self.separable:
            total = np.zeros((len(combos), s, s))
            card = np.full(len(combos), float(self.base))
            for j, b in enumerate(self.branches):
                keys = np.unique(combos[:, j])
                for d in keys:
                    if d not in b.r:
                        PvS = marginalize(self.P_V, tuple({node} | b.S))
                        J = marginalize(product([PvS, kern(b, d)]), tuple({node} | b.Q(int(d))))
                        b.r[d] = _ratio_matrix(J, node, s)
                pos = np.searchsorted(keys, combos[:, j])
                total += np.stack([b.r[int(d)] for d in keys])[pos]
                card += np.array([b.delta(int(d)) for d in keys])[pos]
            return np.maximum(total[:, off].max(axis=1), 0.0), card
        e, card = np.zeros(len(combos)), np.zeros(len(combos))
        for k, row in enumerate(combos):
            Q, N = self.quilt(row)
            card[k] = len(self.ctx.rec & N)
            if math.prod(self.ctx.jt.cards[u] for u in self.V | Q) > MAX_TABLE:
                e[k] = math.inf  # too large to compute: not searched
                continue
            J = marginalize(
                product([self.P_V] + [kern(b, d) for b, d in zip(self.branches, row)]), tuple({node} | Q)
            )
            e[k] = max(0.0, float(_ratio_matrix(J, node, s)[off].max()))
        return e, card

    def sigma(self, eps: float, max_quilts: int):
        """``(sigma_i, quilt, card, e, family, n_scored)`` (module docstring: depths grow by
        doubling while a deeper quilt could still score below the best)."""
        if self.positive < 2:
            return 0.0, (), 0, 0.0, "deterministic", 0
        br, m = self.branches, len(self.branches)
        best = (self.component / eps, (), self.component, 0.0)
        L, scored, family = 8, 0, "per-branch depths"
        while True:
            lb0 = self.base + sum(b.delta(0) for b in br)
            rim = [scored > 0 and lb0 - b.delta(0) + b.delta(b.height + 1) <= eps * best[0] for b in br]
            avail = [
                sorted(
                    d
                    for d in set(range(min(L, b.height) + 1)) | {b.height} | ({b.height + 1} if ok else set())
                    if b.cells(d) <= MAX_TABLE
                )
                for b, ok in zip(br, rim)
            ]
            if math.prod(len(a) for a in avail) <= max_quilts:
                combos = (
                    np.stack(np.meshgrid(*[np.array(a) for a in avail], indexing="ij"), -1).reshape(-1, m)
                    if m
                    else np.zeros((1, 0), dtype=int)
                )
            else:
                family = "common depth"
                combos = np.array(
                    [
                        [min(d, b.height) if min(d, b.height) in a else b.height for b, a in zip(br, avail)]
                        for d in range(min(L, max(b.height for b in br)) + 1)
                    ]
                    + [[b.height + 1 if b.height + 1 in a else b.height for b, a in zip(br, avail)]]
                )
            e, card = self.influences(combos)
            with np.errstate(divide="ignore", invalid="ignore"):
                lam = eps - e
                score = np.where(lam < 0, np.nan, card / lam)
            scored += len(combos)
            if not np.all(np.isnan(score)):
                k = int(np.nanargmin(score))
                if score[k] < best[0]:
                    best = (
                        float(score[k]),
                        tuple(sorted(self.quilt(combos[k])[0])),
                        int(card[k]),
                        float(e[k]),
                    )
            if not any(
                (L + 1 < b.height and lb0 - b.delta(0) + b.delta(L + 1) <= eps * best[0])
                or (not ok and lb0 - b.delta(0) + b.delta(b.height + 1) <= eps * best[0])
                for b, ok in zip(br, rim)
            ):
                return best + (family, scored)
            L *= 2
