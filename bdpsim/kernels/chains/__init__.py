"""Chain kernels: transition matrices, query lattices, the window scan, histogram suprema."""

from __future__ import annotations

from .transition import (  # noqa: F401  (re-exported: the module this package replaces; documented there)
    ACTIVITY,
    chain_structure,
    communicating_classes,
    gamma_of,
    omega_of,
    stationary_distribution,
    symmetric_chain,
    transient_states,
    transition_matrix,
)
