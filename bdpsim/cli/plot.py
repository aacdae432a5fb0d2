"""``bdpsim plot``: a finished run's BDPL against the exact values and the bounds (PNG + PDF)."""

from __future__ import annotations

from pathlib import Path

from ..core.errors import ConfigError
from .base import subcommand

#: the default x-axis candidates of ``bdpsim plot`` (bdpsim.figures.summary.AXIS_CANDIDATES; a test
#: keeps them equal without importing matplotlib here)
PLOT_AXES = ("gamma", "rho", "epsilon", "n", "noise_scale")

EPILOG = """\
examples:
  bdpsim plot results/quickstart
  bdpsim plot results/fig15 --x epsilon --group gamma
  bdpsim plot results/quickstart --group estimator
  bdpsim plot results/quickstart --out figs/ --format png
  bdpsim plot results/quickstart --out quickstart.svg
"""


def add_parser(sub) -> None:
    """Register ``bdpsim plot`` on the top-level subparsers ``sub``."""
    pl = subcommand(
        sub,
        "plot",
        command,
        help="plot a results directory: empirical vs exact vs bounds (PNG + PDF)",
        description="Plot a finished run (RESULTS/summary.csv): each estimator's BDPL "
        "percentile with its confidence interval, the exact BDPL where known and "
        "min(general, model bound), into RESULTS/bdpl.png and bdpl.pdf. --x must be "
        "a numeric column and --group a column of summary.csv; by default the x-axis "
        f"is the first varying of {', '.join(PLOT_AXES)} and the curves "
        "are the next varying one that is not a function of it.",
        epilog=EPILOG,
    )
    pl.add_argument("results", help="directory holding summary.csv")
    pl.add_argument(
        "--x",
        help="numeric column for the x-axis (default: the first varying of " + ", ".join(PLOT_AXES) + ")",
    )
    pl.add_argument("--group", help="column that separates curves")
    pl.add_argument(
        "--out",
        metavar="FILE_OR_DIR",
        help="where to write: a directory (RESULTS/bdpl.* by default) or a file such as fig.svg",
    )
    pl.add_argument(
        "--format",
        metavar="FMT[,FMT]",
        help="png, pdf, svg, comma-separated (default png,pdf; a file --out: its own suffix)",
    )


def command(a) -> int:
    """Run ``bdpsim plot``: the files written, one per line."""
    from ..figures import plot_results

    try:
        paths = plot_results(
            Path(a.results),
            a.x,
            a.group,
            out=a.out,
            formats=a.format.split(",") if a.format is not None else None,
        )
    except OSError as exc:  # read-only directory, full disk, ...: nothing half-written is left as final
        raise ConfigError(
            "results",
            a.results,
            f"cannot write the plot there ({exc.strerror or exc}"
            f"{': ' + str(exc.filename) if exc.filename else ''})",
        ) from None
    for path in paths:
        print(path)
    return 0
