"""``bdpsim account CONFIG``: the report, --json, --plot, and one-line refusals (exit 2)."""

from __future__ import annotations

import json

import pytest

CONFIG = """title = "three geometric counts"
[model]
kind = "markov"
n = 5
gamma = 2.0

[[release]]
kind = "count"
noise = "geometric"
epsilon = 1.0
repeat = 2

[[release]]
kind = "count"
noise = "gaussian"
sigma = 2.0

[account]
epsilon = [1.0]
delta = [0.01]
alpha = [2.0]
fpr = [0.05]
"""

GAUSS = """[model]
kind = "markov"
n = 5
gamma = 2.0

[[release]]
kind = "count"
noise = "gaussian"
sigma = 2.0
repeat = 4
"""


def write(tmp_path, text, name="a.toml"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_report_json_and_plot(bdpsim_cli, tmp_path):
    cfg = write(tmp_path, GAUSS)
    r = bdpsim_cli("account", cfg, "--epsilon", "1", "--alpha", "inf", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert "not a DP guarantee" in rep["label"]
    (d1, bdpl) = rep["rows"]
    assert d1["quantity"] == "delta(1)" and d1["kind"] == "exact" and 0 < d1["value"] < 1
    assert "target record" in d1["adversary"] and "naive" in d1
    assert bdpl["quantity"] == "bdpl" and bdpl["kind"] == "exact (unbounded)"
    png = tmp_path / "p.png"
    r = bdpsim_cli("account", cfg, "--epsilon", "1", "--plot", str(png))
    assert r.returncode == 0, r.stderr
    assert png.stat().st_size > 1000
    assert "composed as if independent" in r.stdout


def test_mixed_list_is_monte_carlo_with_its_kind(bdpsim_cli, tmp_path):
    r = bdpsim_cli("account", write(tmp_path, CONFIG), "--epsilon", "1")
    assert r.returncode == 0, r.stderr
    assert "Monte Carlo 95%" in r.stdout and "width" in r.stdout


@pytest.mark.parametrize(
    "text,args,message",
    [
        (GAUSS + "\n[account]\nepsilonn = 1\n", (), "account.epsilonn = 1: unknown key"),
        (GAUSS.replace("sigma = 2.0", "sigma = 2.0\nsgma = 1"), (), "release[0].sgma = 1: unknown key"),
        (GAUSS.replace("repeat = 4", "repeat = 0"), (), "release[0].repeat = 0: must be an integer"),
        (GAUSS + "\n[account]\ndelta = [1.5]\n", (), "account.delta = 1.5: must be in the open interval"),
        (GAUSS, ("--epsilon", "-1"), "epsilon = -1.0: must be a finite number >= 0"),
        (GAUSS, ("--alpha", "1"), "alpha = 1.0: must be > 1"),
        (GAUSS, ("--plot", "x.txt"), "--plot = "),
        (GAUSS.replace('kind = "markov"', 'kind = "markov"\nbogus = 1'), (), "model.bogus = 1"),
    ],
)
def test_bad_input_is_one_line_exit_2(bdpsim_cli, tmp_path, text, args, message):
    r = bdpsim_cli("account", write(tmp_path, text), *args)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("bdpsim: error: ")
    assert message in r.stderr
    assert not (tmp_path / "x.txt").exists()
