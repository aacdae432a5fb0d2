"""Check that a refactoring kept the numbers: ``summary.csv`` of bundled configs, byte for byte
(the ``seconds`` column aside), against the committed results and against a base revision's code.

Usage::

    python scripts/check_summary_identity.py [--base main] [--configs quickstart thesis_fig15_exact]

For each config it runs ``bdpsim run`` with this checkout's code (first on ``PYTHONPATH``: the
runs start in a temporary directory, where an installed bdpsim would answer otherwise) and with the
code of ``--base`` (``git archive`` of its ``bdpsim/`` into a temporary directory, first on
``PYTHONPATH``), and compares both ``summary.csv`` files (and ``adversaries.csv.gz``,
decompressed) cell by cell, every column but ``seconds``; where the repository commits
``results/<config>/summary.csv`` it is compared too. Exit status 1 on any difference
(each printed), 0 when every table is identical.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IGNORED = {"seconds"}


def _table(path: Path) -> tuple[list[str], list[list[str]]]:
    text = gzip.decompress(path.read_bytes()).decode("utf-8") if path.suffix == ".gz" else path.read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def compare(a: Path, b: Path) -> list[str]:
    """Differences between two ``summary.csv`` (columns, rows, cells; ``seconds`` ignored)."""
    ha, ra = _table(a)
    hb, rb = _table(b)
    if ha != hb:
        return [f"header differs: {ha} != {hb}"]
    if len(ra) != len(rb):
        return [f"{len(ra)} rows != {len(rb)} rows"]
    keep = [k for k, h in enumerate(ha) if h not in IGNORED]
    out = []
    for i, (x, y) in enumerate(zip(ra, rb, strict=True)):
        for k in keep:
            if x[k] != y[k]:
                out.append(f"row {i} column {ha[k]}: {x[k]!r} != {y[k]!r}")
    return out


def run(config: str, out: Path, pythonpath: str | None) -> None:
    env = dict(os.environ)
    # the run starts in a temporary directory: without this checkout first on the path, an
    # installed bdpsim (another checkout) would answer for "this checkout's code"
    env["PYTHONPATH"] = (pythonpath or str(ROOT)) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "bdpsim.cli", "run", str(ROOT / "configs" / f"{config}.toml"),
           "--out", str(out), "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=out.parent)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")


def base_tree(rev: str, into: Path) -> Path:
    data = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "bdpsim"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="main", help="git revision whose code is the reference (default main)")
    ap.add_argument("--configs", nargs="+", default=["quickstart", "thesis_fig15_exact"])
    a = ap.parse_args(argv)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="bdpsim-identity-") as tmp:
        tmp = Path(tmp)
        base = str(base_tree(a.base, tmp / "base"))
        for config in a.configs:
            new, old = tmp / f"{config}-new", tmp / f"{config}-base"
            run(config, new, None)
            run(config, old, base)
            if (old / "adversaries.csv.gz").is_file() or (new / "adversaries.csv.gz").is_file():
                diff = compare(new / "adversaries.csv.gz", old / "adversaries.csv.gz")
                n = len(_table(old / "adversaries.csv.gz")[1])
                print(f"{config}: adversaries.csv.gz vs {a.base}'s code ({n} rows): "
                      f"{'identical' if not diff else 'DIFFERS'} (seconds aside)")
                for line in diff[:20]:
                    print("    " + line[:300])
                bad += bool(diff)
            pairs = [(f"{a.base}'s code", old / "summary.csv")]
            committed = ROOT / "results" / config / "summary.csv"
            if committed.is_file():
                pairs.append(("committed results", committed))
            for label, ref in pairs:
                diff = compare(new / "summary.csv", ref)
                n = len(_table(ref)[1])
                stale = ref != pairs[0][1] and diff and diff == compare(old / "summary.csv", ref)
                verdict = "identical" if not diff else (f"differs exactly as {a.base}'s code does (the committed "
                                                        "file predates it)" if stale else "DIFFERS")
                print(f"{config}: summary.csv vs {label} ({n} rows): {verdict} (seconds aside)")
                for line in diff[:20]:
                    print("    " + line[:300])
                bad += bool(diff) and not stale
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
