#!/usr/bin/env python
"""Regenerate Figure 2 of the Pufferfish paper, with bdpsim's exact and audited panels (d) and (e).

The paper: Wang, Song & Chaudhuri, arXiv:1603.03977v1, §5. Panel (d): the exact BDPL of the same
release at small T; panel (e): its BDPL at T = 5000, the black-box audit's certified 95 % lower
bound and the exact BDPL over short windows.

Writes ``OUT/pufferfish-fig2.{png,pdf,csv,json}`` (default ``results/figures``). Full fidelity:
100 runs per cell (paper §5) and the exact BDPL for T = 2..8 (3-4 minutes on one core, almost
all of it the exact BDPL), the audit at T = 5000 and T = 8 with 10^6 mechanism calls per ε (about 7
minutes); ``--quick``: 20 runs, exact BDPL for T = 2..5, the audit for ε = 2, 10 at 2·10^5 calls
(check at T = 5), stamped "QUICK PREVIEW".

Usage (from a checkout, bdpsim importable, e.g. ``PYTHONPATH=.``):
       python scripts/findings/pufferfish_fig2.py [--quick] [--out results/figures] [--seed 20160313]
       [--overwrite]   (needed to write into a directory holding committed files)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bdpsim import figures as F
from bdpsim.figures.pufferfish import plot_pufferfish_fig2
from bdpsim.studies import pufferfish_fig2 as PF

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # script_out.py, shared by every folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from script_out import add_overwrite, refuse_committed  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="20 runs, exact BDPL for T <= 5, small audit")
    ap.add_argument("--out", type=Path, default=Path("results/figures"))
    ap.add_argument("--seed", type=int, default=PF.SEED)
    add_overwrite(ap)
    args = ap.parse_args(argv)
    refuse_committed(ap, args.overwrite, args.out)

    t0 = time.perf_counter()
    rows, extra = PF.figure_rows(PF.QUICK if args.quick else None, seed=args.seed, log=print)
    extra["fidelity"] = "quick" if args.quick else "full"
    extra["seconds_total"] = time.perf_counter() - t0
    stem = args.out / GALLERY_ID
    written = PF.write_rows(rows, stem, extra, seed=args.seed)

    fig, axes = F.subplots(3, 2, figsize=(11.4, 10.8), squeeze=False)  # the gallery's grid2 of 5 panels
    plot_pufferfish_fig2(rows, list(axes.ravel()))
    if args.quick:
        F.stamp(
            fig,
            "QUICK PREVIEW (--quick: 20 runs, exact BDPL for T <= 5, small audit) — not the paper's fidelity",
        )
    written += F.save(fig, stem)
    print(f"{extra['seconds_total']:.1f} s; wrote " + ", ".join(str(p) for p in written))
    return 0


GALLERY_ID = PF.GALLERY_ENTRY["id"]

if __name__ == "__main__":
    raise SystemExit(main())
