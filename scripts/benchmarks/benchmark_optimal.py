#!/usr/bin/env python
"""Optimal integer noise on the activity chain: time and E|Z| against geometric noise.

Runs the user's commands end to end, in one process each (``python -m bdpsim.cli`` = ``bdpsim``)::

    bdpsim calibrate markov --transition ACTIVITY --n N --epsilon EPS --method optimal --json
    bdpsim calibrate markov --transition ACTIVITY --n N --epsilon EPS --noise geometric --json
    bdpsim calibrate markov --transition ACTIVITY --n N --epsilon EPS --json            (Laplace)

and reports the wall time of each, the optimal noise's E|Z| and exact BDPL, and the ratios of its
E|Z| to the exactly calibrated geometric and Laplace noises'. Target (issue 30): n = 288 within
15 minutes, a few minutes aimed at. Writes ``results/benchmarks/optimal_<n>.json`` (a small
record: no pmf) unless ``--out -``.

Usage: nice -n 10 python scripts/benchmarks/benchmark_optimal.py [--n 288] [--epsilon 1] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ACTIVITY = "[[0.882,0.118],[0.305,0.695]]"


def _run(n: int, eps: float, *extra: str) -> tuple[dict, float]:
    cmd = [
        sys.executable,
        "-m",
        "bdpsim.cli",
        "calibrate",
        "markov",
        "--transition",
        ACTIVITY,
        "--n",
        str(n),
        "--epsilon",
        str(eps),
        "--json",
        *extra,
    ]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr.strip().splitlines()[-1]}")
    return json.loads(p.stdout), seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=288)
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--out", default=str(ROOT / "results" / "benchmarks"), help="directory, or - for none")
    a = ap.parse_args(argv)
    opt, t_opt = _run(a.n, a.epsilon, "--method", "optimal")
    geo, t_geo = _run(a.n, a.epsilon, "--noise", "geometric")
    lap, t_lap = _run(a.n, a.epsilon)
    rev = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    rec = {
        "n": a.n,
        "epsilon": a.epsilon,
        "chain": ACTIVITY,
        "query": "count of state 1",
        "optimal_seconds": round(t_opt, 1),
        "geometric_seconds": round(t_geo, 1),
        "laplace_seconds": round(t_lap, 1),
        "optimal_mean_abs": opt["mean_abs"],
        "optimal_variance": opt["variance"],
        "optimal_bdpl": opt["bdpl"],
        "optimal_M": opt["M"],
        "optimal_tail_ratio": opt["noise"]["tail_ratio"],
        "pairs": opt["pairs"],
        "geometric_mean_abs": geo["mean_abs"],
        "laplace_mean_abs": lap["mean_abs"],
        "ratio_to_geometric": opt["mean_abs"] / geo["mean_abs"],
        "ratio_to_laplace": opt["mean_abs"] / lap["mean_abs"],
        "target_seconds": 900,
        "git_rev": rev,
        "python": platform.python_version(),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    print(
        f"n = {a.n}, eps = {a.epsilon}: optimal E|Z| = {rec['optimal_mean_abs']:.4f} (BDPL "
        f"{rec['optimal_bdpl']:.10f}) "
        f"in {t_opt:.0f} s; geometric {rec['geometric_mean_abs']:.4f} ({t_geo:.0f} s), Laplace "
        f"{rec['laplace_mean_abs']:.4f} ({t_lap:.0f} s); ratio to geometric {rec['ratio_to_geometric']:.4f}, "
        f"to Laplace {rec['ratio_to_laplace']:.4f}; target 900 s: {'met' if t_opt <= 900 else 'MISSED'}"
    )
    if a.out != "-":
        out = Path(a.out) / f"optimal_{a.n}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(rec, indent=1) + "\n")
        tmp.replace(out)
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
