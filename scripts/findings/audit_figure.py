#!/usr/bin/env python
"""Preview of the ``bdpsim-audit`` gallery figure: the audit's certified lower bound vs budget.

The audit's certified lower bound and
point estimate vs budget on the activity chain's Laplace count, converging to the exact BDPL, with
the thesis' KDE beside it (rows: :func:`bdpsim.studies.audit_study.budget_rows`; plot:
:func:`bdpsim.figures.audit.plot_audit`). Writes ``bdpsim-audit.csv``, ``.png`` and ``.pdf`` to
``--out`` (default ``results/benchmarks``); the gallery regenerates it once the figure is registered.

Usage: nice -n 10 python scripts/findings/audit_figure.py [--budgets 1e5 1e6 1e7 1e8] [--out DIR]
       [--overwrite]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bdpsim.figures import save, subplots
from bdpsim.figures.audit import plot_audit
from bdpsim.pipeline import results as R
from bdpsim.studies.audit_study import budget_rows

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # script_out.py, shared by every folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from script_out import add_overwrite, refuse_committed  # noqa: E402

HERE = Path(__file__).resolve().parent


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", type=float, nargs="+", default=[1e5, 1e6, 1e7, 1e8])
    ap.add_argument("--kde-samples", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--out", type=Path, default=HERE.parents[1] / "results" / "benchmarks")
    add_overwrite(ap)
    a = ap.parse_args(argv)
    refuse_committed(ap, a.overwrite, a.out)
    rows = budget_rows(budgets=a.budgets, kde_samples=a.kde_samples, log=print)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "bdpsim-audit.csv").write_text(R.csv_text(rows, list(dict.fromkeys(k for r in rows for k in r))))
    fig, ax = subplots(figsize=(8.4, 4.8))
    plot_audit(rows, ax)
    for p in save(fig, a.out / "bdpsim-audit"):
        print(p)


if __name__ == "__main__":
    main()
