"""A sweep of many trivial configuration points writes its summary in time linear in their number.

Usage::

    python scripts/benchmarks/benchmark_sweep.py [--small 1000] [--large 10000] [--out DIR]

Times ``bdpsim run`` end to end (a subprocess, as a user runs it) on the same trivial config — a
4-record Markov chain, one adversary per point, the exact estimator — swept over ``--small`` and
``--large`` values of ``mechanism.epsilon``, in one invocation, and prints the ratio of the two
times: about ``large / small`` (10) when the run is linear in the points, about its square (100)
when every finished point rewrote the whole ``summary.csv`` (bdpsim before issue 28). It then times
the two ways of keeping ``summary.csv`` current in-process on the large run's records: appending one
line per point (now), and rebuilding it from every finished marker per point (before; measured on a
sample of points and scaled, it is quadratic).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = """title = "benchmark: a trivial sweep of {n} points"
[run]
seed = 1
adversaries = 1
estimator = "exact"
known_sizes = [1]
noise_floor_adversaries = 0
[model]
kind = "markov"
n = 4
gamma = 2.0
[mechanism]
kind = "count"
epsilon = {{ linspace = [0.1, 3.0, {n}] }}
"""


def timed_run(n: int, where: Path) -> float:
    cfg = where / f"sweep{n}.toml"
    cfg.write_text(CONFIG.format(n=n))
    out = where / f"out{n}"
    t0 = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-m", "bdpsim.cli", "run", str(cfg), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
    )
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(p.stderr[-2000:])
    lines = (out / "summary.csv").read_text().count("\n") - 1
    assert lines == n, (lines, n)
    return dt


def summary_upkeep(out: Path, sample: int = 200) -> tuple[float, float]:
    """Seconds to keep summary.csv current over every point of ``out``: appending a line per point,
    and rebuilding it from the markers per point (timed on ``sample`` evenly spaced points, scaled)."""
    from bdpsim.pipeline import results as R
    from bdpsim.pipeline.config import load_config

    cfg = load_config(out.parent / f"sweep{len(list((out / 'points').glob('*.json')))}.toml")
    ids = [p.id for p in cfg.points]
    label = cfg.percentile_label
    rows = R.write_summary(out, ids, label)
    log_dir = out.parent / "append-check"
    log_dir.mkdir(exist_ok=True)
    t0 = time.perf_counter()
    log = R.SummaryLog(log_dir, [], label)
    for r in rows:
        log.append(r)
    append = time.perf_counter() - t0
    step = max(1, len(ids) // sample)
    t0 = time.perf_counter()
    for k in range(step, len(ids) + 1, step):  # what the driver did after the k-th finished point
        R.write_summary(out, ids[:k], label)
    rebuild = (time.perf_counter() - t0) * step
    return append, rebuild


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--large", type=int, default=10_000)
    ap.add_argument(
        "--out", type=Path, default=None, help="keep the runs here (default: a temporary directory)"
    )
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bdpsim-sweep-") as tmp:
        where = a.out or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        t_small = timed_run(a.small, where)
        t_large = timed_run(a.large, where)
        print(f"bdpsim run, {a.small} points: {t_small:.1f} s ({1e3 * t_small / a.small:.2f} ms/point)")
        print(f"bdpsim run, {a.large} points: {t_large:.1f} s ({1e3 * t_large / a.large:.2f} ms/point)")
        print(
            f"ratio {a.large} / {a.small} points: {t_large / t_small:.2f} "
            f"(linear: {a.large / a.small:g}, quadratic: {(a.large / a.small) ** 2:g})"
        )
        append, rebuild = summary_upkeep(where / f"out{a.large}")
        print(
            f"keeping summary.csv current over {a.large} points: append {append:.2f} s (now), "
            f"rebuild per point {rebuild:.1f} s (before issue 28, scaled from a sample)"
        )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
