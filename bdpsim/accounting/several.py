"""The window sweep (:mod:`bdpsim.accounting.sweep`) of releases that read **several** queries —
the noisy histogram of three or more states, a count beside a sum of state values — measured by
Monte Carlo on common draws over every window of a chain.

**The laws.** A window's two laws are laws of the query vector ``S = (S_1, ..., S_C)`` on its
lattice (atoms ``x_j``, integer steps per query), ``P = sum_j A_j K_j`` and ``Q = sum_k B_k K_k``
with ``K_j(y) = prod_r f_r(y_r - x_{j, c(r)} s_{c(r)})`` (release ``r`` reads query ``c(r)``, its
own noise ``f_r``). At a draw ``Y = x_j s + z`` from atom ``j``,
``p(Y) / K_j(Y) = sum_k A_k exp(sum_r l_r(z_r, x_{j,c(r)} - x_{k,c(r)}))`` with the log-ratio table
``l_r(z, d) = ln f_r(z + d s_{c(r)}) - ln f_r(z)``, which depends on the draw only: one set of
draws serves every window, as for one query; a window costs ``N J R`` operations (``J`` atoms,
``R`` releases) instead of ``N J``.

**Certified caps.** No release of the query vector leaks more than the vector itself: each row's
Monte Carlo upper end is capped by the hockey-stick divergence of its two laws without noise
(data processing). The monotone coupling of one query has no analogue here.

Everything else — the stages, the Bonferroni split, the lower ends, the truncation — is the one
query's (:class:`~bdpsim.accounting.sweep.WindowSweep`).

**Cost, before any work** (:func:`sweep_cost`). Stage 1 measures every window's pair on
:data:`~bdpsim.accounting.sweep.STAGE1_DRAWS` draws: ``N_1 R sum_w J_w`` products (draw, atom,
release), the pairs ``w`` counted by the search before any law is built
(:class:`~bdpsim.models.engines.HasScanRows`) and each window's atoms bounded by the query vectors
its unknown records reach (:func:`window_atoms`: exact for a histogram). Stage 2 and the lower end
add a bounded amount (at most :data:`~bdpsim.accounting.sweep.STAGE2_WORK` and
:data:`~bdpsim.accounting.sweep.LOWER_TOP` windows on
:data:`~bdpsim.accounting.sweep.LOWER_DRAWS` draws), so stage 1 is the Monte Carlo part that
grows without bound (like ``n^(k-1)`` atoms per window for ``k`` states). Beside it the scan builds
each pair's laws on the packed sums (``(m + 1) D + 1`` cells, ``D ~ n^(k-1)``) and the best
windows' adversaries get their exact laws over the whole chain (``n (n D + 1)`` steps each). A list
estimated above :data:`MAX_SWEEP_SECONDS` at the measured speed of each is refused
(:func:`check_sweep_cost`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import NotAvailable
from ..core.shown import duration
from . import sweep
from .pairs import Components, ReleasePlan
from .search import two_sided_hockey
from .sweep import KEEP_TABLES, MAX_LOG_RATIO, WindowSweep, add_hockey, draw_blocks, mean_half

#: seconds per unit of the sweep's Monte Carlo work, one (draw, atom, release) product of stage 1,
#: on a loaded 2-core machine: measured 4.2e-9 to 6.0e-9 (the histogram of 3 states on 9 records:
#: 4.2e9 units in 21.8 s; of 4 states on 4 records: 8.5e8 in 5.1 s; stage 2 and the lower ends
#: likewise), ``scripts/benchmarks/benchmark_several_sweep.py``
SWEEP_SECONDS_PER_UNIT = 5e-9
#: seconds per cell of the window pairs' laws (a window of ``m`` unknown records spans ``(m + 1) D +
#: 1`` packed sums, ``D`` the spread of the states' packed values), built by the scan and read by
#: the sweep: measured 1.1e-8 to 1.9e-8 for the scan alone (3 states, n = 20 .. 200), 5e-8 with
#: the sweep's reading (3 states on 50 records: 4.5 s for 8.5e7 cells)
SWEEP_SECONDS_PER_CELL = 5e-8
#: seconds per (record, packed sum) step of the exact law of a best window's adversary over the
#: whole chain (:data:`~bdpsim.accounting.sweep.LOWER_TOP` windows, each adversary's two laws twice):
#: measured 1.3e-8 at 3 states on 20 and 35 records, 2.7e-7 on 50 (1.7 s a law, 12 of them 21 s of
#: a 26-s ``delta(eps)``): the larger, so a long chain is not under-estimated
SWEEP_SECONDS_PER_LAW_STEP = 2.7e-7
#: laws of the best windows' adversaries over the whole chain computed per ``delta(eps)``
LAWS_PER_DELTA = 4 * sweep.LOWER_TOP
#: the most estimated seconds of one ``delta(eps)`` (at the measured seconds above; the CLI's
#: default asks take about 8.5 of them: 3 states on 9 records, one ``delta`` 25.8 s of CPU, the
#: default asks 220 s). Every list measured to finish one ``delta(eps)`` within a few minutes stays
#: below it (the histogram of 3 states on 20 records: about 140 s estimated, 127 s measured; of 4
#: states on 6 records: 34 s); the histogram of 5 states on 30 records needs days
MAX_SWEEP_SECONDS = 300.0


@dataclass
class SeveralDraws:
    """``n`` draws ``(u, z)`` (uniforms sorted; one noise column per release) and, per block, each
    release's log-ratio table ``l_r(z, d)`` for ``|d| <= reach[c(r)]`` (module docstring)."""

    noises: Sequence
    steps: Sequence[float]  # per release: its query's step
    cols: Sequence[int]  # per release: the query it reads
    n: int
    rng: np.random.Generator
    blocks: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    tables: dict[int, list[np.ndarray]] = field(default_factory=dict)
    reach: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    def __post_init__(self) -> None:
        self.blocks.extend(draw_blocks(self.noises, self.n, self.rng))

    def table(self, b: int, reach: np.ndarray) -> list[np.ndarray]:
        """Block ``b``'s tables ``L_r[s, reach[c(r)] + d]`` (at least ``reach`` per query; kept
        where the draws are few)."""
        if self.reach.size == 0 or np.any(reach > self.reach):
            self.reach = np.maximum(reach, 2 * self.reach) if self.reach.size else np.asarray(reach)
            self.tables = {}
        if b in self.tables:
            return self.tables[b]
        _, z = self.blocks[b]
        out = []
        for r, (f, step, c) in enumerate(zip(self.noises, self.steps, self.cols)):
            d = np.arange(-self.reach[c], self.reach[c] + 1) * step
            base = f.log_density(z[:, r])
            out.append(f.log_density(z[:, r, None] + d[None, :]) - base[:, None])
        top = max(float(np.max(t)) for t in out) * len(out)
        if not top <= MAX_LOG_RATIO:
            raise NotAvailable(
                f"the noises' likelihood ratios reach e^{top:.3g} between lattice values "
                "(overflow): the window sweep does not apply"
            )
        if self.n <= KEEP_TABLES:
            self.tables[b] = out
        return out


def several_sums(laws: Sequence, draws: SeveralDraws, ks: np.ndarray) -> np.ndarray:
    """``(pairs, K, 2, 2)``: per pair ``(X, A, B)`` (atoms ``X`` in integer steps per query, shape
    ``(J, C)``; laws ``A``, ``B``), value ``k`` and order, the sum and the sum of squares of ``(1 - k
    q/p)_+`` over the draws (module docstring)."""
    ks = np.atleast_1d(ks)
    out = np.zeros((len(laws), ks.size, 2, 2))
    reach = np.max([np.ptp(X, axis=0) for X, _, _ in laws], axis=0).astype(int)
    for b in range(len(draws.blocks)):
        u = draws.blocks[b][0]
        L = draws.table(b, reach)
        off = draws.reach
        pq = np.empty((u.size, 2))
        for i, (X, A, B) in enumerate(laws):
            M = np.stack([A, B], axis=1)
            for side, w in enumerate((A, B)):
                edges = np.searchsorted(u, np.concatenate([[0.0], np.cumsum(w)]))
                edges[-1] = u.size  # the cdf's last value is 1 up to rounding
                for j in np.nonzero(edges[1:] > edges[:-1])[0]:
                    lo, hi = edges[j], edges[j + 1]
                    log = np.zeros((hi - lo, X.shape[0]))
                    for r, c in enumerate(draws.cols):
                        log += L[r][lo:hi][:, off[c] + X[j, c] - X[:, c]]
                    np.matmul(np.exp(log), M, out=pq[lo:hi])
                add_hockey(out[i, :, side], pq[:, 1 - side] / pq[:, side], ks)
    return out


class SeveralQuerySweep(WindowSweep):
    """:class:`~bdpsim.accounting.sweep.WindowSweep` of releases reading several queries (module
    docstring): the rows are laws of the query vector, each capped by its noise-free divergence."""

    CAPS = "no noise"

    def _read(self, plan: ReleasePlan, comps: Components) -> None:
        """The rows are read as they are: laws of the query vector (every query, its own step)."""
        self.comps = comps
        self.cols = [c for c, _ in plan.reduced]
        self.steps = [float(comps.step[c]) for c in self.cols]
        self._codes: dict[int, np.ndarray] = {}

    def new_draws(self, n: int, rng: np.random.Generator) -> SeveralDraws:
        return SeveralDraws(self.noises, self.steps, self.cols, n, rng)

    def _measure(self, laws: Sequence, draws) -> np.ndarray:
        return several_sums(laws, draws, self.ks)

    def lower_ends(self, laws: Sequence, draws, epsilons, failure: float):
        ks = np.array([math.exp(e) for e in np.atleast_1d(np.asarray(epsilons, dtype=float))])
        mean, half = mean_half(several_sums(laws, draws, ks), draws.n, failure)
        return mean, np.maximum(mean - half, 0.0), np.minimum(mean + half, 1.0)

    def _atoms(self, size: int) -> np.ndarray:
        """``(size, C)``: the integer steps of every query at the packed sums ``0..size-1``."""
        if size not in self._codes:
            k = np.arange(size)[:, None]
            radix, sizes = np.array(self.comps.radix), np.array(self.comps.sizes)
            self._codes[size] = (k // radix[None, :]) % sizes[None, :]
        return self._codes[size]

    def pair_laws(self, W1: np.ndarray, W2: np.ndarray) -> tuple:
        use = (W1 > 0) | (W2 > 0)
        return self._atoms(W1.size)[use], W1[use] / W1.sum(), W2[use] / W2.sum()

    def _certified(self, W1: np.ndarray, W2: np.ndarray) -> np.ndarray:
        """The noise-free ``H_eps`` of the packed laws (both orders' larger), per row and ``eps``."""
        return two_sided_hockey(
            W1 / W1.sum(axis=1, keepdims=True), W2 / W2.sum(axis=1, keepdims=True), self.ks
        )

    def __call__(self, W1: np.ndarray, W2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = W1.sum(axis=1), W2.sum(axis=1)
        out = np.full(W1.shape[0], np.nan)
        live = np.nonzero((a > 0) & (b > 0))[0]
        if live.size == 0:
            return out, np.zeros(W1.shape[0])
        cert = self._certified(W1[live], W2[live])
        if not self.measure:
            out[live] = cert[:, self.score_at]
            self.points.extend(cert)
            return out, np.zeros(W1.shape[0])
        laws = [self.pair_laws(W1[r], W2[r]) for r in live]
        s = self._measure(laws, self.stage1)
        g = self.score_at
        mean, _ = mean_half(s, self.stage1.n, 1.0)
        out[live] = np.minimum(mean.max(axis=-1)[:, g], cert[:, g])
        self.laws.extend(laws)
        self.sums.extend(s)
        self.capped.extend(cert)
        return out, np.zeros(W1.shape[0])


def window_atoms(comps: Components, unknowns: np.ndarray) -> np.ndarray:
    """Per window of ``m`` unknown records (``unknowns``) beside the target, an upper end of the
    atoms of its pair of laws (the query vectors reached under ``x`` or ``x'``): the multisets of
    ``m + 1`` states holding ``x`` or ``x'`` among ``s`` distinct query vectors of a state, ``2
    C(m + s - 1, s - 1) - C(m + s - 2, s - 1)`` (exact for a histogram, whose states' vectors are
    independent), and at most the ``(m + 1) D + 1`` packed sums they span (``D`` the spread of the
    states' packed values)."""
    packed = np.unique(np.asarray(comps.packed, dtype=float))
    s, spread = int(packed.size), float(packed[-1] - packed[0])
    out = []
    for m in np.asarray(unknowns, dtype=np.int64).tolist():
        multisets = 2 * math.comb(m + s - 1, s - 1) - math.comb(m + s - 2, s - 1)
        out.append(min(float(multisets), (m + 1) * spread + 1.0))
    return np.array(out)


@dataclass(frozen=True)
class SweepCost:
    """One ``delta(eps)`` of the several-query sweep, counted before any work (module docstring):
    ``windows`` law pairs of ``atoms`` atoms in all (the widest ``widest``), each measured on
    ``draws`` draws of ``releases`` noises; ``cells`` the cells of those pairs' laws; ``law_steps``
    the (record, packed sum) steps of the exact laws of the best windows' adversaries."""

    windows: int
    atoms: float
    widest: float
    releases: int
    draws: int
    cells: float
    law_steps: float

    @property
    def work(self) -> float:
        """``draws x atoms x releases``: the (draw, atom, release) products of stage 1."""
        return float(self.draws) * self.atoms * self.releases

    @property
    def seconds(self) -> float:
        """The estimated seconds (:data:`SWEEP_SECONDS_PER_UNIT`, :data:`SWEEP_SECONDS_PER_CELL`,
        :data:`SWEEP_SECONDS_PER_LAW_STEP`)."""
        return (
            self.work * SWEEP_SECONDS_PER_UNIT
            + self.cells * SWEEP_SECONDS_PER_CELL
            + self.law_steps * SWEEP_SECONDS_PER_LAW_STEP
        )


def sweep_cost(plan: ReleasePlan, comps: Components, rows: np.ndarray, n: int) -> SweepCost:
    """:class:`SweepCost` of the several-query sweep of ``plan`` on ``n`` records whose search scores
    ``rows[m]`` law pairs of windows of ``m`` unknown records
    (:meth:`~bdpsim.models.engines.HasScanRows.scan_rows`)."""
    rows = np.asarray(rows, dtype=float)
    used = np.flatnonzero(rows > 0)
    atoms = window_atoms(comps, used)
    packed = np.asarray(comps.packed, dtype=float)
    spread = float(packed.max() - packed.min())
    return SweepCost(
        windows=int(rows.sum()),
        atoms=float(np.dot(rows[used], atoms)),
        widest=float(atoms.max()) if atoms.size else 0.0,
        releases=len(plan.reduced),
        draws=sweep.STAGE1_DRAWS,  # read when asked, as the sweep reads it
        cells=float(np.dot(rows[used], (used + 1) * spread + 1.0)),
        law_steps=LAWS_PER_DELTA * float(n) * (n * float(packed.max()) + 1.0),
    )


def check_sweep_cost(cost: SweepCost, what: str, n: int, states: int) -> None:
    """Refuse (:class:`~bdpsim.core.errors.NotAvailable`, one line) a sweep estimated above
    :data:`MAX_SWEEP_SECONDS`, naming ``what`` is released, the records and states, the estimated
    work and time, the limit and what to do instead."""
    if cost.seconds <= MAX_SWEEP_SECONDS:
        return
    raise NotAvailable(
        f"{what}: the Monte Carlo sweep over every adversary of n = {n} records ({states} states) needs "
        f"about {duration(cost.seconds)} per delta(eps) (limit {duration(MAX_SWEEP_SECONDS)}): "
        f"{cost.work:.2g} draw x atom x release products ({cost.windows} windows of up to "
        f"{cost.widest:.0f} atoms, {cost.draws} draws, {cost.releases} noises), {cost.cells:.2g} cells "
        f"of their laws, {cost.law_steps:.2g} steps of the best windows' exact laws; use fewer records, "
        "give adversary= (one adversary), or use bdpsim run with estimator = 'audit'"
    )


def window_sweep(plan: ReleasePlan, comps: Components, epsilon, seed: int, **options) -> WindowSweep:
    """The window sweep of ``plan``'s releases: of one query, or of several."""
    if len({c for c, _ in plan.reduced}) == 1:
        return WindowSweep(plan, comps, epsilon, seed, **options)
    return SeveralQuerySweep(plan, comps, epsilon, seed, **options)


__all__ = [
    "MAX_SWEEP_SECONDS",
    "SWEEP_SECONDS_PER_CELL",
    "SWEEP_SECONDS_PER_LAW_STEP",
    "SWEEP_SECONDS_PER_UNIT",
    "SeveralDraws",
    "SeveralQuerySweep",
    "SweepCost",
    "check_sweep_cost",
    "several_sums",
    "sweep_cost",
    "window_atoms",
    "window_sweep",
]
