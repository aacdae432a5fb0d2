"""Estimator accuracy report: per-adversary error of ``kde`` and ``mixture`` against ``exact``.

On a fixed grid of cases with an exact answer (Markov chain + count; Gaussian + unclipped sum;
independent Gaussian + clipped sum), ``adversaries`` random adversaries per case (K = {} allowed)
are estimated at each sample size; the error ``estimate - exact`` is summarised as bias, RMSE and
max |error|. Every (case, adversary, samples, estimator) has its own seed-tree branch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import bounds as B
from .adversary import random_gaussian_adversary, random_discrete_adversary
from .errors import check
from .estimators import KdeEstimator, MixtureEstimator, adversary_bdpl
from .mechanisms import ClippedSum, LaplaceCount, LaplaceSum
from .models import GaussianModel, MarkovChainModel, limited_covariance


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    n: int
    param: float
    epsilon: float


GRID = (
    Case("markov n=10 gamma=1 eps=1", "markov", 10, 1.0, 1.0),
    Case("markov n=10 gamma=5 eps=1", "markov", 10, 5.0, 1.0),
    Case("markov n=10 gamma=3 eps=2", "markov", 10, 3.0, 2.0),
    Case("markov n=10 gamma=10 eps=0.5", "markov", 10, 10.0, 0.5),
    Case("gaussian sum n=3 rho=0.5 beta=10", "gaussian_sum", 3, 0.5, 0.1),
    Case("gaussian sum n=5 rho=0.2 beta=10", "gaussian_sum", 5, 0.2, 0.1),
    Case("gaussian clipped n=5 rho=0 eps=1", "gaussian_clipped", 5, 0.0, 1.0),
)
ESTIMATORS = ("kde", "mixture")
COLUMNS = ["case", "estimator", "samples", "n_adversaries", "mean_exact", "bias", "rmse",
           "max_abs_error", "seconds"]


def _draw(case: Case, rng: np.random.Generator):
    if case.kind == "markov":
        model = MarkovChainModel(B.symmetric_chain(case.param), case.n)
        return model, LaplaceCount(case.epsilon), random_discrete_adversary(model, range(case.n), rng)
    cov = limited_covariance(case.n, case.param, 1.0, rng)
    model = GaussianModel(rng.uniform(0, 10, case.n), cov)
    if case.kind == "gaussian_sum":
        mech = LaplaceSum(1.0 / case.epsilon)
        return model, mech, random_gaussian_adversary(model, range(case.n), rng, "fixed", (0.0, 10.0))
    return model, ClippedSum(case.epsilon), random_gaussian_adversary(model, range(case.n), rng, "endpoints", (0.0, 10.0))


def _case_errors(ci: int, case: Case, samples: tuple[int, ...], adversaries: int, seed: int) -> list[dict]:
    import time

    out = []
    for si, N in enumerate(samples):
        for ei, est_name in enumerate(ESTIMATORS):
            est = KdeEstimator(N) if est_name == "kde" else MixtureEstimator(N)
            t0 = time.perf_counter()
            errs, exact = [], []
            for j in range(adversaries):
                draw = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(ci, j)))
                model, mech, adv = _draw(case, draw)
                ex = adversary_bdpl(model, mech, adv).value
                r = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(ci, j, si, ei)))
                errs.append(est.estimate(model, mech, adv, r).value - ex)
                exact.append(ex)
            e = np.array(errs)
            e = e[np.isfinite(e)]
            out.append({"case": case.name, "estimator": est_name, "samples": N, "n_adversaries": int(e.size),
                        "mean_exact": float(np.mean(exact)), "bias": float(e.mean()),
                        "rmse": float(math.sqrt(np.mean(e**2))), "max_abs_error": float(np.abs(e).max()),
                        "seconds": round(time.perf_counter() - t0, 2)})
    return out


def accuracy_table(samples=(10_000, 100_000, 1_000_000), adversaries: int = 20, seed: int = 1,
                   jobs: int = 1, cases=GRID) -> list[dict]:
    """Rows of :data:`COLUMNS`, one per (case, estimator, samples)."""
    from joblib import Parallel, delayed

    check(adversaries >= 1, "--adversaries", adversaries, "must be >= 1")
    check(all(int(s) >= 100 for s in samples), "--samples", list(samples), "each must be >= 100")
    parts = Parallel(n_jobs=jobs)(delayed(_case_errors)(ci, c, tuple(int(s) for s in samples), adversaries, seed)
                                  for ci, c in enumerate(cases))
    return [r for p in parts for r in p]


def plot_accuracy(rows: list[dict], axes):
    """RMSE vs samples (log-log), one panel per estimator; returns the axes."""
    for ax, est in zip(axes, ESTIMATORS):
        for case in dict.fromkeys(r["case"] for r in rows):
            rs = sorted((r for r in rows if r["case"] == case and r["estimator"] == est), key=lambda r: r["samples"])
            ax.loglog([r["samples"] for r in rs], [max(r["rmse"], 1e-6) for r in rs], "o-", label=case)
        ax.set_title(f"{est}: error vs exact BDPL", fontsize=9)
        ax.set_xlabel("samples per condition")
        ax.set_ylabel("RMSE of per-adversary estimate (nats)")
        ax.grid(alpha=0.3, which="both")
    axes[-1].legend(fontsize=6)
    return axes


def write_report(out: Path, rows: list[dict], meta: dict) -> list[Path]:
    from . import results as R
    from .figures import save, subplots

    out = Path(out)
    R.atomic_write_text(out / "accuracy.csv", R.csv_text(rows, COLUMNS))
    R.atomic_write_text(out / "accuracy.json", R.dumps(R.metadata("accuracy", meta, meta.get("seed"))))
    fig, axes = subplots(1, 2, figsize=(11, 4.2))
    plot_accuracy(rows, axes)
    return [out / "accuracy.csv", out / "accuracy.json", *save(fig, out / "accuracy")]
