#!/usr/bin/env python
"""Window-reduced exact search: speed and memory, measured in one run.

Setting: the activity chain ``P = [[0.882, 0.118], [0.305, 0.695]]`` (stationary start), count of
state 1, Laplace scale ``b = 1``, every adversary (``|K| = 0..n-1``). Prints

1. n = 10: the old enumeration of every known set (``exhaustive_markov_count``) against
   ``window_search`` (untruncated and auto), their values and the speed-up (target >= 50x);
2. n = 288: ``window_search`` with the automatic truncation (target < 10 s) and untruncated, and
   their difference (must be <= 1e-12);
3. n = 17 568: ``window_search`` with the automatic truncation (target < 60 s);
4. the peak memory traced by ``tracemalloc`` for each search (target < 1 GiB), in a second call
   (so that tracing does not distort the timings), and the process' peak resident set size.

Writes every measured number to ``--json`` (default ``results/benchmarks/window.json``), with the
load average before and after (timings on a shared machine vary with it; CPU seconds less so).

Usage: python scripts/benchmarks/benchmark_window.py [--skip-untruncated] [--json PATH] [--overwrite]
(a --json that is committed to git is refused unless --overwrite)
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

from bdpsim.kernels.chains.lattice import query_values
from bdpsim.kernels.chains.transition import ACTIVITY as _ACTIVITY
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MarkovChainModel
from bdpsim.models.markov.exact import exhaustive_markov_count
from bdpsim.models.markov.window import window_search

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # script_out.py, shared by every folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from script_out import write_record  # noqa: E402

ACTIVITY = [list(row) for row in _ACTIVITY]
F = query_values(2, [1])


CPU = {}  # label -> CPU seconds of the process for the timed call (robust on a shared machine)


def timed(fn, label=None):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    if label:
        CPU[label] = time.process_time() - c
    return out, time.perf_counter() - t


def peak_mib(fn) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def search(n: int, limit):
    return lambda: window_search(MarkovChainModel(ACTIVITY, n), F, 1.0, window_limit=limit)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-untruncated", action="store_true", help="skip the untruncated n = 288 run")
    ap.add_argument(
        "--json",
        type=Path,
        default=Path("results/benchmarks/window.json"),
        help="where to write every measured number (default: %(default)s)",
    )
    ap.add_argument(
        "--overwrite",
        action="store_true",
        help="replace --json even when it is a committed file (the repository's reference numbers)",
    )
    args = ap.parse_args()
    if not args.overwrite:  # before any timing: minutes of work must not end in a refusal
        from bdpsim.core.errors import ConfigError
        from bdpsim.pipeline.results import check_not_committed

        try:
            check_not_committed(args.json, "--json")
        except ConfigError as exc:
            print(f"benchmark_window.py: error: {exc}", file=sys.stderr)
            sys.exit(2)
    load = os.getloadavg()[0]
    rec: dict = {
        "command": "python scripts/benchmarks/benchmark_window.py",
        "chain": ACTIVITY,
        "noise_scale": 1.0,
        "counted_states": [1],
    }

    model10 = MarkovChainModel(ACTIVITY, 10)
    old, t_old = timed(lambda: exhaustive_markov_count(model10, LaplaceCount(1.0), range(10)), "old10")
    full10, t_full10 = timed(search(10, None), "full10")
    auto10, t_auto10 = timed(search(10, "auto"))
    print("1. n = 10, every adversary")
    print(f"   old enumeration : {len(old):>8} adversaries  {t_old:8.3f} s  BDPL = {old.value.max():.15f}")
    print(
        f"   window (full)   : {full10.n_windows:>8} windows      {t_full10:8.3f} s  BDPL = "
        f"{full10.bdpl:.15f}"
    )
    print(f"   window (auto)   : {'':>8}              {t_auto10:8.3f} s  BDPL = {auto10.bdpl:.15f}")
    print(
        f"   speed-up (full) : {t_old / t_full10:.0f}x   (target >= 50x); |difference| = "
        f"{abs(old.value.max() - full10.bdpl):.1e}"
    )
    rec.update(
        n10_adversaries=len(old),
        n10_windows=full10.n_windows,
        n10_enumeration_seconds=t_old,
        n10_window_seconds=t_full10,
        n10_speedup=t_old / t_full10,
        n10_bdpl=full10.bdpl,
        n10_difference=abs(float(old.value.max()) - full10.bdpl),
    )

    print("2. n = 288")
    r288, t288 = timed(search(288, "auto"), "auto288")
    print(
        f"   auto (L = {r288.window_limit}, tolerance {r288.tolerance:.1e}): {t288:.3f} s (target < 10 s)"
        f"  BDPL = {r288.bdpl:.15f}  worst window {r288.worst.left} | {r288.worst.right} unknown"
    )
    rec.update(
        n288_seconds=t288,
        n288_bdpl=r288.bdpl,
        window_limit=r288.window_limit,
        truncation_tolerance=r288.tolerance,
        worst_unknown_left=r288.worst.left,
        worst_unknown_right=r288.worst.right,
    )
    if not args.skip_untruncated:
        f288, tf288 = timed(search(288, None), "full288")
        print(
            f"   untruncated            : {tf288:.3f} s  BDPL = {f288.bdpl:.15f}  "
            f"|auto - untruncated| = {abs(f288.bdpl - r288.bdpl):.1e} (must be <= 1e-12)"
        )
        rec.update(n288_untruncated_seconds=tf288, n288_truncation_difference=abs(f288.bdpl - r288.bdpl))

    print("3. n = 17 568")
    r17k, t17k = timed(search(17_568, "auto"), "auto17k")
    print(
        f"   auto (L = {r17k.window_limit}): {t17k:.3f} s (target < 60 s)  BDPL = {r17k.bdpl:.15f}"
        f"  ({r17k.n_windows} window geometries searched explicitly)"
    )
    rec.update(n17568_seconds=t17k, n17568_bdpl=r17k.bdpl)

    print(
        "   CPU seconds (process_time; wall times above include waiting on a busy machine): "
        + ", ".join(f"{k} {v:.3f}" for k, v in CPU.items())
        + f"; CPU speed-up at n = 10: {CPU['old10'] / max(CPU['full10'], 1e-9):.0f}x"
    )
    rec.update({f"cpu_seconds_{k}": v for k, v in CPU.items()})
    print("4. peak traced memory (tracemalloc)")
    rec["memory_mib_n288"] = peak_mib(search(288, "auto"))
    print(f"   n = 288 auto   : {rec['memory_mib_n288']:8.1f} MiB")
    if not args.skip_untruncated:
        rec["memory_mib_n288_untruncated"] = peak_mib(search(288, None))
        print(f"   n = 288 full   : {rec['memory_mib_n288_untruncated']:8.1f} MiB")
    rec["memory_mib_n17568"] = peak_mib(search(17_568, "auto"))
    print(f"   n = 17 568 auto: {rec['memory_mib_n17568']:8.1f} MiB   (target < 1024 MiB)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"   process peak resident set size (includes the old n = 10 enumeration): {rss:.0f} MiB")
    rec["max_rss_mib"] = rss
    write_record(args.json, rec, load)


if __name__ == "__main__":
    main()
