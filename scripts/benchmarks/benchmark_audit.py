#!/usr/bin/env python
"""Black-box audit of the activity chain's Laplace count: certified lower bound vs budget.

Setting: the activity chain ``P = [[0.882, 0.118], [0.305, 0.695]]`` (stationary start), n = 288,
count of state 1 plus Lap(1), whose exact BDPL over all adversaries is 3.4749 (window search,
SCIENCE.md §5.2). The mechanism is given to bdpsim as an opaque user function
(``kind = "python"``, :mod:`blackbox_mechanisms`): the audit only runs it. Adversaries: 40 window
adversaries (``run.adversary_family = "windows"``; ``--families random`` adds the thesis' random known
sets for comparison); the whole search — per-adversary audits,
successive halving, certification — counts against ``run.audit_budget`` (the "mechanism calls in
all"). For each budget the script runs ``bdpsim``'s driver on a config (``estimator = "audit"``,
``audit_alpha = 0.05``) and records the certified 95 % lower bound ``bdpl_lower``, the point
estimate ``bdpl_audit`` ± se of the certified event, the calls used and the wall time, and writes a
JSON record and a markdown table (default ``results/benchmarks/audit.json`` / ``audit.md``).

Usage: nice -n 10 python scripts/benchmarks/benchmark_audit.py [--budgets 1e6 1e7 1e8] [--seeds 1]
       [--adversaries 40] [--families windows random] [--jobs 1] [--out DIR]
       [--overwrite]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # script_out.py and blackbox_mechanisms.py, shared by every folder

from script_out import add_overwrite, refuse_committed  # noqa: E402

from bdpsim import LaplaceCount, MarkovChainModel  # noqa: E402
from bdpsim.kernels.chains.lattice import query_values  # noqa: E402
from bdpsim.kernels.chains.transition import ACTIVITY as _ACTIVITY  # noqa: E402
from bdpsim.mechanisms.custom import CONFIG_DIR  # noqa: E402
from bdpsim.models.markov.window import window_search  # noqa: E402
from bdpsim.pipeline.config import parse_config  # noqa: E402
from bdpsim.pipeline.driver import run_experiment  # noqa: E402

ACTIVITY = [list(row) for row in _ACTIVITY]
N = 288


def config(budget: float, seed: int, adversaries: int, family: str = "windows") -> dict:
    return {
        "title": "black-box audit, activity chain, Laplace count b = 1",
        "run": {
            "estimator": "audit",
            "adversaries": adversaries,
            "adversary_family": family,
            "known_sizes": "thesis",
            "audit_budget": int(budget),
            "audit_alpha": 0.05,
            "seed": seed,
            "exact_reference": False,
            "adversary_rows": 10,
        },
        "model": {"kind": "markov", "n": N, "transition": ACTIVITY},
        "mechanism": {"kind": "python", "function": "blackbox_mechanisms:laplace_count"},
    }


def run(budget: float, seed: int, adversaries: int, jobs: int, family: str = "windows") -> dict:
    token = CONFIG_DIR.set(str(HERE.parent))  # blackbox_mechanisms.py
    try:
        cfg = parse_config(config(budget, seed, adversaries, family), "benchmark_audit")
    finally:
        CONFIG_DIR.reset(token)
    with tempfile.TemporaryDirectory() as out:
        t, c = time.perf_counter(), time.process_time()
        row = run_experiment(cfg, Path(out) / "run", jobs=jobs, progress=False)[0]
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    keep = (
        "bdpl_lower",
        "bdpl_audit",
        "bdpl_audit_se",
        "audit_calls",
        "audit_adversary",
        "audit_event",
        "audit_note",
        "bdpl_max",
        "n_samples",
    )
    return {
        "family": family,
        "budget": int(budget),
        "seed": seed,
        **{k: row[k] for k in keep},
        "wall_seconds": wall,
        "cpu_seconds_main": cpu,
    }


def markdown(rec: dict) -> str:
    lines = [
        f"Black-box audit of the activity chain's Laplace count (n = {N}, b = 1, exact BDPL "
        f"{rec['exact_bdpl']:.4f}), run as a black box (a user function), {rec['adversaries']} adversaries "
        "(known sets of size 1..n-1), alpha = 0.05; every mechanism call of the adversary search counts "
        "against the budget. Wall time on one shared core (nice'd).",
        "",
        "| adversary family | budget (calls in all) | seed | certified 95 % lower bound | point "
        "estimate ± se | "
        "calls used | wall time |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rec["runs"]:
        lines.append(
            f"| {r['family']} | {r['budget']:.0e} | {r['seed']} | **{r['bdpl_lower']:.3f}** | "
            f"{r['bdpl_audit']:.3f} ± "
            f"{r['bdpl_audit_se']:.3f} | {r['audit_calls']:.3g} | {r['wall_seconds']:.0f} s |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", type=float, nargs="+", default=[1e6, 1e7, 1e8])
    ap.add_argument("--seeds", type=int, default=1, help="independent runs per budget (seeds 1..S)")
    ap.add_argument("--adversaries", type=int, default=40)
    ap.add_argument(
        "--families",
        nargs="+",
        default=["windows"],
        choices=["windows", "random"],
        help="adversary families (random: the thesis' known sets)",
    )
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=HERE.parents[1] / "results" / "benchmarks")
    add_overwrite(ap)
    a = ap.parse_args(argv)
    refuse_committed(ap, a.overwrite, a.out)
    model = MarkovChainModel(ACTIVITY, N)
    exact = window_search(model, query_values(2, [1]), LaplaceCount(1.0).noise_scale)
    rec = {
        "command": "python " + " ".join(sys.argv),
        "chain": ACTIVITY,
        "n": N,
        "noise_scale": 1.0,
        "exact_bdpl": exact.bdpl,
        "adversaries": a.adversaries,
        "alpha": 0.05,
        "jobs": a.jobs,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "load_before": os.getloadavg(),
        "runs": [],
    }
    for family in a.families:
        for budget in a.budgets:
            for seed in range(1, a.seeds + 1):
                r = run(budget, seed, a.adversaries, a.jobs, family)
                rec["runs"].append(r)
                print(
                    f"{family}: budget {budget:.0e} seed {seed}: lower {r['bdpl_lower']:.4f}  "
                    f"estimate {r['bdpl_audit']:.4f} ± {r['bdpl_audit_se']:.4f}  calls "
                    f"{r['audit_calls']:.3g}  "
                    f"{r['wall_seconds']:.1f} s",
                    flush=True,
                )
    rec.update(
        load_after=os.getloadavg(),
        peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        finished=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "audit.json").write_text(json.dumps(rec, indent=2) + "\n")
    (a.out / "audit.md").write_text(markdown(rec))
    print(markdown(rec))


if __name__ == "__main__":
    main()
