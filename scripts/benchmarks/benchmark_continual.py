#!/usr/bin/env python
"""Time ``bdpsim run`` of the bundled continual config at T = 24..192 end to end: ratios to T = 24.

Each run is a fresh ``bdpsim run`` process (CPU time of the child: user + system) on the bundled
``temporal_example`` config with ``model.n`` set to T (every target step, ``known_sizes = [0]``,
three budgets): the continual release is linear in T when T = 192 costs at most about 8x T = 24
(target <= 10x).

Usage (from the checkout's root; PYTHONPATH=. when bdpsim is installed from elsewhere):
       python scripts/benchmarks/benchmark_continual.py [--steps 24 48 96 192] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[2] / "bdpsim" / "configs" / "temporal_example.toml"


def run_once(steps: int, tmp: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``bdpsim run`` of the config at ``n = steps``."""
    text = re.sub(r"(?m)^n = \d+", f"n = {steps}", CONFIG.read_text())
    cfg = tmp / f"continual_T{steps}.toml"
    cfg.write_text(text)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "bdpsim",
            "run",
            str(cfg),
            "--out",
            str(tmp / f"out{steps}"),
            "--quiet",
            "--force",
        ],
        check=True,
        env=os.environ,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, nargs="+", default=[24, 48, 96, 192])
    ap.add_argument("--repeat", type=int, default=1, help="runs per T (the fastest is kept)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        run_once(a.steps[0], tmp)  # warm the imports' caches
        rows = []
        for T in a.steps:
            best = min((run_once(T, tmp) for _ in range(a.repeat)), key=lambda r: r[0])
            rows.append((T, *best))
    base_cpu, base_wall = rows[0][1], rows[0][2]
    print(f"bdpsim run {CONFIG.name} with model.n = T (CPU of the child process, ratios to T = {rows[0][0]})")
    print(f"{'T':>5} {'cpu s':>8} {'wall s':>8} {'cpu ratio':>10} {'wall ratio':>11}")
    for T, cpu, wall in rows:
        print(f"{T:>5} {cpu:8.2f} {wall:8.2f} {cpu / base_cpu:10.1f} {wall / base_wall:11.1f}")


if __name__ == "__main__":
    main()
