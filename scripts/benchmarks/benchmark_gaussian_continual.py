#!/usr/bin/env python
"""Time the bracketed privacy profile of Gaussian noise on the value of every record of a chain, end to end.

Targets: a 2-state chain, T = 100 and T = 1000, and a 3-state chain with three distinct values,
T = 100: delta(eps) at 20 values of eps bracketed to <= 1e-6, worst over every record and value
pair of the adversary who knows nothing. Runs ``bdpsim temporal --release gaussian`` in a fresh
process per case and prints the wall time, the widest bracket reached, the cells of the channels
and the ratio of the wall time to the first case's. ``--cells N ...`` also times one pass of the
3-state chain's two channels (lower and upper, T = 100, first-pass filter tolerance) at each
number of cells: the cost of the corner channel's ``3 N + 1`` outputs per step against ``N``.

Usage: python scripts/benchmarks/benchmark_gaussian_continual.py [--only CASE ...] [--cells N ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EPS = [round(0.1 * i, 1) for i in range(20)]  # 0.0 .. 1.9
TRANSITION = "[[0.8,0.2],[0.3,0.7]]"
TRANSITION3 = "[[0.8,0.15,0.05],[0.2,0.6,0.2],[0.05,0.15,0.8]]"
#: name: (transition, T, state values)
CASES = {
    "2x100": (TRANSITION, 100, ["0", "1"]),
    "2x1000": (TRANSITION, 1000, ["0", "1"]),
    "3x100": (TRANSITION3, 100, ["0", "1", "3"]),
}


def run(name: str) -> dict:
    transition, steps, values = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "profile.json"
        cmd = [
            sys.executable, "-m", "bdpsim", "temporal", "--transition", transition, "--n", str(steps),
            "--release", "gaussian", "--sigma", "1", "--state-values", *values,
            "--epsilon", *map(str, EPS), "--json", str(out),
        ]  # fmt: skip
        t0 = time.perf_counter()
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            return {"case": name, "wall": wall, "error": done.stderr.strip().splitlines()[-1]}
        doc = json.loads(out.read_text())
    widths = [v["width"] for v in doc["values"].values()]
    return {"case": name, "wall": wall, "width": max(widths), "cells": doc["cells"]}


def pass_cost(cells: list[int]) -> None:
    """One pass of both channels of the 3-state case at each number of cells (in this process)."""
    import numpy as np

    import bdpsim
    from bdpsim.accounting.local import FIRST_TOLERANCE, ValueNoiseAccount
    from bdpsim.mechanisms.value_noise import ValueNoise

    transition, steps, values = CASES["3x100"]
    model = bdpsim.MarkovChainModel(np.array(json.loads(transition)), n=steps)
    rel = ValueNoise(state_values=tuple(float(v) for v in values), sigma=1.0)
    head = f"{'cells':>6}  {'outputs':>8}  {'pass s':>8}  {'ratio':>6}  {'width':>9}"
    print(f"\n{head}  (3x100, one pass, 20 eps)")
    base = None
    for n in cells:
        acc = ValueNoiseAccount(model, (rel,), None, (0,), rel)
        t0 = time.perf_counter()
        lo, up, pair = acc._run(n, FIRST_TOLERANCE, EPS, [], [])
        wall = time.perf_counter() - t0
        base = base or wall
        slack = pair.slack(steps)
        width = max(float(up.delta(e).upper) + slack - float(lo.delta(e).lower) for e in EPS)
        print(f"{n:>6}  {pair.upper.shape[1]:>8}  {wall:>8.1f}  {wall / base:>6.2f}  {width:>9.2e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=list(CASES), choices=list(CASES), metavar="CASE")
    ap.add_argument("--cells", type=int, nargs="*", default=[], metavar="N")
    a = ap.parse_args()
    rows = [run(name) for name in a.only]
    base = rows[0]["wall"] if rows else 1.0
    print(f"{'case':>7}  {'wall s':>8}  {'ratio':>6}  {'width':>9}  {'cells':>6}  target width 1e-6")
    for r in rows:
        if "error" in r:
            print(f"{r['case']:>7}  {r['wall']:>8.1f}  refused: {r['error']}")
            continue
        ok = "ok" if r["width"] <= 1e-6 else "wider"
        print(
            f"{r['case']:>7}  {r['wall']:>8.1f}  {r['wall'] / base:>6.2f}  {r['width']:>9.2e}  "
            f"{r['cells']:>6}  {ok}"
        )
    if a.cells:
        pass_cost(a.cells)


if __name__ == "__main__":
    main()
