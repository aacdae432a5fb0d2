#!/usr/bin/env python
"""Speed of the estimators and the exact search, as ratios measured in one run (the README's table).

Setting: Markov chain of thesis Fig. 14 (gamma = 5), n = 10, eps = 1, Laplace count, 10^5 samples
per condition, thesis adversary sampler. Prints

1. per adversary: a straightforward implementation of the thesis method (its own vectorised
   forward-filtering/backward-sampling of full data tuples, counting, Laplace noise, and two
   ``fastkde.pdf_at_points`` calls) vs bdpsim's ``kde`` path, and bdpsim's cost relative to its own
   two fastKDE calls (targets: <= 1.3x its fastKDE calls, >= 2.5x faster than straightforward);
2. adversaries per second of ``kde``, ``mixture`` and ``exact`` (target: mixture and exact >= 50x kde);
3. the exhaustive exact search at n = 10 (target: all adversaries < 60 s on 2 cores);
4. memory: peak traced allocation of drawing 10^6 outputs from simulated data tuples in chunks,
   against holding the full (10^6, n) data matrix (bounded memory: the peak stays near one chunk).

Writes every measured number to ``--json`` (default ``results/benchmarks/benchmark.json``), which
``scripts/readme/readme_numbers.py`` reads for the README's speed table.

Usage: python scripts/benchmarks/benchmark.py [--adversaries 20] [--samples 100000] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import fastkde
import numpy as np

from bdpsim import bounds as B
from bdpsim.estimators import ExactEstimator, KdeEstimator, MixtureEstimator
from bdpsim.estimators.kde import fastkde_backend
from bdpsim.estimators.sampling import sample_outputs
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MarkovChainModel
from bdpsim.models.base import random_discrete_adversary
from bdpsim.models.markov.exact import exhaustive_markov_count

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # script_out.py, shared by every folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from script_out import write_record  # noqa: E402


def straightforward_sample(P, w, n, known, size, rng):
    """Plain FFBS written from scratch for one condition: full (size, n) data tuples."""
    s = P.shape[0]
    alpha = np.zeros((n, s))
    for t in range(n):
        a = w.copy() if t == 0 else alpha[t - 1] @ P
        if t in known:
            m = np.zeros(s)
            m[known[t]] = 1
            a = a * m
        alpha[t] = a / a.sum()
    x = np.zeros((size, n), dtype=int)
    x[:, n - 1] = (rng.random(size)[:, None] < np.cumsum(alpha[n - 1])[None, :]).argmax(1)
    for t in range(n - 2, -1, -1):
        probs = alpha[t][None, :] * P[:, x[:, t + 1]].T
        probs /= probs.sum(1, keepdims=True)
        x[:, t] = (rng.random(size)[:, None] < np.cumsum(probs, 1)).argmax(1)
    return x


def straightforward_estimate(model, mech, adv, N, rng, points=1000):
    P, w, n = model.transition, model.initial, model.n
    out = []
    for target in (adv.x, adv.x_prime):
        data = straightforward_sample(P, w, n, adv.condition(target), N, rng)
        c = np.isin(data, mech.query_function.counted_states).sum(1)
        out.append(c + rng.laplace(0, mech.noise.scale, N))
    lo, hi = np.quantile(np.concatenate(out), [0.005, 0.995])
    t = rng.uniform(lo, hi, points)
    p1 = fastkde.pdf_at_points(out[0], list_of_points=t)
    p2 = fastkde.pdf_at_points(out[1], list_of_points=t)
    ok = (p1 > 0) & (p2 > 0)
    return float(np.max(np.log(p1[ok] / p2[ok])))  # the thesis: signed, for the drawn order


def timeit(fn, advs):
    t0 = time.perf_counter()
    vals = [fn(a) for a in advs]
    return (time.perf_counter() - t0) / len(advs), vals


RECORD: dict = {}


def main(a) -> None:
    N = a.samples
    model = MarkovChainModel(B.symmetric_chain(5.0), 10)
    mech = LaplaceCount(1.0)
    rng = np.random.default_rng(0)
    advs = [random_discrete_adversary(model, range(1, 10), rng) for _ in range(a.adversaries)]
    kde, mix, exact = KdeEstimator(N), MixtureEstimator(N), ExactEstimator()
    fastkde_backend(rng.laplace(size=N), np.zeros(1))  # warm-up (imports, FFT plans)
    straightforward_estimate(model, mech, advs[0], N, rng)

    # time spent inside fastKDE during bdpsim's kde path, measured by wrapping the backend
    import bdpsim.estimators.kde as kde_mod

    inside = [0.0]
    original = kde_mod.KDE_BACKENDS["fastkde"]

    def timed_backend(*args):
        t = time.perf_counter()
        try:
            return original(*args)
        finally:
            inside[0] += time.perf_counter() - t

    t_sf, _ = timeit(lambda ad: straightforward_estimate(model, mech, ad, N, np.random.default_rng(1)), advs)
    kde_mod.KDE_BACKENDS["fastkde"] = timed_backend
    t_kde, _ = timeit(lambda ad: kde.estimate(model, mech, ad, np.random.default_rng(1)), advs)
    kde_mod.KDE_BACKENDS["fastkde"] = original
    t_fastkde = inside[0] / len(advs)
    t_mix, _ = timeit(lambda ad: mix.estimate(model, mech, ad, np.random.default_rng(1)), advs)
    mix_fixed = MixtureEstimator(N, target_se=0.0)  # a fixed sample of N (no adaptive doubling)
    t_mixf, _ = timeit(lambda ad: mix_fixed.estimate(model, mech, ad, np.random.default_rng(1)), advs)
    t_ex, _ = timeit(lambda ad: exact.estimate(model, mech, ad), advs)

    print(
        f"setting: Markov n=10, gamma=5, eps=1, count, {N} samples/condition, {len(advs)} adversaries, 1 core"
    )
    print(f"straightforward thesis method     {1e3 * t_sf:8.1f} ms/adversary")
    print(f"bdpsim kde path                   {1e3 * t_kde:8.1f} ms/adversary")
    print(f"  its two fastKDE calls           {1e3 * t_fastkde:8.1f} ms/adversary")
    print(f"  ratio bdpsim / its fastKDE      {t_kde / t_fastkde:8.2f}   (target <= 1.3)")
    print(f"  speed-up vs straightforward     {t_sf / t_kde:8.2f}x  (target >= 2.5)")
    print(f"throughput kde                    {1 / t_kde:10.1f} adversaries/s")
    print(
        f"throughput mixture                {1 / t_mix:10.1f} adversaries/s   "
        f"{t_kde / t_mix:7.1f}x kde (target >= 50)"
    )
    print(f"throughput mixture, fixed N       {1 / t_mixf:10.1f} adversaries/s   {t_kde / t_mixf:7.1f}x kde")
    print(
        f"throughput exact                  {1 / t_ex:10.1f} adversaries/s   {t_kde / t_ex:7.1f}x "
        "kde (target >= 50)"
    )
    t0 = time.perf_counter()
    res = exhaustive_markov_count(MarkovChainModel(B.symmetric_chain(10.0), 10), LaplaceCount(2.0), range(10))
    dt = time.perf_counter() - t0
    best = res.adversary(res.best)
    print(
        f"exhaustive exact, n=10, gamma=10, eps=2: {len(res)} adversaries in {dt:.2f} s (1 core; "
        "target < 60 s); "
        f"max {res.value.max():.4f} at i={best.i} K={best.known} x_K={best.x_known}"
    )
    RECORD.update(
        samples=N,
        adversaries=len(advs),
        ms_straightforward=1e3 * t_sf,
        ms_kde=1e3 * t_kde,
        ms_kde_fastkde=1e3 * t_fastkde,
        ms_mixture=1e3 * t_mix,
        ms_mixture_fixed=1e3 * t_mixf,
        ms_exact=1e3 * t_ex,
        exhaustive_adversaries=len(res),
        exhaustive_seconds=dt,
        exhaustive_max=float(res.value.max()),
    )


def memory_section() -> None:
    import tracemalloc

    from bdpsim.mechanisms import ClippedSum
    from bdpsim.models import GaussianModel, limited_covariance

    n, N = 10, 1_000_000
    rng = np.random.default_rng(0)
    g = GaussianModel(np.full(n, 5.0), limited_covariance(n, 0.1, 1.0, rng))
    mech = ClippedSum(1.0)
    full = N * n * 8
    for chunk in (65_536, 1_000_000):
        tracemalloc.start()
        sample_outputs(g, mech, {0: 1.0}, N, rng, "data", chunk)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(
            f"memory: 10^6 outputs, Gaussian n=10, chunk {chunk:>9}: peak {peak / 2**20:7.1f} MiB "
            f"({peak / full:.2f} x the full data matrix of {full / 2**20:.0f} MiB)"
        )
        RECORD[f"memory_mib_chunk_{chunk}"] = peak / 2**20


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--adversaries", type=int, default=20)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument(
        "--json",
        type=Path,
        default=Path("results/benchmarks/benchmark.json"),
        help="where to write the measured numbers (default: %(default)s)",
    )
    args = ap.parse_args()
    load = os.getloadavg()[0]
    memory_section()
    main(args)
    RECORD.update(
        command="python scripts/benchmarks/benchmark.py"
        + (f" --adversaries {args.adversaries}" if args.adversaries != 20 else "")
        + (f" --samples {args.samples}" if args.samples != 100_000 else ""),
    )
    write_record(args.json, RECORD, load)
