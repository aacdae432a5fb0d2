#!/usr/bin/env python
"""Which committed gallery CSVs (``results/figures/<id>.csv``) the current code no longer reproduces.

Each figure's rows are recomputed at full fidelity (``bdpsim.figures.gallery.FIGURES[id].compute``, as
``bdpsim figures --only ID`` does, without drawing) in a temporary directory, in a child process
under a time limit (``--timeout`` seconds per figure), written and read back through the gallery's
own CSV writer and reader, and compared with the committed CSV column by column: numeric columns by
their largest absolute and relative difference (``|a - b| / max(|a|, |b|)``; a nan on one side
only counts as a difference), text columns by the number of rows that differ; measured times
(``--ignore``, default ``seconds``) are not compared. Nothing under
``results/`` is written.

Default figures: the ones that are not simulated (analytic rows, exact engines) — the cheap ones.
Simulated figures (``--only thesis-fig09`` ...) rerun the full-fidelity Monte Carlo: minutes to
hours each. ``bdpsim-frontier`` has its own generator (``scripts/findings/frontier.py``).

Usage: nice -n 10 python scripts/checks/gallery_staleness.py [--only ID ...] [--timeout 900]
       [--json FILE] [--keep DIR] [--rtol 1e-9] [--ignore seconds]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # script_out.py, shared by every folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from script_out import add_overwrite, refuse_committed  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "results" / "figures"


def default_ids() -> list[str]:
    from bdpsim.figures.gallery import FIGURES

    return [i for i, spec in FIGURES.items() if not spec.simulated and i != "bdpsim-frontier"]


def recompute(fig_id: str, out: Path) -> Path:
    """Compute ``fig_id``'s rows at full fidelity into ``out/<id>.csv`` (the gallery's writer)."""
    from bdpsim.figures.gallery import FIGURES, Context, default_configs_dir
    from bdpsim.pipeline import results as R

    ctx = Context(out, default_configs_dir(), log=lambda m: None)
    rows = FIGURES[fig_id].compute(ctx)
    cols = list(dict.fromkeys(k for r in rows for k in r))
    path = out / f"{fig_id}.csv"
    path.write_text(R.csv_text(rows, cols))
    return path


def _num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def compare(old: list[dict], new: list[dict], rtol: float = 1e-9) -> dict:
    """Column by column differences of two figure CSVs read by :func:`bdpsim.figures.gallery.read_rows`.

    Returns ``{"rows": (len(old), len(new)), "columns_only_old": [...], "columns_only_new": [...],
    "columns": {name: {"max_abs": ..., "max_rel": ..., "nan_mismatch": k, "cells": m} or
    {"text_mismatch": k}}}`` (``cells``: numeric cells differing by more than ``rtol`` relative);
    rows are matched by position (the gallery writes them in a fixed order), columns present in
    only one of the two are listed, not compared."""
    cols_old = list(dict.fromkeys(k for r in old for k in r))
    cols_new = list(dict.fromkeys(k for r in new for k in r))
    res = {
        "rows": (len(old), len(new)),
        "columns_only_old": [c for c in cols_old if c not in cols_new],
        "columns_only_new": [c for c in cols_new if c not in cols_old],
        "columns": {},
    }
    nan = float("nan")
    for c in (c for c in cols_old if c in cols_new):
        pairs = [(a.get(c, nan), b.get(c, nan)) for a, b in zip(old, new, strict=False)]
        if all(_num(a) and _num(b) for a, b in pairs):
            max_abs = max_rel = 0.0
            nan_mismatch = cells = 0
            for a, b in pairs:
                if math.isnan(a) or math.isnan(b):
                    nan_mismatch += math.isnan(a) != math.isnan(b)
                    continue
                if a == b:  # equal infinities too
                    continue
                d = abs(a - b)
                rel = d / max(abs(a), abs(b)) if math.isfinite(d) else math.inf
                cells += rel > rtol
                max_abs, max_rel = max(max_abs, d), max(max_rel, rel)
            res["columns"][c] = {
                "max_abs": max_abs,
                "max_rel": max_rel,
                "nan_mismatch": nan_mismatch,
                "cells": cells,
            }
        else:
            res["columns"][c] = {"text_mismatch": sum(str(a) != str(b) for a, b in pairs)}
    return res


def _drop(rows: list[dict], columns) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in columns} for r in rows]


def differing(res: dict, rtol: float) -> dict:
    """The columns of a :func:`compare` result that differ beyond ``rtol`` (relative)."""
    return {
        c: d
        for c, d in res["columns"].items()
        if d.get("text_mismatch") or d.get("nan_mismatch") or d.get("max_rel", 0.0) > rtol
    }


def markdown(report: dict, rtol: float) -> str:
    out = [
        f"| figure | seconds | rows committed / now | verdict (relative tolerance {rtol:g}) |",
        "|---|---|---|---|",
    ]
    for fig_id, r in report.items():
        if "error" in r:
            out.append(
                f"| {fig_id} | {r.get('seconds', math.nan):.0f} | | not recomputed: {r['error'][:120]} |"
            )
            continue
        bad = differing(r, rtol)
        parts = []
        if r["rows"][0] != r["rows"][1]:
            parts.append("row count differs")
        if r["columns_only_old"] or r["columns_only_new"]:
            parts.append(f"columns only committed {r['columns_only_old']}, only now {r['columns_only_new']}")
        for c, d in bad.items():
            parts.append(
                f"`{c}`: "
                + (
                    f"{d['text_mismatch']} text cells"
                    if "text_mismatch" in d
                    else f"{d['cells']} cells, max abs {d['max_abs']:.3g}, max rel {d['max_rel']:.3g}"
                    + (f", {d['nan_mismatch']} nan" if d["nan_mismatch"] else "")
                )
            )
        out.append(
            f"| {fig_id} | {r['seconds']:.0f} | {r['rows'][0]} / {r['rows'][1]} | "
            + ("; ".join(parts) if parts else "same")
            + " |"
        )
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", metavar="ID", help="figure ids (default: the non-simulated ones)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per figure (default 900)")
    ap.add_argument("--rtol", type=float, default=1e-9, help="relative difference reported as a change")
    ap.add_argument(
        "--ignore",
        nargs="*",
        default=["seconds"],
        metavar="COLUMN",
        help="columns not compared (default: seconds, a measured time)",
    )
    ap.add_argument("--json", type=Path, help="write the full comparison here")
    ap.add_argument(
        "--keep", type=Path, help="keep the recomputed CSVs in this directory (default: a temporary one)"
    )
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # child process: ID TMPDIR
    add_overwrite(ap)
    a = ap.parse_args(argv)
    if a.one:
        recompute(a.one[0], Path(a.one[1]))
        return 0
    refuse_committed(ap, a.overwrite, a.json, option="--json")
    refuse_committed(ap, a.overwrite, a.keep, option="--keep")
    from bdpsim.figures.gallery import FIGURES, read_rows

    ids = a.only or default_ids()
    unknown = [i for i in ids if i not in FIGURES]
    if unknown:
        ap.exit(2, f"{ap.prog}: error: --only = {unknown[0]}: not a gallery figure id\n")
    report = {}
    if a.keep:
        a.keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        tmp = str(a.keep or scratch)
        for fig_id in ids:
            t0 = time.perf_counter()
            try:
                got = subprocess.run(
                    [sys.executable, __file__, "--one", fig_id, tmp],
                    capture_output=True,
                    text=True,
                    timeout=a.timeout,
                )
                err = None if got.returncode == 0 else ((got.stderr.strip().splitlines() or ["failed"])[-1])
            except subprocess.TimeoutExpired:
                err = f"timed out after {a.timeout:.0f} s"
            seconds = time.perf_counter() - t0
            if err is None:
                old, new = (_drop(read_rows(d / f"{fig_id}.csv"), a.ignore) for d in (COMMITTED, Path(tmp)))
                report[fig_id] = {**compare(old, new, a.rtol), "seconds": seconds}
            else:
                report[fig_id] = {"error": err, "seconds": seconds}
            print(markdown({fig_id: report[fig_id]}, a.rtol).splitlines()[-1], flush=True)
    print()
    print(markdown(report, a.rtol), end="")
    if a.json:
        a.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
