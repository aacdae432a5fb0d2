"""``bdpsim attack config FILE.toml`` (issue 35 item 5): the worst adversary's attack on a config's
[model] and [mechanism], against :func:`bdpsim.attack_risk` in Python."""

from __future__ import annotations

import json

import pytest

import bdpsim
from bdpsim.attack.worst import worst_tpr
from bdpsim.cli import main
from bdpsim.cli.attack_config import config_pair

MRF = """title = "a small random field"
[run]
adversaries = 10
[model]
kind = "mrf"
states = 2
edges = [[0, 1], [1, 2], [2, 0], [2, 3]]
coupling = 0.8
[mechanism]
kind = "count"
epsilon = 1.0
counted_states = [1]
"""

PEDIGREE = """title = "a nuclear family"
[model]
kind = "pedigree"
family = "nuclear"
size = 3
allele_b = 0.3
[mechanism]
kind = "count"
epsilon = 0.5
counted_states = [2]
noise = "geometric"
"""


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "text, fprs",
    # a pedigree's worst TPR, computed twice here: 3 s per FPR at 3 members, 9 s at 4 (slow)
    [
        (MRF, ["0.001", "0.1"]),
        (PEDIGREE, ["0.1"]),
        pytest.param(PEDIGREE.replace("size = 3", "size = 4"), ["0.1"], marks=pytest.mark.slow),
    ],
    ids=["mrf", "pedigree", "pedigree-4"],
)
def test_config_matches_attack_risk(tmp_path, capsys, text, fprs):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    out = _json(capsys, ["attack", "config", str(cfg), "--fpr", *fprs, "--json"])
    assert [row["fpr"] for row in out["tpr"]] == [float(f) for f in fprs]
    model, mech = config_pair(str(cfg))
    risk = bdpsim.attack_risk(model, mech)
    assert out["advantage"] == pytest.approx(risk.advantage, abs=1e-12)
    assert out["adversary"]["i"] == risk.adversary.i
    for row in out["tpr"]:
        assert row["tpr"] == pytest.approx(worst_tpr(model, mech, row["fpr"]).value, abs=1e-12)
        assert row["tpr"] <= row["pure_eps_tpr"] + 1e-12
    assert out["advantage"] <= out["pure_eps_advantage"] + 1e-12
    assert out["kind"] == "exact" and "confidence" not in out


HISTOGRAM2 = """[model]
kind = "markov"
transition = [[0.8, 0.2], [0.35, 0.65]]
initial = [0.5, 0.5]
n = 3
[mechanism]
kind = "histogram"
epsilon = 1.0
"""


def test_the_histogram_past_its_box_brackets_is_attacked_by_monte_carlo(tmp_path, capsys, monkeypatch):
    """The Laplace histogram past its certified box brackets (here forced: ATTACK_MAX_N = 1; it was
    refused): the table says Monte Carlo and the confidence first, every number an estimate with its
    interval; the JSON carries the kind, the confidence and both ends, never ``certified``; the
    numbers are attack_risk's."""
    import bdpsim.accounting.boxes as boxes

    monkeypatch.setattr(boxes, "ATTACK_MAX_N", 1)
    cfg = tmp_path / "h.toml"
    cfg.write_text(HISTOGRAM2)
    assert main(["attack", "config", str(cfg), "--quiet", "--fpr", "0.05", "0.2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Monte Carlo: each interval below holds with probability at least 95%"
    assert any(ln.startswith("advantage (max TPR - FPR) ") and "[" in ln for ln in lines)
    rows = [ln.split() for ln in lines if ln.lstrip().startswith(("0.05 ", "0.2 "))]
    assert len(rows) == 2 and all(float(r[2]) <= float(r[1]) <= float(r[3]) for r in rows)
    out = _json(capsys, ["attack", "config", str(cfg), "--fpr", "0.05", "0.2", "--json"])
    assert (out["kind"], out["confidence"]) == ("Monte Carlo", 0.95)
    assert out["advantage_lower"] <= out["advantage"] <= out["advantage_upper"] <= out["pure_eps_advantage"]
    model, mech = config_pair(str(cfg))
    risk = bdpsim.attack_risk(model, mech, fpr=(0.05, 0.2), bdpl=True)
    assert out["advantage"] == risk.advantage and out["bdpl_max"] == risk.bdpl_max
    for row, w in zip(out["tpr"], risk.worst_tprs([0.05, 0.2])):
        assert (row["lower"], row["tpr"], row["upper"]) == (w.lower, w.value, w.upper)
        assert row["lower"] <= row["tpr"] <= row["upper"] <= row["pure_eps_tpr"] and not row["certified"]


def test_bundled_network_with_one_epsilon(capsys):
    out = _json(capsys, ["attack", "config", "bayesnet_example", "--epsilon", "1", "--json"])
    model, mech = config_pair("bayesnet_example", 1.0)
    assert mech.epsilon == 1.0
    risk = bdpsim.attack_risk(model, mech)
    assert out["advantage"] == pytest.approx(risk.advantage, abs=1e-12)
    assert out["bdpl_max"] == pytest.approx(bdpsim.exact_bdpl(model, mech).bdpl, abs=1e-12)
    assert 0 < out["advantage"] < out["pure_eps_advantage"]


@pytest.mark.parametrize(
    "argv, field",
    [
        (["bayesnet_example"], "mechanism.epsilon"),  # sweeps epsilon: named, not "mechanism"
        (["bayesnet_example", "--epsilon", "1", "--fpr", "1.5"], "--fpr"),
        (["bayesnet_example", "--epsilon", "-1"], "--epsilon"),
        (["bayesnet_example", "--epsilon", "1", "--min-known", "99"], "--min-known"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, field):
    assert main(["attack", "config", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"bdpsim: error: {field} = "), err


def test_records_and_states_named_in_the_model_words(tmp_path, capsys):
    """A BIF network: the attacked record and its states by their names beside the indices, in the
    table and the JSON (it printed ``i=1, x=1, x'=0``: bdpsim's node order, state indices)."""
    from pathlib import Path

    bif = Path(__file__).resolve().parents[1] / "data" / "weather.bif"
    (tmp_path / "weather.bif").write_text(bif.read_text())
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        f'title = "weather"\n[model]\nkind = "bayesnet"\nbif = "{tmp_path / "weather.bif"}"\n'
        '[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = [1]\n'
    )
    out = _json(capsys, ["attack", "config", str(cfg), "--fpr", "0.01", "--json"])
    adv = out["adversary"]
    names = ["Rain", "Wind", "Cloud", "Umbrella"]  # bdpsim's order: topological, ties by name
    assert adv["i_name"] == names[adv["i"]] and adv["known_names"] == [names[k] for k in adv["known"]]
    assert {adv["x_name"], adv["x_prime_name"]} <= {
        "no",
        "yes",
        "low",
        "mid",
        "high",
        "clear",
        "some",
        "overcast",
    }
    assert "i_name" in out["tpr"][0]["adversary"]
    assert main(["attack", "config", str(cfg), "--fpr", "0.01"]) == 0
    text = capsys.readouterr().out
    assert f"record {adv['i_name']} (i = {adv['i']}), x = {adv['x_name']} ({adv['x']})" in text


def test_karate_club_is_refused_by_the_search_estimate_before_the_work(capsys):
    """The bundled karate club (34 members) has too many adversaries for the exact search: refused
    in one line, exit 2, from the engine's estimate before any search (was: after 120 s)."""
    import time

    t0 = time.process_time()
    assert main(["attack", "config", "mrf_karate", "--quiet"]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and len(cap.err.strip().splitlines()) == 1
    assert cap.err.startswith("bdpsim: error: ") and "refused up front" in cap.err, cap.err
    assert time.process_time() - t0 < 30  # ~2 s of CPU: an estimate, not the search
    # the advice is this command's (it advised run.adversaries, a key attack config ignores)
    assert "run.adversaries" not in cap.err and "--min-known" in cap.err


CONTINUAL = """title = "four k-RR releases of a 2-state chain"
[model]
kind = "markov"
n = 4
transition = [[0.8, 0.2], [0.3, 0.7]]
[mechanism]
kind = "continual"
release = "krr"
epsilon = 1.0
"""


def test_a_continual_config_is_attacked_as_a_local_release(tmp_path, capsys):
    """``attack config`` of a continual config (no ``[run]``: it failed on the default ``kde``
    estimator, and with ``estimator = "exact"`` on ``attack_risk``'s BDPL) reports the advantage as
    :func:`bdpsim.attack_risk`'s certified bracket and each TPR as its certified bracket; a
    ``--plot`` (no curve to draw) is refused before the work."""
    cfg = tmp_path / "c.toml"
    cfg.write_text(CONTINUAL)
    out = _json(capsys, ["attack", "config", str(cfg), "--fpr", "0.01", "0.1", "--json", "--quiet"])
    model, mech = config_pair(str(cfg))
    risk = bdpsim.attack_risk(model, mech, sizes=(0, 1, 2, 3), fpr=(0.01, 0.1))  # as the command asks
    assert out["advantage"] == {
        "low": risk.advantage.low,
        "high": risk.advantage.high,
        "kind": "certified bracket",
    }
    assert abs(out["advantage"]["high"] - 0.4749629775214) < 1e-9 and risk.advantage.width < 1e-6
    # each TPR was the profile's upper bound; now the worst adversary's own most powerful test
    assert [(t["low"], t["high"]) for t in out["tpr"]] == [
        (b.low, b.high) for b in risk.worst_tprs([0.01, 0.1])
    ]
    assert {t["kind"] for t in out["tpr"]} == {"certified bracket"} and out["adversary"]["i"] == 2
    assert all(t["high"] - t["low"] <= 1e-6 and t["adversary"] is not None for t in out["tpr"])
    assert main(["attack", "config", str(cfg), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "[0.474963, 0.474963] (certified bracket" in text and "its own most powerful test" in text
    assert main(["attack", "config", str(cfg), "--plot", str(tmp_path / "r.png")]) == 2
    assert "--plot" in capsys.readouterr().err and not (tmp_path / "r.png").exists()


def test_a_model_of_a_billion_records_is_refused_in_one_line(tmp_path, capsys):
    """``validate`` and ``attack config`` of a chain of 10^9 records listed every known-set size
    (gigabytes, no answer in 30 s); both now refuse ``model.n`` in one line. A Gaussian continual
    config's attack is refused without the run estimators' advice."""
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        CONTINUAL.replace("n = 4", "n = 1000000000")
        .replace('kind = "continual"', 'kind = "count"')
        .replace('release = "krr"\n', "")
    )
    for argv in (["validate", str(cfg)], ["attack", "config", str(cfg), "--quiet"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("bdpsim: error: model.n = 1000000000: must be at most")
    cfg.write_text(
        CONTINUAL.replace(
            'release = "krr"\nepsilon = 1.0', 'release = "gaussian"\nsigma = 1.0\nstate_values = [0, 1]'
        )
    )
    assert main(["attack", "config", str(cfg), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "BDPL is +inf" in err and "use estimator" not in err and err.count("\n") == 1


def test_what_the_worst_adversary_knows_is_said_in_the_model_words():
    """The table says which records the worst adversary knows and their values (it printed only
    ``|K| = 2``): a chain's runs of consecutive records with one value together; a network's records
    and states by their names; past twelve items, how many more."""
    from bdpsim.adversary import Adversary
    from bdpsim.cli.attack_report import known_words

    from ..conftest import TEST_DATA

    chain = bdpsim.MarkovChainModel([[0.8, 0.2], [0.3, 0.7]], n=9)
    adv = Adversary(5, (0, 1, 2, 4, 6, 7), (1, 1, 0, 0, 0, 0), 0, 1)
    assert known_words(chain, adv) == "knows records 0-1 = 1, 2 = 0, 4 = 0, 6-7 = 0"
    assert known_words(chain, Adversary(5, (), (), 0, 1)) == "knows no other record"
    assert known_words(chain, Adversary(5, (8,), (1,), 0, 1)) == "knows record 8 = 1"
    alternating = Adversary(0, tuple(range(1, 15)), tuple(k % 2 for k in range(1, 15)), 0, 1)
    long = bdpsim.MarkovChainModel([[0.8, 0.2], [0.3, 0.7]], n=15)
    assert known_words(long, alternating).endswith("12 = 0 and 2 more (--json lists them)")
    pytest.importorskip("pgmpy")
    from bdpsim.models.bayesnet.build import from_bif

    net = from_bif(TEST_DATA / "weather.bif")  # Rain, Wind, Cloud, Umbrella
    assert known_words(net, Adversary(2, (0, 1), (1, 0), 0, 1)) == "knows Rain = yes, Wind = low"


def test_config_of_releases_is_refused_naming_bdpsim_account(tmp_path, capsys):
    """A file with [[release]] tables (an accountant config), with or without a [mechanism]: one
    line naming ``release`` and ``bdpsim account`` (they were ignored: the [mechanism] attacked
    alone)."""
    for mech in ('[mechanism]\nkind = "count"\nepsilon = 1.0\n', ""):
        cfg = tmp_path / "r.toml"
        cfg.write_text(
            HISTOGRAM2.split("[mechanism]")[0] + mech + '[[release]]\nkind = "count"\nepsilon = 1.0\n'
        )
        assert main(["attack", "config", str(cfg), "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("bdpsim: error: release = ") and "bdpsim account" in err[0]


def test_gaussian_noise_config_is_attacked(tmp_path, capsys):
    """A config's count with Gaussian noise (no pure DP) is attacked as ``attack markov --noise
    gaussian`` attacks it (it was refused, advising a [run] key the command ignores): the JSON's
    ``bdpl_max`` is null (infinite), the numbers attack_risk's."""
    cfg = tmp_path / "g.toml"
    cfg.write_text(
        HISTOGRAM2.split("[mechanism]")[0] + '[mechanism]\nkind = "count"\nnoise = "gaussian"\nsigma = 1.0\n'
    )
    out = _json(capsys, ["attack", "config", str(cfg), "--fpr", "0.1", "--json"])
    model, mech = config_pair(str(cfg))
    risk = bdpsim.attack_risk(model, mech, fpr=(0.1,))
    assert out["bdpl_max"] is None and out["kind"] == "exact"
    assert out["advantage"] == risk.advantage and out["tpr"][0]["tpr"] == risk.worst_tpr(0.1).value


def test_an_unwritable_plot_path_is_refused_before_the_work(tmp_path, capsys):
    """``--plot`` below a file: one line naming --plot before any work (it computed the attack, then
    failed naming the path)."""
    (tmp_path / "afile").write_text("")
    cfg = tmp_path / "h.toml"
    cfg.write_text(HISTOGRAM2)
    assert main(["attack", "config", str(cfg), "--quiet", "--plot", str(tmp_path / "afile" / "x.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bdpsim: error: --plot = "), err
