"""Engine builds per point, `bdpsim run` time and the activity chain's exact_bdpl: this checkout vs a base.

Usage::

    python scripts/benchmarks/engine_seam.py [--base d78b062] [--repeat 3]

For each code tree (``--base``: ``git archive`` of its ``bdpsim/`` into a temporary directory;
this checkout) it runs, in a fresh process with that tree first on ``PYTHONPATH``:

* ``bdpsim run configs/thesis_fig15_exact.toml`` (30 points, every adversary of n = 10 chains),
  end to end as a user runs it, ``--repeat`` times alternating the trees (the machine is shared:
  the ratio of the medians, not the seconds, is the measure);
* the same config through ``bdpsim.run`` with the chain engine's constructor counted: the engines
  one run builds (reading and checking the config included; one process), per point;
* ``bdpsim.exact_bdpl`` of the activity chain (``P = [[0.882, 0.118], [0.305, 0.695]]``,
  n = 288) with ``LaplaceCount(1.0)``, printed with all its digits.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "thesis_fig15_exact.toml"

COUNT = """
import bdpsim
from bdpsim.models.markov.exact import MarkovEngine
from bdpsim.pipeline.config import load_config
calls = [0]
init = MarkovEngine.__init__
def counted(self, *a, **kw):
    calls[0] += 1
    init(self, *a, **kw)
MarkovEngine.__init__ = counted
import tempfile
points = len(load_config({config!r}).points)
calls[0] = 0  # only the run's: it reads and checks the config itself
with tempfile.TemporaryDirectory() as out:
    bdpsim.run({config!r}, out, progress=False)
print(calls[0], points)
"""

ACTIVITY = """
import numpy as np, bdpsim
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MarkovChainModel
m = MarkovChainModel(np.array([[0.882, 0.118], [0.305, 0.695]]), 288)
print(repr(bdpsim.exact_bdpl(m, LaplaceCount(1.0)).bdpl))
"""


def _env(tree: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = tree + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _python(tree: str, code: str, cwd: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], env=_env(tree), cwd=cwd, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def _run_seconds(tree: str, cwd: str) -> float:
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "bdpsim.cli", "run", str(CONFIG), "--out", out, "--quiet"],
            env=_env(tree),
            cwd=cwd,
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="d78b062", help="git revision to compare with (default d78b062)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per tree (default 3)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        blob = subprocess.run(
            ["git", "-C", str(ROOT), "archive", a.base, "bdpsim"], capture_output=True, check=True
        ).stdout
        tarfile.open(fileobj=BytesIO(blob)).extractall(base, filter="data")
        trees = {a.base: str(base), "this checkout": str(ROOT)}
        seconds: dict[str, list[float]] = {k: [] for k in trees}
        for _ in range(a.repeat):  # alternating, so that both see the same load
            for label, tree in trees.items():
                seconds[label].append(_run_seconds(tree, tmp))
        for label, tree in trees.items():
            builds, points = _python(tree, COUNT.format(config=str(CONFIG)), tmp).split()
            bdpl = _python(tree, ACTIVITY, tmp)
            med = statistics.median(seconds[label])
            print(
                f"{label:>14}: bdpsim run thesis_fig15_exact {med:.2f} s (median of {a.repeat}: "
                f"{', '.join(f'{s:.2f}' for s in seconds[label])}); engines built by one run: {builds} "
                f"for {points} points ({int(builds) / int(points):g} per point); "
                f"exact_bdpl(activity chain, n = 288) = {bdpl}"
            )
        ratio = statistics.median(seconds["this checkout"]) / statistics.median(seconds[a.base])
        print(f"time ratio this checkout / {a.base}: {ratio:.2f}")


if __name__ == "__main__":
    main()
