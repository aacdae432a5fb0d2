"""Shared by the thesis method tests (tests/*/test_thesis_method.py).

Issue 9 §1–§3: the thesis estimator exactly, common adversaries, an honest percentile interval,
exact values that are exact."""

import csv
import gzip

import fastkde
import numpy as np

FIG15 = {
    "run": {
        "adversaries": 4,
        "samples": 20_000,
        "estimator": "kde",
        "sampling": "data",
        "noise_floor_adversaries": 0,
        "exact_reference": False,
        "seed": 9,
    },
    "model": {"kind": "markov", "n": 10, "gamma": 10.0},
    "mechanism": {"kind": "count", "epsilon": 2.0},
}


def thesis_method(model, mech, adv, N, rng, *, shift=False, signed=True, points=1000):
    """Thesis §3.1.2 steps 2-7 written out: N chains per condition, one Laplace output each,
    fastKDE of each, 1000 uniform points between the 0.5 % and 99.5 % quantiles of the outputs,
    ln(p_x(t)/p_x'(t)) at each point (points without two positive densities have no log-ratio),
    the max."""
    outs = []
    for target in (adv.x, adv.x_prime):
        data = model.sample_conditional(adv.condition(target), N, rng)
        outs.append(
            np.isin(data, mech.query_function.counted_states).sum(axis=1)
            + rng.laplace(0.0, mech.noise.scale, N)
        )
    lo, hi = np.percentile(np.concatenate(outs), [0.5, 99.5])
    t = rng.uniform(lo, hi, points)
    dens = []
    for y in outs:
        pdf, grid = fastkde.pdf(y, use_xarray=False, positive_shift=shift)
        dens.append(np.interp(t, grid, pdf, left=0.0, right=0.0))
    p1, p2 = dens
    ok = (p1 > 0) & (p2 > 0)
    r = np.log(p1[ok] / p2[ok])
    return float((r if signed else np.abs(r)).max())


def _adversaries(out):
    with gzip.open(out / "adversaries.csv.gz", "rt") as fh:
        return list(csv.DictReader(fh))
