"""The kinds of a number bdpsim prints: exact, a certified bracket, or a Monte Carlo estimate with
its interval (the accountant's :class:`~bdpsim.accounting.Value`, the attack's
:class:`~bdpsim.attack.AttackRisk`). Words only: importing them costs nothing."""

from __future__ import annotations

#: an exact number (up to floating point)
EXACT = "exact"
#: a certain interval, its middle printed
BRACKET = "certified bracket"
#: an estimate with an interval that holds with a stated probability
MONTE_CARLO = "Monte Carlo"
#: an exact number that is infinite
UNBOUNDED = "exact (unbounded)"

__all__ = ["BRACKET", "EXACT", "MONTE_CARLO", "UNBOUNDED"]
