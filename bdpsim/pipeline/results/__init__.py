"""Result files: atomic writes, per-point records, ``summary.csv``, ``adversaries.csv.gz``,
``metadata.json`` (config, seed, package versions, git revision).

Layout of an output directory::

    OUT/metadata.json                 run metadata (rewritten at start and end)
    OUT/summary.csv                   one row per finished configuration point
    OUT/adversaries.csv.gz            one row per adversary (all finished points)
    OUT/points/<id>.json              a finished point's summary row (the "done" marker)
    OUT/points/<id>.csv.gz            its adversary rows (written before the marker)

Every file is written to a temporary name and renamed into place, so a crash never leaves a
half-written file under a final name; a point counts as finished only once its ``.json`` exists.
"""

from __future__ import annotations

from .atomic import append_line, atomic_write_bytes, atomic_write_text
from .outdir import (
    LOCK_NAME,
    OWN_NAMES,
    check_not_committed,
    check_out_dir,
    committed_files,
    is_run_metadata,
    run_lock,
)
from .points import (
    SummaryLog,
    Unusable,
    adversary_data,
    load_point,
    point_done,
    point_marker,
    point_paths,
    point_problem,
    remove_tables,
    save_point,
    summary_row,
    write_point,
    write_summary,
    write_tables,
    write_tables_of,
)
from .provenance import git_revision, metadata, now, package_versions
from .readme import markdown_columns
from .tables import csv_text, dumps, fmt, read_adversaries, read_summary

__all__ = [
    "LOCK_NAME",
    "OWN_NAMES",
    "SummaryLog",
    "Unusable",
    "adversary_data",
    "append_line",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_not_committed",
    "check_out_dir",
    "committed_files",
    "csv_text",
    "dumps",
    "fmt",
    "git_revision",
    "is_run_metadata",
    "load_point",
    "markdown_columns",
    "metadata",
    "now",
    "package_versions",
    "point_done",
    "point_marker",
    "point_paths",
    "point_problem",
    "read_adversaries",
    "read_summary",
    "remove_tables",
    "run_lock",
    "save_point",
    "summary_row",
    "write_point",
    "write_summary",
    "write_tables",
    "write_tables_of",
]
