"""``bdpsim figures``: the figures of the thesis and the papers, regenerated with a gallery."""

from __future__ import annotations

import sys
from pathlib import Path

from .base import add_overwrite_option, check_data_dir, check_jobs, check_writable_dir, subcommand
from .progress import add_quiet_option

#: the default --out of ``bdpsim figures``: git-ignored (.gitignore), as the quickstart's
#: results/my-quickstart; the committed gallery results/figures is written only with --overwrite
FIGURES_OUT = "results/my-figures"
#: the gallery's own figures (bdpsim.figures.gallery.FIGURES; a test keeps the list complete)
BDPSIM_FIGURES = (
    "bdpsim-calibration",
    "bdpsim-competition",
    "bdpsim-knowledge",
    "bdpsim-pedigree",
    "bdpsim-generations",
    "bdpsim-audit",
    "pufferfish-fig2",
    "bdpsim-frontier",
    "bdpsim-utility-optimal",
    "tkde-budget",
    "bdpsim-temporal",
    "bdpsim-attack",
    "bdpsim-accountant",
)

EPILOG = (
    "examples:\n  bdpsim figures --quick                   # all, preview fidelity\n"
    "  bdpsim figures --only thesis-fig15 --jobs 2   # thesis fidelity\n"
    "  bdpsim figures --only thesis-fig09 --out results/figures --overwrite\n"
    "                              # replaces the committed figure\n"
    "ids: thesis-fig03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19,\n"
    "     paper-fig1 2 3 4 5,\n"
    + "".join(f"     {i}\n" for i in BDPSIM_FIGURES)
    + "not drawn: thesis Figs. 1 and 2 (introductory illustrations, no model\n"
    "or data)"
)


def add_parser(sub) -> None:
    """Register ``bdpsim figures`` on the top-level subparsers ``sub``."""
    fg = subcommand(
        sub,
        "figures",
        command,
        help="regenerate the figures of the thesis and the paper",
        description="Regenerate figures into OUT (PNG + PDF + CSV each) with a README.md "
        "gallery. Simulated figures run the bundled configs through 'bdpsim run' "
        "(resumable, in OUT/runs/); so is the competition's exact search "
        "(OUT/runs/competition).",
        epilog=EPILOG,
    )
    fg.add_argument("--only", nargs="+", metavar="ID", help="figure ids to make (default: all)")
    fg.add_argument("--quick", action="store_true", help="reduced fidelity (100 adversaries x 10^4 samples)")
    fg.add_argument(
        "--out",
        default=FIGURES_OUT,
        help=f"output directory (default {FIGURES_OUT}, git-ignored; the committed gallery "
        "results/figures needs --overwrite)",
    )
    fg.add_argument(
        "--jobs",
        type=int,
        help="worker processes: several figures at once, or one figure's runs (default: every "
        "available core)",
    )
    fg.add_argument(
        "--configs", help="directory of the configs (default: the bundled ones, 'bdpsim configs')"
    )
    add_quiet_option(fg)
    fg.add_argument(
        "--data-dir", help="local dataset files for the utility figures (else downloaded and verified)"
    )
    add_overwrite_option(fg)


def _left(ids: list[str], shown: int = 2) -> str:
    """``a, b and 3 more``: the figures still to make, by name."""
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


def command(a) -> int:
    """Run ``bdpsim figures``: the estimate up front, a line per figure, the files written."""
    from ..core.bundled import CONFIG_DIR
    from ..figures.gallery import estimate_figures, make_figures
    from ..pipeline.watchdog import available_cpus
    from .progress import EVERY, Progress

    if a.jobs is None:  # every core this process may use
        a.jobs = available_cpus()
    check_jobs(a.jobs)
    check_data_dir(a.data_dir)
    check_writable_dir(Path(a.out), a.overwrite)
    configs = Path(a.configs) if a.configs else CONFIG_DIR
    # up front: what will run and how long the cost model expects it to take
    for line in estimate_figures(a.only, Path(a.out), quick=a.quick, configs=configs).lines(a.jobs):
        print(line, flush=True)
    tty = sys.stderr.isatty()
    # without a terminal, a line every ~10 s says how many figures are done and which are left
    # (runs show their own bar on one)
    bar = Progress("bdpsim figures", "figures done", tty=False, quiet=a.quiet or tty)

    def log(line: str) -> None:
        print(line, flush=True)

    def done(finished: list[str], left: list[str]) -> None:
        bar.desc = f"bdpsim figures (left: {_left(left)})" if left else "bdpsim figures"
        bar(len(finished), len(finished) + len(left))

    skipped: list[str] = []
    try:
        paths = make_figures(
            a.only,
            Path(a.out),
            quick=a.quick,
            jobs=a.jobs,
            configs=configs,
            progress=tty and not a.quiet,
            data_dir=Path(a.data_dir) if a.data_dir else None,
            log=log,
            skipped=skipped,
            heartbeat=0.0 if a.quiet or tty else EVERY,
            done=done,
        )
    finally:
        bar.close()
    print(f"{len(paths)} files -> {a.out} (gallery: {Path(a.out) / 'README.md'})")
    if skipped:  # as 'bdpsim utility' with several configs: the others are drawn, exit code 2 at the end
        print(
            f"bdpsim: error: {len(skipped)} figure{'s' * (len(skipped) != 1)} skipped, their data cannot be "
            f"had ({', '.join(skipped)}): see the 'skipped' lines above; --data-dir DIR uses local files",
            file=sys.stderr,
        )
        return 2
    return 0
