"""The data of the attack figures: the worst TPR at every FPR over every adversary (attained, and
the bound for every adversary) — the curves behind ``bdpsim attack``'s table — against the
pure-eps curve of the exact BDPL and, optionally, the worst adversary on independent records (no
matplotlib here; :mod:`bdpsim.figures.attack` draws it)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..attack.tradeoff import pure_dp_tradeoff
from ..attack.worst import AttackRisk, attack_risk

#: the FPR grid of the figures: log-spaced from 1e-4, then linear to 1 - 1e-4
FPR_GRID = np.unique(np.concatenate([np.logspace(-4, -1, 40), np.linspace(0.1, 0.9999, 60)]))


@dataclass(frozen=True)
class RocData:
    """On ``fpr``: ``worst``, the largest TPR attained by an adversary the search examined (exact,
    attained), and ``upper``, the bound ``min_t [t alpha + Delta(t)]`` for every adversary (equal
    to ``worst`` where certified); the pure-eps curve of the exact BDPL over every adversary
    ``bdpl``; the largest ``advantage``; the table's points ``marks`` (``(fpr, tpr)``); when
    given, the worst TPR on independent records. A Monte Carlo result (``confidence`` given):
    ``worst`` and ``upper`` are the two ends of intervals that hold with that probability."""

    fpr: np.ndarray
    worst: np.ndarray
    upper: np.ndarray
    pure: np.ndarray
    bdpl: float
    advantage: float
    marks: tuple = ()
    independent: np.ndarray | None = None
    independent_advantage: float | None = None
    confidence: float | None = None


def risk_roc_data(
    risk: AttackRisk, fpr=FPR_GRID, marks: Sequence[float] = (), independent: AttackRisk | None = None
) -> RocData:
    """The curves of :class:`RocData` from a worst-case result (asked with ``bdpl``): its
    :meth:`~bdpsim.attack.worst.AttackRisk.bound_curve` on ``fpr`` with the points of ``marks``
    (the FPRs of a table, :meth:`~bdpsim.attack.worst.AttackRisk.worst_tpr`) among them.

    Parameters
    ----------
    risk : AttackRisk
        A worst-case :func:`bdpsim.attack_risk` result (with ``bdpl=True`` for the pure-eps curve).
    fpr : array_like
        The false-positive rates of the curves (default :data:`FPR_GRID`).
    marks : sequence of float
        FPRs whose worst TPR is searched and marked (a table's).
    independent : AttackRisk, optional
        The same mechanism on independent records, drawn beside.

    Returns
    -------
    RocData
        The curves (:func:`bdpsim.figures.attack.plot_attack_roc` draws them).
    """
    marks = [float(m) for m in np.ravel(np.asarray(marks, dtype=float))]
    found = risk.worst_tprs(marks) if marks else []
    f = np.unique(np.concatenate([np.asarray(fpr, dtype=float), np.asarray(marks, dtype=float)]))
    worst, upper = risk.bound_curve(f)
    eps = float(risk.bdpl_max) if risk.bdpl_max is not None else math.nan
    pure = pure_dp_tradeoff(eps).tpr_at(f) if math.isfinite(eps) else np.ones_like(f)
    ind, ind_adv = None, None
    if independent is not None:
        ind, ind_adv = independent.bound_curve(f)[0], independent.advantage
    pts = tuple((float(m), w.value) for m, w in zip(marks, found))
    return RocData(f, worst, upper, np.asarray(pure), eps, risk.advantage, pts, ind, ind_adv, risk.confidence)


def roc_data(model, mechanism, independent=None, fpr=FPR_GRID) -> RocData:
    """:func:`risk_roc_data` of the worst case over every adversary (``independent``: the same
    mechanism's model on independent records, e.g. a chain whose rows are its stationary law)."""
    risk = attack_risk(model, mechanism, bdpl=True)
    ind = attack_risk(independent, mechanism) if independent is not None else None
    return risk_roc_data(risk, fpr, independent=ind)


def independent_chain(model):
    """The chain with the same stationary marginal and independent records (every row = the
    stationary law)."""
    from ..kernels.chains.transition import stationary_distribution
    from ..models import MarkovChainModel

    pi = np.asarray(stationary_distribution(model.transition), dtype=float)
    return MarkovChainModel(np.tile(pi, (pi.size, 1)), model.n)


__all__ = ["RocData", "risk_roc_data", "roc_data", "independent_chain", "FPR_GRID"]
