"""What the leakage means to an attacker: the optimal attack's trade-off between false
and true positives, its advantage and TPR at low FPR, exact on correlated data.

* :mod:`.tradeoff` — the Neyman-Pearson curve of two output laws from their hockey-stick divergence;
* :mod:`.laws` — an adversary's two output laws, from the pair's exact engine;
* :mod:`.worst` — the worst adversary and :func:`attack_risk`;
* :mod:`.columns` — the attack columns of an exact run (``[run] attack = true``);
* :mod:`.montecarlo` — a simulated attack with Clopper-Pearson bands (black-box mechanisms).
"""

from . import columns as _columns  # noqa: F401  (registers the attack columns of an exact run)
from .laws import FinitePair as FinitePair
from .laws import LatticePair as LatticePair
from .laws import OutputPair as OutputPair
from .laws import ShiftPair as ShiftPair
from .laws import output_laws
from .montecarlo import SimulatedAttack, simulated_attack
from .tradeoff import (
    TradeOff,
    discrete_tradeoff,
    gaussian_tradeoff,
    mixture_tradeoff,
    pair_tradeoff,
    pure_dp_tradeoff,
)
from .worst import AttackRisk, WorstValue, attack_risk, worst_advantage, worst_tpr

# the output-law pairs (OutputPair, LatticePair, ShiftPair, FinitePair) are importable from here and
# documented where they live, bdpsim.models.pairs
__all__ = [
    "AttackRisk",
    "SimulatedAttack",
    "simulated_attack",
    "pair_tradeoff",
    "TradeOff",
    "WorstValue",
    "attack_risk",
    "discrete_tradeoff",
    "gaussian_tradeoff",
    "mixture_tradeoff",
    "output_laws",
    "pure_dp_tradeoff",
    "worst_advantage",
    "worst_tpr",
]
