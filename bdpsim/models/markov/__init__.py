"""Markov chain models: the chain, its model kind, exact engines and the window reduction.

Public here for the studies and mechanisms that tabulate the window reduction itself (everything
else asks the pair's exact engine, :func:`bdpsim.models.engines.engine_for`):
:class:`~bdpsim.models.markov.window.WindowAdversary` (a worst window placed in the chain) and
:func:`~bdpsim.models.markov.window.window_cells` (the worst value of every window cell).
"""

from __future__ import annotations

from .model import BRIDGE_MIN_N, MarkovChainModel  # noqa: F401  (re-exported: the module this package replaces; documented there)
from .window import WindowAdversary, window_cells  # noqa: F401  (public: module docstring)
