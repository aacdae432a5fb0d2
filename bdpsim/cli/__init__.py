"""``bdpsim`` command line: parses arguments and calls library functions.

Bad input (config or argument) prints one line ``bdpsim: error: FIELD = VALUE: RULE`` on stderr
and exits with code 2, without a traceback and without writing results.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.errors import BdpsimError, ConfigError
from ..kernels.argcheck import ParameterError
from .progress import add_quiet_option
from .studies import cmd_accuracy, cmd_configs, cmd_figures, cmd_utility

EPILOG_RUN = """\
examples:
  bdpsim run quickstart --out results/my-quickstart   # a bundled config
  bdpsim run configs/thesis_fig15.toml --out results/fig15 --jobs 2
  bdpsim run thesis_fig15 --out results/fig15 --backend dask \\
      --scheduler tcp://127.0.0.1:8786

Re-running the same command resumes: finished configurations are skipped. Results for a given
config and seed are identical for any --jobs and either backend (the 'seconds' column aside).
Output: OUT/summary.csv (one row per configuration), OUT/adversaries.csv.gz (one row per
adversary), OUT/metadata.json (config, seed, versions, git revision), OUT/points/ (resume state).
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs: indented lines (examples) and headings (``examples:``) stay exactly
    as written, never wrapped; the lines of a prose paragraph are joined and filled to the terminal
    (a prose line ending in ``.``, ``:`` or ``;`` ends its paragraph)."""

    def _fill_text(self, text, width, indent):
        import textwrap

        out: list[str] = []
        prose: list[str] = []

        def flush() -> None:
            if prose:
                out.extend(
                    textwrap.fill(
                        " ".join(prose), max(width, 20), initial_indent=indent, subsequent_indent=indent
                    ).splitlines()
                )
                prose.clear()

        for line in text.splitlines():
            if not line.strip() or line[0].isspace():
                flush()
                out.append(indent + line if line.strip() else "")
            else:
                prose.append(line.strip())
                if line.rstrip().endswith((".", ":", ";")):
                    flush()
        flush()
        return "\n".join(out)


#: the default x-axis candidates of ``bdpsim plot`` (bdpsim.figures.summary.AXIS_CANDIDATES; a test
#: keeps them equal without importing matplotlib here)
PLOT_AXES = ("gamma", "rho", "epsilon", "n", "noise_scale")
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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(2, f"bdpsim: error: {message} (see '{self.prog} --help')\n")


def _limit_options(parser) -> None:
    parser.add_argument(
        "--max-memory-gib",
        type=float,
        default=8.0,
        metavar="GIB",
        help="refuse a config whose estimated peak memory exceeds this (default 8)",
    )
    parser.add_argument(
        "--max-work",
        type=float,
        default=1e13,
        metavar="UNITS",
        help="refuse a config whose estimated work exceeds this many units "
        "(default 1e13, about a day of one core; 'bdpsim validate' prints the estimate)",
    )


def _overwrite_option(parser) -> None:
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="write into an output directory that holds files committed to git (the "
        "checkout's reference results under results/; refused without it)",
    )


def _check_out(a, out) -> None:
    """The output directory must not hold committed files, unless ``--overwrite``."""
    from ..pipeline.results import check_not_committed

    if not a.overwrite:
        check_not_committed(out)


def _limits(a):
    from ..pipeline.cost import Limits

    return Limits(a.max_memory_gib, a.max_work)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="bdpsim",
        description=(
            "Measure the Bayesian differential privacy leakage (BDPL) of DP mechanisms on correlated "
            "data: the thesis' Monte Carlo estimator, a Rao-Blackwellised mixture estimator, exact "
            "values where the model allows, and the theoretical bounds."
        ),
        epilog="start here:\n"
        "  bdpsim run quickstart --out results/my-quickstart\n"
        "  bdpsim plot results/my-quickstart\n"
        "  bdpsim configs                (the bundled configs; --copy DIR copies them)\n"
        "  bdpsim bounds markov --gamma 5 --epsilon 1 --n 10\n"
        "  bdpsim figures --quick --jobs 2\n"
        "each command has its own --help with examples; bad input exits with code 2 and one line.",
        formatter_class=_Formatter,
    )
    from .. import __version__

    p.add_argument("--version", action="version", version=f"bdpsim {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")

    r = sub.add_parser(
        "run",
        help="run a TOML experiment config (sweeps, resume, parallel)",
        description="Run every configuration point of CONFIG and write tidy results.",
        epilog=EPILOG_RUN,
        formatter_class=_Formatter,
    )
    r.add_argument(
        "config",
        help="TOML config ([run], [model], [mechanism]) or a bundled config's name "
        "('bdpsim configs' lists them)",
    )
    r.add_argument("--out", help="output directory (default: results/<config name>)")
    r.add_argument("--jobs", type=int, default=1, help="parallel workers (default 1)")
    r.add_argument(
        "--backend",
        choices=["loky", "dask"],
        default="loky",
        help="joblib backend: local processes (loky) or a Dask cluster",
    )
    r.add_argument(
        "--scheduler",
        help="address of an existing Dask scheduler (with --backend dask); "
        "without it a local cluster of --jobs workers is started",
    )
    add_quiet_option(r)
    r.add_argument(
        "--force", action="store_true", help="write into --out even if it holds files another tool wrote"
    )
    _overwrite_option(r)
    _limit_options(r)

    v = sub.add_parser(
        "validate",
        help="check a config and list its configuration points",
        description="Check CONFIG without running it: every key and value is validated "
        "and the expanded configuration points (the Cartesian product of "
        "all sweeps, per [[variants]] entry) are listed with their ids. "
        "A bad config prints one line naming the field, value and rule, "
        "and exits with code 2.",
        epilog="examples:\n  bdpsim validate quickstart\n"
        "  bdpsim validate configs/utility_galton.toml   (a [utility] config)",
        formatter_class=_Formatter,
    )
    v.add_argument("config", help="TOML config file or a bundled config's name")
    _limit_options(v)

    pl = sub.add_parser(
        "plot",
        help="plot a results directory: empirical vs exact vs bounds (PNG + PDF)",
        description="Plot a finished run (RESULTS/summary.csv): each estimator's BDPL "
        "percentile with its confidence interval, the exact BDPL where known and "
        "min(general, model bound), into RESULTS/bdpl.png and bdpl.pdf. --x must be "
        "a numeric column and --group a column of summary.csv; by default the x-axis "
        f"is the first varying of {', '.join(PLOT_AXES)} and the curves "
        "are the next varying one that is not a function of it.",
        epilog="examples:\n  bdpsim plot results/quickstart\n"
        "  bdpsim plot results/fig15 --x epsilon --group gamma\n"
        "  bdpsim plot results/quickstart --group estimator\n"
        "  bdpsim plot results/quickstart --out figs/ --format png\n"
        "  bdpsim plot results/quickstart --out quickstart.svg",
        formatter_class=_Formatter,
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

    cf = sub.add_parser(
        "configs",
        help="list the bundled example configs (--copy DIR copies them)",
        description="The example configs shipped with bdpsim. Run one by name from any "
        "directory ('bdpsim run quickstart'), or copy them to edit your own.",
        epilog="examples:\n  bdpsim configs\n  bdpsim configs --copy my-configs\n"
        "  bdpsim run quickstart --out results/my-quickstart",
        formatter_class=_Formatter,
    )
    cf.add_argument(
        "--copy", metavar="DIR", help="copy every bundled config into DIR (never overwrites a file)"
    )

    from . import theory as cli_theory

    cli_theory.add_parsers(sub, _Parser, _Formatter)
    ac = sub.add_parser(
        "accuracy",
        help="error of the kde and mixture estimators against exact BDPL",
        description="Estimator accuracy report: on a fixed grid of Markov and Gaussian cases "
        "with exact answers, the per-adversary error (bias, RMSE, max) of 'kde' "
        "and 'mixture' at several sample sizes -> accuracy.csv, accuracy.json, "
        "accuracy.png/.pdf. Each case is saved as it finishes (OUT/cases/): "
        "Ctrl-C keeps them and the same command resumes.",
        epilog="example:\n  bdpsim accuracy --out results/accuracy --jobs 2\n"
        "  bdpsim accuracy --samples 1000 10000 --adversaries 5   (a quick look)",
        formatter_class=_Formatter,
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
    _overwrite_option(ac)
    fg = sub.add_parser(
        "figures",
        help="regenerate the figures of the thesis and the paper",
        description="Regenerate figures into OUT (PNG + PDF + CSV each) with a README.md "
        "gallery. Simulated figures run the bundled configs through 'bdpsim run' "
        "(resumable, in OUT/runs/); so is the competition's exact search "
        "(OUT/runs/competition).",
        epilog="examples:\n  bdpsim figures --quick --jobs 2          # all, preview fidelity\n"
        "  bdpsim figures --only thesis-fig15 --jobs 2   # thesis fidelity\n"
        "  bdpsim figures --only thesis-fig09 --out results/figures --overwrite\n"
        "                              # replaces the committed figure\n"
        "ids: thesis-fig03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19,\n"
        "     paper-fig1 2 3 4 5,\n"
        + "".join(f"     {i}\n" for i in BDPSIM_FIGURES)
        + "not drawn: thesis Figs. 1 and 2 (introductory illustrations, no model\n"
        "or data)",
        formatter_class=_Formatter,
    )
    fg.add_argument("--only", nargs="+", metavar="ID", help="figure ids to make (default: all)")
    fg.add_argument("--quick", action="store_true", help="reduced fidelity (100 adversaries x 10^4 samples)")
    fg.add_argument(
        "--out",
        default=FIGURES_OUT,
        help=f"output directory (default {FIGURES_OUT}, git-ignored; the committed gallery "
        "results/figures needs --overwrite)",
    )
    fg.add_argument("--jobs", type=int, default=1, help="parallel workers for the simulated figures")
    fg.add_argument(
        "--configs", help="directory of the configs (default: the bundled ones, 'bdpsim configs')"
    )
    add_quiet_option(fg)
    fg.add_argument(
        "--data-dir", help="local dataset files for the utility figures (else downloaded and verified)"
    )
    _overwrite_option(fg)

    ut = sub.add_parser(
        "utility",
        help="utility of calibrated BDP mechanisms on real data (paper §7)",
        description="Fit the correlation model of a dataset (Pearson coefficients, or the "
        "transition matrix with gamma and omega), calibrate Laplace mechanisms "
        "that are eps-BDP by the general, Gaussian, Markov and Zhao bounds (and "
        "the eps-DP baseline), run each 'runs' times and report the empirical 95 % "
        "error quantile against the theory ln(20) b, MAPE and MSE. Each variant "
        "is saved as it finishes (OUT/units/): Ctrl-C keeps them and the same "
        "command resumes.",
        epilog="examples:\n  bdpsim utility utility_galton          (Galton's heights ship with bdpsim)\n"
        "  bdpsim utility utility_galton utility_familyiq utility_activity\n"
        "  bdpsim utility configs/utility_electricity.toml --data-dir ~/data/ampds\n"
        "datasets are downloaded from commit-pinned URLs and verified by sha256 "
        "(cache: $BDPSIM_CACHE_DIR); --data-dir or $BDPSIM_DATA_DIR uses local files.",
        formatter_class=_Formatter,
    )
    ut.add_argument(
        "config",
        nargs="+",
        help="TOML with a [utility] table (configs/utility_*.toml) or a bundled "
        "config's name; several run one after the other, and one whose data "
        "is missing is skipped (one line, exit code 2 at the end)",
    )
    ut.add_argument("--data-dir", help="directory holding the dataset files (verified by checksum)")
    ut.add_argument(
        "--out",
        help="output directory (default results/<config name>; with several configs OUT/<config name>)",
    )
    _overwrite_option(ut)
    from . import calibrate as cli_calibrate

    cli_calibrate.add_parser(sub, _Parser, _Formatter)
    from . import temporal as cli_temporal

    cli_temporal.add_parser(sub, _Parser, _Formatter)
    from . import attack as cli_attack  # the optimal attack

    cli_attack.add_parser(sub, _Parser, _Formatter)
    from . import account as cli_account  # the privacy accountant

    cli_account.add_parser(sub, _Parser, _Formatter)
    return p


def _config_path(a) -> Path:
    """``a.config`` as a file: the path itself, or the bundled config of that name (one line otherwise)."""
    from ..core.bundled import resolve_config

    return resolve_config(a.config)


def _cmd_run(a) -> int:
    from ..pipeline.config import load_config
    from ..pipeline.driver import run_experiment

    limits = _limits(a)
    path = _config_path(a)
    cfg = _quietly(load_config, path, limits)
    if a.jobs < 1:
        raise ConfigError("--jobs", a.jobs, "must be an integer >= 1")
    if a.scheduler and a.backend != "dask":
        raise ConfigError("--scheduler", a.scheduler, "needs --backend dask")
    if a.out is not None and not a.out.strip():
        raise ConfigError("--out", a.out, "must be a directory path, not empty")
    out = Path(a.out) if a.out is not None else Path("results") / path.stem
    _check_out(a, out)
    tty = sys.stderr.isatty()
    try:
        rows = run_experiment(
            cfg,
            out,
            jobs=a.jobs,
            backend=a.backend,
            scheduler=a.scheduler,
            progress=not a.quiet and tty,
            heartbeat=0.0 if a.quiet or tty else 10.0,
            force=a.force,
            limits=limits,
        )
    except KeyboardInterrupt:
        print(
            f"bdpsim: interrupted; finished configurations are saved in {out}; "
            "re-run the same command to resume",
            file=sys.stderr,
        )
        return 130
    from .table import MAX_ROWS, configurations, console_table, table_notes

    sampled = {p.id for p in cfg.points if not p.settings.exhaustive}
    print(f"{configurations(len(rows))} -> {out}/summary.csv")
    print("\n".join(console_table(rows, cfg.percentile_label, sampled)))
    if len(rows) > MAX_ROWS:
        print(f"... {len(rows) - MAX_ROWS} more rows in {out}/summary.csv")
    for note in table_notes(rows, sampled):
        print(note)
    return 0


def _cmd_validate(a) -> int:
    from ..pipeline.config import is_utility_config, load_config, load_toml

    path = _config_path(a)
    from ..pipeline.account_config import describe_account, is_account_config, load_account_config

    if is_account_config(load_toml(path)):
        print("\n".join(describe_account(load_account_config(path), str(path))))
        return 0
    if is_utility_config(load_toml(path)):
        from ..utility.experiment import describe_utility, load_utility

        print("\n".join(describe_utility(load_utility(path), str(path))))
        return 0
    from ..pipeline.cost import check_limits
    from ..pipeline.plan import describe

    limits = _limits(a)
    cfg = _quietly(load_config, path, limits)
    check_limits(cfg, limits)
    print("\n".join(describe(cfg)))
    return 0


def _quietly(fn, *args):
    """Call ``fn``; warnings it raises are shown only after it succeeded (never before an error)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    for w in caught:
        warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return result


def _cmd_plot(a) -> int:
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


def _theory(name: str):
    def command(a) -> int:
        from . import theory as cli_theory

        return getattr(cli_theory, f"command_{name}")(a)

    return command


COMMANDS = {
    "run": _cmd_run,
    "validate": _cmd_validate,
    "plot": _cmd_plot,
    "bounds": _theory("bounds"),
    "worst-case": _theory("worst_case"),
    "accuracy": cmd_accuracy,
    "figures": cmd_figures,
    "utility": cmd_utility,
    "configs": cmd_configs,
    "calibrate": lambda a: _calibrate(a),
    "temporal": lambda a: _temporal(a),
    "attack": lambda a: _attack(a),
    "account": lambda a: _account(a),
}


def _account(a) -> int:
    from . import account as cli_account

    return cli_account.command(a)


def _temporal(a) -> int:
    from . import temporal as cli_temporal

    return cli_temporal.command(a)


def _attack(a) -> int:
    from . import attack as cli_attack

    return cli_attack.command(a)


def _calibrate(a) -> int:
    from . import calibrate as cli_calibrate

    return cli_calibrate.command(a)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    try:
        return COMMANDS[a.command](a)
    except BdpsimError as exc:
        print(f"bdpsim: error: {exc}", file=sys.stderr)
        return 2
    except ParameterError as exc:  # a kernel's input error no config layer named: one line all the same
        print(f"bdpsim: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except OSError as exc:  # a full disk, a read-only or missing directory, a directory where a file goes
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"bdpsim: error: {where}{exc.strerror or exc} (cannot read or write it)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C before or between the commands' own handlers (loading, calibrating)
        print("bdpsim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
