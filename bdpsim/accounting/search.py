"""The worst adversary of a list of releases: the supremum over every adversary of a number of the
joint output laws.

**Reduction.** Let every release read additive queries of the records (counts, sums of state
values, a histogram) with independent noise. For an adversary ``(K, i)`` on a chain whose nearest
known records around ``i`` are ``l < i < r``, the unknown records outside ``[l, r]`` are independent
of those inside given ``x_l, x_r``; their contribution to the query vector is one common random
shift ``Z`` of every release, whose law does not depend on ``x_i``. So the joint output laws are
``p_K(y) = E_Z p_{K*}(y - Z 1)`` and ``q_K`` likewise, the same mixture weights under ``x`` and
``x'``, with ``K* = K ∪ ([n] \\ [l, r])``. The hockey-stick divergence (every ``eps``), the total
variation and ``e^{(alpha - 1) D_alpha}`` are jointly convex and the supremum of the loss is jointly
quasi-convex, so each is at most its largest value over the mixture's parts, each a shift of the
``K*`` pair (shift-invariant): **the worst adversary knows every record outside a window around its
target and nothing inside**, for the joint of any number of releases as for one (a chain's window
scan). On a network the known records that separate the target's region in the moral graph do the
same (the region search). Checked against the exhaustive search over every ``K`` on small chains
(``tests/accounting``).

**Through the engine.** Both searches are the model's exact engine's
(:meth:`~bdpsim.models.engines.HasSearch.search` of :func:`packed_engine`: the components packed
into one integer per state, a sum of state values), with the window truncation it owns (its
``tolerance``, added to a number's upper end). The scores decode the packed sums column by column,
so they ask for the law pairs on the packed values as they are
(:class:`~bdpsim.kernels.noise.scores.ReadsQueryValues`), not on the lattice moved to its least
value: :func:`engine_search`.

**Scores.** The search scores pairs of window laws row by row (``score(W1, W2) -> (signed value,
atom)``): batched for one release after the sufficient-statistic reduction (the noise law's own
profile and supremum), row by row for the enumeration; for Monte Carlo releases the scan ranks the
windows by a Gaussian proxy (each release's noise replaced by a normal one of the same variance) and
the few best windows are measured by Monte Carlo (:data:`MC_TOP`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..adversary import Adversary
from ..core.errors import ConfigError, NotAvailable
from ..kernels.argcheck import TooExpensive
from ..kernels.noise.laws import GaussianNoise, LaplaceNoise, grid_delta_pair
from ..kernels.noise.protocols import GaussianKernel, LaplaceKernel
from ..kernels.noise.scores import FunctionScore, Scored
from ..kernels.privacy import joint as J
from ..mechanisms.noisy import NoisyQueryMechanism
from ..models.engines import HasSearch, HasSearchOptions, engine_for
from ..queries import AdditiveQuery, StateSumQuery
from .pairs import Components, JointPair, ReleasePlan, laplace_rate

#: windows measured by Monte Carlo after a proxy scan
MC_TOP = 3
#: tolerance of the window truncation (added to a profile's upper end as ``e^eps`` times it)
WINDOW_TOLERANCE = 1e-13
#: loss cells per gap (or sd) when a Rényi search scores every window: a coarser, still certified
#: upper end; the best windows are measured again at the full resolution
RENYI_SEARCH_RESOLUTION = 8
#: most pair evaluations done row by row (enumeration, Rényi cells) before the search is refused
MAX_ROW_WORK = 2e9


@dataclass
class Candidate:
    """A searched adversary and its score (the searched number, or its proxy)."""

    adversary: Adversary
    score: float
    row: Any = None  # the engine's row (a chain's window adversary, a network's region adversary)


def _marginal_matrix(comps: Components, c: int, size: int) -> np.ndarray:
    """``M[k, j] = 1`` when packed sum ``k`` has component ``c`` equal to ``j`` (step units)."""
    k = np.arange(size)
    j = (k // comps.radix[c]) % comps.sizes[c]
    M = np.zeros((size, int(j.max()) + 1))
    M[k, j] = 1.0
    return M


def component_marginal(comps: Components, c: int) -> Callable[[np.ndarray], np.ndarray]:
    """``marg(W)``: rows of laws of the packed sums as laws of component ``c`` (step units), by
    :func:`_marginal_matrix` (cached per width; the identity where ``c`` is the only component)."""
    cache: dict[int, np.ndarray] = {}

    def marg(W: np.ndarray) -> np.ndarray:
        size = W.shape[1]
        if size not in cache:
            cache[size] = _marginal_matrix(comps, c, size)
        M = cache[size]
        if M.shape[0] == M.shape[1] and comps.radix[c] == 1:  # one component: the identity
            return W
        return W @ M

    return marg


def _variance(noise) -> float:
    if isinstance(noise, GaussianKernel):
        return float(noise.sigma) ** 2
    if isinstance(noise, LaplaceKernel):
        return 2.0 * float(noise.scale) ** 2
    rng = np.random.default_rng(0)  # a proxy only: a fixed sample's variance
    return float(np.var(noise.sample(200_000, rng)))


def proxy_noise(plan: ReleasePlan) -> GaussianNoise:
    """The Gaussian proxy of a one-component plan: every noise replaced by a normal law of the same
    variance, merged by the sufficient statistic."""
    return GaussianNoise(1.0 / math.sqrt(sum(1.0 / _variance(z) for _, z in plan.reduced)))


#: pairs of largest bound solved exactly first in each batch of :class:`PrunedDelta`
LEAD_ROWS = 8
#: absolute margin on the bounds of :class:`PrunedDelta` (their rounding)
BOUND_MARGIN = 1e-12


def two_sided_hockey(A: np.ndarray, B: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """``(rows, K)``: ``max(H(A || B), H(B || A))`` at each ``k = e^eps`` of ``ks`` for rows of finite
    laws on the same atoms, ``H(A || B) = sum (A - k B)_+`` — the laws' own divergence, an upper end
    of that of any release of them (data processing)."""
    return np.stack(
        [
            np.maximum(np.maximum(A - k * B, 0.0).sum(axis=1), np.maximum(B - k * A, 0.0).sum(axis=1))
            for k in ks
        ],
        axis=1,
    )


def coupling_pieces(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The monotone (quantile) coupling of the lattice laws ``A[r]`` and ``B[r]`` (rows normalised) as
    pieces of the quantile level: per row the mass of each piece and the distance in steps between
    the atoms of ``A`` and ``B`` it couples (shape ``(rows, 2 J)`` each)."""
    rows, J = A.shape
    cA, cB = np.cumsum(A, axis=1), np.cumsum(B, axis=1)
    cA[:, -1] = cB[:, -1] = 1.0
    merged = np.concatenate([cA, cB], axis=1)
    order = np.argsort(merged, axis=1, kind="stable")
    at = np.take_along_axis(merged, order, axis=1)
    mass = np.diff(np.concatenate([np.zeros((rows, 1)), np.clip(at, 0.0, 1.0)], axis=1), axis=1)
    is_a = order < J
    j = np.cumsum(is_a, axis=1) - is_a  # the quantile's atom of A on each piece
    k = np.cumsum(~is_a, axis=1) - ~is_a
    return np.clip(mass, 0.0, None), np.abs(np.minimum(j, J - 1) - np.minimum(k, J - 1))


def coupling_bound(A: np.ndarray, B: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``sum_{j,k} pi(j, k) h[|j - k|]`` per row for the monotone coupling ``pi`` of the lattice laws
    ``A[r]`` and ``B[r]`` (rows normalised): with ``h[m]`` the two-sided hockey-stick divergence of
    the noise between two atoms ``m`` steps apart, an upper bound of the two-sided divergence of the
    noisy laws (``P = sum pi(j, k) N_j``, ``Q = sum pi(j, k) N_k``: joint convexity)."""
    mass, gap = coupling_pieces(A, B)
    return np.sum(mass * h[np.minimum(gap, h.size - 1)], axis=1)


def coupling_reach(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Per row the largest distance in steps ``max {|j - k| : pi(j, k) > 0}`` of the monotone coupling
    of the lattice laws ``A[r]`` and ``B[r]`` (rows normalised) — their infinity-Wasserstein
    distance, which the monotone coupling attains on a line. With ``P = sum pi(j, k) N_j`` and ``Q =
    sum pi(j, k) N_k`` (:func:`coupling_bound`), ``p / q <= max_{pi(j, k) > 0} n_j / n_k``: for noise
    whose log-ratio between atoms ``m`` steps apart is at most ``m L`` (Laplace releases of total rate
    ``L`` per step) the joint BDPL is at most ``L`` times the reach.

    The atoms of positive mass ``j`` of ``A`` and ``k`` of ``B`` are coupled where their quantile
    intervals ``[F_A(j-), F_A(j)]`` and ``[F_B(k-), F_B(k)]`` overlap; they are taken as coupled where
    they come within a rounding slack of each other (an atom whose mass the cumulative sums round
    away still couples with its neighbours' atoms), so the reach is never under-estimated."""
    rows, _ = A.shape
    out = np.zeros(rows, dtype=int)
    for r in range(rows):
        ja, kb = np.nonzero(A[r] > 0)[0], np.nonzero(B[r] > 0)[0]
        if ja.size == 0 or kb.size == 0:
            continue
        ca, cb = np.cumsum(A[r, ja]), np.cumsum(B[r, kb])
        ca, cb = ca / ca[-1], cb / cb[-1]
        pa, pb = np.concatenate([[0.0], ca[:-1]]), np.concatenate([[0.0], cb[:-1]])
        slack = 8.0 * (ja.size + kb.size) * np.finfo(float).eps
        first = np.clip(np.searchsorted(cb, pa - slack, side="right"), 0, kb.size - 1)
        last = np.clip(np.searchsorted(pb, ca + slack, side="left") - 1, 0, kb.size - 1)
        out[r] = max(np.abs(ja - kb[first]).max(), np.abs(ja - kb[last]).max())
    return out


class PrunedDelta:
    """The window scan's score ``delta(eps)`` of one release (after the sufficient statistic) for
    the **worst** window only, by branch and bound: a pair is evaluated exactly (the noise law's
    ``grid_delta_pair``) only where its bound — the least of the query laws' own divergence (no
    noise: a post-processing never raises it) and :func:`coupling_bound` — exceeds the largest
    exact value found so far; the others score 0. The supremum and the window attaining it are
    those of the full scan (the ranking below it is not: the searches asking ``top = 1`` only)."""

    def __init__(self, noise, step: float, epsilon: float, marg: Callable[[np.ndarray], np.ndarray]) -> None:
        self.noise, self.step, self.epsilon, self.marg = noise, float(step), float(epsilon), marg
        self.best = -math.inf
        self.shift = np.zeros(0)
        self.evaluated = 0

    def _shifts(self, J: int) -> np.ndarray:
        """``h[m]``, ``m = 0..J-1`` (computed for twice the size asked when it grows)."""
        if self.shift.size < J:
            size = max(J, 2 * self.shift.size)
            one = np.zeros((size, size))
            one[:, 0] = 1.0
            f, b = grid_delta_pair(self.noise, one, np.eye(size), self.step, self.epsilon)
            self.shift = np.maximum(f, b)
        return self.shift

    def _exact(self, A, B, rows, value, sign) -> None:
        if rows.size == 0:
            return
        f, b = grid_delta_pair(self.noise, A[rows], B[rows], self.step, self.epsilon)
        value[rows], sign[rows] = np.maximum(f, b), np.where(f >= b, 1.0, -1.0)
        self.evaluated += rows.size
        self.best = max(self.best, float(np.max(value[rows])))

    def __call__(self, W1, W2) -> tuple[np.ndarray, np.ndarray]:
        A, B = self.marg(W1), self.marg(W2)
        rows = A.shape[0]
        An, Bn = A / A.sum(axis=1, keepdims=True), B / B.sum(axis=1, keepdims=True)
        k = math.exp(self.epsilon)
        free = np.maximum(np.maximum(An - k * Bn, 0.0).sum(axis=1), np.maximum(Bn - k * An, 0.0).sum(axis=1))
        value, sign = np.zeros(rows), np.ones(rows)
        order = np.argsort(-free, kind="stable")
        self._exact(A, B, order[:LEAD_ROWS], value, sign)
        rest = order[LEAD_ROWS:]
        rest = rest[free[rest] + BOUND_MARGIN > self.best]  # the cheap bound first, then the coupling's
        if rest.size:
            h = self._shifts(A.shape[1])
            rest = rest[coupling_bound(An[rest], Bn[rest], h) + BOUND_MARGIN > self.best]
        self._exact(A, B, rest, value, sign)
        return value * sign, np.zeros(rows)


def _one_score(what: tuple, plan: ReleasePlan, comps: Components):
    """Batched score of one release (after the sufficient statistic) or of the Gaussian proxy."""
    kind = what[0]
    c = plan.reduced[0][0]
    if len({cc for cc, _ in plan.reduced}) > 1:
        raise NotAvailable("the Monte Carlo search ranks releases of one query only; give adversary=")
    noise = proxy_noise(plan) if kind == "proxy" else plan.reduced[0][1]
    step = comps.step[c]
    marg = component_marginal(comps, c)

    if kind == "delta":  # the worst window only: by branch and bound (PrunedDelta)
        return PrunedDelta(noise, step, float(what[1]), marg)
    if kind == "proxy":
        eps = float(what[1])

        def score(W1, W2):
            f, b = grid_delta_pair(noise, marg(W1), marg(W2), step, eps)
            return np.where(f >= b, f, -b), np.zeros(f.shape)

        return score

    def sup(W1, W2):
        v, a = noise.grid_sup(marg(W1), marg(W2), step)
        return v, np.where(np.isfinite(a), a, 0.0)

    return sup


def _enumeration_score(what: tuple, plan: ReleasePlan, comps: Components):
    """Batched exact score of lattice releases of one query
    (:func:`~bdpsim.kernels.privacy.joint.lattice_joint_rows`)."""
    c0 = plan.reduced[0][0]
    noises = [z for _, z in plan.reduced]
    eps = float(what[1]) if what[0] == "delta" else None
    cache: dict[int, np.ndarray] = {}

    def score(W1, W2):
        size = W1.shape[1]
        if size not in cache:
            cache[size] = _marginal_matrix(comps, c0, size)
        A, B = W1 @ cache[size], W2 @ cache[size]
        live = (A.sum(axis=1) > 0) & (B.sum(axis=1) > 0)
        out = np.full(A.shape[0], np.nan)
        sign = np.ones(A.shape[0])
        if live.any():
            atoms = comps.step[c0] * np.arange(A.shape[1])
            try:
                v, sg, outside = J.lattice_joint_rows(atoms, A[live], B[live], noises, eps)
            except TooExpensive as err:
                raise NotAvailable(str(err)) from None
            out[live] = v + (outside if eps is not None else 0.0)
            sign[live] = sg
        return out * sign, np.zeros(out.shape)

    return score


def bound_score(what: str, plan: ReleasePlan, comps: Components, epsilon: float | np.ndarray = 0.0):
    """Batched bounds of the joint numbers of one query's releases: ``"ratio"`` the largest ratio of
    the two query laws (an upper bound of the BDPL for any noise; for Laplace releases also the
    coupling reach times their rate, :func:`coupling_reach`), ``"diagonal"`` the supremum over equal
    outputs of Laplace releases (one Laplace release of scale ``1 / sum 1/b_r``: a lower bound),
    ``"noise-free"`` the query laws' own ``H_eps`` (an upper end of ``delta(eps)``; ``epsilon`` an
    array of ``K`` values: shape ``(rows, K)``)."""
    c = plan.reduced[0][0]
    if len({cc for cc, _ in plan.reduced}) > 1:
        raise NotAvailable(
            "the BDPL bracket of a Monte Carlo list reads releases of one query only; give adversary="
        )
    cache: dict[int, np.ndarray] = {}

    def marg(W):
        size = W.shape[1]
        if size not in cache:
            cache[size] = _marginal_matrix(comps, c, size)
        M = W @ cache[size]
        return M / M.sum(axis=1, keepdims=True)

    if what == "noise-free":  # H_eps of the query laws themselves: no release can leak more
        ks = np.array([math.exp(e) for e in np.atleast_1d(np.asarray(epsilon, dtype=float))])

        def noise_free(W1, W2):
            A, B = marg(W1), marg(W2)
            out = two_sided_hockey(A, B, ks)
            return (out if np.ndim(epsilon) else out[:, 0]), np.zeros(A.shape[0])

        return noise_free

    if what == "diagonal":
        rate = laplace_rate(plan)
        if rate is None:
            raise NotAvailable("the equal-output bound needs Laplace releases of one query")
        noise = LaplaceNoise(1.0 / rate)

        def diag(W1, W2):
            v, a = noise.grid_sup(marg(W1), marg(W2), comps.step[c])
            return v, np.where(np.isfinite(a), a, 0.0)

        return diag

    rate = laplace_rate(plan)

    def ratio(W1, W2):
        A, B = marg(W1), marg(W2)
        use = (A > 0) | (B > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.abs(np.log(A) - np.log(B))
        r = np.where(use, r, -np.inf).max(axis=1)
        if rate is not None:
            atoms = comps.step[c] * np.arange(A.shape[1])
            r = np.minimum(r, J.laplace_log_ratio_bound(atoms, A, B, rate))
            r = np.minimum(r, rate * comps.step[c] * coupling_reach(A, B))
        return r, np.zeros(A.shape[0])

    return ratio


def row_score(
    what: tuple, plan: ReleasePlan, comps: Components, seed: int = 0
) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The scan's ``score(W1, W2)`` of ``what`` — ``("delta", eps)``, ``("bdpl",)``, ``("renyi", a)``,
    ``("proxy", eps)`` — for rows on the packed lattice (module docstring); the upper end of a
    bracketed number (so the search's maximum bounds every adversary)."""
    kind = what[0]
    if kind == "proxy" or (plan.method == "one release" and kind in ("delta", "bdpl")):
        return _one_score(what, plan, comps)
    if plan.method == "enumeration" and kind in ("delta", "bdpl") and len({c for c, _ in plan.reduced}) == 1:
        return _enumeration_score(what, plan, comps)

    def score_rows(W1, W2):
        out = np.zeros(W1.shape[0])
        atoms = comps.decode(W1.shape[1])
        for r in range(W1.shape[0]):
            pair = JointPair(plan, atoms, W1[r], W2[r], seed=seed)
            if kind == "delta":
                v = pair.delta(float(what[1])).upper
            elif kind == "bdpl":
                v = pair.bdpl().upper
            else:
                v = pair.renyi(float(what[1]), RENYI_SEARCH_RESOLUTION).upper
            out[r] = v
        return out, np.zeros(out.shape)

    return score_rows


@dataclass(frozen=True, eq=False)
class RecordSumQuery(AdditiveQuery):
    """``sum_t v[t, X_t]``: the packed sums of components one of which is a per-record query
    (:class:`~bdpsim.accounting.pairs.Components`), its ``(n, states)`` table of non-negative
    integers as it is — what a factor model's engine takes as per-record increments."""

    table: np.ndarray

    @property
    def sensitivity(self) -> float:
        t = np.asarray(self.table, dtype=float)
        return float(np.max(t.max(axis=1) - t.min(axis=1)))

    def per_state(self, states: int) -> np.ndarray:
        return np.asarray(self.table, dtype=float)


def packed_engine(model, comps: Components, noise=None):
    """The exact engine (:func:`~bdpsim.models.engines.engine_for`) of the components packed into
    one integer per state (``sum_c radix_c g_c``: a sum of state values) on ``model``, whose
    search over every adversary — a chain's window scan, a network's region search — the
    accountant's scores ride on (:func:`engine_search`). ``noise`` is the engine's noise law; the
    scores carry the releases' own noises and do not read it (default ``Lap(1)``). A chain's window
    truncation: :data:`WINDOW_TOLERANCE`."""
    packed = comps.packed
    query = StateSumQuery(tuple(float(v) for v in packed)) if packed.ndim == 1 else RecordSumQuery(packed)
    law = LaplaceNoise(1.0) if noise is None else noise
    engine = engine_for(model, NoisyQueryMechanism(query, law, "sum"))
    if not isinstance(engine, HasSearch):
        raise NotAvailable(f"{type(engine).__name__}: no search over every adversary; give adversary=")
    if isinstance(engine, HasSearchOptions):
        engine = engine.with_search_options(tolerance=WINDOW_TOLERANCE)
    return engine


def engine_search(engine, score, min_known: int, top: int | None) -> tuple[list[Candidate], float]:
    """The engine's search (:meth:`~bdpsim.models.engines.HasSearch.search`) with ``score`` — rows
    ``(W1, W2) -> (signed value, atom)`` on the packed sums (module docstring), which it reads as
    they are (:class:`~bdpsim.kernels.noise.scores.ReadsQueryValues`) — its ``top`` best cells as
    adversaries (a network's region search: its worst only) and the search's truncation tolerance
    (a chain's windows longer than the automatic limit; 0: none)."""

    def packed(W1, W2, step, noise) -> Scored:
        return Scored.signed(*score(W1, W2))

    try:
        found = engine.search(FunctionScore(packed, ("joint",), reads_query_values=True), int(min_known), top)
    except ConfigError as err:  # the window scan found no cell: a chain with nothing to distinguish
        if err.field != "model":
            raise
        raise NotAvailable("no adversary has two target values of positive probability") from None
    return [Candidate(r.adversary(), float(r.bdpl), r) for r in found.rows], float(found.tolerance)


def chain_search(
    model, comps: Components, score, min_known: int, top: int, engine=None
) -> tuple[list[Candidate], float]:
    """The window scan of a chain with ``score`` (:func:`engine_search` of ``engine``, default
    :func:`packed_engine`): the ``top`` best window cells as adversaries, and the truncation
    tolerance of the windows searched (module docstring)."""
    return engine_search(packed_engine(model, comps) if engine is None else engine, score, min_known, top)
