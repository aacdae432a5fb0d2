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


class Unusable(Exception):
    """A saved record that cannot be reused (``reason``: why; ``"missing"`` when there is none)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def point_problem(out: Path, point_id: str) -> str | None:
    """Why the record of ``point_id`` in ``out`` cannot be reused (``None``: it can), by
    :func:`load_point`."""
    try:
        load_point(out, point_id)
    except Unusable as why:
        return why.reason
    return None


def load_point(out: Path, point_id: str) -> tuple[dict, bytes]:
    """The saved record of ``point_id`` in ``out``: its marker (summary row and checks) and its
    adversary file's bytes (gzip), each read once; :class:`Unusable` when it cannot be reused.

    A record is reused only when its marker is this point's summary row, its adversary file
    decompresses completely, and (for records written since the check was added) the file's
    length and sha256 are those the marker recorded; anything else (missing, truncated, empty,
    foreign) is recomputed."""
    js, gz = point_paths(out, point_id)
    if not js.is_file():
        raise Unusable("missing")
    try:
        row = json.loads(js.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise Unusable("its marker is not readable JSON") from None
    if not isinstance(row, dict) or row.get("point_id") != point_id:
        raise Unusable("its marker is not this point's summary row")
    if not gz.is_file():
        raise Unusable("its adversary file is missing")
    try:
        data = gz.read_bytes()
        body = gzip.decompress(data)
        body.decode("utf-8")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError, zlib.error):
        raise Unusable("its adversary file is truncated or not gzip") from None
    want = row.get("_adversaries_sha256")
    if want is not None and (hashlib.sha256(data).hexdigest() != want
                             or body.count(b"\n") != row.get("_adversary_rows")):
        raise Unusable("its adversary file does not match its marker")
    return row, data


def adversary_data(adversary_rows: Sequence[dict], extras: Sequence[str] = ()) -> bytes:
    """A point's adversary file (gzip, no header): the base columns, then the config's extra
    columns ``extras``."""
    body = csv_text(adversary_rows, ADVERSARY_COLUMNS + list(extras), header=False).encode()
    return gzip.compress(body, compresslevel=6, mtime=0)


def point_marker(summary: dict, data: bytes) -> dict:
    """A point's marker: its summary row with its adversary file's sha256 and row count (checked
    on resume, :func:`load_point`)."""
    return {**summary, "_adversaries_sha256": hashlib.sha256(data).hexdigest(),
            "_adversary_rows": gzip.decompress(data).count(b"\n")}


def save_point(out: Path, point_id: str, marker: dict, data: bytes) -> None:
    """Persist one finished point: its adversary file first, then its marker (the "done" mark)."""
    js, gz = point_paths(out, point_id)
    atomic_write_bytes(gz, data)
    atomic_write_text(js, dumps(marker))


def write_point(out: Path, point_id: str, summary: dict, adversary_rows: Sequence[dict],
                extras: Sequence[str] = ()) -> tuple[dict, bytes]:
    """Persist one finished point (:func:`adversary_data`, :func:`point_marker`,
    :func:`save_point`); return its marker and adversary file's bytes."""
    data = adversary_data(adversary_rows, extras)
    marker = point_marker(summary, data)
    save_point(out, point_id, marker, data)
    return marker, data


def summary_row(marker: dict) -> dict:
    """The ``summary.csv`` row of a marker, as read back from its JSON (so a row kept in memory
    and a row read from disk write the same cells)."""
    return {k: v for k, v in json.loads(dumps(marker)).items() if not k.startswith("_")}


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

    def __init__(self, out: Path, point_ids: Sequence[str], label: str = "p99", extras: Sequence[str] = (),
                 rows: Sequence[dict] | None = None):
        self.path = Path(out) / "summary.csv"
        flags = [] if _flags.FLAGS in extras else [_flags.FLAGS]
        self.columns = summary_columns(label, [*extras, *flags])
        if rows is None:  # the finished points' rows, read from their markers
            rows = finished_rows(Path(out), point_ids)
        atomic_write_text(self.path, csv_text(rows, self.columns))

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


def write_tables_of(out: Path, rows: Sequence[dict], data: Sequence[bytes], label: str = "p99",
                    extras: tuple[Sequence[str], Sequence[str]] = ((), ())) -> list[dict]:
    """Write ``summary.csv`` and ``adversaries.csv.gz`` of the finished points from their summary
    rows and adversary files' bytes held in memory (config order; nothing is read back); return
    the rows. The files are those :func:`write_tables` rebuilds from disk."""
    out = Path(out)
    summ = list(extras[0])
    if any(r.get(_flags.FLAGS) for r in rows) and _flags.FLAGS not in summ:  # only a flagged run has it
        summ.append(_flags.FLAGS)
    atomic_write_text(out / "summary.csv", csv_text(rows, summary_columns(label, summ)))
    members = [gzip.compress(csv_text([], ADVERSARY_COLUMNS + list(extras[1])).encode(), mtime=0), *data]
    atomic_write_bytes(out / "adversaries.csv.gz", b"".join(members))
    return list(rows)


def remove_tables(out: Path) -> None:
    """Remove ``summary.csv`` and ``adversaries.csv.gz`` (a failed run leaves no partial tables)."""
    for name in ("summary.csv", "adversaries.csv.gz"):
        with contextlib.suppress(FileNotFoundError):
            (Path(out) / name).unlink()
