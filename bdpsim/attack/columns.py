"""The attack columns of an exact run (``[run] attack = true``): registered into
:data:`bdpsim.estimators.exact.ATTACK_COLUMNS` on import (the estimator sits below this package)."""

from __future__ import annotations

from ..adversary import Adversary
from ..estimators.exact import ATTACK_COLUMNS, ATTACK_FPRS
from .laws import output_laws
from .worst import worst_advantage, worst_tpr


def attack_cells(model, mechanism, adversary: Adversary) -> dict[str, float]:
    """``advantage = TV(P, Q)`` and ``tpr_at_<fpr> = 1 - beta(fpr)`` of the adversary's
    Neyman-Pearson test (:func:`bdpsim.attack.attack_risk` with this ``adversary``)."""
    curve = output_laws(model, mechanism, adversary).tradeoff()
    out = {"advantage": float(curve.advantage)}
    out.update({f"tpr_at_{lab}": float(curve.tpr_at(a)) for lab, a in ATTACK_FPRS})
    return out


def worst_attack_cells(model, mechanism, sizes) -> dict[str, float]:
    """``advantage_max`` and ``tpr_at_<fpr>_max`` over every adversary with ``|K|`` in ``sizes``
    (values attained by an adversary)."""
    w = worst_advantage(model, mechanism, sizes)
    out = {"advantage_max": float(w.value)}
    out.update(
        {
            f"tpr_at_{lab}_max": float(worst_tpr(model, mechanism, a, sizes, start=w.adversary).value)
            for lab, a in ATTACK_FPRS
        }
    )
    return out


ATTACK_COLUMNS.update(cells=attack_cells, worst=worst_attack_cells)
