"""Data of bdpsim's own figures (not in the sources): exact calibration across chains, leakage by
prior knowledge. Tidy rows, no plotting (:mod:`bdpsim.figures.calibration`, ``.knowledge``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..calibration import calibrate
from ..kernels.chains.lattice import query_values
from ..kernels.chains.transition import ACTIVITY
from ..models import MarkovChainModel, symmetric_chain
from .knowledge import leakage_by_knowledge

"""The activity chain fitted to the paper's Activity data (paper Table 3; thesis §8)."""


def study_chains() -> list[tuple[str, np.ndarray, int]]:
    """``(label, P, n)``: the activity chain at one day (n = 288) and all data (n = 17 568), and
    thesis Fig. 15's symmetric chains with gamma = 3 and 10 at n = 10."""
    return [
        ("activity, n = 288", np.array(ACTIVITY), 288),
        ("activity, n = 17568", np.array(ACTIVITY), 17568),
        ("Fig. 15 chain, gamma = 3, n = 10", symmetric_chain(3.0), 10),
        ("Fig. 15 chain, gamma = 10, n = 10", symmetric_chain(10.0), 10),
    ]


def calibration_rows(
    epsilons: Sequence[float] = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0),
    methods: Sequence[str] = ("exact", "general", "markov", "zhao"),
    chains: Sequence[tuple[str, np.ndarray, int]] | None = None,
) -> list[dict]:
    """Laplace scale each method prescribes for eps-BDP of the count of state 1, and the exact
    BDPL of that mechanism over all adversaries (:func:`bdpsim.calibration.calibrate`)."""
    rows = []
    for label, P, n in chains or study_chains():
        model = MarkovChainModel(P, n)
        for eps in epsilons:
            for m in methods:
                c = calibrate(model, float(eps), method=m)
                rows.append(
                    {
                        "chain": label,
                        "n": n,
                        "epsilon": float(eps),
                        "method": m,
                        "scale": np.nan if c.scale is None else c.scale,
                        "bdpl": np.nan if c.bdpl is None else c.bdpl,
                        "reason": c.reason,
                    }
                )
    return rows


def knowledge_rows(noise_scale: float = 1.0, n: int = 288, max_unknown: int = 12) -> list[dict]:
    """Worst exact leakage of the activity count (``Lap(noise_scale)``) per cell of prior
    knowledge: unknown records left/right of the target, bounded by a known record or a chain end."""
    model = MarkovChainModel(np.array(ACTIVITY), n)
    rows = leakage_by_knowledge(model, query_values(2), noise_scale, max_unknown=max_unknown)
    return [{**r, "n": n, "noise_scale": noise_scale} for r in rows]
