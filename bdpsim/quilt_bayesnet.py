"""The Markov Quilt mechanism for any Bayesian network (Song, Wang & Chaudhuri 2017, §4), and
the chain mechanism with estimated parameters (their §5).

**Mechanism** (paper §4.2, Thm 4.4). For each record ``X_i`` and each Markov quilt ``X_Q`` of it
in the family searched (``X_Q`` separates a nearby set ``X_N ∋ X_i`` from the remote rest ``X_R``),
the exact max-influence from the joint law ``e = max_{a != b} max_{x_Q} ln P(X_Q = x_Q | X_i = a) /
P(X_Q = x_Q | X_i = b)`` (values of positive probability), score ``card(X_N)/(eps - e)``
(``nan`` if ``e > eps``, ``inf`` if ``e = eps``, as the authors' code); ``sigma_i`` = least
score, ``sigma = max_i sigma_i``; release ``F(D) + sigma Lap(1)`` for 1-Lipschitz ``F``.
``card(X_N)`` counts *records* only: hidden nodes are not data, ``F`` does not depend on them
(the proof's coupling changes at most the records of ``X_N``), and only records are secrets.

**Quilt family searched** (the full family is exponential). Take a junction tree of the network
(min-fill, :mod:`bdpsim.kernels.junction`) and ``T_i``, the subtree of the cliques holding ``X_i``
(with variables ``V_i``). Each tree edge leaving ``T_i`` starts a *branch*; give each branch a depth
``d = 0 .. H`` (``H``: its number of levels) and let ``T_N`` be ``T_i`` plus the branch cliques
within ``d`` steps. ``X_Q`` = the separators of the edges leaving ``T_N`` (for ``d = 0`` the entry
separator, for ``d = H`` none), ``X_N`` = variables of ``T_N`` minus ``X_Q``. One more choice per
branch, the *rim* (``d = H + 1``): the whole branch, with the private variables of its leaf cliques
as quilt nodes and nothing remote behind them. The separators of a junction tree separate its two
sides in the triangulated (hence the moral) graph, so every member is a Markov quilt (the rim
trivially: its remote part is empty). On a chain (cliques ``{t, t+1}``) this is exactly the
authors' family ``{X_{i-a}, X_{i+b}}``, one-sided and trivial (``a = d_left + 1``,
``b = d_right + 1``; the rim is the quilt node ``X_1`` or ``X_T`` itself): the same ``sigma`` as
:func:`bdpsim.quilt.mqm_exact` (binary variant, same node marginals). All depth combinations are
searched when their number is at most ``max_quilts`` per record; otherwise one common depth for all
branches ("common depth"). Quilts whose joint table with ``X_i`` would exceed :data:`MAX_TABLE`
cells (e.g. the rim of an HMM's observations) are not searched. Depths are grown by doubling until
no deeper quilt can win (``card >= eps sigma_i`` bounds the score from below; ``card`` is
non-decreasing in each depth).

**Computing ``P(X_i, X_Q)``.** With calibrated clique beliefs ``beta``, the joint of ``V_i`` is
``prod_{C in T_i} beta_C / prod_{S inside} mu_S``; a branch's quilt law given its entry separator,
``K_d(x_S, x_Q) = P(X_{Q(d)} | X_S)``, follows level by level, ``K_{d+1} = sum K_d prod_e
beta_e / mu_{S_e}``. When ``X_i`` alone separates the branches in the moral graph (chains, trees,
polytrees at most nodes) the influence is a sum over branches and every depth combination is
scored at once; otherwise each combination is one small elimination.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import ConfigError, check
from .kernels.elimination import Factor, _align, product
from .kernels.junction import divide, marginalize
from .models.bayesnet import BayesNetModel
from .quilt import (QuiltResult, _scores, approx_max_influence, authors_eigengap,
                    authors_stationary, mqm_approx_search)

MAX_QUILTS = 200_000   # depth combinations scored per record before falling back to a common depth
MAX_TABLE = 1_000_000  # largest joint table of X_i, X_Q (and the clique variables around X_i) computed
FAMILY = "junction-tree quilts: separators at a chosen depth in each branch around the cliques of X_i"


@dataclass(frozen=True)
class BayesNetQuilt:
    """``sigma`` (Laplace scale for a 1-Lipschitz query) and where it comes from.

    ``record``: the record whose ``sigma_i`` is ``sigma``; ``quilt``: its best quilt's nodes,
    ``nearby``: ``card(X_N)`` (records), ``influence``: ``e``; ``sigma_per_record[r]`` (``nan``
    where not searched); ``family[r]``: ``"per-branch depths"`` or ``"common depth"``;
    ``n_quilts``: quilts scored in all.
    """

    epsilon: float
    sigma: float
    record: int
    quilt: tuple[int, ...]
    nearby: int
    influence: float
    sigma_per_record: np.ndarray
    records_searched: tuple[int, ...]
    family: dict
    n_quilts: int


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
        self.rim = frozenset().union(*(frozenset(jt.cliques[c]) - _sep(jt, c, f)
                                       for lev in self.levels for c, f in lev if c in self.leaf))
        self._Q, self._B = [self.S], [frozenset()]
        self.K = [Factor(tuple(sorted(self.S)), np.ones((1,) + tuple(jt.cards[v] for v in sorted(self.S)) + (1,)))]
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
            self._Q.append(frozenset().union(*(_sep(self.jt, c, d) for c, f in self.levels[j - 1]
                                               for d in self.nbrs[c] if d != f)))
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
                    kept = kept | frozenset().union(*(frozenset(self.jt.cliques[c]) for c, _ in lev
                                                      if c in self.leaf)) & self.rim
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


class _Context:
    """The calibrated junction tree of the prior and what every record's search shares."""

    def __init__(self, model: BayesNetModel):
        self.model = model
        self.jt = jt = model.junction_tree()
        self.nbrs = [[] for _ in jt.cliques]
        for c, p in enumerate(jt.parent):
            if p >= 0:
                self.nbrs[c].append(p)
                self.nbrs[p].append(c)
        self.adj = model.moral_graph()
        self.rec = frozenset(model.records)
        self.cache: dict = {}
        tree_of, self.comp_records = {}, {}
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
            self.cache[e, f] = divide(marginalize(jt.beliefs[e], tuple(S | Qe)),
                                      marginalize(jt.beliefs[e], tuple(S)))
        return self.cache[e, f]

    def leaf_step(self, e: int, f: int) -> Factor:
        """``P(X_{C_e} | X_{S_ef})``: a leaf clique's private variables given its separator."""
        if (e, f, "leaf") not in self.cache:
            b = self.jt.beliefs[e]
            self.cache[e, f, "leaf"] = divide(b, marginalize(b, tuple(_sep(self.jt, e, f))))
        return self.cache[e, f, "leaf"]

    def node(self, node: int) -> "_Node":
        return _Node(self, node)


class _Node:
    """The branches around one record node and the influence / card of depth combinations."""

    def __init__(self, ctx: _Context, node: int):
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
                    P_V = divide(product([P_V, jt.beliefs[d]]), marginalize(jt.beliefs[d], tuple(_sep(jt, c, d))))
        self.P_V = P_V
        self.branches = [_Branch(jt, nbrs, c, d, _sep(jt, c, d), V, ctx.rec)
                         for c in Ti for d in nbrs[c] if d not in Ti]
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
            J = marginalize(product([self.P_V] + [kern(b, d) for b, d in zip(self.branches, row)]),
                            tuple({node} | Q))
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
            avail = [sorted(d for d in set(range(min(L, b.height) + 1)) | {b.height} | ({b.height + 1} if ok else set())
                            if b.cells(d) <= MAX_TABLE) for b, ok in zip(br, rim)]
            if math.prod(len(a) for a in avail) <= max_quilts:
                combos = (np.stack(np.meshgrid(*[np.array(a) for a in avail], indexing="ij"), -1).reshape(-1, m)
                          if m else np.zeros((1, 0), dtype=int))
            else:
                family = "common depth"
                combos = np.array([[min(d, b.height) if min(d, b.height) in a else b.height for b, a in zip(br, avail)]
                                   for d in range(min(L, max(b.height for b in br)) + 1)]
                                  + [[b.height + 1 if b.height + 1 in a else b.height for b, a in zip(br, avail)]])
            e, card = self.influences(combos)
            with np.errstate(divide="ignore", invalid="ignore"):
                lam = eps - e
                score = np.where(lam < 0, np.nan, card / lam)
            scored += len(combos)
            if not np.all(np.isnan(score)):
                k = int(np.nanargmin(score))
                if score[k] < best[0]:
                    best = (float(score[k]), tuple(sorted(self.quilt(combos[k])[0])), int(card[k]), float(e[k]))
            if not any((L + 1 < b.height and lb0 - b.delta(0) + b.delta(L + 1) <= eps * best[0])
                       or (not ok and lb0 - b.delta(0) + b.delta(b.height + 1) <= eps * best[0])
                       for b, ok in zip(br, rim)):
                return best + (family, scored)
            L *= 2


def quilt_family(model: BayesNetModel, record: int) -> list[dict]:
    """Every quilt of the per-branch-depth family of ``record`` (no pruning; for checks):
    dicts with ``depths``, ``quilt`` (``X_Q``), ``nearby`` (``X_N``, all nodes), ``remote``
    (``X_R``), ``card`` (records in ``X_N``) and ``influence`` (``e``)."""
    check(isinstance(record, (int, np.integer)) and 0 <= record < model.n, "record", record,
          f"must be a record in 0..{model.n - 1}")
    nd = _Context(model).node(model.records[int(record)])
    m = len(nd.branches)
    depths = [[d for d in range(b.height + 2) if b.cells(d) <= MAX_TABLE] for b in nd.branches]
    combos = (np.stack(np.meshgrid(*[np.array(d) for d in depths], indexing="ij"), -1)
              .reshape(-1, m) if m else np.zeros((1, 0), dtype=int))
    e, card = nd.influences(combos)
    out = []
    for row, ek, ck in zip(combos, e, card):
        Q, N = nd.quilt(row)
        R = frozenset(range(model.size)) - Q - N
        out.append({"depths": tuple(int(d) for d in row), "quilt": tuple(sorted(Q)), "nearby": tuple(sorted(N)),
                    "remote": tuple(sorted(R)), "card": int(ck), "influence": float(ek)})
    return out


def mqm_bayesnet(model: BayesNetModel, epsilon: float, *, records=None,
                 max_quilts: int = MAX_QUILTS) -> BayesNetQuilt:
    """General Markov Quilt mechanism ``sigma`` for a Bayesian network (module docstring).

    Parameters
    ----------
    model : BayesNetModel
    epsilon : float
        Pufferfish privacy parameter (> 0).
    records : iterable of int, optional
        Records to protect (default all; the authors' chain code protects records ``1 .. T-2``).
    max_quilts : int
        Depth combinations scored per record before the common-depth family is used.
    """
    check(isinstance(model, BayesNetModel), "model", type(model).__name__, "must be a BayesNetModel")
    eps = float(epsilon) if isinstance(epsilon, (int, float, np.number)) else math.nan
    check(math.isfinite(eps) and eps > 0, "epsilon", epsilon, "must be a finite number > 0")
    recs = list(range(model.n)) if records is None else [int(r) for r in records]
    check(len(recs) > 0 and all(0 <= r < model.n for r in recs), "records", recs,
          f"must be a non-empty list of records in 0..{model.n - 1}")
    ctx = _Context(model)
    sig = np.full(model.n, np.nan)
    out, fam, total = None, {}, 0
    for r in recs:
        res = ctx.node(model.records[r]).sigma(eps, max_quilts)
        sig[r], fam[r] = res[0], res[4]
        total += res[5]
        if out is None or res[0] > out[1]:
            out = (r, res[0], res[1], res[2], res[3])
    r, sigma, Q, card, e = out
    return BayesNetQuilt(eps, float(sigma), r, Q, card, e, sig, tuple(recs), fam, total)


# ---------------------------------------------------------------------------------- paper §5

def mqm_estimated(T: int, epsilon: float, pi_est: float, g_est: float, *, transition=None,
                  eigengap: str = "auto", search: str = "authors") -> QuiltResult:
    """Chain MQMApprox with *estimated* parameters, as the paper's §5 runs it: the mechanism knows
    only ``pi_est <= pi_min`` and ``g_est <= eigengap``, plugged into the approximate max-influence
    ``2 ln((1+D_a)/(1-D_a)) + ln((1+D_b)/(1-D_b))``, ``D_t = e^{-g_est t}/pi_est``
    (:func:`bdpsim.quilt.approx_max_influence`).

    ``transition`` (optional): the true chain; then ``pi_est`` and ``g_est`` must not exceed its
    ``pi_min`` (first row of ``P^100``) and eigengap (:func:`bdpsim.quilt.authors_eigengap`,
    ``eigengap`` kind), as the paper enforces. ``search = "authors"``: the authors' walk from the
    middle node (``k_findBest_2dir.m``); ``"all"``: every node ``1..T`` (paper Algorithm 1).
    """
    check(isinstance(T, (int, np.integer)) and T >= 2, "T", T, "must be an integer >= 2")
    for name, v, hi in (("pi_est", pi_est, 0.5), ("g_est", g_est, 1.0)):
        ok = isinstance(v, (int, float, np.number)) and math.isfinite(v) and 0 < v <= hi
        check(ok, name, v, f"must be a number in (0, {hi}]")
    check(search in ("authors", "all"), "search", search, "must be 'authors' or 'all'")
    if transition is not None:
        pm = float(authors_stationary(transition).min())
        g = authors_eigengap(transition, eigengap)
        check(pi_est <= pm + 1e-15, "pi_est", pi_est, f"must be <= pi_min of the chain ({pm:.6g})")
        check(g_est <= g + 1e-15, "g_est", g_est, f"must be <= the chain's eigengap ({g:.6g})")
    if search == "authors":
        res = mqm_approx_search(float(pi_est), float(g_est), float(epsilon), int(T))
    else:
        T = int(T)
        eps = float(epsilon)
        check(math.isfinite(eps) and eps > 0, "epsilon", epsilon, "must be a finite number > 0")
        noise, best = np.full(T, np.nan), (-1.0, 1, 1, 1)
        for i in range(1, T + 1):
            nm, a, b = _scores(lambda A, B: approx_max_influence(pi_est, g_est, i, T, A, B), i, T, eps)
            if math.isnan(nm):
                raise ConfigError("epsilon", epsilon, "cannot find valid a/b. epsilon should be larger")
            noise[i - 1] = nm
            if nm > best[0]:
                best = (nm, i, a, b)
        res = QuiltResult("markov-quilt-approx", eps, T, best[0], best[1], best[2], best[3], noise,
                          tuple(range(1, T + 1)), {})
    res.parameters.update({"pi_est": float(pi_est), "g_est": float(g_est), "search": search})
    return res
