"""Time bdpsim account and attack of the 3-state Laplace histogram over every adversary by n."""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bdpsim.mechanisms.histogram import THREE_STATE_EVERY_MAX_N

CHAIN = "[[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]]"


def config(n: int, table: str) -> str:
    """The config of the histogram (epsilon 1: Laplace scale 2 per count) on the chain, ``n`` records."""
    kind = "[[release]]" if table == "release" else "[mechanism]"
    return (
        f'[model]\nkind = "markov"\ntransition = {CHAIN}\nn = {n}\n\n'
        f'{kind}\nkind = "histogram"\nepsilon = 1.0\n'
    )


def run(args: list[str], expect: int = 0) -> tuple[float, float, str]:
    """Wall and CPU seconds of ``bdpsim ARGS`` in a fresh process, and its second output line (or,
    where it is expected to fail, its error line); an exit code other than ``expect`` stops."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "bdpsim", *args], capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != expect:
        raise SystemExit(f"bdpsim {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
    if expect != 0:
        return wall, cpu, done.stderr.strip()
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return wall, cpu, lines[1] if len(lines) > 1 else ""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=int, nargs="+", default=list(range(3, THREE_STATE_EVERY_MAX_N + 1)))
    p.add_argument("--attack-n", type=int, nargs="*", default=[3, 4, 5, 6], help="n of the attack runs")
    p.add_argument("--epsilon", type=float, default=0.3)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows: dict[str, list[tuple[int, float, float]]] = {"account": [], "attack": []}
        for n in a.n:
            cfg = Path(tmp) / f"account{n}.toml"
            cfg.write_text(config(n, "release"))
            wall, cpu, line = run(["account", str(cfg), "--epsilon", str(a.epsilon)])
            rows["account"].append((n, wall, cpu))
            print(
                f"bdpsim account (n = {n}, --epsilon {a.epsilon}): {wall:.1f} s wall, {cpu:.1f} s CPU"
                f"  {line.strip()}",
                flush=True,
            )
        for n in a.attack_n:
            cfg = Path(tmp) / f"attack{n}.toml"
            cfg.write_text(config(n, "mechanism"))
            wall, cpu, line = run(["attack", "config", str(cfg), "--quiet"])
            rows["attack"].append((n, wall, cpu))
            print(f"bdpsim attack config (n = {n}): {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    for what, got in rows.items():
        if not got:
            continue
        n0, w0, c0 = got[0]
        ratios = ", ".join(f"n = {n}: {w / w0:.2f} wall, {c / c0:.2f} CPU" for n, w, c in got[1:])
        print(f"{what}: ratios to n = {n0} ({w0:.1f} s wall, {c0:.1f} s CPU): {ratios}")


if __name__ == "__main__":
    main()
