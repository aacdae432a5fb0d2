"""The attack columns of an exact run (``[run] attack = true``): registered into
:data:`bdpsim.estimators.exact.ATTACK_COLUMNS` on import (the estimator sits below this package).
Every number through the point's exact engine."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..adversary import Adversary
from ..estimators.exact import ATTACK_COLUMNS, ATTACK_FPRS
from ..models.engines import PairEngine, use_engine
from .tradeoff import tpr_rows
from .worst import attack_risk, output_pair


def attack_cells(
    model, mechanism, adversaries: Sequence[Adversary], engine: PairEngine = None
) -> list[dict[str, float]]:
    """Per adversary, ``advantage = TV(P, Q)`` and ``tpr_at_<fpr> = 1 - beta(fpr)`` of its
    Neyman-Pearson test (``x``: the positives; :func:`bdpsim.attack.attack_risk` with this
    ``adversary``), all adversaries' threshold searches together."""
    if not adversaries:
        return []
    eng = use_engine(engine, model, mechanism)
    pairs = [output_pair(eng, adv) for adv in adversaries]
    alphas = np.array([a for _, a in ATTACK_FPRS])
    vals, _ = tpr_rows([p for p in pairs for _ in alphas], np.tile(alphas, len(pairs)))
    vals = vals.reshape(len(pairs), alphas.size)
    out = []
    for p, row in zip(pairs, vals):
        cells = {"advantage": float(p.deltas([0.0])[0][0])}
        cells.update({f"tpr_at_{lab}": float(v) for (lab, _), v in zip(ATTACK_FPRS, row)})
        out.append(cells)
    return out


def worst_attack_cells(model, mechanism, sizes, engine: PairEngine = None) -> dict[str, float]:
    """``advantage_max`` and ``tpr_at_<fpr>_max`` over every adversary with ``|K|`` in ``sizes``
    (values attained by an adversary; one search for the advantage and every FPR)."""
    fprs = [a for _, a in ATTACK_FPRS]
    risk = attack_risk(model, mechanism, sizes=sizes, fpr=fprs, engine=engine)
    out = {"advantage_max": float(risk.advantage)}
    out.update(
        {f"tpr_at_{lab}_max": float(w.value) for (lab, _), w in zip(ATTACK_FPRS, risk.worst_tprs(fprs))}
    )
    return out


ATTACK_COLUMNS.update(cells=attack_cells, worst=worst_attack_cells)
