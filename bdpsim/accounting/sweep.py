"""Every window's privacy profile by Monte Carlo on one set of common draws: the supremum over every
adversary of ``delta(eps)`` for releases of one query with no exact joint law (e.g. ten Laplace
counts), as an interval that holds.

**The laws.** For a window of the chain's scan (:mod:`bdpsim.accounting.search`) the two joint
output laws are mixtures of one product kernel over the query's lattice values ``j`` (step ``s``):
``P = sum_j A_j K_j`` and ``Q = sum_k B_k K_k``, ``K_j(y) = prod_r f_r(y_r - j s)`` (``f_r`` the
noise density of release ``r``, independent noises). Their hockey-stick divergence is an
expectation under ``P``,

``H_eps(P || Q) = E_P[(1 - e^eps q(Y) / p(Y))_+]``, a mean of values in ``[0, 1]``.

**Common draws.** A draw under ``P`` is an atom ``j`` (the inverse cdf of ``A`` at a uniform ``u``)
and ``Y = j s + z`` with ``z`` the noises. At it, ``p(Y) / K_j(Y) = sum_k A_k r_{j-k}(z)`` and
``q(Y) / K_j(Y) = sum_k B_k r_{j-k}(z)`` with the ratio table ``r_d(z) = prod_r f_r(z_r + d s) /
f_r(z_r)``, which depends on the draw only, not on the window. One set of ``N`` draws ``(u, z)``
therefore serves every window: with the uniforms sorted, each atom's draws are a contiguous block,
and a window's estimate costs two products of that block of the table with ``A`` and ``B`` per atom
(``N J`` operations for ``J`` atoms) — the table is built once. Sorting the uniforms pairs them with
the noises through a permutation independent of the noises, so the pairs are still independent and
identically distributed: the mean and the variance of the ``N`` values, all the intervals below
read, are those of an i.i.d. sample. The same holds under ``Q`` (draws from ``B``).

**The interval of the supremum** ``sup_w max(H_eps(P_w || Q_w), H_eps(Q_w || P_w))`` over the ``W``
windows searched (failure ``f = 1 - CONFIDENCE`` in all unless told, split in three):

1. every window, both orders, ``N_1`` common draws: a one-sided empirical Bernstein upper end
   (:func:`~bdpsim.kernels.privacy.joint.bernstein_halfwidth`, Maurer and Pontil 2009, Thm 4) with
   failure ``STAGE_SHARE f / (2 W)`` each (Bonferroni: all hold at once with probability ``>= 1 -
   STAGE_SHARE f`` whatever the dependence between windows);
2. the windows whose stage-1 upper end exceeds the largest stage-1 estimate plus stage 2's own
   expected deviation (no window below can end above the others after it), again on ``N_2`` fresh
   draws with failure ``STAGE_SHARE f / (2 W_2)`` each (the choice reads stage 1 only, so given it
   the fresh draws are independent of it); the upper end of the supremum is the largest upper end
   of every window, from its last stage;
3. the lower end: the few windows of largest estimate (:data:`LOWER_TOP`), each adversary's own
   pair on ``N_3`` fresh draws, one-sided lower ends with failure ``LOWER_SHARE f / (2 LOWER_TOP)``
   each; the largest is at most its adversary's value, hence at most the supremum.

The scan is truncated to the windows whose far records still matter at :data:`SWEEP_TOLERANCE`; a
truncated scan bounds ``delta(eps) <= delta_searched(eps - tolerance)``, so the upper ends (and the
certified caps) are those of ``eps - tolerance`` (the caller's ``epsilon``), the lower ends those of
``eps`` itself (an adversary's own value).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import NotAvailable
from ..kernels.privacy.joint import bernstein_deviation
from .pairs import CONFIDENCE, Components, ReleasePlan
from .search import bound_score, component_marginal

#: common draws of stage 1 (every window)
STAGE1_DRAWS = 40_000
#: fresh draws of stage 2 (the windows stage 1 could not rule out), fewer where the windows are
#: many: at most :data:`STAGE2_WORK` draws x atoms in all (at least twice stage 1's draws)
STAGE2_DRAWS = 1_000_000
STAGE2_WORK = 4e9
#: fresh draws per adversary of the lower end
LOWER_DRAWS = 1_000_000
#: draws per block of the ratio table (bounds the memory: ``chunk x (2 D + 1)`` numbers)
CHUNK = 50_000
#: most draws whose ratio tables are kept between calls (stage 1's, read by every scan batch)
KEEP_TABLES = 100_000
#: windows measured for the lower end
LOWER_TOP = 3
#: share of the failure of each of the two upper-end stages; the lower end's: the rest
STAGE_SHARE = 0.4
LOWER_SHARE = 1.0 - 2 * STAGE_SHARE
#: the window truncation of the sweep's scan (its slack ``tolerance e^eps`` joins the upper end): far
#: below the Monte Carlo error, while the scan stops at the windows whose far records matter
SWEEP_TOLERANCE = 1e-4
#: largest log-ratio of the table (beyond it ``exp`` overflows): such noise is refused
MAX_LOG_RATIO = 700.0


def draw_blocks(noises: Sequence, n: int, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n`` draws in blocks of :data:`CHUNK`: sorted uniforms ``u`` and one noise column per release."""
    blocks, left = [], n
    while left > 0:
        k = min(CHUNK, left)
        u = np.sort(rng.random(k))
        z = np.stack([f.sample(k, rng) for f in noises], axis=1)
        blocks.append((u, z))
        left -= k
    return blocks


@dataclass
class CommonDraws:
    """``n`` draws ``(u, z)`` (uniforms sorted) and their ratio table ``r_d(z)``, ``|d| <= D``
    (module docstring), built block by block of :data:`CHUNK` draws and widened as windows grow."""

    noises: Sequence
    step: float
    n: int
    rng: np.random.Generator
    blocks: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    tables: dict[int, np.ndarray] = field(default_factory=dict)
    reach: int = -1

    def __post_init__(self) -> None:
        self.blocks.extend(draw_blocks(self.noises, self.n, self.rng))

    def table(self, b: int, reach: int) -> np.ndarray:
        """Block ``b``'s table ``T[s, self.reach + d] = r_d(z_s)`` for ``|d| <= self.reach``
        (at least ``reach``); kept for the next call where the draws are few
        (:data:`KEEP_TABLES`), else built again (memory bounded by one block)."""
        if reach > self.reach:
            self.reach = max(reach, 2 * self.reach)
            self.tables = {}
        if b in self.tables:
            return self.tables[b]
        _, z = self.blocks[b]
        d = np.arange(-self.reach, self.reach + 1) * self.step
        log = np.zeros((z.shape[0], d.size))
        for r, f in enumerate(self.noises):
            base = f.log_density(z[:, r])
            log += f.log_density(z[:, r, None] + d[None, :]) - base[:, None]
        top = float(np.max(log))
        if not top <= MAX_LOG_RATIO:
            raise NotAvailable(
                f"the noises' likelihood ratios reach e^{top:.3g} between lattice values "
                "(overflow): the window sweep does not apply"
            )
        T = np.exp(log)
        if self.n <= KEEP_TABLES:
            self.tables[b] = T
        return T


def _sums(A: np.ndarray, B: np.ndarray, draws: CommonDraws, ks: np.ndarray) -> np.ndarray:
    """``(rows, K, 2, 2)``: per row, value ``k`` of ``ks`` and order (``P || Q`` from ``A``, ``Q || P``
    from ``B``) the sum and the sum of squares of ``(1 - k q/p)_+`` (``(1 - k p/q)_+``) over the
    draws (the table's products are shared by every ``k``)."""
    rows, J = A.shape
    ks = np.atleast_1d(ks)
    out = np.zeros((rows, ks.size, 2, 2))
    for b in range(len(draws.blocks)):
        u = draws.blocks[b][0]
        T = draws.table(b, J - 1)
        off = draws.reach
        pq = np.empty((u.size, 2))
        for r in range(rows):
            M = np.stack([A[r, ::-1], B[r, ::-1]], axis=1)
            for side, w in enumerate((A[r], B[r])):
                edges = np.searchsorted(u, np.concatenate([[0.0], np.cumsum(w)]))
                edges[-1] = u.size  # the cdf's last value is 1 up to rounding
                for j in np.nonzero(edges[1:] > edges[:-1])[0]:
                    lo, hi = edges[j], edges[j + 1]
                    np.matmul(T[lo:hi, off + j - J + 1 : off + j + 1], M, out=pq[lo:hi])
                add_hockey(out[r, :, side], pq[:, 1 - side] / pq[:, side], ks)
    return out


def add_hockey(out: np.ndarray, ratio: np.ndarray, ks: np.ndarray) -> None:
    """Add to ``out[g]`` (shape ``(K, 2)``) the sum and the sum of squares of ``(1 - k_g ratio)_+``
    over the draws' likelihood ratios ``ratio``."""
    if ks.size == 1:
        x = ratio * -ks[0]
        x += 1.0
        np.maximum(x, 0.0, out=x)
        out[0, 0] += x.sum()
        # not BLAS's dot: its threads stall on short vectors when the machine is busy
        out[0, 1] += np.einsum("i,i->", x, x)
        return
    # several k: (1 - k x)_+ is nonzero where x < 1/k, a prefix of the sorted ratios, whose sums
    # of x and x^2 give every k's two sums at once
    x = np.sort(ratio)
    c1 = np.concatenate([[0.0], np.cumsum(x)])
    c2 = np.concatenate([[0.0], np.cumsum(x * x)])
    m = np.searchsorted(x, 1.0 / ks, side="left")
    out[:, 0] += np.maximum(m - ks * c1[m], 0.0)
    out[:, 1] += np.maximum(m - 2.0 * ks * c1[m] + ks * ks * c2[m], 0.0)


def mean_half(sums: np.ndarray, n: int, failure: float) -> tuple[np.ndarray, np.ndarray]:
    """Per row (value of ``eps``) and order: the mean of the ``n`` values and the one-sided empirical
    Bernstein deviation with ``failure``
    (:func:`~bdpsim.kernels.privacy.joint.bernstein_deviation`)."""
    mean = sums[..., 0] / n
    var = np.maximum(sums[..., 1] - n * mean**2, 0.0) / (n - 1)
    return mean, bernstein_deviation(var, n, failure)


def _ends(sums: np.ndarray, n: int, failure: float) -> tuple[np.ndarray, np.ndarray]:
    """Per row and value of ``eps``: the estimate ``max`` over the two orders, and the larger one-sided
    upper end (each order with ``failure``)."""
    mean, half = mean_half(sums, n, failure)
    return mean.max(axis=-1), np.minimum(mean + half, 1.0).max(axis=-1)


def _stacked(laws: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The pairs' laws as two arrays of rows, padded with zeros to the widest."""
    width = max(a.size for a, _ in laws)
    A, B = np.zeros((len(laws), width)), np.zeros((len(laws), width))
    for i, (a, b) in enumerate(laws):
        A[i, : a.size], B[i, : b.size] = a, b
    return A, B


def pair_ends(
    laws: Sequence[tuple[np.ndarray, np.ndarray]], draws: CommonDraws, epsilons, failure: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair of lattice laws ``(A, B)`` (rows normalised; one pass over ``draws`` for all), value
    of ``epsilons`` and order (``P || Q``, ``Q || P``): the estimate of ``H_eps`` and its one-sided
    lower and upper ends, each with ``failure`` (shape ``(pairs, K, 2)`` each)."""
    trimmed = []
    for a, b in laws:  # shift-invariant: the laws' common support only
        on = np.nonzero((a > 0) | (b > 0))[0]
        trimmed.append((a[on[0] : on[-1] + 1], b[on[0] : on[-1] + 1]))
    A, B = _stacked(trimmed)
    s = _sums(A, B, draws, np.array([math.exp(e) for e in np.atleast_1d(np.asarray(epsilons, dtype=float))]))
    mean, half = mean_half(s, draws.n, failure)
    return mean, np.maximum(mean - half, 0.0), np.minimum(mean + half, 1.0)


def pair_lowers(
    laws: Sequence[tuple[np.ndarray, np.ndarray]], draws: CommonDraws, epsilon: float, failure: float
) -> list[tuple[float, float]]:
    """Per pair of lattice laws ``(A, B)``: ``(estimate, lower end)`` of ``max(H_eps(P||Q),
    H_eps(Q||P))``, each order's one-sided lower end with ``failure`` (:func:`pair_ends`)."""
    mean, low, _ = pair_ends(laws, draws, epsilon, failure)
    return [(float(m.max()), float(lo.max())) for m, lo in zip(mean[:, 0], low[:, 0])]


class WindowSweep:
    """The window scan's row score of stage 1 (module docstring): each row's estimate, the rows
    kept for the later stages. Beside it each row's certified upper end — the least of the query
    laws' own divergence and the coupling bound (:mod:`bdpsim.accounting.coupling`) — caps the
    row's Monte Carlo upper end; a row whose two laws are point masses (the adversary knows the
    query up to the target: a product of the releases' own privacy-loss distributions) takes its
    certified end alone, without draws.

    ``epsilon`` a number, or an array of ``K`` values measured on the same draws (each value's
    failure ``failure / K``: the ends hold at every value at once); the scan's row score is that of
    value ``score_at``. ``measure = False``: no draws, every row by its certified end alone (the
    profile's certified upper ends over every window, cheaply)."""

    #: what caps each window's Monte Carlo upper end, in the notes
    CAPS = "no noise; the monotone coupling"

    def __init__(
        self,
        plan: ReleasePlan,
        comps: Components,
        epsilon,
        seed: int,
        failure: float = 1.0 - CONFIDENCE,
        tag: int = 0,
        score_at: int = 0,
        measure: bool = True,
    ) -> None:
        self.failure = float(failure)
        self.noises = [z for _, z in plan.reduced]
        self.epsilons = np.atleast_1d(np.asarray(epsilon, dtype=float))
        self.ks = np.array([math.exp(e) for e in self.epsilons])
        self.score_at, self.measure = int(score_at), bool(measure)
        self._read(plan, comps)
        entropy = [seed, 2] if tag == 0 else [seed, 2, tag]
        self.streams = np.random.default_rng(entropy).spawn(3)  # child streams of one seed
        self.stage1 = self.new_draws(STAGE1_DRAWS if measure else 0, self.streams[0])
        self.laws: list = []
        self.sums: list[np.ndarray] = []  # per Monte Carlo row: (K, 2, 2)
        self.capped: list[np.ndarray] = []  # the Monte Carlo rows' certified upper ends (K,)
        self.points: list[np.ndarray] = []  # the point-mass rows' certified upper ends (K,)
        self.stage2_draws = 0

    def _read(self, plan: ReleasePlan, comps: Components) -> None:
        """What the rows are read through: the one query's marginal, its step, its certified caps."""
        from .coupling import coupling_score

        cols = {c for c, _ in plan.reduced}
        if len(cols) != 1:
            raise NotAvailable("the window sweep reads releases of one query only")
        c = cols.pop()
        self.step = float(comps.step[c])
        self.marginal = component_marginal(comps, c)
        self.bounds = [
            b
            for b in (
                bound_score("noise-free", plan, comps, self.epsilons),
                coupling_score(plan, comps, self.epsilons),
            )
            if b is not None
        ]

    def _certified(self, W1: np.ndarray, W2: np.ndarray) -> np.ndarray:
        out = np.ones((W1.shape[0], self.ks.size))
        for b in self.bounds:
            out = np.minimum(out, b(W1, W2)[0])
        return out

    def __call__(self, W1: np.ndarray, W2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        A, B = self.marginal(W1), self.marginal(W2)
        a, b = A.sum(axis=1), B.sum(axis=1)
        out = np.full(A.shape[0], np.nan)
        live = (a > 0) & (b > 0)
        if not live.any():
            return out, np.zeros(A.shape[0])
        cert = np.full((A.shape[0], self.ks.size), np.nan)
        cert[live] = self._certified(W1[live], W2[live])
        point = live & (np.count_nonzero(A, axis=1) == 1) & (np.count_nonzero(B, axis=1) == 1)
        if not self.measure:
            point = live
        out[point] = cert[point, self.score_at]
        self.points.extend(cert[point])
        rows = np.nonzero(live & ~point)[0]
        if rows.size:
            on = (A[rows] > 0) | (B[rows] > 0)  # shift-invariant: each row on its own support
            first, last = np.argmax(on, axis=1), on.shape[1] - 1 - np.argmax(on[:, ::-1], axis=1)
            width = last - first + 1
            for w in np.unique(width):
                pick = np.nonzero(width == w)[0]
                cols = first[pick, None] + np.arange(w)[None, :]
                An = np.take_along_axis(A[rows[pick]], cols, axis=1) / a[rows[pick], None]
                Bn = np.take_along_axis(B[rows[pick]], cols, axis=1) / b[rows[pick], None]
                s = _sums(An, Bn, self.stage1, self.ks)
                g = self.score_at
                out[rows[pick]] = np.minimum(_ends(s, self.stage1.n, 1.0)[0][:, g], cert[rows[pick], g])
                self.laws.extend(zip(An, Bn))
                self.sums.extend(s)
                self.capped.extend(cert[rows[pick]])
        return out, np.zeros(A.shape[0])

    def uppers(self) -> tuple[np.ndarray, np.ndarray, int, int]:
        """At each value of ``eps`` (shape ``(K,)``): the upper end of the supremum over the rows
        scored (stages 1 and 2, every end at every value holding at once) and its certified upper
        end (the rows' certified ends alone, without draws); the number of windows; the number
        refined by stage 2."""
        W, K = len(self.sums), self.ks.size
        if W + len(self.points) == 0:
            raise NotAvailable("no adversary has two target values of positive probability")
        points = np.max(np.array(self.points), axis=0) if self.points else np.full(K, -math.inf)
        if W == 0:
            return points, points, len(self.points), 0
        cap = np.array(self.capped)
        sums = np.array(self.sums)
        failure = STAGE_SHARE * self.failure / (2 * W * K)
        mean, up = _ends(sums, self.stage1.n, failure)
        up = np.minimum(up, cap)
        # stage 2 cannot bring an upper end below the best estimate plus its own deviation
        again_at = np.zeros(W, dtype=bool)
        for g in range(K):
            top = int(np.argmax(mean[:, g]))
            side = int(np.argmax(sums[top, g, :, 0]))
            var = sums[top, g, side, 1] / self.stage1.n - mean[top, g] ** 2
            deviation = float(bernstein_deviation(max(var, 0.0), STAGE2_DRAWS, failure))
            floor = max(float(mean[top, g]), float(points[g])) + deviation
            again_at |= up[:, g] > floor
        again = np.nonzero(again_at)[0]
        if again.size:
            atoms = sum(self.laws[r][-1].size for r in again)
            draws = int(max(min(STAGE2_DRAWS, STAGE2_WORK / (atoms * K)), 2 * STAGE1_DRAWS))
            fresh = self.new_draws(draws, self.streams[1])
            self.stage2_draws = draws
            failure2 = STAGE_SHARE * self.failure / (2 * again.size * K)
            _, up2 = _ends(self._measure([self.laws[r] for r in again], fresh), fresh.n, failure2)
            up[again] = np.minimum(up2, cap[again])
        upper = np.maximum(up.max(axis=0), points)
        certified = np.maximum(cap.max(axis=0), points)
        return np.minimum(upper, certified), certified, W + len(self.points), int(again.size)

    def upper(self) -> tuple[float, float, int, int]:
        """:meth:`uppers` of a sweep of one ``eps``, as numbers."""
        upper, certified, windows, again = self.uppers()
        return float(upper[0]), float(certified[0]), windows, again

    def lower_draws(self):
        """The fresh draws of the lower end (one set for its :data:`LOWER_TOP` adversaries)."""
        return self.new_draws(LOWER_DRAWS, self.streams[2])

    def new_draws(self, n: int, rng: np.random.Generator):
        return CommonDraws(self.noises, self.step, n, rng)

    def _measure(self, laws: Sequence, draws) -> np.ndarray:
        """:func:`_sums` of the pairs of laws ``laws`` on ``draws``, at every ``eps``."""
        A, B = _stacked(laws)
        return _sums(A, B, draws, self.ks)

    def pair_laws(self, W1: np.ndarray, W2: np.ndarray) -> tuple:
        """One adversary's pair of laws of the packed sums as the sweep reads them (normalised)."""
        A, B = self.marginal(np.vstack([W1, W2]))
        return A / A.sum(), B / B.sum()

    def lower_ends(self, laws: Sequence, draws, epsilons, failure: float):
        """:func:`pair_ends` of ``laws`` (from :meth:`pair_laws`) on ``draws``."""
        return pair_ends(laws, draws, epsilons, failure)


__all__ = [
    "LOWER_SHARE",
    "LOWER_TOP",
    "SWEEP_TOLERANCE",
    "CommonDraws",
    "WindowSweep",
    "pair_ends",
    "pair_lowers",
]
