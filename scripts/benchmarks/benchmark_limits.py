#!/usr/bin/env python
"""How quickly hostile input is refused and capped searches return (the tests check that they do).

The tests check *that* these inputs are refused (one line, exit 2, nothing written) or that the
search returns capped; how *quickly* is measured here, because a wall-clock assert in a test fails
on a loaded machine. Each case is timed (wall and CPU seconds) against the limit the
tests used to assert:

1. ``bdpsim validate`` + ``bdpsim run`` of every hostile config of ``tests/support/bad_config.py``
   (``BAD_CONFIGS``): refused up front, not after building or running (limit 10 s);
2. ``worst_gaussian_sum(8, 0.9, starts=2)``: the capped worst-case Gaussian search (limit 20 s);
3. ``bdpsim validate`` + ``bdpsim utility`` of the hostile ``[utility]`` configs (limit 5 s);
4. ``PedigreeModel`` refusing huge families (10^9 members, 10^6 people; limit 2 s);
5. the search over every adversary refused from its estimate: ``bdpsim.exact_bdpl`` on pgmpy's
   ALARM and CHILD (when pgmpy is installed) and on a CHILD-like network built here, ``bdpsim
   validate`` + ``bdpsim run`` of a 5 000-step hidden Markov model with ``adversaries = "all"``
   (limit 2 s; 5 s for the two commands; they took 21-43 s, past 60 s, and 77 s before).

Prints one line per case and the load average before and after (timings on a shared machine vary
with it; CPU seconds less so); ``--json PATH`` also writes the numbers. Exit status 1 if a case
exceeded its limit or was not refused.

Usage: python scripts/benchmarks/benchmark_limits.py [--json PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the hostile cases live in tests/support/bad_config.py

import numpy as np  # noqa: E402

from bdpsim.cli import main as bdpsim  # noqa: E402
from bdpsim.core.errors import ConfigError  # noqa: E402

HOSTILE_UTILITY = [
    "family_size = [1000000000]",
    "records = 1000000000000",
    "runs = 1000000000000",
    "seed = true",
    "epsilon = [inf]",
]


def cli(*args) -> int:
    """``bdpsim ARGS`` in this process, its output swallowed; the exit code."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return bdpsim([str(a) for a in args])
        except SystemExit as exc:
            return exc.code


def timed(label: str, limit: float, fn) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    ok = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    verdict = "ok" if ok and wall < limit else ("NOT REFUSED" if not ok else "OVER THE LIMIT")
    print(f"{label:48} {wall:8.3f} s  (CPU {cpu:7.3f} s)  limit {limit:4g} s  {verdict}", flush=True)
    return {"case": label, "seconds": wall, "cpu_seconds": cpu, "limit_seconds": limit, "ok": verdict == "ok"}


def bad_configs(tmp: Path) -> list[dict]:
    from tests.support.bad_config import BAD_CONFIGS

    out = []
    for i, case in enumerate(sorted(BAD_CONFIGS)):
        cfg = tmp / f"bad{i}.toml"
        cfg.write_text(BAD_CONFIGS[case][0])
        dest = tmp / f"out{i}"
        out.append(
            timed(
                f"config: {case}",
                10.0,
                lambda cfg=cfg, dest=dest: (
                    cli("validate", cfg) == 2 and cli("run", cfg, "--out", dest) == 2 and not dest.exists()
                ),
            )
        )
    return out


def worst_case() -> list[dict]:
    from bdpsim.studies.worstcase import worst_gaussian_sum

    return [
        timed(
            "worst_gaussian_sum(8, 0.9, starts=2)",
            20.0,
            lambda: worst_gaussian_sum(8, 0.9, np.random.default_rng(1), starts=2).capped,
        )
    ]


def utility_configs(tmp: Path) -> list[dict]:
    out = []
    for i, line in enumerate(HOSTILE_UTILITY):
        cfg = tmp / f"utility{i}.toml"
        cfg.write_text(f'[utility]\ndataset = "genomic"\n{line}\n')
        dest = tmp / f"u{i}"
        out.append(
            timed(
                f"utility: {line}",
                5.0,
                lambda cfg=cfg, dest=dest: (
                    cli("validate", cfg) == 2
                    and cli("utility", cfg, "--out", dest) == 2
                    and not dest.exists()
                ),
            )
        )
    return out


def pedigrees() -> list[dict]:
    from bdpsim.models.pedigree.model import PedigreeModel

    def refused(make) -> bool:
        try:
            make()
        except ConfigError:
            return True
        return False

    cases = [
        ("nuclear family of 10^9", lambda: PedigreeModel.nuclear(10**9)),
        ("nuclear family of 1001", lambda: PedigreeModel.nuclear(1001)),
        ("14 people with children", lambda: PedigreeModel(((),) * 14 + tuple((j, j + 1) for j in range(13)))),
        ("10^6 founders", lambda: PedigreeModel([[]] * 10**6)),
    ]
    return [timed(f"pedigree: {label}", 2.0, lambda make=make: refused(make)) for label, make in cases]


def searches(tmp: Path) -> list[dict]:
    import bdpsim as api
    from tests.models.test_bayesnet import random_network

    def refused(model) -> bool:
        try:
            api.exact_bdpl(model, api.LaplaceCount(1.0))
        except ConfigError:
            return True
        return False

    nets = [("CHILD-like: 14 nodes, 2-6 states", random_network(np.random.default_rng(3), 14, 14, 6, 4))]
    try:
        from pgmpy.utils import get_example_model

        with warnings.catch_warnings():  # pgmpy's deprecation notes
            warnings.simplefilter("ignore")
            nets += [
                (f"pgmpy's {name}", api.from_pgmpy(get_example_model(name))) for name in ("alarm", "child")
            ]
    except ImportError:
        print("pgmpy not installed: ALARM and CHILD skipped")
    out = [timed(f"exact_bdpl: {label}", 2.0, lambda m=m: refused(m)) for label, m in nets]
    cfg = tmp / "hmm.toml"
    cfg.write_text(
        '[run]\nadversaries = "all"\nestimator = "exact"\n[model]\nkind = "bayesnet"\n'
        "hmm = { transition = [[0.9, 0.1], [0.2, 0.8]], emission = [[0.85, 0.15], [0.25, 0.75]], n = 5000 }\n"
        '[mechanism]\nkind = "count"\nepsilon = 1.0\n'
    )
    dest = tmp / "hmm"
    out.append(
        timed(
            "config: 5 000-step HMM, every adversary",
            5.0,  # validate and run: 2.5 s each (the model's build and checks included)
            lambda: cli("validate", cfg) == 2 and cli("run", cfg, "--out", dest) == 2 and not dest.exists(),
        )
    )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="also write the measured numbers here")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as d:
        rows = (
            bad_configs(Path(d)) + worst_case() + utility_configs(Path(d)) + pedigrees() + searches(Path(d))
        )
    after = os.getloadavg()[0]
    bad = [r["case"] for r in rows if not r["ok"]]
    print(
        f"load average {load:.2f} before, {after:.2f} after, {os.cpu_count()} CPUs; "
        + (f"{len(bad)} case(s) failed: {bad}" if bad else "every case within its limit")
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "command": "python scripts/benchmarks/benchmark_limits.py",
                    "cases": rows,
                    "load_average_before": load,
                    "load_average_after": after,
                    "cpus": os.cpu_count(),
                    "written": datetime.now(UTC).isoformat(timespec="seconds"),
                },
                indent=2,
            )
            + "\n"
        )
        print(f"wrote {args.json}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
