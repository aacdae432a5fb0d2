"""Randomized response on binary chains: exact BDPL by window search = brute force."""

import math

import numpy as np
import pytest
from scipy.stats import binom

from bdpsim.core.errors import ConfigError, NotAvailable
from bdpsim.mechanisms.randomized_response.core import (
    END,
    START,
    RRAdversary,
    debiased_count,
    flip_for_chain,
    rr_flip_probability,
    rr_noise_std,
)
from bdpsim.mechanisms.randomized_response.direct import flipped_count_laws, rr_bdpl_bruteforce
from bdpsim.mechanisms.randomized_response.mechanism import randomized_response_bdpl
from bdpsim.mechanisms.randomized_response.window import _evaluate, realise_window, rr_adversary_bdpl, rr_bdpl
from bdpsim.models import MarkovChainModel, symmetric_chain

ACTIVITY = [[0.882, 0.118], [0.305, 0.695]]

CASES = [
    (symmetric_chain(3.0), 6, 0.3, None),
    (symmetric_chain(10.0), 8, 0.05, None),
    (ACTIVITY, 7, 0.2, None),
    (ACTIVITY, 9, 0.01, None),
    ([[0.3, 0.7], [0.8, 0.2]], 7, 0.25, None),  # anti-correlated
    ([[0.6, 0.4], [0.1, 0.9]], 8, 0.4, [0.9, 0.1]),  # non-stationary start
    ([[0.95, 0.05], [0.02, 0.98]], 5, 0.001, [0.5, 0.5]),
    ([[0.5, 0.5], [0.5, 0.5]], 6, 0.2, [0.5, 0.5]),  # independent records: local DP
]


@pytest.mark.parametrize("P,T,rho,w", CASES)
def test_window_search_equals_brute_force(P, T, rho, w):
    model = MarkovChainModel(P, T, w)
    bf = rr_bdpl_bruteforce(model, rho)
    ws = rr_bdpl(model, rho)
    assert ws.bdpl == pytest.approx(bf.bdpl, abs=1e-12)
    # both worst adversaries are real adversaries with that leakage
    assert rr_adversary_bdpl(model, rho, ws.worst) == pytest.approx(ws.bdpl, abs=1e-12)
    assert rr_adversary_bdpl(model, rho, bf.worst) == pytest.approx(bf.bdpl, abs=1e-12)


def test_independent_records_leak_at_most_the_local_dp_level():
    row = [0.5, 0.5]
    rho = 0.2
    v = rr_bdpl(MarkovChainModel([row, row], 6, row), rho).bdpl
    # independent records: K = all others and the extreme output give exactly ln((1-rho)/rho)
    assert v == pytest.approx(math.log((1 - rho) / rho), abs=1e-12)


@pytest.mark.parametrize(
    "window", [(0, 1, 1, 1), (1, 0, 0, 2), (START, 2, 0, 1), (0, 2, END, 1), (START, 1, END, 5)]
)
def test_full_outside_composition_search_against_each_adversary(window):
    """The exact evaluation of one window class (every number m1 of ones among the known
    outside records, log-space convolutions) = the max over concrete adversaries of the class."""
    model = MarkovChainModel([[0.7, 0.3], [0.45, 0.55]], 7)
    rho = 0.15
    e = np.array([[1 - rho, rho], [rho, 1 - rho]])
    kl, L, kr, R = window
    val, m1, z, x = _evaluate(model, e, rho, kl, L, kr, R)
    m = 7 - L - R - 1
    lo = (kl == 1) + (kr == 1)
    hi = m - ((kl == 0) + (kr == 0))
    best = -math.inf
    for k in range(lo, hi + 1):
        for xx in (0, 1):
            adv = realise_window(model, kl, L, kr, R, k, xx, 0)
            best = max(best, rr_adversary_bdpl(model, rho, adv))
    assert val == pytest.approx(best, abs=1e-12)
    adv = realise_window(model, kl, L, kr, R, m1, x, z)
    assert rr_adversary_bdpl(model, rho, adv) == pytest.approx(val, abs=1e-12)


def test_more_flipping_never_leaks_more():
    """Z(rho2) is Z(rho1) flipped again bit by bit, a function of the count alone: post-processing."""
    model = MarkovChainModel(symmetric_chain(4.0), 30)
    vals = [rr_bdpl(model, r).bdpl for r in (0.01, 0.05, 0.1, 0.2, 0.3, 0.45)]
    assert all(a >= b for a, b in zip(vals, vals[1:]))


def test_pinned_values_on_the_fig15_chains():
    """Chakrabarti et al.'s rho on the gamma = 3 and 10 chains, T = 100: not eps-BDP at large eps."""
    for gamma, eps, value in [
        (3.0, 1.0, 0.5456373663864298),
        (3.0, 10.0, 10.43580801218838),
        (10.0, 5.0, 5.566804515380523),
        (10.0, 2.0, 1.5032382315673694),
    ]:
        model = MarkovChainModel(symmetric_chain(gamma), 100)
        res = rr_bdpl(model, flip_for_chain(model.transition, eps))
        assert res.bdpl == pytest.approx(value, abs=1e-9)
        assert rr_adversary_bdpl(model, res.rho, res.worst) == pytest.approx(value, abs=1e-9)


def test_flip_probability_and_debiasing():
    P = symmetric_chain(3.0)
    assert flip_for_chain(P, 2.0) == rr_flip_probability(0.25, 2.0)
    with pytest.raises(ConfigError):
        flip_for_chain(ACTIVITY, 1.0)
    T, rho, count = 20, 0.3, 7
    law = np.convolve(
        binom.pmf(np.arange(count + 1), count, 1 - rho), binom.pmf(np.arange(T - count + 1), T - count, rho)
    )
    assert law == pytest.approx(flipped_count_laws(T, rho)[count])
    est = debiased_count(np.arange(T + 1), T, rho)
    assert float(law @ est) == pytest.approx(count)
    assert math.sqrt(float(law @ (est - count) ** 2)) == pytest.approx(rr_noise_std(T, rho))


def test_zero_transitions_use_the_brute_force():
    model = MarkovChainModel([[0.0, 1.0], [0.4, 0.6]], 6)
    with pytest.raises(NotAvailable):
        rr_bdpl(model, 0.2)
    res = randomized_response_bdpl(model, 0.2)
    assert res.method == "brute force" and math.isfinite(res.bdpl)
    with pytest.raises(NotAvailable):
        rr_bdpl_bruteforce(MarkovChainModel(ACTIVITY, 13), 0.2)
    with pytest.raises(ConfigError):
        rr_bdpl(MarkovChainModel(ACTIVITY, 6), 0.5)
    assert isinstance(res.worst, RRAdversary)


def test_a_chain_with_no_uncertain_record_has_no_adversary():
    # every record is 0 (start law [1, 0], P = identity): no adversary has x = 0 and x' = 1 both
    # possible; the brute force used to return bdpl = -inf with no worst adversary
    with pytest.raises(NotAvailable, match="both values"):
        randomized_response_bdpl(MarkovChainModel([[1.0, 0.0], [0.0, 1.0]], 4, [1.0, 0.0]), 0.2)


@pytest.mark.parametrize("P,T,rho,w", CASES[:6])
def test_no_knowledge_leakage_against_the_recursion(P, T, rho, w):
    from bdpsim.mechanisms.randomized_response.direct import rr_no_knowledge_bdpl

    model = MarkovChainModel(P, T, w)
    ref = max(
        rr_adversary_bdpl(model, rho, RRAdversary(i, (), (), x, 1 - x, 0)) for i in range(T) for x in (0, 1)
    )
    assert rr_no_knowledge_bdpl(model, rho) == pytest.approx(ref, abs=1e-12)
    assert rr_no_knowledge_bdpl(model, rho) <= rr_bdpl(model, rho).bdpl + 1e-12
