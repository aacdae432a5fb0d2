"""The accuracy report, the competition and the utility experiment as study kinds of the one runner
(bdpsim.pipeline.runner): a task that raises leaves ``metadata.json`` ``failed`` with the finished
units saved; re-running resumes without recomputing them (calls counted) and gives the rows of an
uninterrupted run; a held lock is waited for."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bdpsim.pipeline import results as R

from ..support.bad_config import cli
from ..support.locks import lock_held


def status(out: Path) -> str:
    return json.loads((out / "metadata.json").read_text())["status"]


def cells(rows: list[dict]) -> str:
    """The rows as CSV text, ``seconds`` aside (nan cells compare equal)."""
    columns = sorted(k for k in rows[0] if k != "seconds")
    return R.csv_text(rows, columns)


def test_accuracy_resumes_after_a_failing_case(tmp_path, monkeypatch):
    from bdpsim.studies import accuracy as A

    kw = dict(samples=(200,), adversaries=2, seed=3, cases=A.GRID[:3], target_se=0.0)
    clean = A.accuracy_table(**kw)
    real = A._case_errors
    calls: list[int] = []

    def counted(ci, *args):
        calls.append(ci)
        if ci == 1 and calls.count(1) == 1:
            raise RuntimeError("case 1 failed")
        return real(ci, *args)

    monkeypatch.setattr(A, "_case_errors", counted)
    out = tmp_path / "acc"
    with pytest.raises(RuntimeError, match="case 1 failed"):
        A.accuracy_table(**kw, out=out)
    assert status(out) == "failed" and not (out / "accuracy.csv").exists()
    rows = A.accuracy_table(**kw, out=out)
    assert calls == [0, 1, 1, 2]  # case 0 not recomputed
    assert [list(r) for r in rows] == [list(r) for r in clean]  # a resumed unit's columns in order
    assert cells(rows) == cells(clean) and status(out) == "complete"
    assert json.loads((out / "accuracy.json").read_text())["status"] == "complete"
    assert len((out / "accuracy.csv").read_text().splitlines()) == 1 + len(clean)


def test_accuracy_waits_for_a_held_lock(tmp_path):
    from bdpsim.studies import accuracy as A

    out = tmp_path / "acc"
    out.mkdir()
    with lock_held(out, 1.0):
        t0 = time.perf_counter()
        A.accuracy_table(samples=(200,), adversaries=1, cases=A.GRID[:1], target_se=0.0, out=out)
        assert time.perf_counter() - t0 >= 0.9
    assert status(out) == "complete"


def test_competition_resumes_after_a_failing_chain(tmp_path, monkeypatch):
    from bdpsim.studies import competition as C

    kw = dict(chains=C.competition_chains()[1:], lengths=(8,), epsilons=(1.0, 10.0))
    clean = C.competition_rows(**kw)
    real = C._chain_case
    calls: list[str] = []

    def counted(label, *args):
        calls.append(label)
        if label == "gamma = 10" and calls.count(label) == 1:
            raise RuntimeError("chain failed")
        return real(label, *args)

    monkeypatch.setattr(C, "_chain_case", counted)
    out = tmp_path / "comp"
    with pytest.raises(RuntimeError, match="chain failed"):
        C.competition_rows(**kw, out=out)
    assert status(out) == "failed" and not (out / "competition.csv").exists()
    log: list[str] = []
    rows = C.competition_rows(**kw, out=out, log=log.append)
    assert calls == ["gamma = 3", "gamma = 10", "gamma = 10"]  # gamma = 3 not recomputed
    assert [list(r) for r in rows] == [list(r) for r in clean]  # a resumed unit's columns in order
    assert any(m.startswith("resuming: 1 of 2 chains") for m in log), log
    assert cells(rows) == cells(clean) and status(out) == "complete"
    with open(out / "competition.csv") as fh:
        assert len(fh.read().splitlines()) == 1 + len(clean)


def test_utility_resumes_after_a_failing_variant(tmp_path, monkeypatch):
    from bdpsim.utility import experiment as U

    raw = {"utility": {"dataset": "galton", "split": ["all", "trios"], "epsilon": [1.0, 5.0], "runs": 20}}
    cfg = U.parse_utility(raw)
    clean, _ = U.run_utility(cfg)
    real = U._variant_rows
    calls: list[int] = []

    def counted(cfg, vi, v):
        calls.append(vi)
        if vi == 1 and calls.count(1) == 1:
            raise RuntimeError("variant failed")
        return real(cfg, vi, v)

    monkeypatch.setattr(U, "_variant_rows", counted)
    out = tmp_path / "u"
    with pytest.raises(RuntimeError, match="variant failed"):
        U.run_utility(cfg, out=out, log=lambda m: None)
    assert status(out) == "failed" and not (out / "utility.csv").exists()
    rows, vs = U.run_utility(cfg, out=out, log=lambda m: None)
    assert calls == [0, 1, 1]  # variant 0 not recomputed
    assert rows == clean and len(vs) == 2
    meta = json.loads((out / "metadata.json").read_text())
    assert (
        meta["status"] == "complete"
        and meta["kind"] == "utility"
        and set(meta["fitted"]) == {v.name for v in vs}
    )
    assert (out / "utility.csv").read_text() == R.csv_text(clean, U.COLUMNS)


def test_utility_cli_resumes_and_says_so_in_help(tmp_path, capsys, monkeypatch):
    from bdpsim.cli import main
    from bdpsim.utility import experiment as U

    with pytest.raises(SystemExit):
        main(["utility", "--help"])
    assert "resumes" in " ".join(capsys.readouterr().out.split())
    out = tmp_path / "u"
    assert main(["utility", "utility_galton", "--out", str(out)]) == 0
    first = (out / "utility.csv").read_text()
    calls: list[int] = []
    real = U._variant_rows
    monkeypatch.setattr(U, "_variant_rows", lambda cfg, vi, v: (calls.append(vi), real(cfg, vi, v))[1])
    assert main(["utility", "utility_galton", "--out", str(out)]) == 0
    assert calls == [] and (out / "utility.csv").read_text() == first and status(out) == "complete"


def test_accuracy_rows_are_labelled(bdpsim_cli, tmp_path, monkeypatch):
    from bdpsim.studies import accuracy as A

    def fake(samples, adversaries, seed, jobs, out=None, progress=None, finished=None, meta=None):
        base = {
            "case": "markov n=10 gamma=1 eps=1",
            "samples": 1000,
            "bias": 0.0,
            "rmse": 0.0,
            "max_abs_error": 0.0,
        }
        return [
            dict(base, estimator="kde", target_se=0.0),
            dict(base, estimator="mixture", target_se=0.0),
            dict(base, estimator="mixture", target_se=0.005),
        ]

    monkeypatch.setattr(A, "accuracy_table", fake)
    monkeypatch.setattr(A, "write_report", lambda *a, **k: [])
    import bdpsim.figures.accuracy as FA

    monkeypatch.setattr(FA, "save_accuracy", lambda rows, out: [])
    p = bdpsim_cli("accuracy", "--out", tmp_path / "acc", "--quiet")
    assert p.returncode == 0, p.stderr
    labels = [line.split("eps=1", 1)[1].split()[0:2] for line in p.stdout.splitlines()[1:]]
    assert labels == [["kde", "1000"], ["mixture", "1000"], ["mixture", "se<=0.005"]]


def _tiny_accuracy(monkeypatch, calls, interrupt=True):
    """Three cases of the accuracy grid; with ``interrupt``, Ctrl-C while case 1 first runs."""
    from bdpsim.studies import accuracy as A

    cases = A.GRID[:3]
    monkeypatch.setattr(A, "GRID", cases)
    real = A.accuracy_table
    monkeypatch.setattr(A, "accuracy_table", lambda *a, **k: real(*a, cases=cases, **k))
    orig = A._case_errors

    def counted(ci, *args):
        calls.append(ci)
        if interrupt and ci == 1 and calls.count(1) == 1:
            raise KeyboardInterrupt
        return orig(ci, *args)

    monkeypatch.setattr(A, "_case_errors", counted)


def test_accuracy_ctrl_c_keeps_finished_cases_and_resumes(tmp_path, capsys, monkeypatch):
    import json as _json

    calls: list[int] = []
    _tiny_accuracy(monkeypatch, calls)
    out = tmp_path / "acc"
    args = ["accuracy", "--samples", "200", "--adversaries", "2", "--out", out, "--quiet"]
    rc, _, err = cli(capsys, *args)
    assert rc == 130 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "1 of 3 cases are saved" in err and "resume" in err
    assert _json.loads((out / "accuracy.json").read_text())["status"] == "interrupted"
    assert len((out / "accuracy.csv").read_text().splitlines()) > 1  # case 0's rows
    rc, stdout, err = cli(capsys, *args)
    assert rc == 0, err
    assert calls == [0, 1, 1, 2]  # case 0 was not recomputed
    assert _json.loads((out / "accuracy.json").read_text())["status"] == "complete"


def test_accuracy_heartbeat(tmp_path, capsys, monkeypatch, fast_beat):
    from bdpsim.studies import accuracy as A

    calls: list[int] = []
    _tiny_accuracy(monkeypatch, calls, interrupt=False)
    real = A._case_errors

    def slow(ci, *args):
        import time

        time.sleep(0.2)
        return real(ci, *args)

    monkeypatch.setattr(A, "_case_errors", slow)
    rc, _, err = cli(capsys, "accuracy", "--samples", "200", "--adversaries", "1", "--out", tmp_path / "a")
    assert rc == 0
    assert any(x.startswith("bdpsim accuracy: ") and "/3 cases" in x for x in err.splitlines()), err
