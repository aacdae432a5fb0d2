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
