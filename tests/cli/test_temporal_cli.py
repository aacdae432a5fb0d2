"""``bdpsim temporal``: output, JSON and bad input (one line naming the flag, exit code 2)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bdpsim.cli import main
from bdpsim.kernels.noise.traits import law_names
from bdpsim.temporal import cao_leakage
from bdpsim.temporal.exact import temporal_exact

from ..support.parser import choices_of

ACTIVITY = "[[0.882,0.118],[0.305,0.695]]"
THREE = "[[0.5,0.3,0.2],[0.2,0.6,0.2],[0.1,0.2,0.7]]"


def test_json_holds_exact_and_cao_lists(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert (
        main(
            [
                "temporal",
                "--transition",
                THREE,
                "--epsilon",
                "1",
                "--n",
                "7",
                "--release",
                "krr",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    doc = json.loads(out.read_text())
    P = json.loads(THREE)
    ex = temporal_exact(P, 1.0, 7, "krr")
    cao = cao_leakage(P, 1.0, 7)
    assert doc["i"] == list(range(7))  # records numbered from 0, as i in adversaries.csv
    for key in ("bpl", "fpl", "tpl"):
        np.testing.assert_allclose(doc[key], getattr(ex, key), atol=1e-12)
        np.testing.assert_allclose(doc["cao_" + key], getattr(cao, key), atol=1e-12)
    assert doc["inputs"]["n"] == 7 and doc["inputs"]["release"] == "krr"
    assert len(doc["witnesses"]) == 7 and doc["exact"] is True
    assert "max TPL: exact" in capsys.readouterr().out


def test_interval_keys_when_capped(tmp_path):
    out = tmp_path / "t.json"
    assert (
        main(
            [
                "temporal",
                "--transition",
                THREE,
                "--epsilon",
                "1",
                "--n",
                "8",
                "--max-points",
                "3",
                "--method",
                "exact",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    doc = json.loads(out.read_text())
    full = temporal_exact(json.loads(THREE), 1.0, 8, "any")
    assert doc["exact"] is False
    assert np.all(np.array(doc["tpl_low"]) <= full.tpl + 1e-10)
    assert np.all(np.array(doc["tpl_high"]) >= full.tpl - 1e-10)
    assert doc["cao_tpl"] == [None] * 8


def test_known_steps_and_per_step_epsilon(tmp_path):
    out = tmp_path / "t.json"
    assert (
        main(
            [
                "temporal",
                "--transition",
                ACTIVITY,
                "--epsilon",
                "1",
                "2",
                "0.5",
                "1",
                "--n",
                "4",
                "--known-records",
                "1",
                "--method",
                "exact",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    doc = json.loads(out.read_text())
    ex = temporal_exact(json.loads(ACTIVITY), [1, 2, 0.5, 1], 4, "any", known=[2])
    assert doc["tpl"][1] is None
    np.testing.assert_allclose([doc["tpl"][i] for i in (0, 2, 3)], ex.tpl[[0, 2, 3]], atol=1e-12)


def test_allocate_prints_and_writes_budgets(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert (
        main(
            [
                "temporal",
                "--gamma",
                "4",
                "--epsilon",
                "0.5",
                "--n",
                "20",
                "--allocate",
                "2",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    alloc = json.loads(out.read_text())["allocation"]
    e = alloc["exact_constant"]
    assert np.nanmax(temporal_exact([[0.8, 0.2], [0.2, 0.8]], e, 20, "any").tpl) <= 2 + 1e-9
    assert np.nanmax(temporal_exact([[0.8, 0.2], [0.2, 0.8]], e * (1 + 1e-6), 20, "any").tpl) > 2
    assert alloc["cao_constant"] <= e + 1e-9
    assert "per-step eps" in capsys.readouterr().out


BAD = [
    (["--transition", "[[0.5,0.6],[0.5,0.5]]"], "--transition", "sum to 1"),
    (["--epsilon", "0"], "--epsilon", "must be a number in [1e-09, 700]"),
    (["--epsilon", "-1"], "--epsilon", "must be a number in [1e-09, 700]"),
    (["--n", "0"], "--n", ">= 1"),
    (["--epsilon", "1", "2"], "--epsilon", "one value per step"),
    (["--known-records", "5"], "--known-records", "0..4"),
    (["--known-records", "-1"], "--known-records", "0..4"),
    (["--initial", "0.5", "0.6"], "--initial", "summing to 1"),
    (["--initial", "uniform"], "--initial", "stationary"),
    (["--allocate", "-1"], "--allocate", "> 0"),
    (["--state-values", "1", "2", "3"], "--state-values", "one per state"),
    (["--max-points", "1"], "--max-points", ">= 2"),
    (["--transition", "[[[0.9,0.1],[0.2,0.8]],[[0.9,0.1],[0.2,0.8]]]"], "--transition", "steps - 1 = 4"),
]


@pytest.mark.parametrize("extra,flag,rule", BAD)
def test_bad_input_one_line_exit_2(extra, flag, rule, tmp_path, capsys):
    out = tmp_path / "t.json"
    args = {"--transition": ACTIVITY, "--epsilon": "1", "--n": "5"}
    argv = ["temporal"]
    flags = [e for e in extra if e.startswith("--")]
    for k, v in args.items():
        if k not in flags:
            argv += [k, v]
    argv += extra + ["--json", str(out), "--release", "laplace"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"bdpsim: error: {flag} = ") and rule in err, err
    assert "Traceback" not in err and not out.exists()


def test_help_fits_80_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main(["temporal", "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text
    assert all(len(line) <= 80 for line in text.splitlines()), max(text.splitlines(), key=len)


def test_cao_with_known_steps_is_refused(capsys):
    assert (
        main(
            [
                "temporal",
                "--transition",
                ACTIVITY,
                "--epsilon",
                "1",
                "--n",
                "4",
                "--known-records",
                "1",
                "--method",
                "cao",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err.startswith("bdpsim: error: --known-records = [1]: ")


def test_python_table_has_the_cli_columns():
    import bdpsim

    rows = bdpsim.temporal_leakage(json.loads(THREE), 1.0, 5, "krr", as_frame=False)
    assert list(rows[0])[:10] == [
        "i",
        "epsilon",
        "bpl",
        "fpl",
        "tpl",
        "a",
        "b",
        "cao_bpl",
        "cao_fpl",
        "cao_tpl",
    ]
    ex = temporal_exact(json.loads(THREE), 1.0, 5, "krr")
    np.testing.assert_allclose([r["tpl"] for r in rows], ex.tpl, atol=1e-12)
    assert all(r["tpl"] <= r["cao_tpl"] + 1e-9 for r in rows)


def test_cli_choices_are_the_library_s():
    from bdpsim.temporal.releases import release_names
    from bdpsim.temporal.table import METHODS

    assert tuple(choices_of(["temporal"], "--method")) == METHODS
    from bdpsim.mechanisms.value_noise import VALUE_NOISES

    assert (
        tuple(choices_of(["temporal"], "--release"))
        == release_names() + VALUE_NOISES
        == ("krr", "any", *law_names(calibratable=True, pure_dp=True), "gaussian")
    )


def test_cao_only(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert (
        main(
            [
                "temporal",
                "--gamma",
                "3",
                "--epsilon",
                "1",
                "--n",
                "5",
                "--method",
                "cao",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    doc = json.loads(out.read_text())
    assert doc["exact"] is None and doc["tpl"] == [None] * 5
    np.testing.assert_allclose(
        doc["cao_tpl"], cao_leakage([[0.75, 0.25], [0.25, 0.75]], 1.0, 5).tpl, atol=1e-12
    )
    assert "max TPL: Cao" in capsys.readouterr().out


def test_one_vocabulary_with_attack_and_calibrate(tmp_path, capsys):
    """``temporal`` reads the words of ``attack`` and ``calibrate`` (--n, --initial P ...,
    --state-values, records numbered from 0): the spellings of earlier releases (--steps,
    --mechanism, --values, a JSON --initial) give the same numbers, with one note each on stderr;
    --known (steps from 1) is refused in one line naming the --known-records that replaces it."""
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    base = ["temporal", "--transition", THREE, "--epsilon", "1", "--method", "exact"]
    assert main([*base, "--n", "5", "--release", "laplace", "--state-values", "0", "1", "3",
                 "--initial", "0.2", "0.3", "0.5", "--json", str(new)]) == 0  # fmt: skip
    assert capsys.readouterr().err == ""
    assert main([*base, "--steps", "5", "--mechanism", "laplace", "--values", "0", "1", "3",
                 "--initial", "[0.2,0.3,0.5]", "--json", str(old)]) == 0  # fmt: skip
    notes = capsys.readouterr().err.splitlines()
    assert len(notes) == 4 and all(n.startswith("bdpsim: note: ") for n in notes), notes
    assert "--steps is --n now" in notes[0] and "--initial 0.2 0.3 0.5" in notes[-1]
    a, b = json.loads(new.read_text()), json.loads(old.read_text())
    assert a["tpl"] == b["tpl"] and a["inputs"] == b["inputs"] and a["inputs"]["initial"] == [0.2, 0.3, 0.5]
    assert main([*base, "--n", "5", "--known", "2", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bdpsim: error: --known = [2, 4]: is --known-records")
    assert "--known-records 1 3" in err
    assert main([*base, "--n", "5", "--steps", "5"]) == 2  # both spellings: one of them
    assert "--steps = 5: is --n now: give --n only" in capsys.readouterr().err
    # the table: records from 0, each leakage's unit under its name
    assert main([*base, "--n", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["i", "epsilon", "bpl", "fpl", "tpl"] and set(out[1].split()) == {"(nats)"}
    assert [line.split()[0] for line in out[2:5]] == ["0", "1", "2"] and " nats at i = " in out[5]
    assert max(map(len, out)) <= 80


def test_temporal_leakage_raises_bdpsim_errors_and_reads_old_known():
    import bdpsim
    from bdpsim.core.errors import BdpsimError

    for kwargs in (dict(epsilon=0.0), dict(transition=[[0.5, 0.6], [0.5, 0.5]]), dict(known_records=[7])):
        args = dict(transition=json.loads(THREE), epsilon=1.0, steps=4, mechanism="krr", as_frame=False)
        with pytest.raises(BdpsimError):
            bdpsim.temporal_leakage(**{**args, **kwargs})
    rows = bdpsim.temporal_leakage(json.loads(THREE), 1.0, 4, "krr", known_records=[1], as_frame=False)
    with pytest.warns(DeprecationWarning, match="known_records"):
        old = bdpsim.temporal_leakage(json.loads(THREE), 1.0, 4, "krr", known=[2], as_frame=False)
    assert rows == old and rows[1]["tpl"] is None and [r["i"] for r in rows] == [0, 1, 2, 3]


# ----------------------------------------------------------------------------- continual release in words


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["temporal", *argv])
    got = capsys.readouterr()
    return code, got.out, got.err


def test_cao_is_always_said_against_exact_in_words(capsys):
    """The percentage beside Cao meant "Cao above exact" on one line and "exact above Cao" on the
    next, and a 1e-15 difference printed "-0.0 %"."""
    example = "[[0.8,0.15,0.05],[0.3,0.6,0.1],[0.05,0.15,0.8]]"  # the bundled continual config's chain
    code, out, _ = _run(capsys, "--transition", example, "--epsilon", "1", "--n", "6", "--allocate", "2")
    assert code == 0
    assert "Cao 2.1 % above exact" in out  # max TPL: Cao 4.41783 vs exact 4.32648
    assert "Cao 1.3 % below exact" in out  # budgets: Cao 0.453717 vs exact 0.45992
    assert "%)" not in out.replace("% above exact)", "").replace("% below exact)", "")
    code, out, _ = _run(capsys, "--transition", ACTIVITY, "--epsilon", "1", "--n", "5")
    assert "-0.0" not in out and "Cao equal to exact within 0.05 %" in out


def test_allocation_says_what_its_schedule_is(capsys):
    """A constant exact schedule is said in words; one or two steps have no middle step."""
    code, out, _ = _run(capsys, "--transition", ACTIVITY, "--epsilon", "1", "--n", "6", "--allocate", "2")
    assert code == 0 and "at every step (raising the first and last step's eps would push" in out
    assert "[end, middle.., end]" not in out
    for n, shown in (("1", "exact [1]"), ("2", "schedule over the 2 steps: exact [")):
        code, out, _ = _run(capsys, "--transition", ACTIVITY, "--epsilon", "1", "--n", n, "--allocate", "1")
        assert code == 0 and shown in out and "middle" not in out, out


def test_an_interval_shows_its_width_and_the_json_its_upper_end(tmp_path, capsys):
    out = tmp_path / "t.json"
    code, text, _ = _run(
        capsys, "--transition", THREE, "--epsilon", "1", "--n", "8", "--release", "krr",
        "--max-points", "3", "--json", str(out),
    )  # fmt: skip
    doc = json.loads(out.read_text())
    assert code == 0 and doc["exact"] is False and "(width " in text
    assert None not in doc["tpl"]
    np.testing.assert_allclose(doc["tpl"], doc["tpl_high"], atol=1e-12)
    assert all(lo <= hi for lo, hi in zip(doc["tpl_low"], doc["tpl_high"]))


def test_both_methods_on_a_chain_with_a_transient_state(tmp_path, capsys):
    """--method both computes the exact columns where Cao's recursion refuses the chain (as
    --method exact does) and says why Cao's are missing, naming no library argument."""
    chain = "[[0.5,0.5,0],[0,0.5,0.5],[0,0.5,0.5]]"
    out = tmp_path / "t.json"
    code, text, err = _run(capsys, "--transition", chain, "--epsilon", "1", "--n", "4", "--json", str(out))
    ex = temporal_exact(np.array(json.loads(chain)), 1.0, 4, "any")
    doc = json.loads(out.read_text())
    assert code == 0 and err == "" and "Cao et al.'s columns are not defined on this chain" in text
    assert "backward=" not in text and doc["cao_tpl"] == [None] * 4 and "cao_note" in doc
    np.testing.assert_allclose(doc["tpl"], ex.tpl, atol=1e-12)


def test_csv_holds_the_table(tmp_path, capsys):
    out = tmp_path / "t.csv"
    code, _, _ = _run(capsys, "--transition", ACTIVITY, "--epsilon", "1", "--n", "5", "--csv", str(out))
    lines = out.read_text().splitlines()
    ex = temporal_exact(np.array(json.loads(ACTIVITY)), 1.0, 5, "any")
    assert code == 0 and lines[0].startswith("i,epsilon,bpl,fpl,tpl,a,b,cao_bpl") and len(lines) == 6
    np.testing.assert_allclose([float(x.split(",")[4]) for x in lines[1:]], ex.tpl, atol=1e-12)


@pytest.mark.parametrize(
    "extra,flag,rule",
    [
        (["--allocate", "1e6"], "--allocate", "must be in [5e-09, 700]"),
        (["--allocate", "1e-300"], "--allocate", "must be in [5e-09, 700]"),
        (["--epsilon", "1e308"], "--epsilon", "e^eps overflows"),
        (["--epsilon", "1e-300"], "--epsilon", "[1e-09, 700]"),
        (["--n", "1000000000", "--method", "cao"], "--n", "at most 1e+06 steps"),
        (["--json", "."], "--json", "is a directory"),
        (["--csv", "."], "--csv", "is a directory"),
        (["--json", "/proc/t.json"], "--json", "cannot write in /proc"),  # was: after the work
        (["--known-records", "0", "1", "2", "3", "4"], "--known-records", "every record is known"),
        (["--release", "laplace", "--state-values", "0", "1e308"], "--state-values", "at most 1e+12"),
        (
            ["--release", "laplace", "--state-values", "0", "1e100", "--epsilon", "700"],
            "--state-values",
            "1e+12",
        ),
    ],
)
def test_hostile_continual_input_is_one_line_before_the_work(extra, flag, rule, capsys):
    args = {"--transition": ACTIVITY, "--epsilon": "1", "--n": "5"}
    argv = [x for k, v in args.items() if k not in extra for x in (k, v)] + extra
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"bdpsim: error: {flag} = ") and rule in err and ".tmp" not in err, err


# ------------------------------------------------------------------ Gaussian noise on a value

INDEPENDENT = "[[0.6,0.4],[0.6,0.4]]"  # identical rows: independent records
GAUSS = ["--release", "gaussian", "--sigma", "1", "--state-values", "0", "1.5"]


def test_gaussian_release_prints_bracketed_profile_and_writes_json(tmp_path, capsys):
    """Independent records: every number is the one-step Gaussian mechanism's (mu = 1.5), inside
    its printed bracket; the BDPL is stated infinite; the numbers are labelled as the leakage on
    the chain, not a DP guarantee."""
    from scipy.stats import norm

    out = tmp_path / "g.json"
    argv = ["--transition", INDEPENDENT, "--n", "4", *GAUSS, "--epsilon", "0.5", "2"]
    code, text, err = _run(capsys, *argv, "--delta", "1e-3", "--alpha", "2", "--json", str(out))
    assert code == 0, err
    assert "not a DP guarantee" in text and "bdpl" in text and "= inf" in text
    assert "delta(0.5)" in text and "certified bracket, width" in text
    doc = json.loads(out.read_text())
    mu = 1.5
    for e in (0.5, 2.0):
        v = doc["values"][f"delta({e:g})"]
        closed = norm.cdf(mu / 2 - e / mu) - np.exp(e) * norm.cdf(-mu / 2 - e / mu)
        assert v["lower"] - 1e-12 <= closed <= v["upper"] + 1e-12 and v["width"] <= 1e-6
    r = doc["values"]["renyi(2)"]
    assert r["lower"] - 1e-12 <= 2 * mu**2 / 2 <= r["upper"] + 1e-12
    assert doc["bdpl"] is None and "unbounded" in doc["bdpl_note"]
    assert doc["inputs"]["sigma"] == 1.0 and doc["inputs"]["state_values"] == [0.0, 1.5]


def test_gaussian_release_on_three_values_prints_the_farthest_pair(tmp_path, capsys, monkeypatch):
    """Three distinct values (0, 1, 3) on a 3-state chain of independent records: delta(eps) is
    the Gaussian mechanism of the farthest pair (mu = 3), inside the bracket printed (the
    accountant's tolerance at 1e-4 here); more records than the work limit allows are refused up
    front with the estimate, in one line."""
    from scipy.stats import norm

    from bdpsim.accounting import local as local_module

    monkeypatch.setattr(local_module, "TOLERANCE", 1e-4)
    three = "[[0.5,0.3,0.2],[0.5,0.3,0.2],[0.5,0.3,0.2]]"
    values = ["--release", "gaussian", "--sigma", "1", "--state-values", "0", "1", "3"]
    out = tmp_path / "g3.json"
    code, text, err = _run(
        capsys, "--transition", three, "--n", "3", *values, "--epsilon", "1", "--json", str(out)
    )
    assert code == 0, err
    assert "state values [0, 1, 3]" in text and ("x = 2 vs 0" in text or "x = 0 vs 2" in text), text
    v = json.loads(out.read_text())["values"]["delta(1)"]
    closed = norm.cdf(3 / 2 - 1 / 3) - np.exp(1) * norm.cdf(-3 / 2 - 1 / 3)
    assert v["lower"] - 1e-12 <= closed <= v["upper"] + 1e-12 and v["width"] <= 1e-4
    code, text, err = _run(capsys, "--transition", three, "--n", "2000", *values, "--epsilon", "1")
    assert code == 2 and text == "" and err.count("\n") == 1, err
    assert "on 2000 records: the bracket may take ~" in err and "above the limit" in err


@pytest.mark.parametrize(
    "extra,flag,rule",
    [
        (["--sigma", "0"], "--sigma", "finite number > 0"),
        (["--sigma", "-1"], "--sigma", "finite number > 0"),
        (["--sigma", "nan"], "--sigma", "finite number > 0"),
        (["--sigma", "inf"], "--sigma", "finite number > 0"),
        (["--sigma", "1e-300"], "--sigma", "sigma apart, above 20"),
        (["--state-values", "0", "1e308"], "--sigma", "sigma apart, above 20"),
        (["--state-values", *"0123456"], "--state-values", "at most 6 distinct values"),
        (["--state-values", "0", "1", "1"], "--state-values", "one value per record state (2)"),
        (["--n", "1000000000"], "--n", "must be an integer in"),
        (["--n", "200000"], "release", "the bracket may take ~"),
        (["--alpha", "1"], "--alpha", "must be > 1"),
        (["--delta", "1"], "--delta", "open interval (0, 1)"),
        (["--epsilon", "-1"], "--epsilon", "finite number in [0, 100]"),
        (["--known-records", "1"], "--known-records", "not for --release gaussian"),
        (["--allocate", "1"], "--allocate", "not for --release gaussian"),
        (["--json", "."], "--json", "is a directory"),
    ],
)
def test_hostile_gaussian_input_is_one_line_exit_2(extra, flag, rule, tmp_path, capsys):
    args = {
        "--transition": [ACTIVITY],
        "--n": ["5"],
        "--epsilon": ["1"],
        "--release": ["gaussian"],
        "--sigma": ["1"],
        "--state-values": ["0", "1.5"],
    }
    given = [e for e in extra if e.startswith("--")]
    argv = [x for k, v in args.items() if k not in given for x in (k, *v)] + extra
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    prefix = "bdpsim: error: " + (f"{flag} = " if flag.startswith("--") else "")
    assert err.startswith(prefix) and rule in err and "Traceback" not in err, err


def test_gaussian_flags_need_the_gaussian_release_and_sigma(capsys):
    code, _, err = _run(capsys, "--transition", ACTIVITY, "--n", "5", "--epsilon", "1", "--sigma", "2")
    assert code == 2 and err.startswith("bdpsim: error: --sigma = 2.0: is for --release gaussian")
    code, _, err = _run(
        capsys, "--transition", ACTIVITY, "--n", "5", "--release", "gaussian", "--epsilon", "1"
    )
    assert code == 2 and err.startswith("bdpsim: error: --sigma = None: is required")
    code, _, err = _run(capsys, "--transition", ACTIVITY, "--n", "5", *GAUSS)
    assert code == 2 and "ask at least one of --epsilon, --delta, --alpha" in err
