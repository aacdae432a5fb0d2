"""The optimal integer noise on pgmpy's small example networks, beside the calibrated noise laws.

The calibrated laws: Laplace, geometric and staircase noise, each exactly calibrated.

For each network and eps: a count of state 1 over every node, the optimal noise (least E|Z|,
:func:`bdpsim.calibration.optimal.optimal_noise`, verified by the exact all-adversary engine), and
the least eps-BDP Laplace scale, geometric and staircase noise by the same engine
(:func:`bdpsim.calibration.graphs.exact_noise`), each with its E|Z| and CPU seconds (one process,
``time.process_time``; the machine's load does not enter), and the general Markov Quilt
mechanism's Laplace noise for eps-Pufferfish (:func:`bdpsim.calibration.graphs.quilt_row`) with
its exact BDPL.

Writes ``results/optimal_networks/optimal_networks.csv`` (one row per network and eps, written
atomically after each; a rerun skips the rows present), its metadata
``optimal_networks.json`` and the generated table ``docs/generated/optimal_networks.md``
(included by ``docs/guide/optimal-networks.md``; ``tests/calibration/test_optimal_networks_table.py`` checks
it is current)::

    python scripts/findings/optimal_networks.py                  # every network and eps (~10 min of CPU)
    python scripts/findings/optimal_networks.py --only cancer    # some networks
    python scripts/findings/optimal_networks.py --markdown       # rewrite the table from the CSV only
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "results" / "optimal_networks"
TABLE = ROOT / "docs" / "generated" / "optimal_networks.md"
NETWORKS = ["cancer", "earthquake", "survey", "asia", "sachs"]
EPSILONS = [0.5, 1.0, 2.0]
LAWS = ("laplace", "geometric", "staircase")
COLUMNS = (
    [
        "network",
        "nodes",
        "states",
        "search",
        "law_pairs",
        "epsilon",
        "optimal_mean_abs",
        "optimal_bdpl",
        "M",
        "tail_ratio",
        "laplace_scale",
    ]
    + [f"{law}_mean_abs" for law in LAWS]
    + ["markov_quilt_mean_abs", "markov_quilt_bdpl", "optimal_cpu_seconds"]
    + [f"{law}_cpu_seconds" for law in LAWS]
)


def model_of(name: str):
    """The pgmpy example network ``name`` as a bdpsim model (every node a record)."""
    from pgmpy.utils import get_example_model

    from bdpsim.models.bayesnet.build import from_pgmpy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return from_pgmpy(get_example_model(name))


def one(name: str, model, eps: float) -> dict:
    """One row: the optimal noise and the three calibrated laws at ``eps``."""
    import numpy as np

    from bdpsim.calibration.graphs import quilt_row
    from bdpsim.calibration.methods import CalibrationProblem, calibrate_query
    from bdpsim.kernels.chains.lattice import lattice
    from bdpsim.models.bayesnet.search import search_plan

    values = np.zeros(model.states)
    values[1] = 1.0
    plan = search_plan(model, lattice(values)[0], max_seconds=float("inf"))
    t0 = time.process_time()
    opt = calibrate_query(model, eps, values, method="optimal")
    row = {
        "network": name,
        "nodes": model.n,
        "states": "-".join(sorted({str(s) for s in model.node_states}, key=int)),
        "search": plan.method,
        "law_pairs": opt.extra["pairs"],
        "epsilon": eps,
        "optimal_mean_abs": opt.mean_abs,
        "optimal_bdpl": opt.bdpl,
        "M": opt.extra["M"],
        "tail_ratio": opt.extra["noise"]["tail_ratio"],
        "optimal_cpu_seconds": round(time.process_time() - t0, 2),
    }
    for law in LAWS:
        t0 = time.process_time()
        c = calibrate_query(model, eps, values, method="exact", noise=law)
        row[f"{law}_mean_abs"] = c.mean_abs
        row[f"{law}_cpu_seconds"] = round(time.process_time() - t0, 2)
        if law == "laplace":
            row["laplace_scale"] = c.scale
        print(f"  {name} eps={eps:g} {law}: E|Z| = {c.mean_abs:.6g}, BDPL {c.bdpl:.10f}", flush=True)
    q = quilt_row(CalibrationProblem(model, values, eps, {}))
    row["markov_quilt_mean_abs"], row["markov_quilt_bdpl"] = q.mean_abs, q.bdpl
    print(
        f"  {name} eps={eps:g} optimal: E|Z| = {opt.mean_abs:.6g} ({row['optimal_cpu_seconds']} s "
        "CPU); Markov "
        f"Quilt E|Z| = {q.mean_abs}, BDPL {q.bdpl}",
        flush=True,
    )
    return row


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _fmt(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}"


def markdown(rows: list[dict]) -> str:
    """The generated table (from the CSV rows, as text)."""
    head = (
        "| network | nodes | states | search | law pairs | ε | optimal E\\|Z\\| | Laplace "
        "E\\|Z\\| (× optimal) | "
        "geometric E\\|Z\\| (× optimal) | staircase E\\|Z\\| (× optimal) | Markov Quilt (Laplace) E\\|Z\\| "
        "(× optimal) | its exact BDPL | optimal's exact BDPL | CPU s: optimal / Laplace / "
        "geometric / staircase |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in rows:
        o = float(r["optimal_mean_abs"])
        ratio = [
            f"{_fmt(float(r[f'{k}_mean_abs']))} ({float(r[f'{k}_mean_abs']) / o:.3f})"
            for k in (*LAWS, "markov_quilt")
        ]
        cpu = " / ".join(
            f"{float(r[k]):.1f}" for k in ["optimal_cpu_seconds"] + [f"{law}_cpu_seconds" for law in LAWS]
        )
        lines.append(
            f"| {r['network']} | {r['nodes']} | {r['states']} | {r['search']} | {r['law_pairs']} | "
            f"{float(r['epsilon']):g} | {_fmt(o)} | {' | '.join(ratio)} | "
            f"{_fmt(float(r['markov_quilt_bdpl']))} | "
            f"{float(r['optimal_bdpl']):.10f} | "
            f"{cpu} |"
        )
    return (
        "<!-- generated by scripts/findings/optimal_networks.py from "
        "results/optimal_networks/optimal_networks.csv: "
        "do not edit -->\n\n" + head + "\n".join(lines) + "\n"
    )


def write(rows: list[dict]) -> None:
    """The CSV (atomically), its metadata and the markdown table."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "optimal_networks.csv"
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)
    TABLE.write_text(markdown(read_csv(path)), encoding="utf-8")


def metadata() -> dict:
    import numpy
    import pgmpy
    import scipy

    import bdpsim

    try:
        rev = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        rev = None
    return {
        "command": " ".join(["python", "scripts/findings/optimal_networks.py", *sys.argv[1:]]),
        "networks": NETWORKS,
        "epsilons": EPSILONS,
        "query": "count of state 1 over every node",
        "git_rev": rev,
        "versions": {
            "bdpsim": bdpsim.__version__,
            "numpy": numpy.__version__,
            "scipy": scipy.__version__,
            "pgmpy": pgmpy.__version__,
            "python": platform.python_version(),
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=NETWORKS, help="these networks only")
    ap.add_argument("--markdown", action="store_true", help="rewrite the markdown from the CSV only")
    a = ap.parse_args()
    path = OUT / "optimal_networks.csv"
    if a.markdown:
        TABLE.write_text(markdown(read_csv(path)), encoding="utf-8")
        return 0
    rows = read_csv(path) if path.exists() else []
    done = {(r["network"], float(r["epsilon"])) for r in rows}
    for name in a.only or NETWORKS:
        model = None
        for eps in EPSILONS:
            if (name, eps) in done:
                continue
            model = model or model_of(name)
            rows.append(one(name, model, eps))
            rows.sort(key=lambda r: (NETWORKS.index(r["network"]), float(r["epsilon"])))
            write(rows)
    (OUT / "optimal_networks.json").write_text(json.dumps(metadata(), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
