"""Leakage of a time series released step by step (continual release, issue 34).

:mod:`.cao` and :mod:`.lfp` port Cao et al.'s temporal privacy leakage (TPL; MATLAB code
``yangcao888/TPL``): the incremental leakage L(α) by LP and by TKDE Theorem 4, the BPL/FPL/TPL
timelines, the Theorem 10 suprema and the two budget allocations. They are upper bounds of the
exact leakage.

The names below are loaded on first use: :mod:`.releases` (what a step may release, read by the
command line) imports no NumPy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the re-exported names, for the type checker
    from .cao import (  # noqa: F401
        METHODS,
        CaoSupremum,
        CaoTimeline,
        QuantifiedBudget,
        allocate_quantification,
        allocate_upper_bound,
        backward_matrices,
        cao_leakage,
        cao_supremum,
        reverse_chain,
    )
    from .lfp import (  # noqa: F401
        LfpSolution,
        LFunction,
        Precomputed,
        incremental_leakage,
        incremental_leakage_lp,
        incremental_leakage_precomputed,
        l_function,
        l_function_value,
        precompute,
        supremum,
        theorem10,
    )

#: public name -> the module (of this package) that defines it
_EXPORTS = {
    **dict.fromkeys(
        (
            "METHODS",
            "CaoSupremum",
            "CaoTimeline",
            "QuantifiedBudget",
            "allocate_quantification",
            "allocate_upper_bound",
            "backward_matrices",
            "cao_leakage",
            "cao_supremum",
            "reverse_chain",
        ),
        ".cao",
    ),
    **dict.fromkeys(
        (
            "LFunction",
            "LfpSolution",
            "Precomputed",
            "incremental_leakage",
            "incremental_leakage_lp",
            "incremental_leakage_precomputed",
            "l_function",
            "l_function_value",
            "precompute",
            "supremum",
            "theorem10",
        ),
        ".lfp",
    ),
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return vars(import_module(_EXPORTS[name], __name__))[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_EXPORTS)
