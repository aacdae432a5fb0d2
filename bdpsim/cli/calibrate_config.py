"""``bdpsim calibrate config``: the optimal noise and the exact calibration for the data model of a
run config's ``[model]`` table (pedigrees, Bayesian networks, Markov random fields, Markov chains).

Argument parsing, printing and :func:`config_target` (what the config asks to calibrate: its
``[model]``, and the query, target and noise of its ``[mechanism]`` under the flags; here because
the calibration layer may not import the config layer, tests/architecture/test_layers.py) live here; the work
is :func:`bdpsim.calibration.graphs.calibrate_graph` for every model (through its exact engine).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from ..calibration.target import CalibrationTarget

import itertools
import json
import math

from ..kernels.noise.traits import law_names
from .attack_target import add_target_flags, calibrate_to_attack, check_target_flags
from .base import subcommand
from .calibrate_report import (
    FLAGS,
    add_law_arguments,
    check_epsilon,
    is_bdp,
    named,
    note,
    query_line,
    safe_amount,
    verdict,
    wrap,
)
from .chain import state_or_name

_PURE = ", ".join(law_names(calibratable=True, pure_dp=True))  # the laws method exact takes
EPILOG = f"""\
examples:
  bdpsim calibrate config configs/bayesnet_example.toml --epsilon 1 \\
      --method optimal
  bdpsim calibrate config configs/bayesnet_example.toml --epsilon 1 \\
      --method all --json
  bdpsim calibrate config family.toml --epsilon 0.5 --counted 2 \\
      --method optimal --json
  bdpsim calibrate config bayesnet_example --epsilon 1    # a bundled config
  bdpsim calibrate config bayesnet_example --target-advantage 0.2
  bdpsim calibrate config family.toml --target-tpr 0.05 --at-fpr 0.01

The data model is the config's [model] table (its [run] table is ignored):
kind = "pedigree" (the query counts genotypes 0 = BB, 1 = Bb, 2 = bb),
"bayesnet" (also bif = "net.bif"), "mrf" or "markov". A [model] that sweeps a
key (a list of values) is refused: calibrate one model at a time. family.toml:
  [model]
  kind = "pedigree"
  family = "nuclear"
  size = 4
  allele_b = 0.3

The query is the config's [mechanism] (counted_states or state_values of a
count, sum or calibrated kind; none: the count of state 1), its epsilon the
target and its noise ({_PURE}) the law; a flag overrides
each, and a note names the config value it replaced. Bundled configs are
taken by name (as for run). The table and the JSON name the query calibrated.

Methods: exact (default; the least amount of noise of the law --noise names whose exact BDPL
over every adversary is <= eps: column amount is the Laplace scale b, or Delta/eps' for geometric
and staircase noise of DP epsilon eps', column DP eps; so the DP adversary leaks Delta/amount for
every law and more amount is more noise), optimal
(not a fixed law: the integer noise of least E|Z|, or E[Z^2] with --objective variance, that is
eps-BDP over every adversary, by a linear program over the law pairs the exact engine scores, then
verified by that engine; JSON adds mean_abs, variance and noise = {{"offset", "pmf", "tail_ratio"}},
a noise_table for noise = "table"), all (optimal, then exact {_PURE}, and
on a Bayesian network the general Markov Quilt mechanism's Laplace noise for eps-Pufferfish).
Every row reports the exact BDPL of its noise over every adversary and its E|Z|.

Run time: networks and random fields are searched over every adversary by the separated-region
reduction (exhaustive where it does not prune); a search is estimated before it starts and a
method whose estimate exceeds ~2 minutes is refused (exit code 2, with the estimate; with --method
all its row says "not run: ..."). Pedigrees: an exhaustive search over adversary classes (small
families).
"""


def add_parser(cs) -> None:
    """Register ``calibrate config`` on the ``calibrate`` subparsers ``cs``."""
    c = subcommand(
        cs,
        "config",
        command,
        help="optimal or least noise for the [model] of a config (networks, pedigrees)",
        description="Calibrate the noise of a count (or integer state sum) on the data model of "
        "a run config's [model] table for eps-BDP over every adversary: the optimal "
        "integer noise, or the least noise of a law --noise names "
        f"({', '.join(law_names(calibratable=True, pure_dp=True))}).",
        epilog=EPILOG,
    )
    c.add_argument(
        "config",
        help="a TOML run config or a bundled config's name (as for run); its [model] is "
        "the data model, its [mechanism] the default query, target and noise",
    )
    c.add_argument("--epsilon", type=float, help="target BDPL (default: the config's mechanism.epsilon)")
    c.add_argument(
        "--method",
        default="exact",
        choices=["exact", "optimal", "all"],
        help="exact (default), optimal or all (see below)",
    )
    q = c.add_mutually_exclusive_group()
    q.add_argument(
        "--counted",
        type=state_or_name,
        nargs="*",
        metavar="S",
        help="counted states, indices or the model's state names (default: the config's "
        "counted_states, else 1)",
    )
    q.add_argument(
        "--state-values",
        type=float,
        nargs="+",
        metavar="V",
        help="query value per state, a sum query (default: the config's state_values)",
    )
    c.add_argument(
        "--noise",
        choices=law_names(calibratable=True, pure_dp=True),
        help="--method exact: the noise law calibrated (default: the config's noise, else laplace)",
    )
    add_law_arguments(c)
    c.add_argument(
        "--min-known",
        type=int,
        default=0,
        help="least size of the adversary's known set (0: all adversaries)",
    )
    c.add_argument("--json", action="store_true", help="print JSON (one object; a list for several rows)")
    add_target_flags(c)  # an attack target instead of eps: every model calibrated


def model_of(path: str):
    """The data model of the config file's ``[model]`` table (validated as a run config's)."""
    from ..core.bundled import resolve_config
    from ..pipeline.config import load_toml

    p = str(resolve_config(path))
    return model_of_raw(load_toml(p), p)


def model_of_raw(raw: dict, path: str):
    """The data model of a run config's ``[model]`` table (validated as a run config's); a
    ``[model]`` that sweeps a key is refused (one model at a time)."""
    from ..core.errors import ConfigError
    from ..pipeline.config import parse_config

    if not isinstance(raw.get("model"), dict):
        raise ConfigError("config", path, "needs a [model] table (the data model to calibrate on)")
    kind = raw["model"].get("kind")
    try:  # a count mechanism stands in: only the model is used
        cfg = parse_config({"model": raw["model"], "mechanism": {"kind": "count", "epsilon": 1.0}}, path)
    except ConfigError as exc:
        if exc.field.startswith("mechanism"):
            raise ConfigError(
                "model.kind",
                kind,
                "calibrate config needs a discrete model with an exact engine "
                "over every adversary: pedigree, bayesnet, mrf or markov",
            ) from None
        raise
    if len(cfg.points) != 1:
        raise ConfigError(
            "model",
            path,
            f"sweeps {len(cfg.points)} models: calibrate one at a time (give each [model] key one value)",
        )
    return cfg.points[0].model.fixed


def _config_query(raw: dict, path: str, model) -> tuple[Any, str | None]:
    """The query of the config's ``[mechanism]`` (validated against the model as ``bdpsim run``
    does), or ``(None, kind)`` when its mechanism is not an additive query (``kind``), or
    ``(None, None)`` without a ``[mechanism]``."""
    from ..calibration.target import CalibratedQuery, genotype_names, per_state_values, query_of
    from ..core.errors import check
    from ..mechanisms.base import MECHANISM_KINDS
    from ..pipeline.config import parse_config

    mech = raw.get("mechanism")
    if mech is None:
        return None, None
    check(isinstance(mech, dict), "mechanism", mech, "must be a table")
    kind = mech.get("kind", "count")
    keys = MECHANISM_KINDS[kind].keys if isinstance(kind, str) and kind in MECHANISM_KINDS else {}
    if mech.get("state_values") is not None and "state_values" in keys:  # a sum of state values
        stand_in = {"kind": "sum", "state_values": mech["state_values"], "epsilon": 1.0}
    elif "counted_states" in keys:  # a count (count and the calibrated kinds)
        stand_in = {"kind": "count", "counted_states": mech.get("counted_states", [1]), "epsilon": 1.0}
    else:  # not an additive query (clipped_sum, python, histogram, randomized_response, a sum without values)
        return None, str(kind)
    cfg = parse_config({"model": raw["model"], "mechanism": stand_in}, path)  # the config's errors, as run's
    check(
        len(cfg.points) == 1,
        "mechanism",
        path,
        f"sweeps {len(cfg.points)} queries: calibrate one at a time "
        "(give counted_states or state_values one value)",
    )
    if "state_values" in stand_in:
        return query_of(model.states, state_values=stand_in["state_values"], source="config"), str(kind)
    query = cast(Any, cfg.points[0].mechanism).query_function  # the run's reading of names (warned once)
    counted = genotype_names(query, model) or tuple(stand_in["counted_states"])  # the model's words
    return CalibratedQuery(per_state_values(query, model.states), counted, None, "config", query), str(kind)


def _epsilon_of(mech: dict | None) -> float | None:
    from ..core.errors import ConfigError, check

    eps = None if mech is None else mech.get("epsilon")
    if eps is None:
        return None
    if isinstance(eps, list):
        raise ConfigError(
            "mechanism.epsilon",
            eps,
            f"sweeps {len(eps)} targets: calibrate one at a time (give epsilon explicitly)",
        )
    check(
        isinstance(eps, (int, float)) and not isinstance(eps, bool) and math.isfinite(eps) and eps > 0,
        "mechanism.epsilon",
        eps,
        "must be a finite number > 0",
    )
    return float(eps)


def config_target(
    config: str,
    *,
    epsilon: float | None = None,
    counted_states=None,
    state_values=None,
    noise: str | None = None,
    staircase_gamma: float | None = None,
) -> CalibrationTarget:
    """What to calibrate for the run config ``config`` (a TOML file or a bundled config's name,
    :func:`bdpsim.core.bundled.resolve_config`): its ``[model]``, and the query, target ``epsilon`` and
    noise law of its ``[mechanism]`` unless given here (module docstring).

    Raises
    ------
    ConfigError
        The config is not one (``config``), its model is not calibratable (``model.kind``), it
        sweeps models or targets, its query is invalid for the model (``mechanism.counted_states``,
        ...), or it gives no target (``epsilon``) or no additive query (``mechanism.kind``) and
        neither is given here.
    """
    from ..calibration.target import CalibrationTarget, exact_laws, query_of, show
    from ..core.bundled import resolve_config
    from ..core.errors import ConfigError, check
    from ..pipeline.config import load_toml

    path = str(resolve_config(config))
    raw = load_toml(path)
    model = model_of_raw(raw, path)
    mech = raw.get("mechanism") if isinstance(raw.get("mechanism"), dict) else None
    own, kind = _config_query(raw, path, model)
    overrides: list[tuple[str, Any, Any]] = []
    notes: list[str] = []
    if counted_states is not None or state_values is not None:
        query = query_of(model.states, counted_states, state_values, source="flags", model=model)
        if own is None and kind is not None:
            overrides.append(("mechanism.kind", None, kind))
        elif own is not None and own.values != query.values:
            field = "counted_states" if counted_states is not None else "state_values"
            mine = "counted_states" if own.counted_states is not None else "state_values"
            overrides.append(
                (
                    field,
                    list(counted_states if counted_states is not None else state_values),
                    f"mechanism.{mine} = {show(list(getattr(own, mine)))}",
                )
            )
    elif own is not None:
        query = own
    elif kind is not None:
        raise ConfigError(
            "mechanism.kind",
            kind,
            "is not an additive query (a count of counted_states or a sum "
            "of state_values): give the query to calibrate as --counted or --state-values",
        )
    else:
        query = query_of(model.states, source="default", model=model)
    if epsilon is None:
        own_eps = _epsilon_of(mech)
        check(own_eps is not None, "epsilon", None, "is required: the config's [mechanism] gives no epsilon")
        eps, eps_source = float(own_eps), "config"  # type: ignore[arg-type]
    else:
        eps, eps_source = float(epsilon), "flags"
        raw_eps = (mech or {}).get("epsilon")
        if raw_eps is not None and raw_eps != eps:
            overrides.append(("epsilon", eps, f"mechanism.epsilon = {show(raw_eps)}"))
    own_noise = (mech or {}).get("noise") if own is not None else None
    own_gamma = (mech or {}).get("staircase_gamma") if own is not None else None
    if noise is None:
        if own_noise is None or own_noise in exact_laws():
            noise = own_noise or "laplace"
            staircase_gamma = own_gamma if staircase_gamma is None else staircase_gamma
        else:
            notes.append(
                f"the config's mechanism.noise = {own_noise!r} has no amount to calibrate: laplace "
                "noise calibrated"
            )
            noise = "laplace"
    elif own_noise is not None and own_noise != noise:
        overrides.append(("noise", noise, f"mechanism.noise = {show(own_noise)}"))
    return CalibrationTarget(
        model, query, eps, noise, staircase_gamma, eps_source, tuple(overrides), tuple(notes)
    )


def overrides(target) -> list[str]:
    """One ``note:`` line per explicit flag that replaced a different value of the config (named
    by its flag, :data:`~bdpsim.cli.calibrate_report.FLAGS`), and the target's own notes."""
    from ..calibration.target import show

    out = []
    for field, given, own in target.overrides:
        if field == "mechanism.kind":
            out.append(
                f"note: the config's mechanism (kind = {own!r}) is not an additive query: the query of "
                "the flags is calibrated"
            )
        else:
            out.append(f"note: {FLAGS.get(field, field)} {show(given)} overrides the config's {own}")
    return out + [f"note: {n}" for n in target.notes]


def _flags_target(a, epsilon: float | None):
    """:func:`config_target` of ``a.config`` under the flags, its errors naming them."""
    try:
        return config_target(
            a.config,
            epsilon=epsilon,
            counted_states=a.counted,
            state_values=a.state_values,
            noise=a.noise,
            staircase_gamma=a.staircase_gamma,
        )
    except ValueError as err:
        exc = named(err)
        if exc is None:
            raise
        raise exc from None


def _attack_target(a) -> int:
    """``calibrate config --target-advantage A`` (or ``--target-tpr B --at-fpr F``): the least noise
    of the config's law (or ``--noise``) on its query meeting the attack target, on its model
    (:func:`bdpsim.cli.attack_target.calibrate_to_attack`)."""
    import sys

    from ..calibration.methods import EXACT_METHOD
    from ..core.errors import ConfigError

    check_target_flags(a)
    if a.method != EXACT_METHOD:
        raise ConfigError("--method", a.method, "must be exact with an attack target")
    t = _flags_target(a, 1.0)  # no eps-BDP target: the attack target replaces it
    if a.min_known > t.model.n - 1:
        raise ConfigError("--min-known", a.min_known, f"must be an integer in 0..{t.model.n - 1}")
    for line in overrides(t):
        if not line.startswith("note: --epsilon"):  # the eps-BDP target is not used here
            print(wrap(line), file=sys.stderr if a.json else sys.stdout)
    query = t.query.query  # as the run reads it (a network's state names included)
    return calibrate_to_attack(a, t.model, query, t.noise, tuple(range(a.min_known, t.model.n)))


def command(a) -> int:
    """Run ``bdpsim calibrate config``; one line per row (its verdict and its reason below it, as
    ``calibrate markov``'s) or JSON; with an attack target, the least noise meeting it
    (:func:`_attack_target`)."""
    from ..core.errors import ConfigError

    if a.min_known < 0:
        raise ConfigError("--min-known", a.min_known, "must be an integer >= 0")
    if a.target_advantage is not None or a.target_tpr is not None or a.at_fpr is not None:
        return _attack_target(a)
    return _bdp_target(a)


def _bdp_target(a) -> int:
    """``calibrate config`` to an eps-BDP target (:func:`command`)."""
    import sys

    from ..calibration.budget import CLI_BUDGET, Budget
    from ..calibration.graphs import calibrate_graph
    from .progress import Progress

    t = _flags_target(a, a.epsilon)
    check_epsilon(
        t.epsilon, "--epsilon" if t.epsilon_source == "flags" else "mechanism.epsilon", a.method, t.noise
    )
    model, eps, values = t.model, t.epsilon, list(t.query.values)
    bar = Progress("bdpsim calibrate", "LP rounds")
    rounds = itertools.count(1)
    try:  # every model through its exact engine; one budget of estimates for every row
        out = calibrate_graph(
            model,
            eps,
            values,
            method=a.method,
            noise=t.noise,
            objective=a.objective,
            min_known=a.min_known,
            staircase_gamma=t.staircase_gamma,
            budget=Budget(CLI_BUDGET),
            progress=lambda *_: bar(next(rounds), None),
            query=t.query.record_query,
        )
    except (ValueError, OverflowError, MemoryError) as err:
        exc = named(err) if isinstance(err, ValueError) else None
        if exc is None:
            raise
        raise exc from None
    finally:
        bar.close()
    notes = overrides(t)
    if a.json:
        for line in notes:
            print(line, file=sys.stderr)
        rows = [{**c.as_dict(), "query": t.query.as_dict(), "is_bdp": is_bdp(c, eps, None)} for c in out]
        print(json.dumps(rows[0] if len(rows) == 1 else rows))
        return 0
    for line in notes:
        print(wrap(line))
    print(query_line(t.query, eps, t.epsilon_source))
    # amount: the Laplace scale, or Delta / (DP eps) of geometric and staircase noise (see --help)
    delta = max(t.query.values) - min(t.query.values)
    print(
        f"{'method':<20} {'noise':>9} {'amount':>8} {'DP eps':>7} {'E|Z|':>8} {'BDPL (nats)':>11}  eps-BDP?"
    )
    for c in out:
        amount = "n/a" if c.scale is None else safe_amount(c.scale, digits=5)  # rounded up: more noise
        dp = "" if c.parameter is None or c.scale is None else safe_amount(delta / c.scale, False, 4)
        bdpl = "n/a" if c.bdpl is None else f"{c.bdpl:.6g}"
        mabs = "n/a" if c.mean_abs is None else f"{c.mean_abs:.5g}"
        print(
            f"{c.method[:20]:<20} {c.noise[:9]:>9} {amount:>8} {dp:>7} {mabs:>8} {bdpl:>11}  "
            f"{verdict(c, eps, None)}"
        )
        print(note(c.reason))
    return 0
