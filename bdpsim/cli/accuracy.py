"""``bdpsim accuracy``: the error of the ``kde`` and ``mixture`` estimators against exact BDPL."""

from __future__ import annotations

import sys
from pathlib import Path

from .base import add_overwrite_option, check_jobs, check_writable_dir, subcommand
from .progress import add_quiet_option

EPILOG = """\
example:
  bdpsim accuracy --out results/accuracy --jobs 2
  bdpsim accuracy --samples 1000 10000 --adversaries 5   (a quick look)
"""


def add_parser(sub) -> None:
    """Register ``bdpsim accuracy`` on the top-level subparsers ``sub``."""
    ac = subcommand(
        sub,
        "accuracy",
        command,
        help="error of the kde and mixture estimators against exact BDPL",
        description="Estimator accuracy report: on a fixed grid of Markov and Gaussian cases "
        "with exact answers, the per-adversary error (bias, RMSE, max) of 'kde' "
        "and 'mixture' at several sample sizes -> accuracy.csv, accuracy.json, "
        "accuracy.png/.pdf. Each case is saved as it finishes (OUT/cases/): "
        "Ctrl-C keeps them and the same command resumes.",
        epilog=EPILOG,
    )
    ac.add_argument("--out", default="results/accuracy", help="output directory (default results/accuracy)")
    ac.add_argument(
        "--samples",
        type=int,
        nargs="+",
        default=[10_000, 100_000, 1_000_000],
        metavar="N",
        help="sample sizes of kde and the fixed-size mixture (default 10000 100000 1000000); "
        "the adaptive mixture starts from the one nearest 10^5",
    )
    ac.add_argument("--adversaries", type=int, default=20, help="random adversaries per case (default 20)")
    ac.add_argument("--seed", type=int, default=1, help="root seed (default 1)")
    ac.add_argument("--jobs", type=int, default=1, help="parallel workers (one case per task)")
    add_quiet_option(ac)
    add_overwrite_option(ac)


def command(a) -> int:
    """Run ``bdpsim accuracy``: the report's table and the files written."""
    from ..studies.accuracy import GRID, accuracy_table
    from .progress import Progress

    check_jobs(a.jobs)
    out = Path(a.out)
    check_writable_dir(out, a.overwrite)
    meta = {"samples": a.samples, "adversaries": a.adversaries, "seed": a.seed}
    finished: dict = {}
    try:  # the report is written as it goes (a lock, metadata.json, cases saved: resumable)
        with Progress("bdpsim accuracy", "cases", quiet=a.quiet) as bar:
            rows = accuracy_table(
                tuple(a.samples),
                a.adversaries,
                a.seed,
                a.jobs,
                out=out,
                progress=bar,
                finished=finished,
                meta=meta,
            )
    except KeyboardInterrupt:  # as 'bdpsim run': what finished is kept (status interrupted), resumable
        print(
            f"bdpsim: interrupted; {len(finished)} of {len(GRID)} cases are saved in {out}; "
            "re-run the same command to resume",
            file=sys.stderr,
        )
        return 130
    from ..figures.accuracy import save_accuracy

    paths = [p for p in (out / "accuracy.csv", out / "accuracy.json") if p.is_file()]  # written as it went
    paths += save_accuracy(rows, Path(a.out))
    # the adaptive mixture run (target_se > 0) is labelled by its target: no two rows look alike
    label = [r["estimator"] + (f" se<={r['target_se']:g}" if r.get("target_se") else "") for r in rows]
    wc, we = max([4, *(len(r["case"]) for r in rows)]), max([9, *map(len, label)])
    print(f"{'case':{wc}} {'estimator':{we}} {'samples':>8} {'bias':>8} {'rmse':>8} {'max|err|':>8}")
    for r, est in zip(rows, label, strict=True):
        print(
            f"{r['case']:{wc}} {est:{we}} {r['samples']:>8} {r['bias']:8.4f} {r['rmse']:8.4f} "
            f"{r['max_abs_error']:8.4f}"
        )
    for p in paths:
        print(p)
    return 0
