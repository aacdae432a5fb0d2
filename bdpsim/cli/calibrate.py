"""``bdpsim calibrate``: the noise each method prescribes for eps-BDP on a data model, with the exact
BDPL of what it prescribes; ``calibrate markov`` on a chain of the flags (here), ``calibrate
config`` on the ``[model]`` of a run config (:mod:`bdpsim.cli.calibrate_config`).

Only argument parsing and printing live here; the work is :func:`bdpsim.calibration.calibrate`
(and :func:`bdpsim.attack.calibrate.calibrate_attack` for an attack target).
"""

from __future__ import annotations

import json
import sys

from ..kernels.noise.traits import DEFAULT_LAW, TRAITS, law_names
from .attack_target import add_target_flags, command_calibrate
from .base import subcommand, subcommands
from .calibrate_report import (
    add_law_arguments,
    check_epsilon,
    is_bdp,
    mean_abs_cell,
    named,
    note,
    query_line,
    safe_amount,
    verdict,
)
from .chain import (
    add_chain_arguments,
    add_initial_argument,
    add_query_arguments,
    chain_model,
    check_chain_flags,
)

EPILOG = f"""\
examples:
  bdpsim calibrate markov --transition "[[0.882,0.118],[0.305,0.695]]" \\
      --n 288 --epsilon 1
  bdpsim calibrate markov --transition "[[0.882,0.118],[0.305,0.695]]" \\
      --n 17568 --epsilon 1 --json
  bdpsim calibrate markov --gamma 10 --n 100 --epsilon 2 --method all
  bdpsim calibrate markov \\
      --transition "[[0.5,0.3,0.2],[0.2,0.6,0.2],[0.1,0.2,0.7]]" --n 50 \\
      --state-values 0 1 3 --epsilon 1 --method markov
  bdpsim calibrate markov --transition "[[0.75,0.25],[0.25,0.75]]" --n 100 \\
      --epsilon 1 --method markov-quilt-exact --json
  bdpsim calibrate config configs/bayesnet_example.toml --epsilon 1 \\
      --method optimal      # networks, pedigrees: see calibrate config --help

Methods: exact (the smallest scale whose exact BDPL over all adversaries is <= eps, by a bracketing
search to relative 1e-9), general (n Delta/eps), markov (Delta/(eps - 4 ln gamma)), zhao
(Delta/(eps - 6 ln omega)), markov-quilt-approx and markov-quilt-exact (Delta sigma, the Markov
Quilt mechanism's scale for eps-Pufferfish privacy as the authors' MATLAB code computes it),
wasserstein (W/eps, W the largest infinity-Wasserstein distance between the query's laws given
two values of one record; n <= ~2000), group (group DP with the whole chain as the group,
n Delta/eps: the same scale as general), dp (Delta/eps, the DP baseline: flagged NOT eps-BDP),
gaussian (the Gaussian bound of the utility experiment: not applicable to a
chain), optimal (not Laplace: the integer noise of least E|Z|,
or E[Z^2] with --objective variance, that is eps-BDP, by a linear program; JSON adds mean_abs,
variance and noise = {{"offset", "pmf", "tail_ratio"}}, a noise_table for noise = "table"; minutes
for n in the hundreds) and any registered mechanism calibration; 'all' prints every one, with the
E|Z| of each noise, and (for Laplace) the exact calibration of the other pure laws
({", ".join(n for n in law_names(calibratable=True, pure_dp=True) if n != DEFAULT_LAW)}) too.
For every method the exact BDPL of the mechanism it prescribes is computed by the window
reduction, so a method whose noise is not eps-BDP is flagged (column eps-BDP?: yes, NOT eps-BDP,
unknown; JSON key is_bdp: true, false, null). A method that cannot reach
eps says why, with scale = null (exit code 0). The first line names the query
calibrated (default: the count of state 1); JSON key query.

Targets: every method takes 0 < eps <= 700 (e^eps overflows past ~709), optimal
0.01 <= eps <= 90, staircase noise eps >= 1e-4; others are refused in one line.

Run time: the exact search does not grow with n (seconds for a 2-state chain of 10^7 records) but
grows like states^4 (window length)^3; MQMExact is linear in n and states^2. Each is estimated
before it starts: one whose estimate exceeds ~2 minutes is refused (exit code 2, with the
estimate and the field to change; with --method all its row says "not run: ..." and the other
methods run), and an exact BDPL that would take longer is left out (bdpl = null).
"""


#: ``--method`` choices (bdpsim.calibration.CALIBRATION_METHODS; kept equal by a test: building the
#: parser imports no NumPy)
CALIBRATION_METHODS = (
    "exact",
    "dp",
    "general",
    "gaussian",
    "markov",
    "zhao",
    "markov-quilt-approx",
    "markov-quilt-exact",
    "wasserstein",
    "group",
    "optimal",
)


def add_parser(sub) -> None:
    """Register ``bdpsim calibrate`` (``markov``, ``config``) on the top-level subparsers ``sub``."""
    from . import calibrate_config

    c = subcommand(
        sub,
        "calibrate",
        command,
        help="noise for eps-BDP per method, with each one's exact BDPL",
        description="Calibrate the noise of a mechanism (Laplace, or the law --noise "
        "names) for eps-BDP on a data model and report the exact BDPL (over "
        "all adversaries) of what each method prescribes.",
        epilog=EPILOG,
    )
    cs = subcommands(c, "model_kind", "MODEL")
    m = subcommand(
        cs,
        "markov",
        command,
        help="an additive query (count or state sum) on a Markov chain",
        description="Calibrate the noise of a count (or sum of per-state values) on a "
        "Markov chain of n records: Laplace noise, or the law --noise names.",
        epilog=EPILOG,
    )
    add_chain_arguments(m)
    m.add_argument(
        "--epsilon", type=float, help="target BDPL (required unless --target-advantage or --target-tpr)"
    )
    add_initial_argument(m)
    add_query_arguments(m)
    m.add_argument(
        "--method",
        default="exact",
        choices=sorted(CALIBRATION_METHODS) + ["all"],
        metavar="METHOD",
        help="calibration method: "
        + ", ".join(sorted(CALIBRATION_METHODS))
        + " (default exact; 'all' for every method)",
    )
    m.add_argument(
        "--min-known",
        type=int,
        default=0,
        help="least size of the adversary's known set (0: all adversaries; 1: the thesis' sampler)",
    )
    m.add_argument(
        "--noise",
        default=DEFAULT_LAW,
        choices=law_names(calibratable=True),  # not a table: one fixed law
        help="noise law (default laplace); another law is calibrated by the exact method: the least "
        "noise that is eps-BDP (gaussian: the least sigma with delta(eps) <= --delta)",
    )
    m.add_argument(
        "--delta", type=float, help="gaussian noise: the target delta of the privacy profile at eps"
    )
    add_law_arguments(m)
    m.add_argument("--json", action="store_true", help="print JSON (one object; a list with --method all)")
    add_target_flags(m)  # calibrate to an attack target instead of eps
    calibrate_config.add_parser(cs)


def command(a) -> int:
    """Run ``bdpsim calibrate markov``: one line per method or JSON (to an attack target:
    :func:`bdpsim.cli.attack_target.command_calibrate`)."""
    from ..calibration import supported_methods
    from ..calibration.methods import EXACT_METHOD
    from ..calibration.target import query_of
    from ..core.errors import ConfigError

    if a.target_advantage is not None or a.target_tpr is not None or a.at_fpr is not None:
        return command_calibrate(a)
    check_chain_flags(a)
    if a.epsilon is None:
        raise ConfigError("--epsilon", None, "is required (or give --target-advantage or --target-tpr)")
    check_epsilon(a.epsilon, "--epsilon", a.method, a.noise)
    model = chain_model(a)
    try:
        query = query_of(model.states, a.counted, a.state_values, model=model)
    except ValueError as err:
        raise (named(err) or err) from None
    # 'all': every registered method defined on a chain (the Gaussian bound is not: it is left out)
    methods = (
        sorted(supported_methods(model), key=lambda k: (k != EXACT_METHOD, k))
        if a.method == "all"
        else [a.method]
    )
    runs = [(k, a.noise) for k in methods]
    if a.method == "all" and a.noise == DEFAULT_LAW:  # the other pure laws' least amounts (E|Z|)
        runs += [(EXACT_METHOD, k) for k in law_names(calibratable=True, pure_dp=True) if k != a.noise]
    out = _run_calibrations(model, query, methods, runs, a)
    text = _chain_note(model, a.initial is None)
    if text and a.json:
        print(text, file=sys.stderr)
    if a.json:  # is_bdp: whether the prescribed mechanism meets the target (null: not computed)
        rows = [
            {**c.as_dict(), "query": query.as_dict(), "is_bdp": is_bdp(c, a.epsilon, a.delta)} for c in out
        ]
        print(json.dumps(rows[0] if len(rows) == 1 else rows))
        return 0
    if text:
        print(text)
    print(query_line(query))
    _print_table(out, a)
    return 0


def _run_calibrations(model, query, methods: list, runs: list, a) -> list:
    """One calibration per ``(method, noise law)`` of ``runs`` within one
    :class:`~bdpsim.calibration.budget.Budget` of ``CLI_BUDGET`` estimated seconds, charged with
    the estimates of the steps that ran, not their time (a method that would not fit: a "not run"
    row, unless it is the only one asked for); a kernel's ``ValueError``
    re-raised as the ``ConfigError`` of its flag."""
    from ..calibration import Calibration, calibrate
    from ..calibration.budget import CLI_BUDGET, Budget, TooSlow
    from .progress import Progress

    out: list = []
    budget = Budget(CLI_BUDGET)  # charged with the estimates of what runs: the same table on any machine
    bar = Progress("bdpsim calibrate", "window searches")
    try:
        for k, law in runs:  # the estimated cost of every method fits in what is left of CLI_BUDGET
            try:
                out.append(
                    calibrate(
                        model,
                        a.epsilon,
                        state_values=list(query.values),
                        method=k,
                        min_known=a.min_known,
                        noise=law,
                        delta=a.delta,
                        staircase_gamma=a.staircase_gamma,
                        budget=budget,
                        objective=a.objective,
                        progress=bar,
                    )
                )
            except TooSlow as exc:
                if len(methods) == 1:
                    raise
                out.append(Calibration(k, float(a.epsilon), a.n, None, None, f"not run: {exc.rule}", law))
    except ValueError as err:
        flagged = named(err)  # a kernel's error (counted_states, staircase_gamma, ...) naming its flag
        if flagged is None:
            raise
        raise flagged from None
    finally:
        bar.close()
    return out


def _print_table(out: list, a) -> None:
    """The text answer of ``bdpsim calibrate markov``: one line per calibration ``out`` (its noise's
    parameter, ``E|Z|``, exact BDPL and whether it meets the target), its note below."""
    # one line per method, whether it meets the target in its own column, its note below (80 columns)
    if out[0].parameter is not None:  # another noise law: its own parameter, and delta for gaussian
        what = TRAITS[out[0].noise].amount  # sigma (gaussian), epsilon (geometric, staircase)
        dcol = any(c.delta is not None for c in out)
        print(
            f"{'method':<16} {'noise':>9} {what:>9} {'E|Z|':>9} {'BDPL (nats)':>11}"
            + (f" {'delta(eps)':>10}" if dcol else "")
            + "  eps-BDP?"
        )
        for c in out:
            par = "n/a" if c.parameter is None else safe_amount(c.parameter, TRAITS[c.noise].grows)
            bdpl = "n/a" if c.bdpl is None else f"{c.bdpl:.6g}"
            dl = "" if c.delta is None else f"{c.delta:.6g}"
            print(
                f"{c.method[:16]:<16} {c.noise[:9]:>9} {par:>9} {mean_abs_cell(c):>9} {bdpl:>11}"
                + (f" {dl:>10}" if dcol else "")
                + f"  {verdict(c, a.epsilon, a.delta)}"
            )
            print(note(c.reason))
        return
    print(f"{'method':<26} {'scale':>10} {'E|Z|':>9} {'BDPL (nats)':>11}  eps-BDP?")
    for c in out:
        scale = "n/a" if c.scale is None or c.noise != a.noise else safe_amount(c.scale)  # the Laplace scale
        bdpl = "n/a" if c.bdpl is None else f"{c.bdpl:.6g}"
        mine = c.noise == a.noise or not TRAITS[c.noise].calibratable  # a method's own law (optimal: a table)
        name = c.method if mine else f"{c.method} ({c.noise})"
        print(
            f"{name[:26]:<26} {scale:>10} {mean_abs_cell(c):>9} {bdpl:>11}  {verdict(c, a.epsilon, a.delta)}"
        )
        print(note(c.reason))


def _chain_note(model, stationary_default: bool) -> str | None:
    """One line saying what is unusual about the chain (reducible) and what follows for the
    bounds and the initial law; ``None`` for an irreducible chain."""
    from ..kernels.chains.transition import chain_structure

    what = chain_structure(model.transition)
    if what is None:
        return None
    law = ", ".join(f"{w:.4g}" for w in model.initial)
    start = (
        f"; initial law [{law}] is one of several stationary laws (set --initial)"
        if stationary_default
        else f"; initial law [{law}]"
    )
    return (
        f"note: the chain is {what}: the Markov and Zhao bounds do not apply (they need every P > 0){start}"
    )
