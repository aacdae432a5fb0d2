"""Exact BDPL of an additive query on a Bayesian network: one adversary, and over all adversaries.

Query ``Y = sum_r g_r(X_r) + noise`` with ``g_r`` non-negative integers (a count, or a sum of
state values on a lattice, in lattice units). For an adversary ``(K, i)`` the output law given
``(x_K, x_i)`` is the noise kernel mixed over the exact law of ``S``; its leakage is
``score(law(x_K, x), law(x_K, x'))`` for a ``grid_score(W1, W2) -> (signed value, atom)`` batched
over rows on the integer grid of ``S`` (or ``(value, forward, atom)`` of shape ``(rows, m)``: a
score of ``m`` components, each searched for its own worst adversary)
(:func:`bdpsim.kernels.noise.laplace_mixture.grid_sup` for Laplace
noise, :func:`laplace_score`). One elimination keeping ``X_i`` gives ``P(X_i = x, S = q | x_K)``
for every ``x`` at once (:mod:`bdpsim.kernels.graphical.elimination`, ``O(N s^(w+1) Q)``).

**Reduction (the window reduction of :mod:`bdpsim.models.markov.window`, generalised).** If the unknown
records ``X_B`` satisfy
``X_B ⊥ X_i | X_K``, then ``p(y | x_K, x_i) = sum_{x_B} P(x_B | x_K) p(y | x_K, x_B, x_i)`` is a
mixture with weights that do not depend on ``x_i``, and a ratio of two such mixtures is at most
the largest ratio of their parts: ``BDPL_(K,i) <= max_{x_B} BDPL_(K ∪ B, i)`` — for *any*
mechanism, additive or not. We take the independence from **separation in the moral graph of the
whole network** (hidden nodes included; it implies the conditional independence by the global
Markov property of the factorisation ``prod_j P(x_j | x_pa(j))``): the records outside the
connected component ``R`` of ``i`` in (moral graph minus ``K``) can all be made known. Since
``K`` holds records only, ``R`` contains every hidden node it touches. So **the worst adversary
knows every record outside a region ``R`` and no record inside but its target**, where ``R`` runs
over the connected node sets containing ``i`` whose outer boundary ``∂R`` consists of records only.
Given ``x_∂R`` the region's law uses only the tables of ``R`` and its children
(``O(|R| s^(w+1) Q)``), batched over the boundary values. On a chain the regions are the windows of
:func:`bdpsim.models.markov.window.window_search`. The reduction prunes nothing when hidden nodes connect
every
record (an HMM: every known set is closed) — the result says so. d-separation (moral graph of
the ancestral set) would prune more (e.g. co-parents of an unobserved child); not used here.
Known-set sizes stay upward closed (``|K| >= min_known``), as the reduction only adds records.

**Exhaustive search** (small networks, the cross-check): the joint law of the records with ``S``
folded in, ``J[x, q] = P(X = x) 1[S(x) = q]``, zeta-transformed along every record axis but the
target's (index ``s_r`` = "unknown" = sum over the axis) holds ``P(x_K, x_i, S = q)`` for every
``(K, x_K)`` at once: ``prod_r (s_r + 1) Q`` cells per target value (refused above ``max_cells``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...core.errors import ConfigError, NotAvailable, check
from ...kernels.argcheck import count_as_float
from ..factor_model import MAX_OPERATIONS, FactorModel
from .check import brief

MAX_REGIONS = 200_000  # regions per target
MAX_CELLS = 1e7  # exhaustive: cells of the zeta tensors of one target
GridScore = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
FAMILY = (
    "connected node sets R ∋ target of the moral graph whose outer boundary is records only; "
    "the adversary knows every record outside R, none inside"
)


def laplace_score(noise_scale: float, delta: float = 1.0) -> GridScore:
    """``grid_score`` of Laplace noise of scale ``noise_scale`` for a lattice step ``delta``."""
    from ...kernels.noise.laplace_mixture import grid_sup

    b = float(noise_scale) / float(delta)
    check(math.isfinite(b) and b > 0, "noise_scale", noise_scale, "must be a finite number > 0")
    return functools.partial(grid_sup, b=b)


@dataclass(frozen=True)
class WorstAdversary:
    """Target record ``i``, known records ``known`` with values ``x_known``, the ordered pair
    ``(x, x')`` with ``ln p(y | x_K, x)/p(y | x_K, x') = bdpl`` at ``atom`` (value of ``S`` in
    lattice units, known records included); ``region``: the unknown nodes (region search)."""

    i: int
    known: tuple[int, ...]
    x_known: tuple[int, ...]
    x: int
    x_prime: int
    bdpl: float
    atom: float
    region: tuple[int, ...] | None = None

    def adversary(self):
        """As a :class:`bdpsim.adversary.Adversary`."""
        from ...adversary import Adversary

        return Adversary(self.i, self.known, self.x_known, self.x, self.x_prime)


@dataclass(frozen=True)
class SearchResult:
    """``bdpl`` = the largest leakage over the searched adversaries (exact; for a score of several
    components, the first's; ``by_component``: each component's worst adversary, its ``bdpl`` the
    component's supremum).

    ``method``: ``"exhaustive"`` or ``"regions"``; ``reduced``: whether the region family is
    smaller than the set of known sets (the reduction pruned something); ``family``: what was
    searched; ``n_candidates``: known sets (exhaustive) or regions searched; ``n_known_sets``:
    the ``(i, K)`` pairs an exhaustive search enumerates; ``n_evaluations``: law pairs scored.
    """

    bdpl: float
    worst: WorstAdversary
    method: str
    reduced: bool
    family: str
    n_candidates: int
    n_known_sets: int
    n_evaluations: int
    #: the worst adversary of every component of the score (the first is ``worst``)
    by_component: tuple[WorstAdversary, ...] = ()


def _targets(model: FactorModel, targets) -> list[int]:
    if targets is None:
        return list(range(model.n))
    tl = list(targets)
    check(
        len(tl) > 0 and all(isinstance(t, (int, np.integer)) and 0 <= t < model.n for t in tl),
        "targets",
        tl,
        f"must be a non-empty list of records in 0..{model.n - 1}",
    )
    return [int(t) for t in tl]


def _triple(got, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A grid score's answer as ``(value, forward, atom)`` of shape ``(rows, m)``: a signed pair
    ``(signed value, atom)`` (one component; the value is its magnitude) or the triple itself."""
    if len(got) == 2:
        v, a = (np.asarray(t, dtype=float) for t in got)
        return np.abs(v)[:, None], (v >= 0)[:, None], a[:, None]
    v, f, a = (np.asarray(t) for t in got)
    if v.ndim != 2 or v.shape[0] != rows or f.shape != v.shape or a.shape != v.shape:
        raise ValueError(f"grid score returned arrays of shape {v.shape}: need ({rows}, components)")
    return v.astype(float, copy=False), f.astype(bool, copy=False), a.astype(float, copy=False)


def _score_pairs_by_component(W: np.ndarray, ok: np.ndarray, grid_score: GridScore, chunk: int = 20_000):
    """Best value over rows and ordered pairs of ``W`` (rows, s, Q) where ``ok`` (rows, s), for
    each component of the score: ``grid_score(W1, W2)`` gives ``(signed value, atom)`` (the
    magnitude ranks, the sign orders the pair) or ``(value, forward, atom)`` of shape
    ``(rows, m)``.

    Returns ``([(value, row, x, x', atom) per component], evaluations)`` (value ``-inf`` and row
    ``-1`` when nothing is scored)."""
    best: list[tuple] = []
    count = 0
    for x, xp in itertools.combinations(range(W.shape[1]), 2):
        rows = np.flatnonzero(ok[:, x] & ok[:, xp])
        for s in range(0, rows.size, chunk):
            r = rows[s : s + chunk]
            val, fwd, atom = _triple(grid_score(W[r, x], W[r, xp]), r.size)
            count += r.size
            if not best:
                best = [(-math.inf, -1, 0, 0, math.nan)] * val.shape[1]
            for c in range(val.shape[1]):
                k = int(np.argmax(val[:, c]))
                if val[k, c] > best[c][0]:
                    a, b = (x, xp) if fwd[k, c] else (xp, x)
                    best[c] = (float(val[k, c]), int(r[k]), a, b, float(atom[k, c]))
    return best or [(-math.inf, -1, 0, 0, math.nan)], count


def _score_pairs(W: np.ndarray, ok: np.ndarray, grid_score: GridScore, chunk: int = 20_000):
    """Best ``|score|`` over rows and ordered pairs of ``W`` (rows, s, Q) where ``ok`` (rows, s).

    Returns ``(value, row, x, x', atom, evaluations)`` (value ``-inf`` when nothing is scored)."""
    best, count = _score_pairs_by_component(W, ok, grid_score, chunk)
    return best[0] + (count,)


def adversary_bdpl(
    model: FactorModel,
    known: Mapping[int, int],
    target: int,
    increments,
    grid_score: GridScore,
    max_operations: float = MAX_OPERATIONS,
) -> WorstAdversary:
    """Exact ``BDPL_(K,i)(x_K) = max_{x != x'} sup_y ln p(y | x_K, x) / p(y | x_K, x')`` of one
    adversary (known records ``known``, target record ``target``), over the target pairs of
    positive probability. One elimination: ``O(N s^(w+1) Q)``, refused above ``max_operations``."""
    (i,) = _targets(model, [target])
    check(i not in known, "known", dict(known), f"must not contain the target {i}")
    ev = model.evidence(known)
    inc = model.increments(increments)
    shift = sum(int(inc[v][int(x[0])]) for v, x in ev.items() if v in inc)
    inc = {v: g for v, g in inc.items() if v not in ev}
    node = model.records[i]
    tab, _ = model.law(model.factors(ev, inc), keep=(node,), what="adversary", max_operations=max_operations)
    ok = tab.sum(axis=2) > 0
    if ok.sum() < 2:
        raise NotAvailable(
            f"target {model.record_label(i)} has fewer than two values of positive probability "
            f"given its {len(known)} known records ({brief(dict(known))})"
        )
    v, _, x, xp, atom, _ = _score_pairs(tab, ok, grid_score)
    keys = tuple(sorted(int(k) for k in known))
    return WorstAdversary(i, keys, tuple(int(known[k]) for k in keys), x, xp, v, atom + shift)


# ---------------------------------------------------------------------------------- exhaustive


def n_known_sets(n: int, targets: Sequence[int], min_known: int) -> int:
    """``(i, K)`` pairs with ``|K| >= min_known``: ``|T| (2^(n-1) - sum_{k < min_known} C(n-1, k))``
    (the binomial sum taken from whichever end is shorter: a network of thousands of records)."""
    if min_known > (n - 1) // 2:
        return len(targets) * sum(math.comb(n - 1, k) for k in range(min_known, n))
    return len(targets) * (2 ** (n - 1) - sum(math.comb(n - 1, k) for k in range(min_known)))


def exhaustive_cells(model: FactorModel, increments) -> float:
    """Cells of the largest per-target zeta tensor set of :func:`exhaustive_search`."""
    inc = model.increments(increments)
    Q = 1 + sum(int(g.max()) for g in inc.values())
    cards = model.record_states
    every = math.prod(d + 1 for d in cards)  # one product, divided by each record's factor (exact)
    cells = max(c * (every // (c + 1)) for c in cards) * Q
    return count_as_float(cells)  # inf past the float range (a network of a thousand records)


def exhaustive_search(
    model: FactorModel,
    increments,
    grid_score: GridScore,
    *,
    targets=None,
    min_known: int = 0,
    max_cells: float = MAX_CELLS,
) -> SearchResult:
    """Every target, known set, known values and target pair (module docstring)."""
    T = _targets(model, targets)
    n, cards = model.n, model.record_states
    check(
        isinstance(min_known, (int, np.integer)) and 0 <= min_known <= n - 1,
        "min_known",
        min_known,
        f"must be an integer in 0..{n - 1}",
    )
    cells = exhaustive_cells(model, increments)
    if cells > max_cells:
        raise ConfigError(
            "model",
            f"{n} records",
            f"the exhaustive search needs {cells:.3g} cells "
            f"(prod (states + 1) x sums per target), more than {max_cells:.3g}",
        )
    inc = model.increments(increments)
    g = [inc.get(v, np.zeros(model.node_states[v], dtype=np.int64)) for v in model.records]
    Q = 1 + sum(int(x.max()) for x in g)
    tab, _ = model.law(model.factors(), keep=model.records, what="exhaustive search")
    P = tab[0, ..., 0] / tab.sum()
    S = functools.reduce(np.add.outer, g)
    J = np.zeros(P.shape + (Q,))
    J.reshape(-1, Q)[np.arange(P.size), S.ravel()] = P.ravel()
    best: list = [None]
    evals = 0
    for i in T:
        Z = []
        for x in range(cards[i]):
            z = np.take(J, x, axis=i)
            for a in range(n - 1):
                z = np.concatenate([z, z.sum(axis=a, keepdims=True)], axis=a)
            Z.append(z.reshape(-1, Q))
        other = [d for k, d in enumerate(cards) if k != i]
        idx = np.indices([d + 1 for d in other]).reshape(n - 1, -1)
        ksize = (idx < np.array(other)[:, None]).sum(axis=0)
        W = np.stack(Z, axis=1)
        ok = (W.sum(axis=2) > 0) & (ksize >= min_known)[:, None]
        found, cnt = _score_pairs_by_component(W, ok, grid_score)
        evals += cnt
        if len(best) < len(found):
            best = best + [None] * (len(found) - len(best))
        recs = [k for k in range(n) if k != i]
        for c, (v, row, x, xp, atom) in enumerate(found):
            if row >= 0 and (best[c] is None or v > best[c].bdpl):
                kn = tuple((recs[a], int(idx[a, row])) for a in range(n - 1) if idx[a, row] < other[a])
                best[c] = WorstAdversary(
                    i, tuple(k for k, _ in kn), tuple(val for _, val in kn), x, xp, v, atom
                )
    if best[0] is None:
        raise NotAvailable("no adversary has two target values of positive probability")
    nk = n_known_sets(n, T, min_known)
    by = tuple(best)
    return SearchResult(by[0].bdpl, by[0], "exhaustive", False, "every known set", nk, nk, evals, by)


# ---------------------------------------------------------------------------------- regions


def closed_regions(
    adj: Mapping[int, set], start: int, is_record: Callable[[int], bool], limit: float = MAX_REGIONS
):
    """Every connected node set ``R ∋ start`` whose outer boundary ``∂R`` has records only, as
    ``(R, ∂R)`` — binary branching on the smallest frontier record (include / exclude for good),
    hidden frontier nodes always included; each region is produced once."""
    stack: list[tuple[frozenset, frozenset, frozenset]] = [
        (frozenset([start]), frozenset(), frozenset(adj[start]) - {start})
    ]
    count = 0
    while stack:
        R, X, F = stack.pop()
        hidden = [v for v in F if not is_record(v)]
        while hidden:
            R = R | set(hidden)
            F = (F.union(*(adj[v] for v in hidden))) - R - X
            hidden = [v for v in F if not is_record(v)]
        if not F:
            count += 1
            if count > limit:
                raise ConfigError(
                    "regions",
                    f"> {limit} for node {start}",
                    "too many separated regions to search (raise max_regions or use a smaller network)",
                )
            yield R, X
            continue
        v = min(F)
        stack.append((R, X | {v}, F - {v}))
        stack.append((R | {v}, X, (F | adj[v]) - R - {v} - X))


def frontier_records(adj: Mapping[int, set], start: int, is_record: Callable[[int], bool]) -> int:
    """The records on the outer boundary of ``start`` once its hidden neighbours are closed over (the
    first frontier of :func:`closed_regions`). The branching of :func:`closed_regions` keeps each of
    them in the frontier until it branches on it (include or exclude), so every path of its binary
    tree branches on all ``k`` of them: ``start`` has at least ``2^k`` regions (an HMM's target:
    ``2^(n-1)``), known without enumerating any."""
    R, F, todo = {start}, set(), [start]
    while todo:  # through hidden nodes only, each once: linear in the edges
        for v in adj[todo.pop()]:
            if v in R or v in F:
                continue
            if is_record(v):
                F.add(v)
            else:
                R.add(v)
                todo.append(v)
    return len(F)


def region_laws(
    model: FactorModel,
    node: int,
    R: frozenset,
    boundary: frozenset,
    inc: Mapping[int, np.ndarray],
    max_operations: float = MAX_OPERATIONS,
):
    """``P(X_node = x, S_R = q | x_∂R)`` for every boundary assignment (rows; column ``k`` of
    the returned ``grid`` is the assignment of ``sorted(boundary)``) from the factors meeting
    ``R`` only (on a network: the tables of ``R`` and its children), plus a mask of the
    assignments of positive probability."""
    local = model.factors_touching(R)
    bnodes = sorted(boundary)
    cards = [model.node_states[v] for v in bnodes]
    grid = np.indices(cards).reshape(len(cards), -1) if bnodes else np.zeros((0, 1), dtype=np.int64)
    ev = {v: grid[k] for k, v in enumerate(bnodes)}
    fs = model.factors(ev, {v: g for v, g in inc.items() if v in R}, which=local)
    tab, _ = model.law(fs, keep=(node,), batch=grid.shape[1], what="region", max_operations=max_operations)
    feasible = np.ones(grid.shape[1], dtype=bool)
    if not model.is_positive and bnodes:
        full, _ = model.law(
            model.factors(ev), batch=grid.shape[1], what="region", max_operations=max_operations
        )
        feasible = np.broadcast_to(full.reshape(full.shape[0], -1).sum(axis=1) > 0, feasible.shape)
    return np.broadcast_to(tab, (grid.shape[1],) + tab.shape[1:]), grid, bnodes, feasible


def region_search(
    model: FactorModel,
    increments,
    grid_score: GridScore,
    *,
    targets=None,
    min_known: int = 0,
    max_regions: int = MAX_REGIONS,
    max_operations: float = MAX_OPERATIONS,
) -> SearchResult:
    """Exact BDPL over all adversaries with ``|K| >= min_known`` by the separated-region
    reduction (module docstring): one batched elimination per (target, region)."""
    T = _targets(model, targets)
    n = model.n
    check(
        isinstance(min_known, (int, np.integer)) and 0 <= min_known <= n - 1,
        "min_known",
        min_known,
        f"must be an integer in 0..{n - 1}",
    )
    inc = model.increments(increments)
    adj = model.interaction_graph()
    rec = set(model.records)
    best: list = [None]
    evals, count = 0, 0
    for i in T:
        node = model.records[i]
        for R, bnd in closed_regions(adj, node, rec.__contains__, max_regions):
            inside = len(rec & R)
            if n - inside < min_known:
                continue
            count += 1
            tab, grid, bnodes, feas = region_laws(model, node, R, bnd, inc, max_operations)
            ok = (tab.sum(axis=2) > 0) & feas[:, None]
            found, cnt = _score_pairs_by_component(tab, ok, grid_score)
            evals += cnt
            if len(best) < len(found):
                best = best + [None] * (len(found) - len(best))
            for c, (v, row, x, xp, atom) in enumerate(found):
                if row >= 0 and (best[c] is None or v > best[c][0]):
                    best[c] = (v, i, R, dict(zip(bnodes, grid[:, row].tolist(), strict=True)), x, xp, atom)
    if best[0] is None:
        raise NotAvailable("no adversary has two target values of positive probability")
    by = tuple(_complete(model, inc, *b) for b in best)
    nk = n_known_sets(n, T, min_known)
    return SearchResult(by[0].bdpl, by[0], "regions", count < nk, FAMILY, count, nk, evals, by)


def _complete(model, inc, v, i, R, bvals, x, xp, atom) -> WorstAdversary:
    """The worst region adversary with a positive-probability completion of the records outside
    ``R`` (only the boundary values matter); ``atom`` in units of the full ``S``."""
    rec_of = {node: r for r, node in enumerate(model.records)}
    cond = {rec_of[b]: val for b, val in bvals.items()}
    cond[i] = x
    draw = model.sample_conditional(cond, 1, np.random.default_rng(0))[0]
    known = tuple(r for r, node in enumerate(model.records) if node not in R)
    xk = tuple(int(draw[r]) for r in known)
    shift = sum(
        int(inc[model.records[r]][xv]) for r, xv in zip(known, xk, strict=True) if model.records[r] in inc
    )
    return WorstAdversary(i, known, xk, x, xp, v, atom + shift, tuple(sorted(R)))


# ---------------------------------------------------------------------------------- cost

#: seconds per region of the separated-region search besides its arithmetic (Python, planning)
REGION_OVERHEAD = 2e-3
#: elementary operations per second of the batched eliminations and scores
OPS_PER_SECOND = 1e8
#: refusal threshold of the up-front estimate (seconds of one core)
MAX_SEARCH_SECONDS = 3600.0


@dataclass(frozen=True)
class SearchPlan:
    """The up-front estimate of :func:`bdpl_search`: the ``method`` ``"auto"`` picks, the
    ``regions`` counted (every target), the ``known_sets`` an exhaustive search enumerates, its
    ``cells`` and the estimated ``seconds`` of one core (refused above ``max_seconds``)."""

    method: str
    regions: int
    known_sets: int
    cells: float
    seconds: float

    def text(self) -> str:
        what = (
            f"{self.regions} separated regions"
            if self.method == "regions"
            else f"{self.known_sets} known sets by one exhaustive table of {self.cells:.3g} cells"
        )
        return f"exact search over every adversary: {what}, ~{self.seconds:.2g} s of one core (estimate)"


def search_plan(
    model: FactorModel,
    increments,
    *,
    targets=None,
    max_regions: int = MAX_REGIONS,
    max_cells: float = MAX_CELLS,
    max_seconds: float = MAX_SEARCH_SECONDS,
) -> SearchPlan:
    """Count the separated regions (at most ``max_regions`` in all, a fraction of the search's
    own cost) and estimate the time of both searches before any arithmetic:

    * regions: ``sum_R [REGION_OVERHEAD + B_R (|R| + |∂R|) s^(w+1) Q / 1e8]`` with ``B_R`` the
      boundary assignments (the batch), ``w`` the model's induced width, ``s`` the largest
      number of states and ``Q`` the number of query values;
    * exhaustive: ``cells x (s - 1) s / 2`` pair scores per target plus, per target, the joint
      table's elimination (:meth:`~bdpsim.models.factor_model.FactorModel.exact_cost`).

    The count stops as soon as it cannot fit: above ``max_regions`` (known before enumerating when
    the targets' first frontiers already give more, :func:`frontier_records`: an HMM's ``2^(n-1)``
    per target), or once the regions counted exceed ``max_seconds``.

    Picks the exhaustive search when it fits and the regions do not prune or cost more (the
    choice of :func:`bdpl_search`'s ``"auto"``), else the regions; raises a one-line :class:`ConfigError`
    (field ``run.adversaries``) naming the model's size, the estimates and the limits when neither
    fits (regions above ``max_regions``, cells above ``max_cells``, or more than ``max_seconds``)."""
    T = _targets(model, targets)
    inc = model.increments(increments)
    Q = 1 + sum(int(g.max()) for g in inc.values())
    smax = max(model.node_states)
    nk = n_known_sets(model.n, T, 0)
    cells = exhaustive_cells(model, increments)
    ex_secs = len(T) * (cells * max(1, smax * (smax - 1) // 2) * 20 + model.exact_cost()[1]) / OPS_PER_SECOND
    adj, rec = model.interaction_graph(), set(model.records)
    cards = model.node_states
    count, secs, over, slow, least = 0, 0.0, False, False, 0
    for i in T:  # a lower bound first: no enumeration when the first frontiers alone are too many
        least += 2 ** min(frontier_records(adj, model.records[i], rec.__contains__), 64)
        if least > max_regions:
            over, count = True, max_regions + 1  # as many as the count would have stopped at
            break
    width = model.elimination_plan().width if not over else 0
    for i in T if not over else ():
        for R, bnd in closed_regions(adj, model.records[i], rec.__contains__, limit=math.inf):
            count += 1
            batch = math.prod(float(cards[v]) for v in bnd)
            secs += (
                REGION_OVERHEAD
                + batch * (len(R) + len(bnd)) * float(smax) ** (width + 1) * Q / OPS_PER_SECOND
            )
            if count > max_regions:
                over = True
                break
            if secs > max_seconds:  # the regions cannot fit whatever the rest: stop counting
                slow = True
                break
        if over or slow:
            break
    use_ex = cells <= max_cells and (over or count >= nk or ex_secs <= secs)
    if use_ex and ex_secs <= max_seconds:
        return SearchPlan("exhaustive", count, nk, cells, ex_secs)
    if not over and secs <= max_seconds:
        return SearchPlan("regions", count, nk, cells, secs)
    raise ConfigError(
        "run.adversaries",
        "all",
        _refusal(model, count, secs, over, slow, cells, ex_secs, nk, max_regions, max_cells, max_seconds),
    )


#: what a refusal of the search over every adversary advises
REFUSAL_ADVICE = "Use sampled adversaries (run.adversaries = 100) or fewer records"


def _refusal(model, count, secs, over, slow, cells, ex_secs, nk, max_regions, max_cells, max_seconds) -> str:
    """The one line of :func:`search_plan`'s refusal: the model's size, each search's estimate and
    the limit it passes (a limit of time only where one was set and estimated)."""
    states = sorted(set(model.record_states))
    span = f"{states[0]}" if len(states) == 1 else f"{states[0]}–{states[-1]}"
    size = f"a model of {model.size} nodes ({model.n} records of {span} states)"
    if over:
        regions = f"more than {max_regions} separated regions (limit {max_regions})"
    else:
        first, already = ("the first ", "already ") if slow else ("", "")
        regions = f"{first}{count} separated regions {already}need ~{secs:.3g} s"
    if cells > max_cells:
        table = f"the exhaustive table needs {cells:.3g} cells (limit {max_cells:.3g})"
    else:
        table = f"the exhaustive table of {cells:.3g} cells needs ~{ex_secs:.3g} s"
    timed = (not over or cells <= max_cells) and math.isfinite(max_seconds)
    limit = f"; limit ~{max_seconds:g} s of one core" if timed else ""
    return (
        f"the exact search over every adversary is refused up front on {size}: {regions}, and {table} "
        f"for {count_as_float(nk):.3g} known sets{limit}. {REFUSAL_ADVICE}"
    )


def bdpl_search(
    model: FactorModel,
    increments,
    grid_score: GridScore,
    *,
    method: str = "auto",
    targets=None,
    min_known: int = 0,
    max_regions: int = MAX_REGIONS,
    max_cells: float = MAX_CELLS,
) -> SearchResult:
    """Exact BDPL over all adversaries: ``method = "regions"`` (the reduction),
    ``"exhaustive"``, or ``"auto"``: the cheaper by the up-front estimate (:func:`search_plan`;
    the exhaustive search only when it fits in ``max_cells``; neither above
    :data:`MAX_SEARCH_SECONDS`: refused in one line before any work); ``reduced = False`` on a
    region search says that the reduction did not apply."""
    check(
        method in ("auto", "regions", "exhaustive"),
        "method",
        method,
        "must be 'auto', 'regions' or 'exhaustive'",
    )
    if method == "exhaustive":
        return exhaustive_search(
            model, increments, grid_score, targets=targets, min_known=min_known, max_cells=max_cells
        )
    if method == "auto":
        if (
            search_plan(
                model,
                increments,
                targets=targets,
                max_regions=max_regions * len(_targets(model, targets)),
                max_cells=max_cells,
            ).method
            == "exhaustive"
        ):
            return exhaustive_search(
                model, increments, grid_score, targets=targets, min_known=min_known, max_cells=max_cells
            )
    return region_search(
        model, increments, grid_score, targets=targets, min_known=min_known, max_regions=max_regions
    )
