"""Issue 38 items 8 and 11 (calibrate): labels that agree with the JSON and --help, and extreme
flag values answered in one line.

Every probe below ended at 72aee1f in a bare ValueError / OverflowError / MemoryError traceback or
ran past minutes (the optimal LP at a very small or very large eps, staircase noise at a tiny eps,
any method past e^eps overflow); each is now ``bdpsim: error: FIELD = VALUE: RULE``, exit 2.
"""

import json
import re

import pytest

import bdpsim
from bdpsim.calibration.target import MAX_EPSILON, MIN_STAIRCASE_EPSILON, OPTIMAL_EPSILON
from bdpsim.core.errors import ConfigError

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
