"""Exact leakage of a continual release for one adversary of bdpsim's model: target step ``t``,
known steps ``K`` with values ``x_K``, values ``a`` vs ``b`` (the per-adversary BDPL that the
``continual`` mechanism kind's exact engine gives; :mod:`bdpsim.mechanisms.continual`).

Given ``x_K`` the chain splits at the known steps: with ``s`` the last known step before ``t`` (value
``c``; or the chain start) and ``s'`` the first after (value ``d``; or the chain end), the releases
outside ``(s, s')`` and at the known steps are independent of ``x_t`` given ``x_K``, and past and
future releases are independent given ``x_t``, so

``sup_r ln P(r | x_t = a, x_K) / P(r | x_t = b, x_K) = D_past(a, b) + eps_t(a, b) + D_fut(a, b)``

with ``D_past(a, b) = sup ln P(r_{s+1..t-1} | x_t = a, x_s = c) / P(... | x_t = b, x_s = c)``,
``D_fut`` likewise with ``r_{t+1..s'-1}`` and ``x_{s'} = d``, and ``eps_t(a, b) = sup_r ln l_t(r)_a /
l_t(r)_b``. Both suprema come from the reachable-set propagation of :mod:`bdpsim.temporal.exact`
(a sweep from the start law, or from ``P[c, :]``, forward; from ``1``, or ``P[:, d]``, backward).
``TPL_t`` of :func:`~bdpsim.temporal.exact.temporal_exact` is the maximum of this over the pairs
with ``K`` empty. Sweeps are cached by their start, so every adversary of a chain costs one
lookup after the first ``O(T k)`` sweeps.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..core.errors import NotAvailable
from .exact import MAX_POINTS, Sweep, propagate
from .mechanisms import StepRelease


class ChainLeakage:
    """Per-adversary exact leakage of the releases ``rels`` (one :class:`StepRelease` per step) of a
    chain with transitions ``mats`` (``T - 1`` matrices, ``mats[s]`` from step ``s`` to ``s + 1``,
    0-based) and start law ``initial`` (module docstring)."""

    def __init__(
        self,
        mats: Sequence[np.ndarray],
        initial: np.ndarray,
        rels: Sequence[StepRelease],
        max_points: int = MAX_POINTS,
    ):
        self.mats = [np.asarray(M, dtype=float) for M in mats]
        self.initial = np.asarray(initial, dtype=float)
        self.rels = list(rels)
        self.T = len(self.rels)
        if len(self.mats) != max(self.T - 1, 0):
            raise ValueError(f"mats: {len(self.mats)} matrices: need T - 1 = {self.T - 1}")
        self.max_points = max_points
        self._past: dict[tuple[int, int], Sweep] = {}
        self._fut: dict[tuple[int, int], Sweep] = {}

    def _past_sweep(self, s0: int, c: int) -> Sweep:
        """Forward from step ``s0`` (law of ``x_{s0}``: the start law if ``c < 0``, else
        ``P[c, :]`` from ``x_{s0 - 1} = c``) to the chain end."""
        key = (s0, c)
        if key not in self._past:
            start = self.initial if c < 0 else self.mats[s0 - 1][c]
            self._past[key] = propagate(start, self.mats[s0:], self.rels[s0:], self.T - s0, self.max_points)
        return self._past[key]

    def _future_sweep(self, e0: int, d: int) -> Sweep:
        """Backward from step ``e0`` (``1`` if ``d < 0``, else ``P(x_{e0 + 1} = d | x_{e0})``) to step 0."""
        key = (e0, d)
        if key not in self._fut:
            start = np.ones(self.initial.shape[0]) if d < 0 else self.mats[e0][:, d].copy()
            mats = [self.mats[s].T for s in range(e0 - 1, -1, -1)]
            rels = [self.rels[s + 1] for s in range(e0 - 1, -1, -1)]
            self._fut[key] = propagate(start, mats, rels, e0 + 1, self.max_points)
        return self._fut[key]

    def one_sided(self, t: int, known: Mapping[int, int], a: int, b: int) -> float:
        """``sup_r ln P(r | x_t = a, x_K) / P(r | x_t = b, x_K)`` (0-based steps and states); a
        :class:`~bdpsim.core.errors.NotAvailable` where ``a`` or ``b`` is impossible given ``x_K`` or
        the propagation fell back to an interval (``max_points``)."""
        before = [s for s in known if s < t]
        after = [s for s in known if s > t]
        lo = max(before) if before else -1
        hi = min(after) if after else self.T
        past = self._past_sweep(lo + 1, int(known[lo]) if before else -1)
        fut = self._future_sweep(hi - 1, int(known[hi]) if after else -1)
        if not (past.exact and fut.exact):
            raise NotAvailable(
                f"the reachable hull outgrew {self.max_points} points: only an interval is known"
            )
        dp = past.D[t - (lo + 1)][a, b]
        df = fut.D[hi - 1 - t][a, b]
        if not (math.isfinite(dp) and math.isfinite(df)):
            raise NotAvailable(f"x_{t} = {a} or {b} is impossible given the known values")
        return float(dp + self.rels[t].pair_epsilon()[a, b] + df)

    def two_sided(self, t: int, known: Mapping[int, int], a: int, b: int) -> float:
        """``max`` of :meth:`one_sided` over both orders of the pair."""
        return max(self.one_sided(t, known, a, b), self.one_sided(t, known, b, a))


__all__ = ["ChainLeakage"]
