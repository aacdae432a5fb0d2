"""``bdpsim run``: every configuration point of a TOML config, written as tidy results.

Only argument parsing and printing live here; the work is
:func:`bdpsim.pipeline.driver.run_experiment`, the console table :mod:`bdpsim.cli.table`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.errors import ConfigError
from .base import (
    add_limit_options,
    add_overwrite_option,
    check_jobs,
    check_out,
    config_path,
    limits,
    quietly,
    subcommand,
)
from .progress import add_quiet_option

EPILOG = """\
examples:
  bdpsim run quickstart --out results/my-quickstart   # a bundled config
  bdpsim run configs/thesis_fig15.toml --out results/fig15 --jobs 2
  bdpsim run thesis_fig15 --out results/fig15 --backend dask \\
      --scheduler tcp://127.0.0.1:8786

Re-running the same command resumes: finished configurations are skipped. Results for a given
config and seed are identical for any --jobs and either backend (the 'seconds' column aside).
Output: OUT/summary.csv (one row per configuration), OUT/adversaries.csv.gz (one row per
adversary), OUT/metadata.json (config, seed, versions, git revision), OUT/points/ (resume state).
"""


def add_parser(sub) -> None:
    """Register ``bdpsim run`` on the top-level subparsers ``sub``."""
    r = subcommand(
        sub,
        "run",
        command,
        help="run a TOML experiment config (sweeps, resume, parallel)",
        description="Run every configuration point of CONFIG and write tidy results.",
        epilog=EPILOG,
    )
    r.add_argument(
        "config",
        help="TOML config ([run], [model], [mechanism]) or a bundled config's name "
        "('bdpsim configs' lists them)",
    )
    r.add_argument("--out", help="output directory (default: results/<config name>)")
    r.add_argument("--jobs", type=int, default=1, help="parallel workers (default 1)")
    r.add_argument(
        "--backend",
        choices=["loky", "dask"],
        default="loky",
        help="joblib backend: local processes (loky) or a Dask cluster",
    )
    r.add_argument(
        "--scheduler",
        help="address of an existing Dask scheduler (with --backend dask); "
        "without it a local cluster of --jobs workers is started",
    )
    add_quiet_option(r)
    r.add_argument(
        "--force", action="store_true", help="write into --out even if it holds files another tool wrote"
    )
    add_overwrite_option(r)
    add_limit_options(r)


def command(a) -> int:
    """Run ``bdpsim run``: the results, then the console table."""
    from ..pipeline.config import load_config
    from ..pipeline.driver import run_experiment

    lim = limits(a)
    path = config_path(a)
    cfg = quietly(load_config, path, lim)
    check_jobs(a.jobs)
    if a.scheduler and a.backend != "dask":
        raise ConfigError("--scheduler", a.scheduler, "needs --backend dask")
    if a.out is not None and not a.out.strip():
        raise ConfigError("--out", a.out, "must be a directory path, not empty")
    out = Path(a.out) if a.out is not None else Path("results") / path.stem
    check_out(a, out)
    tty = sys.stderr.isatty()
    try:
        rows = run_experiment(
            cfg,
            out,
            jobs=a.jobs,
            backend=a.backend,
            scheduler=a.scheduler,
            progress=not a.quiet and tty,
            heartbeat=0.0 if a.quiet or tty else 10.0,
            force=a.force,
            limits=lim,
        )
    except KeyboardInterrupt:
        print(
            f"bdpsim: interrupted; finished configurations are saved in {out}; "
            "re-run the same command to resume",
            file=sys.stderr,
        )
        return 130
    from .table import MAX_ROWS, configurations, console_table, table_notes

    sampled = {p.id for p in cfg.points if not p.settings.exhaustive}
    print(f"{configurations(len(rows))} -> {out}/summary.csv")
    print("\n".join(console_table(rows, cfg.percentile_label, sampled)))
    if len(rows) > MAX_ROWS:
        print(f"... {len(rows) - MAX_ROWS} more rows in {out}/summary.csv")
    for note in table_notes(rows, sampled):
        print(note)
    return 0
