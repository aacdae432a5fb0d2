"""``bdpsim calibrate``: JSON object, every method, one-line errors; the window engine in runs."""

import json

import pytest

import bdpsim
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_experiment

ACTIVITY = "[[0.882,0.118],[0.305,0.695]]"


def test_json_object_exact(bdpsim_cli):
    p = bdpsim_cli("calibrate", "markov", "--transition", ACTIVITY, "--n", "40", "--epsilon", "1", "--json")
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert obj["method"] == "exact" and obj["n"] == 40 and obj["epsilon"] == 1.0
    assert obj["bdpl"] == pytest.approx(1.0, abs=1e-8) and 3.9 < obj["scale"] < 4.1


def test_unreachable_method_says_so_with_null_scale(bdpsim_cli):
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        ACTIVITY,
        "--n",
        "40",
        "--epsilon",
        "1",
        "--method",
        "markov",
        "--json",
    )
    assert p.returncode == 0
    obj = json.loads(p.stdout)
    assert obj["scale"] is None and obj["bdpl"] is None and "4 ln gamma" in obj["reason"]


def test_h1_violating_chain_still_calibrates_exactly(bdpsim_cli):
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        "[[0.9,0.1],[0.0,1.0]]",
        "--initial",
        "1",
        "0",
        "--n",
        "12",
        "--epsilon",
        "1",
        "--method",
        "all",
        "--json",
    )
    assert p.returncode == 0, p.stderr
    rows = {r["method"]: r for r in json.loads(p.stdout)}
    assert rows["exact"]["scale"] is not None and rows["exact"]["bdpl"] <= 1 + 1e-9
    assert rows["markov"]["scale"] is None and "(H1)" in rows["markov"]["reason"]


@pytest.mark.parametrize(
    "args,field",
    [
        (["--transition", "abc", "--n", "5", "--epsilon", "1"], "--transition"),
        (["--transition", "[[0.5,0.6],[0.3,0.7]]", "--n", "5", "--epsilon", "1"], "--transition"),
        (["--gamma", "5", "--n", "1", "--epsilon", "1"], "--n"),
        (["--gamma", "5", "--n", "5", "--epsilon", "-1"], "--epsilon"),
        (["--gamma", "5", "--n", "5", "--epsilon", "1", "--method", "magic"], "--method"),
        (["--gamma", "5", "--n", "5", "--epsilon", "1", "--counted", "7"], "--counted"),
    ],
)
def test_bad_arguments_one_line_exit_2(args, field, bdpsim_cli):
    p = bdpsim_cli("calibrate", "markov", *args)
    assert p.returncode == 2 and field in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "Traceback" not in p.stderr and p.stdout == ""


def test_python_api_calibrate():
    chain = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(3.0), n=10)
    c = bdpsim.calibrate(chain, 1.0)
    assert c.bdpl == pytest.approx(1.0, abs=1e-8)
    assert bdpsim.exact_bdpl(chain, bdpsim.LaplaceCount(1.0 / c.scale)).bdpl == pytest.approx(1.0, abs=1e-8)


def test_run_searches_window_adversaries_and_agrees_with_enumeration(tmp_path):
    doc = {
        "run": {
            "adversaries": "all",
            "estimator": "exact",
            "known_sizes": ["thesis"][0],
            "exhaustive_method": ["window", "enumerate"],
            "adversary_rows": 3,
        },
        "model": {
            "kind": "markov",
            "n": 7,
            "transition": [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]],
            "initial": [1.0, 0.0, 0.0],
        },
        "mechanism": {"kind": "count", "epsilon": 1.0, "counted_states": [0, 2]},
    }
    rows = run_experiment(parse_config(doc), tmp_path, progress=False)
    assert rows[0]["bdpl_exact"] == pytest.approx(rows[1]["bdpl_exact"], abs=1e-12)


def test_state_sum_on_a_chain_runs_exactly(tmp_path):
    doc = {
        "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all"},
        "model": {"kind": "markov", "n": 300, "transition": [[0.882, 0.118], [0.305, 0.695]]},
        "mechanism": {"kind": "sum", "state_values": [0.0, 2.0], "epsilon": 1.0},
    }
    rows = run_experiment(parse_config(doc), tmp_path, progress=False)
    # 2 x count + Lap(2/1): scaling query and noise together leaves the BDPL unchanged: the count with b = 1
    count = bdpsim.exact_bdpl(
        bdpsim.MarkovChainModel([[0.882, 0.118], [0.305, 0.695]], 300), bdpsim.LaplaceCount(1.0)
    )
    assert rows[0]["bdpl_exact"] == pytest.approx(count.bdpl, abs=1e-12)
    assert rows[0]["bdpl_exact"] == pytest.approx(3.4749, abs=1e-4)  # window 7 | 7, any n >= 20


def test_sum_without_state_values_on_a_chain_is_refused():
    doc = {
        "run": {"adversaries": 5},
        "model": {"kind": "markov", "n": 5, "gamma": 2.0},
        "mechanism": {"kind": "sum", "noise_scale": 1.0},
    }
    with pytest.raises(bdpsim.ConfigError, match="mechanism.state_values"):
        parse_config(doc)


@pytest.mark.parametrize(
    "method,scale",
    [
        ("markov-quilt-approx", 18.983096),
        ("markov-quilt-exact", 9.337396),
        ("wasserstein", 4.0),
        ("group", 100.0),
    ],
)
def test_competing_methods_json(method, scale, bdpsim_cli):
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        "[[0.75,0.25],[0.25,0.75]]",
        "--n",
        "100",
        "--epsilon",
        "1",
        "--method",
        method,
        "--json",
    )
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert obj["method"] == method and obj["scale"] == pytest.approx(scale, abs=1e-6)
    chain = bdpsim.MarkovChainModel([[0.75, 0.25], [0.25, 0.75]], 100)
    assert obj["bdpl"] == pytest.approx(
        bdpsim.exact_bdpl(chain, bdpsim.LaplaceCount(1 / obj["scale"])).bdpl, abs=1e-12
    )


def test_not_eps_bdp_is_flagged(bdpsim_cli):
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        ACTIVITY,
        "--n",
        "100",
        "--epsilon",
        "10",
        "--method",
        "markov-quilt-exact",
    )
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "query: count of records in states [1] (default)"  # issue 38: the query calibrated
    assert lines[2].startswith("markov-quilt-exact") and "NOT eps-BDP" in lines[2]


def test_optimal_method_json_and_all(bdpsim_cli):
    """Issue 30: --method optimal prints mean_abs, variance, bdpl and the noise table; --method all
    gives every row its E|Z|, the optimal one the least among the eps-BDP ones."""
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        ACTIVITY,
        "--n",
        "6",
        "--epsilon",
        "1",
        "--method",
        "optimal",
        "--json",
    )
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert obj["method"] == "optimal" and obj["scale"] is None and obj["bdpl"] <= 1.0
    assert set(obj["noise"]) == {"offset", "pmf", "tail_ratio"} and 2.8 < obj["mean_abs"] < 2.9
    assert obj["variance"] > 0
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        ACTIVITY,
        "--n",
        "6",
        "--epsilon",
        "1",
        "--method",
        "optimal",
        "--objective",
        "variance",
        "--json",
    )
    var = json.loads(p.stdout)
    assert var["objective"] == "variance" and var["variance"] <= obj["variance"] + 1e-9
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        ACTIVITY,
        "--n",
        "6",
        "--epsilon",
        "1",
        "--method",
        "all",
        "--json",
    )
    rows = {
        (r["method"], r.get("noise", "laplace") if r["method"] != "optimal" else "table"): r
        for r in json.loads(p.stdout)
    }
    ok = [r["mean_abs"] for r in rows.values() if r.get("mean_abs") is not None and r["bdpl"] <= 1 + 1e-9]
    assert rows[("optimal", "table")]["mean_abs"] == min(ok)
    assert rows[("exact", "laplace")]["mean_abs"] == rows[("exact", "laplace")]["scale"]
    assert rows[("exact", "geometric")]["mean_abs"] == pytest.approx(3.0662, abs=1e-4)  # issue 30's number
    assert ("exact", "staircase") in rows
