"""The accountant of Gaussian noise on a per-state value at every record of a chain
(bdpsim.account with ValueNoise): independent records give the one-step Gaussian mechanism's
closed forms (delta(eps), its inverse, D_alpha = alpha mu^2 / 2), a correlated chain's profile is
pinned (computed once to a bracket of 1e-6), the BDPL is +inf, and bad input is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import norm

import bdpsim
from bdpsim.accounting import LocalRelease, account
from bdpsim.accounting import local as local_module
from bdpsim.accounting.local import ValueNoiseAccount
from bdpsim.accounting.values import UNBOUNDED
from bdpsim.core.errors import ConfigError, NotAvailable
from bdpsim.mechanisms.value_noise import ValueNoise

P2 = np.array([[0.8, 0.2], [0.3, 0.7]])
INDEPENDENT = np.array([[0.6, 0.4], [0.6, 0.4]])  # identical rows: the records are independent
EPS = (0.0, 0.5, 1.0, 2.0)


def gaussian_mechanism(mu: float, eps: float) -> float:
    return float(norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * norm.cdf(-mu / 2 - eps / mu))


def holds_the_gaussian_mechanism(acc, mu: float, widths: tuple[float, float, float]) -> None:
    """``delta`` at :data:`EPS`, ``eps(1e-3)`` and ``D_2`` of ``acc`` bracket the one-step
    Gaussian mechanism's closed forms, each bracket at most its width in ``widths``."""
    acc.prepare(epsilons=EPS, deltas=[1e-3], alphas=[2.0])
    for e in EPS:
        v = acc.delta(e)
        assert v.lower - 1e-12 <= gaussian_mechanism(mu, e) <= v.upper + 1e-12
        assert v.width <= widths[0]
    inverse = brentq(lambda e: gaussian_mechanism(mu, e) - 1e-3, 0.0, 40.0, xtol=1e-13)
    v = acc.epsilon(1e-3)
    assert v.lower - 1e-9 <= inverse <= v.upper + 1e-9 and v.width <= widths[1]
    v = acc.renyi(2.0)
    assert v.lower - 1e-12 <= 2.0 * mu**2 / 2 <= v.upper + 1e-12 and v.width <= widths[2]


@pytest.fixture
def tolerance_1e4(monkeypatch):
    """The accountant's tolerance at 1e-4 (1e-6 takes a minute on a chain: the benchmark's)."""
    monkeypatch.setattr(local_module, "TOLERANCE", 1e-4)


@pytest.mark.parametrize("n, sizes", [(3, "all"), (20, [0])])
def test_independent_records_give_the_gaussian_mechanism(n, sizes):
    """Identical transition rows: the records are independent, every adversary faces one step's
    Gaussian mechanism with mu = 1.5 (the tolerance 1e-6 is reached in under a second)."""
    mu = 1.5
    model = bdpsim.MarkovChainModel(INDEPENDENT, n=n, initial=np.array([0.6, 0.4]))
    acc = account(model, [ValueNoise(state_values=[0.0, 1.5], sigma=1.0)], sizes=sizes)
    assert isinstance(acc, ValueNoiseAccount)
    holds_the_gaussian_mechanism(acc, mu, widths=(1e-6, 1e-3, 1e-4))
    b = acc.bdpl
    assert b.value == math.inf and b.kind == UNBOUNDED


@pytest.mark.parametrize(
    "row, mu",
    [
        ([0.5, 0.3, 0.2], 3.0),  # the worst pair: the values 0 and 3
        ([0.6, 0.4, 0.0], 1.0),  # the state of value 3 never occurs: the worst pair is 0 and 1
    ],
)
def test_three_values_on_independent_records_give_the_gaussian_mechanism(row, mu, tolerance_1e4):
    """Three distinct values [0, 1, 3] (the upper channel on each cell's tangent triangle),
    identical transition rows: every adversary faces one step's Gaussian mechanism of the farthest
    pair of values with positive prior; delta, its inverse and D_2 = 2 mu^2 / 2 in their brackets
    (measured: delta to <= 1e-4 at about 250 cells)."""
    P = np.tile(row, (3, 1))
    model = bdpsim.MarkovChainModel(P, n=5, initial=np.array(row))
    acc = account(model, [ValueNoise(state_values=[0.0, 1.0, 3.0], sigma=1.0)], sizes=[0])
    holds_the_gaussian_mechanism(acc, mu, widths=(1e-4, 0.05, 0.05))  # eps(1e-3): 0.019 at mu = 3
    assert acc.bdpl.value == math.inf


def test_a_correlated_chain_is_pinned(tolerance_1e4):
    """The 2-state chain P2, 6 records, every known set: delta computed once to a bracket of
    1e-6 (0.629032050, 0.434316488, 0.250088937 at eps 0, 1, 2, each +-4e-7, attained by the
    adversary of a middle record who knows nothing, in 48 s); here to 1e-4. The correlation raises it
    well above the one-step Gaussian mechanism (0.547, 0.320, 0.142)."""
    model = bdpsim.MarkovChainModel(P2, n=6, initial=np.array([0.6, 0.4]))
    acc = account(model, [ValueNoise(state_values=[0.0, 1.5], sigma=1.0)])
    pinned = {0.0: 0.6290320498, 1.0: 0.4343164877, 2.0: 0.2500889374}
    acc.prepare(epsilons=list(pinned))
    for e, p in pinned.items():
        v = acc.delta(e)
        assert v.lower - 4e-7 <= p <= v.upper + 4e-7
        assert v.width <= 1e-4
        assert v.lower > gaussian_mechanism(1.5, e) + 0.05
    adv = acc.delta(1.0).adversary  # the middle records tie (a 2-state stationary chain is reversible)
    assert adv.i in (2, 3) and adv.known == ()


def test_a_randomiser_beside_it_composes_on_each_step(tolerance_1e4):
    """k-RR released beside the Gaussian value at each record (independent records): the step's
    pair is a product, whose delta is above either part's."""
    model = bdpsim.MarkovChainModel(INDEPENDENT, n=3, initial=np.array([0.6, 0.4]))
    both = account(model, [ValueNoise(state_values=[0.0, 1.0], sigma=1.0), LocalRelease("krr", 1.0)])
    v = both.delta(0.5)
    krr = (math.e - math.exp(0.5)) / (math.e + 1)  # one k-RR step at eps = 1: delta(0.5)
    assert v.lower > max(gaussian_mechanism(1.0, 0.5), krr) + 0.01
    assert v.width <= 1e-4
    assert both.renyi(2.0).upper > 2.0 / 2  # above the Gaussian alone (alpha mu^2 / 2 = 1)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(state_values=[0, 1], sigma=0.0), "release.sigma"),
        (dict(state_values=[0, 1], sigma=-1.0), "release.sigma"),
        (dict(state_values=[0, 1], sigma=float("nan")), "release.sigma"),
        (dict(state_values=[0, 1], sigma=float("inf")), "release.sigma"),
        (dict(state_values=[0, 1], sigma=1e-300), "release.sigma"),
        (dict(state_values=[0, 1e308], sigma=1.0), "release.sigma"),
        (dict(state_values=[0, 1], sigma=True), "release.sigma"),
        (dict(state_values=[0, 1], sigma="1"), "release.sigma"),
        (dict(state_values=[0, 1, 2, 3, 4, 5, 6], sigma=1.0), "release.state_values"),
        (dict(state_values=[0, float("nan")], sigma=1.0), "release.state_values"),
        (dict(state_values=["a", "b"], sigma=1.0), "release.state_values"),
        (dict(state_values=[1.0], sigma=1.0), "release.state_values"),
        (dict(state_values=[0, 1], sigma=1.0, release="laplace"), "release.noise"),
        (dict(state_values=[0, 1], sigma=1.0, epsilon=1.0), "release.epsilon"),
    ],
)
def test_a_bad_value_release_is_refused_naming_its_field(kwargs, field):
    with pytest.raises(ConfigError) as err:
        ValueNoise(**kwargs)
    assert err.value.field == field
    assert "\n" not in str(err.value)


def test_refusals_of_the_account():
    rel = ValueNoise(state_values=[0.0, 1.0], sigma=1.0)
    three = bdpsim.MarkovChainModel(np.full((3, 3), 1 / 3), n=4)
    with pytest.raises(ConfigError, match=r"release.state_values .*one value per record state \(3\)"):
        account(three, [rel])
    with pytest.raises(NotAvailable, match="one release with continuous outputs"):
        account(bdpsim.MarkovChainModel(P2, n=4), [rel, rel])
    with pytest.raises(NotAvailable, match="on 3000 records: the bracket may take ~"):
        account(bdpsim.MarkovChainModel(P2, n=3000), [rel])
    acc = account(bdpsim.MarkovChainModel(INDEPENDENT, n=3, initial=np.array([0.6, 0.4])), [rel])
    for bad, name in ((lambda: acc.delta(-1.0), "epsilon"), (lambda: acc.renyi(1.0), "alpha")):
        with pytest.raises(ConfigError) as err:
            bad()
        assert err.value.field == name
    with pytest.raises(NotAvailable, match="continuous outputs have no likelihood matrix"):
        rel.matrix(2)


def test_equal_values_leak_nothing_and_a_spread_below_floating_point_is_refused(capsys):
    """Every state with the same value: the outputs are noise alone, so delta = 0 and the BDPL is 0
    (it was stated +inf, by ``bdpsim temporal`` too). Three values less than 1e-12 sigma apart are
    refused naming the sigma (the upper channel's tangents failed with an internal error naming a
    likelihood matrix, and warnings, from about 3e-17)."""
    from bdpsim.cli import main

    chain = bdpsim.MarkovChainModel(P2, n=4)
    acc = account(chain, [ValueNoise(state_values=(2.0, 2.0), sigma=1.0)])
    assert acc.delta(0.5).value == 0.0
    assert acc.bdpl.value == 0.0 and "same value" in acc.bdpl.note
    with pytest.raises(
        ConfigError, match=r"^release.sigma = 1e\+17: the values 0 and 3 are 3e-17 sigma apart"
    ):
        ValueNoise(state_values=(0.0, 1.0, 3.0), sigma=1e17)
    argv = ["temporal", "--transition", str(P2.tolist()), "--n", "3", "--release", "gaussian", "--sigma", "1"]
    assert main([*argv, "--state-values", "2", "2", "--epsilon", "0.5"]) == 0
    assert "bdpl       = 0 (every state has the same value" in capsys.readouterr().out
    assert main([*argv, "--state-values", "0", "1", "--epsilon", "0.5"]) == 0
    assert "= inf (the loss of one output is unbounded" in capsys.readouterr().out


def test_the_upper_channel_error_widens_the_upper_ends(monkeypatch):
    """The bracket's upper ends take the upper channel's certified per-step error ``e`` (set here
    to 1e-4 in place of the ~1e-12 computed, 3 records, tolerance 1e-2 so both runs use the first
    pass's cells): ``delta``'s by ``((1 - tau)^T - ((1 - tau) e^{-e})^T``, ``D_2``'s through
    ``(alpha - 1) D_upper + (2 alpha - 1) T e``; the lower ends do not move."""
    import dataclasses

    from bdpsim.kernels.chains.value_channels import outside_over

    monkeypatch.setattr(local_module, "TOLERANCE", 1e-2)
    model = bdpsim.MarkovChainModel(INDEPENDENT, n=3, initial=np.array([0.6, 0.4]))
    release = ValueNoise(state_values=[0.0, 1.5], sigma=1.0)
    runs = {}
    for e in (0.0, 1e-4):

        def channels(self, states, bins, steps, e=e, plain=ValueNoise.channels):
            return dataclasses.replace(plain(self, states, bins, steps), error=e)

        monkeypatch.setattr(ValueNoise, "channels", channels)
        acc = account(model, [release], sizes=[0])
        acc.prepare(epsilons=[0.5], alphas=[2.0])
        runs[e] = (acc.delta(0.5), acc.renyi(2.0), acc.bins)
        pair = release.channels(2, acc.bins, 3)
    (d0, r0, b0), (d1, r1, b1) = runs[0.0], runs[1e-4]
    assert b0 == b1
    tau = pair.outside
    added = outside_over(1 - (1 - tau) * math.exp(-1e-4), 3) - outside_over(tau, 3)
    assert d1.upper - d0.upper == pytest.approx(added, rel=1e-6) and added > 2.9e-4
    assert d1.lower == d0.lower and r1.lower == r0.lower
    assert r1.upper - r0.upper == pytest.approx(3 * 3 * 1e-4, rel=0.05)  # (2 alpha - 1) T e / (alpha - 1)
