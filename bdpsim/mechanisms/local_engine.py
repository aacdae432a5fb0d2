"""The exact engine of a local release of every record on a Markov chain model
(:class:`ContinualEngine`): adversary by adversary through the temporal engine
(:class:`~bdpsim.temporal.exact.TemporalEngine`), and every adversary with ``|K|`` in a set of
sizes enumerated, refused up front from its size."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..adversary import Adversary, Estimate
from ..core.errors import NotAvailable
from ..models.engines import ExhaustiveResult, SearchTooLarge
from ..models.protocols import MarkovChain
from ..temporal.chain import ReleasedChain

#: most adversaries an exhaustive search (``run.adversaries = "all"``) enumerates
MAX_EXHAUSTIVE = 200_000
#: most known-set cells (adversaries x steps: each adversary's row of the run's tables holds one per
#: step) an enumeration builds; the work grows alike (10 000 steps of a 3-state chain: 3 * 10^8
#: cells, ~80 s CPU and gigabytes of rows before this limit)
MAX_CELLS = 2e7


class ContinualEngine:
    """Exact leakage of a continual release on a Markov chain, adversary by adversary
    (:class:`~bdpsim.temporal.exact.TemporalEngine`), and every adversary with ``|K|`` in a set of
    sizes enumerated (:class:`~bdpsim.models.engines.HasExhaustive`)."""

    method = (
        "reachable-hull propagation of the past and future releases given the known steps "
        "(bdpsim.temporal); all adversaries by enumeration"
    )
    incomplete: str | None = None

    def __init__(self, chain: MarkovChain, mechanism: Any) -> None:
        from ..temporal.exact import TemporalEngine

        self.T, self.k = int(chain.n), int(chain.states)
        self.chain = TemporalEngine.of(ReleasedChain.of_model(chain, mechanism))

    @staticmethod
    def _known(adv: Adversary) -> dict:
        return {int(s): int(v) for s, v in zip(adv.known, adv.x_known)}

    def bdpl(self, adversary: Adversary) -> Estimate:
        a = adversary
        return Estimate(self.chain.two_sided(int(a.i), self._known(a), int(a.x), int(a.x_prime)))

    def one_sided(self, adversary: Adversary) -> Estimate:
        a = adversary
        return Estimate(self.chain.one_sided(int(a.i), self._known(a), int(a.x), int(a.x_prime)))

    def exhaustive_parts(self, jobs: int) -> list[list[int]]:
        """``jobs`` runs of consecutive targets (:class:`~bdpsim.models.engines.HasExhaustiveParts`):
        with nothing known every target of a part reads the same two sweeps, so a part costs
        ``O(T)`` and the search is linear in ``T`` (one task per target would redo the sweeps at
        every target: quadratic)."""
        parts = max(1, min(int(jobs), self.T))
        return [[int(t) for t in p] for p in np.array_split(np.arange(self.T), parts)]

    def count(self, sizes: Sequence[int]) -> int:
        """Adversaries (unordered pairs) with ``|K|`` in ``sizes``."""
        T, k = self.T, self.k
        return sum(T * math.comb(T - 1, s) * k**s * k * (k - 1) // 2 for s in sizes if 0 <= s < T)

    def check_exhaustive(self, sizes: Sequence[int]) -> None:
        """Refuse up front (:class:`~bdpsim.models.engines.SearchTooLarge`, one line with the size,
        the estimate and the limit) an enumeration of more than ``MAX_EXHAUSTIVE`` (200 000) adversaries
        or :data:`MAX_CELLS` known-set cells."""
        c = self.count(sizes)
        if c > MAX_EXHAUSTIVE:
            raise SearchTooLarge(
                "run.known_sizes",
                f"{c} adversaries (T = {self.T}, {self.k} states): above "
                f"{MAX_EXHAUSTIVE}; use known sizes [0] (the adversary who knows no step: max_t "
                "TPL_t) or fewer sizes",
            )
        cells = float(c) * self.T
        if cells > MAX_CELLS:
            per = c / self.T  # adversaries per step
            most = int(math.sqrt(MAX_CELLS / per)) if per > 0 else self.T
            raise SearchTooLarge(
                "model.n",
                f"{self.T} steps ({self.k} states): {c} adversaries of {self.T} known-set cells each, "
                f"~{cells:.3g} cells (limit {MAX_CELLS:.3g}: about {most} steps), refused before the "
                "work; use fewer steps, or bdpsim temporal for max_t TPL_t of a long chain",
            )

    def exhaustive(self, sizes: Sequence[int], targets: Sequence[int] | None) -> ExhaustiveResult:
        self.check_exhaustive(sizes)
        T, k = self.T, self.k
        rows: list[tuple[int, dict, int, int, float]] = []
        for t in range(T) if targets is None else targets:
            others = [s for s in range(T) if s != t]
            for size in sizes:
                for K in itertools.combinations(others, size):
                    for vals in itertools.product(range(k), repeat=size):
                        kn = dict(zip(K, vals))
                        for a, b in itertools.combinations(range(k), 2):
                            try:
                                v = self.chain.two_sided(int(t), kn, a, b)
                            except NotAvailable:  # a value impossible given x_K: no such adversary
                                continue
                            rows.append((int(t), kn, a, b, v))
        if not rows:
            return ExhaustiveResult.concat([], T)
        pats = np.full((len(rows), T), -1, dtype=np.int8)  # -1 unknown, -2 the target, else x_s
        for j, (t, kn, *_) in enumerate(rows):
            pats[j, t] = -2
            for s, c in kn.items():
                pats[j, s] = c
        cols = list(zip(*rows))
        return ExhaustiveResult(
            np.array(cols[0]),
            pats,
            np.array(cols[2]),
            np.array(cols[3]),
            np.array(cols[4], dtype=float),
            np.full(len(rows), math.nan),
        )


__all__ = ["MAX_CELLS", "MAX_EXHAUSTIVE", "ContinualEngine"]
