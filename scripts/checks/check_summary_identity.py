"""Check that a refactoring kept the numbers: bundled configs' summaries against a base revision's.

``summary.csv`` of bundled configs, byte for byte
(the ``seconds`` column aside), against the committed results and against a base revision's code.

Usage::

    python scripts/checks/check_summary_identity.py [--base main] [--configs quickstart thesis_fig15_exact]

For each config it runs ``bdpsim run`` with this checkout's code (its root first on
``PYTHONPATH``: the runs start in a temporary directory, where an installed bdpsim would answer
otherwise) and with the code of ``--base`` (``git archive`` of its ``bdpsim/`` into a temporary
directory, first on ``PYTHONPATH``), and compares both ``summary.csv`` files (and
``adversaries.csv.gz``, decompressed) cell by cell, every column but ``seconds``; where the
repository commits ``results/<config>/summary.csv`` it is compared too. A column the new code
adds (every old column kept, in its order) is listed, not a difference. Exit status 1 on any
difference (each printed), 0 when every table is identical.

``--close COLUMN ...`` compares the named numeric columns within ``--atol`` (default 1e-13,
relative to ``max(1, |a|, |b|)``) instead of byte for byte, and prints how many cells differed in
their digits and by how much: for an intended change of last digits (since 0.2.0 the exact engines
share one Laplace grid supremum, ``bdpsim.kernels.noise.laplace_mixture.grid_sup``, whose last
digits differ from the log-space one 72aee1f used for the per-adversary exact values).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IGNORED = {"seconds"}
#: columns compared as numbers within ``CLOSE_ATOL`` (relative to max(1, |a|, |b|)) instead of
#: byte for byte (``--close``): an intended change of the last digits, named column by column
CLOSE: set[str] = set()
CLOSE_ATOL = 1e-13
#: how many cells of the ``CLOSE`` columns differed in their text but not beyond the tolerance
NEAR = {"cells": 0, "max": 0.0}


def _same(column: str, x: str, y: str) -> bool:
    """Whether two cells agree: equal text, or, in a ``--close`` column, numbers within tolerance."""
    if x == y:
        return True
    if column not in CLOSE:
        return False
    try:
        a, b = float(x), float(y)
    except ValueError:
        return False
    gap = abs(a - b) / max(1.0, abs(a), abs(b))
    if gap <= CLOSE_ATOL:
        NEAR["cells"] += 1
        NEAR["max"] = max(NEAR["max"], gap)
        return True
    return False


def _table(path: Path) -> tuple[list[str], list[list[str]]]:
    text = (
        gzip.decompress(path.read_bytes()).decode("utf-8")
        if path.suffix == ".gz"
        else path.read_text(encoding="utf-8")
    )
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def added_columns(a: Path, b: Path) -> list[str]:
    """Columns of ``a`` that ``b`` lacks, when ``b``'s columns are in ``a`` in the same order (a
    column added by a new version: readers that select columns by name are unaffected)."""
    ha, hb = _table(a)[0], _table(b)[0]
    return [h for h in ha if h not in hb] if [h for h in ha if h in hb] == hb else []


def compare(a: Path, b: Path) -> list[str]:
    """Differences between two ``summary.csv`` (columns, rows, cells; ``seconds`` ignored). Columns
    ``a`` adds to ``b``'s, every one of ``b``'s kept in its order, are no difference
    (:func:`added_columns`: reported beside); a missing, renamed or moved column is."""
    ha, ra = _table(a)
    hb, rb = _table(b)
    added = added_columns(a, b)
    if [h for h in ha if h not in added] != hb:
        return [f"header differs: {ha} != {hb}"]
    if len(ra) != len(rb):
        return [f"{len(ra)} rows != {len(rb)} rows"]
    keep = [(ha.index(h), k) for k, h in enumerate(hb) if h not in IGNORED]
    out = []
    for i, (x, y) in enumerate(zip(ra, rb, strict=True)):
        for ka, kb in keep:
            if not _same(hb[kb], x[ka], y[kb]):
                out.append(f"row {i} column {hb[kb]}: {x[ka]!r} != {y[kb]!r}")
    return out


def shrunk(config: str, adversaries: int, samples: int, into: Path) -> Path:
    """A copy of a bundled config with ``[run]``'s ``adversaries`` and ``samples`` set smaller (the
    same code paths at a fraction of the cost: the thesis configs take hours at full size)."""
    text = (ROOT / "configs" / f"{config}.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^adversaries = \d+$", f"adversaries = {adversaries}", text)
    text = re.sub(r"(?m)^samples = \d+$", f"samples = {samples}", text)
    path = into / f"{config}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def run(config: str | Path, out: Path, pythonpath: str | None) -> None:
    env = dict(os.environ)
    # the run starts in a temporary directory: without this checkout first on the path, an
    # installed bdpsim (another checkout) would answer for "this checkout's code"
    env["PYTHONPATH"] = (pythonpath or str(ROOT)) + os.pathsep + env.get("PYTHONPATH", "")
    path = config if isinstance(config, Path) else ROOT / "configs" / f"{config}.toml"
    cmd = [sys.executable, "-m", "bdpsim.cli", "run", str(path), "--out", str(out), "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=out.parent)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")


def base_tree(rev: str, into: Path) -> Path:
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "bdpsim"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="main", help="git revision whose code is the reference (default main)")
    ap.add_argument("--configs", nargs="+", default=["quickstart", "thesis_fig15_exact"])
    ap.add_argument(
        "--shrink",
        nargs="+",
        default=[],
        metavar="CONFIG",
        help="run these configs (of --configs) with adversaries = 10 and samples = 2000 on both sides",
    )
    ap.add_argument(
        "--ignore",
        nargs="+",
        default=[],
        metavar="COLUMN",
        help="columns whose change is intended since --base (listed, not compared)",
    )
    ap.add_argument(
        "--close",
        nargs="+",
        default=[],
        metavar="COLUMN",
        help="numeric columns compared within --atol (relative to max(1, |a|, |b|)) instead of byte "
        "for byte: an intended change of last digits since --base",
    )
    ap.add_argument("--atol", type=float, default=CLOSE_ATOL, help="the tolerance of --close (default 1e-13)")
    a = ap.parse_args(argv)
    IGNORED.update(a.ignore)
    CLOSE.update(a.close)
    globals()["CLOSE_ATOL"] = a.atol
    bad = 0
    with tempfile.TemporaryDirectory(prefix="bdpsim-identity-") as tmp:
        tmp = Path(tmp)
        base = str(base_tree(a.base, tmp / "base"))
        for config in a.configs:
            new, old = tmp / f"{config}-new", tmp / f"{config}-base"
            src: str | Path = shrunk(config, 10, 2000, tmp) if config in a.shrink else config
            run(src, new, str(ROOT))  # this checkout's code, whatever bdpsim is installed
            run(src, old, base)
            if (old / "adversaries.csv.gz").is_file() or (new / "adversaries.csv.gz").is_file():
                diff = compare(new / "adversaries.csv.gz", old / "adversaries.csv.gz")
                n = len(_table(old / "adversaries.csv.gz")[1])
                print(
                    f"{config}: adversaries.csv.gz vs {a.base}'s code ({n} rows): "
                    f"{'identical' if not diff else 'DIFFERS'} (seconds aside)"
                )
                for line in diff[:20]:
                    print("    " + line[:300])
                bad += bool(diff)
            pairs = [(f"{a.base}'s code", old / "summary.csv")]
            committed = ROOT / "results" / config / "summary.csv"
            if committed.is_file() and config not in a.shrink:
                pairs.append(("committed results", committed))
            for label, ref in pairs:
                diff = compare(new / "summary.csv", ref)
                n = len(_table(ref)[1])
                stale = ref != pairs[0][1] and diff and diff == compare(old / "summary.csv", ref)
                verdict = (
                    "identical"
                    if not diff
                    else (
                        f"differs exactly as {a.base}'s code does (the committed file predates it)"
                        if stale
                        else "DIFFERS"
                    )
                )
                more = added_columns(new / "summary.csv", ref)
                verdict += f"; columns added: {', '.join(more)}" if more else ""
                print(f"{config}: summary.csv vs {label} ({n} rows): {verdict} (seconds aside)")
                for line in diff[:20]:
                    print("    " + line[:300])
                bad += bool(diff) and not stale
    if CLOSE:
        print(
            f"--close {' '.join(sorted(CLOSE))}: {NEAR['cells']} cells differ in their digits, "
            f"by at most {NEAR['max']:.1e} (relative to max(1, |a|, |b|); tolerance {CLOSE_ATOL:g})"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
