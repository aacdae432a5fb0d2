"""Time the privacy accountant end to end (bdpsim.account, bdpsim account) on its speed targets."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import bdpsim
from bdpsim.accounting import LocalRelease, Release, account
from bdpsim.kernels.noise.laws import GaussianNoise, LaplaceNoise
from bdpsim.queries import CountQuery, SumQuery


def _cpu() -> float:
    """CPU seconds of this process and its finished children (a shared machine's wall time is not
    the work done)."""
    import resource

    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + child.ru_utime + child.ru_stime


def timed(label: str, fn, limit: float) -> float:
    t, c = time.perf_counter(), _cpu()
    out = fn()
    dt, dc = time.perf_counter() - t, _cpu() - c
    print(
        f"{label}: {dt:.2f} s wall, {dc:.2f} s CPU (target <= {limit:g} s; wall {dt / limit:.2f}, "
        f"CPU {dc / limit:.2f} of it) -> {out}",
        flush=True,
    )
    return dt


def gaussian_records() -> None:
    n = 10
    cov = 0.6 ** np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    model = bdpsim.GaussianModel(np.zeros(n), cov)
    rel = [Release(SumQuery(), GaussianNoise(5.0))] * 50

    def run():
        acc = account(model, rel, targets=(0.0, 1.0))
        return acc.delta(1.0).text(), acc.renyi(2.0).text()

    timed(f"Gaussian records n = {n}, 50 releases, every adversary", run, 1.0)


def chain_config(gamma: float, noise: list[str]) -> str:
    """The accountant config of ten releases of the count of state 1 on the thesis chain, n = 288."""
    return "\n".join(
        [
            "[model]",
            'kind = "markov"',
            "n = 288",
            f"transition = {bdpsim.symmetric_chain(gamma).tolist()}",
            "[[release]]",
            'kind = "count"',
            "counted_states = [1]",
            *noise,
            "repeat = 10",
            "[account]",
            "epsilon = [1.0]",
            "delta = []",
            "alpha = []",
            "fpr = []",
        ]
    )


def supremum(row: dict) -> str:
    """What a ``bdpsim account --json`` row says of the supremum over every adversary."""
    note = row.get("note") or ""
    return f"{row['kind']} [{row['lower']:.6g}, {row['upper']:.6g}] width {row['width']:.3g}" + (
        f"; {note}" if note else ""
    )


def chain_gaussian(gamma: float) -> None:
    model = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(gamma), n=288)
    rel = [Release(CountQuery((1,)), GaussianNoise(3.0))] * 10
    label = f"thesis chain gamma = {gamma:g}, n = 288, 10 Gaussian counts, delta(1) over every adversary"
    timed(label + " (bdpsim.account)", lambda: account(model, rel).delta(1.0).text(), 30.0)
    cli_timed(label, chain_config(gamma, ['noise = "gaussian"', "sigma = 3.0"]), 30.0, supremum)


def chain_laplace(gamma: float) -> None:
    model = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(gamma), n=288)
    rel = [Release(CountQuery((1,)), LaplaceNoise(10.0))] * 10
    label = f"thesis chain gamma = {gamma:g}, n = 288, 10 Laplace counts (b = 10), delta(1) to width <= 0.005"
    timed(label + " (bdpsim.account)", lambda: account(model, rel).delta(1.0).text(), 300.0)
    cli_timed(label, chain_config(gamma, ["epsilon = 0.1"]), 300.0, supremum)


def chain_laplace_renyi(gamma: float) -> None:
    """The Rényi curve of the ten Laplace counts (no target in the issue: its time and widths)."""
    model = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(gamma), n=288)
    rel = [Release(CountQuery((1,)), LaplaceNoise(10.0))] * 10
    label = f"thesis chain gamma = {gamma:g}, n = 288, 10 Laplace counts (b = 10), D_2, D_4, every adversary"

    def run():
        acc = account(model, rel)
        return f"D_2 {acc.renyi(2.0).text()}; D_4 {acc.renyi(4.0).text()}"

    timed(label + " (bdpsim.account)", run, 300.0)


def cli_timed(label: str, text: str, limit: float, summarise) -> None:
    """Time ``bdpsim account CONFIG --json`` in a fresh process (imports and parsing included) on the
    config ``text``; ``summarise(row)`` of each row is printed."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "account.toml"
        cfg.write_text(text + "\n")

        def run():
            out = subprocess.run(
                [sys.executable, "-m", "bdpsim", "account", str(cfg), "--json"],
                capture_output=True,
                text=True,
            )
            if out.returncode:
                raise SystemExit(out.stderr)
            return "; ".join(f"{r['quantity']}: {summarise(r)}" for r in json.loads(out.stdout)["rows"])

        timed(label + " (bdpsim account)", run, limit)


#: the chains of the local-release targets (those of scripts/benchmarks/local_profile.py)
LOCAL_CHAINS = {
    2: [[0.882, 0.118], [0.305, 0.695]],
    3: [[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]],
}
#: the 20 values of eps of the profile
LOCAL_EPS = [round(float(x), 6) for x in np.linspace(0.0, 3.0, 20)]


def local_release(states: int, steps: int) -> None:
    """A k-RR release (eps = 1 per record) of every record of a chain, the worst adversary who
    knows nothing (sizes = [0]): delta at 20 values of eps, bracketed to <= 1e-6."""
    model = bdpsim.MarkovChainModel(np.array(LOCAL_CHAINS[states]), n=steps)

    def run():
        acc = account(model, [LocalRelease("krr", 1.0)], sizes=[0])
        acc.prepare(LOCAL_EPS)
        vals = [acc.delta(e) for e in LOCAL_EPS]
        width = max(v.width for v in vals)
        return f"widest delta bracket {width:.2g} (<= 1e-6: {width <= 1e-6}); delta(1.105) {vals[7].text(7)}"

    timed(f"local k-RR release, {states}-state chain, T = {steps}, 20 eps (bdpsim.account)", run, 60.0)


def local_release_cli(states: int, steps: int) -> None:
    """The same through ``bdpsim account CONFIG`` in a fresh process (imports and parsing included)."""
    text = "\n".join(
        [
            "[model]",
            'kind = "markov"',
            f"n = {steps}",
            f"transition = {LOCAL_CHAINS[states]}",
            "[[release]]",
            'kind = "local"',
            'randomiser = "krr"',
            "epsilon = 1.0",
            "[account]",
            f"epsilon = {LOCAL_EPS}",
            "delta = []",
            "alpha = []",
            "fpr = []",
            "sizes = [0]",
        ]
    )
    widths: list[float] = []

    def width(row: dict) -> str:
        if math.isfinite(row["width"]):
            widths.append(row["width"])
        return f"{row['width']:.2g}"

    label = f"local k-RR release, {states}-state chain, T = {steps}, 20 eps, widest delta bracket <= 1e-6"
    cli_timed(label, text, 60.0, width)
    print(f"  widest delta bracket {max(widths):.2g} (<= 1e-6: {max(widths) <= 1e-6})", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--gamma", type=float, nargs="+", default=[2.0, 5.0])
    p.add_argument("--skip-laplace", action="store_true")
    p.add_argument("--renyi", action="store_true", help="also the Rényi curve of the Laplace counts")
    p.add_argument("--local-only", action="store_true", help="only the local-release targets")
    p.add_argument("--skip-local", action="store_true", help="without the local-release targets")
    a = p.parse_args()
    if not a.local_only:
        gaussian_records()
        for g in a.gamma:
            chain_gaussian(g)
        if not a.skip_laplace:
            for g in a.gamma:
                chain_laplace(g)
                if a.renyi:
                    chain_laplace_renyi(g)
    for states, steps in () if a.skip_local else ((2, 1000), (3, 100)):
        local_release(states, steps)
        local_release_cli(states, steps)


if __name__ == "__main__":
    main()
