"""Wall time and peak RSS of ``bdpsim calibrate markov --gamma 2 --epsilon 1`` per n and method.

Usage (from the tree root)::

    PYTHONPATH=. python scripts/benchmarks/benchmark_calibrate.py [--n 10000 100000 1000000 10000000]
        [--method exact all] [--timeout 900]

Each run is a fresh process under ``/usr/bin/time -f "%e %M"`` (GNU time); prints one row per run:
n, method, exit code, seconds, peak RSS (MB), and the notes of refused or unevaluated methods.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile


def run(n: int, method: str, timeout: float) -> tuple[int, float, float, str]:
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        cmd = [
            "/usr/bin/time",
            "-o",
            tf.name,
            "-f",
            "%e %M",
            sys.executable,
            "-m",
            "bdpsim.cli",
            "calibrate",
            "markov",
            "--gamma",
            "2",
            "--n",
            str(n),
            "--epsilon",
            "1",
            "--method",
            method,
        ]
        env = dict(os.environ, PYTHONPATH=os.getcwd())
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return -1, timeout, float("nan"), f"killed after {timeout:g} s"
        sec, kb = tf.read().split()[-2:]
        notes = [
            line.split(None, 3)[-1][:90]
            for line in p.stdout.splitlines()
            if "not run" in line or "not computed" in line
        ]
        notes += [line[:120] for line in p.stderr.splitlines() if line.startswith("bdpsim: error")]
        return p.returncode, float(sec), int(kb) / 1024, "; ".join(notes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 10_000_000])
    ap.add_argument("--method", nargs="+", default=["exact", "all"])
    ap.add_argument("--timeout", type=float, default=900.0)
    a = ap.parse_args()
    print(f"{'n':>10} {'method':>8} {'rc':>3} {'seconds':>8} {'peak MB':>8}  note")
    for n in a.n:
        for m in a.method:
            rc, sec, mb, note = run(n, m, a.timeout)
            print(f"{n:>10} {m:>8} {rc:>3} {sec:>8.2f} {mb:>8.1f}  {note}", flush=True)


if __name__ == "__main__":
    main()
