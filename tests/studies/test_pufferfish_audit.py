"""Panel (e) of pufferfish-fig2 (bdpsim.studies.pufferfish_audit): the black-box audit's certified
lower bound on the BDPL of the MQM histogram release, checked against the exact BDPL at small T."""

import numpy as np
import pytest

from bdpsim.kernels.chains.histogram_sup import chain_histogram_bdpl
from bdpsim.studies import pufferfish_audit as PA
from bdpsim.studies import pufferfish_fig2 as PF

TINY_AUDIT = {
    "T": 300,
    "small_T": 4,
    "epsilons": [1.0, 10.0],
    "budget": 40_000,
    "small_budget": 100_000,
    "adversaries": 4,
    "window_n": 4,
    "chunk": 2000,
}


@pytest.fixture(scope="module")
def chain():
    chain_ss, _ = np.random.SeedSequence(PF.SEED).spawn(2)
    P, q, _ = PF.generate_chain(np.random.default_rng(chain_ss), 5, 0.05, 0.1)
    return P, q


@pytest.fixture(scope="module")
def rows(chain):
    return PA.audit_rows(*chain, TINY_AUDIT, seed=7, sigma=PF.mqm_sigma)


def test_audit_rows_are_produced(rows):
    assert len(rows) == 2 * 2
    assert {r["mechanism"] for r in rows} == {PA.MECHANISM} and {r["panel"] for r in rows} == {"e"}
    assert sorted({r["T"] for r in rows}) == [4, 300]
    for r in rows:
        assert r["sigma"] == pytest.approx(PF.mqm_sigma(0.05, 0.1, r["epsilon"], r["T"]))
        assert r["laplace_scale_counts"] == pytest.approx(2 * r["sigma"])
        assert r["bdpl_lower"] >= 0 and 0 < r["audit_calls"] <= r["audit_budget"]
        assert r["audit_alpha"] == 0.05 and r["windows"] == 4
        for c in ("bdpl_lower", "bdpl_audit", "bdpl_audit_se", "audit_calls"):
            assert c in PF.COLUMNS
    big = [r for r in rows if r["T"] == 300]
    assert all(r["bdpl_exact_windows"] > 0 and r["window_n"] == 4 for r in big)
    assert any(r["bdpl_lower"] > 0 for r in big)  # ε = 10 (σ ≈ 10) is certified


def test_lower_bound_is_below_the_exact_bdpl_at_small_T(rows, chain):
    small = [r for r in rows if r["T"] == 4]
    exact = chain_histogram_bdpl(*chain, 4, [r["laplace_scale_counts"] for r in small])
    for r, x in zip(small, exact):
        assert r["bdpl_exact"] == pytest.approx(x.value, abs=1e-12)
        assert 0 < r["bdpl_lower"] <= r["bdpl_exact"]  # MQM at T = 4 is group DP: BDPL <= ε
        assert r["bdpl_exact"] <= r["epsilon"] + 1e-12
        assert r["audit_exact"] <= r["bdpl_exact"] + 1e-9  # the certified adversary's own exact BDPL
        assert r["bdpl_lower"] <= r["audit_exact"] + 1e-12


def test_same_seed_same_numbers(chain, rows):
    again = PA.audit_rows(*chain, {**TINY_AUDIT, "epsilons": [10.0]}, seed=7, sigma=PF.mqm_sigma)
    before = [r for r in rows if r["epsilon"] == 10.0]
    assert [r["bdpl_lower"] for r in again] == [r["bdpl_lower"] for r in before]
    assert [r["audit_calls"] for r in again] == [r["audit_calls"] for r in before]


def test_window_sub_family_is_a_lower_bound_on_the_longer_chain(chain):
    # the exact BDPL over windows of <= 3 unknowns (window_n = 4, min_known = 1) never exceeds the
    # exact BDPL over every adversary of a longer chain (they are adversaries of it, same BDPL)
    P, q = chain
    res, _ = PA.window_exact(P, q, 4, [2.0, 20.0])
    full = chain_histogram_bdpl(P, q, 6, [2.0, 20.0])
    for w, f in zip(res, full):
        assert 0 < w.value <= f.value + 1e-12


def test_describe_adversary():
    from bdpsim.adversary import Adversary

    adv = Adversary(5, (0, 1, 2, 8, 9), (1, 2, 3, 4, 0), 1, 2)
    assert PA.describe_adversary(adv, 10) == "i=5 L=2 R=2 left=3 right=4 x=1 x'=2"
    assert (
        PA.describe_adversary(Adversary(0, (3,), (2,), 0, 1), 4) == "i=0 L=0 R=2 left=start right=2 x=0 x'=1"
    )
    assert PA.describe_adversary(None, 4) == ""
