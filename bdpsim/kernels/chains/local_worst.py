"""The supremum over adversaries of the privacy profile of a chain's local release, bracketed.

The adversaries of :mod:`bdpsim.kernels.chains.local_profile` are a target ``t``, an ordered pair of
values ``(a, b)`` and a known set ``K`` with its values. The supremum of ``delta(eps)`` (and of
``D_alpha``, of the largest loss, and ``eps(delta)`` of the supremum) is taken over all of them
whose ``|K|`` is an allowed size.

**Reduction to windows.** An adversary's profile depends on ``K`` only through the nearest known
steps ``s < t < s'`` and their values (:mod:`~bdpsim.kernels.chains.local_profile`), and a known
set of size ``n`` with these nearest steps exists iff ``n`` lies between the number of boundaries
(0, 1 or 2) and that number plus the ``s - 1 + T - s'`` steps outside the window
(:func:`~bdpsim.kernels.chains.local_profile.window_allowed`). The supremum over known sets is a
supremum over windows ``(s, c, s', d)``; ``sizes = [0]`` leaves the one window of the adversary
who knows nothing (the ``TPL``-type adversary), ``sizes = "all"`` every window (``O(T^2)`` per
target). No window can be dropped in general: knowing a boundary value can raise or lower the
profile (the exhaustive tests meet both), so every allowed window is composed, once per distinct
set of parts (on a chain with the same transitions and releases at every step, windows of the
same lengths and boundary values share their parts).

**Blocks of targets.** On a stationary chain with the same transitions and releases at every
step, the releases ``r_2..r_t`` given ``x_{t+1}`` have the law of ``r_1..r_{t-1}`` given ``x_t``:
the past pair of target ``t`` is a garbling of that of ``t + 1`` (drop ``r_1``), and the future
pair of ``t + 1`` a garbling of that of ``t``. So for every ``t`` in ``[t1, t2]`` the release pair
is a garbling of ``past_{t2} x present x future_{t1}``, and one composition bounds every
divergence of a block of targets from above. With ``sizes = [0]`` the targets are searched by
halving blocks (their middle target composed for the lower end) until a block's upper end lies
within a quarter of the tolerance (without a tolerance :data:`BLOCK_SLACK`) of the targets' own:
the whole chain of ``T = 1000`` steps costs a handful of compositions. A finer pass keeps the
factors of the targets the last pass composed and of the middle and quarter points of the blocks
it accepted (another target costs a rerun of the sweep).

**Refinement.** Each pass composes on one grid; a pass's bracket of the supremum is
``[max lower, max upper]`` over its compositions (a composition left out of a finer pass keeps the
upper end of a coarser one, which lay below the largest lower end). With a tolerance, the grid
grows until ``max(delta.high - delta.low)`` over the ``eps`` asked (and of the TPR over the FPRs
asked) is within it: doubled once, then aimed with the order of convergence the last two passes
show (about ``grid^-2``); the compositions whose upper ends lie below the largest lower ends at
every quantity are left out.

**The worst TPR at an FPR.** Not a function of the supremum's profile: ``sup_adv inf_eps [e^eps
alpha + delta_adv(eps)]`` lies below ``inf_eps sup_adv``. Each composition's own most powerful
test is bracketed (:func:`~bdpsim.kernels.chains.pair_product.tpr_both`: attained on its lower pair,
a garbling of the release; bounded on its upper pair), by branch and bound within a pass: every
composition's TPR is first bounded by its own profile at :data:`BOUND_EPSILONS` (both signs), then
searched in the order of these bounds only where it can pass the largest TPR attained so far.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..argcheck import ParameterError, require
from .local_profile import (
    GRID,
    MAX_WORK,
    LocalAdversary,
    LocalRelease,
    Sweeps,
    adversary_bracket,
    adversary_slots,
    estimate_work,
    finest_grid,
    grid_argument,
    known_sizes,
    local_release,
    loss_bins,
    value_pairs,
    windows,
)
from .pair_product import (
    Bounds,
    PairBracket,
    ProductPair,
    alpha_value,
    delta_values,
    epsilon_values,
    fpr_value,
    tpr_both,
)

#: first and largest grid of the refinement towards a tolerance
GRID_START, GRID_MAX = 64, 4096
#: the work (in the estimate's units, about one floating-point operation) of looking at one adversary
VISIT = 3000.0
#: the ``eps`` (both signs) at which each adversary's profile bounds its TPR before any search
BOUND_EPSILONS = np.r_[0.0, np.geomspace(0.01, 8.0, 24)]
#: without a tolerance, how far above the targets' upper ends a block of targets may be bounded together
BLOCK_SLACK = 1e-10


@dataclass(frozen=True)
class WorstProfile:
    """The supremum over adversaries of the privacy profile of a chain's local release, bracketed.

    Every ``high`` is the largest over the adversaries of the best upper end known for each (an
    adversary left out of a finer grid keeps the upper end of a coarser one, which lay below the
    largest lower end), every ``low`` the largest lower end: the supremum lies between them.

    Attributes
    ----------
    epsilon : numpy.ndarray
        The ``eps`` asked.
    delta : Bounds
        ``sup`` over adversaries (targets, known sets of the allowed sizes, pairs, both orders) of
        ``delta(eps)``.
    attained_by : tuple of LocalAdversary
        Per ``eps``, the adversary (ordered pair) of the largest lower end.
    bdpl : Bounds
        The ``delta = 0`` limit: the supremum of the largest privacy loss (``max_t TPL_t`` of the
        exact temporal leakage with ``sizes = [0]``); :attr:`bdpl_by` its adversary.
    renyi : dict of float to Bounds
        ``sup`` of ``D_alpha`` for each ``alpha`` asked; :attr:`renyi_by` the adversary (ordered
        pair) of each largest lower end.
    epsilon_at : dict of float to Bounds
        ``eps(delta) = inf {eps : sup delta(eps) <= delta}`` for each ``delta`` asked;
        :attr:`epsilon_by` the adversary (ordered pair) whose lower pair has ``delta > delta_asked``
        at the lower end: it certifies ``eps(delta) >= low`` (``None`` where ``eps(delta) = 0``).
    tpr : dict of float to Bounds
        Per FPR ``alpha`` asked, ``sup`` over adversaries and both orders of the most powerful
        test's TPR at FPR ``alpha``, each adversary's own
        (:func:`~bdpsim.kernels.chains.pair_product.tpr_both` of its pair:
        ``TPR_adv(alpha) = inf_eps [e^eps alpha + delta_adv(eps)]`` over every real ``eps``;
        not the bound ``inf_eps sup_adv`` of the profile); :attr:`tpr_by` the
        adversary (ordered pair: positives ``x_t = a``) of the largest lower end, attained by a
        test of its lower pair (a garbling of its release).
    grid, bins : int
        The discretisation of the last pass.
    tolerance : float or None
        The width asked; :attr:`converged` whether ``max(delta.high - delta.low)`` reached it.
    composed : int
        Compositions ``past x present x future`` (each for a pair in both orders) of the last grid:
        one per distinct set of parts (on a chain with the same transitions and releases at every
        step, windows of the same lengths and boundary values share one), one per block of
        targets (:attr:`tolerance` reached early leaves the rest out).
    sizes : tuple of int
        The allowed numbers of known steps.
    """

    epsilon: np.ndarray
    delta: Bounds
    attained_by: tuple[LocalAdversary, ...]
    bdpl: Bounds
    bdpl_by: LocalAdversary
    renyi: dict[float, Bounds]
    grid: int
    bins: int
    tolerance: float | None
    converged: bool
    composed: int
    sizes: tuple[int, ...]
    renyi_by: dict[float, LocalAdversary] = field(default_factory=dict)
    epsilon_at: dict[float, Bounds] = field(default_factory=dict)
    epsilon_by: dict[float, LocalAdversary | None] = field(default_factory=dict)
    tpr: dict[float, Bounds] = field(default_factory=dict)
    tpr_by: dict[float, LocalAdversary] = field(default_factory=dict)

    @property
    def width(self) -> float:
        """The widest gap ``delta.high - delta.low`` over the ``eps`` asked."""
        return float(np.max(self.delta.width)) if self.epsilon.size else 0.0


@dataclass(frozen=True)
class _Block:
    """Every target ``t1..t2`` of the adversary who knows nothing, hypotheses ``a`` vs ``b``."""

    t1: int
    t2: int
    a: int
    b: int

    def reversed(self) -> _Block:
        return _Block(self.t1, self.t2, self.b, self.a)


def _equal(one: ProductPair, two: ProductPair) -> bool:
    """Whether two pairs have the same parts (a bracket closed where the grid holds every atom)."""
    return len(one.factors) == len(two.factors) and all(
        f is g or (np.array_equal(f.p, g.p) and np.array_equal(f.q, g.q))
        for f, g in zip(one.factors, two.factors)
    )


class _Tally:
    """Per composition (``key``: the parts' slots and the pair ``a < b``, or a block of targets),
    the best upper ends known of each quantity for both orders (``delta`` at each ``eps``, the
    largest loss, ``D_alpha`` at each ``alpha``); the largest lower ends over adversaries and who
    attains them; the pairs composed in the current pass (for ``eps(delta)``)."""

    def __init__(self, eps: np.ndarray, alphas: Sequence[float], fprs: Sequence[float] = ()) -> None:
        self.eps, self.alphas = eps, list(alphas)
        self.fprs = np.array([float(f) for f in fprs])
        self.high: dict[tuple, np.ndarray] = {}  # (2, n): the order (a, b), then (b, a)
        self.low = np.full(eps.size + 1 + len(alphas) + self.fprs.size, -np.inf)
        self.by: list[LocalAdversary | None] = [None] * self.low.size
        self.entries: list[tuple[ProductPair | None, ProductPair, LocalAdversary | None]] = []
        # the quantities the tolerance and the blocks' slack read: delta at each eps, TPR at each FPR
        self.checked = np.r_[np.arange(eps.size), np.arange(self.low.size - self.fprs.size, self.low.size)]
        self.target_top = np.full(self.low.size, -np.inf)  # largest upper ends of single adversaries
        self.seen: set[tuple] = set()  # compositions made in the current pass
        self.pending: list[tuple[tuple, LocalAdversary, PairBracket]] = []  # TPRs to search (settle)

    def _profile_bound(self, fwd: np.ndarray, bwd: np.ndarray) -> np.ndarray:
        """``(2, fprs)``: per order, ``min_c [e^c alpha + delta(c)]`` over ``c = +-e`` for ``e`` in
        :data:`BOUND_EPSILONS` (``fwd``, ``bwd``: ``delta`` of both orders there; ``delta(-e) = 1 -
        e^-e + e^-e delta_reversed(e)``): an upper bound of the pair's TPR at each FPR."""
        a = self.fprs[:, None]
        t = np.exp(-BOUND_EPSILONS)[None, :]
        out = []
        for d, r in ((fwd, bwd), (bwd, fwd)):
            above = a / t + d[None, :]
            below = t * a + 1.0 - t + t * r[None, :]
            out.append(np.minimum(above.min(axis=1), below.min(axis=1)))
        return np.minimum(np.stack(out), 1.0)

    def _ends(self, pair: ProductPair, side: str = "upper", search: bool = True) -> np.ndarray:
        """Per order, the quantities of ``pair``: ``delta`` at each ``eps``, the largest loss,
        ``D_alpha`` at each ``alpha``, the most powerful test's TPR at each FPR (its lower end,
        attained, for a lower pair; its upper end for an upper pair: :func:`tpr_both`, not
        searched past the best lower ends so far). Without ``search``: the trivial test (lower)
        or the bound of the pair's profile (:meth:`_profile_bound`, upper)."""
        rev = pair.reversed()
        n = self.eps.size
        if self.fprs.size:
            fwd, bwd = pair.delta_both(np.r_[self.eps, BOUND_EPSILONS])
            bound = self._profile_bound(fwd[n:], bwd[n:])
            fwd, bwd = fwd[:n], bwd[:n]
            if not search:
                tpr = bound if side == "upper" else np.stack([self.fprs, self.fprs])
            else:
                floor = self.low[self.low.size - self.fprs.size :]
                low, high = tpr_both(pair.factors, self.fprs, floor=floor, high=bound)
                tpr = low if side == "lower" else high
        else:
            fwd, bwd = pair.delta_both(self.eps)
            tpr = np.empty((2, 0))
        return np.stack(
            [
                np.concatenate([fwd, [pair.max_loss()], [pair.renyi(a) for a in self.alphas], tpr[0]]),
                np.concatenate([bwd, [rev.max_loss()], [rev.renyi(a) for a in self.alphas], tpr[1]]),
            ]
        )

    def _upper(self, key: tuple, upper: ProductPair) -> np.ndarray:
        hi = self._ends(upper)
        self.high[key] = np.minimum(self.high[key], hi) if key in self.high else hi
        return hi

    def _raise(self, adv: LocalAdversary, lows: np.ndarray, cols=slice(None)) -> None:
        """The lower ends ``lows`` (both orders) of ``adv``'s quantities ``cols``."""
        for who, lo in zip((adv, adv.reversed()), lows):
            now = self.low[cols]
            idx = np.arange(self.low.size)[cols]
            for i in np.flatnonzero(lo > now):
                self.by[int(idx[i])] = who
            self.low[cols] = np.maximum(now, lo)

    def add(self, key: tuple, adv: LocalAdversary, bracket: PairBracket, defer: bool = False) -> None:
        """The composition ``key`` of the adversary ``adv`` (``a < b``; both orders). ``defer``:
        its TPR is searched by :meth:`settle` (until then: the trivial test and its profile's
        bound)."""
        self.seen.add(key)
        defer = defer and bool(self.fprs.size)
        if defer:
            hi = self._ends(bracket.upper, search=False)
            self.high[key] = np.minimum(self.high[key], hi) if key in self.high else hi
        else:
            hi = self._upper(key, bracket.upper)
        self.target_top = np.maximum(self.target_top, hi.max(axis=0))
        lows = self._ends(bracket.lower, "lower", search=not defer)
        self._raise(adv, lows)
        if defer:
            self.pending.append((key, adv, bracket))
        self.entries.append((bracket.lower, bracket.upper, adv))

    def settle(self) -> None:
        """Branch and bound over the deferred compositions' TPRs: by decreasing upper end (the
        bound of their profile, the largest over the FPRs), each searched (:func:`tpr_both`; once
        where the lower and the upper pair are equal) unless its upper end at every FPR is at most
        the best lower end attained so far."""
        n = self.fprs.size
        cols = slice(self.low.size - n, self.low.size)
        order = sorted(self.pending, key=lambda e: -float(self.high[e[0]][:, cols].max()))
        for key, adv, bracket in order:
            high = self.high[key][:, cols]
            if not bool(np.any(high > self.low[cols])):
                continue
            lower, upper = bracket.lower, bracket.upper
            low, up = tpr_both(upper.factors, self.fprs, floor=self.low[cols], high=high)
            if not _equal(lower, upper):
                low = tpr_both(lower.factors, self.fprs, floor=self.low[cols], high=up)[0]
            self._raise(adv, low, cols)
            self.high[key][:, cols] = np.minimum(high, up)
        self.pending = []

    def block_excess(self, upper: ProductPair) -> tuple[np.ndarray, np.ndarray]:
        """The ends of an upper pair valid for every target of a block (both orders) and their
        excess over the largest upper ends of single adversaries."""
        hi = self._ends(upper)
        return hi, hi.max(axis=0) - self.target_top

    def add_block(self, block: _Block, upper: ProductPair, hi: np.ndarray) -> None:
        """An accepted block's upper pair and its ends (:meth:`block_excess`); a block that is
        split is not kept: its halves and its middle target bound its targets more tightly."""
        key = ("block", block)
        self.high[key] = np.minimum(self.high[key], hi) if key in self.high else hi
        self.entries.append((None, upper, None))

    def top(self) -> np.ndarray:
        return np.max(np.stack([h.max(axis=0) for h in self.high.values()]), axis=0)

    def width(self) -> float:
        """The widest bracket of ``delta`` at the ``eps`` asked and of the TPR at the FPRs asked."""
        c = self.checked
        return float(np.max(self.top()[c] - self.low[c])) if c.size else 0.0

    def contenders(self) -> set[tuple]:
        """The compositions whose upper end of some quantity lies above the largest lower end."""
        return {key for key, hi in self.high.items() if bool(np.any(hi.max(axis=0) > self.low))}


def _pass(rel: LocalRelease, sw: Sweeps, sizes: Sequence[int], tally: _Tally, keep: set[tuple] | None) -> int:
    """Compose every adversary (of the compositions ``keep``, if given) on the sweeps ``sw``, once
    per distinct composition; returns how many compositions."""
    tally.seen = seen = set()
    n = 0
    T = rel.steps
    pairs = value_pairs(rel.states)
    for t in range(1, T + 1):
        present = 0 if rel.homogeneous else t
        for lo, c, hi, d in windows(rel, t, sizes):
            slots = (sw.past_slot(t, lo, c), sw.future_slot(t, hi, d), present)
            for a, b in pairs:
                key = (*slots, a, b)
                if key in seen or (keep is not None and key not in keep):
                    continue
                seen.add(key)
                adv = LocalAdversary(t, a, b, (lo, c) if lo >= 1 else None, (hi, d) if hi <= T else None)
                br = adversary_bracket(sw, adv)
                if br is not None:
                    tally.add(key, adv, br, defer=True)
                    n += 1
    tally.settle()
    return n


def _pass_blocks(
    rel: LocalRelease, sw: Sweeps, tally: _Tally, slack: float
) -> tuple[int, list[tuple[int, int]]]:
    """The adversary who knows nothing on a stationary chain whose transitions and releases are the
    same at every step, over blocks of targets.

    By stationarity the releases ``r_2..r_t`` given ``x_{t+1}`` have the law of ``r_1..r_{t-1}``
    given ``x_t``: the past pair of target ``t`` is a garbling of that of ``t + 1`` (drop ``r_1``),
    and likewise the future pair of ``t + 1`` one of ``t``. So for every ``t`` in ``[t1, t2]`` the
    release pair is a garbling of ``past_{t2} x present x future_{t1}``, whose upper pair bounds
    every divergence of the block at once. Blocks are halved (their middle target composed) until
    their upper ends of ``delta`` at the ``eps`` asked lie within ``slack`` of the largest upper
    ends of the targets composed (their largest loss and ``D_alpha`` bound the block's too, less
    tightly), or hold one or two targets. Returns the number of compositions and the blocks
    accepted."""
    T = rel.steps
    n = 0
    done: set[int] = set()
    accepted: list[tuple[int, int]] = []

    def target(t: int) -> None:
        nonlocal n
        if t in done:
            return
        done.add(t)
        for a, b in value_pairs(rel.states):
            adv = LocalAdversary(t, a, b)
            br = adversary_bracket(sw, adv)
            if br is not None:
                tally.add((*adversary_slots(sw, adv), a, b), adv, br)
                n += 1

    for t in (1, T, (1 + T) // 2):
        target(t)
    stack = [(1, T)]
    while stack:
        t1, t2 = stack.pop()
        if t2 - t1 <= 1:
            target(t1)
            target(t2)
            continue
        excess = -np.inf
        uppers = []
        for a, b in value_pairs(rel.states):
            past = sw.past(t2, 0, -1).get((a, b))
            fut = sw.future(t1, T + 1, -1).get((a, b))
            if past is None or fut is None:
                continue
            up = ProductPair((past[1], sw.present(t1, a, b), fut[1]))
            hi, over = tally.block_excess(up)
            uppers.append((_Block(t1, t2, a, b), up, hi))
            excess = max(excess, float(np.max(over[tally.checked], initial=-np.inf)))
            n += 1
        if excess <= slack:
            for block, up, hi in uppers:
                tally.add_block(block, up, hi)
            accepted.append((t1, t2))
            continue
        tm = (t1 + t2) // 2
        target(tm)
        stack += [(tm, t2), (t1, tm)]
    return n, accepted


def _next_wanted(used: set[tuple[str, int]], accepted: list[tuple[int, int]]) -> set[tuple[str, int]]:
    """The targets whose factors the next (finer) block pass keeps: those used, and the middle and
    quarter points of every block accepted (a finer grid may split it twice)."""
    out = set(used)
    for t1, t2 in accepted:
        tm = (t1 + t2) // 2
        for t in (tm, (t1 + tm) // 2, (tm + t2) // 2):
            out |= {("past", t), ("future", t)}
    return out


def _largest_at(rows: list, i: int) -> LocalAdversary | None:
    """The adversary (ordered pair) of the largest ``delta`` at point ``i`` among ``rows``
    (``(both orders' larger, the order (a, b), adversary)``)."""
    vals, fwd, adv = max(rows, key=lambda r: float(r[0][i]))
    if adv is None:
        return None
    return adv if fwd[i] >= vals[i] else adv.reversed()


def _worst_epsilon(
    entries: list[tuple[ProductPair | None, ProductPair, LocalAdversary | None]],
    delta: float,
    top: Bounds,
    top_by: LocalAdversary,
) -> tuple[Bounds, LocalAdversary | None]:
    """``eps(delta)`` of the worst adversary, bracketed, from the pairs of the last pass (lower pairs
    of adversaries; upper pairs of adversaries and blocks): bisection to ``1e-9`` (17 points a
    round) on the largest lower and the largest upper curve, each round over the pairs whose curve
    at the interval's left end still lies above ``delta`` (the others cannot move the infimum).
    With it the adversary (ordered pair) whose lower pair has ``delta_lower(eps_lo) > delta`` at the
    bracket's lower end ``eps_lo``: it certifies ``eps(delta) >= eps_lo`` (``None`` where every
    ``delta(0) <= delta``, so ``eps(delta) = 0``; ``top_by``, the adversary of the largest loss, at
    ``delta = 0``)."""
    if delta == 0:
        return Bounds(np.asarray(top.low), np.asarray(top.high)), top_by
    ends = []
    who: LocalAdversary | None = None
    for side, top_side in ((0, float(top.low)), (1, float(top.high))):
        alive = [(p, e[2]) for e in entries if (p := e[0] if side == 0 else e[1]) is not None]
        xs = np.array([0.0])
        lo, hi = 0.0, max(top_side, 0.0)
        while True:
            worst = np.full(xs.size, -np.inf)
            nxt = []
            rows = []
            for pair, adv in alive:
                fwd, bwd = pair.delta_both(xs)
                vals = np.maximum(fwd, bwd)
                worst = np.maximum(worst, vals)
                rows.append((vals, fwd, adv))
                if vals[0] > delta:
                    nxt.append((pair, adv))
            alive = nxt
            if xs.size == 1 and not worst[0] > delta:  # delta(0) <= delta already
                lo = hi = 0.0
                who = None if side == 0 else who
                break
            i = int(np.flatnonzero(worst > delta)[-1])  # worst(lo) > delta holds
            if side == 0:
                who = _largest_at(rows, i) or who
            if xs.size > 1:
                lo, hi = float(xs[i]), float(xs[min(i + 1, xs.size - 1)])
            if hi - lo <= 1e-9:
                break
            xs = np.linspace(lo, hi, 17)
        ends.append(lo if side == 0 else hi)
    return Bounds(np.asarray(ends[0]), np.asarray(ends[1])), who


def _order(history: list[tuple[int, float]]) -> float:
    """The order of convergence ``p`` the last two passes show (``width ~ grid^-p``, kept in
    ``[1.5, 3]``; 2 with one pass)."""
    if len(history) < 2:
        return 2.0
    (g0, w0), (g, w) = history[-2:]
    p = math.log(w0 / w) / math.log(g / g0) if w0 > w > 0 else 2.0
    return min(max(p, 1.5), 3.0)


def _reach(history: list[tuple[int, float]], grid: int) -> float:
    """The width a pass on ``grid`` may reach, extrapolated from the last passes."""
    g, w = history[-1]
    return w * (g / grid) ** _order(history)


def _next_grid(history: list[tuple[int, float]], tolerance: float) -> int:
    """The grid of the next pass: double after the first; then aim at the tolerance with the order
    of convergence ``p`` the last two passes show (``width ~ grid^-p``, ``p`` kept in ``[1.5, 3]``,
    about 2), 5 % beyond, and at least 1.25 times the last grid."""
    g, w = history[-1]
    if len(history) < 2 or w <= 0:
        return 2 * g
    p = _order(history)
    return max(int(math.ceil(1.25 * g)), int(math.ceil(1.05 * g * (w / tolerance) ** (1.0 / p))))


def _window_count(T: int, t: int, sizes: Sequence[int], k: int) -> int:
    """How many ``(lo, c, hi, d)`` :func:`_windows` lists for target ``t`` at most (every value
    counted possible), in ``O(T)``: the known steps hold the boundaries and any of the ``lo - 1 +
    T - hi`` steps outside the window (:func:`window_allowed`)."""
    s1 = min((s for s in sizes if s >= 1), default=None)
    s2 = min((s for s in sizes if s >= 2), default=None)
    n = int(0 in sizes)
    if s1 is not None:  # one side: lo in [max(1, s1), t - 1]; hi in [t + 1, T + 1 - s1]
        n += k * (max(0, t - max(1, s1)) + max(0, min(T, T + 1 - s1) - t))
    if s2 is not None and t >= 2 and t <= T - 1:  # both: u = lo - 1, v = T - hi, u + v >= s2 - 2
        A, B, c = t - 2, T - t - 1, s2 - 2
        short = sum(min(B + 1, c - u) for u in range(0, min(A, c - 1) + 1)) if c > 0 else 0
        n += k * k * ((A + 1) * (B + 1) - short)
    return n


def _count(rel: LocalRelease, sizes: Sequence[int]) -> tuple[float, float, float]:
    """``(sweeps, compositions, adversaries)`` of one pass, for the cost estimate (on a chain with
    the same transitions and releases at every step, a window's parts depend on its lengths and
    boundary values only: at most ``((k + 1) T)^2 / 2`` distinct compositions)."""
    T, k = rel.steps, rel.states
    visits = float(sum(_window_count(T, t, sizes, k) for t in range(1, T + 1)))
    comps = min(visits, ((k + 1) * T) ** 2 / 2.0) if rel.homogeneous else visits
    if not any(s > 0 for s in sizes):
        sweeps = 4.0
    elif rel.homogeneous:
        sweeps = 4.0 * (k + 1)
    else:
        sweeps = 4.0 * (1 + k * T / 2)
    pairs = len(value_pairs(k))
    return sweeps, comps * pairs, visits * pairs


def _pass_work(
    rel: LocalRelease,
    grid: int,
    sizes: Sequence[int],
    bins: int,
    n_eps: int,
    max_work: float,
    kept: int | None = None,
) -> float:
    """The estimated work of one pass (``kept``: the compositions a finer pass keeps)."""
    sweeps, comps, visits = _count(rel, sizes)
    blocks = max(sizes) == 0 and rel.stationary
    work_comps = comps if kept is None else float(kept)
    if blocks:
        work_comps = min(comps, 8.0 * len(value_pairs(rel.states)) * max(math.log2(rel.steps), 1) * 16)
    return estimate_work(
        rel, grid, sweeps, work_comps, bins, n_eps, max_work, 0.0 if blocks else visits, VISIT
    )


def first_pass_work(
    rel: LocalRelease,
    *,
    sizes="all",
    n_eps: int = 1,
    tolerance: float | None = 1e-6,
    max_work: float = MAX_WORK,
) -> float:
    """The estimated work of the first pass of :func:`release_worst_profile` (its defaults for the
    grid and bins): refuse (:class:`~bdpsim.kernels.argcheck.TooExpensive`, with the estimate) a
    release too large before any work."""
    g = GRID_START if tolerance is not None else GRID
    return _pass_work(rel, g, known_sizes(sizes, rel.steps), loss_bins(g, None), n_eps, max_work)


def worst_local_release_profile(
    transitions,
    initial,
    likelihoods,
    *,
    epsilons,
    steps: int | None = None,
    **options,
) -> WorstProfile:
    """The supremum over adversaries of a chain's local release profile, bracketed (module docstring).

    The adversaries are every target ``t``, every pair of values in both orders, and every window
    of nearest known steps with their values that a known set of a size in ``sizes`` can have
    (:func:`window_allowed`; ``sizes = [0]``: the adversary who knows nothing, whose ``delta = 0``
    limit is ``max_t TPL_t``).

    Parameters
    ----------
    transitions, initial, likelihoods, steps
        The chain and its release (:func:`~bdpsim.kernels.chains.local_profile.local_release`).
    epsilons : sequence of float
        Where to evaluate ``delta(eps)`` (``>= 0``).
    **options
        The keywords of :func:`release_worst_profile`, passed on:
    sizes : "all" or sequence of int
        Allowed numbers of known steps.
    deltas : sequence of float
        Where to evaluate ``eps(delta)`` of the worst adversary (in ``[0, 1)``; to ``1e-9``).
    alphas : sequence of float
        Rényi orders (``> 1``; ``inf`` allowed).
    tolerance : float or None
        Double the grid (from ``grid``, default 64) until ``max(delta.high - delta.low) <=
        tolerance`` or the grid would pass ``max_grid``; the adversaries whose upper ends all lie
        below the largest lower ends are left out of the finer grids. ``None``: one pass at
        ``grid`` (default 256).
    grid, bins : int, optional
        Cells per axis of the direction grid; cells of the one-dimensional loss grids.
    max_grid : int
        The finest grid the refinement tries.
    max_work : float
        Refuse (:class:`~bdpsim.kernels.argcheck.TooExpensive`) a pass of larger estimated work.

    Returns
    -------
    WorstProfile
    """
    return release_worst_profile(
        local_release(transitions, initial, likelihoods, steps=steps), epsilons=epsilons, **options
    )


def release_worst_profile(
    rel: LocalRelease,
    *,
    epsilons,
    sizes="all",
    deltas: Sequence[float] = (),
    alphas: Sequence[float] = (),
    fprs: Sequence[float] = (),
    tolerance: float | None = 1e-6,
    grid: int | None = None,
    bins: int | None = None,
    max_grid: int = GRID_MAX,
    max_work: float = MAX_WORK,
) -> WorstProfile:
    """:func:`worst_local_release_profile` on a validated
    :class:`~bdpsim.kernels.chains.local_profile.LocalRelease` (its keywords: the parameters there)."""
    eps = epsilon_values(epsilons, "epsilons")
    sz = known_sizes(sizes, rel.steps)
    al = [alpha_value(a, "alphas") for a in alphas]
    dl = [float(x) for x in delta_values(list(deltas), "deltas")] if len(deltas) else []
    fp = [fpr_value(f) for f in fprs]
    if tolerance is not None:
        require(
            isinstance(tolerance, (int, float, np.floating))
            and not isinstance(tolerance, bool)
            and tolerance > 0,
            "tolerance",
            tolerance,
            "must be a number > 0 or None",
        )
    mg = grid_argument(max_grid, "max_grid")
    g = grid_argument(grid) if grid is not None else (GRID_START if tolerance is not None else GRID)
    if tolerance is not None:
        g = min(g, mg)
    tally = _Tally(eps, al, fp)
    keep: set[tuple] | None = None
    wanted: set[tuple[str, int]] | None = None
    history: list[tuple[int, float]] = []
    accepted: list[tuple[int, int]] = []
    blocks = max(sz) == 0 and rel.stationary
    while True:
        nb = loss_bins(g, bins)
        _pass_work(rel, g, sz, nb, eps.size, max_work, None if keep is None else len(keep))
        sw = Sweeps(rel, g, nb, wanted if blocks else None)
        if blocks:  # the blocks of a pass need not be those of the last: count afresh
            tally = _Tally(eps, al, fp)
        tally.entries = []
        if blocks:
            slack = tolerance / 4 if tolerance else BLOCK_SLACK  # the same in every pass: alike trees
            if tolerance and history and g >= min(mg, finest_grid(rel.states)):
                slack = max(slack, _reach(history, g) / 4)  # the last pass cannot reach the tolerance
            composed, accepted = _pass_blocks(rel, sw, tally, slack)
        else:
            composed = _pass(rel, sw, sz, tally, keep)
        if not tally.high:
            raise ParameterError("sizes", list(sz), "no adversary has two possible values at its target")
        width = tally.width()
        if tolerance is None or width <= tolerance or g >= min(mg, finest_grid(rel.states)):
            break
        keep = tally.contenders()
        wanted = _next_wanted(sw.used, accepted) if blocks else None
        history.append((g, width))
        g = min(mg, finest_grid(rel.states), _next_grid(history, tolerance))
    if dl and keep is not None and not blocks:  # eps(delta) needs every adversary at the last grid
        tally.entries = []
        _pass(rel, sw, sz, tally, None)
    top = tally.top()
    n = eps.size
    bdpl = Bounds(np.asarray(tally.low[n]), np.asarray(top[n]))
    renyi = {
        a: Bounds(np.asarray(tally.low[n + 1 + i]), np.asarray(top[n + 1 + i])) for i, a in enumerate(al)
    }
    by = [b for b in tally.by if b is not None]  # every entry is set by the first adversary
    assert len(by) == len(tally.by)
    eps_at = {d: _worst_epsilon(tally.entries, d, bdpl, by[n]) for d in dl}
    m = n + 1 + len(al)
    return WorstProfile(
        eps,
        Bounds(tally.low[:n].copy(), top[:n].copy()),
        tuple(by[:n]),
        bdpl,
        by[n],
        renyi,
        g,
        loss_bins(g, bins),
        tolerance,
        tolerance is not None and tally.width() <= tolerance,
        composed,
        sz,
        {a: by[n + 1 + i] for i, a in enumerate(al)},
        {d: b for d, (b, _) in eps_at.items()},
        {d: who for d, (_, who) in eps_at.items()},
        {f: Bounds(np.asarray(tally.low[m + i]), np.asarray(top[m + i])) for i, f in enumerate(fp)},
        {f: by[m + i] for i, f in enumerate(fp)},
    )


__all__ = [
    "BLOCK_SLACK",
    "GRID_MAX",
    "GRID_START",
    "WorstProfile",
    "first_pass_work",
    "release_worst_profile",
    "worst_local_release_profile",
]
