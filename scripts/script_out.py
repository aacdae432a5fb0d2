"""Shared by the scripts that write into ``results/`` (``audit_coverage.py``, ``audit_figure.py``,
``benchmark_audit.py``, ``compare_estimators.py``, ``pufferfish_fig2.py``, ``frontier.py``,
``network_table.py``, ``coverage_study.py``): like ``bdpsim run`` / ``bdpsim figures``, they refuse to
write into an output holding files committed to git (the checkout's reference results) unless
``--overwrite`` is given — checked before any work, so minutes of computing never end in a refusal."""

from __future__ import annotations

import argparse
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
