"""``bdpsim calibrate``: JSON object, every method, one-line errors; the window engine in runs."""

import json
import re

import pytest

import bdpsim
from bdpsim.calibration.target import MAX_EPSILON, MIN_STAIRCASE_EPSILON, OPTIMAL_EPSILON
from bdpsim.core.errors import ConfigError
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_experiment

from ..support.bad_config import calibrate
from ..support.bad_input import one_line

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


def test_one_indexing_convention_in_calibrate(capsys):
    rc, out, err = calibrate(capsys, "--gamma", "5", "--n", "12", "--epsilon", "1", "--method", "all")
    assert rc == 0, err
    assert "1-indexed" not in out and out.count("(0-indexed)") >= 2


def test_ctrl_c_during_calibrate(bdpsim_cli, monkeypatch):
    import bdpsim.calibration

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(bdpsim.calibration, "calibrate", interrupted)
    p = bdpsim_cli("calibrate", "markov", "--gamma", "3", "--n", "10", "--epsilon", "1")
    one_line(p, "interrupted", code=130)
    assert p.stdout == ""


def test_calibrate_markov_does_not_promise_laplace_only(bdpsim_cli):
    p = bdpsim_cli("calibrate", "markov", "--help")
    assert (
        p.returncode == 0 and "+ Laplace noise" not in p.stdout and "--noise" in p.stdout.split("options:")[0]
    )


def test_calibrate_flags_not_eps_bdp_in_its_own_column(bdpsim_cli):
    p = bdpsim_cli(
        "calibrate", "markov", "--transition", ACTIVITY, "--n", "20", "--epsilon", "10", "--method", "all"
    )
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("query: ") and lines[1].split()[-1] == "eps-BDP?"  # issue 38: the query first
    row = {line.split()[0]: line for line in lines[2:] if not line.startswith(" ")}
    assert row["markov-quilt-exact"].endswith("NOT eps-BDP") and row["exact"].endswith("yes")
    assert row["zhao"].endswith("n/a")
    assert max(map(len, lines)) <= 80


def test_calibrate_json_has_is_bdp(bdpsim_cli):
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        ACTIVITY,
        "--n",
        "20",
        "--epsilon",
        "10",
        "--method",
        "all",
        "--json",
    )
    rows = {r["method"]: r for r in json.loads(p.stdout)}
    assert rows["markov-quilt-exact"]["is_bdp"] is False and rows["exact"]["is_bdp"] is True
    assert rows["zhao"]["is_bdp"] is None


CHAIN = ["markov", "--gamma", "3", "--n", "6"]


CHAIN3 = """[model]
kind = "markov"
n = 6
transition = [[0.5, 0.3, 0.2], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]]

[mechanism]
kind = "count"
epsilon = EPS
counted_states = [2]
"""


NETWORK = """[model]
kind = "bayesnet"
states = 2
parents = [[], [0], [0], [1, 2]]
cpt = [[0.6, 0.4], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.25, 0.75]],
       [[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]]]
"""


EXTREMES = [  # (flags after 'calibrate', field named)
    *[
        (CHAIN + ["--epsilon", e, "--method", m], "--epsilon")
        for e in ("1e-12", "1e-6", "700", "710", "1e308")
        for m in ("optimal", "all")
    ],
    *[
        (CHAIN + ["--epsilon", e, "--method", m], "--epsilon")
        for e in ("710", "1e308")
        for m in ("exact", "general", "markov", "zhao", "wasserstein", "markov-quilt-exact", "dp", "group")
    ],
    *[
        (CHAIN + ["--epsilon", e, "--noise", law], "--epsilon")
        for e in ("1e-12", "1e-6", "710", "1e308")
        for law in ("staircase",)
    ],
    *[(CHAIN + ["--epsilon", e, "--noise", "geometric"], "--epsilon") for e in ("710", "1e308")],
    *[(CHAIN + ["--epsilon", e], "--epsilon") for e in ("inf", "nan", "0", "-1")],
    *[
        (["config", "{chain}", "--epsilon", e, "--method", m], "--epsilon")
        for e in ("1e-12", "1e-6", "700", "710", "1e308")
        for m in ("optimal", "all")
    ],
    *[
        (["config", "{chain}", "--epsilon", e, "--noise", law], "--epsilon")
        for e in ("710", "1e308")
        for law in ("laplace", "geometric", "staircase")
    ],
    *[
        (["config", "{chain}", "--epsilon", e, "--noise", "staircase"], "--epsilon")
        for e in ("1e-12", "1e-6")
    ],
    *[
        (["config", "{network}", "--epsilon", e, "--method", m], "--epsilon")
        for e in ("1e-12", "1e-6", "700", "710", "1e308")
        for m in ("optimal", "exact")
        if not (m == "exact" and float(e) <= MAX_EPSILON)
    ],
    *[
        (["config", "{network}", "--epsilon", e, "--noise", "staircase"], "--epsilon")
        for e in ("1e-12", "1e-6")
    ],
    *[(["config", "{network}", "--epsilon", e], "--epsilon") for e in ("inf", "nan", "0", "-1")],
    (["config", "{eps710}"], "mechanism.epsilon"),  # the config's own target, named by its key
    (["config", "{eps1e-6}", "--method", "optimal"], "mechanism.epsilon"),
    (CHAIN + ["--epsilon", "1", "--min-known", "-1"], "--min-known"),
    (["config", "{chain}", "--epsilon", "1", "--min-known", "-1"], "--min-known"),
]


@pytest.fixture
def configs(tmp_path):
    out = {"network": tmp_path / "net.toml", "chain": tmp_path / "chain.toml"}
    out["network"].write_text(NETWORK)
    out["chain"].write_text(CHAIN3.replace("EPS", "1.0"))
    for e in ("710", "1e-6"):
        out[f"eps{e}"] = tmp_path / f"eps{e}.toml"
        out[f"eps{e}"].write_text(CHAIN3.replace("EPS", e if "." in e or "e" in e else e + ".0"))
    return {k: str(v) for k, v in out.items()}


@pytest.mark.parametrize("args,field", EXTREMES, ids=[" ".join(a) for a, _ in EXTREMES])
def test_extreme_flags_one_line_exit_2(args, field, configs, bdpsim_cli):
    p = bdpsim_cli("calibrate", *[a.format(**configs) for a in args])
    assert p.returncode == 2, (p.stdout, p.stderr)
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"bdpsim: error: {field} = ") and p.stdout == ""


def test_the_ranges_are_the_edges_of_what_runs(bdpsim_cli):
    """The rules refuse only what fails: the largest eps runs for exact Laplace, geometric and
    staircase noise, the least staircase eps and the largest optimal one run."""
    lo, hi = OPTIMAL_EPSILON
    for args in (
        ["--epsilon", f"{MAX_EPSILON:g}"],
        ["--epsilon", f"{MAX_EPSILON:g}", "--noise", "geometric"],
        ["--epsilon", f"{MAX_EPSILON:g}", "--noise", "staircase"],
        ["--epsilon", f"{MIN_STAIRCASE_EPSILON:g}", "--noise", "staircase"],
        ["--epsilon", f"{hi:g}", "--method", "optimal"],
    ):
        p = bdpsim_cli("calibrate", *CHAIN, *args, "--json")
        assert p.returncode == 0, (args, p.stderr)
        obj = json.loads(p.stdout)
        assert obj["is_bdp"] is True, (args, obj)


def test_library_refuses_the_same(tmp_path):
    chain = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(3.0), n=6)
    for eps, method, noise in [
        (710.0, "exact", "laplace"),
        (1e-12, "optimal", "laplace"),
        (700.0, "optimal", "laplace"),
        (1e-6, "exact", "staircase"),
    ]:
        with pytest.raises(ConfigError, match=r"^epsilon = "):
            bdpsim.calibrate(chain, eps, method=method, noise=noise)


def _rows(text: str) -> dict:
    return {
        ln.split()[0] + ("/" + ln.split()[1] if ln.split()[0] == "exact" else ""): ln
        for ln in text.splitlines()
        if ln and not ln.startswith((" ", "query", "method", "note"))
    }


def test_optimal_verdict_agrees_with_json(bdpsim_cli):
    """Item 8: --method optimal printed 'eps-BDP? n/a' for verified noise while its JSON said true."""
    args = ["calibrate", *CHAIN, "--epsilon", "1", "--method", "optimal"]
    table, js = bdpsim_cli(*args), bdpsim_cli(*args, "--json")
    assert json.loads(js.stdout)["is_bdp"] is True
    row = [ln for ln in table.stdout.splitlines() if ln.startswith("optimal")][0]
    assert row.endswith("  yes")


def test_amount_column_is_what_help_says(configs, bdpsim_cli):
    """Item 8: the amount of geometric and staircase noise is Delta / (DP eps), as --help now says
    (it said the amount was the DP epsilon); the DP eps is its own column, equal to the JSON's
    parameter."""
    help_text = " ".join(bdpsim_cli("calibrate", "config", "--help").stdout.split())
    assert (
        "column amount is the Laplace scale b, or Delta/eps' for geometric and staircase noise" in help_text
    )
    js = json.loads(
        bdpsim_cli(
            "calibrate", "config", configs["network"], "--epsilon", "1", "--method", "all", "--json"
        ).stdout
    )
    table = _rows(
        bdpsim_cli("calibrate", "config", configs["network"], "--epsilon", "1", "--method", "all").stdout
    )
    for r in js:
        if r["method"] == "exact" and r.get("noise") in ("geometric", "staircase"):
            cells = table[f"exact/{r['noise']}"].split()
            amount, dp = float(cells[2]), float(cells[3])
            assert amount == pytest.approx(r["scale"], rel=1e-4) and dp == pytest.approx(
                r["parameter"], rel=1e-3
            )
            assert amount * dp == pytest.approx(1.0, rel=1e-3)  # Delta = 1: the DP adversary leaks 1 / amount
    sums = _rows(
        bdpsim_cli(
            "calibrate", "config", configs["chain"], "--state-values", "0", "1", "3", "--noise", "geometric"
        ).stdout
    )["exact/geometric"].split()
    assert float(sums[2]) * float(sums[3]) == pytest.approx(3.0, rel=1e-3)  # Delta = 3
    lap = table["exact/laplace"].split()
    assert re.fullmatch(r"[0-9.]+", lap[2]) and float(lap[3]) == pytest.approx(
        float(lap[2]), rel=1e-4
    )  # E|Z| = b


def test_printed_amounts_are_rounded_toward_more_noise(capsys):
    """A calibrated amount is printed rounded toward safety: the gamma = 2 chain at n = 40 needs
    the Laplace scale 1.9417513..., printed 1.94176 (to nearest, 1.94175: less noise than
    calibrated, its BDPL above the target); a DP epsilon is rounded down. The JSON keeps every
    digit."""
    from bdpsim.cli import main
    from bdpsim.cli.calibrate_report import safe_amount

    args = ["calibrate", "markov", "--gamma", "2", "--n", "40", "--epsilon", "1"]
    assert main([*args, "--json"]) == 0
    scale = json.loads(capsys.readouterr().out)["scale"]
    assert main(args) == 0
    printed = float(capsys.readouterr().out.splitlines()[2].split()[1])
    assert printed >= scale and printed == pytest.approx(scale, rel=1e-5) and f"{scale:.6g}" == "1.94175"
    assert safe_amount(0.5149996, grows=False) == "0.514999" and safe_amount(0.5149996) == "0.515"
    assert safe_amount(9.9999991) == "10" and safe_amount(2.0, grows=False) == "2"
