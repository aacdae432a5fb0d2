"""Batch driver: configuration points × adversary chunks → joblib tasks → per-point results.

Seeds. One root seed per run; every stream is a node ``seeds.node(seed, *path)`` of its spawn
tree (:mod:`bdpsim.pipeline.seeds`, the one module that builds seed sequences).

* Adversary ``j`` is drawn from ``path = (p.population_key, 2, j)``. The population key
  hashes only what defines the adversary population — the model, the mechanism, ``known_sizes``
  and ``targets`` — so the points of one config that differ only in how they estimate
  (``estimator``, ``samples``, KDE and mixture options, ...) examine the **same adversaries**
  (common random numbers): their differences are estimator error, not different draws.
* Its estimate and noise floor use the two children of ``(p.key, 0, j)``, ``p.key``
  being derived from the point's content hash.

So a point's numbers do not depend on the number of workers, the backend, the chunking, or which
other points the config contains. The percentile's confidence interval is distribution-free
(:func:`bdpsim.kernels.stats.percentile_ci`) and draws no random numbers.

Resume. A finished point is written atomically (``results.write_point``); re-running the same
command skips finished points whose records are intact and recomputes damaged ones
(``results.point_problem``). A lock serialises runs into one directory; a failure marks
``metadata.json`` ``failed`` and removes the partial tables, Ctrl-C marks it ``interrupted``.
Memory stays bounded: each task holds one adversary's samples at a time, samples are generated in
chunks (``run.chunk``), and configs whose estimated memory or work exceed the limits
(:mod:`bdpsim.pipeline.cost`) are refused before anything runs. Tasks carry their point pickled and load it
themselves (:func:`run_task`): a worker that cannot load it reports an error instead of hanging.
"""

from __future__ import annotations

import contextlib
import math
import pickle
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

try:  # joblib's process pool (loky) depends on cloudpickle; older joblib vendors it
    import cloudpickle
except ImportError:  # pragma: no cover
    from joblib.externals import cloudpickle

from ..core.errors import BdpsimError, ConfigError, NotAvailable
from ..estimators.all_adversaries import ALL_ADVERSARIES, all_adversaries_cheap
from ..estimators.kde import KDE_MIXTURE_CHECK
from ..estimators.protocols import ComparedWithIntervals, HasAdversaryIntervals, HasWindowRows
from ..models.base import adversary_names, record_names
from ..models.engines import HasExhaustive, HasWindowPlan, HasWindowSearch
from . import results as R
from .backends import BACKENDS, WORKER_DEATHS, Heartbeat, check_scheduler, parallel
from .config import ExperimentConfig, ExperimentPoint
from .cost import Limits, check_limits
from .flags import FLAGS, warning_line
from .flags import flags as _flags_of
from .rows import ADVERSARY_COLUMNS, AdversaryResult, ordered_extras
from .summarize import check_bounds, summarize
from .watchdog import worker_count

STAT_KEYS = ("bdpl", "null_bdpl", "exact", "nonpositive_points", "bdpl_se", "samples")


def extra_columns(config: ExperimentConfig) -> tuple[list[str], list[str]]:
    """The extra ``summary.csv`` and ``adversaries.csv.gz`` columns the config's points fill
    (:func:`bdpsim.core.columns.register_columns`), in registration order."""
    summ, adv = set(), set()
    for p in config.points:
        est = p.estimator()
        kind = p.model.owner  # e.g. named nodes (networks): names beside the indices
        summ |= {*est.summary_extras, *p.mechanism.summary_extras, *kind.summary_extras(p.model)}
        adv |= {*est.adversary_extras, *kind.adversary_extras(p.model)}
    if kde_mixture_pairs(config):
        summ |= {c.name for c in KDE_MIXTURE_CHECK}
    last = [ALL_ADVERSARIES] if any(all_adversaries_cheap(p) for p in config.points) else []  # appended: the
    return ordered_extras("summary", summ) + last, ordered_extras(
        "adversaries", adv
    )  # older columns keep their places


@dataclass(frozen=True)
class ChunkResult:
    """A task's output: the full per-adversary statistics (``stats``, arrays in a fixed order),
    the rows kept for ``adversaries.csv.gz`` and the task's compute time."""

    point_id: str
    order: int
    rows: list
    stats: dict
    seconds: float


def _stats_of(rows: list[AdversaryResult] | None = None, **arrays) -> dict:
    """The per-adversary statistics of :data:`STAT_KEYS` (and the rows' numeric extras), from
    ``rows`` or from the given arrays (missing ones filled with ``nan``; ``nonpositive_points``
    with 0)."""
    if rows is not None:
        stats = {k: np.array([getattr(r, k) for r in rows], dtype=float) for k in STAT_KEYS}
        for k in dict.fromkeys(k for r in rows for k, v in r.extras.items() if isinstance(v, (int, float))):
            stats[k] = np.array([r.extras.get(k, math.nan) for r in rows], dtype=float)
        return stats
    size = len(arrays["bdpl"])
    fill = {"nonpositive_points": 0.0}
    return {
        k: np.asarray(arrays[k], dtype=float) if k in arrays else np.full(size, fill.get(k, math.nan))
        for k in STAT_KEYS
    }


def _concat_stats(parts: list[ChunkResult]) -> dict:
    """A point's per-adversary statistics from its chunks, in adversary order: :data:`STAT_KEYS`
    and the estimator's numeric extras (``nan`` where a chunk has none), for ``finish``."""
    keys = dict.fromkeys([*STAT_KEYS, *(k for c in parts for k in c.stats)])
    size = [len(c.stats["bdpl"]) for c in parts]
    return {
        k: np.concatenate(
            [np.asarray(c.stats.get(k, np.full(m, math.nan)), dtype=float) for c, m in zip(parts, size)]
        )
        for k in keys
    }


def _keep_rows(point: ExperimentPoint, rows: list[AdversaryResult]) -> list[AdversaryResult]:
    keep = point.settings.adversary_rows
    if keep == "all" or len(rows) <= keep:
        return rows
    return sorted(rows, key=lambda r: -r.bdpl if np.isfinite(r.bdpl) else np.inf)[:keep]


def run_chunk(point: ExperimentPoint, indices: Sequence[int]) -> ChunkResult:
    """Estimate the adversaries ``indices`` of ``point`` (a joblib task)."""
    t0 = time.perf_counter()
    est = point.estimator()
    mech = point.mechanism
    nf = point.settings.noise_floor_adversaries
    is_exact = est.exact
    want_exact = point.settings.exact_reference or is_exact
    rows = []
    for j in indices:
        r_draw, r_est, r_null = point.adversary_streams(j)
        model, adv = point.draw_adversary(r_draw)
        e = est.estimate(model, mech, adv, r_est)
        null = est.null_estimate(model, mech, adv, r_null).value if j < nf else math.nan
        exact = math.nan
        if is_exact:
            exact = e.value
        elif want_exact:
            try:  # the exact value of what this estimator estimates (one- or two-sided)
                exact = est.reference(model, mech, adv).value
            except NotAvailable:
                pass
        rows.append(
            AdversaryResult.of(
                point.id,
                j,
                adv,
                e.value,
                null_bdpl=null,
                nonpositive_points=e.nonpositive,
                argmax=e.argmax,
                exact=exact,
                bdpl_se=0.0 if is_exact else e.se,
                samples=e.samples if e.samples else math.nan,
                extras={**e.extra, **adversary_names(model, adv.i, adv.known, adv)},
            )
        )
    return ChunkResult(
        point.id, int(indices[0]), _keep_rows(point, rows), _stats_of(rows), time.perf_counter() - t0
    )


def run_exhaustive(point: ExperimentPoint, targets: Sequence[int]) -> ChunkResult:
    """Exact BDPL of every adversary with target in ``targets`` (a joblib task), by the point's
    exact engine (:func:`bdpsim.estimators.exact.engine_for`)."""
    t0 = time.perf_counter()
    res = cast(HasExhaustive, point.exact_engine).exhaustive(point.sizes, list(targets))
    idx = np.arange(len(res))
    keep = point.settings.adversary_rows
    sel = idx if keep == "all" or idx.size <= keep else idx[np.argsort(-res.value[idx], kind="stable")[:keep]]
    rows = [
        AdversaryResult.of(
            point.id,
            -1,
            res.adversary(j),
            float(res.value[j]),
            argmax=float(res.argmax[j]),
            exact=float(res.value[j]),
        )
        for j in sel
    ]
    v = res.value[idx]
    stats = _stats_of(bdpl=v, exact=v, bdpl_se=np.zeros(v.size))
    return ChunkResult(point.id, int(targets[0]), rows, stats, time.perf_counter() - t0)


def run_window(point: ExperimentPoint, targets: Sequence[int] | None = None) -> ChunkResult:
    """Exact BDPL of every adversary by the window reduction (one task): rows are the window
    cells (target, unknowns left/right, boundary values or chain ends, x, x'), the most leaking
    first; ``known`` is written as ranges ``0..l;r..n-1`` and ``x_known`` as the boundary values
    (given them, the records beyond are independent of the window and do not change the BDPL)."""
    t0 = time.perf_counter()
    keep = point.settings.adversary_rows
    top = None if keep == "all" else keep
    eng = cast(HasWindowSearch, point.exact_engine)
    if targets is None:
        _, advs, values = eng.window(point.sizes[0], top)
    else:  # one part of a search split by target (HasWindowPlan.window_parts)
        _, advs, values = eng.window(point.sizes[0], top, targets=list(targets))
    est = point.estimator()  # the exact estimator shapes them (privacy profile)
    found = (
        est.window_rows(point, advs, values)
        if isinstance(est, HasWindowRows)
        else [(w, w.bdpl, w.argmax, {}) for w in advs]
    )
    model = point.model.fixed
    named = bool(record_names(model))  # named nodes (networks): names beside the indices
    rows = []
    for w, v, y, x in found:
        more = {
            **(adversary_names(model, w.i, w.adversary().known, w.adversary()) if named else {}),
            **x,
        }  # and the estimator's
        rows.append(AdversaryResult(point.id, -1, **w.table_row(), bdpl=v, argmax=y, exact=v, extras=more))
    stats = _stats_of(bdpl=values, exact=values)
    return ChunkResult(point.id, 0, rows, stats, time.perf_counter() - t0)


def run_task(fn: Callable, point_blob: bytes, *args) -> ChunkResult:
    """Run ``fn(point, *args)`` on a worker, the point arriving pickled: a point the worker cannot
    load (e.g. the user's mechanism module is missing there) raises a one-line
    :class:`~bdpsim.core.errors.ConfigError` instead of breaking the pool or hanging the client."""
    try:
        point = pickle.loads(point_blob)
    except BdpsimError:
        raise
    except Exception as exc:
        raise ConfigError(
            "--backend",
            "worker",
            f"cannot load the task on a worker ({type(exc).__name__}: {' '.join(str(exc).split())[:160]})",
        ) from None
    return fn(point, *args)


def plan(point: ExperimentPoint, jobs: int) -> list[tuple[Callable, tuple]]:
    """Split a point into tasks; the split never changes the numbers."""
    if point.settings.exhaustive:
        if point.exhaustive_method == "window":
            eng = point.exact_engine
            if isinstance(eng, HasWindowPlan):  # one task per part: the progress bar counts them
                return [(run_window, (point, part)) for part in eng.window_parts()]
            return [(run_window, (point,))]
        return [(run_exhaustive, (point, [i])) for i in range(point.model.n)]
    A = cast(int, point.settings.adversaries)  # a count: "all" returned above
    size = max(1, min(25, math.ceil(A / max(1, 2 * jobs))))
    return [(run_chunk, (point, list(range(s, min(A, s + size))))) for s in range(0, A, size)]


def _task_count(point: ExperimentPoint, jobs: int) -> int:
    """How many tasks :func:`plan` makes of ``point`` (without building an exhaustive search's parts)."""
    if point.settings.exhaustive:
        return point.model.n if point.exhaustive_method != "window" else jobs
    A = cast(int, point.settings.adversaries)  # an int unless exhaustive ("all"), handled above
    return math.ceil(A / max(1, min(25, math.ceil(A / max(1, 2 * jobs)))))


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _checked_jobs(config: ExperimentConfig, jobs, backend: str, scheduler: str | None, log) -> int:
    """``--jobs``, ``--backend`` and ``--scheduler`` checked; the local worker count capped at the
    CPUs and the tasks (a fork storm otherwise), with a line saying so."""
    if not isinstance(jobs, int) or jobs < 1:
        raise ConfigError("--jobs", jobs, "must be an integer >= 1")
    if backend not in BACKENDS:
        raise ConfigError("--backend", backend, f"must be one of {list(BACKENDS)}")
    if scheduler is not None:
        check_scheduler(scheduler)
        return jobs
    jobs, note = worker_count(jobs, sum(_task_count(p, jobs) for p in config.points))
    if note:
        log(note)
    return jobs


def _run_metadata(config: ExperimentConfig, jobs: int, backend: str) -> dict:
    """``metadata.json`` of a run that starts: config, seed, points, provenance, status running."""
    return R.metadata(
        "run",
        config.raw,
        config.seed,
        points=[
            {
                "id": p.id,
                "params": p.params,
                **({"model_notes": list(p.model.detail["notes"])} if p.model.detail.get("notes") else {}),
            }
            for p in config.points
        ],
        source=config.source,
        title=config.title,
        started=R.now(),
        status="running",
        argv=sys.argv,
        jobs=jobs,
        backend=backend,
    )


def run_experiment(
    config: ExperimentConfig,
    out: str | Path,
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] = _stderr,
    heartbeat: float = 0.0,
    force: bool = False,
    limits: Limits | None = None,
) -> list[dict]:
    """Run every unfinished point of ``config`` into ``out``; return all summary rows.

    Finished points already in ``out`` (same config content and seed, records intact) are
    skipped; damaged ones are recomputed. ``heartbeat > 0`` logs a one-line progress report
    every ``heartbeat`` seconds (for logs, where a progress bar is useless). ``force`` allows an
    ``out`` holding other files. ``limits`` (default :class:`~bdpsim.pipeline.cost.Limits`) caps the
    estimated memory and work (:func:`bdpsim.pipeline.cost.check_limits`), before anything is written.
    Concurrent runs into one ``out`` are serialised by a lock. A failure mid-run removes the
    partial ``summary.csv``/``adversaries.csv.gz`` and marks ``metadata.json`` ``failed``;
    Ctrl-C keeps the tables of what finished and marks it ``interrupted``.
    """
    jobs = _checked_jobs(config, jobs, backend, scheduler, log)
    check_limits(config, limits or Limits(), jobs)
    out = R.check_out_dir(out, force)
    ids = [p.id for p in config.points]
    label = config.percentile_label
    extras = extra_columns(config)
    todo = [p for p in config.points if not R.point_done(out, p.id)]
    # connect to the backend first: an unreachable scheduler must not leave files behind
    with contextlib.ExitStack() as stack:
        par = stack.enter_context(parallel(jobs, backend, scheduler)) if todo else None
        try:
            out.mkdir(parents=True, exist_ok=True)
            stack.enter_context(R.run_lock(out, log))
        except OSError as exc:
            raise ConfigError("--out", str(out), f"cannot be written ({exc.strerror or exc})") from None
        problems = {p.id: R.point_problem(out, p.id) for p in config.points}  # again: we may have waited
        todo = [p for p in config.points if problems[p.id] is not None]
        for p in todo:
            if problems[p.id] != "missing":
                log(f"recomputing configuration {p.id}: {problems[p.id]}")
        if todo and par is None:
            par = stack.enter_context(parallel(jobs, backend, scheduler))
        meta = _run_metadata(config, jobs, backend)
        R.atomic_write_text(out / "metadata.json", R.dumps(meta))
        if len(todo) < len(ids):
            log(f"resuming: {len(ids) - len(todo)} of {len(ids)} configurations already finished in {out}")
        summary = R.SummaryLog(out, ids, label, extras[0])  # finished points, once; then appended
        try:
            _execute(
                _Run(par, todo, ids, (label, extras), out, jobs, meta, summary), log, progress, heartbeat
            )
        except OSError as exc:  # a full disk, the directory removed or made read-only mid-run
            raise ConfigError(
                "--out",
                str(out),
                f"cannot be written ({exc.strerror or exc}"
                f"{': ' + str(exc.filename) if exc.filename else ''}); "
                "finished configurations are kept: free space and re-run to resume",
            ) from None
        except Exception as exc:
            if type(exc).__name__ not in WORKER_DEATHS:
                raise
            raise worker_died(todo, exc, jobs) from None
        compare_kde_with_mixture(config, out, extras[1], log)
        rows = R.write_tables(out, ids, label, extras)
        meta.update(status="complete", finished=R.now())
        R.atomic_write_text(out / "metadata.json", R.dumps(meta))
    return rows


def kde_mixture_pairs(config: ExperimentConfig) -> list[tuple[ExperimentPoint, ExperimentPoint]]:
    """Each KDE point (:class:`~bdpsim.estimators.protocols.ComparedWithIntervals`) of ``config``
    with the first mixture point (:class:`~bdpsim.estimators.protocols.HasAdversaryIntervals`)
    examining the same adversaries (same :attr:`~ExperimentPoint.population_key`: same model,
    mechanism, known sizes and targets)."""
    mixtures: dict[int, ExperimentPoint] = {}
    for p in config.points:
        if isinstance(p.estimator(), HasAdversaryIntervals):
            mixtures.setdefault(p.population_key, p)
    return [
        (p, mixtures[p.population_key])
        for p in config.points
        if isinstance(p.estimator(), ComparedWithIntervals) and p.population_key in mixtures
    ]


def _point_rows(out: Path, point_id: str, columns: Sequence[str]) -> dict[int, dict]:
    import gzip

    from .results.tables import csv_records

    body = gzip.decompress(R.point_paths(out, point_id)[1].read_bytes()).decode()
    rows = (dict(zip(columns, rec)) for rec in csv_records(body) if rec)  # no field-size limit (long cells)
    return {int(r["adversary"]): r for r in rows}


def compare_kde_with_mixture(
    config: ExperimentConfig, out: Path, adversary_columns: Sequence[str], log: Callable[[str], None]
) -> None:
    """After the run's points finish: each KDE point's estimates against the mixture's per-adversary
    intervals ``[bdpl_ci_low, bdpl_ci_high]`` of the same adversaries (the rows both kept),
    :func:`bdpsim.estimators.kde.outside_mixture`; the counts go into the KDE point's record
    (``kde_above_mixture_n``, ``kde_below_mixture_n``), its flags are recomputed and a point
    flagged only by this gets its one warning line (a point flagged already printed its line). Configs
    without such a pair are untouched."""
    import json

    columns = [*ADVERSARY_COLUMNS, *adversary_columns]
    for kp, mp in kde_mixture_pairs(config):
        if not (R.point_done(out, kp.id) and R.point_done(out, mp.id)):
            continue
        kr, mr = _point_rows(out, kp.id, columns), _point_rows(out, mp.id, columns)
        both = sorted(set(kr) & set(mr))
        kde, low, high = (
            np.array([float(rows[j][k] or "nan") for j in both])
            for rows, k in ((kr, "bdpl"), (mr, "bdpl_ci_low"), (mr, "bdpl_ci_high"))
        )
        above, below = kp.estimator().outside_intervals(kde, low, high)
        js = R.point_paths(out, kp.id)[0]
        marker = json.loads(js.read_text(encoding="utf-8"))
        new = {"kde_above_mixture_n": above, "kde_below_mixture_n": below}
        changed = any(marker.get(k) != v for k, v in new.items())
        was_flagged = bool(marker.get(FLAGS))  # its warning line was printed when it finished
        marker.update(new)
        marker.pop(FLAGS, None)
        found = _flags_of(kp, marker)
        if found:
            marker[FLAGS] = "; ".join(found)
        R.atomic_write_text(js, R.dumps(marker))
        if changed and (above or below) and not was_flagged:  # one warning line per flagged point
            log(
                warning_line(
                    marker,
                    [
                        f"kde: {above} of {len(both)} estimates above the mixture's interval "
                        f"of the same adversary (point {mp.id}), {below} below"
                    ],
                )
            )


#: what joblib (loky) and Dask raise when a worker process dies mid-task (killed, out of memory,
#: user code ending its process): a one-line error, not their tracebacks


def worker_died(points: Sequence[ExperimentPoint], exc: BaseException, jobs: int) -> ConfigError:
    """The one-line error of a worker process that died: an error of ``mechanism.function`` when a
    point runs user code (the likely culprit), else of ``--jobs`` (killed from outside, out of
    memory)."""
    import re

    from ..mechanisms.protocols import RunsUserCode

    codes = re.search(r"exit codes of the workers are (\{[^}]*\})", str(exc))
    how = f"exit codes {codes.group(1)}" if codes else type(exc).__name__
    user = next((p.mechanism.name for p in points if isinstance(p.mechanism, RunsUserCode)), None)
    if user is not None:
        return ConfigError(
            "mechanism.function",
            user,
            f"a worker process died while running it ({how}): a "
            "mechanism must return its outputs, not end or kill its process",
        )
    return ConfigError(
        "--jobs",
        jobs,
        f"a worker process died ({how}; killed from outside or out of memory?): "
        "finished configurations are saved; re-run to resume, or lower --jobs",
    )


@dataclass
class _Run:
    """One run's state for :func:`_execute`: the backend, the points to do, every point id (config
    order), the percentile label and extra columns, the output directory, the metadata record and
    the ``summary.csv`` being appended."""

    par: Any  # a joblib Parallel (or the dask one), None when nothing is to run
    todo: list
    ids: list
    columns: tuple
    out: Path
    jobs: int
    meta: dict
    summary: R.SummaryLog


def _execute(run: _Run, log, progress: bool, heartbeat: float) -> None:
    """Run the tasks of the points ``run.todo``, writing each point as it finishes: its record,
    then one line of ``summary.csv``."""
    from joblib import delayed
    from tqdm.auto import tqdm

    par, todo, ids, out, jobs, meta = run.par, run.todo, run.ids, run.out, run.jobs, run.meta
    label, extras = run.columns
    tasks = [(p, fn, args) for p in todo for fn, args in plan(p, jobs)]
    remaining: dict[str, int] = defaultdict(int)
    for p, _, _ in tasks:
        remaining[p.id] += 1
    by_id = {p.id: p for p in todo}
    collected: dict[str, list] = defaultdict(list)
    secs: dict[str, float] = defaultdict(float)
    state = {"tasks": 0, "points": 0}
    bar = tqdm(total=len(tasks), unit="task", disable=not progress, desc="bdpsim run", file=sys.stderr)
    beat = Heartbeat(
        heartbeat,
        log,
        lambda: (
            f"bdpsim run: {state['tasks']}/{len(tasks)} tasks, {state['points']}/{len(todo)} configurations"
        ),
    )
    try:
        blobs = {
            p.id: cloudpickle.dumps(p.with_shared_state()) for p in todo
        }  # pickled once, loaded in the task
        calls = (delayed(run_task)(fn, blobs[p.id], *args[1:]) for p, fn, args in tasks)
        for res in par(calls) if tasks else ():
            collected[res.point_id].append(res)
            secs[res.point_id] += res.seconds
            remaining[res.point_id] -= 1
            state["tasks"] += 1
            bar.update(1)
            if remaining[res.point_id] == 0:
                p = by_id[res.point_id]
                parts = sorted(collected.pop(p.id), key=lambda c: c.order)
                stats = _concat_stats(parts)
                rows = _keep_rows(p, [r for c in parts for r in c.rows])
                rows.sort(key=AdversaryResult.sort_key)
                finished = p.estimator().finish(p.finish_context(), stats, rows)  # configuration-level work
                summ = summarize(p, stats, rows, secs[p.id], finished).as_row()
                check_bounds(summ, log)
                if summ.get(FLAGS):
                    log(warning_line(summ, [summ[FLAGS]]))
                R.write_point(out, p.id, summ, [r.as_row() for r in rows], extras[1])
                run.summary.append(summ)  # one line; both tables are rebuilt once, at the end
                state["points"] += 1
    except KeyboardInterrupt:  # Ctrl-C: leave consistent tables of what finished
        R.write_tables(out, ids, label, extras)
        meta.update(status="interrupted", finished=R.now())
        R.atomic_write_text(out / "metadata.json", R.dumps(meta))
        raise
    except BaseException as exc:  # a failure: no partial tables; finished points stay for a resume
        R.remove_tables(out)
        meta.update(status="failed", finished=R.now(), error=f"{type(exc).__name__}: {exc}")
        R.atomic_write_text(out / "metadata.json", R.dumps(meta))
        raise
    finally:
        beat.stop()
        bar.close()
