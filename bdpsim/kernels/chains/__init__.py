"""Chain kernels: transition matrices, query lattices, the window scan, histogram suprema."""

from __future__ import annotations

from .transition import ACTIVITY, transition_matrix, communicating_classes, chain_structure, gamma_of, omega_of, symmetric_chain, transient_states, stationary_distribution  # noqa: F401  (re-exported: the module this package replaces; documented there)
