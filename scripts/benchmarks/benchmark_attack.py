#!/usr/bin/env python
"""The worst adversary's attack advantage against the exact BDPL: its speed beside ``exact_bdpl``.

Target: within 3x the time of ``exact_bdpl`` on the same model; the values are printed too.

Setting: the paper's activity chain ``P = [[0.882, 0.118], [0.305, 0.695]]`` (stationary start),
n = 288 records, count of state 1, Laplace noise with eps = 1 (scale 1), every adversary
(``|K| = 0..n-1``). Times (CPU seconds of this process, the median of --repeat calls after one
warm-up call each, so that the window search's cached context is built for both alike):

* ``bdpsim.exact_bdpl(model, mechanism)`` — the window reduction of the BDPL;
* ``bdpsim.attack_risk(model, mechanism)`` — the worst adversary's advantage (the window reduction
  of the privacy profile at eps = 0), its adversary and its exact curve;

prints both, their ratio (target <= 3), the worst advantage, the TPR at FPR 1e-3, 1e-2, 0.1 (with
the bound for every adversary) and what the pure-eps curve of the BDPL would allow. Writes the
numbers to ``--json`` (default ``results/benchmarks/attack.json``; a committed file is refused
unless --overwrite).

Usage: python scripts/benchmarks/benchmark_attack.py [--repeat 5] [--n 288] [--json PATH] [--overwrite]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's bdpsim first
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # script_out.py, shared by every folder

import numpy as np  # noqa: E402
from script_out import add_overwrite, refuse_committed  # noqa: E402

import bdpsim  # noqa: E402
from bdpsim.kernels.chains.transition import ACTIVITY  # noqa: E402
from bdpsim.mechanisms import LaplaceCount  # noqa: E402
from bdpsim.models import MarkovChainModel  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parents[2] / "results" / "benchmarks" / "attack.json"


def cpu(fn, repeat: int) -> tuple[object, float]:
    out = fn()  # warm-up
    times = []
    for _ in range(repeat):
        c = time.process_time()
        out = fn()
        times.append(time.process_time() - c)
    return out, statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="timed calls per function (median; default 5)")
    ap.add_argument("--n", type=int, default=288, help="records (default 288)")
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where the numbers go")
    add_overwrite(ap)
    a = ap.parse_args(argv)
    if a.repeat < 1:
        ap.exit(2, f"{ap.prog}: error: --repeat = {a.repeat}: must be >= 1\n")
    refuse_committed(ap, a.overwrite, a.json, option="--json")
    model = MarkovChainModel(np.array(ACTIVITY), a.n)
    mech = LaplaceCount(1.0, counted_states=(1,))
    load = os.getloadavg()[0]
    exact, t_exact = cpu(lambda: bdpsim.exact_bdpl(model, mech), a.repeat)
    risk, t_attack = cpu(lambda: bdpsim.attack_risk(model, mech), a.repeat)
    ratio = t_attack / t_exact
    rows = []
    for f in (1e-3, 1e-2, 0.1):
        w = risk.worst_tpr(f)
        rows.append(
            {
                "fpr": f,
                "tpr": w.value,
                "upper": w.upper,
                "certified": w.certified,
                "pure_eps_tpr": min(1.0, math.exp(exact.bdpl) * f),
            }
        )
    out = {
        "n": a.n,
        "epsilon": 1.0,
        "exact_bdpl": exact.bdpl,
        "exact_bdpl_cpu_s": t_exact,
        "attack_cpu_s": t_attack,
        "ratio": ratio,
        "target_ratio": 3.0,
        "advantage": risk.advantage,
        "pure_eps_advantage": math.tanh(exact.bdpl / 2),
        "adversary_bdpl": risk.bdpl,
        "tpr": rows,
        "repeat": a.repeat,
        "load_before": load,
        "load_after": os.getloadavg()[0],
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    print(f"activity chain, n = {a.n}, Laplace eps = 1, every adversary")
    print(f"exact_bdpl   {exact.bdpl:.6g}   {t_exact:.3f} CPU s")
    print(f"attack_risk  advantage {risk.advantage:.6g}   {t_attack:.3f} CPU s")
    print(f"ratio {ratio:.2f} (target <= 3): {'met' if ratio <= 3 else 'NOT met'}")
    print(f"pure-eps curve of the BDPL allows advantage {math.tanh(exact.bdpl / 2):.6g}")
    for r in rows:
        bound = "exact" if r["certified"] else f"<= {r['upper']:.6g}"
        print(f"TPR@{r['fpr']:g} = {r['tpr']:.6g} ({bound}); pure-eps allows {r['pure_eps_tpr']:.6g}")
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
