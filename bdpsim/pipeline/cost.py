"""Up-front cost estimates of a config: memory and work, refused above a limit before anything runs.

A config that would need terabytes or centuries is refused with its estimate and the option that
raises the limit, instead of growing until the machine swaps or running forever. The estimates
are deliberately simple upper-end models of what the run holds and does:

* **memory** of one task (a worker): the sample arrays of one adversary (``kde``: every output
  of both conditions at once; ``mixture``: the distinct query values, ``n + 1`` atoms for a count
  but one per sample for a continuous query; one ``run.chunk`` of data tuples while sampling),
  the model's matrices and the exact reference's tables; and of the driver: the per-adversary
  statistics and rows it collects (``adversaries × ~400`` bytes). A run holds ``--jobs`` tasks.
* **work** in units of elementary operations on records: ``adversaries × conditions × samples ×
  (cost of one sample)`` plus model draws (``n^3`` for a drawn Gaussian covariance) and exact
  values (``n^2 states^2`` for a Markov count, ``n^3`` for a Gaussian). About 10^8 units take a
  second on one core; the default limit 10^13 is about a day of one core.

Exhaustive runs (``adversaries = "all"``) are limited by their exact engine's own checks.

**Time.** The units are an upper-end model, not a clock: measured runs take from 0.002× (the
mixture estimator, whose model assumes the adaptive doubling to its cap) to 5× (the KDE) of
``work / 10^8`` seconds, plus ~1 ms of Python per adversary that the units do not count. So the
time is shown as a range, ``seconds = factor × work / 10^8 + adversaries × overhead`` with
``factor`` per estimator (:data:`SPEED`) and ``overhead`` (:data:`OVERHEAD`) fitted to the
measured runs (``results/benchmarks/benchmark.json``: per-adversary times at 10^5 samples;
``results/quickstart/summary.csv``'s ``seconds``; ``results/benchmarks/figures.json``: thesis
Fig. 9 and 15 at full fidelity, on 2 shared cores). The refusal limits stay on the raw units
(conservative: a limit of 10^13 units refuses nothing that would take less than about a day).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.errors import ConfigError, check
from ..estimators.base import CostContext
from ..estimators.protocols import HasCostCulprit, HasEvalPoints, HasSpeed
from ..queries import laplace_noisy

GIB = 2.0**30
UNITS_PER_SECOND = 1e8  # rough single-core throughput, for the time shown beside the work
ROW_BYTES = 400.0  # one adversary's statistics and kept row in the driver
#: bytes per evaluation point of an estimator that evaluates densities at points (the KDE's
#: ``eval_points``: the points, both densities, their logs, the ratio and masks, ~8 float arrays)
POINT_BYTES = 64.0

#: measured seconds per estimated second (``work / UNITS_PER_SECOND``), ``(low, high)``, per
#: estimator (its ``name``); measured on 2 shared cores (module docstring). kde: quickstart 2.0-2.3,
#: Fig. 9 2.1, benchmark 4.1, Fig. 15 5.0; mixture: quickstart 0.005, benchmark 0.013 (overhead
#: included); exact: its units are ~0 beside the per-adversary overhead. An estimator may carry its
#: own ``seconds_per_unit`` pair instead (preferred: the estimator owns its cost).
SPEED = {"kde": (1.8, 5.0), "mixture": (0.002, 0.015), "exact": (1.0, 3.0)}
#: any other estimator: wide
SPEED_UNKNOWN = (0.5, 10.0)
#: seconds of Python per examined adversary (draw, conditioning, bookkeeping) beside the units:
#: the exact estimator's 1.2 ms per adversary (benchmark), mixture's ~2 ms (quickstart)
OVERHEAD = (0.5e-3, 3e-3)


@dataclass(frozen=True)
class Limits:
    """Refusal limits: ``max_memory_gib`` (peak of the run: ``--jobs`` tasks plus the driver) and
    ``max_work`` (units of the whole config, see the module docstring)."""

    max_memory_gib: float = 8.0
    max_work: float = 1e13

    def __post_init__(self) -> None:
        for name, flag in (("max_memory_gib", "--max-memory-gib"), ("max_work", "--max-work")):
            v = getattr(self, name)
            check(
                isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and math.isfinite(v),
                flag,
                v,
                "must be a finite number > 0",
            )


@dataclass(frozen=True)
class PointCost:
    """Cost of one configuration point: peak bytes of one task, bytes held by the driver, and
    work units."""

    task_bytes: float
    driver_bytes: float
    work: float
    seconds: tuple[float, float] = (0.0, 0.0)

    def text(self) -> str:
        return (
            f"memory {fmt_bytes(self.task_bytes)} per task + {fmt_bytes(self.driver_bytes)}, "
            f"work {self.work:.2g} units (~{fmt_range(*self.seconds)})"
        )


def seconds_range(estimator, work: float, adversaries: float) -> tuple[float, float]:
    """``(low, high)`` seconds of one core for ``work`` units by ``estimator`` over
    ``adversaries`` adversaries (:data:`SPEED`, :data:`OVERHEAD`)."""
    own = estimator.seconds_per_unit if isinstance(estimator, HasSpeed) else None
    lo, hi = own or SPEED.get(estimator.name, SPEED_UNKNOWN)
    base = work / UNITS_PER_SECOND
    return lo * base + adversaries * OVERHEAD[0], hi * base + adversaries * OVERHEAD[1]


def fmt_range(low: float, high: float) -> str:
    """``"8 s - 24 s"``; one value when both ends print alike."""
    a, b = fmt_seconds(low), fmt_seconds(high)
    return a if a == b else f"{a} - {b}"


def fmt_bytes(b: float) -> str:
    for unit, size in (("TiB", 2.0**40), ("GiB", GIB), ("MiB", 2.0**20), ("KiB", 1024.0)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b:.0f} B"


def fmt_seconds(s: float) -> str:
    for unit, size in (("years", 3.15e7), ("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if s >= size:
            return f"{s / size:.3g} {unit}"
    return f"{s:.2g} s"


def model_setup(model_kind, params: dict, limits: Limits) -> None:
    """Check, before a model is built, that building it is affordable (the model kind's
    :meth:`~bdpsim.models.base.ModelKind.setup_cost`; e.g. a ``Sigma_rho`` class draws up to 2000
    ``n x n`` matrices and their eigenvalues)."""
    cost = model_kind.setup_cost(params)
    if cost is None:
        return
    mem, work, field = cost
    _refuse(
        field,
        params.get(field.split(".")[-1]),
        PointCost(mem, 0.0, work),
        limits,
        mem,
        "building its covariance class needs" if field == "model.n" else "building the model needs",
    )


def estimate_point(point) -> PointCost:
    """The :class:`PointCost` of one configuration point (see the module docstring): the model
    kind's sampling and exact costs (:meth:`~bdpsim.models.base.ModelKind.cost`) and the
    estimator's own (:meth:`~bdpsim.estimators.base.Estimator.cost`)."""
    st, spec, mech = point.settings, point.model, point.mechanism
    if st.exhaustive:  # limited and timed by its exact engine's own checks
        keep = 0.0 if st.adversary_rows == "all" else float(st.adversary_rows)
        return PointCost(0.0, keep * ROW_BYTES, 0.0, (math.nan, math.nan))
    A = float(st.adversaries)
    mc = spec.owner.cost(spec)
    est = point.estimator()
    work = A * mc.draw
    mem = mc.model_bytes
    if est.exact or st.exact_reference:  # an exact value per adversary (estimate or reference)
        work += A * mc.exact
        mem += mc.exact_bytes
    if est.exact:
        return PointCost(mem, A * ROW_BYTES, work, seconds_range(est, work, A))
    discrete = spec.owner.domain == "discrete"
    exact_law = st.sampling == "auto" and discrete and laplace_noisy(mech) is not None
    n, s = float(spec.n), float(spec.probe().states) if discrete else 1.0
    ctx = CostContext(
        adversaries=A,
        conditions=2.0 + 2.0 * min(A, float(st.noise_floor_adversaries)) / A,
        n=n,
        per_sample=mc.per_sample,
        law=mc.exact if exact_law else None,
        law_bytes=8 * 4 * n * n * s,
        chunk=float(st.chunk),
        continuous=not discrete,
    )
    w, m = est.cost(ctx)
    m += float(est.points if isinstance(est, HasEvalPoints) else 0) * POINT_BYTES  # eval_points arrays
    return PointCost(mem + m, A * ROW_BYTES, work + w, seconds_range(est, work + w, A))


def config_seconds(ests: list[PointCost]) -> tuple[float, float]:
    """``(low, high)`` seconds of one core for the points' estimates (``nan`` ends: an exhaustive
    point, timed by its engine, counts 0)."""
    lo = sum(e.seconds[0] for e in ests if math.isfinite(e.seconds[0]))
    hi = sum(e.seconds[1] for e in ests if math.isfinite(e.seconds[1]))
    return lo, hi


def estimate_config(config, jobs: int = 1) -> tuple[float, float, list[PointCost]]:
    """``(peak bytes, total work, per-point estimates)`` of a config run with ``jobs`` workers."""
    ests = [estimate_point(p) for p in config.points]
    peak = max(e.task_bytes for e in ests) * jobs + max(e.driver_bytes for e in ests)
    return peak, sum(e.work for e in ests), ests


def check_limits(config, limits: Limits, jobs: int = 1) -> tuple[float, float, list[PointCost]]:
    """Refuse (:class:`~bdpsim.core.errors.ConfigError`) a config whose estimated peak memory or total
    work exceeds ``limits``; return :func:`estimate_config`."""
    check_resolution(config)
    peak, work, ests = estimate_config(config, jobs)
    worst = max(range(len(ests)), key=lambda i: ests[i].task_bytes + ests[i].driver_bytes)
    p = config.points[worst]
    field, value = _culprit(p)
    _refuse(field, value, PointCost(peak, 0.0, work), limits, peak, "the run needs", jobs)
    return peak, work, ests


def check_resolution(config) -> None:
    """Refuse a sampling estimator on a point whose leakage is below floating-point resolution
    (every value it could return is rounding: e.g. ``epsilon = 1e-300`` makes the noise ~1e300,
    which a KDE cannot even grid). The exact estimator still runs there, its result flagged
    (:mod:`bdpsim.pipeline.flags`)."""
    from .flags import RESOLUTION

    for p in config.points:
        if p.settings.exhaustive or p.estimator().exact:
            continue
        applicable = {k: b.value for k, b in p.bounds().items() if k != "lower" and math.isfinite(b.value)}
        if applicable and min(applicable.values()) < RESOLUTION:
            name, v = min(applicable.items(), key=lambda kv: kv[1])
            field, value = (
                ("mechanism.epsilon", p.epsilon)
                if math.isfinite(p.epsilon)
                else ("mechanism", p.mechanism.kind)
            )
            raise ConfigError(
                field,
                value,
                f"the leakage is at most bound_{name} = {v:.3g} < {RESOLUTION:g} nats, "
                f"below floating-point resolution: estimator '{p.settings.estimator}' "
                "cannot measure it (the exact estimator can, where the model allows)",
            )


def _culprit(point) -> tuple[str, object]:
    """The key that most exceeds its default (what a user would lower)."""
    st = point.settings
    if st.exhaustive:
        return "model.n", point.model.n
    ratios = [
        (point.model.n / 10, "model.n", point.model.n),
        (st.adversaries / 1000, "run.adversaries", st.adversaries),
    ]
    est = point.estimator()
    if isinstance(est, HasCostCulprit):  # an estimator whose cost another key sets (audit: its budget)
        ratios.append(est.cost_culprit())
    elif "samples" in est.reads:  # an estimator that samples (Estimator.reads)
        ratios.append((st.samples / 100_000, "run.samples", st.samples))
    _, field, value = max(ratios, key=lambda t: t[0])
    return field, value


def _refuse(field: str, value, est: PointCost, limits: Limits, mem: float, what: str, jobs: int = 1) -> None:
    per = f" with --jobs {jobs}" if jobs > 1 else ""
    if mem > limits.max_memory_gib * GIB:
        raise ConfigError(
            field,
            value,
            f"{what} ~{fmt_bytes(mem)} of memory{per} (limit "
            f"{limits.max_memory_gib:g} GiB; raise it with --max-memory-gib)",
        )
    if est.work > limits.max_work:
        raise ConfigError(
            field,
            value,
            f"{what} ~{est.work:.2g} work units (~{fmt_seconds(est.work / UNITS_PER_SECOND)} "
            f"of one core; limit {limits.max_work:.2g}; raise it with --max-work)",
        )
