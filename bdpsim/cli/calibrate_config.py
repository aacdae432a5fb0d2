"""``bdpsim calibrate config``: the optimal noise and the exact calibration for the data model of a
run config's ``[model]`` table (pedigrees, Bayesian networks, Markov random fields, Markov chains).

Only argument parsing and printing live here; the work is
:func:`bdpsim.calibration.graphs.calibrate_graph` (and :func:`bdpsim.calibration.calibrate` for a
Markov chain).
"""

from __future__ import annotations

import itertools
import json
import math
import time

EPILOG = """\
examples:
  bdpsim calibrate config configs/bayesnet_example.toml --epsilon 1 \\
      --method optimal
  bdpsim calibrate config configs/bayesnet_example.toml --epsilon 1 \\
      --method all --json
  bdpsim calibrate config family.toml --epsilon 0.5 --counted 2 \\
      --method optimal --json

The data model is the config's [model] table (its other tables are ignored):
kind = "pedigree" (the query counts genotypes 0 = BB, 1 = Bb, 2 = bb),
"bayesnet" (also bif = "net.bif"), "mrf" or "markov". A [model] that sweeps a
key (a list of values) is refused: calibrate one model at a time. family.toml:
  [model]
  kind = "pedigree"
  family = "nuclear"
  size = 4
  allele_b = 0.3

Methods: exact (default; the least noise of the law --noise names whose exact BDPL over every
adversary is <= eps: a Laplace scale, or the DP epsilon of geometric and staircase noise), optimal
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
    """``err`` (a kernel's error or the library's :class:`~bdpsim.core.errors.ConfigError`) as the
    one-line error naming the flag of its field (:data:`FLAGS`), or the field itself; ``None`` for
    any other ``ValueError``."""
    from ..core.errors import ConfigError, field_error

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
    c.add_argument("config", help="a TOML run config; its [model] table is the data model")
    c.add_argument("--epsilon", type=float, required=True, help="target BDPL")
    c.add_argument("--method", default="exact", choices=["exact", "optimal", "all"],
                   help="exact (default), optimal or all (see below)")
    q = c.add_mutually_exclusive_group()
    q.add_argument("--counted", type=int, nargs="+", help="counted states (default: 1)")
    q.add_argument("--state-values", type=float, nargs="+", help="query value per state (a sum query)")
    c.add_argument("--noise", default="laplace", choices=["laplace", "geometric", "staircase"],
                   help="--method exact: the noise law calibrated (default laplace)")
    c.add_argument("--staircase-gamma", type=float,
                   help="staircase noise: its gamma (default: gamma* = 1/(1 + e^(eps/2)) of the DP epsilon)")
    c.add_argument("--objective", default="mean_abs", choices=["mean_abs", "variance"],
                   help="--method optimal: minimise E|Z| (default) or E[Z^2]")
    c.add_argument("--min-known", type=int, default=0,
                   help="least size of the adversary's known set (0: all adversaries)")
    c.add_argument("--json", action="store_true", help="print JSON (one object; a list for several rows)")


def model_of(path: str):
    """The data model of the config file's ``[model]`` table (validated as a run config's)."""
    from ..pipeline.config import load_toml, parse_config
    from ..core.errors import ConfigError

    raw = load_toml(path)
    if not isinstance(raw.get("model"), dict):
        raise ConfigError("config", path, "needs a [model] table (the data model to calibrate on)")
    kind = raw["model"].get("kind")
    try:  # a count mechanism stands in: only the model is used
        cfg = parse_config({"model": raw["model"], "mechanism": {"kind": "count", "epsilon": 1.0}}, path)
    except ConfigError as exc:
        if exc.field.startswith("mechanism"):
            raise ConfigError("model.kind", kind, "calibrate config needs a discrete model with an exact engine "
                              "over every adversary: pedigree, bayesnet, mrf or markov") from None
        raise
    if len(cfg.points) != 1:
        raise ConfigError("model", path, f"sweeps {len(cfg.points)} models: calibrate one at a time (give each "
                          "[model] key one value)")
    return cfg.points[0].model.fixed


def command(a, is_bdp, note) -> int:
    """Run ``bdpsim calibrate config``; one line per row or JSON (``is_bdp(row, eps, delta)`` and
    ``note(text)``: the verdict and the wrapped reason of ``bdpsim calibrate markov``)."""
    from ..calibration import calibrate
    from ..calibration.budget import CLI_BUDGET
    from ..calibration.graphs import EXACT_LAWS, calibrate_graph
    from ..core.errors import ConfigError
    from ..kernels.chains.lattice import query_values
    from ..models.protocols import MarkovChain
    from .progress import Progress

    if not (math.isfinite(a.epsilon) and a.epsilon > 0):
        raise ConfigError("--epsilon", a.epsilon, "must be a finite number > 0")
    if a.min_known < 0:
        raise ConfigError("--min-known", a.min_known, "must be an integer >= 0")
    model = model_of(a.config)
    bar = Progress("bdpsim calibrate", "LP rounds")
    try:
        if isinstance(model, MarkovChain):  # the chain's own calibration layer (window reduction)
            runs = {"exact": [("exact", a.noise)], "optimal": [("optimal", "laplace")],
                    "all": [("optimal", "laplace")] + [("exact", law) for law in EXACT_LAWS]}[a.method]
            start, out = time.monotonic(), []
            for k, law in runs:
                out.append(calibrate(model, a.epsilon, counted_states=a.counted, state_values=a.state_values,
                                     method=k, noise=law, min_known=a.min_known, staircase_gamma=a.staircase_gamma,
                                     objective=a.objective, budget=max(CLI_BUDGET - (time.monotonic() - start), 0.0)))
        else:
            rounds = itertools.count(1)
            values = query_values(model.states, a.counted, a.state_values)
            out = calibrate_graph(model, a.epsilon, values, method=a.method, noise=a.noise, objective=a.objective,
                                  min_known=a.min_known, staircase_gamma=a.staircase_gamma, budget=CLI_BUDGET,
                                  progress=lambda *_: bar(next(rounds), None))
    except ValueError as err:
        exc = flag_error(err)
        if exc is None:
            raise
        raise exc from None
    finally:
        bar.close()
    if a.json:
        rows = [{**c.as_dict(), "is_bdp": is_bdp(c, a.epsilon, None)} for c in out]
        print(json.dumps(rows[0] if len(rows) == 1 else rows))
        return 0
    print(f"{'method':<20} {'noise':>9} {'amount':>10} {'E|Z|':>9} {'exact BDPL':>10}  eps-BDP?")
    for c in out:
        amount = "n/a" if c.scale is None else f"{c.scale:.6g}"
        bdpl = "n/a" if c.bdpl is None else f"{c.bdpl:.6g}"
        ok = "n/a" if c.bdpl is None else {True: "yes", False: "NOT eps-BDP", None: "unknown"}[
            is_bdp(c, a.epsilon, None)]
        mabs = "n/a" if c.mean_abs is None else f"{c.mean_abs:.6g}"
        print(f"{c.method[:20]:<20} {c.noise[:9]:>9} {amount:>10} {mabs:>9} {bdpl:>10}  {ok}")
        print(note(c.reason))
    return 0
