#!/usr/bin/env python
"""Time ``bdpsim temporal`` end to end: the command a user runs, in a fresh process.

Targets: a 2-state chain at T = 10 000 (every t, exact and Cao) under 10 s; 3-5 states at T = 100
under a minute. Prints each measured time and writes ``results/benchmarks/temporal.json`` (read by
``scripts/findings/temporal_findings.py --table-only`` for the documentation's line).

Usage: python scripts/benchmarks/benchmark_temporal.py --overwrite [--only LABEL ...]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # script_out.py, shared by every folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from script_out import add_overwrite, refuse_committed  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "results" / "benchmarks" / "temporal.json"


def chain(k: int) -> list[list[float]]:
    rng = np.random.default_rng(100 + k)
    P = rng.dirichlet(np.ones(k), size=k)
    P = np.round(P, 6)
    P[:, -1] = 1.0 - P[:, :-1].sum(axis=1)  # rows sum to 1 exactly after rounding
    return P.tolist()


CASES = [
    ("2 states, T = 10000, any", [[0.882, 0.118], [0.305, 0.695]], 10000, "any", 10.0),
    ("2 states, T = 10000, krr", [[0.3, 0.7], [0.9, 0.1]], 10000, "krr", 10.0),
    *((f"{k} states, T = 100, {m}", chain(k), 100, m, 60.0) for k in (3, 4, 5) for m in ("krr", "any")),
]


def run_case(label, P, T, mechanism, target) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.json"
        cmd = [
            sys.executable,
            "-m",
            "bdpsim.cli",
            "temporal",
            "--transition",
            json.dumps(P),
            "--epsilon",
            "1",
            "--n",
            str(T),
            "--release",
            mechanism,
            "--method",
            "both",
            "--json",
            str(out),
        ]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"{label}: exit {proc.returncode}: {proc.stderr.strip()}")
        doc = json.loads(out.read_text())
    tpl = [v for v in doc["tpl"] if v is not None]
    row = {
        "label": label,
        "states": len(P),
        "steps": T,
        "mechanism": mechanism,
        "seconds": seconds,
        "target_seconds": target,
        "within_target": seconds < target,
        "exact": doc["exact"],
        "max_tpl": max(tpl) if tpl else None,
        "max_tpl_high": max(v for v in doc.get("tpl_high", tpl) if v is not None),
        "max_cao_tpl": max(doc["cao_tpl"]),
    }
    print(
        f"{label}: {seconds:.2f} s (target {target:g} s){'' if doc['exact'] else ' [interval]'}", flush=True
    )
    return row


def main() -> int:
    ap = argparse.ArgumentParser(prog="benchmark_temporal.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="run only the cases whose label starts with one of these")
    add_overwrite(ap)
    a = ap.parse_args()
    refuse_committed(ap, a.overwrite, OUT, option="--overwrite")
    cases = [c for c in CASES if not a.only or any(c[0].startswith(o) for o in a.only)]
    rows = [run_case(*c) for c in cases]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps(
            {
                "cases": rows,
                "machine": platform.platform(),
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
            },
            indent=1,
        )
        + "\n"
    )
    print(OUT)
    return 0 if all(r["within_target"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
