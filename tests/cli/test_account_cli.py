"""``bdpsim account CONFIG``: the report, --json, --plot, and one-line refusals (exit 2)."""

from __future__ import annotations

import json
import math

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


def test_json_is_strict_json_with_an_unbounded_bdpl_as_null(bdpsim_cli, tmp_path):
    """An infinite BDPL (Gaussian noise) was printed as ``Infinity``, which JSON does not have (a
    strict parser refuses the document); it is ``null`` beside its kind ``exact (unbounded)``."""

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    r = bdpsim_cli("account", write(tmp_path, GAUSS), "--alpha", "inf", "--json")
    assert r.returncode == 0, r.stderr
    (bdpl,) = json.loads(r.stdout, parse_constant=refuse)["rows"]
    assert bdpl["kind"] == "exact (unbounded)" and bdpl["value"] is None and bdpl["width"] is None


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
        (GAUSS, ("--epsilon", "-1"), "epsilon = -1.0: must be a finite number in [0, 100]"),
        (GAUSS, ("--epsilon", "800"), "epsilon = 800.0: must be a finite number in [0, 100]"),
        (GAUSS, ("--alpha", "1"), "alpha = 1.0: must be > 1"),
        (GAUSS, ("--plot", "x.txt"), "--plot = "),
        # refused before the work (was: the account computed, then a temporary file's name; and
        # --plot "" wrote nothing and said nothing)
        (GAUSS, ("--plot", "/proc/p.png"), "--plot = '/proc/p.png': cannot write in /proc"),
        (GAUSS, ("--plot", ""), "--plot = '': must end in one of"),
        (
            GAUSS + "\n[account]\nsizes = [-1]\n",
            (),
            "account.sizes = [-1]: sizes must be in 0..n-1",
        ),  # was run.known_sizes
        (GAUSS.replace('kind = "markov"', 'kind = "markov"\nbogus = 1'), (), "model.bogus = 1"),
        # a [[release]] table's values named as release[j] (were mechanism.sigma, mechanism.noise)
        (GAUSS.replace("sigma = 2.0", "sigma = -1.0"), (), "release[0].sigma = -1.0: must be"),
        (GAUSS.replace('"gaussian"', '"laplce"'), (), "release[0].noise = 'laplce': must be one of"),
        (
            GAUSS + '\n[[release]]\nkind = "count"\nnoise = "laplace"\nepsilon = 1.0\ncounted_states = [5]\n',
            (),
            "release[1].counted_states = [5]",
        ),
        # too little noise: was NaN printed as a certified bracket (Laplace), a traceback (staircase)
        (
            GAUSS.replace('noise = "gaussian"\nsigma = 2.0', 'noise = "laplace"\nepsilon = 1e308'),
            (),
            "release[0].noise = 'count of 1 + laplace(scale = 1e-308)': leaves too little noise",
        ),
        (
            GAUSS.replace('noise = "gaussian"\nsigma = 2.0', 'noise = "staircase"\nepsilon = 1e4'),
            (),
            "release[0].epsilon = 10000.0: must be at most 700",
        ),
        (GAUSS.split("[[release]]")[0], (), "[[release]] = None: is required: one [[release]] table"),
    ],
)
def test_bad_input_is_one_line_exit_2(bdpsim_cli, tmp_path, text, args, message):
    r = bdpsim_cli("account", write(tmp_path, text), *args)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("bdpsim: error: ")
    assert message in r.stderr
    assert not (tmp_path / "x.txt").exists()


LOCAL = """title = "a local k-RR release"
[model]
kind = "markov"
n = 5
transition = [[0.8, 0.2], [0.3, 0.7]]

[[release]]
kind = "local"
randomiser = "krr"
epsilon = 1.0

[account]
epsilon = [1.0]
delta = [0.01]
alpha = [inf]
fpr = [0.05]
"""


def test_a_local_release_in_process(tmp_path, capsys):
    from bdpsim.cli import main

    assert main(["account", write(tmp_path, LOCAL), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["releases"] == ["local release of every record through k-RR (epsilon = 1)"]
    d1, e, bdpl, tpr = rep["rows"]
    # was not available, then the profile's bracket [0.178, 0.322]; now the worst adversary's own
    # most powerful test (brute force over every sequence: tests/accounting/test_local_release.py)
    assert tpr["quantity"] == "tpr_at(0.05)" and tpr["kind"] == "exact"
    assert abs(tpr["value"] - 0.3207287142591) < 1e-12
    assert tpr["adversary"] == "target record 2: 1 vs 0; knows no record"
    assert e["adversary"] == "target record 2: 1 vs 0; knows no record"
    # the pinned values of tests/accounting/test_local_release.py (brute force over every sequence)
    assert d1["quantity"] == "delta(1)" and d1["kind"] == "exact"
    assert abs(d1["value"] - 0.2081729328393) < 1e-12
    assert d1["adversary"] == "target record 2: 1 vs 0; knows no record"
    assert bdpl["quantity"] == "bdpl" and abs(bdpl["value"] - 2.4079997355977) < 1e-12
    assert e["quantity"] == "epsilon(0.01)" and e["width"] <= 1e-6
    matrix = LOCAL.replace(
        'randomiser = "krr"\nepsilon = 1.0',
        'randomiser = "matrix"\nlikelihoods = [[0.8, 0.2], [0.2, 0.8]]\nname = "flip 0.2"',
    )
    assert main(["account", write(tmp_path, matrix), "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    assert "releases (1): flip 0.2" in out and "delta(1)" in out and "exact" in out


@pytest.mark.parametrize(
    "old,new,message",
    [
        (
            "epsilon = 1.0\n\n[account]",
            "epsilon = 0\n\n[account]",
            "release[0].epsilon = 0: k-RR needs an epsilon: must be a number in [1e-09, 700]",
        ),
        (
            "epsilon = 1.0\n\n[account]",
            "epsilon = 800\n\n[account]",
            "release[0].epsilon = 800: k-RR needs an epsilon: must be a number in [1e-09, 700]",
        ),
        ("n = 5", "n = 1000000000", "model.n = 1000000000: the accountant takes at most 1,000,000 records"),
        (
            'randomiser = "krr"',
            'randomiser = "rr"',
            "release[0].randomiser = 'rr': must be 'krr' or 'matrix'",
        ),
        (
            'randomiser = "krr"',
            'randomiser = "krr"\nflip = 0.2',
            "release[0].flip = 0.2: is not a key of a local release",
        ),
        (
            'randomiser = "krr"\nepsilon = 1.0',
            'randomiser = "matrix"\nlikelihoods = [[0.7, 0.3], [0.2, 0.8], [0.5, 0.5]]',
            "release[0].likelihoods = [3, 2]: needs one row per record state (2)",
        ),
        (
            'randomiser = "krr"\nepsilon = 1.0',
            'randomiser = "matrix"\nlikelihoods = [[0.7, 0.4], [0.2, 0.8]]',
            "release[0].likelihoods = [1.1, 1.0]: each row must sum to 1",
        ),
        (
            'randomiser = "krr"\nepsilon = 1.0',
            'randomiser = "matrix"',
            "release[0].likelihoods = None: is required",
        ),
        (  # was "release[0].mechanism = 'list': must be 'krr', 'any', ...": a field not in the file
            'randomiser = "krr"\nepsilon = 1.0',
            'randomiser = "matrix"\nlikelihoods = [[0.8, 0.2, 0.0], [0.2, 0.8]]',
            "release[0].likelihoods = [[0.8, 0.2, 0.0], [0.2, 0.8]]: must be a matrix of numbers",
        ),
        ("n = 5", "n = 3000", "3000 records: the bracket may take"),
        (
            "[account]",
            '[[release]]\nkind = "count"\nnoise = "laplace"\nepsilon = 1.0\n\n[account]',
            "release 'count of 1",
        ),
    ],
)
def test_a_bad_local_release_is_one_line_exit_2(tmp_path, capsys, old, new, message):
    from bdpsim.cli import main

    assert old in LOCAL
    assert main(["account", write(tmp_path, LOCAL.replace(old, new, 1))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bdpsim: error: ")
    assert message in err


def test_a_local_release_plots_its_profile(tmp_path, capsys):
    """``--plot`` of a local release draws the joint curves (it has no per-release composition and
    no one-release curve: they are left out, not an AttributeError after the computation)."""
    from bdpsim.cli import main

    png = tmp_path / "profile.png"
    assert main(["account", write(tmp_path, LOCAL), "--epsilon", "1", "--plot", str(png)]) == 0
    assert png.stat().st_size > 0
    assert f"wrote {png}" in capsys.readouterr().err


CONTINUAL = """title = "five k-RR releases: a run config of the continual kind"
[run]
estimator = "exact"
[model]
kind = "markov"
n = 5
transition = [[0.8, 0.2], [0.3, 0.7]]
[mechanism]
kind = "continual"
release = "krr"
epsilon = 1.0
[account]
epsilon = [1.0]
delta = [0.01]
alpha = [inf]
fpr = [0.05]
"""


def test_a_continual_run_config_is_accounted_as_its_local_release(tmp_path, capsys):
    """``bdpsim account`` of a ``continual`` run config (no ``[[release]]``) accounts its mechanism,
    the same numbers as the ``kind = "local"`` release table (it was refused: ``run`` an unknown key);
    a sweep or a key of neither format are one line naming the field; a count's run config is its
    one noisy count."""
    from bdpsim.cli import main

    assert main(["account", write(tmp_path, CONTINUAL), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert abs(rows[0]["value"] - 0.2081729328393) < 1e-12  # delta(1), pinned above
    assert abs(rows[2]["value"] - 2.4079997355977) < 1e-12  # bdpl
    for old, new, message in [
        ("epsilon = 1.0\n[account]", "epsilon = [0.5, 1.0]\n[account]", "mechanism.epsilon = [0.5, 1.0]"),
        ("[account]", "[sweep]\nx = 1\n[account]", "sweep = {'x': 1}: unknown key"),
    ]:
        assert main(["account", write(tmp_path, CONTINUAL.replace(old, new, 1))]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    count = CONTINUAL.replace('kind = "continual"\nrelease = "krr"', 'kind = "count"\nnoise = "laplace"')
    assert main(["account", write(tmp_path, count), "--json"]) == 0
    as_run = json.loads(capsys.readouterr().out)["rows"]
    table = count.replace('[run]\nestimator = "exact"\n', "").replace("[mechanism]", "[[release]]")
    assert main(["account", write(tmp_path, table), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == as_run


GAUSSIAN_THREE = """title = "Gaussian noise on three state values at every record"
[run]
estimator = "exact"
[model]
kind = "markov"
n = 2
transition = [[0.5, 0.3, 0.2], [0.5, 0.3, 0.2], [0.5, 0.3, 0.2]]
[mechanism]
kind = "continual"
release = "gaussian"
sigma = 1.0
state_values = [0.0, 1.0, 3.0]
"""


def test_a_gaussian_continual_config_on_three_values_is_accounted(tmp_path, capsys, monkeypatch):
    """A continual config with ``release = "gaussian"`` and three distinct values (independent
    records): delta(1) and D_2 bracket the Gaussian mechanism of the farthest pair (mu = 3); seven
    distinct values are refused in one line naming the field."""
    from scipy.stats import norm

    from bdpsim.accounting import local as local_module
    from bdpsim.cli import main

    monkeypatch.setattr(local_module, "TOLERANCE", 1e-4)
    cfg = write(tmp_path, GAUSSIAN_THREE)
    assert main(["account", cfg, "--epsilon", "1", "--alpha", "2", "--json"]) == 0
    rows = {r["quantity"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    closed = norm.cdf(3 / 2 - 1 / 3) - math.exp(1) * norm.cdf(-3 / 2 - 1 / 3)
    d, r = rows["delta(1)"], rows["renyi(2)"]
    assert d["lower"] - 1e-12 <= closed <= d["upper"] + 1e-12 and d["width"] <= 1e-4
    assert r["lower"] - 1e-12 <= 9.0 <= r["upper"] + 1e-12
    assert "0 vs 2" in d["adversary"] or "2 vs 0" in d["adversary"]
    seven = GAUSSIAN_THREE.replace("[0.0, 1.0, 3.0]", "[0, 1, 2, 3, 4, 5, 6]")
    assert main(["account", write(tmp_path, seven, "b.toml"), "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "state_values" in err and "at most 6 distinct values" in err, err


HISTOGRAM3 = """[model]
kind = "markov"
transition = [[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]]
n = {n}

[{table}]
kind = "histogram"
epsilon = 1.0
"""


def test_three_state_histogram_beyond_its_limit_is_refused_in_one_line(tmp_path, capsys):
    """``bdpsim account`` of the three-state Laplace histogram past THREE_STATE_EVERY_MAX_N records
    with known-set sizes that the window sweep does not take: exit 2, one line naming the release,
    n, the limit and what to use instead (before any work). (``bdpsim attack config`` takes every
    size from ``--min-known`` on: Monte Carlo there.)"""
    from bdpsim.cli import main
    from bdpsim.mechanisms.histogram import THREE_STATE_EVERY_MAX_N

    n = THREE_STATE_EVERY_MAX_N + 1
    # known-set sizes other than every size from some size on: no window sweep to fall back to
    cfg = write(tmp_path, HISTOGRAM3.format(n=n, table="[release]") + "\n[account]\nsizes = [0, 1]\n")
    assert main(["account", cfg, "--epsilon", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'histogram + laplace(scale = 2)'" in err, err
    assert f"up to n = {THREE_STATE_EVERY_MAX_N} records, not n = {n}" in err and "adversary=" in err


FIVE_STATES = """title = "a five-state histogram"
[model]
kind = "markov"
n = 30
transition = [[0.6, 0.1, 0.1, 0.1, 0.1], [0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.1, 0.1],
              [0.1, 0.1, 0.1, 0.6, 0.1], [0.1, 0.1, 0.1, 0.1, 0.6]]

[[release]]
kind = "histogram"
epsilon = 1.0
"""


def test_a_too_large_several_query_sweep_is_one_line_exit_2(tmp_path, capsys):
    """The histogram of 5 states on 30 records over every adversary (days of Monte Carlo) is
    refused before any work: one line naming the release, the records and states, the estimated
    work, the limit and what to do instead; exit 2; no plot written."""
    import time

    from bdpsim.cli import main

    png = tmp_path / "p.png"
    start = time.process_time()
    assert main(["account", write(tmp_path, FIVE_STATES), "--plot", str(png)]) == 2
    assert time.process_time() - start < 2.0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "bdpsim: error: release 'histogram + laplace(scale = 2)': the Monte Carlo sweep over every "
        "adversary of n = 30 records (5 states) needs about "
    )
    assert "days per delta(eps) (limit 300 s): 2e+14 draw x atom x release products" in err
    assert "give adversary=" in err and "estimator = 'audit'" in err
    assert not png.exists()


def test_a_release_counting_a_network_state_name_warns_at_its_key(tmp_path, bdpsim_cli):
    """The records a count of a network's state names leaves out: warned at the release's
    ``counted_states`` line, after the report (``validate`` and ``account``); ``-W error``: the
    one-line error."""
    pytest.importorskip("pgmpy")
    from ..conftest import TEST_DATA

    text = (
        f'[model]\nkind = "bayesnet"\nbif = "{TEST_DATA / "weather.bif"}"\n\n'
        '[[release]]\nkind = "count"\nepsilon = 1.0\ncounted_states = ["high", "overcast"]\n\n'
        "[account]\nepsilon = [1.0]\n"
    )
    path = tmp_path / "named.toml"
    path.write_text(text)
    said = "2 of 4 records have a counted state; not counted (no such state): Rain, Umbrella"
    for cmd in ("validate", "account"):
        p = bdpsim_cli(cmd, path)
        assert p.returncode == 0 and p.stdout and p.stderr.count(said) == 1, p
        assert p.stderr.startswith(f"{path}:8: UserWarning: ") and p.stderr.endswith(
            f"{said}\n  {text.splitlines()[7]}\n"
        )
    p = bdpsim_cli("account", path, errors=(UserWarning,))
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and said in p.stderr


def _weather_config(counted, model=None):
    """Two geometric counts on the weather network (tests/data/weather.bif; Rain, Wind, Cloud,
    Umbrella of 2, 3, 3, 2 states), the second of the states named ``counted``."""
    from ..conftest import TEST_DATA

    bif = TEST_DATA / "weather.bif"
    model = model or f'kind = "bayesnet"\nbif = "{bif.as_posix()}"'
    return (
        f'[model]\n{model}\n\n[[release]]\nkind = "count"\nnoise = "geometric"\nepsilon = 1.0\n'
        f'\n[[release]]\nkind = "count"\nnoise = "geometric"\nepsilon = 0.5\n'
        f"counted_states = {json.dumps(counted)}\n"
    )


def test_a_per_record_count_is_accounted_and_a_chain_refuses_it_in_one_line(tmp_path, capsys):
    """A count of the state named "yes" (Rain and Umbrella: a per-record count) with an ordinary
    count beside it: every ask answers (was: a traceback); its note names the release's own field.
    On a chain the name is refused in one line naming the release's field, exit 2."""
    pytest.importorskip("pgmpy")
    from bdpsim.cli import main

    cfg = write(tmp_path, _weather_config(["yes"]))
    with pytest.warns(
        UserWarning, match=r"^release\[1\]\.counted_states: 2 of 4 records have a counted state"
    ):
        assert main(["account", cfg, "--epsilon", "0.5", "--delta", "0.01", "--alpha", "inf", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["releases"][1].startswith("count of yes + geometric"), rep["releases"]
    d, e, bdpl = rep["rows"][:3]
    assert d["quantity"] == "delta(0.5)" and 0 < d["value"] < 1 and e["value"] > 0.5
    assert bdpl["quantity"] == "bdpl" and math.isfinite(bdpl["value"]) and "Rain" in bdpl["adversary"]
    chain = write(tmp_path, _weather_config(["yes"], 'kind = "markov"\nn = 4\ngamma = 2.0'), "b.toml")
    assert main(["account", chain, "--epsilon", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bdpsim: error: release[1].counted_states = ['yes']"), err


@pytest.mark.parametrize(
    "release,message",
    [
        ("counted_states = [0, 1]", "release[1].counted_states = [0, 1]: counts every one of the 2 states"),
        ("counted_states = [2]", "release[1].counted_states = [2]: must be a non-empty list of distinct"),
        ("epsilon = -1.0", "release[1].epsilon = -1.0: must be a finite number > 0"),
    ],
)
def test_a_release_s_bad_count_names_the_release_s_own_field(tmp_path, capsys, release, message):
    """The errors of a ``[[release]]`` table's count name ``release[j].<key>`` (were
    ``mechanism.counted_states``, ``mechanism.epsilon``)."""
    from bdpsim.cli import main

    text = GAUSS.replace('noise = "gaussian"\nsigma = 2.0\nrepeat = 4', "epsilon = 1.0") + (
        f'\n[[release]]\nkind = "count"\nepsilon = 1.0\n{release}\n'
    ).replace("epsilon = 1.0\nepsilon", "epsilon")
    assert main(["account", write(tmp_path, text), "--epsilon", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_a_count_of_named_states_is_named_so(bdpsim_cli, tmp_path):
    """A ``[[release]]`` counting a network's states by name is named by them (it was "count of
    1"), and accounted though its values differ by record (it was a traceback)."""
    pytest.importorskip("pgmpy")
    from pathlib import Path

    bif = Path(__file__).resolve().parents[1] / "data" / "weather.bif"
    text = f"""[model]
kind = "bayesnet"
bif = "{bif}"

[[release]]
kind = "count"
counted_states = ["yes"]
noise = "geometric"
epsilon = 1.0
"""
    r = bdpsim_cli("account", write(tmp_path, text))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "count of yes + geometric(epsilon = 1)" in r.stdout


def test_the_help_teaches_a_config_that_runs(tmp_path, capsys):
    """``bdpsim account --help`` shows the shape of an accountant config (the help named the
    tables without their keys); the example as printed is a valid config."""
    from bdpsim.cli import build_parser, main

    (sub,) = [a for a in build_parser()._actions if a.dest == "command"]
    text = sub.choices["account"].format_help()
    shown = text.split("my.toml: ")[1].split("\nOr, alone")[0].splitlines()[1:]
    toml = "\n".join(line[2:] for line in shown)
    assert "[[release]]" in toml and "[account]" in toml
    assert main(["account", write(tmp_path, toml), "--epsilon", "1"]) == 0
    assert "delta(1)" in capsys.readouterr().out
