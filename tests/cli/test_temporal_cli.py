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
    assert (
        tuple(choices_of(["temporal"], "--release"))
        == release_names()
        == ("krr", "any", *law_names(calibratable=True, pure_dp=True))
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
