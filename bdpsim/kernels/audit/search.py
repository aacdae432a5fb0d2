"""Which adversaries to certify: successive halving on selection samples (black-box audit).

Certifying an adversary costs most of an audit's budget, and a configuration's bound at level
``1 - alpha`` may certify only a few (Bonferroni: ``alpha / top`` each). The candidates' leakages
often differ only in rare tails (1e-4 .. 1e-6 output probabilities on correlated chains), which a
small sample cannot rank. :func:`successive_halving` spends a selection budget in rounds: every
remaining candidate gets fresh samples (pooled with its earlier ones), chooses its event on the
pool and predicts the bound it would certify with ``n_cert`` fresh samples per side
(:func:`~bdpsim.kernels.audit.events.select_event`); the better half goes on, with twice the
samples per candidate, until ``keep`` remain. Every round's samples are selection samples — none is
used to certify — so any adaptivity here leaves the certification valid.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..argcheck import require
from .events import Selection, check_outputs, select_event

Sampler = Callable[[int, np.random.Generator], np.ndarray]


@dataclass(frozen=True, eq=False)
class Candidate:
    """A candidate's final selection (on its pooled selection samples) and the calls spent on it."""

    index: int
    selection: Selection
    calls: int
    rounds: int


def halving_rounds(candidates: int, keep: int) -> int:
    """Rounds from ``candidates`` down to ``keep`` (halving, rounded up), the last one included."""
    r, c = 1, candidates
    while c > keep:
        c = max(keep, math.ceil(c / 2))
        r += 1
    return r


def successive_halving(
    samplers: Sequence[tuple[Sampler, Sampler]],
    budget: int,
    n_cert: int,
    alpha: float,
    rng: np.random.Generator,
    keep: int = 1,
    min_selection: int = 20,
    level: float = 1e-3,
) -> tuple[list[Candidate], int]:
    """Spend at most ``budget`` mechanism calls choosing ``keep`` of ``samplers`` (ranked best first
    on entry: ties keep that order) and each one's event.

    Round ``r`` of ``R`` (:func:`halving_rounds`) gives each of its ``c_r`` candidates
    ``budget / (R c_r)`` fresh calls (half per side), pooled with its earlier samples; the
    ``max(keep, ceil(c_r / 2))`` with the largest predicted bound at ``n_cert`` (``alpha`` per
    certificate) go on. Returns the ``keep`` survivors best first (``[]`` when the first round
    would have fewer than ``min_selection`` samples per side) and the calls spent in all.
    """
    require(len(samplers) >= 1, "samplers", len(samplers), "need at least one candidate")
    keep = max(1, min(int(keep), len(samplers)))
    R = halving_rounds(len(samplers), keep)
    per_round = int(budget) // R
    alive = list(range(len(samplers)))
    pools: dict[int, list[list[np.ndarray]]] = {j: [[], []] for j in alive}
    calls = {j: 0 for j in alive}
    if per_round // (2 * len(alive)) < min_selection:
        return [], 0
    sels: dict[int, Selection] = {}
    for r in range(R):
        m = per_round // (2 * len(alive))
        for j in alive:
            for side in (0, 1):
                pools[j][side].append(check_outputs(samplers[j][side](m, rng), m, "sampler output"))
            calls[j] += 2 * m
            yx, yxp = (np.concatenate(p) for p in pools[j])
            sels[j] = select_event(yx, yxp, n_cert, alpha, level=level)
        ranked = sorted(alive, key=lambda j: -sels[j].predicted)  # stable: earlier rank breaks ties
        nxt = max(keep, math.ceil(len(alive) / 2)) if r < R - 1 else keep
        for j in ranked[nxt:]:
            pools.pop(j)
        alive = ranked[:nxt]
    return [Candidate(j, sels[j], calls[j], R) for j in alive], sum(calls.values())
