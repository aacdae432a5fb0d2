"""Time the attack on a local release (attack config of a continual config, attack_risk, tpr_at) vs a base.

Usage::

    python scripts/benchmarks/benchmark_local_attack.py [--base 8af23df] [--repeat 1] [--timeout 900]

Every case runs in a fresh process with one code tree first on ``PYTHONPATH`` (``--base``: ``git
archive`` of its ``bdpsim/``; this checkout), the trees alternating; the CPU seconds of the
process (user + system, the machine is shared: compare the ratios) and its wall seconds:

1. ``bdpsim attack config configs/temporal_example.toml --epsilon 1 --fpr 0.01 0.05 0.3 --json``
   (the bundled continual config: a day of hourly k-RR releases of a 3-state chain, every known
   set), end to end.
2. ``bdpsim.attack_risk`` of k-RR eps = 1 on a 2-state chain of 5 and of 12 records with the TPR
   at the three FPRs (the base: its ``tpr_bound``; this checkout: ``worst_tprs``).
3. ``bdpsim.account(...).tpr_at`` at the three FPRs, 2-state chain of 12 records.

Prints one line per case and the ratio this checkout / base (the target: at most 3).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FPRS = ("0.01", "0.05", "0.3")
CHAIN = "import numpy as np, bdpsim\nm = bdpsim.MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), n={n})\n"
RISK = {
    True: "r = bdpsim.attack_risk(m, bdpsim.LocalRelease('krr', 1.0), fpr=[0.01, 0.05, 0.3])\n"
    "print(r.advantage, r.worst_tprs([0.01, 0.05, 0.3]))",
    False: "r = bdpsim.attack_risk(m, bdpsim.LocalRelease('krr', 1.0))\n"
    "print(r.advantage, [r.tpr_bound(f) for f in (0.01, 0.05, 0.3)])",
}
ACCOUNT = (
    "a = bdpsim.account(m, [bdpsim.LocalRelease('krr', 1.0)])\n"
    "print([a.tpr_at(f) for f in (0.01, 0.05, 0.3)])"
)


def _cases(new: bool) -> dict[str, list[str]]:
    cli = [
        sys.executable,
        "-m",
        "bdpsim.cli",
        "attack",
        "config",
        str(ROOT / "configs" / "temporal_example.toml"),
    ]
    py = [sys.executable, "-c"]
    return {
        "attack config, continual (T = 24, 3 states)": [*cli, "--epsilon", "1", "--fpr", *FPRS, "--json"],
        "attack_risk k-RR T = 5": [*py, CHAIN.format(n=5) + RISK[new]],
        "attack_risk k-RR T = 12": [*py, CHAIN.format(n=12) + RISK[new]],
        "account tpr_at k-RR T = 12": [*py, CHAIN.format(n=12) + ACCOUNT],
    }


def _run(tree: str, argv: list[str], timeout: float, cwd: str) -> tuple[float, float] | None:
    """``(CPU s, wall s)`` of ``argv`` in a fresh process with ``tree`` first on the path (run in
    ``cwd``, a folder without ``bdpsim/``: ``python -c`` puts its folder first)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = tree + os.pathsep + env.get("PYTHONPATH", "")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="8af23df", help="git revision to compare with (default 8af23df)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per case and tree (median; default 1)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds before a run is given up")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        blob = subprocess.run(
            ["git", "-C", str(ROOT), "archive", a.base, "bdpsim"], capture_output=True, check=True
        ).stdout
        base = Path(tmp) / "base"
        tarfile.open(fileobj=BytesIO(blob)).extractall(base, filter="data")
        trees = {a.base: (str(base), False), "this checkout": (str(ROOT), True)}
        times: dict[str, dict[str, list]] = {t: {c: [] for c in _cases(True)} for t in trees}
        for _ in range(a.repeat):
            for case in _cases(True):
                for label, (tree, new) in trees.items():
                    times[label][case].append(_run(tree, _cases(new)[case], a.timeout, tmp))
    print(f"load average {os.getloadavg()[0]:.1f}; CPU s (wall s), median of {a.repeat}")
    for case in _cases(True):
        got = {}
        for label in trees:
            runs = times[label][case]
            got[label] = (
                None if None in runs else tuple(statistics.median(x[i] for x in runs) for i in (0, 1))
            )
        base, new = got[a.base], got["this checkout"]
        shown = "  ".join(
            f"{label}: " + ("timeout" if v is None else f"{v[0]:.2f} ({v[1]:.2f})")
            for label, v in got.items()
        )
        ratio = "" if base is None or new is None else f"  ratio {new[0] / base[0]:.2f} (target <= 3)"
        print(f"{case:<46} {shown}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
