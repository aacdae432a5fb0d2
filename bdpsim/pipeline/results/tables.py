"""CSV and JSON: cell formatting, ``summary.csv`` / ``adversaries.csv.gz`` text, typed reading."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ... import calibration as _calibration  # noqa: F401  (the kinds register their extra columns)
from ... import estimators as _estimators  # noqa: F401
from ...estimators import all_adversaries as _all_adversaries  # noqa: F401  (registers bdpl_all_adversaries)
from .. import flags as _flags  # noqa: F401  (registers the flags column)
from ... import mechanisms as _mechanisms  # noqa: F401
from ...core.errors import ConfigError
from ..rows import ADVERSARY_SCHEMA, SUMMARY_SCHEMA, typed_rows


def fmt(v) -> str:
    """CSV cell: ``repr`` precision for floats (bit-identical round trip), empty for nan/None."""
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


def csv_text(rows: Iterable[dict], columns: Sequence[str], header: bool = True) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if header:
        w.writerow(columns)
    for r in rows:
        w.writerow([fmt(r.get(c)) for c in columns])
    return buf.getvalue()


def json_default(o):
    if isinstance(o, (np.ndarray, np.generic)):
        return o.tolist()
    if isinstance(o, tuple):
        return list(o)
    return str(o)


def dumps(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, default=json_default, allow_nan=True)


def csv_records(text: str) -> list[list[str]]:
    """The records of a CSV text with no limit on a field's length: bdpsim writes cells longer
    than the csv module's default limit (131 072 characters; a 100 000-node run's list of
    records), so the limit is lifted while reading (and restored after)."""
    old = csv.field_size_limit()
    csv.field_size_limit(max(old, len(text) + 1))
    try:
        return list(csv.reader(io.StringIO(text)))
    finally:
        csv.field_size_limit(old)


def read_summary(path: Path) -> list[dict]:
    """Read a ``summary.csv`` (a directory holding one is accepted) into rows typed by
    :data:`~bdpsim.pipeline.rows.SUMMARY_SCHEMA`."""
    path = Path(path)
    if path.is_dir():
        path = path / "summary.csv"
    if not path.is_file():
        raise ConfigError("results", str(path), "no summary.csv found (run 'bdpsim run' first)")
    return read_table(path, SUMMARY_SCHEMA)


def read_adversaries(path: Path) -> list[dict]:
    """Read an ``adversaries.csv.gz`` (or a directory holding one) into typed rows."""
    path = Path(path)
    if path.is_dir():
        path = path / "adversaries.csv.gz"
    return read_table(path, ADVERSARY_SCHEMA)


def read_table(path: Path, schema) -> list[dict]:
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        raise ConfigError("results", str(path), f"cannot be read as a bdpsim table ({type(exc).__name__})") from None
    records = csv_records(text)
    if not records:
        raise ConfigError("results", str(path), "is empty")
    return typed_rows(records[0], records[1:], schema, str(path))
