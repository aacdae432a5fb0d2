"""Noise calibrated to an attack target (bdpsim.attack.calibrate, issue 35 item 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bdpsim import ConfigError
from bdpsim.attack import pure_dp_tradeoff, worst_advantage, worst_tpr
from bdpsim.attack.calibrate import calibrate_attack, target_epsilon
from bdpsim.kernels.noise.laws import LaplaceNoise, StaircaseNoise
from bdpsim.kernels.noise.stepwise import GeometricNoise
from bdpsim.mechanisms.noisy import NoisyQueryMechanism
from bdpsim.models import MarkovChainModel
from bdpsim.queries import CountQuery

CHAIN = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 8)


def mech(noise):
    return NoisyQueryMechanism(CountQuery((1,)), noise)


def test_target_epsilon_meets_the_pure_curve():
    assert math.tanh(target_epsilon(target_advantage=0.3) / 2) == pytest.approx(0.3, abs=1e-15)
    e = target_epsilon(target_tpr=0.05, at_fpr=0.01)
    assert pure_dp_tradeoff(e).tpr_at(0.01) == pytest.approx(0.05, abs=1e-12)
    e = target_epsilon(target_tpr=0.9, at_fpr=0.5)  # the other branch of the pure curve binds
    assert pure_dp_tradeoff(e).tpr_at(0.5) == pytest.approx(0.9, abs=1e-12)


@pytest.mark.parametrize("noise", [LaplaceNoise(1.0), GeometricNoise(1.0)])
def test_least_noise_for_an_advantage(noise):
    c = calibrate_attack(CHAIN, mech(noise), target_advantage=0.2)
    assert c.value <= 0.2 and c.value == pytest.approx(0.2, abs=1e-4)
    less = c.parameter * (1 - 1e-4) if noise.noise_grows_with_parameter else c.parameter * (1 + 1e-4)
    assert worst_advantage(CHAIN, mech(noise.with_parameter(less))).value > 0.2  # the least noise
    assert c.bdp_parameter is not None and c.saving >= 1 - 1e-6  # eps-BDP needs at least as much noise


def test_least_noise_for_a_tpr_at_fpr():
    small = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 4)
    c = calibrate_attack(small, mech(LaplaceNoise(1.0)), target_tpr=0.05, at_fpr=0.01)
    assert worst_tpr(small, mech(LaplaceNoise(c.parameter)), 0.01).upper <= 0.05
    assert c.epsilon == pytest.approx(math.log(5.0))


@pytest.mark.parametrize(
    "kw, first",
    [
        (dict(target_advantage=0.0), "target_advantage = 0.0: must be in the open interval (0, 1)"),
        (dict(target_advantage=1.2), "target_advantage = 1.2: must be in the open interval (0, 1)"),
        (dict(target_tpr=0.5), "at_fpr = None: is required with target_tpr"),
        (dict(target_tpr=0.01, at_fpr=0.1), "target_tpr = 0.01: must exceed at_fpr"),
        (dict(), "target_advantage = None: give exactly one"),
    ],
)
def test_bad_targets(kw, first):
    with pytest.raises(ConfigError) as exc:
        calibrate_attack(CHAIN, mech(LaplaceNoise(1.0)), **kw)
    assert str(exc.value).startswith(first)


def test_staircase_refused():
    with pytest.raises(ConfigError, match="^noise = 'staircase': must be one of"):
        calibrate_attack(CHAIN, mech(StaircaseNoise(1.0)), target_advantage=0.2)


def test_network_calibration_and_its_eps_bdp_comparison():
    """On a network the eps-BDP comparison is the network's exact calibration; eps-BDP noise at
    that eps meets the advantage target (tanh(eps/2) = target), so it is never less noise."""
    from bdpsim.models import BayesNetModel
    from bdpsim.models.bayesnet.kind import BayesNetKind

    ex = BayesNetKind.example
    net = BayesNetModel(ex["parents"], ex["cpt"])
    c = calibrate_attack(net, mech(LaplaceNoise(1.0)), target_advantage=0.1)
    assert c.value <= 0.1 and c.bdp_parameter is not None and c.saving >= 1 - 1e-6
    assert worst_advantage(net, mech(LaplaceNoise(c.bdp_parameter))).value <= 0.1 + 1e-9


@pytest.mark.parametrize("target", [0.1, 0.25])
def test_the_printed_amount_meets_the_target(target, capsys):
    """The calibrated amount is rounded toward more noise: copying the printed scale meets the
    target (rounded to nearest, 12.5343 and 4.06056 missed 0.1 and 0.25 by ~1e-7)."""
    from bdpsim.cli import main

    argv = ["calibrate", "markov", "--transition", "[[0.8,0.2],[0.3,0.7]]", "--n", "8"]
    assert main([*argv, "--target-advantage", str(target)]) == 0
    line = next(s for s in capsys.readouterr().out.splitlines() if s.startswith("least laplace scale"))
    printed = float(line.split(":")[1].split()[0])
    assert worst_advantage(CHAIN, mech(LaplaceNoise(printed))).value <= target
    c = calibrate_attack(CHAIN, mech(LaplaceNoise(1.0)), target_advantage=target, compare=False)
    assert c.parameter == printed and float(f"{c.parameter:.6g}") == c.parameter


def test_calibration_goes_through_one_reused_engine(monkeypatch):
    """Every amount tried re-noises the one engine of the pair (no engine built per amount)."""
    from bdpsim.models.markov.exact import MarkovEngine

    calls = [0]
    init = MarkovEngine.__init__

    def counted(self, *a, **kw):
        calls[0] += 1
        init(self, *a, **kw)

    monkeypatch.setattr(MarkovEngine, "__init__", counted)
    calibrate_attack(CHAIN, mech(LaplaceNoise(1.0)), target_advantage=0.2, compare=False)
    assert calls[0] == 1


def test_config_target_advantage_on_a_network_matches_the_library(capsys):
    """``calibrate config --target-advantage`` (networks were "unrecognized"): the library's
    calibration of the config's model, query and law, as JSON."""
    import json

    from bdpsim.cli import main
    from bdpsim.cli.attack_config import config_pair

    assert main(["calibrate", "config", "bayesnet_example", "--target-advantage", "0.2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    model, m = config_pair("bayesnet_example", 1.0)
    ref = calibrate_attack(model, mech(LaplaceNoise(1.0)), target_advantage=0.2, compare=False)
    assert out["parameter"] == ref.parameter and out["value"] <= 0.2
    assert worst_advantage(model, mech(LaplaceNoise(out["parameter"]))).value <= 0.2


@pytest.mark.parametrize(
    "argv, first",
    [
        (["--at-fpr", "0.01"], "bdpsim: error: --at-fpr = 0.01: is the FPR of --target-tpr"),
        (
            ["--target-advantage", "0.2", "--epsilon", "1"],
            "bdpsim: error: --epsilon = 1.0: is an eps-BDP target",
        ),
        # the library's parameter names were printed: "--at-fpr = None: is required with target_tpr"
        (["--target-tpr", "0.2"], "bdpsim: error: --target-tpr = 0.2: needs --at-fpr F"),
        (
            ["--target-tpr", "0.005", "--at-fpr", "0.01"],
            "bdpsim: error: --target-tpr = 0.005: must exceed --at-fpr = 0.01 (TPR = FPR",
        ),
    ],
)
def test_flags_beside_a_target_are_refused(argv, first, capsys):
    from bdpsim.cli import main

    assert main(["calibrate", "config", "bayesnet_example", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(first), err


def test_long_target_calibration_shows_progress(capsys, monkeypatch):
    """Without a terminal a line every EVERY seconds on stderr (a target calibration ran for minutes
    silently)."""
    from bdpsim.cli import main, progress

    monkeypatch.setattr(progress, "EVERY", 0.001)
    argv = ["calibrate", "markov", "--transition", "[[0.8,0.2],[0.3,0.7]]", "--n", "8"]
    assert main([*argv, "--target-tpr", "0.05", "--at-fpr", "0.01"]) == 0
    assert "bdpsim calibrate: " in capsys.readouterr().err


def test_a_target_below_floating_point_resolution_is_met_by_group_privacy(capsys):
    """An advantage target of 1e-300 (the pure curve's eps = 2e-300): an advantage computes as ~7e-16
    at any large scale, so the search cannot see it (it was refused as unreachable); Laplace and
    geometric noise meet it by group privacy, amount n Delta / eps (BDPL <= n Delta / amount = eps,
    so the advantage is <= tanh(eps / 2) = 1e-300), rounded toward more noise, with a note; the
    same for a TPR target within 1e-12 of its FPR. Gaussian noise has no such bound: one line."""
    from bdpsim.cli import main

    cal = calibrate_attack(
        CHAIN, NoisyQueryMechanism(CountQuery((1,)), LaplaceNoise(1.0)), target_advantage=1e-300
    )
    assert cal.epsilon == pytest.approx(2e-300, rel=1e-12) and cal.parameter >= 8 / cal.epsilon
    assert cal.parameter == pytest.approx(8 / cal.epsilon, rel=1e-5) and cal.value <= 1e-300
    assert cal.note is not None and "group privacy" in cal.note and cal.saving == 1.0
    geo = calibrate_attack(
        CHAIN, NoisyQueryMechanism(CountQuery((1,)), GeometricNoise(1.0)), target_advantage=1e-300
    )
    assert geo.parameter <= cal.epsilon / 8 and geo.value <= 1e-300  # its DP epsilon: eps / n or less
    tpr = calibrate_attack(
        CHAIN, NoisyQueryMechanism(CountQuery((1,)), LaplaceNoise(1.0)), target_tpr=0.1 + 1e-13, at_fpr=0.1
    )
    assert tpr.note is not None and tpr.value <= 0.1 + 1e-13
    argv = ["calibrate", "markov", "--transition", "[[0.8,0.2],[0.3,0.7]]", "--n", "8"]
    assert main(argv + ["--target-advantage", "1e-300"]) == 0
    out = capsys.readouterr().out
    assert "least laplace scale: 4e+300" in out and "note: the target is below floating-point" in out
    assert main(argv + ["--target-advantage", "1e-300", "--noise", "gaussian"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "below floating-point resolution" in err[0] and "gaussian" in err[0]


def test_a_target_whose_search_exceeds_the_budget_is_refused_before_the_work(capsys):
    """A 16-state chain: the attack calibration's searches are estimated (the engine's search cost,
    about ten amounts) and refused in one line naming the model's field, as the eps calibration is;
    before, ``bdpsim calibrate markov --target-advantage`` ran past two minutes with "0/? amounts
    tried"."""
    from bdpsim.calibration.budget import TooSlow
    from bdpsim.cli import main

    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(16), 16)
    model = MarkovChainModel(P, n=200)
    mech = NoisyQueryMechanism(CountQuery((1,)), LaplaceNoise(1.0))
    with pytest.raises(TooSlow, match=r"^model.transition = '16 states': the attack calibration needs ~"):
        calibrate_attack(model, mech, target_advantage=0.3, budget=60.0)
    argv = ["calibrate", "markov", "--transition", str(P.tolist()), "--n", "200", "--target-advantage", "0.3"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bdpsim: error: --transition = '16 states': the attack")


def test_the_worst_value_of_the_calibrated_noise_carries_its_kind(capsys):
    """The calibrated noise's worst value is printed and given in JSON with its kind (it was a bare
    number): the advantage is exact; a worst TPR is exact where the attained value meets the bound
    for every adversary, else that bound (``<=``); the group-privacy amount's value is a bound."""
    from bdpsim.attack.calibrate import EXACT, GROUP_BOUND, UPPER_BOUND
    from bdpsim.cli import main

    small = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 4)
    adv = calibrate_attack(small, mech(LaplaceNoise(1.0)), target_advantage=0.2, compare=False)
    assert adv.kind == EXACT and adv.as_dict()["kind"] == "exact"
    tpr = calibrate_attack(small, mech(LaplaceNoise(1.0)), target_tpr=0.05, at_fpr=0.01, compare=False)
    w = worst_tpr(small, mech(LaplaceNoise(tpr.parameter)), 0.01)
    assert tpr.value == w.upper and tpr.kind == (EXACT if w.certified else UPPER_BOUND)
    low = calibrate_attack(small, mech(LaplaceNoise(1.0)), target_advantage=1e-300, compare=False)
    assert low.kind == GROUP_BOUND
    argv = ["calibrate", "markov", "--transition", "[[0.8,0.2],[0.3,0.7]]", "--n", "4"]
    assert main([*argv, "--target-advantage", "0.2"]) == 0
    assert f"worst advantage {adv.value:.6g}, exact)" in capsys.readouterr().out
    assert main([*argv, "--target-advantage", "1e-300"]) == 0
    assert "worst advantage <= " in capsys.readouterr().out
