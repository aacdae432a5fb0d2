"""The one runner (bdpsim.pipeline.runner): a toy study kind with a known answer through the lock,
metadata status, resume, Ctrl-C, failure, worker death and held units; and ``bdpsim run`` as its
kind: each point written once, nothing read back within a run."""

from __future__ import annotations

import collections
import csv
import gzip
import json
import os
import pathlib
import threading
import time
from pathlib import Path

import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.pipeline import driver as D
from bdpsim.pipeline import results as R
from bdpsim.pipeline import runner as RN
from bdpsim.pipeline.config import load_config
from bdpsim.pipeline.driver import run_experiment

from ..support.bad_config import OK, cli, toml
from ..support.configs import KDE_AND_MIXTURE
from ..support.locks import lock_held

CALLS: list[tuple[str, int]] = []
FAIL: dict[str, BaseException] = {}


def square(uid: str, x: int) -> int:
    """A toy task: ``x**2``, recorded in :data:`CALLS`; raises what :data:`FAIL` holds for ``uid``."""
    CALLS.append((uid, x))
    if uid in FAIL:
        raise FAIL[uid]
    return x * x


class SumOfSquares(RN.StudyBase):
    """Unit ``u`` (``u = 1..n``): tasks ``x**2`` for ``x = 1..u``; its record the sum
    ``u(u+1)(2u+1)/6``; the table one line per unit. With ``wait``: unit 1 waits for unit ``n``
    and its settled record adds unit ``n``'s."""

    name = "toy"
    noun = "sums"
    noun_one = "sum"

    def __init__(self, n: int = 3, wait: bool = False) -> None:
        self.n, self.wait = n, wait
        self.writes: collections.Counter = collections.Counter()
        self.settled: dict[str, dict] = {}

    def units(self):
        return [RN.Unit(str(u), key=f"k{u}") for u in range(1, self.n + 1)]

    def tasks(self, unit, jobs):
        return [(square, (unit.id, x)) for x in range(1, int(unit.id) + 1)]

    def finish(self, unit, results, log):
        return sum(results)

    def waits_for(self, unit):
        return [str(self.n)] if self.wait and unit.id == "1" else []

    def settle(self, unit, record, deps, log):
        self.settled[unit.id] = dict(deps)
        return record + sum(deps.values())

    def _path(self, out, unit):
        return Path(out) / "units" / f"{unit.id}-{unit.key}.json"

    def load(self, out, unit):
        path = self._path(out, unit)
        if not path.is_file():
            raise RN.Unusable("missing")
        try:
            return int(json.loads(path.read_text()))
        except ValueError:
            raise RN.Unusable("not a number") from None

    def write(self, out, unit, record):
        self.writes[unit.id] += 1
        R.atomic_write_text(self._path(out, unit), json.dumps(record))

    def tables(self, out, done, status):
        rows = [{"unit": u.id, "sum": done[u.id]} for u in self.units() if u.id in done]
        if out is not None:
            R.atomic_write_text(Path(out) / "toy.csv", R.csv_text(rows, ["unit", "sum"]))
        return rows

    def remove_tables(self, out):
        (Path(out) / "toy.csv").unlink(missing_ok=True)


def squares(u: int) -> int:
    return u * (u + 1) * (2 * u + 1) // 6


@pytest.fixture(autouse=True)
def _clean():
    CALLS.clear()
    FAIL.clear()
    yield
    CALLS.clear()
    FAIL.clear()


def quiet(**kw):
    return dict(progress=False, log=lambda m: None, **kw)


def status(out: Path) -> str:
    return json.loads((out / "metadata.json").read_text())["status"]


def test_known_answer_files_and_status(tmp_path):
    out = tmp_path / "o"
    rows = RN.run_study(SumOfSquares(4), out, **quiet())
    assert rows == [{"unit": str(u), "sum": squares(u)} for u in range(1, 5)]
    assert status(out) == "complete" and json.loads((out / "metadata.json").read_text())["kind"] == "toy"
    assert (out / "toy.csv").read_text().splitlines() == ["unit,sum", "1,1", "2,5", "3,14", "4,30"]
    assert not (out / R.LOCK_NAME).exists()
    assert sorted(CALLS) == sorted((str(u), x) for u in range(1, 5) for x in range(1, u + 1))


def test_in_memory_writes_nothing(tmp_path):
    kind = SumOfSquares(3)
    assert RN.run_study(kind, None, **quiet())[-1] == {"unit": "3", "sum": 14}
    assert not kind.writes and list(tmp_path.iterdir()) == []


def test_failure_marks_failed_then_resume_skips_finished_units(tmp_path):
    out = tmp_path / "o"
    FAIL["3"] = RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        RN.run_study(SumOfSquares(3), out, **quiet())
    assert status(out) == "failed" and "boom" in json.loads((out / "metadata.json").read_text())["error"]
    assert not (out / "toy.csv").exists()  # no partial table; the finished units are saved
    assert sorted(p.name for p in (out / "units").iterdir()) == ["1-k1.json", "2-k2.json"]
    FAIL.clear()
    CALLS.clear()
    log: list[str] = []
    rows = RN.run_study(SumOfSquares(3), out, progress=False, log=log.append)
    assert CALLS == [("3", 1), ("3", 2), ("3", 3)]  # units 1 and 2 not recomputed
    assert [r["sum"] for r in rows] == [1, 5, 14] and status(out) == "complete"
    assert "resuming: 2 of 3 sums already finished in" in " ".join(log)


def test_damaged_record_is_recomputed_with_a_line(tmp_path):
    out = tmp_path / "o"
    RN.run_study(SumOfSquares(2), out, **quiet())
    (out / "units" / "2-k2.json").write_text("{not json")
    CALLS.clear()
    log: list[str] = []
    rows = RN.run_study(SumOfSquares(2), out, progress=False, log=log.append)
    assert CALLS == [("2", 1), ("2", 2)] and rows[1]["sum"] == 5
    assert log[0] == "recomputing sum 2: not a number" and log[1].startswith("resuming: 1 of 2 sums")


def test_ctrl_c_marks_interrupted_and_keeps_the_table_of_what_finished(tmp_path):
    out = tmp_path / "o"
    FAIL["2"] = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        RN.run_study(SumOfSquares(3), out, **quiet())
    assert status(out) == "interrupted"
    assert (out / "toy.csv").read_text().splitlines() == ["unit,sum", "1,1"]


def test_worker_death_is_one_config_error(tmp_path):
    class TerminatedWorkerError(Exception):  # the name joblib's loky gives a dead worker
        pass

    FAIL["2"] = TerminatedWorkerError("A worker process managed by the executor was unexpectedly terminated")
    with pytest.raises(ConfigError, match=r"--jobs.*a worker process died \(TerminatedWorkerError"):
        RN.run_study(SumOfSquares(2), tmp_path / "o", **quiet())
    assert status(tmp_path / "o") == "failed"


def test_a_held_unit_is_written_once_after_the_unit_it_waits_for(tmp_path):
    out = tmp_path / "o"
    kind = SumOfSquares(3, wait=True)
    order: list[str] = []
    write = kind.write
    kind.write = lambda o, u, r: (order.append(u.id), write(o, u, r))  # type: ignore[method-assign]
    rows = RN.run_study(kind, out, **quiet())
    assert order == ["2", "3", "1"]  # unit 1 finished first, held until unit 3
    assert kind.writes == {"1": 1, "2": 1, "3": 1}
    assert kind.settled["1"] == {"3": 14} and rows[0]["sum"] == 1 + 14
    # resumed: unit 3 from disk, unit 1 recomputed and settled with it
    (out / "units" / "1-k1.json").unlink()
    again = SumOfSquares(3, wait=True)
    assert RN.run_study(again, out, **quiet()) == rows
    assert again.writes == {"1": 1} and again.settled["1"] == {"3": 14}


def test_a_held_lock_is_waited_for(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    log: list[str] = []
    with lock_held(out, 1.0):
        t0 = time.perf_counter()
        RN.run_study(SumOfSquares(2), out, progress=False, log=log.append)
        assert time.perf_counter() - t0 >= 0.9
    assert any("waiting for another bdpsim run" in m for m in log), log


@pytest.mark.parametrize(
    "kw,field",
    [({"jobs": 0}, "--jobs"), ({"jobs": True}, "--jobs"), ({"backend": "mpi"}, "--backend")],
)
def test_bad_executor_arguments_write_nothing(tmp_path, kw, field):
    with pytest.raises(ConfigError, match=field):
        RN.run_study(SumOfSquares(2), tmp_path / "o", **quiet(**kw))
    assert not (tmp_path / "o").exists()


def test_unit_is_validated():
    with pytest.raises(ValueError, match="unit id"):
        RN.Unit("")
    with pytest.raises(TypeError, match="unit key"):
        RN.Unit("a", key=3)  # type: ignore[arg-type]


def test_the_kinds_are_study_kinds():
    from bdpsim.studies.accuracy import AccuracyKind
    from bdpsim.studies.competition import CompetitionKind
    from bdpsim.utility.experiment import UtilityKind

    for kind in (D.RunKind, AccuracyKind, CompetitionKind, UtilityKind, SumOfSquares):
        assert issubclass(kind, RN.StudyBase)
    assert isinstance(SumOfSquares(), RN.StudyKind)


# ------------------------------------------------------------------ bdpsim run as the runner's kind

PAIRED = KDE_AND_MIXTURE  # the determinism test's config: a KDE point beside its mixture pair


@pytest.fixture
def paired(tmp_path):
    (tmp_path / "c.toml").write_text(PAIRED)
    return load_config(tmp_path / "c.toml")


def _count_point_io(monkeypatch) -> collections.Counter:
    """Count reads (``Path.read_bytes``/``read_text``) and writes (``os.replace`` into place) of
    files under a ``points`` directory."""
    counts: collections.Counter = collections.Counter()
    rb, rt, rep = pathlib.Path.read_bytes, pathlib.Path.read_text, os.replace

    def read_bytes(self, *a, **k):
        counts["reads"] += "points" in self.parts
        return rb(self, *a, **k)

    def read_text(self, *a, **k):
        counts["reads"] += "points" in self.parts
        return rt(self, *a, **k)

    def replace(src, dst, *a, **k):
        if "points" in Path(dst).parts:
            counts[Path(dst).name] += 1
        return rep(src, dst, *a, **k)

    monkeypatch.setattr(pathlib.Path, "read_bytes", read_bytes)
    monkeypatch.setattr(pathlib.Path, "read_text", read_text)
    monkeypatch.setattr(os, "replace", replace)
    return counts


def test_a_fresh_run_writes_each_point_once_and_reads_none_back(tmp_path, paired, monkeypatch):
    """Before the one runner, this run read 26 point files back and wrote 10 (the KDE markers
    twice); now 0 and 8 (4 points x marker + adversary file), the KDE counts in the first write."""
    counts = _count_point_io(monkeypatch)
    rows = D.run_experiment(paired, tmp_path / "o", **quiet())
    assert counts.pop("reads") == 0
    assert counts == {f"{p.id}{ext}": 1 for p in paired.points for ext in (".json", ".csv.gz")}
    kde = [r for r in rows if r["estimator"] == "kde"]
    assert len(kde) == 2 and all(isinstance(r["kde_above_mixture_n"], int) for r in kde)
    for r in kde:  # the record on disk is the row returned
        marker = json.loads(R.point_paths(tmp_path / "o", r["point_id"])[0].read_text())
        assert {k: v for k, v in marker.items() if not k.startswith("_")} == r
    # a resume reads each record (before and under the lock) and writes none
    counts.clear()
    again = D.run_experiment(paired, tmp_path / "o", **quiet())
    assert counts == {"reads": 4 * 2 * 2} and again == rows


def test_run_resumes_after_a_failing_task_without_recomputing(tmp_path, paired, monkeypatch):
    """A task that raises stops the run (failed, no tables, finished points saved); re-running
    computes only the rest, and the tables are those of an uninterrupted run."""
    clean = D.run_experiment(paired, tmp_path / "clean", **quiet())
    real = D.run_chunk
    bad = paired.points[3].id  # points: kde, kde, mixture, mixture; each kde waits for its mixture

    def chunk(point, indices):
        if point.id == bad:
            raise RuntimeError("a task failed")
        return real(point, indices)

    monkeypatch.setattr(D, "run_chunk", chunk)
    out = tmp_path / "o"
    with pytest.raises(RuntimeError, match="a task failed"):
        D.run_experiment(paired, out, **quiet())
    assert status(out) == "failed" and not (out / "summary.csv").exists()
    finished = [p.id for p in paired.points if R.point_done(out, p.id)]
    assert finished == [paired.points[0].id, paired.points[2].id]  # the second kde was held, not written
    monkeypatch.setattr(D, "run_chunk", real)
    calls: list[str] = []
    monkeypatch.setattr(D, "run_chunk", lambda point, idx: (calls.append(point.id), real(point, idx))[1])
    again = D.run_experiment(paired, out, **quiet())
    assert not set(calls) & set(finished)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]  # noqa: E731
    assert strip(again) == strip(clean) and status(out) == "complete"
    assert gzip.decompress((out / "adversaries.csv.gz").read_bytes()) == gzip.decompress(
        (tmp_path / "clean" / "adversaries.csv.gz").read_bytes()
    )
    tables = []
    for d in (out, tmp_path / "clean"):
        with open(d / "summary.csv", newline="") as fh:
            tables.append(strip(list(csv.DictReader(fh))))
    assert tables[0] == tables[1]


def test_finished_run_leaves_no_lock(tmp_path, capsys):
    out = tmp_path / "o"
    rc, _, err = cli(capsys, "run", toml(tmp_path, OK), "--out", out, "--quiet")
    assert rc == 0, err
    assert not (out / R.LOCK_NAME).exists()
    assert sorted(p.name for p in out.iterdir()) == [
        "adversaries.csv.gz",
        "metadata.json",
        "points",
        "summary.csv",
    ]


def test_lock_waiter_survives_the_holder_removing_the_file(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    held, release, order = threading.Event(), threading.Event(), []

    def holder():
        with R.run_lock(out):
            held.set()
            release.wait(10)
            order.append("first done")

    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    threading.Timer(0.5, release.set).start()
    with R.run_lock(out) as path:
        order.append("second holds")
        assert path.exists()  # the file the second run holds is the one at the path
    t.join()
    assert order == ["first done", "second holds"]
    assert not (out / R.LOCK_NAME).exists()


def test_concurrent_runs_are_serialised(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    cfg = load_config(toml(tmp_path, OK))
    log: list[str] = []
    with lock_held(out, 1.0):
        t0 = time.perf_counter()
        run_experiment(cfg, out, progress=False, log=log.append)
        assert time.perf_counter() - t0 >= 0.9
    assert any("waiting for another bdpsim run" in m for m in log), log
