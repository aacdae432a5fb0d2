"""``bdpsim`` command line: parses arguments and calls library functions.

One module per subcommand (``bdpsim/cli/<name>.py``: ``run``, ``validate``, ``plot``, ``configs``,
``bounds``, ``worst_case``, ``accuracy``, ``figures``, ``utility``, ``calibrate``, ``temporal``,
``attack``, ``account``), each with ``add_parser(sub)`` and the function that runs it
(:func:`bdpsim.cli.base.subcommand`); what they share is :mod:`bdpsim.cli.base` (the parser and
help layout, the shared options) and :mod:`bdpsim.cli.chain` (the Markov-chain flags).

Bad input (config or argument) prints one line ``bdpsim: error: FIELD = VALUE: RULE`` on stderr
and exits with code 2, without a traceback and without writing results; so does a warning that the
interpreter's filters make an error (``python -W error``, ``PYTHONWARNINGS=error``).
"""

from __future__ import annotations

import argparse
import sys

from ..core.errors import BdpsimError
from ..kernels.argcheck import ParameterError
from . import (
    account,
    accuracy,
    attack,
    bounds,
    calibrate,
    configs,
    figures,
    plot,
    run,
    temporal,
    utility,
    validate,
    worst_case,
)
from .base import Formatter, Parser
from .base import quietly as _quietly  # noqa: F401  (its former place)
from .figures import FIGURES_OUT  # noqa: F401  (its former place)
from .plot import PLOT_AXES  # noqa: F401  (its former place)

#: the subcommands, in the order ``bdpsim --help`` lists them
SUBCOMMANDS = (
    run,
    validate,
    plot,
    configs,
    bounds,
    worst_case,
    accuracy,
    figures,
    utility,
    calibrate,
    temporal,
    attack,
    account,
)

EPILOG = """\
start here:
  bdpsim run quickstart --out results/my-quickstart
  bdpsim plot results/my-quickstart
  bdpsim configs                (the bundled configs; --copy DIR copies them)
  bdpsim bounds markov --gamma 5 --epsilon 1 --n 10
  bdpsim figures --quick --jobs 2
each command has its own --help with examples; bad input exits with code 2 and one line.
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``bdpsim`` parser: every subcommand of :data:`SUBCOMMANDS`, each naming the function that
    runs it (``args.run``)."""
    from .. import __version__

    p = Parser(
        prog="bdpsim",
        description=(
            "Measure the Bayesian differential privacy leakage (BDPL) of DP mechanisms on correlated "
            "data: the thesis' Monte Carlo estimator, a Rao-Blackwellised mixture estimator, exact "
            "values where the model allows, and the theoretical bounds."
        ),
        epilog=EPILOG,
        formatter_class=Formatter,
    )
    p.add_argument("--version", action="version", version=f"bdpsim {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``bdpsim ARGV``; its exit code (2 and one line on bad input)."""
    a = build_parser().parse_args(argv)
    try:
        return a.run(a)
    except BdpsimError as exc:
        print(f"bdpsim: error: {exc}", file=sys.stderr)
        return 2
    except ParameterError as exc:  # a kernel's input error no config layer named: one line all the same
        print(f"bdpsim: error: {exc}", file=sys.stderr)
        return 2
    except Warning as exc:  # a warning the user's filters make an error (python -W error, PYTHONWARNINGS)
        text = " ".join(str(exc).splitlines())
        print(
            f"bdpsim: error: {text} (a {type(exc).__name__} made an error by -W or PYTHONWARNINGS)",
            file=sys.stderr,
        )
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
