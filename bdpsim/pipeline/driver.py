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

Resume. The run is a study kind (:class:`RunKind`) of the one runner
(:func:`bdpsim.pipeline.runner.run_study`): a finished point is written once, atomically
(``results.save_point``); re-running the same command skips finished points whose records are
intact and recomputes damaged ones (``results.load_point``). Within a run the points' rows stay in
memory (the KDE-vs-mixture comparison and the tables use them; nothing is read back). A lock
serialises runs into one directory; a failure marks ``metadata.json`` ``failed`` and removes the
partial tables, Ctrl-C marks it ``interrupted``.
Memory stays bounded: each task holds one adversary's samples at a time, samples are generated in
chunks (``run.chunk``), and configs whose estimated memory or work exceed the limits
(:mod:`bdpsim.pipeline.cost`) are refused before anything runs. Tasks carry their point pickled and load it
themselves (:func:`run_task`): a worker that cannot load it reports an error instead of hanging.
"""

from __future__ import annotations

import math
import pickle
import sys
import time
from collections.abc import Callable, Mapping, Sequence
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
from ..models.engines import HasExhaustive, HasExhaustiveParts, HasWindowPlan, HasWindowSearch, build_engine
from . import results as R
from .config import ExperimentConfig, ExperimentPoint
from .cost import Limits, check_limits
from .flags import FLAGS, warning_line
from .flags import flags as _flags_of
from .rows import ADVERSARY_COLUMNS, AdversaryResult, ordered_extras
from .runner import StudyBase, Unit, run_study
from .summarize import check_bounds, summarize

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
        # the point's engine for its fixed model (built once with the point, it came with the
        # pickle); a model drawn from a family gets its own, once, for its estimate and reference
        eng = point.engine_of(model)
        if eng is None and want_exact:
            eng = build_engine(model, mech)
        e = est.estimate(model, mech, adv, r_est, engine=eng)
        null = est.null_estimate(model, mech, adv, r_null).value if j < nf else math.nan
        exact = math.nan
        if is_exact:
            exact = e.value
        elif want_exact:
            try:  # the exact value of what this estimator estimates (one- or two-sided)
                exact = est.reference(model, mech, adv, engine=eng).value
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
    exact engine (:attr:`~bdpsim.pipeline.config.ExperimentPoint.engine`, built once with it)."""
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
        eng = point.exact_engine
        if isinstance(eng, HasExhaustiveParts):  # targets sharing cached work: a few tasks
            return [(run_exhaustive, (point, part)) for part in eng.exhaustive_parts(jobs)]
        return [(run_exhaustive, (point, [i])) for i in range(point.model.n)]
    A = cast(int, point.settings.adversaries)  # a count: "all" returned above
    size = max(1, min(25, math.ceil(A / max(1, 2 * jobs))))
    return [(run_chunk, (point, list(range(s, min(A, s + size))))) for s in range(0, A, size)]


def _task_count(point: ExperimentPoint, jobs: int) -> int:
    """How many tasks :func:`plan` makes of ``point`` (without building an exhaustive search's parts)."""
    if point.settings.exhaustive:
        if point.exhaustive_method == "window":
            return jobs
        eng = point.exact_engine  # built with the point (it is pickled with it)
        return len(eng.exhaustive_parts(jobs)) if isinstance(eng, HasExhaustiveParts) else point.model.n
    A = cast(int, point.settings.adversaries)  # an int unless exhaustive ("all"), handled above
    return math.ceil(A / max(1, min(25, math.ceil(A / max(1, 2 * jobs)))))


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _run_metadata(config: ExperimentConfig, jobs: int, backend: str) -> dict:
    """``metadata.json`` of a run that starts: config, seed, points, provenance (the runner adds
    ``started`` and ``status``)."""
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
    Ctrl-C keeps the tables of what finished and marks it ``interrupted``
    (:func:`bdpsim.pipeline.runner.run_study` of a :class:`RunKind`).
    """
    kind = RunKind(config, limits or Limits())
    return cast(
        list,
        run_study(
            kind,
            out,
            jobs=jobs,
            backend=backend,
            scheduler=scheduler,
            progress=progress,
            log=log,
            heartbeat=heartbeat,
            force=force,
        ),
    )


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


def _data_rows(data: bytes, columns: Sequence[str]) -> dict[int, dict]:
    """A point's adversary rows by adversary index, from its adversary file's bytes (in memory)."""
    import gzip

    from .results.tables import csv_records

    rows = (dict(zip(columns, rec)) for rec in csv_records(gzip.decompress(data).decode()) if rec)
    return {int(r["adversary"]): r for r in rows}  # no field-size limit (long cells)


def compare_kde_with_mixture(
    kp: ExperimentPoint,
    summary: dict,
    kde_data: bytes,
    mp: ExperimentPoint,
    mixture_data: bytes,
    adversary_columns: Sequence[str],
    log: Callable[[str], None],
) -> dict:
    """A KDE point's summary row with its estimates compared against the mixture point's
    per-adversary intervals ``[bdpl_ci_low, bdpl_ci_high]`` of the same adversaries (the rows both
    kept), :func:`bdpsim.estimators.kde.outside_mixture`: the counts ``kde_above_mixture_n``,
    ``kde_below_mixture_n`` added and its flags recomputed; a point flagged only by this gets its
    one warning line (a point flagged already printed its line). Both points' adversary rows come
    from memory (``kde_data``, ``mixture_data``: their adversary files' bytes), and the KDE point's
    record is written once, with the counts (:class:`RunKind` holds it until its pair finishes)."""
    columns = [*ADVERSARY_COLUMNS, *adversary_columns]
    kr, mr = _data_rows(kde_data, columns), _data_rows(mixture_data, columns)
    both = sorted(set(kr) & set(mr))
    kde, low, high = (
        np.array([float(rows[j][k] or "nan") for j in both])
        for rows, k in ((kr, "bdpl"), (mr, "bdpl_ci_low"), (mr, "bdpl_ci_high"))
    )
    above, below = kp.estimator().outside_intervals(kde, low, high)
    was_flagged = bool(summary.get(FLAGS))  # its warning line was printed when it finished
    row = {k: v for k, v in summary.items() if k != FLAGS}
    row.update(kde_above_mixture_n=above, kde_below_mixture_n=below)
    found = _flags_of(kp, row)
    if found:
        row[FLAGS] = "; ".join(found)
    if (above or below) and not was_flagged:  # one warning line per flagged point
        log(
            warning_line(
                row,
                [
                    f"kde: {above} of {len(both)} estimates above the mixture's interval "
                    f"of the same adversary (point {mp.id}), {below} below"
                ],
            )
        )
    return row


@dataclass(frozen=True)
class PointRecord:
    """A finished point: its marker (the summary row, with its adversary file's sha256 and row
    count) and its adversary file's bytes (gzip), as written to ``out/points/``."""

    marker: dict
    data: bytes

    @property
    def row(self) -> dict:
        """Its ``summary.csv`` row."""
        return R.summary_row(self.marker)


@dataclass(frozen=True)
class _Finished:
    """A point whose tasks finished, before its record is settled: its summary row and its
    adversary file's bytes."""

    summary: dict
    data: bytes


class RunKind(StudyBase):
    """``bdpsim run`` as a study kind (:mod:`bdpsim.pipeline.runner`): one unit per configuration
    point (id: the point id; its content is in the id), its tasks by :func:`plan`, its record in
    ``out/points/`` (:class:`PointRecord`), the tables ``summary.csv`` (appended as points finish)
    and ``adversaries.csv.gz``. A KDE point paired with a mixture point (:func:`kde_mixture_pairs`)
    waits for it: its record is written once, with the comparison's counts."""

    name = "run"
    noun = "configurations"
    noun_one = "configuration"

    def __init__(self, config: ExperimentConfig, limits: Limits | None = None) -> None:
        self.config = config
        self.limits = limits or Limits()
        self.points = {p.id: p for p in config.points}
        self.ids = [p.id for p in config.points]
        self.label = config.percentile_label
        self.extras = extra_columns(config)
        self.pairs = {k.id: m.id for k, m in kde_mixture_pairs(config)}
        self._blobs: dict[str, bytes] = {}
        self._summary: R.SummaryLog | None = None

    def units(self) -> list[Unit]:
        return [Unit(i) for i in self.ids]

    def check(self, jobs: int) -> None:
        check_limits(self.config, self.limits, jobs)

    def check_out(self, out: str | Path, force: bool) -> Path:
        return R.check_out_dir(out, force)

    def metadata(self, jobs: int, backend: str) -> dict:
        return _run_metadata(self.config, jobs, backend)

    def task_count(self, unit: Unit, jobs: int) -> int:
        return _task_count(self.points[unit.id], jobs)

    def tasks(self, unit: Unit, jobs: int) -> list[tuple[Callable, tuple]]:
        p = self.points[unit.id]
        if unit.id not in self._blobs:  # pickled once (with its engine), loaded in the task
            self._blobs[unit.id] = cloudpickle.dumps(p)
        return [(run_task, (fn, self._blobs[unit.id], *args[1:])) for fn, args in plan(p, jobs)]

    def finish(self, unit: Unit, results: list, log: Callable[[str], None]) -> _Finished:
        self._blobs.pop(unit.id, None)
        p = self.points[unit.id]
        stats = _concat_stats(results)
        rows = _keep_rows(p, [r for c in results for r in c.rows])
        rows.sort(key=AdversaryResult.sort_key)
        finished = p.estimator().finish(p.finish_context(), stats, rows)  # configuration-level work
        summ = summarize(p, stats, rows, sum(c.seconds for c in results), finished).as_row()
        check_bounds(summ, log)
        if summ.get(FLAGS):
            log(warning_line(summ, [summ[FLAGS]]))
        return _Finished(summ, R.adversary_data([r.as_row() for r in rows], self.extras[1]))

    def waits_for(self, unit: Unit) -> Sequence[str]:
        return [self.pairs[unit.id]] if unit.id in self.pairs else []

    def settle(
        self, unit: Unit, record: _Finished, deps: Mapping[str, Any], log: Callable[[str], None]
    ) -> PointRecord:
        summ = record.summary
        mid = self.pairs.get(unit.id)
        if mid is not None and mid in deps:
            summ = compare_kde_with_mixture(
                self.points[unit.id], summ, record.data, self.points[mid], deps[mid].data, self.extras[1], log
            )
        return PointRecord(R.point_marker(summ, record.data), record.data)

    def load(self, out: Path, unit: Unit) -> PointRecord:
        marker, data = R.load_point(out, unit.id)
        if unit.id in self.pairs and "kde_above_mixture_n" not in marker:
            raise R.Unusable(f"its comparison with mixture point {self.pairs[unit.id]} is missing")
        return PointRecord(marker, data)

    def begin(self, out: Path, done: Mapping[str, Any]) -> None:
        rows = [done[i].row for i in self.ids if i in done]  # finished points, once; then appended
        self._summary = R.SummaryLog(out, self.ids, self.label, self.extras[0], rows=rows)

    def write(self, out: Path, unit: Unit, record: PointRecord) -> None:
        R.save_point(out, unit.id, record.marker, record.data)
        if self._summary is not None:
            self._summary.append(record.row)  # one line; both tables are rewritten once, at the end

    def tables(self, out: Path | None, done: Mapping[str, Any], status: str) -> list[dict]:
        ids = [i for i in self.ids if i in done]
        rows = [done[i].row for i in ids]
        if out is None:
            return rows
        return R.write_tables_of(out, rows, [done[i].data for i in ids], self.label, self.extras)

    def remove_tables(self, out: Path) -> None:
        R.remove_tables(out)

    def worker_died(self, exc: BaseException, todo: Sequence[Unit], jobs: int) -> Exception:
        return worker_died([self.points[u.id] for u in todo], exc, jobs)


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
