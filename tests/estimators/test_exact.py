"""Exact BDPL: brute force, closed forms, independence, and the bounds (SCIENCE.md §5)."""

import itertools

import numpy as np
import pytest
from scipy.special import log_ndtr

from bdpsim import bounds as B
from bdpsim.adversary import Adversary
from bdpsim.core.errors import NotAvailable
from bdpsim.estimators import adversary_bdpl, mixture_sup
from bdpsim.mechanisms import ClippedSum, LaplaceCount, LaplaceSum
from bdpsim.models import GaussianModel, MarkovChainModel, limited_covariance
from bdpsim.models.gaussian.exact import exhaustive_gaussian_sum, gaussian_sum_coefficient
from bdpsim.models.markov.exact import exhaustive_markov_count

from ..helpers import brute_count_law


@pytest.mark.parametrize("states,n", [(2, 3), (2, 5), (3, 4), (3, 5)])
def test_markov_exact_equals_brute_force(states, n):
    rng = np.random.default_rng(states * 10 + n)
    P = rng.dirichlet(np.ones(states) * 0.7, size=states)
    model = MarkovChainModel(P, n)
    mech = LaplaceCount(rng.uniform(0.3, 2.0), counted_states=(states - 1,))
    for _ in range(15):
        i = int(rng.integers(n))
        others = [j for j in range(n) if j != i]
        K = tuple(sorted(rng.choice(others, size=rng.integers(0, n), replace=False).tolist()))
        xk = tuple(int(v) for v in rng.integers(0, states, len(K)))
        x, xp = (int(v) for v in rng.choice(states, 2, replace=False))
        adv = Adversary(i, K, xk, x, xp)
        l1 = brute_count_law(model, adv.condition(x), [states - 1])
        l2 = brute_count_law(model, adv.condition(xp), [states - 1])
        atoms = np.arange(n + 1.0)
        ref = mixture_sup(atoms, l1, atoms, l2, mech.noise.scale).value
        assert adversary_bdpl(model, mech, adv).value == pytest.approx(ref, abs=1e-9)


def test_exhaustive_matches_single_adversaries():
    model = MarkovChainModel(B.symmetric_chain(4), 5)
    mech = LaplaceCount(1.0)
    res = exhaustive_markov_count(model, mech, range(5))
    assert len(res) == 5 * sum(len(list(itertools.combinations(range(4), k))) * 2**k for k in range(5))
    for j in np.random.default_rng(1).choice(len(res), 30, replace=False):
        assert res.value[j] == pytest.approx(adversary_bdpl(model, mech, res.adversary(j)).value, abs=1e-12)


# values measured while planning issue 3 (exact BDPL over all adversaries, K = {} included)
PINNED_EXACT = [(6, 5.0, 1.0, 3.075), (10, 3.0, 2.0, 4.29), (10, 5.0, 1.0, 3.58)]


@pytest.mark.parametrize("n,gamma,eps,expected", PINNED_EXACT)
def test_pinned_exhaustive_values(n, gamma, eps, expected):
    res = exhaustive_markov_count(MarkovChainModel(B.symmetric_chain(gamma), n), LaplaceCount(eps), range(n))
    assert res.value.max() == pytest.approx(expected, abs=5e-3)


def test_n6_worst_adversary_knows_nothing():
    res = exhaustive_markov_count(MarkovChainModel(B.symmetric_chain(5), 6), LaplaceCount(1.0), range(6))
    assert res.adversary(res.best).known == ()


@pytest.mark.smoke
@pytest.mark.parametrize("states", [2, 3])
def test_independent_markov_gives_epsilon(states):
    row = np.random.default_rng(states).dirichlet(np.ones(states))
    model = MarkovChainModel(np.tile(row, (states, 1)), 6)
    for eps in (0.5, 1.0, 2.0):
        res = exhaustive_markov_count(model, LaplaceCount(eps, (0,)), range(6))
        assert res.value.max() == pytest.approx(eps, abs=1e-12)


def test_independent_gaussian_gives_epsilon(rng):
    g = GaussianModel(rng.uniform(0, 10, 4), np.diag([1.0, 2.0, 0.5, 1.0]))
    adv = Adversary(1, (0,), (3.0,), 0.0, 10.0)
    assert adversary_bdpl(g, ClippedSum(1.0, (0.0, 10.0)), adv).value == pytest.approx(1.0, abs=1e-12)
    assert adversary_bdpl(g, LaplaceSum(10.0), adv).value == pytest.approx(1.0, abs=1e-12)


def log_normal_laplace(y, v, beta):
    """ln of the density of N(0, v) * Lap(beta), in closed form with log Phi."""
    s = np.sqrt(v)
    return (
        -np.log(2 * beta)
        + v / (2 * beta**2)
        + np.logaddexp(-y / beta + log_ndtr((y - v / beta) / s), y / beta + log_ndtr((-y - v / beta) / s))
    )


def test_gaussian_closed_form_equals_tail_log_ratio(rng):
    S = limited_covariance(5, 0.2, 1.0, rng)
    g = GaussianModel(np.zeros(5), S)
    beta, x, xp = 2.0, 0.0, 3.0
    adv = Adversary(2, (0,), (0.5,), x, xp)
    a = gaussian_sum_coefficient(g, 2, (0,))
    cond = g.conditional(adv.condition(x))
    v = float(np.ones(len(cond.unknown)) @ cond.cov @ np.ones(len(cond.unknown)))
    y = np.array([200.0, 400.0, -400.0])
    ratio = log_normal_laplace(y - a * x, v, beta) - log_normal_laplace(y - a * xp, v, beta)
    exact = adversary_bdpl(g, LaplaceSum(beta), adv).value
    assert exact == pytest.approx(abs(a) * abs(x - xp) / beta)
    assert np.max(np.abs(ratio)) == pytest.approx(exact, abs=1e-9)
    ys = np.linspace(-50, 50, 2001)
    inner = log_normal_laplace(ys - a * x, v, beta) - log_normal_laplace(ys - a * xp, v, beta)
    assert np.max(np.abs(inner)) <= exact + 1e-12  # 1/beta-Lipschitz: never above the tail value
    # the slope a matches the conditional mean of the sum
    m1 = cond.mean.sum() + x
    m2 = g.conditional(adv.condition(xp)).mean.sum() + xp
    assert (m2 - m1) / (xp - x) == pytest.approx(a)


def test_equicorrelated_empty_known_set():
    n, rho = 5, 0.2
    g = GaussianModel(
        np.zeros(n), limited_covariance(n, rho, 1.0, np.random.default_rng(0), draw="equicorrelated")
    )
    assert gaussian_sum_coefficient(g, 0, ()) == pytest.approx(1 + (n - 1) * rho)
    res = exhaustive_gaussian_sum(g, 10.0, (0.0, 10.0), range(n))
    assert res.value.max() == pytest.approx(1 + (n - 1) * rho)


def test_exact_never_exceeds_applicable_bounds():
    violations = []
    for gamma, eps in itertools.product([1.0, 2.0, 4.0, 8.0], [0.5, 1.0, 2.0]):
        P = B.symmetric_chain(gamma)
        res = exhaustive_markov_count(MarkovChainModel(P, 6), LaplaceCount(eps), range(6))
        for b in (B.general_bound(eps, 6), B.markov_bound(eps, P), B.zhao_bound(eps, P)):
            if b.applicable and res.value.max() > b.value + 1e-9:
                violations.append((gamma, eps, b.name, res.value.max(), b.value, res.adversary(res.best)))
    for g in (0.0, 0.1, 0.2, 0.3):
        S = limited_covariance(4, g, 1.0, np.random.default_rng(0), draw="equicorrelated")
        res = exhaustive_gaussian_sum(GaussianModel(np.zeros(4), S), 10.0, (0.0, 10.0), range(4))
        b = B.gaussian_bound(0.1, g, 4, distance=10.0)
        if b.applicable and res.value.max() > b.value + 1e-9:
            violations.append(("gaussian", g, res.value.max(), b.value))
    assert not violations, f"EXACT BDPL ABOVE A THEOREM'S BOUND (bug or counterexample): {violations}"


def test_not_available_for_correlated_clipped_sum(rng):
    g = GaussianModel(np.zeros(3), limited_covariance(3, 0.5, 1.0, rng, draw="equicorrelated"))
    with pytest.raises(NotAvailable, match="mixture"):
        adversary_bdpl(g, ClippedSum(1.0), Adversary(0, (), (), 0.0, 10.0))


@pytest.mark.slow
def test_thesis_fig15_grid_exact_below_bounds():
    """Opt-in (pytest -m slow): every (eps, gamma) of thesis Fig. 15, every adversary, n = 10."""
    bad = []
    for gamma in range(1, 11):
        P = B.symmetric_chain(gamma)
        for eps in (0.5, 1.0, 2.0):
            v = exhaustive_markov_count(MarkovChainModel(P, 10), LaplaceCount(eps), range(10)).value.max()
            for b in (B.general_bound(eps, 10), B.markov_bound(eps, P), B.zhao_bound(eps, P)):
                if v > b.value + 1e-9:
                    bad.append((gamma, eps, b.name, v, b.value))
    assert not bad, f"EXACT BDPL ABOVE A BOUND: {bad}"


def test_enumerated_adversaries_of_a_calibrated_count_match_the_laplace_count():
    """Issue 36: enumerating every known set reads the mechanism's query and noise law, so a
    calibrated count (no ``counted_states`` attribute of its own; it failed with an
    AttributeError) gets the enumeration, and it equals the Laplace count of the same scale."""
    import bdpsim

    run = {"estimator": "exact", "adversaries": "all", "known_sizes": [1, 2]}  # not upward closed: enumerate
    model = {"kind": "markov", "n": 4, "gamma": 3.0}
    cal = bdpsim.run(
        {
            "run": run,
            "model": model,
            "mechanism": {"kind": "calibrated", "method": "general", "epsilon": 1.0},
        },
        as_frame=False,
    )[0]
    lap = bdpsim.run(
        {"run": run, "model": model, "mechanism": {"kind": "count", "epsilon": 1.0 / cal["noise_scale"]}},
        as_frame=False,
    )[0]
    assert cal["bdpl_max"] == pytest.approx(lap["bdpl_max"], rel=1e-12) and cal["bdpl_max"] > 0
