"""Gaussian noise against Laplace noise, end to end: the exact privacy profile and calibration.

The exact all-adversary privacy profile of a
5-node network and the exact calibration on the activity chain.

Usage (from the tree root)::

    PYTHONPATH=. python scripts/benchmarks/benchmark_gaussian.py [--old] [--old-calibration] [--timeout 1800]

Each command is a fresh process (``python -m bdpsim.cli ...``); the table gives its exit code,
wall seconds and CPU seconds (user + system of the child: the fair measure on a shared machine),
then the ratios measured in this run: Gaussian / Laplace, and with ``--old`` the per-row reference
kernel (:mod:`bdpsim.kernels.noise.gaussian_mixture`, the kernel before the vectorised one, patched in for
that process only) / the vectorised certified kernel. ``--old-calibration`` also times the
calibration with the old kernel (more than 25 minutes on a 2-core machine: on main be71edc it was
killed after 1500 s).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NETWORK = """[run]
adversaries = "all"
estimator = "exact"
known_sizes = "all"
{profile}
[model]
kind = "bayesnet"
states = 3
parents = [[], [0], [0], [1, 2], [3]]
cpt = [[0.29, 0.287, 0.423],
       [[0.215, 0.441, 0.344], [0.238, 0.3, 0.462], [0.131, 0.259, 0.61]],
       [[0.295, 0.398, 0.307], [0.065, 0.644, 0.291], [0.103, 0.592, 0.305]],
       [[[0.2, 0.497, 0.303], [0.618, 0.163, 0.219], [0.177, 0.46, 0.363]],
        [[0.54, 0.16, 0.3], [0.461, 0.326, 0.213], [0.448, 0.491, 0.061]],
        [[0.318, 0.531, 0.151], [0.403, 0.248, 0.349], [0.578, 0.387, 0.035]]],
       [[0.248, 0.31, 0.442], [0.51, 0.419, 0.071], [0.238, 0.29, 0.472]]]
[mechanism]
kind = "count"
{noise}
"""
ACTIVITY = "[[0.882,0.118],[0.305,0.695]]"
CALIBRATE = ["calibrate", "markov", "--transition", ACTIVITY, "--n", "288", "--epsilon", "1"]

OLD_KERNEL = """
import sys
import numpy as np
from bdpsim.kernels import gaussian_mixture as gm
from bdpsim.kernels.noise.laws import GaussianNoise
from bdpsim.kernels.noise.checks import lattice, profile_eps, rows, signed

def grid_sup(self, W1, W2, delta):
    A, B = rows(W1, W2)
    c = lattice(delta, A.shape[1])
    f, b, wf, wb = (np.array(v, dtype=float) for v in zip(*[gm.gauss_sup_row(A[i], B[i], c, self.sigma)
                                                           for i in range(A.shape[0])]))
    return signed(f, b, wf / float(delta), wb / float(delta))

def grid_delta(self, W1, W2, delta, epsilon):
    A, B = rows(W1, W2)
    c, e = lattice(delta, A.shape[1]), profile_eps(epsilon)
    return np.array([gm.gauss_delta_row(A[i], B[i], c, self.sigma, e) for i in range(A.shape[0])])

GaussianNoise.grid_sup = grid_sup
GaussianNoise.grid_delta = grid_delta
del GaussianNoise.grid_delta_both  # the per-row kernel: one direction per call
from bdpsim.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run(args: list[str], old: bool, timeout: float) -> tuple[int, float, float, str]:
    """``(exit code, wall s, cpu s, last line of output)`` of ``bdpsim ARGS`` in a fresh process."""
    cmd = [sys.executable, "-c", OLD_KERNEL, *args] if old else [sys.executable, "-m", "bdpsim.cli", *args]
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        code, out = p.returncode, (p.stdout.strip().splitlines() or p.stderr.strip().splitlines() or [""])[-1]
    except subprocess.TimeoutExpired:
        code, out = -1, f"killed after {timeout:g} s"
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return code, wall, cpu, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--old", action="store_true", help="also time the network profile with the per-row kernel"
    )
    ap.add_argument("--old-calibration", action="store_true", help="also time the calibration with it")
    ap.add_argument("--timeout", type=float, default=1800.0)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-gauss-"))
    gauss, lap = tmp / "gauss.toml", tmp / "laplace.toml"
    gauss.write_text(NETWORK.format(profile="epsilon_profile = 1.0", noise='noise = "gaussian"\nsigma = 1.0'))
    lap.write_text(NETWORK.format(profile="", noise="epsilon = 1.0"))
    cases = [
        ("network profile", "laplace", False, ["run", str(lap), "--out", str(tmp / "l"), "--quiet"]),
        ("network profile", "gaussian", False, ["run", str(gauss), "--out", str(tmp / "g"), "--quiet"]),
        ("calibrate n=288", "laplace", False, CALIBRATE + ["--json"]),
        (
            "calibrate n=288",
            "gaussian",
            False,
            CALIBRATE + ["--noise", "gaussian", "--delta", "1e-6", "--json"],
        ),
    ]
    if a.old:
        cases.append(
            ("network profile", "gaussian", True, ["run", str(gauss), "--out", str(tmp / "o"), "--quiet"])
        )
    if a.old_calibration:
        cases.append(
            (
                "calibrate n=288",
                "gaussian",
                True,
                CALIBRATE + ["--noise", "gaussian", "--delta", "1e-6", "--json"],
            )
        )
    print(f"{'command':<16} {'noise':<9} {'kernel':<11} {'rc':>3} {'wall s':>8} {'cpu s':>8}  output")
    times = {}
    for what, noise, old, args in cases:
        code, wall, cpu, out = run(args, old, a.timeout)
        kernel = "per-row" if old else "vectorised"
        times[what, noise, old] = (wall, cpu)
        print(
            f"{what:<16} {noise:<9} {kernel:<11} {code:>3} {wall:>8.2f} {cpu:>8.2f}  {out[:70]}", flush=True
        )
    print()
    for what in ("network profile", "calibrate n=288"):
        g, lp = times[what, "gaussian", False], times[what, "laplace", False]
        print(f"{what}: gaussian / laplace = {g[1] / lp[1]:.1f}x cpu, {g[0] / lp[0]:.1f}x wall")
        if (what, "gaussian", True) in times:
            o = times[what, "gaussian", True]
            print(f"{what}: per-row / vectorised kernel = {o[1] / g[1]:.1f}x cpu, {o[0] / g[0]:.1f}x wall")


if __name__ == "__main__":
    main()
