"""The naive answers beside the joint values: summed BDPLs, profiles composed as if independent."""

from __future__ import annotations

import pytest

import bdpsim
from bdpsim.accounting import Release, account
from bdpsim.kernels.noise.laws import GeometricNoise
from bdpsim.queries import CountQuery

IID = bdpsim.MarkovChainModel([[0.6, 0.4], [0.6, 0.4]], n=4, initial=[0.6, 0.4])


def test_independent_records_profile_is_the_pure_dp_composition():
    """Independent records: the worst adversary knows every other record, so the joint profile of
    three eps = 1 Laplace counts is their composition; dp_accounting's PLD (interval 1e-4) lies in
    the certified bracket (both orders of the Laplace pair are the same)."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    acc = account(IID, [bdpsim.LaplaceCount(epsilon=1.0)] * 3)
    ref = pld.from_laplace_mechanism(1.0, value_discretization_interval=1e-4).self_compose(3)
    for eps in (0.5, 1.0, 2.0):
        v = acc.delta(eps)
        assert v.kind == "certified bracket" and v.width < 2e-3
        assert v.lower - 1e-4 <= ref.get_delta_for_epsilon(eps) <= v.upper + 1e-4
        assert v.adversary.known == tuple(k for k in range(4) if k != v.adversary.i)
    assert acc.naive().composed_delta(1.0).lower <= ref.get_delta_for_epsilon(1.0) + 1e-4
    assert acc.bdpl.value == pytest.approx(3.0, abs=1e-12)


def test_repeated_geometric_count_on_a_weakly_correlated_chain():
    """The measured example (symmetric chain gamma = 1.2, n = 6, geometric count eps = 1 released
    three times): the joint BDPL is below the summed BDPLs, the joint delta(1) well above one
    release's (pinned)."""
    m = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(1.2), n=6)
    g = Release(CountQuery((1,)), GeometricNoise(1.0))
    three, one = account(m, [g] * 3), account(m, [g])
    assert one.bdpl.value == pytest.approx(1.18052, abs=1e-5)
    assert three.naive().summed_bdpl.value == pytest.approx(3 * one.bdpl.value, abs=1e-12)
    assert three.bdpl.value == pytest.approx(3.35640, abs=1e-5)
    assert one.delta(1.0).value == pytest.approx(0.05937, abs=1e-5)
    assert three.delta(1.0).value == pytest.approx(0.33783, abs=1e-5)
    assert three.bdpl.value < three.naive().summed_bdpl.value
