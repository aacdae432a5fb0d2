"""Rows of the continual-release gallery figures: the exact temporal leakage
beside Cao et al.'s TPL over time.

* :func:`tkde_budget_rows` — the TKDE paper's budget-allocation figures (``testPlotBudgetAlloc.m``
  with ``tools/plotTPL.m`` of ``yangcao888/TPL``): ``α = 1``, ``T = 30``, a constant budget from
  Cao's upper-bound allocation and the start/middle/end budget of the quantification allocation;
  per step the budget, Cao's ``BPL_t``, ``FPL_t``, ``TPL_t`` and the exact ones under the same budgets
  ("any ε_t-DP step", the tight form of Cao's bound).
* :func:`day_rows` — the paper's activity and electricity chains (a day of 288 five-minute
  releases; 731 daily releases), one release per step at ``ε``: exact ``TPL_t``, Cao's ``TPL_t``, the
  paper's Markov bound ``ε + 4 ln γ`` (Thm 6.2) and group privacy ``Tε``; and two chains where the
  exact value is below Cao's: a random 3-state chain and a 2-state chain that swaps the order of
  its states.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: the 3-state chain of the TKDE paper's Fig. 4 (``testPlotLFunc.m``), the forward chain of the
#: budget figure here (its own chains are unseeded random 10-state ones: see the deviation table)
TKDE_CHAIN = ((0.1, 0.2, 0.7), (0.3, 0.3, 0.4), (0.5, 0.3, 0.2))
#: ``testPlotBudgetAlloc.m``: ``a = 1``, ``T = 30``
TKDE_ALPHA = 1.0
TKDE_STEPS = 30
#: per-step ε of the day figure, and the seed of its random 3-state chain
DAY_EPSILON = 1.0
DAY_SEED = 34
#: a 2-state chain that swaps the order of its states (P[0,0] < P[1,0]): Cao's bound is not tight
SWAP_CHAIN = ((0.3, 0.7), (0.9, 0.1))
RANDOM_STEPS = 30


def _timeline_rows(panel: str, P, eps: np.ndarray, T: int, mechanism: str = "any") -> list[dict]:
    from ..temporal import cao_leakage
    from ..temporal.exact import temporal_exact

    ex = temporal_exact(P, eps, T, mechanism)
    cao = cao_leakage(P, eps, T)
    return [
        {
            "panel": panel,
            "t": t + 1,
            "epsilon": float(eps[t]),
            "bpl": float(ex.bpl[t]),
            "fpl": float(ex.fpl[t]),
            "tpl": float(ex.tpl[t]),
            "cao_bpl": float(cao.bpl[t]),
            "cao_fpl": float(cao.fpl[t]),
            "cao_tpl": float(cao.tpl[t]),
            "exact": bool(ex.exact),
        }
        for t in range(T)
    ]


def tkde_budget_rows(chain=TKDE_CHAIN, alpha: float = TKDE_ALPHA, steps: int = TKDE_STEPS) -> list[dict]:
    """One row per (allocation, t): ``panel`` (``upper bound`` or ``quantification``), ``t``,
    ``epsilon`` (the budget ``ε_t``), the exact ``bpl``, ``fpl``, ``tpl`` and Cao's ``cao_bpl``,
    ``cao_fpl``, ``cao_tpl`` (``TPL_t = BPL_t + FPL_t − ε_t``), ``exact`` (no interval anywhere).

    The backward chain is the stationary time reversal of ``chain`` (bdpsim's Cao port derives it
    as the authors describe; their script draws ``TM_B`` and ``TM_F`` independently)."""
    from ..temporal import allocate_quantification, allocate_upper_bound

    P = np.asarray(chain, dtype=float)
    T = int(steps)
    e = allocate_upper_bound(alpha, P)
    q = allocate_quantification(alpha, P)
    return _timeline_rows("upper bound", P, np.full(T, e), T) + _timeline_rows(
        "quantification", P, q.epsilons(T), T
    )


def day_chains(seed: int = DAY_SEED) -> list[tuple[str, np.ndarray, int]]:
    """``(label, P, T)``: the activity chain (T = 288), the paper's three electricity chains
    (T = 731), a random 3-state chain (Dirichlet(1) rows, ``seed``) and :data:`SWAP_CHAIN`
    (T = :data:`RANDOM_STEPS`)."""
    from ..studies.frontier import CHAINS

    rng = np.random.default_rng(seed)
    out = [(label, np.asarray(P, dtype=float), int(n)) for label, P, n in CHAINS]
    out.append((f"random 3-state (seed {seed})", rng.dirichlet(np.ones(3), size=3), RANDOM_STEPS))
    out.append(("order-swapping 2-state", np.asarray(SWAP_CHAIN, dtype=float), RANDOM_STEPS))
    return out


def day_rows(
    epsilon: float = DAY_EPSILON,
    chains: Sequence[tuple[str, np.ndarray, int]] | None = None,
    mechanism: str = "any",
) -> list[dict]:
    """One row per (chain, t): ``chain``, ``steps``, ``t``, ``epsilon``, the exact ``tpl``, Cao's
    ``cao_tpl``, the Markov bound ``markov = ε + 4 ln γ`` (``γ = max P / min P``; paper Thm 6.2, the
    whole release being ε-DP in each step's value) and group privacy ``group = Tε``, and the chain
    as ``transition`` (rows joined by ``;``)."""
    from ..bounds import markov_bound
    from ..temporal import cao_leakage
    from ..temporal.exact import temporal_exact

    rows = []
    for label, P, T in day_chains() if chains is None else chains:
        ex = temporal_exact(P, epsilon, T, mechanism)
        cao = cao_leakage(P, epsilon, T)
        markov = markov_bound(epsilon, P).value
        text = ";".join(",".join(f"{v:.6g}" for v in row) for row in P)
        rows += [
            {
                "chain": label,
                "steps": T,
                "t": t + 1,
                "epsilon": float(epsilon),
                "tpl": float(ex.tpl[t]),
                "cao_tpl": float(cao.tpl[t]),
                "markov": float(markov),
                "group": float(T * epsilon),
                "transition": text,
                "exact": bool(ex.exact),
            }
            for t in range(T)
        ]
    return rows


__all__ = [
    "DAY_EPSILON",
    "DAY_SEED",
    "SWAP_CHAIN",
    "TKDE_ALPHA",
    "TKDE_CHAIN",
    "TKDE_STEPS",
    "day_chains",
    "day_rows",
    "tkde_budget_rows",
]
