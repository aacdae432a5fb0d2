"""The data of the attack figures: the worst adversary's curve against the
pure-eps curve of the exact BDPL and against the curve on independent records (no matplotlib
here; :mod:`bdpsim.figures.attack` draws it)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..attack.tradeoff import pure_dp_tradeoff
from ..attack.worst import attack_risk

#: the FPR grid of the figures: log-spaced from 1e-4, then linear to 1 - 1e-4
FPR_GRID = np.unique(np.concatenate([np.logspace(-4, -1, 40), np.linspace(0.1, 0.9999, 60)]))


@dataclass(frozen=True)
class RocData:
    """TPR on ``fpr`` of: the worst adversary (its own curve, the advantage's adversary) and the
    worst TPR bound at each FPR (``upper``: the f-DP guarantee of the worst profile, attained
    where certified), the pure-eps curve of the exact BDPL ``bdpl`` and, when given, the worst
    adversary on independent records."""

    fpr: np.ndarray
    worst: np.ndarray
    pure: np.ndarray
    bdpl: float
    advantage: float
    independent: np.ndarray | None
    independent_advantage: float | None


def roc_data(model, mechanism, independent=None, fpr=FPR_GRID) -> RocData:
    """The curves of :class:`RocData` (``independent``: the same mechanism's model on independent
    records, e.g. a chain whose rows are its stationary law)."""
    from ..estimators.supremum import exact_bdpl

    f = np.asarray(fpr, dtype=float)
    risk = attack_risk(model, mechanism)
    eps = float(exact_bdpl(model, mechanism).bdpl)
    pure = pure_dp_tradeoff(eps).tpr_at(f) if math.isfinite(eps) else np.ones_like(f)
    ind, ind_adv = None, None
    if independent is not None:
        r = attack_risk(independent, mechanism)
        ind, ind_adv = np.asarray(r.curve.tpr_at(f)), r.advantage
    return RocData(f, np.asarray(risk.curve.tpr_at(f)), np.asarray(pure), eps, risk.advantage, ind, ind_adv)


def independent_chain(model):
    """The chain with the same stationary marginal and independent records (every row = the
    stationary law)."""
    from ..kernels.chains.transition import stationary_distribution
    from ..models import MarkovChainModel

    pi = np.asarray(stationary_distribution(model.transition), dtype=float)
    return MarkovChainModel(np.tile(pi, (pi.size, 1)), model.n)


__all__ = ["RocData", "roc_data", "independent_chain", "FPR_GRID"]
