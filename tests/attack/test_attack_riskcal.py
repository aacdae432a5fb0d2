"""Independent records: bdpsim's attack curves against riskcal (and dp_accounting's privacy loss
distribution of the Laplace mechanism), when the ``attack-test`` extra is installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

riskcal = pytest.importorskip("riskcal")
pldm = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

from bdpsim.attack import gaussian_tradeoff, mixture_tradeoff  # noqa: E402
from bdpsim.kernels.noise.laws import GaussianNoise, LaplaceNoise  # noqa: E402

ALPHAS = np.array([1e-3, 1e-2, 0.1, 0.5])


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_gaussian_against_riskcal(mu):
    from riskcal.analysis import get_advantage_for_mu, get_beta_for_mu

    assert gaussian_tradeoff(mu).beta(ALPHAS) == pytest.approx(get_beta_for_mu(mu, ALPHAS), abs=1e-9)
    c = mixture_tradeoff(GaussianNoise(1.0), [mu], [1.0], [0.0], [1.0])  # through the noise law's profile
    assert c.beta(ALPHAS) == pytest.approx(get_beta_for_mu(mu, ALPHAS), abs=1e-8)
    assert c.advantage == pytest.approx(get_advantage_for_mu(mu), abs=1e-9)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_laplace_against_riskcal_pld(eps):
    from riskcal.analysis import get_advantage_from_pld, get_beta_from_pld

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pld = pldm.from_laplace_mechanism(
            parameter=1 / eps, sensitivity=1.0, value_discretization_interval=1e-5
        )
        beta, adv = get_beta_from_pld(pld, ALPHAS), get_advantage_from_pld(pld)
    c = mixture_tradeoff(LaplaceNoise(1 / eps), [1.0], [1.0], [0.0], [1.0])
    assert c.beta(ALPHAS) == pytest.approx(beta, abs=1e-6)
    assert c.advantage == pytest.approx(adv, abs=1e-6)
