"""Leakage of a time series released step by step (continual release).

:mod:`.cao` and :mod:`.lfp` port Cao et al.'s temporal privacy leakage (TPL; MATLAB code
``yangcao888/TPL``): the incremental leakage L(α) by LP and by TKDE Theorem 4, the BPL/FPL/TPL
timelines, the Theorem 10 suprema and the two budget allocations. They are upper bounds of the
exact leakage.
"""

from .cao import (
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
from .lfp import (
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

__all__ = [
    "METHODS",
    "CaoSupremum",
    "CaoTimeline",
    "LFunction",
    "LfpSolution",
    "Precomputed",
    "QuantifiedBudget",
    "allocate_quantification",
    "allocate_upper_bound",
    "backward_matrices",
    "cao_leakage",
    "cao_supremum",
    "incremental_leakage",
    "incremental_leakage_lp",
    "incremental_leakage_precomputed",
    "l_function",
    "l_function_value",
    "precompute",
    "reverse_chain",
    "supremum",
    "theorem10",
]
