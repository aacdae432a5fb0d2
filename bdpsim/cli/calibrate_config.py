"""``bdpsim calibrate config``: the optimal noise and the exact calibration for the data model of a
run config's ``[model]`` table (pedigrees, Bayesian networks, Markov random fields, Markov chains).

Only argument parsing and printing live here; the work is
:func:`bdpsim.calibration.graphs.calibrate_graph` (and :func:`bdpsim.calibration.calibrate` for a
Markov chain).
"""

from __future__ import annotations

import itertools
import json
import time

EPILOG = """\
examples:
  bdpsim calibrate config configs/bayesnet_example.toml --epsilon 1 \\
      --method optimal
  bdpsim calibrate config configs/bayesnet_example.toml --epsilon 1 \\
      --method all --json
  bdpsim calibrate config family.toml --epsilon 0.5 --counted 2 \\
      --method optimal --json
  bdpsim calibrate config bayesnet_example --epsilon 1    # a bundled config

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
target and its noise (laplace, geometric, staircase) the law; a flag overrides
each, and a note names the config value it replaced. Bundled configs are
taken by name (as for run). The table and the JSON name the query calibrated.

Methods: exact (default; the least amount of noise of the law --noise names whose exact BDPL
over every adversary is <= eps: column amount is the Laplace scale b, or Delta/eps' for geometric
and staircase noise of DP epsilon eps', column DP eps; so the DP adversary leaks Delta/amount for
every law and more amount is more noise), optimal
(not a fixed law: the integer noise of least E|Z|, or E[Z^2] with --objective variance, that is
eps-BDP over every adversary, by a linear program over the law pairs the exact engine scores, then
verified by that engine; JSON adds mean_abs, variance and noise = {"offset", "pmf", "tail_ratio"},
a noise_table for noise = "table"), all (optimal, then exact Laplace, geometric and staircase, and
on a Bayesian network the general Markov Quilt mechanism's Laplace noise for eps-Pufferfish).
Every row reports the exact BDPL of its noise over every adversary and its E|Z|.

Run time: networks and random fields are searched over every adversary by the separated-region
reduction (exhaustive where it does not prune); a search is estimated before it starts and a
method whose estimate exceeds ~2 minutes is refused (exit code 2, with the estimate; with --method
all its row says "not run: ..."). Pedigrees: an exhaustive search over adversary classes (small
families).
"""

#: a library field -> the command-line flag that sets it (``bdpsim calibrate markov`` and ``config``)
FLAGS = {"epsilon": "--epsilon", "delta": "--delta", "noise": "--noise", "counted_states": "--counted",
         "state_values": "--state-values", "values": "--state-values", "min_known": "--min-known",
         "staircase_gamma": "--staircase-gamma", "objective": "--objective"}


def flag_error(err: ValueError):
    """``err`` (a kernel's error or the library's :class:`~bdpsim.errors.ConfigError`) as the
    one-line error naming the flag of its field (:data:`FLAGS`), or the field itself; ``None`` for
    any other ``ValueError``."""
    from ..errors import ConfigError, field_error

    exc = field_error(err)
    if exc is None:
        return None
    flag = FLAGS.get(exc.field)
    return ConfigError(flag, exc.value, exc.rule) if flag else exc


def add_parser(cs, parser_class, formatter_class) -> None:
    """Register ``calibrate config`` on the ``calibrate`` subparsers ``cs``."""
    c = cs.add_parser("config", help="optimal or least noise for the [model] of a config (networks, pedigrees)",
                      description="Calibrate the noise of a count (or integer state sum) on the data model of "
                                  "a run config's [model] table for eps-BDP over every adversary: the optimal "
                                  "integer noise, or the least Laplace, geometric or staircase noise.",
                      epilog=EPILOG, formatter_class=formatter_class)
    c.add_argument("config", help="a TOML run config or a bundled config's name (as for run); its [model] is "
                                  "the data model, its [mechanism] the default query, target and noise")
    c.add_argument("--epsilon", type=float, help="target BDPL (default: the config's mechanism.epsilon)")
    c.add_argument("--method", default="exact", choices=["exact", "optimal", "all"],
                   help="exact (default), optimal or all (see below)")
    q = c.add_mutually_exclusive_group()
    q.add_argument("--counted", type=int, nargs="+",
                   help="counted states (default: the config's counted_states, else 1)")
    q.add_argument("--state-values", type=float, nargs="+",
                   help="query value per state, a sum query (default: the config's state_values)")
    c.add_argument("--noise", choices=["laplace", "geometric", "staircase"],
                   help="--method exact: the noise law calibrated (default: the config's noise, else laplace)")
    c.add_argument("--staircase-gamma", type=float,
                   help="staircase noise: its gamma (default: gamma* = 1/(1 + e^(eps/2)) of the DP epsilon)")
    c.add_argument("--objective", default="mean_abs", choices=["mean_abs", "variance"],
                   help="--method optimal: minimise E|Z| (default) or E[Z^2]")
    c.add_argument("--min-known", type=int, default=0,
                   help="least size of the adversary's known set (0: all adversaries)")
    c.add_argument("--json", action="store_true", help="print JSON (one object; a list for several rows)")


def model_of(path: str):
    """The data model of the config file's ``[model]`` table (validated as a run config's)."""
    from ..bundled import resolve_config
    from ..calibration.target import model_of as _model_of
    from ..config import load_toml

    p = str(resolve_config(path))
    return _model_of(load_toml(p), p)


def overrides(target) -> list[str]:
    """One ``note:`` line per explicit flag that replaced a different value of the config (named
    by its flag, :data:`FLAGS`), and the target's own notes."""
    from ..calibration.target import show

    out = []
    for field, given, own in target.overrides:
        if field == "mechanism.kind":
            out.append(f"note: the config's mechanism (kind = {own!r}) is not an additive query: the query of "
                       "the flags is calibrated")
        else:
            out.append(f"note: {FLAGS.get(field, field)} {show(given)} overrides the config's {own}")
    return out + [f"note: {n}" for n in target.notes]


def command(a, is_bdp, note) -> int:
    """Run ``bdpsim calibrate config``; one line per row or JSON (``is_bdp(row, eps, delta)`` and
    ``note(text)``: the verdict and the wrapped reason of ``bdpsim calibrate markov``)."""
    import sys

    from ..calibration import calibrate
    from ..calibration.budget import CLI_BUDGET
    from ..calibration.graphs import EXACT_LAWS, calibrate_graph
    from ..calibration.target import config_target
    from ..errors import ConfigError
    from ..models.protocols import MarkovChain
    from .calibrate import check_epsilon, query_line, verdict, wrap
    from .progress import Progress

    if a.min_known < 0:
        raise ConfigError("--min-known", a.min_known, "must be an integer >= 0")
    try:
        t = config_target(a.config, epsilon=a.epsilon, counted_states=a.counted, state_values=a.state_values,
                          noise=a.noise, staircase_gamma=a.staircase_gamma)
    except ValueError as err:
        exc = flag_error(err)
        if exc is None:
            raise
        raise exc from None
    check_epsilon(t.epsilon, "--epsilon" if t.epsilon_source == "flags" else "mechanism.epsilon", a.method, t.noise)
    model, eps, values = t.model, t.epsilon, list(t.query.values)
    bar = Progress("bdpsim calibrate", "LP rounds")
    try:
        if isinstance(model, MarkovChain):  # the chain's own calibration layer (window reduction)
            runs = {"exact": [("exact", t.noise)], "optimal": [("optimal", "laplace")],
                    "all": [("optimal", "laplace")] + [("exact", law) for law in EXACT_LAWS]}[a.method]
            start, out = time.monotonic(), []
            for k, law in runs:
                out.append(calibrate(model, eps, state_values=values, method=k, noise=law, min_known=a.min_known,
                                     staircase_gamma=t.staircase_gamma, objective=a.objective,
                                     budget=max(CLI_BUDGET - (time.monotonic() - start), 0.0)))
        else:
            rounds = itertools.count(1)
            out = calibrate_graph(model, eps, values, method=a.method, noise=t.noise, objective=a.objective,
                                  min_known=a.min_known, staircase_gamma=t.staircase_gamma, budget=CLI_BUDGET,
                                  progress=lambda *_: bar(next(rounds), None))
    except (ValueError, OverflowError, MemoryError) as err:
        exc = flag_error(err) if isinstance(err, ValueError) else None
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
    print(f"{'method':<20} {'noise':>9} {'amount':>8} {'DP eps':>7} {'E|Z|':>8} {'exact BDPL':>10}  eps-BDP?")
    for c in out:
        amount = "n/a" if c.scale is None else f"{c.scale:.5g}"
        dp = "" if c.parameter is None or c.scale is None else f"{delta / c.scale:.4g}"  # the law's DP eps
        bdpl = "n/a" if c.bdpl is None else f"{c.bdpl:.6g}"
        mabs = "n/a" if c.mean_abs is None else f"{c.mean_abs:.5g}"
        print(f"{c.method[:20]:<20} {c.noise[:9]:>9} {amount:>8} {dp:>7} {mabs:>8} {bdpl:>10}  "
              f"{verdict(c, eps, None)}")
        print(note(c.reason))
    return 0
