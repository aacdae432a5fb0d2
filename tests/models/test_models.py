"""Conditional samplers against the exact conditional laws (fixed seeds, tolerances from N)."""

import numpy as np
import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.models import GaussianModel, MarkovChainModel, limited_covariance

from ..helpers import brute_count_law, brute_marginals

P3 = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]])


def test_stationary_start_is_default():
    m = MarkovChainModel(P3, 5)
    assert np.allclose(m.initial @ P3, m.initial) and m.is_stationary


def test_stationary_law_is_exactly_zero_on_transient_states():
    """Least squares leaves ~1e-17 on a transient state; that would make it look reachable."""
    m = MarkovChainModel([[1.0, 0.0], [0.3, 0.7]], 5)
    assert m.initial.tolist() == [1.0, 0.0]
    m = MarkovChainModel([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.0, 0.0, 1.0]], 5)
    assert m.initial.tolist() == [0.0, 0.0, 1.0] and m.is_stationary
    from bdpsim.kernels.chains.transition import transient_states

    assert not transient_states(P3).any()


def test_marginals_equal_brute_force():
    m = MarkovChainModel(P3, 6)
    known = {0: 2, 3: 0, 5: 1}
    assert np.allclose(m.marginals(known), brute_marginals(m, known), atol=1e-12)


def test_markov_sampler_matches_forward_backward(rng):
    """3-state chain, known positions on both sides of the target (i = 3)."""
    m = MarkovChainModel(P3, 7)
    known = {1: 2, 3: 0, 6: 1}
    N = 200_000
    x = m.sample_conditional(known, N, rng)
    for pos, v in known.items():
        assert np.all(x[:, pos] == v)
    exact = m.marginals(known)
    emp = np.stack([np.bincount(x[:, t], minlength=3) / N for t in range(7)])
    se = np.sqrt(exact * (1 - exact) / N) + 1e-12
    assert np.max(np.abs(emp - exact) / se) < 5.0  # 5 standard errors over 21 cells


def test_markov_sampler_count_law(rng):
    m = MarkovChainModel(P3, 6)
    known = {0: 1, 4: 2}
    N = 200_000
    x = m.sample_conditional(known, N, rng)
    law = brute_count_law(m, known, [1, 2])
    emp = np.bincount(np.isin(x, [1, 2]).sum(1), minlength=7) / N
    se = np.sqrt(law * (1 - law) / N) + 1e-12
    assert np.max(np.abs(emp - law) / se) < 5.0


@pytest.mark.parametrize("states,n", [(2, 5), (3, 4), (2, 4)])
def test_count_law_equals_brute_force(states, n, rng):
    P = rng.dirichlet(np.ones(states), size=states)
    m = MarkovChainModel(P, n)
    for known in ({}, {0: 1}, {n - 1: 0, 1: 1}, {2: states - 1}):
        pos = sorted(known)
        law, logev = m.count_law(pos, np.array([[known[p] for p in pos]]), [1])
        assert np.allclose(law[0], brute_count_law(m, known, [1]), atol=1e-12)


def test_zero_probability_condition_is_reported():
    m = MarkovChainModel([[1.0, 0.0], [0.5, 0.5]], 4, initial=[1.0, 0.0])
    with pytest.raises(ConfigError, match="probability zero"):
        m.sample_conditional({2: 1}, 10, np.random.default_rng(0))
    law, logev = m.count_law([2], np.array([[1]]), [1])
    assert np.isneginf(logev[0]) and np.all(np.isnan(law))


def test_gaussian_conditional_moments_match_schur(rng):
    S = limited_covariance(5, 0.3, 1.5, rng)
    mu = rng.uniform(0, 10, 5)
    g = GaussianModel(mu, S)
    known = {0: 4.0, 3: 7.5}
    N = 200_000
    x = g.sample_conditional(known, N, rng)
    assert np.all(x[:, 0] == 4.0) and np.all(x[:, 3] == 7.5)
    U, T = [1, 2, 4], [0, 3]
    xT = np.array([4.0, 7.5])
    mean = mu[U] + S[np.ix_(U, T)] @ np.linalg.solve(S[np.ix_(T, T)], xT - mu[T])
    cov = S[np.ix_(U, U)] - S[np.ix_(U, T)] @ np.linalg.solve(S[np.ix_(T, T)], S[np.ix_(T, U)])
    emp_mean = x[:, U].mean(0)
    emp_cov = np.cov(x[:, U].T)
    assert np.all(np.abs(emp_mean - mean) < 5 * np.sqrt(np.diag(cov) / N))
    se_cov = np.sqrt((cov**2 + np.outer(np.diag(cov), np.diag(cov))) / N)
    assert np.all(np.abs(emp_cov - cov) < 5 * se_cov)


def test_limited_covariance_class(rng):
    for draw in ("uniform", "positive", "equicorrelated"):
        S = limited_covariance(6, 0.19, 2.0, rng, draw=draw)
        assert np.allclose(np.diag(S), 4.0)
        off = S[~np.eye(6, dtype=bool)]
        assert np.all(np.abs(off) <= 0.19 * 4.0 + 1e-12)
        assert np.linalg.eigvalsh(S)[0] > 0
    S = limited_covariance(6, 0.5, 1.0, rng, block=2)
    assert S[0, 2] == 0 and S[1, 5] == 0 and S[0, 1] != 0


@pytest.mark.parametrize(
    "bad",
    [
        dict(mean=[0, 0], cov=[[1, 2], [2, 1]]),  # not PSD
        dict(mean=[0, 0], cov=[[1, 0.1], [0.2, 1]]),  # not symmetric
        dict(mean=[0, 0, 0], cov=[[1, 0], [0, 1]]),  # shape
    ],
)
def test_gaussian_bad_input(bad):
    with pytest.raises(ConfigError):
        GaussianModel(**bad)


def test_count_law_long_chain_matches_marginals():
    """n = 400 with small transition probabilities: no underflow; E[C] = sum of marginals."""
    P = np.array([[0.99, 0.01], [0.02, 0.98]])
    m = MarkovChainModel(P, 400)
    known = {0: 1, 150: 0, 399: 1}
    pos = sorted(known)
    law, logev = m.count_law(pos, np.array([[known[p] for p in pos]]), [1])
    assert np.isfinite(logev[0]) and law[0].sum() == pytest.approx(1.0, abs=1e-12)
    mean = float(np.arange(401) @ law[0])
    assert mean == pytest.approx(m.marginals(known)[:, 1].sum(), rel=1e-9)
    assert logev[0] == pytest.approx(m.log_evidence(known), abs=1e-9)
