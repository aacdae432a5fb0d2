"""Worst-case searches: never below the known constructions, never above the theorems."""

import numpy as np
import pytest

from bdpsim import bounds as B
from bdpsim.core.errors import ConfigError
from bdpsim.models import GaussianModel
from bdpsim.models.gaussian.exact import gaussian_sum_coefficient
from bdpsim.studies.worstcase import sum_slope, worst_gaussian_sum, worst_markov_chain


def test_sum_slope_matches_model_coefficient(rng):
    from bdpsim.models import limited_covariance

    R = limited_covariance(5, 0.2, 1.0, rng)
    assert sum_slope(R, 2) == pytest.approx(
        gaussian_sum_coefficient(GaussianModel(np.zeros(5), R), 0, (1, 2))
    )


@pytest.mark.parametrize("n,rho", [(3, 0.5), (4, 0.3), (5, 0.2)])
def test_gaussian_search_at_least_equicorrelated_and_below_bound(n, rho):
    r = worst_gaussian_sum(n, rho, np.random.default_rng(0), starts=10)
    assert r.slope >= 1 + (n - 1) * rho - 1e-9
    assert np.linalg.eigvalsh(r.correlation)[0] > 0
    assert np.max(np.abs(r.correlation - np.eye(n))) <= rho + 1e-12
    assert sum_slope(r.correlation, r.known_size) == pytest.approx(r.slope)
    h = B.gaussian_factor(rho, n)
    assert r.slope <= h + 1e-9, "worst case above the Gaussian bound: bug or counterexample"


def test_mixed_signs_beat_equicorrelated():
    """n = 5, rho = 0.3: a known set of 2 and anti-correlated records give |a| = 2.46 > 2.2."""
    r = worst_gaussian_sum(5, 0.3, np.random.default_rng(0), starts=10)
    assert r.slope > 2.45 and r.known_size == 2


def test_markov_symmetric_chain_is_worst_for_two_states():
    r = worst_markov_chain(4.0, 5, 1.0, np.random.default_rng(0), starts=3, maxiter=60)
    assert r.bdpl == pytest.approx(r.symmetric_bdpl, abs=1e-9)
    assert B.gamma_of(r.transition) <= 4.0 + 1e-9
    assert r.bdpl <= r.markov_bound


def test_bad_arguments():
    with pytest.raises(ConfigError):
        worst_gaussian_sum(20, 0.1, np.random.default_rng(0))
    with pytest.raises(ConfigError):
        worst_markov_chain(0.5, 5, 1.0, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="starts"):  # three states have no symmetric start to fall back on
        worst_markov_chain(3.0, 4, 1.0, np.random.default_rng(0), states=3, starts=0)


def test_markov_three_state_search_respects_ratio_and_bound():
    r = worst_markov_chain(3.0, 4, 1.0, np.random.default_rng(1), states=3, starts=2, maxiter=40)
    assert r.transition.shape == (3, 3) and np.allclose(r.transition.sum(1), 1)
    assert B.gamma_of(r.transition) <= 3.0 + 1e-9
    assert 1.0 <= r.bdpl <= r.markov_bound
