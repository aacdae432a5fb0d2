"""Calibration to an attack target on the command line (``bdpsim calibrate markov`` and
``bdpsim calibrate config`` with ``--target-advantage`` or ``--target-tpr --at-fpr``): the flags,
their checks and the report; the work is :func:`bdpsim.attack.calibrate.calibrate_attack`."""

from __future__ import annotations

import json

from .base import finite_json
from .chain import chain_model, chain_query, check_chain_flags


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
    try:
        return calibrate_to_attack(a, model, query, a.noise, tuple(range(a.min_known, a.n)))
    except ConfigError as exc:
        if exc.field == "model.n":  # the chain's length is the flag --n here
            raise ConfigError("--n", exc.value, exc.rule) from None
        raise


def check_target_flags(a) -> None:
    """Flags that mean nothing beside an attack target are refused, naming them (``--epsilon`` is
    the eps-BDP target the attack target replaces; ``--at-fpr`` needs ``--target-tpr``)."""
    from ..core.errors import ConfigError

    target = a.target_advantage is not None or a.target_tpr is not None
    if a.at_fpr is not None and a.target_tpr is None:
        raise ConfigError("--at-fpr", a.at_fpr, "is the FPR of --target-tpr: give --target-tpr too")
    if a.target_tpr is not None and a.at_fpr is None:
        raise ConfigError(
            "--target-tpr", a.target_tpr, "needs --at-fpr F: the false-positive rate it is the TPR at"
        )
    b, f = a.target_tpr, a.at_fpr
    if b is not None and f is not None and 0.0 < f < 1.0 and 0.0 < b < 1.0 and b <= f:
        raise ConfigError(
            "--target-tpr",
            b,
            f"must exceed --at-fpr = {f:g} (TPR = FPR is the trivial attack, met by any noise)",
        )
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
    from ..attack.calibrate import EXACT, calibrate_attack
    from ..calibration.budget import CLI_BUDGET, Budget
    from ..kernels.noise.laws import noise_with_amount
    from ..mechanisms.noisy import NoisyQueryMechanism
    from .calibrate_report import named
    from .progress import Progress

    check_target_flags(a)
    try:
        sens = float(query.sensitivity)  # the search starts where the DP adversary leaks 1
        noise = noise_with_amount(noise_name, sens, sens)
        with Progress("bdpsim calibrate", "amounts of noise tried", quiet=getattr(a, "quiet", False)) as bar:
            cal = calibrate_attack(
                model,
                NoisyQueryMechanism(query, noise),
                target_advantage=a.target_advantage,
                target_tpr=a.target_tpr,
                at_fpr=a.at_fpr,
                sizes=sizes,
                progress=bar,
                budget=Budget(CLI_BUDGET),  # as the eps calibration: refused up front past it
            )
    except ValueError as err:
        raise (named(err) or err) from None
    if a.json:
        print(json.dumps(finite_json(cal.as_dict())))
        return 0
    print(f"attack target: worst {cal.what} <= {cal.target:g}")
    bound = "" if cal.kind == EXACT else "<= "
    print(
        f"least {cal.noise} {cal.parameter_name}: {cal.parameter:.6g} (rounded toward more noise; "
        f"worst {cal.what} {bound}{cal.value:.6g}, {cal.kind})"
    )
    if cal.note is not None:
        print(f"note: {cal.note}")
    if cal.bdp_parameter is None:
        print(f"eps-BDP comparison: eps = {cal.epsilon:.6g}; no {cal.noise} noise is eps-BDP")
    else:
        print(
            f"eps-BDP comparison: eps = {cal.epsilon:.6g} needs {cal.parameter_name} "
            f"{cal.bdp_parameter:.6g} (the attack target saves a factor {cal.saving:.4g})"
        )
    return 0


__all__ = ["add_target_flags", "check_target_flags", "calibrate_to_attack", "command_calibrate"]
