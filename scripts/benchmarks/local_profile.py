#!/usr/bin/env python
"""Time the bracketed privacy profile of a chain's local release end to end (each case in a fresh process).

Targets: a k-RR local release of a 2-state chain, T = 1000, the profile at 20 values of eps
bracketed to <= 1e-6 in delta, worst over every adversary who knows nothing (``sizes=[0]``), in
<= 60 s; a 3-state chain at T = 100 likewise. Also what ``sizes="all"`` (every known set) reaches.
Prints, per case, the wall and CPU time of the call in a fresh Python process (imports included),
the width reached, the grid, and the ratio of the wall time to the target.

Usage: python scripts/benchmarks/local_profile.py [--only LABEL ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: label -> (states, steps, sizes, tolerance, max_grid, target seconds or None)
CASES = {
    "2-state-T1000": (2, 1000, [0], 1e-6, 4096, 60.0),
    "3-state-T100": (3, 100, [0], 1e-6, 1024, 60.0),
    "3-state-T100-grid512": (3, 100, [0], 1e-6, 512, None),
    "2-state-T40-all": (2, 40, "all", 1e-6, 4096, None),
    "2-state-T80-all": (2, 80, "all", 1e-6, 4096, None),
}

CHILD = textwrap.dedent(
    """
    import json, math, sys, time
    t0, c0 = time.perf_counter(), time.process_time()
    import numpy as np
    from bdpsim.kernels.chains.local_worst import worst_local_release_profile
    from bdpsim.kernels.chains.transition import ACTIVITY
    k, T, sizes, tol, max_grid = json.loads(sys.argv[1])
    P = np.array(ACTIVITY) if k == 2 else np.array([[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]])
    L = np.ones((k, k)) + np.eye(k) * math.expm1(1.0)  # k-RR at eps = 1 per step
    w = worst_local_release_profile(
        P, "stationary", L / L.sum(axis=0), steps=T, epsilons=np.linspace(0.0, 3.0, 20),
        sizes=sizes, tolerance=tol, max_grid=max_grid,
    )
    print(json.dumps({
        "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0, "width": w.width,
        "grid": w.grid, "converged": w.converged, "composed": w.composed,
        "bdpl": [float(w.bdpl.low), float(w.bdpl.high)], "delta_at_1": float(w.delta.low[6]),
        "worst": str(w.attained_by[6]),
    }))
    """
)


def run(label: str) -> dict:
    k, T, sizes, tol, max_grid, _ = CASES[label]
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps([k, T, sizes, tol, max_grid])],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(CASES), help="run these cases only")
    args = parser.parse_args(argv)
    head = f"{'case':<22} {'wall s':>7} {'cpu s':>7} {'width':>9} {'grid':>5} {'target s':>8}"
    print(f"{head} {'wall/target':>11} {'cpu/target':>10}")
    missed = False
    for label in args.only or list(CASES):
        r = run(label)
        target = CASES[label][5]
        ratio = f"{r['wall'] / target:.2f}" if target else "-"
        cpu_ratio = f"{r['cpu'] / target:.2f}" if target else "-"
        width = f"{r['width']:.1e}" + ("" if r["converged"] else "*")
        missed |= not r["converged"]
        print(
            f"{label:<22} {r['wall']:7.1f} {r['cpu']:7.1f} {width:>9} {r['grid']:5d} "
            f"{target or '-':>8} {ratio:>11} {cpu_ratio:>10}   bdpl [{r['bdpl'][0]:.6f}, "
            f"{r['bdpl'][1]:.6f}], delta(0.947) >= {r['delta_at_1']:.6f} by {r['worst']}"
        )
    if missed:
        print("* the tolerance 1e-6 was not reached within the case's largest grid (the width shown holds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
