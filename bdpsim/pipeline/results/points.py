"""Per-point records and resume: a finished point's marker and adversary file, ``summary.csv``
(appended as points finish, rebuilt once in config order at start and end) and
``adversaries.csv.gz``."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import zlib
from collections.abc import Sequence
from pathlib import Path

from .. import flags as _flags
from ..rows import ADVERSARY_COLUMNS, summary_columns
from .atomic import append_line, atomic_write_bytes, atomic_write_text
from .tables import csv_text, dumps


def point_paths(out: Path, point_id: str) -> tuple[Path, Path]:
    d = Path(out) / "points"
    return d / f"{point_id}.json", d / f"{point_id}.csv.gz"


def point_done(out: Path, point_id: str) -> bool:
    """True when ``point_id`` has a complete, readable record in ``out`` (see :func:`point_problem`)."""
    return point_problem(out, point_id) is None


def point_problem(out: Path, point_id: str) -> str | None:
    """Why the record of ``point_id`` in ``out`` cannot be reused (``None``: it can).

    A record is reused only when its marker is this point's summary row, its adversary file
    decompresses completely, and (for records written since the check was added) the file's
    length and sha256 are those the marker recorded; anything else (missing, truncated, empty,
    foreign) is recomputed."""
    js, gz = point_paths(out, point_id)
    if not js.is_file():
        return "missing"
    try:
        row = json.loads(js.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "its marker is not readable JSON"
    if not isinstance(row, dict) or row.get("point_id") != point_id:
        return "its marker is not this point's summary row"
    if not gz.is_file():
        return "its adversary file is missing"
    try:
        data = gz.read_bytes()
        body = gzip.decompress(data)
        body.decode("utf-8")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError, zlib.error):
        return "its adversary file is truncated or not gzip"
    want = row.get("_adversaries_sha256")
    if want is not None and (hashlib.sha256(data).hexdigest() != want
                             or body.count(b"\n") != row.get("_adversary_rows")):
        return "its adversary file does not match its marker"
    return None


def write_point(out: Path, point_id: str, summary: dict, adversary_rows: Sequence[dict],
                extras: Sequence[str] = ()) -> None:
    """Persist one finished point: adversary rows first (the base columns, then the config's extra
    columns ``extras``), then the summary marker (which records the adversary file's sha256 and row
    count, checked on resume)."""
    js, gz = point_paths(out, point_id)
    body = csv_text(adversary_rows, ADVERSARY_COLUMNS + list(extras), header=False).encode()
    data = gzip.compress(body, compresslevel=6, mtime=0)
    atomic_write_bytes(gz, data)
    marker = {**summary, "_adversaries_sha256": hashlib.sha256(data).hexdigest(),
              "_adversary_rows": body.count(b"\n")}
    atomic_write_text(js, dumps(marker))


def finished_rows(out: Path, point_ids: Sequence[str]) -> list[dict]:
    """The summary rows of the finished points among ``point_ids``, in that order (each marker
    read once)."""
    rows = []
    for p in point_ids:
        js, gz = point_paths(out, p)
        try:
            row = json.loads(js.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(row, dict) and row.get("point_id") == p and gz.is_file():
            rows.append({k: v for k, v in row.items() if not k.startswith("_")})
    return rows


class SummaryLog:
    """``summary.csv`` while a run goes: rebuilt once from the finished points' markers (config
    order) when the run starts — a resume — then one line appended per finished point
    (:func:`~bdpsim.pipeline.results.atomic.append_line`), so writing it is linear in the number of points.
    Its columns include ``flags`` (a row may be flagged later); the run's end rebuilds the file in
    config order with the flags column only if a row is flagged (:func:`write_tables`)."""

    def __init__(self, out: Path, point_ids: Sequence[str], label: str = "p99", extras: Sequence[str] = ()):
        self.path = Path(out) / "summary.csv"
        flags = [] if _flags.FLAGS in extras else [_flags.FLAGS]
        self.columns = summary_columns(label, [*extras, *flags])
        atomic_write_text(self.path, csv_text(finished_rows(Path(out), point_ids), self.columns))

    def append(self, row: dict) -> None:
        """Add one finished point's summary row."""
        append_line(self.path, csv_text([row], self.columns, header=False))


def write_summary(out: Path, point_ids: Sequence[str], label: str = "p99",
                  extras: Sequence[str] = ()) -> list[dict]:
    """(Re)build ``summary.csv`` from the finished points, in config order; return its rows.
    ``label`` names the percentile columns (``p99``); ``extras`` are the config's extra columns."""
    out = Path(out)
    rows = finished_rows(out, point_ids)
    if any(r.get(_flags.FLAGS) for r in rows) and _flags.FLAGS not in extras:  # only a flagged run has it
        extras = [*extras, _flags.FLAGS]
    atomic_write_text(out / "summary.csv", csv_text(rows, summary_columns(label, extras)))
    return rows


def write_tables(out: Path, point_ids: Sequence[str], label: str = "p99",
                 extras: tuple[Sequence[str], Sequence[str]] = ((), ())) -> list[dict]:
    """(Re)build ``summary.csv`` and ``adversaries.csv.gz`` (concatenated gzip members of the
    finished points) in config order; return the summary rows. ``extras``: the config's extra
    summary and adversary columns."""
    out = Path(out)
    rows = write_summary(out, point_ids, label, extras[0])
    members = [gzip.compress(csv_text([], ADVERSARY_COLUMNS + list(extras[1])).encode(), mtime=0)]
    members += [point_paths(out, r["point_id"])[1].read_bytes() for r in rows]
    atomic_write_bytes(out / "adversaries.csv.gz", b"".join(members))
    return rows


def remove_tables(out: Path) -> None:
    """Remove ``summary.csv`` and ``adversaries.csv.gz`` (a failed run leaves no partial tables)."""
    for name in ("summary.csv", "adversaries.csv.gz"):
        with contextlib.suppress(FileNotFoundError):
            (Path(out) / name).unlink()
