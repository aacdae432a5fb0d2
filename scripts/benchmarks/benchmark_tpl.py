#!/usr/bin/env python
"""Speed of the port of Cao et al.'s TPL: L(α) at k = 10, 30, 100 states.

Times, on random chains drawn as the authors' tests draw them (|N(1, 1)| entries, rows
normalised; seed 0) at α = 0.1 (their ``testCalcBPL.m``):

1. ``incremental_leakage`` — TKDE Theorem 4 (``calcPLbyThm.m``);
2. ``precompute`` + ``incremental_leakage_precomputed`` — the transition points
   (``preCompQDMatrix.m`` + ``calcPLbyPreComp.m``), pre-computation and one evaluation separately;
3. ``incremental_leakage_lp`` — one LP per ordered pair (``calcPLbyLP.m``, HiGHS dual simplex).
   At k >= ``--lp-sample-from`` states (default 100) only ``--lp-pairs`` pairs are solved and the
   time is extrapolated to all k(k-1) pairs (printed as such; ``--full-lp`` solves them all —
   about 20 minutes at k = 100);
4. ``cao_leakage`` on the 2-state activity chain at T = 10 000 (all t).

Prints a table; ``--json PATH`` also writes it (with the load average; a committed file is
refused unless ``--overwrite``).

Usage (from the checkout's root; PYTHONPATH=. when bdpsim is installed from elsewhere):
       python scripts/benchmarks/benchmark_tpl.py [--sizes 10 30 100] [--lp-pairs 200] [--full-lp]
       [--json results/benchmarks/tpl.json] [--overwrite]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # script_out.py, shared by every folder
from script_out import add_overwrite, refuse_committed  # noqa: E402

from bdpsim.kernels.chains.transition import ACTIVITY  # noqa: E402
from bdpsim.temporal import (  # noqa: E402
    cao_leakage,
    incremental_leakage,
    incremental_leakage_lp,
    incremental_leakage_precomputed,
    precompute,
)
from bdpsim.temporal.lfp import _pair_lp, ordered_pairs, ratio_constraints  # noqa: E402

ALPHA = 0.1


def random_chain(k: int, seed: int = 0) -> np.ndarray:
    m = np.abs(np.random.default_rng(seed).normal(1.0, 1.0, (k, k)))
    return m / m.sum(axis=1, keepdims=True)


def timed(f, *args):
    t0 = time.perf_counter()
    out = f(*args)
    return out, time.perf_counter() - t0


def lp_sampled(M: np.ndarray, pairs: int) -> tuple[float, float]:
    """Solve ``pairs`` of the k(k-1) pair LPs (evenly spaced); (seconds extrapolated to all, max
    of the sampled values)."""
    k = M.shape[0]
    pi, pj = ordered_pairs(k)
    idx = np.linspace(0, pi.size - 1, pairs).astype(int)
    A = ratio_constraints(k, ALPHA)
    t0 = time.perf_counter()
    best = max(_pair_lp(M[pi[i]], M[pj[i]], ALPHA, A) for i in idx)
    return (time.perf_counter() - t0) * pi.size / pairs, best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="benchmark_tpl.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 100])
    ap.add_argument("--lp-pairs", type=int, default=200, help="pairs solved when the LP is sampled")
    ap.add_argument("--lp-sample-from", type=int, default=100, help="sample the LP from this many states on")
    ap.add_argument("--full-lp", action="store_true", help="solve every pair's LP at every size")
    ap.add_argument("--json", type=Path, default=None)
    add_overwrite(ap)
    args = ap.parse_args(argv)
    refuse_committed(ap, args.overwrite, args.json, option="--json")

    load_before = os.getloadavg()
    rows = []
    for k in args.sizes:
        M = random_chain(k)
        sol, t_thm = timed(incremental_leakage, M, ALPHA)
        thm = sol.value
        pre, t_pre = timed(precompute, M)
        sol, t_eval = timed(incremental_leakage_precomputed, ALPHA, pre)
        val_pre = sol.value
        if args.full_lp or k < args.lp_sample_from:
            sol, t_lp = timed(incremental_leakage_lp, M, ALPHA)
            lp_how, diff = "all pairs", abs(sol.value - thm)
        else:
            t_lp, lp_sample = lp_sampled(M, args.lp_pairs)
            lp_how, diff = f"{args.lp_pairs} pairs, extrapolated", None
            if lp_sample > thm + 1e-7:
                raise SystemExit(f"LP value {lp_sample} of a sampled pair exceeds Theorem 4's {thm}")
        rows.append(
            {
                "k": k,
                "L": thm,
                "theorem4_s": t_thm,
                "precompute_s": t_pre,
                "precomputed_eval_s": t_eval,
                "precomp_minus_theorem4": val_pre - thm,
                "lp_s": t_lp,
                "lp": lp_how,
                "lp_minus_theorem4": diff,
            }
        )

    _, t_line = timed(cao_leakage, ACTIVITY, 1.0, 10_000)
    load_after = os.getloadavg()

    print(f"L(alpha = {ALPHA}) on random k-state chains (|N(1,1)| rows, seed 0); seconds")
    print(f"{'k':>4} {'Theorem 4':>10} {'precompute':>11} {'+ eval':>8} {'LP':>10}  LP solved    |LP - Thm4|")
    for r in rows:
        d = "-" if r["lp_minus_theorem4"] is None else f"{r['lp_minus_theorem4']:.1e}"
        print(
            f"{r['k']:>4} {r['theorem4_s']:>10.4f} {r['precompute_s']:>11.4f} "
            f"{r['precomputed_eval_s']:>8.5f} "
            f"{r['lp_s']:>10.2f}  {r['lp']:<12} {d}"
        )
    print(f"cao_leakage, activity chain, eps = 1, T = 10000 (all t): {t_line:.2f} s")
    print(f"load average before/after: {load_before[0]:.2f} / {load_after[0]:.2f} (2 shared cores)")

    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "when": datetime.now(UTC).isoformat(timespec="seconds"),
                    "alpha": ALPHA,
                    "sizes": rows,
                    "cao_leakage_activity_T10000_s": t_line,
                    "load_before": load_before,
                    "load_after": load_after,
                },
                indent=2,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
