"""Time bdpsim account of k-state Laplace histograms over every adversary beside the sweep's cost model."""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

from benchmark_histogram3 import run  # the same timing of a fresh bdpsim process

import bdpsim
from bdpsim.accounting import several
from bdpsim.accounting.several import MAX_SWEEP_SECONDS, sweep_cost

THREE = [[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]]
#: (states, records) run by default: one delta(eps) each, about 10 s to 2 min of CPU
DEFAULT = ["3:9", "3:12", "4:5", "4:6", "5:5", "3:50"]


def transition(k: int) -> list[list[float]]:
    """The 3-state chain of the histogram tests, or ``k`` states staying put half the time."""
    if k == 3:
        return THREE
    return [[0.5 + 0.5 / k if i == j else 0.5 / k for j in range(k)] for i in range(k)]


def config(k: int, n: int) -> str:
    """The config of the ``k``-state histogram (epsilon 1: Laplace scale 2 per count) on ``n`` records."""
    return (
        f'[model]\nkind = "markov"\ntransition = {transition(k)}\nn = {n}\n\n'
        '[[release]]\nkind = "histogram"\nepsilon = 1.0\n'
    )


def estimate(k: int, n: int):
    """The sweep's cost model (:func:`~bdpsim.accounting.several.sweep_cost`) of the list, before any
    work (the limit lifted in this process only: every size is estimated)."""
    several.MAX_SWEEP_SECONDS = math.inf
    acc = bdpsim.account(bdpsim.MarkovChainModel(transition(k), n=n), [bdpsim.HistogramMechanism(1.0, k)])
    if acc.method != "monte carlo":
        raise SystemExit(f"{k} states, n = {n}: {acc.method}, not the several-query sweep")
    return sweep_cost(acc.plan, acc.comps, acc._sweep_engine().scan_rows(0), n)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", nargs="+", default=DEFAULT, metavar="K:N", help="states:records to run")
    p.add_argument("--epsilon", type=float, default=0.3)
    p.add_argument("--refused", default="5:30", metavar="K:N", help="a list refused up front, timed")
    a = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in a.sizes:
            k, n = (int(t) for t in size.split(":"))
            cost = estimate(k, n)
            cfg = Path(tmp) / f"h{k}_{n}.toml"
            cfg.write_text(config(k, n))
            wall, cpu, _ = run(["account", str(cfg), "--epsilon", str(a.epsilon)])
            rows.append((k, n, cost, wall, cpu))
            est, share = cost.seconds, cost.seconds / MAX_SWEEP_SECONDS
            print(
                f"{k} states, n = {n:3d}: {cost.windows:6d} windows, {cost.atoms:9.3g} atoms, work "
                f"{cost.work:8.2g}, {cost.cells:8.2g} law cells, {cost.law_steps:8.2g} law steps: "
                f"estimate {est:6.1f} s ({share:.2f} of the limit); measured {cpu:6.1f} s CPU "
                f"({cpu / est:.2f} x), {wall:6.1f} s wall ({wall / est:.2f} x)",
                flush=True,
            )
        k, n = (int(t) for t in a.refused.split(":"))
        cfg = Path(tmp) / "refused.toml"
        cfg.write_text(config(k, n))
        wall, cpu, line = run(["account", str(cfg), "--epsilon", str(a.epsilon)], expect=2)
        print(f"{k} states, n = {n}: exit 2 in {cpu:.2f} s CPU, {wall:.2f} s wall: {line}")
    ratios = [cpu / cost.seconds for _, _, cost, _, cpu in rows]
    print(
        f"measured CPU / estimate over {len(rows)} sizes: {min(ratios):.2f} .. {max(ratios):.2f} "
        f"(stage 2, the lower ends' draws and start-up add a bounded amount)"
    )


if __name__ == "__main__":
    main()
