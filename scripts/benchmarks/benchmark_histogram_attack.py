"""Time the attack over every adversary on the two-state Laplace histogram at n = 8..24: ratios to n = 16.

Usage::

    python scripts/benchmarks/benchmark_histogram_attack.py [--n 8 12 16 20 24] [--repeat 1]
        [--gamma 2] [--timeout 900]

Measures what sets :data:`bdpsim.mechanisms.histogram.ATTACK_MAX_N` (the longest two-state chain
whose histogram is attacked over every adversary by certified box brackets; longer chains are
attacked by Monte Carlo, the accountant's window sweep).
For each ``n``, on the symmetric chain of each ``gamma`` (default 2; 30 costs about three times
more) with the histogram of ``epsilon = 1`` (Laplace(2) on each of the two counts), in a fresh
process each (cold):

1. ``attack_risk(model, mechanism)`` over every adversary: the advantage alone (CPU s);
2. the command's work in the library: ``attack_risk(..., fpr=(1e-3, 1e-2, 0.1), bdpl=True)`` and
   the worst TPR at those FPRs (CPU s, a second call in the same process, after the first);
3. ``bdpsim attack config FILE.toml --json --quiet`` end to end (wall s): the command a user runs.

Both processes lift the cap to the largest ``n`` asked (``ATTACK_MAX_N`` in the two modules that
read it) so that chains beyond today's cap can be timed; at and below the cap nothing else differs.
Prints one line per ``n`` with the times and their ratios to the ``n = 16`` times of the same run
(the machine may be shared: the ratios, not the seconds, are the measure).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from fresh_python import printed  # noqa: E402

#: lift the cap (the constant and the module that imports it by name) to ``{cap}``
LIFT = """
import bdpsim.mechanisms.histogram as H, bdpsim.accounting.boxes as B
H.ATTACK_MAX_N = B.ATTACK_MAX_N = {cap}
"""

LIBRARY = (
    LIFT
    + """
import time, bdpsim
model = bdpsim.MarkovChainModel(bdpsim.symmetric_chain({gamma}), n={n})
mech = bdpsim.HistogramMechanism(1.0, 2)
t = time.process_time()
risk = bdpsim.attack_risk(model, mech)
advantage = time.process_time() - t
t = time.process_time()
fpr = (1e-3, 1e-2, 0.1)  # the command's work: its default FPRs, the exact BDPL
risk = bdpsim.attack_risk(model, mech, fpr=fpr, bdpl=True)
risk.worst_tprs(fpr)
print(advantage, time.process_time() - t, risk.advantage)
"""
)

COMMAND = (
    LIFT
    + """
import sys
from bdpsim.cli import main
sys.exit(main(["attack", "config", {config}, "--json", "--quiet"]))
"""
)

CONFIG = """[model]
kind = "markov"
n = {n}
gamma = {gamma}
[mechanism]
kind = "histogram"
epsilon = 1.0
"""


def _fill(code: str, **values) -> str:
    """``code`` with each ``{name}`` replaced by ``str(value)``."""
    for k, v in values.items():
        code = code.replace("{" + k + "}", str(v))
    return code


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _library(n: int, gamma: float, cap: int, timeout: float) -> tuple[float, float, float] | None:
    """CPU seconds of ``attack_risk`` over every adversary (the advantage; the command's work) and
    the advantage, or ``None`` past ``timeout``."""
    words = printed(_fill(LIBRARY, n=n, gamma=gamma, cap=cap), _env(), timeout)
    if words is None:
        return None
    alone, whole, adv = words[-3:]
    return float(alone), float(whole), float(adv)


def _command(n: int, gamma: float, cap: int, tmp: str, timeout: float) -> float | None:
    """Wall seconds of ``bdpsim attack config`` on the chain, or ``None`` past ``timeout``."""
    config = Path(tmp) / f"hist{n}.toml"
    config.write_text(CONFIG.format(n=n, gamma=gamma))
    code = _fill(COMMAND, cap=cap, config=repr(str(config)))
    t0 = time.perf_counter()
    try:
        subprocess.run(
            [sys.executable, "-c", code], env=_env(), capture_output=True, check=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - t0


def _ratio(x: float | None, ref: float | None) -> str:
    return "-" if x is None or not ref else f"{x / ref:.2f}"


def _one_chain(gamma: float, sizes: list[int], cap: int, repeat: int, timeout: float, tmp: str) -> None:
    """Time every ``n`` of ``sizes`` on the symmetric chain of ``gamma``; print the times and the
    ratios to ``n = 16``."""
    got: dict[int, tuple] = {}
    for n in sizes:
        libs = [_library(n, gamma, cap, timeout) for _ in range(repeat)]
        cmds = [_command(n, gamma, cap, tmp, timeout) for _ in range(repeat)]
        lib = min((x for x in libs if x is not None), default=None)
        cmd = min((x for x in cmds if x is not None), default=None)
        got[n] = (lib, cmd)
        alone, whole, adv = lib or (math.nan,) * 3
        print(
            f"gamma {gamma:g}, n = {n:3d}: advantage {alone:6.1f} s CPU, the command's work "
            f"{whole:6.1f} s CPU (advantage {adv:.6f}); bdpsim attack config {cmd or math.nan:6.1f} s wall",
            flush=True,
        )
    ref_lib, ref_cmd = got.get(16, (None, None))
    print(f"gamma {gamma:g}, ratios to n = 16 (advantage, the command's work, bdpsim attack config):")
    for n, (lib, cmd) in got.items():
        ratios = [_ratio(lib[j] if lib else None, ref_lib[j] if ref_lib else None) for j in (0, 1)]
        print(f"  n = {n:3d}: {ratios[0]:>6} {ratios[1]:>6} {_ratio(cmd, ref_cmd):>6}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[8, 12, 16, 20, 24], help="chain lengths")
    ap.add_argument(
        "--gamma", type=float, nargs="+", default=[2.0], help="the symmetric chains' gamma (default 2)"
    )
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement (the least; default 1)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds before a run is given up")
    a = ap.parse_args(argv)
    cap = max(a.n)
    print(f"load average {os.getloadavg()[0]:.2f}; cap lifted to n = {cap}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for gamma in a.gamma:
            _one_chain(gamma, a.n, cap, a.repeat, a.timeout, tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
