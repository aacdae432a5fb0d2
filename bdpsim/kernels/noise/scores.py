"""Scores of two laws on a lattice under a noise law, for the all-adversary searches (the window
scan of a chain, the separated-region search of a network) and the calibrations that reuse them."""

from __future__ import annotations

import numpy as np

from .laplace_mixture import grid_sup
from .laws import grid_delta_pair
from .protocols import LaplaceKernel


def pair_score(noise, delta: float, profile: float | None = None):
    """The window scan's score of two laws on a lattice of step ``delta`` for a noise law: its
    exact ``grid_sup``, or with ``profile = eps`` the privacy profile
    ``delta(eps) = max(∫ (p1 - e^eps p2)^+, ∫ (p2 - e^eps p1)^+)`` (signed by the direction)."""
    if profile is None:
        return lambda W1, W2: noise.grid_sup(W1, W2, delta)

    def score(W1, W2):
        fwd, bwd = grid_delta_pair(noise, W1, W2, delta, profile)
        return np.where(fwd >= bwd, fwd, -bwd), np.zeros(fwd.shape)

    return score


def scan_score(noise, delta: float, profile: float | None = None):
    """The score of the chain's window scan (:func:`bdpsim.kernels.chains.window_scan.scan`) for a
    noise law: :func:`pair_score`, but a Laplace kernel
    (:class:`~bdpsim.kernels.noise.protocols.LaplaceKernel`)
    scores the scan's unnormalised window laws directly with
    :func:`~bdpsim.kernels.noise.laplace_mixture.grid_sup` of scale ``scale / delta`` (its rows'
    normalisation applied after the argmax: the scan's numbers since the window reduction).
    """
    if profile is None and isinstance(noise, LaplaceKernel):
        b = float(noise.scale) / delta

        def score(W1, W2):
            return grid_sup(W1, W2, b)

        return score
    return pair_score(noise, delta, profile)
