"""The output rules of the scripts that write into ``results/``: committed files refused, records.

Shared by the scripts that write into ``results/`` (``audit_coverage.py``, ``audit_figure.py``,
``benchmark_audit.py``, ``compare_estimators.py``, ``pufferfish_fig2.py``, ``frontier.py``,
``network_table.py``, ``coverage_study.py``): like ``bdpsim run`` / ``bdpsim figures``, they refuse to
write into an output holding files committed to git (the checkout's reference results) unless
``--overwrite`` is given — checked before any work, so minutes of computing never end in a refusal.
:func:`write_record` writes a benchmark's JSON record with the machine's load (``benchmark.py``,
``benchmark_window.py``, ``pedigree_timing.py``).
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import UTC, datetime
from pathlib import Path


def add_overwrite(ap: argparse.ArgumentParser) -> None:
    """The ``--overwrite`` flag, worded as ``bdpsim run --overwrite``."""
    ap.add_argument(
        "--overwrite",
        action="store_true",
        help="write into an output that holds files committed to git (the checkout's reference "
        "results under results/; refused without it)",
    )


def refuse_committed(
    ap: argparse.ArgumentParser, overwrite: bool, *targets: Path | str | None, option: str = "--out"
) -> None:
    """Exit 2 with one line (``PROG: error: --out ...``) when a target (a directory or file; ``None``
    skipped) holds git-tracked files and not ``overwrite``
    (:func:`bdpsim.pipeline.results.check_not_committed`)."""
    if overwrite:
        return
    from bdpsim.core.errors import ConfigError
    from bdpsim.pipeline.results import check_not_committed

    for target in targets:
        if target is None:
            continue
        try:
            check_not_committed(target, option)
        except ConfigError as exc:
            ap.exit(2, f"{ap.prog}: error: {exc}\n")


def write_record(path: Path, record: dict, load_before: float) -> None:
    """Write the benchmark ``record`` as indented JSON to ``path`` (its folder made), after adding
    the machine's state: ``load_average_before`` (``load_before``, the 1-minute load average taken
    before the work), ``load_average_after``, ``cpus`` and ``written`` (UTC, to the second)."""
    record.update(
        load_average_before=load_before,
        load_average_after=os.getloadavg()[0],
        cpus=os.cpu_count(),
        written=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {path}")
