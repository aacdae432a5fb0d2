"""``bdpsim attack`` (issue 35): output, JSON and one-line errors (exit code 2)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import bdpsim
from bdpsim.adversary import Adversary
from bdpsim.cli import main
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MarkovChainModel

CHAIN = ["attack", "markov", "--transition", "[[0.8,0.2],[0.3,0.7]]", "--n", "8"]


def test_attack_risk_is_exported_and_mirrors_exact_bdpl():
    m = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 8)
    mech = LaplaceCount(1.0, counted_states=(1,))
    r = bdpsim.attack_risk(m, mech)
    assert isinstance(r, bdpsim.AttackRisk)
    assert r.advantage <= math.tanh(bdpsim.exact_bdpl(m, mech).bdpl / 2)
    assert 0 < r.tpr_at(0.01) < 1 and r.beta(0.01) == pytest.approx(1 - r.tpr_at(0.01))
    one = bdpsim.attack_risk(m, mech, r.adversary)
    assert one.advantage == pytest.approx(r.advantage, abs=1e-12)  # the worst adversary's own curve
    assert r.tpr_at(0.01) >= one.tpr_at(0.01) - 1e-12
    assert r.tpr_at(np.array([0.01, 0.1])).shape == (2,)
    with pytest.raises(TypeError, match="adversary"):
        bdpsim.attack_risk(m, mech, (0, (), (), 1, 0))
    assert isinstance(one.adversary, Adversary)


def test_cli_json(capsys):
    assert main(CHAIN + ["--epsilon", "1", "--json", "--fpr", "0.01", "0.1"]) == 0
    out = json.loads(capsys.readouterr().out)
    m = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 8)
    r = bdpsim.attack_risk(m, LaplaceCount(1.0, counted_states=(1,)))
    assert out["advantage"] == pytest.approx(r.advantage, abs=1e-12)
    assert [row["fpr"] for row in out["tpr"]] == [0.01, 0.1]
    assert out["tpr"][0]["tpr"] == pytest.approx(r.tpr_at(0.01), abs=1e-12)
    assert out["pure_eps_advantage"] == pytest.approx(math.tanh(out["bdpl_max"] / 2))
    assert out["bdpl_max"] == pytest.approx(
        bdpsim.exact_bdpl(m, LaplaceCount(1.0, counted_states=(1,))).bdpl, abs=1e-12
    )
    assert all(row["tpr"] <= row["pure_eps_tpr"] + 1e-12 for row in out["tpr"])


def test_cli_table_and_gaussian_null(capsys):
    assert main(CHAIN + ["--epsilon", "1"]) == 0
    text = capsys.readouterr().out
    assert "advantage" in text and "FPR" in text and max(len(line) for line in text.splitlines()) <= 80
    assert main(CHAIN + ["--noise", "gaussian", "--sigma", "2", "--json", "--fpr", "0.1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bdpl_max"] is None and 0 < out["advantage"] < 1  # pure BDPL infinite; the curve is finite


@pytest.mark.parametrize(
    "argv, first",
    [
        (["--epsilon", "1", "--fpr", "0"], "bdpsim: error: --fpr = 0.0: must be in the open interval (0, 1)"),
        (["--epsilon", "1", "--fpr", "0.1", "1.5"], "bdpsim: error: --fpr = [0.1, 1.5]: must be in the open"),
        (["--noise", "gaussian"], "bdpsim: error: --sigma = None: is required for gaussian noise"),
        (["--epsilon", "-1"], "bdpsim: error: --epsilon = -1"),
        (
            ["--epsilon", "1", "--min-known", "9"],
            "bdpsim: error: --min-known = 9: must be an integer in 0..7",
        ),
    ],
)
def test_cli_bad_input_one_line(capsys, argv, first):
    assert main(CHAIN + argv) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and len(cap.err.strip().splitlines()) == 1
    assert cap.err.startswith(first), cap.err


CAL = ["calibrate", "markov", "--transition", "[[0.8,0.2],[0.3,0.7]]", "--n", "8"]


def test_calibrate_target_advantage_json(capsys):
    from bdpsim.attack.calibrate import calibrate_attack
    from bdpsim.kernels.noise.laws import LaplaceNoise
    from bdpsim.mechanisms.noisy import NoisyQueryMechanism
    from bdpsim.queries import CountQuery

    assert main(CAL + ["--target-advantage", "0.2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    m = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 8)
    ref = calibrate_attack(m, NoisyQueryMechanism(CountQuery((1,)), LaplaceNoise(1.0)), target_advantage=0.2)
    assert out["parameter"] == pytest.approx(ref.parameter, rel=1e-12)
    assert out["value"] <= 0.2 and out["saving"] >= 1


@pytest.mark.parametrize(
    "argv, first",
    [
        (
            ["--target-advantage", "1.2"],
            "bdpsim: error: --target-advantage = 1.2: must be in the open interval (0, 1)",
        ),
        (["--target-tpr", "0.2"], "bdpsim: error: --target-tpr = 0.2: needs --at-fpr F"),
        (
            ["--target-tpr", "0.2", "--at-fpr", "0"],
            "bdpsim: error: --at-fpr = 0.0: must be in the open interval",
        ),
        ([], "bdpsim: error: --epsilon = None: is required (or give --target-advantage or --target-tpr)"),
    ],
)
def test_calibrate_target_bad_input(capsys, argv, first):
    assert main(CAL + argv) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and len(cap.err.strip().splitlines()) == 1 and cap.err.startswith(first), cap.err


def test_roc_data_and_plot(tmp_path, capsys):
    """The figure's curve is the one behind the table: at the table's FPRs it is the worst TPR
    attained (and its bound), never above the pure-eps curve; ``--plot`` says which file it
    wrote and the title gives eps."""
    from bdpsim.studies.attack_roc import independent_chain, risk_roc_data, roc_data

    m = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 8)
    mech = LaplaceCount(1.0, counted_states=(1,))
    fpr = np.array([1e-3, 0.01, 0.1, 0.5])
    d = roc_data(m, mech, independent_chain(m), fpr)
    r = bdpsim.attack_risk(m, mech, bdpl=True)
    marked = risk_roc_data(r, fpr, marks=fpr)  # the table's FPRs: the worst TPR searched at each
    assert marked.worst == pytest.approx([r.worst_tpr(f).value for f in fpr], abs=1e-12)
    assert marked.upper == pytest.approx([r.worst_tpr(f).upper for f in fpr], abs=1e-12)
    assert np.all(d.worst <= marked.worst + 1e-12) and np.all(d.upper >= marked.upper - 1e-12)
    assert np.all(d.upper >= d.worst - 1e-12) and np.all(d.pure >= d.upper - 1e-12)
    assert np.all(d.independent <= d.pure + 1e-12)
    assert d.independent_advantage == pytest.approx(1 - math.exp(-0.5), abs=1e-9)  # knows all others
    out = tmp_path / "roc.png"
    assert main(CHAIN + ["--epsilon", "1", "--fpr", "0.1", "--plot", str(out)]) == 0
    cap = capsys.readouterr()
    assert out.stat().st_size > 10_000 and f"ROC figure written to {out}" in cap.err


def test_plot_curve_passes_through_the_table(tmp_path, capsys, monkeypatch):
    """The plotted curve at the table's FPRs is the table's TPR (the figure used to draw the
    max-advantage adversary's own curve instead), and the title names eps."""
    import bdpsim.figures.attack as fig

    seen = {}
    monkeypatch.setattr(
        fig, "save_attack_roc", lambda data, path, title="": seen.update(data=data, title=title)
    )
    assert (
        main(CHAIN + ["--epsilon", "1", "--fpr", "0.001", "0.1", "--plot", str(tmp_path / "r.png"), "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    data = seen["data"]
    for row in out["tpr"]:
        k = int(np.argmin(np.abs(data.fpr - row["fpr"])))
        assert data.fpr[k] == row["fpr"] and data.worst[k] == pytest.approx(row["tpr"], abs=1e-12)
    assert "eps = 1" in seen["title"]


def test_gaussian_epsilon_points_to_sigma(capsys):
    assert main(CHAIN + ["--noise", "gaussian", "--epsilon", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bdpsim: error: --epsilon = 1.0:") and "--sigma" in err[0]


def test_plot_to_a_non_image_name_is_refused_before_the_work(tmp_path, capsys):
    assert main(CHAIN + ["--epsilon", "1", "--plot", str(tmp_path / "roc.txt")]) == 2
    cap = capsys.readouterr()
    assert (
        cap.out == ""
        and cap.err.startswith("bdpsim: error: --plot = ")
        and not (tmp_path / "roc.txt").exists()
    )


def test_epsilon_past_the_floating_range(capsys):
    """eps = 800: e^eps overflows a float, yet the table is computed right (with every other record
    known the count gives x away: advantage and every TPR 1, the pure-eps bound 1); eps = 1e308
    leaves a Laplace scale whose lattice overflows: one line naming --epsilon, exit code 2."""
    assert main(CHAIN + ["--epsilon", "800", "--quiet", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["advantage"] == 1.0 and out["bdpl_max"] >= 800
    assert [(r["tpr"], r["certified"], r["pure_eps_tpr"]) for r in out["tpr"]] == [(1.0, True, 1.0)] * 3
    assert main(CHAIN + ["--epsilon", "800", "--quiet"]) == 0
    assert "pure-eps" in capsys.readouterr().out
    for flags in ([], ["--json"]):
        assert main(CHAIN + ["--epsilon", "1e308", "--quiet", *flags]) == 2
        cap = capsys.readouterr()
        assert cap.out == "" and len(cap.err.strip().splitlines()) == 1
        assert cap.err.startswith("bdpsim: error: --epsilon = 1e+308: leaves too little noise"), cap.err
    # given as a scale, the error names the flag given (it named --epsilon, which was not)
    assert main(CHAIN + ["--scale", "1e-308", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("bdpsim: error: --scale = 1e-308: leaves too little noise")


@pytest.mark.parametrize(
    "argv",
    [
        ["attack", "markov", "--epsilon", "1", "--quiet"],
        ["calibrate", "markov", "--target-advantage", "0.1"],
        ["calibrate", "markov", "--target-tpr", "0.05", "--at-fpr", "0.01"],
    ],
)
def test_ten_million_records_refused_by_the_cost_estimate(capsys, argv):
    """An attack (or a calibration to an attack target) over every adversary of 10^7 records would
    hold ~45 GiB of candidate adversaries and run for minutes: one line naming --n with the
    estimate, exit 2, before the work (bdpsim.attack.worst.check_attack_cost)."""
    chain = ["--transition", "[[0.8,0.2],[0.3,0.7]]", "--n", "10000000"]
    assert main(argv[:2] + chain + argv[2:]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and len(cap.err.strip().splitlines()) == 1
    assert cap.err.startswith("bdpsim: error: --n = 10000000: the attack over every adversary"), cap.err
    assert "GiB" in cap.err and "n <= 1789569" in cap.err


def test_the_cost_estimate_names_the_model_size_in_the_library():
    from bdpsim import ConfigError
    from bdpsim.attack.worst import check_attack_cost

    check_attack_cost(MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 1_789_569))
    big = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 1_789_570)
    with pytest.raises(ConfigError, match="model.n = 1789570"):
        check_attack_cost(big)
    with pytest.raises(ConfigError, match="model.n"):
        bdpsim.attack_risk(big, LaplaceCount(1.0, counted_states=(1,)))
