"""Exact BDPL of "query + noise" from the two exact laws of the query, for any noise law.

A model's exact engine computes the laws ``P(S = s | x_K, x)`` and ``P(S = s | x_K, x')`` of an
additive query on a lattice (a count, a sum of per-state values); the output laws are those
mixed with the noise kernel, and the noise law's exact functions (:mod:`bdpsim.kernels.noise.laws`)
give the supremum of their log-ratio and their privacy profile. ``laws(model, query, adversary)``
returns ``(W1, W2, step, atoms)`` (rows of shape ``(1, J)``).
"""

from __future__ import annotations

import math

import numpy as np

from ..adversary import Adversary, Estimate
from ..kernels.noise.laws import grid_delta_pair


def noisy_bdpl(model, laws, query, noise, adv: Adversary, signed: bool = False) -> Estimate:
    """Exact ``BDPL_(K,i)(x, x')`` of ``query + noise`` for any noise law, from the two exact laws
    ``laws(model, query, adv) -> (W1, W2, step, atoms)``: the noise law's exact sup on the lattice
    (two-sided), or its forward supremum (``signed``)."""
    W1, W2, delta, atoms = laws(model, query, adv)
    if signed:
        s = noise.sup_log_ratio(atoms, W1[0], atoms, W2[0])
        return Estimate(s.forward, 0, s.argmax if s.forward >= s.backward else math.nan)
    v, atom = noise.grid_sup(W1, W2, delta)
    return Estimate(
        float(abs(v[0])), 0, float(atoms[0] + delta * atom[0]) if np.isfinite(atom[0]) else float(atom[0])
    )


def noisy_profile(model, laws, query, noise, adv: Adversary, epsilon: float) -> float:
    """The adversary's privacy profile ``max(delta(x || x'), delta(x' || x))`` at ``epsilon``
    (the hockey-stick divergence of the two exact output laws)."""
    W1, W2, delta, _ = laws(model, query, adv)
    fwd, bwd = grid_delta_pair(noise, W1, W2, delta, epsilon)
    return float(max(fwd[0], bwd[0]))
