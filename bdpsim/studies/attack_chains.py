"""Data of the gallery figure ``bdpsim-attack``: the worst adversary's attack advantage against the
exact BDPL across eps on the paper's chains, correlated vs independent records.
Tidy rows, no plotting (:func:`bdpsim.figures.attack.plot_attack_vs_bdpl`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..attack.worst import worst_advantage
from ..estimators.supremum import exact_bdpl
from ..kernels.chains.transition import ACTIVITY
from ..kernels.noise.laws import noise_from_params
from ..mechanisms.noisy import NoisyQueryMechanism
from ..models import MarkovChainModel, symmetric_chain
from ..queries import CountQuery
from .attack_roc import independent_chain

#: the DP epsilons of the Laplace count (scale 1/eps) in the figure
EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def attack_chains() -> list[tuple[str, np.ndarray, int]]:
    """``(label, P, n)``: the paper's activity chain at one day (n = 288) and thesis Fig. 15's
    symmetric chains with gamma = 3 and 10 at n = 10."""
    return [
        ("activity, n = 288", np.array(ACTIVITY), 288),
        ("Fig. 15 chain, gamma = 3, n = 10", symmetric_chain(3.0), 10),
        ("Fig. 15 chain, gamma = 10, n = 10", symmetric_chain(10.0), 10),
    ]


def attack_rows(
    epsilons: Sequence[float] = EPSILONS, chains: Sequence[tuple[str, np.ndarray, int]] | None = None
) -> list[dict]:
    """One row per chain, eps and records (``correlated``: the chain; ``independent``: the chain
    with the same stationary marginal and independent records): the exact BDPL over every adversary
    of the Laplace count of state 1 with scale ``1/eps`` and the worst adversary's advantage
    ``max_a TV(P_a, Q_a)`` (:func:`bdpsim.attack.worst.worst_advantage`), beside the advantage
    ``tanh(BDPL / 2)`` the pure-eps curve of that BDPL allows."""
    rows = []
    for label, P, n in chains or attack_chains():
        chain = MarkovChainModel(P, n)
        for records, model in (("correlated", chain), ("independent", independent_chain(chain))):
            for eps in epsilons:
                mech = NoisyQueryMechanism(
                    CountQuery((1,)), noise_from_params("laplace", epsilon=float(eps), sensitivity=1.0)
                )
                bdpl = float(exact_bdpl(model, mech).bdpl)
                adv = worst_advantage(model, mech)
                rows.append(
                    {
                        "chain": label,
                        "n": n,
                        "records": records,
                        "epsilon": float(eps),
                        "bdpl": bdpl,
                        "advantage": adv.value,
                        "pure_eps_advantage": float(np.tanh(bdpl / 2)),
                    }
                )
    return rows


__all__ = ["EPSILONS", "attack_chains", "attack_rows"]
