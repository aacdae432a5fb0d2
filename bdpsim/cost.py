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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import ConfigError, check
from .estimators.base import CostContext
from .queries import LaplaceQuery

GIB = 2.0 ** 30
UNITS_PER_SECOND = 1e8  # rough single-core throughput, for the time shown beside the work
ROW_BYTES = 400.0  # one adversary's statistics and kept row in the driver


@dataclass(frozen=True)
class Limits:
    """Refusal limits: ``max_memory_gib`` (peak of the run: ``--jobs`` tasks plus the driver) and
    ``max_work`` (units of the whole config, see the module docstring)."""

    max_memory_gib: float = 8.0
    max_work: float = 1e13

    def __post_init__(self) -> None:
        for name, flag in (("max_memory_gib", "--max-memory-gib"), ("max_work", "--max-work")):
            v = getattr(self, name)
            check(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and math.isfinite(v),
                  flag, v, "must be a finite number > 0")


@dataclass(frozen=True)
class Estimate:
    """Cost of one configuration point: peak bytes of one task, bytes held by the driver, and
    work units."""

    task_bytes: float
    driver_bytes: float
    work: float

    def text(self) -> str:
        return (f"memory {fmt_bytes(self.task_bytes)} per task + {fmt_bytes(self.driver_bytes)}, "
                f"work {self.work:.2g} units (~{fmt_seconds(self.work / UNITS_PER_SECOND)})")


def fmt_bytes(b: float) -> str:
    for unit, size in (("TiB", 2.0 ** 40), ("GiB", GIB), ("MiB", 2.0 ** 20), ("KiB", 1024.0)):
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
    _refuse(field, params.get(field.split(".")[-1]), Estimate(mem, 0.0, work), limits, mem,
            "building its covariance class needs" if field == "model.n" else "building the model needs")


def estimate_point(point) -> Estimate:
    """The :class:`Estimate` of one configuration point (see the module docstring): the model
    kind's sampling and exact costs (:meth:`~bdpsim.models.base.ModelKind.cost`) and the
    estimator's own (:meth:`~bdpsim.estimators.base.Estimator.cost`)."""
    st, spec, mech = point.settings, point.model, point.mechanism
    if st.exhaustive:
        keep = 0.0 if st.adversary_rows == "all" else float(st.adversary_rows)
        return Estimate(0.0, keep * ROW_BYTES, 0.0)
    A = float(st.adversaries)
    mc = spec.owner.cost(spec)
    est = point.estimator()
    work = A * mc.draw
    mem = mc.model_bytes
    if est.exact or st.exact_reference:  # an exact value per adversary (estimate or reference)
        work += A * mc.exact
        mem += mc.exact_bytes
    if est.exact:
        return Estimate(mem, A * ROW_BYTES, work)
    discrete = spec.owner.domain == "discrete"
    exact_law = st.sampling == "auto" and discrete and isinstance(mech, LaplaceQuery)
    n, s = float(spec.n), float(spec.probe().states) if discrete else 1.0
    ctx = CostContext(adversaries=A, conditions=2.0 + 2.0 * min(A, float(st.noise_floor_adversaries)) / A,
                      n=n, per_sample=mc.per_sample, law=mc.exact if exact_law else None,
                      law_bytes=8 * 4 * n * n * s, chunk=float(st.chunk), continuous=not discrete)
    w, m = est.cost(ctx)
    return Estimate(mem + m, A * ROW_BYTES, work + w)


def estimate_config(config, jobs: int = 1) -> tuple[float, float, list[Estimate]]:
    """``(peak bytes, total work, per-point estimates)`` of a config run with ``jobs`` workers."""
    ests = [estimate_point(p) for p in config.points]
    peak = max(e.task_bytes for e in ests) * jobs + max(e.driver_bytes for e in ests)
    return peak, sum(e.work for e in ests), ests


def check_limits(config, limits: Limits, jobs: int = 1) -> tuple[float, float, list[Estimate]]:
    """Refuse (:class:`~bdpsim.errors.ConfigError`) a config whose estimated peak memory or total
    work exceeds ``limits``; return :func:`estimate_config`."""
    peak, work, ests = estimate_config(config, jobs)
    worst = max(range(len(ests)), key=lambda i: ests[i].task_bytes + ests[i].driver_bytes)
    p = config.points[worst]
    field, value = _culprit(p)
    _refuse(field, value, Estimate(peak, 0.0, work), limits, peak, "the run needs", jobs)
    return peak, work, ests


def _culprit(point) -> tuple[str, object]:
    """The key that most exceeds its default (what a user would lower)."""
    st = point.settings
    if st.exhaustive:
        return "model.n", point.model.n
    ratios = [(point.model.n / 10, "model.n", point.model.n), (st.adversaries / 1000, "run.adversaries", st.adversaries)]
    if not point.estimator().exact:
        ratios.append((st.samples / 100_000, "run.samples", st.samples))
    _, field, value = max(ratios, key=lambda t: t[0])
    return field, value


def _refuse(field: str, value, est: Estimate, limits: Limits, mem: float, what: str, jobs: int = 1) -> None:
    per = f" with --jobs {jobs}" if jobs > 1 else ""
    if mem > limits.max_memory_gib * GIB:
        raise ConfigError(field, value, f"{what} ~{fmt_bytes(mem)} of memory{per} (limit "
                                        f"{limits.max_memory_gib:g} GiB; raise it with --max-memory-gib)")
    if est.work > limits.max_work:
        raise ConfigError(field, value, f"{what} ~{est.work:.2g} work units (~{fmt_seconds(est.work / UNITS_PER_SECOND)} "
                                        f"of one core; limit {limits.max_work:.2g}; raise it with --max-work)")
