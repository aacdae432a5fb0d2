"""Estimator accuracy report: per-adversary error of ``kde`` and ``mixture`` against exact values.

On a fixed grid of cases with an exact answer (Markov chain + count; Gaussian + unclipped sum;
independent Gaussian + clipped sum), ``adversaries`` random adversaries per case (``K = {}``
allowed) are estimated by

* ``kde`` (the thesis' estimator, bdpsim's defaults: signed ratio, unshifted fastKDE) at each
  sample size, against the exact *one-sided* value of its ordered pair;
* ``mixture`` at each sample size with a fixed sample (``target_se = 0``), and once with the
  adaptive sample size (``target_se``, from the size nearest 10^5, up to ``max_samples``),
  against the exact two-sided value.

Every (case, adversary) draws the adversary from one seed-tree branch, so all estimators examine
the same adversaries; each (case, adversary, variant) estimates from its own branch. The cases are
the units of a study kind (:class:`AccuracyKind`) of the one runner
(:func:`bdpsim.pipeline.runner.run_study`): lock, ``metadata.json`` status and resume. A row
summarises the error ``estimate - exact`` (bias, RMSE, max), the estimates' own standard errors
(mixture: mean, max; the share of adversaries within 2 and 3 of them) and the samples used.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import bounds as B
from ..adversary import Estimate
from ..core.errors import check
from ..estimators import KdeEstimator, MixtureEstimator, exact_reference
from ..estimators.protocols import HasRatioMode
from ..mechanisms import ClippedSum, LaplaceCount, LaplaceSum
from ..models import GaussianModel, MarkovChainModel, limited_covariance
from ..models.base import random_discrete_adversary
from ..models.gaussian.kind import random_gaussian_adversary
from ..pipeline import results as R
from ..pipeline import seeds
from ..pipeline.runner import RowsStudy, Unit, run_study


@dataclass(frozen=True)
class Case:
    """``family``: ``chain`` (the thesis' symmetric chain, count), ``gaussian_sum`` (unclipped) or
    ``gaussian_clipped``; ``param`` is gamma (chain) or rho (Gaussian); ``epsilon`` is 1/beta for
    the unclipped sum."""

    name: str
    family: str
    n: int
    param: float
    epsilon: float
    sigma: float = 1.0


GRID = (
    Case("markov n=10 gamma=1 eps=1", "chain", 10, 1.0, 1.0),
    Case("markov n=10 gamma=5 eps=1", "chain", 10, 5.0, 1.0),
    Case("markov n=10 gamma=3 eps=2", "chain", 10, 3.0, 2.0),
    Case("markov n=10 gamma=10 eps=0.5", "chain", 10, 10.0, 0.5),
    Case("gaussian sum n=3 rho=0.5 beta=10", "gaussian_sum", 3, 0.5, 0.1),
    Case("gaussian sum n=5 rho=0.2 beta=10", "gaussian_sum", 5, 0.2, 0.1),
    Case("gaussian clipped n=5 rho=0 eps=1", "gaussian_clipped", 5, 0.0, 1.0),
    Case("markov n=10 gamma=8 eps=2 (rare counts)", "chain", 10, 8.0, 2.0),
    Case("gaussian sum n=5 rho=0.2 sigma=2 beta=2", "gaussian_sum", 5, 0.2, 0.5, 2.0),
)
COLUMNS = [
    "case",
    "estimator",
    "samples",
    "target_se",
    "n_adversaries",
    "mean_exact",
    "bias",
    "rmse",
    "max_abs_error",
    "mean_se",
    "max_se",
    "within_2se",
    "within_3se",
    "at_cap",
    "mean_samples",
    "max_samples",
    "seconds",
]


def _draw(case: Case, rng: np.random.Generator):
    if case.family == "chain":
        chain = MarkovChainModel(B.symmetric_chain(case.param), case.n)
        return chain, LaplaceCount(case.epsilon), random_discrete_adversary(chain, range(case.n), rng)
    cov = limited_covariance(case.n, case.param, case.sigma, rng)
    model = GaussianModel(rng.uniform(0, 10, case.n), cov)
    if case.family == "gaussian_sum":
        mech = LaplaceSum(1.0 / case.epsilon)
        return model, mech, random_gaussian_adversary(model, range(case.n), rng, "fixed", (0.0, 10.0))
    return (
        model,
        ClippedSum(case.epsilon),
        random_gaussian_adversary(model, range(case.n), rng, "endpoints", (0.0, 10.0)),
    )


def _variants(
    samples: tuple[int, ...], target_se: float, max_samples: int
) -> list[tuple[str, int, float, KdeEstimator | MixtureEstimator]]:
    """``(estimator, samples, target_se, instance)``: kde and fixed-size mixture at every size,
    then the adaptive mixture from the size nearest 10^5."""
    kde, mix = KdeEstimator.name, MixtureEstimator.name
    out: list[tuple[str, int, float, KdeEstimator | MixtureEstimator]] = [
        (kde, N, 0.0, KdeEstimator(N)) for N in samples
    ]
    out += [(mix, N, 0.0, MixtureEstimator(N, target_se=0.0)) for N in samples]
    if target_se > 0:
        base = min(samples, key=lambda s: abs(math.log(s / 100_000)))
        out.append(
            (mix, base, target_se, MixtureEstimator(base, target_se=target_se, max_samples=max_samples))
        )
    return out


def _row(case: Case, name: str, N: int, tse: float, cap: int, est: list, exact: list, secs: float) -> dict:
    e = np.array([x.value for x in est]) - np.array(exact)
    ok = np.isfinite(e)
    se = np.array([x.se for x in est])
    used = np.array([x.samples for x in est], dtype=float)
    has_se = np.isfinite(se) & ok
    err, s = np.abs(e[has_se]), se[has_se]
    z = np.divide(err, s, out=np.where(err < 1e-9, 0.0, np.inf), where=s > 0)  # se = 0: exact estimate
    nan = math.nan
    return {
        "case": case.name,
        "estimator": name,
        "samples": N,
        "target_se": tse,
        "n_adversaries": int(ok.sum()),
        "mean_exact": float(np.mean(exact)),
        "bias": float(e[ok].mean()),
        "rmse": float(math.sqrt(np.mean(e[ok] ** 2))),
        "max_abs_error": float(np.abs(e[ok]).max()),
        "mean_se": float(se[has_se].mean()) if has_se.any() else nan,
        "max_se": float(se[has_se].max()) if has_se.any() else nan,
        "within_2se": float(np.mean(z <= 2)) if z.size else nan,
        "within_3se": float(np.mean(z <= 3)) if z.size else nan,
        "at_cap": int(np.sum((used >= cap) & (se > tse))) if tse > 0 else 0,
        "mean_samples": float(used.mean()),
        "max_samples": int(used.max()),
        "seconds": round(secs, 2),
    }


def _case_errors(
    ci: int,
    case: Case,
    samples: tuple[int, ...],
    adversaries: int,
    seed: int,
    target_se: float,
    max_samples: int,
) -> list[dict]:
    variants = _variants(samples, target_se, max_samples)
    est: list[list[Estimate]] = [[] for _ in variants]
    ref: list[list[float]] = [[] for _ in variants]
    secs = [0.0] * len(variants)
    for j in range(adversaries):
        model, mech, adv = _draw(case, seeds.stream(seed, ci, j))
        exact = {s: exact_reference(model, mech, adv, signed=s).value for s in (True, False)}
        for v, (_name, _N, _tse, e) in enumerate(variants):
            r = seeds.stream(seed, ci, j, 1 + v)
            t0 = time.perf_counter()
            est[v].append(e.estimate(model, mech, adv, r))
            secs[v] += time.perf_counter() - t0
            ref[v].append(exact[isinstance(e, HasRatioMode) and e.ratio == "signed"])
    return [
        _row(case, name, N, tse, max(N, max_samples), est[v], ref[v], secs[v])
        for v, (name, N, tse, _) in enumerate(variants)
    ]


def _case_key(
    case: Case, samples: tuple[int, ...], adversaries: int, seed: int, target_se: float, max_samples: int
) -> str:
    """Content hash of one case's task: a saved case is reused only for the same inputs."""
    import hashlib
    import json

    text = json.dumps(
        [case.__dict__, list(samples), adversaries, seed, target_se, max_samples], sort_keys=True
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _case_path(out: Path, ci: int, key: str) -> Path:
    return Path(out) / "cases" / f"{ci:02d}-{key}.json"


def _case_task(ci: int, *args) -> tuple[int, list[dict]]:
    return ci, _case_errors(ci, *args)


class AccuracyKind(RowsStudy):
    """The accuracy report as a study kind (:func:`bdpsim.pipeline.runner.run_study`): one unit per
    case (id: its index, key: :func:`_case_key`), one task each, its rows saved in
    ``out/cases/`` as it finishes; the tables ``accuracy.csv`` and ``accuracy.json``
    (:func:`write_report`, ``status`` complete or interrupted)."""

    name = "accuracy"
    noun = "cases"
    noun_one = "case"

    def __init__(self, cases, args: tuple, meta: dict, progress=None, finished: dict | None = None) -> None:
        self.cases = list(cases)
        self.args = args
        self.meta = meta
        self.keys = [_case_key(c, *args) for c in self.cases]
        self.progress = progress
        self.finished: dict[int, list[dict]] = {} if finished is None else finished

    def units(self) -> list[Unit]:
        return [Unit(f"{ci:02d}", key) for ci, key in enumerate(self.keys)]

    def tasks(self, unit: Unit, jobs: int) -> list[tuple[Callable, tuple]]:
        ci = int(unit.id)
        return [(_case_task, (ci, self.cases[ci], *self.args))]

    def finish(self, unit: Unit, results: list, log) -> list[dict]:
        return results[0][1]

    def settle(self, unit: Unit, record: list[dict], deps, log) -> list[dict]:
        self.finished[int(unit.id)] = record
        if self.progress is not None:
            self.progress(len(self.finished), len(self.cases))
        return record

    def record_path(self, out: Path, unit: Unit) -> Path:
        return _case_path(out, int(unit.id), unit.key)  # the files of earlier versions: they resume

    def begin(self, out: Path, done) -> None:
        self.finished.update({int(u): rows for u, rows in done.items()})
        if self.progress is not None:
            self.progress(len(self.finished), len(self.cases))

    def metadata(self, jobs: int, backend: str) -> dict:
        seed = self.meta.get("seed")
        return R.metadata(self.name, self.meta, seed, argv=sys.argv, jobs=jobs, backend=backend)

    def tables(self, out: Path | None, done, status: str) -> list[dict]:
        rows = [r for u in self.units() if u.id in done for r in done[u.id]]
        if out is not None:
            write_report(out, rows, self.meta, status)
        return rows

    def remove_tables(self, out: Path) -> None:
        for name in ("accuracy.csv", "accuracy.json"):
            (Path(out) / name).unlink(missing_ok=True)


def accuracy_table(
    samples=(10_000, 100_000),
    adversaries: int = 200,
    seed: int = 1,
    jobs: int = 1,
    cases=GRID,
    target_se: float = 0.01,
    max_samples: int = 1_600_000,
    out: Path | None = None,
    progress=None,
    finished: dict | None = None,
    meta: dict | None = None,
) -> list[dict]:
    """Rows of :data:`COLUMNS`, one per (case, estimator, samples, target_se).

    Run by the one runner (:func:`bdpsim.pipeline.runner.run_study` of an :class:`AccuracyKind`).
    With ``out``, each finished case is saved at once (``out/cases/``, atomically), a case
    already saved for the same inputs is reused (an interrupted report resumes where it stopped),
    the report is written (:func:`write_report`, with ``meta``: default the samples, adversaries
    and seed) and ``out/metadata.json`` records the run's status; concurrent reports into one
    ``out`` run one after the other (a lock). ``progress(done, total)`` is called as cases
    finish; ``finished`` (a dict, filled as cases finish: case index -> rows) lets a caller keep
    what finished when interrupted.
    """
    check(adversaries >= 1, "--adversaries", adversaries, "must be >= 1")
    check(all(int(s) >= 100 for s in samples), "--samples", list(samples), "each must be >= 100")
    check(target_se >= 0, "target_se", target_se, "must be >= 0")
    for c in cases:
        if c.family == "gaussian_clipped":
            check(c.param == 0, "case", c.name, "a clipped sum has exact values only for independent records")
    samples = tuple(int(s) for s in samples)
    args = (samples, adversaries, seed, target_se, max_samples)
    if meta is None:
        meta = {"samples": list(samples), "adversaries": adversaries, "seed": seed}
    kind = AccuracyKind(cases, args, meta, progress, finished)
    if out is None and progress is not None:
        progress(0, len(kind.cases))
    return run_study(kind, out, jobs=jobs, progress=False)


def write_report(out: Path, rows: list[dict], meta: dict, status: str = "complete") -> list[Path]:
    """``accuracy.csv`` and ``accuracy.json`` (the figure: :func:`bdpsim.figures.accuracy.save_accuracy`);
    ``status`` is ``complete`` or ``interrupted`` (the rows of the finished cases only)."""
    out = Path(out)
    R.atomic_write_text(out / "accuracy.csv", R.csv_text(rows, COLUMNS))
    R.atomic_write_text(
        out / "accuracy.json", R.dumps(R.metadata("accuracy", meta, meta.get("seed"), status=status))
    )
    return [out / "accuracy.csv", out / "accuracy.json"]
