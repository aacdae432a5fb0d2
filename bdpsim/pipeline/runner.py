"""The one runner: a study kind's units → tasks on the one executor → records, with the lock,
``metadata.json``, resume, Ctrl-C, failure and worker-death handling written once.

A *study kind* (:class:`StudyKind`) says what a study is made of: its units (an id and a content
key: a saved unit is reused only for the same key), the tasks of a unit (picklable calls run by
:func:`bdpsim.pipeline.backends.parallel`), how a finished unit's task results become its record
(``finish``), how a record is saved and read back (``write``, ``load``) and how the records of
the finished units become the study's tables (``tables``). ``bdpsim run``
(:func:`bdpsim.pipeline.driver.run_experiment`), the accuracy report, the competition and the
utility experiment are kinds; :func:`run_study` runs any of them:

* **lock**: one run at a time writes into ``out`` (:func:`bdpsim.pipeline.results.run_lock`);
  a second run waits, then resumes what the first finished;
* **metadata**: ``out/metadata.json`` says ``running``, then ``complete``, ``interrupted``
  (Ctrl-C: the tables of what finished are written) or ``failed`` (the partial tables removed);
* **resume**: a unit whose saved record loads (``load``) is not recomputed; one that does not is
  recomputed, with a line saying why unless it is simply missing;
* **one write per unit**: a unit's record is written once, when it and the units it waits for
  (``waits_for``) are finished; within a run the records stay in memory, and only the units
  finished by an earlier run are read from disk;
* **worker death**: a worker process that dies becomes one ``ConfigError`` (``worker_died``).

Without ``out`` (``None``) the same units and tasks run with nothing written (no lock, no
metadata, no resume): the in-memory form of a study.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..core.errors import ConfigError
from . import results as R
from .backends import BACKENDS, WORKER_DEATHS, Heartbeat, check_scheduler, parallel
from .results.points import Unusable
from .watchdog import worker_count

__all__ = [
    "RowsStudy",
    "StudyBase",
    "StudyKind",
    "Unit",
    "Unusable",
    "checked_jobs",
    "load_rows",
    "rows_json",
    "run_study",
]


@dataclass(frozen=True)
class Unit:
    """One unit of a study: ``id`` (unique within the study, used in file names and messages) and
    ``key`` (a content hash: a saved unit is reused only for the same key; empty when the id says
    it all)."""

    id: str
    key: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"unit id = {self.id!r}: must be a non-empty string")
        if not isinstance(self.key, str):
            raise TypeError(f"unit key = {self.key!r}: must be a string")


@runtime_checkable
class StudyKind(Protocol):
    """What :func:`run_study` needs of a study (:class:`StudyBase` gives the optional parts:
    ``task_count``, ``prepare``, ``waits_for``, ``settle``, ``begin``, ``check``, ``check_out``,
    ``metadata``, ``remove_tables``, ``worker_died``)."""

    #: the ``kind`` of ``metadata.json`` and the progress bar's label (``run``, ``accuracy``, ...)
    name: str
    #: what its units are called in messages, plural (``configurations``, ``cases``, ...)
    noun: str
    #: and one of them (``configuration``, ``case``, ...)
    noun_one: str

    def units(self) -> Sequence[Unit]:
        """Every unit, in the order of the tables."""

    def prepare(self, todo: Sequence[Unit]) -> None:
        """Work the units to compute share, done once in this process before their tasks."""

    def tasks(self, unit: Unit, jobs: int) -> list[tuple[Callable, tuple]]:
        """The unit's tasks ``(fn, args)``: picklable calls whose results go to :meth:`finish`."""

    def task_count(self, unit: Unit, jobs: int) -> int:
        """How many tasks :meth:`tasks` makes (without making them): caps the workers."""

    def finish(self, unit: Unit, results: list, log: Callable[[str], None]) -> Any:
        """The unit's record from its tasks' results (in the order of :meth:`tasks`)."""

    def waits_for(self, unit: Unit) -> Sequence[str]:
        """Ids of the units whose records :meth:`settle` needs before this one is written."""

    def settle(self, unit: Unit, record: Any, deps: Mapping[str, Any], log: Callable[[str], None]) -> Any:
        """The final record, once the units of :meth:`waits_for` are finished (``deps``)."""

    def load(self, out: Path, unit: Unit) -> Any:
        """The record an earlier run saved, or raise :class:`Unusable` (its reason)."""

    def write(self, out: Path, unit: Unit, record: Any) -> None:
        """Save a finished unit's record (atomically: it is complete or absent)."""

    def begin(self, out: Path, done: Mapping[str, Any]) -> None:
        """The run starts (lock held): ``done`` holds the records of earlier runs."""

    def check(self, jobs: int) -> None:
        """Refuse (one line) what cannot run with ``jobs`` workers, before anything is written."""

    def check_out(self, out: str | Path, force: bool) -> Path:
        """Check (writing nothing) that ``out`` can take the study's files; return it as a Path."""

    def metadata(self, jobs: int, backend: str) -> dict:
        """``metadata.json`` of a run that starts (the runner adds ``started`` and ``status``)."""

    def tables(self, out: Path | None, done: Mapping[str, Any], status: str) -> Any:
        """Write the tables of the finished units (``status``: ``complete`` or ``interrupted``)
        when ``out`` is given; return the study's result."""

    def remove_tables(self, out: Path) -> None:
        """Remove the tables (a failed run leaves no partial tables; saved records stay)."""

    def worker_died(self, exc: BaseException, todo: Sequence[Unit], jobs: int) -> Exception:
        """The one-line error of a worker process that died running ``todo``'s tasks."""


class StudyBase:
    """Defaults of the optional parts of :class:`StudyKind`: nothing shared to prepare, no unit
    waits for another, a record
    is final when finished, nothing to do when a run begins, every ``jobs`` accepted, ``out`` any
    directory path (the kind's command checks more), metadata with the kind's name only, no
    tables to remove, a worker death blamed on ``--jobs``."""

    name = "study"
    noun = "units"
    noun_one = "unit"

    def task_count(self, unit: Unit, jobs: int) -> int:
        return len(self.tasks(unit, jobs))  # type: ignore[attr-defined]

    def prepare(self, todo: Sequence[Unit]) -> None:
        return None

    def waits_for(self, unit: Unit) -> Sequence[str]:
        return ()

    def settle(self, unit: Unit, record: Any, deps: Mapping[str, Any], log: Callable[[str], None]) -> Any:
        return record

    def begin(self, out: Path, done: Mapping[str, Any]) -> None:
        return None

    def check(self, jobs: int) -> None:
        return None

    def check_out(self, out: str | Path, force: bool) -> Path:
        text = str(out)
        if not text.strip():
            raise ConfigError("--out", text, "must be a directory path, not empty")
        p = Path(text)
        if p.exists() and not p.is_dir():
            raise ConfigError("--out", text, "exists and is not a directory")
        return p

    def metadata(self, jobs: int, backend: str) -> dict:
        return R.metadata(self.name, None, None, argv=sys.argv, jobs=jobs, backend=backend)

    def remove_tables(self, out: Path) -> None:
        return None

    def worker_died(self, exc: BaseException, todo: Sequence[Unit], jobs: int) -> Exception:
        return ConfigError(
            "--jobs",
            jobs,
            f"a worker process died ({type(exc).__name__}; killed from outside or out of memory?): "
            f"finished {self.noun} are saved; re-run to resume, or lower --jobs",
        )


def rows_json(rows: Sequence[dict]) -> str:
    """A unit's rows as JSON, each row's keys in their order (a resumed unit's rows are the rows
    it returned: same columns, same order; ``nan`` kept)."""
    import json

    from .results.tables import json_default

    return json.dumps(list(rows), indent=1, allow_nan=True, default=json_default)


def load_rows(path: Path) -> list[dict]:
    """The rows :func:`rows_json` saved at ``path``, or :class:`Unusable` (missing, not JSON, not
    a list of rows)."""
    import json

    if not path.is_file():
        raise Unusable("missing")
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise Unusable("its file is not readable JSON") from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise Unusable("its file is not a list of rows")
    return rows


class RowsStudy(StudyBase):
    """A study kind whose unit records are lists of rows, saved as JSON
    (:func:`rows_json`) at :meth:`record_path`, by default ``OUT/units/<id>-<key>.json``."""

    def record_path(self, out: Path, unit: Unit) -> Path:
        """Where a unit's rows are saved."""
        return Path(out) / "units" / f"{unit.id}-{unit.key}.json"

    def load(self, out: Path, unit: Unit) -> list[dict]:
        return load_rows(self.record_path(out, unit))

    def write(self, out: Path, unit: Unit, record: list[dict]) -> None:
        R.atomic_write_text(self.record_path(out, unit), rows_json(record))


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def checked_jobs(
    kind: StudyKind, jobs: Any, backend: str, scheduler: str | None, log: Callable[[str], None]
) -> int:
    """``--jobs``, ``--backend`` and ``--scheduler`` checked; the local worker count capped at the
    CPUs and the tasks (a fork storm otherwise), with a line saying so."""
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ConfigError("--jobs", jobs, "must be an integer >= 1")
    if backend not in BACKENDS:
        raise ConfigError("--backend", backend, f"must be one of {list(BACKENDS)}")
    if scheduler is not None:
        check_scheduler(scheduler)
        return jobs
    jobs, note = worker_count(jobs, sum(kind.task_count(u, jobs) for u in kind.units()))
    if note:
        log(note)
    return jobs


def _saved(kind: StudyKind, out: Path, unit: Unit) -> bool:
    try:
        kind.load(out, unit)
    except Unusable:
        return False
    return True


def run_study(
    kind: StudyKind,
    out: str | Path | None,
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] = _stderr,
    heartbeat: float = 0.0,
    force: bool = False,
) -> Any:
    """Run every unfinished unit of ``kind`` into ``out``; return ``kind.tables(...)``.

    Parameters
    ----------
    kind : StudyKind
        The study.
    out : str, Path or None
        Its directory (``None``: run in memory, write nothing).
    jobs, backend, scheduler
        Workers and where they run (:func:`bdpsim.pipeline.backends.parallel`).
    progress : bool
        A progress bar of the tasks on stderr.
    log : callable
        Where one-line messages go (resume, recomputed units, warnings).
    heartbeat : float
        ``> 0``: a one-line progress report every ``heartbeat`` seconds (for logs).
    force : bool
        Passed to ``kind.check_out`` (e.g. an ``out`` holding other files).

    Raises
    ------
    ConfigError
        Bad ``jobs``/``backend``/``scheduler``/``out``, an ``out`` that cannot be written
        (finished units are kept), or a worker process that died.
    KeyboardInterrupt
        Ctrl-C, after writing the tables of what finished and ``status = "interrupted"``.
    """
    jobs = checked_jobs(kind, jobs, backend, scheduler, log)
    kind.check(jobs)
    units = list(kind.units())
    if out is None:
        with contextlib.ExitStack() as stack:
            par = stack.enter_context(parallel(jobs, backend, scheduler)) if units else None
            done: dict[str, Any] = {}
            _guarded(kind, _Run(par, units, units, None, jobs, None, done), log, progress, heartbeat)
            return kind.tables(None, done, "complete")
    out = kind.check_out(out, force)
    pending = not all(_saved(kind, out, u) for u in units) if out.is_dir() else bool(units)
    # connect to the backend first: an unreachable scheduler must not leave files behind
    with contextlib.ExitStack() as stack:
        par = stack.enter_context(parallel(jobs, backend, scheduler)) if pending else None
        try:
            out.mkdir(parents=True, exist_ok=True)
            stack.enter_context(R.run_lock(out, log))
        except OSError as exc:
            raise ConfigError("--out", str(out), f"cannot be written ({exc.strerror or exc})") from None
        done = {}
        for u in units:  # again under the lock: we may have waited for another run
            try:
                done[u.id] = kind.load(out, u)
            except Unusable as why:
                if why.reason != "missing":
                    log(f"recomputing {kind.noun_one} {u.id}: {why.reason}")
        todo = [u for u in units if u.id not in done]
        if todo and par is None:
            par = stack.enter_context(parallel(jobs, backend, scheduler))
        meta = {**kind.metadata(jobs, backend), "started": R.now(), "status": "running"}
        R.atomic_write_text(out / "metadata.json", R.dumps(meta))
        if todo and len(todo) < len(units):
            log(f"resuming: {len(units) - len(todo)} of {len(units)} {kind.noun} already finished in {out}")
        try:
            kind.begin(out, done)
            _guarded(kind, _Run(par, units, todo, out, jobs, meta, done), log, progress, heartbeat)
            result = kind.tables(out, done, "complete")
        except OSError as exc:  # a full disk, the directory removed or made read-only mid-run
            raise ConfigError(
                "--out",
                str(out),
                f"cannot be written ({exc.strerror or exc}"
                f"{': ' + str(exc.filename) if exc.filename else ''}); "
                f"finished {kind.noun} are kept: free space and re-run to resume",
            ) from None
        meta.update(status="complete", finished=R.now())
        R.atomic_write_text(out / "metadata.json", R.dumps(meta))
    return result


@dataclass
class _Run:
    """One run's state: the executor (``None`` when nothing is to run), every unit (table order),
    the units to compute, the directory and metadata (``None`` in memory), the workers and the
    records of the finished units (filled as units finish)."""

    par: Any
    units: list[Unit]
    todo: list[Unit]
    out: Path | None
    jobs: int
    meta: dict | None
    done: dict[str, Any] = field(default_factory=dict)


def _guarded(kind: StudyKind, run: _Run, log, progress: bool, heartbeat: float) -> None:
    """:func:`_execute`, a worker process that died reported as the kind's one-line error."""
    try:
        _execute(kind, run, log, progress, heartbeat)
    except Exception as exc:
        if type(exc).__name__ not in WORKER_DEATHS:
            raise
        raise kind.worker_died(exc, run.todo, run.jobs) from None


def _tagged(unit_id: str, index: int, fn: Callable, *args) -> tuple[str, int, Any]:
    """Run one task (on a worker): its result tagged with its unit and place."""
    return unit_id, index, fn(*args)


def _execute(kind: StudyKind, run: _Run, log, progress: bool, heartbeat: float) -> None:
    """Run the tasks of ``run.todo``; each unit's record is settled and written as soon as it and
    the units it waits for are finished. Ctrl-C writes the tables of what finished and marks
    ``interrupted``; any other failure removes the tables and marks ``failed``."""
    from joblib import delayed
    from tqdm.auto import tqdm

    out, meta, done = run.out, run.meta, run.done
    by_id = {u.id: u for u in run.todo}
    state = {"tasks": 0, "units": 0, "total": 0}
    bar = None
    beat = Heartbeat(
        heartbeat,
        log,
        lambda: (
            f"bdpsim {kind.name}: {state['tasks']}/{state['total']} tasks, "
            f"{state['units']}/{len(run.todo)} {kind.noun}"
        ),
    )
    try:
        if run.todo:
            kind.prepare(run.todo)
        plans = {u.id: kind.tasks(u, run.jobs) for u in run.todo}
        state["total"] = sum(map(len, plans.values()))
        bar = tqdm(
            total=state["total"],
            unit="task",
            disable=not progress,
            desc=f"bdpsim {kind.name}",
            file=sys.stderr,
        )
        results: dict[str, list] = {uid: [None] * len(p) for uid, p in plans.items()}
        remaining = {uid: len(p) for uid, p in plans.items()}
        held: dict[str, Any] = {}
        for uid, n in remaining.items():  # a unit without tasks is finished at once
            if n == 0:
                held[uid] = kind.finish(by_id[uid], [], log)
        _settle(kind, run, held, log, state)
        calls = (
            delayed(_tagged)(uid, i, fn, *args) for uid, p in plans.items() for i, (fn, args) in enumerate(p)
        )
        for uid, i, res in run.par(calls) if state["total"] else ():
            results[uid][i] = res
            remaining[uid] -= 1
            state["tasks"] += 1
            bar.update(1)
            if remaining[uid] == 0:
                held[uid] = kind.finish(by_id[uid], results.pop(uid), log)
                _settle(kind, run, held, log, state)
        if held:  # waiting for a unit that never finished: settle with what there is
            _settle(kind, run, held, log, state, final=True)
    except KeyboardInterrupt:  # Ctrl-C: leave consistent tables of what finished
        if out is not None and meta is not None:
            kind.tables(out, done, "interrupted")
            meta.update(status="interrupted", finished=R.now())
            R.atomic_write_text(out / "metadata.json", R.dumps(meta))
        raise
    except BaseException as exc:  # a failure: no partial tables; finished units stay for a resume
        if out is not None and meta is not None:
            kind.remove_tables(out)
            meta.update(status="failed", finished=R.now(), error=f"{type(exc).__name__}: {exc}")
            R.atomic_write_text(out / "metadata.json", R.dumps(meta))
        raise
    finally:
        beat.stop()
        if bar is not None:
            bar.close()


def _settle(kind: StudyKind, run: _Run, held: dict, log, state: dict, final: bool = False) -> None:
    """Settle and write every held record whose units waited for are finished (repeatedly: a
    written unit may release another); ``final``: all of them, with the records there are."""
    by_id = {u.id: u for u in run.todo}
    moved = True
    while moved and held:
        moved = False
        for uid in list(held):
            unit = by_id[uid]
            deps = list(kind.waits_for(unit))
            if final or all(d in run.done for d in deps):
                have = {d: run.done[d] for d in deps if d in run.done}
                record = kind.settle(unit, held.pop(uid), have, log)
                if run.out is not None:
                    kind.write(run.out, unit, record)
                run.done[uid] = record
                state["units"] += 1
                moved = True
