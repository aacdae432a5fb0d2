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

import contextlib
import csv
import datetime as _dt
import gzip
import hashlib
import io
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Iterable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from . import calibration as _calibration  # noqa: F401  (the kinds register their extra columns)
from . import estimators as _estimators  # noqa: F401
from . import flags as _flags  # noqa: F401  (registers the flags column)
from . import mechanisms as _mechanisms  # noqa: F401
from .errors import ConfigError, check
from .rows import ADVERSARY_COLUMNS, ADVERSARY_SCHEMA, EXTRA_COLUMNS, SUMMARY_SCHEMA, summary_columns, typed_rows

def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600: give the file the usual mode
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


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


def _json_default(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    if isinstance(o, tuple):
        return list(o)
    return str(o)


def dumps(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, default=_json_default, allow_nan=True)


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


def write_summary(out: Path, point_ids: Sequence[str], label: str = "p99",
                  extras: Sequence[str] = ()) -> list[dict]:
    """(Re)build ``summary.csv`` from the finished points, in config order; return its rows.
    ``label`` names the percentile columns (``p99``); ``extras`` are the config's extra columns."""
    out = Path(out)
    rows = []
    for p in point_ids:  # each finished point's marker is read once
        js, gz = point_paths(out, p)
        try:
            row = json.loads(js.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(row, dict) and row.get("point_id") == p and gz.is_file():
            rows.append({k: v for k, v in row.items() if not k.startswith("_")})
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


def read_summary(path: Path) -> list[dict]:
    """Read a ``summary.csv`` (a directory holding one is accepted) into rows typed by
    :data:`~bdpsim.rows.SUMMARY_SCHEMA`."""
    path = Path(path)
    if path.is_dir():
        path = path / "summary.csv"
    if not path.is_file():
        raise ConfigError("results", str(path), "no summary.csv found (run 'bdpsim run' first)")
    return _read_table(path, SUMMARY_SCHEMA)


def read_adversaries(path: Path) -> list[dict]:
    """Read an ``adversaries.csv.gz`` (or a directory holding one) into typed rows."""
    path = Path(path)
    if path.is_dir():
        path = path / "adversaries.csv.gz"
    return _read_table(path, ADVERSARY_SCHEMA)


def _read_table(path: Path, schema) -> list[dict]:
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        raise ConfigError("results", str(path), f"cannot be read as a bdpsim table ({type(exc).__name__})") from None
    records = list(csv.reader(io.StringIO(text)))
    if not records:
        raise ConfigError("results", str(path), "is empty")
    return typed_rows(records[0], records[1:], schema, str(path))


def git_revision() -> str:
    """Git revision of the bdpsim source tree (with ``-dirty``), or ``"unknown"``."""
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def package_versions(extra: Sequence[str] = ()) -> dict[str, str]:
    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in ("bdpsim", "numpy", "scipy", "fastkde", "joblib", "matplotlib", "statsmodels",
                 "tqdm", *extra):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def metadata(kind: str, config: dict | None = None, seed: int | None = None, **extra) -> dict:
    """The one metadata record of every bdpsim output (run, accuracy, figures, utility):
    what made it (``kind``), its full config and seed, package versions, git revision and time.
    ``extra`` adds kind-specific entries (e.g. the expanded points of a run)."""
    return {
        "bdpsim_results": 1,
        "kind": kind,
        "config": config,
        "seed": seed,
        "versions": package_versions(("dask", "distributed")),
        "git_revision": git_revision(),
        "written": now(),
        **extra,
    }


# ------------------------------------------------------------------------- output directories

#: names a run directory may hold besides its metadata (a directory holding others is foreign)
LOCK_NAME = ".bdpsim.lock"
OWN_NAMES = ("metadata.json", "summary.csv", "adversaries.csv.gz", "points", LOCK_NAME)


def is_run_metadata(path: Path) -> bool:
    """True when ``path`` is a ``metadata.json`` written by ``bdpsim run``."""
    try:
        meta = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("bdpsim_results") == 1 and meta.get("kind") == "run"


def check_out_dir(out: str | Path, force: bool = False) -> Path:
    """Check (writing nothing) that ``out`` can take a run's results; return it as a Path.

    It must be a non-empty path whose nearest existing ancestor is a writable directory. An
    existing non-empty directory must be a bdpsim run directory (its ``metadata.json``) unless
    ``force``: another tool's files are never overwritten by accident."""
    text = str(out)
    check(text.strip() != "", "--out", text, "must be a directory path, not empty")
    p = Path(text)
    if p.exists():
        check(p.is_dir(), "--out", text, "exists and is not a directory")
    anc = p
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    check(anc.is_dir(), "--out", text, f"{anc} is a file, not a directory")
    check(os.access(anc, os.W_OK | os.X_OK), "--out", text, f"{anc} is not writable")
    if p.is_dir() and not force:
        entries = sorted(e.name for e in p.iterdir() if not (e.name.startswith(".") and e.name.endswith(".tmp")))
        foreign = [e for e in entries if e not in OWN_NAMES and not e.startswith("bdpl.")]
        ours = is_run_metadata(p / "metadata.json")
        check(ours or not (set(entries) - {LOCK_NAME}), "--out", text,
              f"holds files not written by 'bdpsim run' ({', '.join(foreign or entries)[:80]}); "
              "use another directory or --force")
    return p


@contextlib.contextmanager
def run_lock(out: Path, log=None):
    """Hold an exclusive lock on ``out`` (``out/.bdpsim.lock``): concurrent runs into one directory
    run one after the other (the second waits, then resumes what the first finished).

    The lock file is removed when the run ends (only a killed run leaves it, and the next run
    takes it over). A waiter whose file was removed meanwhile (its inode is no longer the path's)
    opens the path again, so two runs never hold locks on different files."""
    import fcntl

    path = Path(out) / LOCK_NAME
    waited = False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666 & ~_umask())
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "?"
                if log is not None and not waited:
                    log(f"waiting for another bdpsim run (pid {holder}) writing to {out}")
                waited = True
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)  # the holder removed the file we waited on: lock the current one
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # still holding the lock: nobody else holds this file's lock
        os.close(fd)  # releases the lock


def remove_tables(out: Path) -> None:
    """Remove ``summary.csv`` and ``adversaries.csv.gz`` (a failed run leaves no partial tables)."""
    for name in ("summary.csv", "adversaries.csv.gz"):
        with contextlib.suppress(FileNotFoundError):
            (Path(out) / name).unlink()


def markdown_columns() -> str:
    """The README's column list, generated from the schemas and every registered kind's extra columns
    (a test keeps the README in sync)."""
    lines = ["| file | column | type | meaning |", "|---|---|---|---|"]
    for fname, schema, table in (("summary.csv", SUMMARY_SCHEMA, "summary"),
                                 ("adversaries.csv.gz", ADVERSARY_SCHEMA, "adversaries")):
        for c in schema:
            lines.append(f"| {fname} | `{c.header('p99')}` | {c.dtype.__name__} | {c.meaning} |")
        for c in sorted(EXTRA_COLUMNS[table].values(), key=lambda c: c.name):  # not import order
            lines.append(f"| {fname} | `{c.name}` | {c.dtype.__name__} | (only when used) {c.meaning} |")
    return "\n".join(lines)


def committed_files(path: str | Path) -> list[str]:
    """The files at or under ``path`` that git tracks (a checkout's committed reference results);
    ``[]`` when ``path`` does not exist, is outside a git checkout, or git is not installed."""
    p = Path(path)
    if not p.exists():
        return []
    where = p if p.is_dir() else p.parent
    try:
        got = subprocess.run(["git", "-C", str(where), "ls-files", "-z", "--", str(p.resolve())],
                             capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    if got.returncode != 0:
        return []
    return [f for f in got.stdout.decode(errors="replace").split("\0") if f]


def check_not_committed(path: str | Path, option: str = "--out") -> None:
    """Refuse (one line) to write into ``path`` when it holds files committed to git: run inside
    the checkout, the default output directories (``results/quickstart``, ``results/figures``,
    ...) are the repository's reference results, which a preview or an edited config must not
    silently replace. ``--overwrite`` (the caller skips this check) regenerates them on purpose."""
    files = committed_files(path)
    if files:
        more = f" and {len(files) - 1} more" if len(files) > 1 else ""
        raise ConfigError(option, str(path), f"holds files committed to git ({files[0]}{more}: the "
                                             "repository's reference results); write elsewhere "
                                             f"(another {option}) or pass --overwrite to regenerate them")
