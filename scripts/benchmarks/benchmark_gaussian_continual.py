#!/usr/bin/env python
"""Time the bracketed privacy profile of Gaussian noise on the value of every record of a chain, end to end.

Target: a 2-state chain, T = 100 and T = 1000, delta(eps) at 20 values of eps bracketed to <= 1e-6,
worst over every record and value pair of the adversary who knows nothing. Runs
``bdpsim temporal --release gaussian`` in a fresh process per case and prints the wall time, the
widest bracket reached, the cells of the channels and the ratio of the wall time to T = 100's.

Usage: python scripts/benchmarks/benchmark_gaussian_continual.py [--only T ...]
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


def run(steps: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "profile.json"
        cmd = [
            sys.executable, "-m", "bdpsim", "temporal", "--transition", TRANSITION, "--n", str(steps),
            "--release", "gaussian", "--sigma", "1", "--state-values", "0", "1",
            "--epsilon", *map(str, EPS), "--json", str(out),
        ]  # fmt: skip
        t0 = time.perf_counter()
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            return {"steps": steps, "wall": wall, "error": done.stderr.strip().splitlines()[-1]}
        doc = json.loads(out.read_text())
    widths = [v["width"] for v in doc["values"].values()]
    return {"steps": steps, "wall": wall, "width": max(widths), "cells": doc["cells"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", type=int, nargs="*", default=[100, 1000], metavar="T")
    a = ap.parse_args()
    rows = [run(T) for T in a.only]
    base = rows[0]["wall"]
    print(f"{'T':>6}  {'wall s':>8}  {'ratio':>6}  {'width':>9}  {'cells':>6}  target width 1e-6")
    for r in rows:
        if "error" in r:
            print(f"{r['steps']:>6}  {r['wall']:>8.1f}  refused: {r['error']}")
            continue
        ok = "ok" if r["width"] <= 1e-6 else "wider"
        print(
            f"{r['steps']:>6}  {r['wall']:>8.1f}  {r['wall'] / base:>6.2f}  {r['width']:>9.2e}  "
            f"{r['cells']:>6}  {ok}"
        )


if __name__ == "__main__":
    main()
