#!/usr/bin/env python
"""Thesis estimator variants on identical samples (thesis §3.1.2; issue 9 §1). Slow, one-off.

Setting: the symmetric Markov chain of thesis Fig. 14/15 (max/min transition ratio gamma), n
records, Laplace count with eps, the thesis' adversary sampler (|K| in 1..n-1), ``--adversaries``
adversaries x ``--samples`` outputs per condition. For each adversary the two output samples and
the 1 000 evaluation points are drawn once; every variant is evaluated on them:

* ``signed / no shift`` — bdpsim's default (the thesis: ``ln(p_x(t)/p_x'(t))``, fastKDE densities
  as estimated, ``fastkde.pdf`` grid interpolated at t);
* ``signed / pdf_at_points`` — the same estimate evaluated at t without a grid;
* ``symmetric / no shift`` — ``|ln p_x - ln p_x'|``;
* ``signed / positive_shift`` and ``symmetric / positive_shift`` — ``fastkde.pdf``'s default shift.

Prints each variant's 99th percentile over adversaries with its distribution-free 95 % interval,
the points dropped for a non-positive density, and the exact one- and two-sided values.

Usage (output committed as results/accuracy/thesis_fidelity_*.txt):
       python scripts/thesis_fidelity.py [--gamma 10] [--epsilon 2] [--n 10]
       [--adversaries 600] [--samples 100000] [--seed 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bdpsim import bounds as B
from bdpsim.models.base import random_discrete_adversary
from bdpsim.estimators.kde import density_at, log_ratio
from bdpsim.estimators import exact_reference
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MarkovChainModel
from bdpsim.sampling import sample_outputs
from bdpsim.kernels.stats import percentile_ci

VARIANTS = {  # name: (backend, positive_shift, ratio)
    "signed / no shift (default)": ("fastkde", False, "signed"),
    "signed / pdf_at_points": ("fastkde_points", False, "signed"),
    "symmetric / no shift": ("fastkde", False, "symmetric"),
    "signed / positive_shift": ("fastkde", True, "signed"),
    "symmetric / positive_shift": ("fastkde", True, "symmetric"),
}


def one_adversary(model, mech, adv, N, rng, points=1000, window=(0.5, 99.5)):
    a = sample_outputs(model, mech, adv.condition(adv.x), N, rng)
    b = sample_outputs(model, mech, adv.condition(adv.x_prime), N, rng)
    lo, hi = np.percentile(np.concatenate([a, b]), window)
    t = rng.uniform(lo, hi, size=points)
    dens = {}
    out = {}
    for name, (backend, shift, ratio) in VARIANTS.items():
        key = (backend, shift)
        if key not in dens:
            dens[key] = (density_at(a, t, backend, shift), density_at(b, t, backend, shift))
        p1, p2 = dens[key]
        ok = (p1 > 0) & (p2 > 0)
        r = log_ratio(p1[ok], p2[ok], ratio)
        out[name] = (float(r.max()) if r.size else np.nan, int(points - ok.sum()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gamma", type=float, default=10.0)
    ap.add_argument("--epsilon", type=float, default=2.0)
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--adversaries", type=int, default=600)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    model = MarkovChainModel(B.symmetric_chain(a.gamma), a.n)
    mech = LaplaceCount(a.epsilon)
    t0 = time.perf_counter()
    vals = {k: [] for k in VARIANTS}
    bad = {k: 0 for k in VARIANTS}
    one, two = [], []
    for j in range(a.adversaries):
        r_draw, r_est = (np.random.default_rng(s) for s in np.random.SeedSequence(a.seed, spawn_key=(j,)).spawn(2))
        adv = random_discrete_adversary(model, range(1, a.n), r_draw)
        for k, (v, nb) in one_adversary(model, mech, adv, a.samples, r_est).items():
            vals[k].append(v)
            bad[k] += nb
        one.append(exact_reference(model, mech, adv, signed=True).value)
        two.append(exact_reference(model, mech, adv, signed=False).value)
    print(f"Markov n={a.n}, gamma={a.gamma:g}, eps={a.epsilon:g}, count; {a.adversaries} adversaries "
          f"(|K| in 1..{a.n - 1}) x {a.samples} samples per condition; seed {a.seed}; "
          f"{time.perf_counter() - t0:.0f} s")
    print(f"{'variant':32} {'p99':>7} {'95% CI (order statistics)':>27} {'max':>7} {'median':>7} {'dropped pts':>11}")
    for k in VARIANTS:
        v = np.array(vals[k])
        v = v[np.isfinite(v)]
        lo, hi = percentile_ci(v, 99.0)
        print(f"{k:32} {np.percentile(v, 99):7.3f} {f'[{lo:.3f}, {hi:.3f}]':>27} {v.max():7.3f} "
              f"{np.median(v):7.3f} {bad[k]:11d}")
    for name, ex in (("exact one-sided (same adversaries)", one), ("exact two-sided (same adversaries)", two)):
        ex = np.array(ex)
        print(f"{name:32} {np.percentile(ex, 99):7.3f} {'':>27} {ex.max():7.3f} {np.median(ex):7.3f}")


if __name__ == "__main__":
    main()
