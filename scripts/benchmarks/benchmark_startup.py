"""Start-up time of the CLI and the cost of reading a BIF file.

Usage (from the tree root)::

    python scripts/benchmarks/benchmark_startup.py [--repeat 20] [--bif PATH ...]

Each command runs ``--repeat`` times as a fresh process (``python -m bdpsim.cli ...`` of this tree);
prints one line per command: the least, median and largest wall time in seconds, and the NumPy /
SciPy / pgmpy modules it imported (``python -X importtime``). ``python -c pass`` is the
interpreter's own floor. The least of the repetitions is the figure to compare on a busy machine
(the others include waiting for a core). With ``--bif``, also the time to read each file with the
bundled parser (:func:`bdpsim.models.bayesnet.bif.read_bif`) and with pgmpy's ``BIFReader``, each
in a fresh process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "bdpsim --version": ["-m", "bdpsim.cli", "--version"],
    "bdpsim --help": ["-m", "bdpsim.cli", "--help"],
    "bdpsim calibrate --help": ["-m", "bdpsim.cli", "calibrate", "--help"],
}
HEAVY = ("numpy", "scipy", "pgmpy", "pandas", "matplotlib", "networkx")


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""))


def wall(args: list[str], repeat: int) -> list[float]:
    """Wall seconds of ``repeat`` fresh runs of ``python ARGS``."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *args], capture_output=True, check=True, env=_env())
        out.append(time.perf_counter() - t0)
    return out


def heavy_imports(args: list[str]) -> list[str]:
    """The top-level packages of :data:`HEAVY` that ``python ARGS`` imports."""
    p = subprocess.run(
        [sys.executable, "-X", "importtime", *args], capture_output=True, text=True, env=_env()
    )
    names = {line.split("|")[-1].strip().split(".")[0] for line in p.stderr.splitlines() if "|" in line}
    return sorted(names & set(HEAVY))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--bif", nargs="*", default=[], help="BIF files to read both ways")
    a = ap.parse_args()
    print(f"{'command':28s} {'min s':>7s} {'median':>7s} {'max':>7s}  heavy imports")
    for label, args in COMMANDS.items():
        t = wall(args, a.repeat)
        print(
            f"{label:28s} {min(t):7.3f} {statistics.median(t):7.3f} {max(t):7.3f}  "
            f"{', '.join(heavy_imports(args)) or '-'}"
        )
    for path in a.bif:
        for how, code in (
            ("bdpsim", "from bdpsim.models.bayesnet.bif import read_bif; read_bif({p!r})"),
            ("pgmpy", "from pgmpy.readwrite import BIFReader; BIFReader({p!r}).get_model()"),
        ):
            t = wall(["-c", code.format(p=path)], max(1, a.repeat // 5))
            print(
                f"read {os.path.basename(path)} ({how}){'':4s} {min(t):7.3f} {statistics.median(t):7.3f} "
                f"{max(t):7.3f}"
            )


if __name__ == "__main__":
    main()
