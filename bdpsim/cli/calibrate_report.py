"""What ``bdpsim calibrate markov`` and ``calibrate config`` share: the law flags they both take,
the target's check, how a library error names its flag, and the verdict, query line and notes of
their tables and JSON."""

from __future__ import annotations

import textwrap

from .base import flag_error

#: a library field -> the command-line flag that sets it (``bdpsim calibrate markov`` and ``config``)
FLAGS = {
    "epsilon": "--epsilon",
    "delta": "--delta",
    "noise": "--noise",
    "counted_states": "--counted",
    "state_values": "--state-values",
    "values": "--state-values",
    "min_known": "--min-known",
    "staircase_gamma": "--staircase-gamma",
    "objective": "--objective",
    "target_advantage": "--target-advantage",
    "target_tpr": "--target-tpr",
    "at_fpr": "--at-fpr",
    "model.n": "--n",
    "model.transition": "--transition",
}


def named(err: BaseException):
    """``err`` as the one-line error naming the flag of its field (:data:`FLAGS`), or the field
    itself; ``None`` for any other exception."""
    return flag_error(err, FLAGS)


def add_law_arguments(parser) -> None:
    """``--staircase-gamma`` and ``--objective`` (the shape of staircase noise, what optimal noise
    minimises) on ``parser``: ``calibrate markov`` and ``calibrate config`` take them alike."""
    parser.add_argument(
        "--staircase-gamma",
        type=float,
        help="staircase noise: its gamma (default: gamma* = 1/(1 + e^(eps/2)) of the DP epsilon)",
    )
    parser.add_argument(
        "--objective",
        default="mean_abs",
        choices=["mean_abs", "variance"],
        help="--method optimal: minimise E|Z| (default) or E[Z^2]",
    )


def check_epsilon(epsilon: float, field: str, method: str, noise: str | None = None) -> None:
    """The one-line error for a target eps the calibration cannot take
    (:func:`bdpsim.calibration.target.check_target_epsilon`), naming ``field`` (the flag, or the
    config key it came from)."""
    from ..calibration.target import check_target_epsilon

    check_target_epsilon(epsilon, method, noise, field=field)


def is_bdp(c, epsilon: float, delta: float | None) -> bool | None:
    """Whether the mechanism a calibration prescribes meets its target by its exact value: BDPL
    <= eps (relative 1e-9), or for Gaussian noise delta(eps) <= --delta; ``None`` when that value
    was not computed (or the method gave no noise)."""
    if c.delta is not None and delta is not None:
        return bool(c.delta <= delta * (1 + 1e-9))
    if c.bdpl is None:
        return None
    return bool(c.bdpl <= epsilon * (1 + 1e-9))


def verdict(c, epsilon: float, delta: float | None) -> str:
    """The eps-BDP? column: what the JSON's ``is_bdp`` says (``yes``, ``NOT eps-BDP``, ``unknown``),
    and ``n/a`` for a row that prescribes no noise (a method that cannot reach eps)."""
    if c.scale is None and c.parameter is None and c.mean_abs is None and c.bdpl is None:
        return "n/a"
    return {True: "yes", False: "NOT eps-BDP", None: "unknown"}[is_bdp(c, epsilon, delta)]


def query_line(query, epsilon: float | None = None, epsilon_source: str = "flags") -> str:
    """``query: ...`` above a calibration table: the query calibrated, where it came from, and the
    target eps when it came from a config."""
    where = {"config": "from the config's [mechanism]", "flags": "from the flags", "default": "default"}
    text = f"query: {query.description} ({where[query.source]})"
    if epsilon is not None:
        text += f"; target eps = {epsilon:g} ({where[epsilon_source]})"
    return wrap(text)


def wrap(text: str) -> str:
    """A line of prose filled to 80 columns, its continuation indented."""
    return textwrap.fill(text, 80, subsequent_indent="    ", break_on_hyphens=False)


def note(text: str) -> str:
    """A row's reason below it, indented and filled to 80 columns."""
    return textwrap.fill(text, 80, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)


def mean_abs_cell(c) -> str:
    """E|Z| of a row's noise (``n/a`` when the method gives none)."""
    return "n/a" if c.mean_abs is None else f"{c.mean_abs:.6g}"


__all__ = [
    "FLAGS",
    "add_law_arguments",
    "check_epsilon",
    "is_bdp",
    "mean_abs_cell",
    "named",
    "note",
    "query_line",
    "verdict",
    "wrap",
]


def safe_amount(value: float, grows: bool = True, digits: int = 6) -> str:
    """A calibrated amount of noise printed to ``digits`` significant digits, rounded toward
    safety (:func:`bdpsim.attack.calibrate.safe_round`): up when the noise grows with it (a
    Laplace scale, a Gaussian sigma, an amount ``Delta / eps'``), down when it shrinks (a DP
    epsilon), so that the number a reader copies is never less noise than the one calibrated.
    Written like ``%g``."""
    from ..attack.calibrate import safe_round

    return f"{safe_round(value, grows, digits):.{digits}g}"
