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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import NotAvailable
from .pairs import Components, ReleasePlan
from .search import two_sided_hockey
from .sweep import KEEP_TABLES, MAX_LOG_RATIO, WindowSweep, add_hockey, draw_blocks, mean_half


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


def window_sweep(plan: ReleasePlan, comps: Components, epsilon, seed: int, **options) -> WindowSweep:
    """The window sweep of ``plan``'s releases: of one query, or of several."""
    if len({c for c, _ in plan.reduced}) == 1:
        return WindowSweep(plan, comps, epsilon, seed, **options)
    return SeveralQuerySweep(plan, comps, epsilon, seed, **options)


__all__ = ["SeveralDraws", "SeveralQuerySweep", "several_sums", "window_sweep"]
