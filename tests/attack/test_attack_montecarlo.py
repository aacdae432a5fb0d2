"""The simulated attack's band (bdpsim.attack.montecarlo): coverage on a case with a known curve."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bdpsim import ConfigError, NotAvailable
from bdpsim.adversary import Adversary
from bdpsim.attack import attack_risk, mixture_tradeoff
from bdpsim.attack.montecarlo import SimulatedAttack, simulated_attack
from bdpsim.kernels.noise.laws import LaplaceNoise
from bdpsim.mechanisms import ClippedSum
from bdpsim.models import GaussianModel

FPRS = np.array([0.01, 0.05, 0.2, 0.5])


def setting():
    """Independent Gaussian records, a clipped sum + Lap(1) (no exact output law in bdpsim), the
    adversary knowing every other record: the output is a shift by clip(x) - clip(x') = 1 of one
    Laplace law, so the threshold attack is optimal and its curve is the exact Laplace curve."""
    m = GaussianModel(np.zeros(4), np.eye(4))
    mech = ClippedSum(1.0, clip=(0.0, 1.0))
    adv = Adversary(0, (1, 2, 3), (0.2, 0.5, 0.9), 1.0, 0.0)
    exact = mixture_tradeoff(LaplaceNoise(1.0), [1.0], [1.0], [0.0], [1.0])
    return m, mech, adv, exact


def test_no_exact_law_needs_a_budget():
    m, mech, adv, _ = setting()
    with pytest.raises(NotAvailable, match="Monte Carlo budget"):
        attack_risk(m, mech, adv)
    with pytest.raises(ConfigError, match=r"^samples = 0: must be an integer >= 100"):
        simulated_attack(m, mech, adv, 0)


def test_band_covers_the_exact_curve():
    """Over 150 independent simulations (95 % bands) the band holds the exact curve at every FPR
    at least 0.95 - 3 sd of the time; and the band is not vacuous where FPR exceeds its additive
    margin (width < 4e + 0.1 at FPR >= 0.2; below the margin ~0.03 at 2000 samples the lower end is FPR)."""
    m, mech, adv, exact = setting()
    true = exact.tpr_at(FPRS)
    held, reps = 0, 150
    for r in range(reps):
        sim = simulated_attack(m, mech, adv, 2000, seed=r)
        lo, hi = sim.tpr_lower(FPRS), sim.tpr_upper(FPRS)
        held += bool(
            np.all(lo <= true + 1e-12)
            and np.all(true <= hi + 1e-12)
            and sim.advantage_lower <= exact.advantage
        )
    assert held >= reps * (0.95 - 3 * math.sqrt(0.95 * 0.05 / reps))
    assert np.all((hi - lo)[FPRS >= 0.2] < 4 * sim.margin + 0.1)  # 2e each side, plus the slope


def test_band_refuses_a_wrong_curve():
    """The check can fail: a curve 0.1 above the exact one leaves the band."""
    m, mech, adv, exact = setting()
    sim = simulated_attack(m, mech, adv, 20_000, seed=1)
    assert np.any(exact.tpr_at(FPRS) + 0.1 > sim.tpr_upper(FPRS))
    assert sim.advantage_lower > 0.3  # exact 1 - e^{-1/2} = 0.393, margin 0.017


def test_bad_input():
    with pytest.raises(ConfigError, match="^confidence = 1.0"):
        SimulatedAttack(np.zeros(5), np.ones(5), 1.0)
    sim = SimulatedAttack(np.arange(200.0), np.arange(200.0) - 10, 0.9)
    with pytest.raises(ConfigError, match=r"^fpr = 0.0: must be in the open interval \(0, 1\)$"):
        sim.tpr_lower(0.0)
