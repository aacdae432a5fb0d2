"""Markov chain models: the chain, its model kind, exact engines and the window reduction."""

from __future__ import annotations

from .model import BRIDGE_MIN_N, MarkovChainModel  # noqa: F401  (re-exported: the module this package replaces; documented there)
