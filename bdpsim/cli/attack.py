"""``bdpsim attack``: what the leakage means to an attacker — the largest advantage and the worst
TPR at low FPR over every adversary, exact, beside the pure-eps reading of the BDPL.

Only argument parsing and printing live here; the work is :func:`bdpsim.attack.attack_risk`.
"""

from __future__ import annotations

import argparse
import json

from .attack_report import add_fpr_argument, add_report_arguments, finite_json, report
from .chain import (
    add_chain_arguments,
    add_initial_argument,
    add_query_arguments,
    chain_model,
    chain_query,
    check_chain_flags,
)

EPILOG = """\
examples:
  bdpsim attack markov --transition "[[0.882,0.118],[0.305,0.695]]" \\
      --n 288 --epsilon 1
  bdpsim attack markov --gamma 3 --n 50 --noise gaussian --sigma 2 --json
  bdpsim attack markov --transition "[[0.9,0.1],[0.3,0.7]]" --n 20 \\
      --epsilon 1 --fpr 0.001 0.05

What it prints: the exact BDPL over every adversary (bdpl_max); the adversary
(i, K, x_K, x, x') of largest advantage over every adversary (|K| >=
--min-known), "the worst adversary", with its own BDPL and its advantage
max(TPR - FPR) = TV(P, Q) of the optimal (likelihood-ratio) test between the
two output laws P (X_i = x) and Q (X_i = x'); and the largest TPR at each
--fpr over every adversary, each with the adversary attaining it; beside them
what the pure eps-DP curve of bdpl_max allows (advantage tanh(BDPL/2), TPR
min(1, e^BDPL FPR)). A TPR is exact when certified (the attained value meets
the bound of the privacy profile for every adversary); else both the attained
value and the bound are shown. Records are counted from 0 (--min-known, i).
"""


def add_parser(sub, parser_class, formatter_class=argparse.RawDescriptionHelpFormatter) -> None:
    """Register ``attack markov`` on the top-level subparsers ``sub``."""
    c = sub.add_parser(
        "attack",
        help="the optimal attack: advantage and TPR at low FPR, exact",
        description="What the leakage means to an attacker: the optimal test's advantage "
        "and true-positive rate at low false-positive rates, exact, for the "
        "worst adversary.",
        epilog=EPILOG,
        formatter_class=formatter_class,
    )
    cs = c.add_subparsers(dest="model_kind", required=True, parser_class=parser_class, metavar="MODEL")
    m = cs.add_parser(
        "markov",
        help="a count (or state sum) plus noise on a Markov chain",
        description="The worst adversary's optimal attack on a count (or sum of per-state "
        "values) plus noise over a Markov chain of n records.",
        epilog=EPILOG,
        formatter_class=formatter_class,
    )
    add_chain_arguments(m)
    add_initial_argument(m)
    m.add_argument(
        "--noise",
        default="laplace",
        choices=["laplace", "geometric", "staircase", "gaussian"],
        help="noise law (default laplace)",
    )
    m.add_argument(
        "--epsilon",
        type=float,
        help="DP epsilon of the noise (laplace: scale = sensitivity/eps; not gaussian: --sigma)",
    )
    m.add_argument("--scale", type=float, help="laplace noise: its scale (instead of --epsilon)")
    m.add_argument("--sigma", type=float, help="gaussian noise: its standard deviation (no --epsilon)")
    add_query_arguments(m)
    add_fpr_argument(m)
    m.add_argument(
        "--min-known", type=int, default=0, help="least size of the adversary's known set (default 0)"
    )
    add_report_arguments(m)
    from .attack_config import add_parser as add_config_parser

    add_config_parser(cs, formatter_class)


def _flag(err: ValueError):
    """A library error as the one-line error naming this command's flag."""
    from ..core.errors import ConfigError, field_error

    exc = field_error(err)
    if exc is None:
        return None
    flags = {
        "epsilon": "--epsilon",
        "scale": "--scale",
        "sigma": "--sigma",
        "fpr": "--fpr",
        "counted_states": "--counted",
        "state_values": "--state-values",
        "values": "--state-values",
        "run.known_sizes": "--min-known",
    }
    name = flags.get(exc.field, flags.get(exc.field.split(".")[-1]))
    return ConfigError(name, exc.value, exc.rule) if name else exc


def command(a) -> int:
    """Run ``bdpsim attack markov``: a table, or one JSON object (``--json``)."""
    from ..attack import attack_risk
    from ..attack.tradeoff import check_fpr
    from ..core.errors import ConfigError
    from ..kernels.noise.laws import noise_from_params
    from ..mechanisms.noisy import NoisyQueryMechanism
    from .attack_report import check_plot_path, plot, search_progress

    if a.model_kind == "config":
        from .attack_config import command as config_command

        return config_command(a)
    check_fpr("--fpr", a.fpr)
    check_plot_path(a.plot)
    check_chain_flags(a)
    if a.noise == "gaussian" and a.epsilon is not None:
        raise ConfigError(
            "--epsilon",
            a.epsilon,
            "gaussian noise is not eps-DP for any eps: give its standard deviation --sigma",
        )
    if not 0 <= a.min_known <= a.n - 1:
        raise ConfigError("--min-known", a.min_known, f"must be an integer in 0..{a.n - 1}")
    model = chain_model(a)
    try:
        query = chain_query(a, model.states)
        # each law reads (and checks) the parameters it takes; an error names the parameter
        noise = noise_from_params(
            a.noise, epsilon=a.epsilon, sensitivity=float(query.sensitivity), scale=a.scale, sigma=a.sigma
        )
        mech = NoisyQueryMechanism(query, noise)
        sizes = tuple(range(a.min_known, a.n))
        with search_progress(a.quiet) as bar:
            risk = attack_risk(model, mech, sizes=sizes, fpr=a.fpr, bdpl=True, progress=bar)
            rows = list(zip(a.fpr, risk.worst_tprs(a.fpr)))
    except ValueError as err:
        named = _flag(err)
        if named is None:
            raise
        raise named from None
    if a.plot:
        eps = (
            f", eps = {mech.epsilon:.4g}"
            if mech.epsilon is not None
            else f", {noise.parameter_name} = {noise.parameter:.4g}"
        )
        plot(a, risk, f"Markov chain, n = {a.n}, {noise.name} noise{eps}")
    return report(a, model, mech, risk, rows)


def add_target_flags(m) -> None:
    """``--target-advantage`` / ``--target-tpr`` with ``--at-fpr`` on ``bdpsim calibrate markov``."""
    t = m.add_mutually_exclusive_group()
    t.add_argument(
        "--target-advantage",
        type=float,
        metavar="A",
        help="instead of --epsilon: the least noise whose worst attack advantage is <= this (0..1)",
    )
    t.add_argument(
        "--target-tpr",
        type=float,
        metavar="B",
        help="instead of --epsilon: the least noise whose worst TPR at --at-fpr is <= this",
    )
    m.add_argument(
        "--at-fpr", type=float, metavar="F", help="the false-positive rate of --target-tpr, in (0, 1)"
    )


def command_calibrate(a) -> int:
    """``bdpsim calibrate markov --target-advantage A`` (or ``--target-tpr B --at-fpr F``): the least
    noise meeting the attack target, beside the eps-BDP noise for the eps whose pure curve meets it."""
    from ..calibration.methods import EXACT_METHOD
    from ..core.errors import ConfigError

    check_chain_flags(a)
    if a.method != EXACT_METHOD:
        raise ConfigError("--method", a.method, "must be exact with an attack target")
    model = chain_model(a)
    query = chain_query(a, model.states)
    return calibrate_to_attack(a, model, query, a.noise, tuple(range(a.min_known, a.n)))


def check_target_flags(a) -> None:
    """Flags that mean nothing beside an attack target are refused, naming them (``--epsilon`` is
    the eps-BDP target the attack target replaces; ``--at-fpr`` needs ``--target-tpr``)."""
    from ..core.errors import ConfigError

    target = a.target_advantage is not None or a.target_tpr is not None
    if a.at_fpr is not None and a.target_tpr is None:
        raise ConfigError("--at-fpr", a.at_fpr, "is the FPR of --target-tpr: give --target-tpr too")
    if target and getattr(a, "epsilon", None) is not None:
        raise ConfigError(
            "--epsilon",
            a.epsilon,
            "is an eps-BDP target: give it or an attack target (--target-advantage, --target-tpr), not both",
        )
    for flag, name in (("delta", "--delta"), ("staircase_gamma", "--staircase-gamma")):
        if target and getattr(a, flag, None) is not None:
            raise ConfigError(
                name,
                getattr(a, flag),
                "has no use with an attack target (the noise law's amount is searched)",
            )


def calibrate_to_attack(a, model, query, noise_name: str, sizes) -> int:
    """The least noise of the law ``noise_name`` on ``query + noise`` over ``model`` meeting the
    attack target of the flags (:func:`bdpsim.attack.calibrate.calibrate_attack`, with progress on
    stderr); printed, or one JSON object with ``--json``."""
    from ..attack.calibrate import calibrate_attack
    from ..core.errors import ConfigError
    from ..kernels.noise.laws import noise_from_params
    from ..mechanisms.noisy import NoisyQueryMechanism
    from .progress import Progress

    flags = {
        "target_advantage": "--target-advantage",
        "target_tpr": "--target-tpr",
        "at_fpr": "--at-fpr",
        "noise": "--noise",
    }
    check_target_flags(a)
    try:
        start = {
            "laplace": dict(scale=float(query.sensitivity)),
            "gaussian": dict(sigma=float(query.sensitivity)),
            "geometric": dict(epsilon=1.0),
            "staircase": dict(epsilon=1.0),
        }.get(noise_name, {})
        noise = noise_from_params(noise_name, sensitivity=float(query.sensitivity), **start)
        with Progress("bdpsim calibrate", "amounts of noise tried", quiet=getattr(a, "quiet", False)) as bar:
            cal = calibrate_attack(
                model,
                NoisyQueryMechanism(query, noise),
                target_advantage=a.target_advantage,
                target_tpr=a.target_tpr,
                at_fpr=a.at_fpr,
                sizes=sizes,
                progress=bar,
            )
    except ConfigError as exc:
        if exc.field in flags:
            raise ConfigError(flags[exc.field], exc.value, exc.rule) from None
        raise
    if a.json:
        print(json.dumps(finite_json(cal.as_dict())))
        return 0
    print(f"attack target: worst {cal.what} <= {cal.target:g}")
    print(
        f"least {cal.noise} {cal.parameter_name}: {cal.parameter:.6g} (rounded toward more noise; "
        f"worst {cal.what} {cal.value:.6g})"
    )
    if cal.bdp_parameter is None:
        print(f"eps-BDP comparison: eps = {cal.epsilon:.6g}; no {cal.noise} noise is eps-BDP")
    else:
        print(
            f"eps-BDP comparison: eps = {cal.epsilon:.6g} needs {cal.parameter_name} "
            f"{cal.bdp_parameter:.6g} (the attack target saves a factor {cal.saving:.4g})"
        )
    return 0


__all__ = ["add_parser", "command", "EPILOG", "add_target_flags", "command_calibrate", "calibrate_to_attack"]
