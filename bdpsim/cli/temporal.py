"""``bdpsim temporal``: exact temporal leakage of a continual release, beside Cao et al.'s TPL.

Only argument parsing and printing live here; the work is
:func:`bdpsim.temporal.table.temporal_table` and :func:`bdpsim.temporal.allocate.allocate`. The
flags speak the words of ``attack`` and ``calibrate`` (``--n``, ``--initial P ...``,
``--state-values``, records numbered from 0); the spellings of earlier releases (``--steps``,
``--mechanism``, ``--values``, a JSON ``--initial``) are read for one more release with a note, and
``--known`` (steps numbered from 1) is refused with the ``--known-records`` that replaces it.
"""

from __future__ import annotations

import argparse
import json
import math

from ..kernels.noise.traits import one_of
from ..temporal.releases import histogram_laws, release_names, value_laws
from ..temporal.table import METHODS
from .base import add_old_spelling, check_writable_file, named_by, subcommand, take_old_spellings
from .chain import add_chain_arguments, add_initial_argument, parse_initial, transition_of

EPILOG = f"""\
examples:
  bdpsim temporal --transition "[[0.882,0.118],[0.305,0.695]]" \\
      --epsilon 1 --n 10
  bdpsim temporal --transition "[[0.5,0.3,0.2],[0.2,0.6,0.2],[0.1,0.2,0.7]]" \\
      --epsilon 1 --n 20 --release krr --json tpl.json
  bdpsim temporal --gamma 4 --epsilon 0.5 --n 288 --allocate 2
  bdpsim temporal --transition "[[0.8,0.2],[0.3,0.7]]" --n 3 \\
      --epsilon 1 2 1 --known-records 0 --method exact
  bdpsim temporal --transition "[[0.9,0.1,0],[0.1,0.8,0.1],[0,0.2,0.8]]" \\
      --n 12 --epsilon 1 --release laplace --state-values 0 1 3
  bdpsim temporal --transition "[[0.8,0.2],[0.3,0.7]]" --n 100 \\
      --release gaussian --sigma 1 --state-values 0 1 \\
      --epsilon 0.5 1 --delta 1e-5 --alpha 2

A person's values x_0..x_(n-1) follow the Markov chain; record i is released at its step by an
eps_i-DP mechanism (records are numbered from 0, as i in adversaries.csv; the papers' step t is
i + 1). BPL, FPL and TPL of record i are the sup over outputs and value pairs (a, b) of
ln P(releases | x_i = a) / P(releases | x_i = b) for the releases up to i, from i, and all, in
nats. Exact values (bpl, fpl, tpl) come from propagating the reachable likelihood vectors (only
the extreme points of their convex hull); cao_* is Cao et al.'s recursion (ICDE 2017 / TKDE 2019),
an upper bound. Where the hull outgrows --max-points an exact value becomes an interval
[low, high] that provably holds (printed as low..high; JSON keys tpl_low, tpl_high, ...).

Releases: krr (P(r = x) = e^eps / (e^eps + k - 1)); {", ".join(histogram_laws())} (noise on the
one-hot histogram, each coordinate eps/2-DP; with --state-values, {one_of(value_laws())} noise on
the state's value); any (the sup over every eps-DP step: Cao's setting).
--release gaussian --sigma S --state-values V...: Gaussian noise on the state's value (at most
six distinct values; three or more cost more per cell). Its BDPL is infinite; it prints instead
the privacy profile delta(eps) at each --epsilon (here the eps of the profile, not a per-step
level), eps(delta) at each --delta and the Renyi divergence at each --alpha, of the whole release
against the adversary who knows nothing (the sup over records and value pairs), each a certified
bracket with its width: the leakage on this chain (Bayesian DP), not a DP guarantee.
--known-records I...: records whose value the adversary knows (exact only; Cao's TPL cannot
express it).
--allocate ALPHA: the per-step eps keeping every TPL <= ALPHA, exact against Cao's.
"""


#: the releases of continuous noise on a state's value (the accountant's
#: :data:`bdpsim.mechanisms.value_noise.VALUE_NOISES`; written here: the parser stays light)
VALUE_NOISES = ("gaussian",)

#: library parameter -> the flag that sets it
FLAGS = {
    "transition": "--transition",
    "P": "--transition",
    "gamma": "--gamma",
    "epsilon": "--epsilon",
    "steps": "--n",
    "known_records": "--known-records",
    "initial": "--initial",
    "mechanism": "--release",
    "release": "--release",
    "values": "--state-values",
    "state_values": "--state-values",
    "method": "--method",
    "alpha": "--allocate",
    "max_points": "--max-points",
    "release.sigma": "--sigma",
    "release.state_values": "--state-values",
    "model.n": "--n",
    "delta": "--delta",
}
#: the flags of ``--release gaussian`` (there ``alpha`` is a Renyi order)
VALUE_FLAGS = {**FLAGS, "alpha": "--alpha"}


def add_parser(sub) -> None:
    """Register ``bdpsim temporal`` on the top-level subparsers ``sub``."""
    p = subcommand(
        sub,
        "temporal",
        command,
        help="exact temporal leakage (BPL/FPL/TPL) of a continual release vs Cao's TPL",
        description="Exact backward, forward and temporal privacy leakage of a time series "
        "released step by step, beside Cao et al.'s TPL.",
        epilog=EPILOG,
    )
    add_chain_arguments(p, per_step=True)
    p.add_argument(
        "--epsilon",
        type=float,
        nargs="+",
        metavar="EPS",
        help="per-step DP level: one value, or one per record (--release gaussian: where delta(eps) "
        "is printed)",
    )
    names = release_names() + VALUE_NOISES
    p.add_argument(
        "--release",
        choices=names,
        metavar="RELEASE",
        help=f"what each step releases (default any): {', '.join(names)}",
    )
    p.add_argument(
        "--sigma",
        type=float,
        metavar="S",
        help="--release gaussian: the noise's standard deviation on the state's value",
    )
    for flag, metavar, what in (
        ("--delta", "D", "eps(delta) at these delta in (0, 1)"),
        ("--alpha", "A", "the Renyi divergence at these orders > 1"),
    ):
        p.add_argument(
            flag, type=float, nargs="+", default=[], metavar=metavar, help=f"--release gaussian: print {what}"
        )
    add_initial_argument(p)
    p.add_argument(
        "--known-records",
        type=int,
        nargs="*",
        default=[],
        metavar="I",
        help="records (0..n-1) whose value the adversary knows",
    )
    p.add_argument(
        "--state-values",
        type=float,
        nargs="+",
        metavar="V",
        help=f"a value per state: {one_of(value_laws())} noise on it instead of the histogram",
    )
    p.add_argument("--method", default="both", choices=METHODS, help="exact, cao or both (default)")
    p.add_argument(
        "--allocate",
        type=float,
        metavar="ALPHA",
        help="also find the per-step eps keeping every TPL <= ALPHA (exact and Cao's)",
    )
    p.add_argument(
        "--max-points",
        type=int,
        default=None,
        metavar="N",
        help="hull cap before an exact value becomes an interval (default 1000)",
    )
    p.add_argument(
        "--rows",
        type=int,
        default=20,
        metavar="N",
        help="rows printed (first and last N/2 when n is larger; default 20)",
    )
    p.add_argument("--json", metavar="FILE", help="write every record's values and the inputs as JSON")
    p.add_argument("--csv", metavar="FILE", help="write the table, one row per record, as CSV")
    add_old_spelling(p, "--steps", "--n", type=int)
    add_old_spelling(p, "--mechanism", "--release", choices=release_names())
    add_old_spelling(p, "--values", "--state-values", type=float, nargs="+")
    p.add_argument("--known", dest="old_known", type=int, nargs="*", help=argparse.SUPPRESS)  # refused


def _vocabulary(a) -> None:
    """The spellings of earlier releases, read as today's (a note each) or refused in one line."""
    from ..core.errors import ConfigError

    take_old_spellings(a)
    if a.old_known is not None:
        raise ConfigError(
            "--known",
            a.old_known,
            "is --known-records now, records numbered from 0 (as i in the table and in "
            "adversaries.csv): --known S is --known-records S-1 (here --known-records "
            + " ".join(str(s - 1) for s in a.old_known)
            + ")",
        )
    if a.n is None:
        raise ConfigError("--n", None, "is required: the number of records (steps) released")
    a.release = a.release or "any"


def command(a) -> int:
    """Run ``bdpsim temporal``: the table (leakages in nats), and with ``--json`` the file."""
    from ..core.errors import ConfigError

    _vocabulary(a)
    if a.release in VALUE_NOISES:
        return _value_noise(a)
    for flag, given in (("--sigma", a.sigma), ("--delta", a.delta), ("--alpha", a.alpha)):
        if given not in (None, []):
            raise ConfigError(flag, given, "is for --release gaussian (the other releases print BPL/FPL/TPL)")
    if a.epsilon is None:
        raise ConfigError("--epsilon", None, "is required: the per-step DP level")
    with named_by(FLAGS):
        transition = transition_of(a, per_step=True)
    initial = parse_initial("--initial", a.initial) or "stationary"
    if a.max_points is not None and a.max_points < 2:
        raise ConfigError("--max-points", a.max_points, "must be an integer >= 2")
    if a.rows < 2:
        raise ConfigError("--rows", a.rows, "must be an integer >= 2")
    check_writable_file("--json", a.json)  # before the work, not after it
    check_writable_file("--csv", a.csv)
    eps = a.epsilon[0] if len(a.epsilon) == 1 else list(a.epsilon)
    from ..temporal.chain import ReleasedChain
    from ..temporal.table import temporal_table

    with named_by(FLAGS):
        chain = ReleasedChain.of(  # the chain and its releases, checked once
            transition, eps, a.n, a.release, initial=initial, state_values=a.state_values
        )
        table = temporal_table(chain, known_records=a.known_records, method=a.method, max_points=a.max_points)
        alloc = None
        if a.allocate is not None:
            if not (math.isfinite(a.allocate) and a.allocate > 0):
                raise ConfigError("--allocate", a.allocate, "must be a finite number > 0")
            if len(a.epsilon) != 1 or a.known_records or chain.per_step:
                raise ConfigError(
                    "--allocate",
                    a.allocate,
                    "needs one transition matrix and no --known-records (the budget replaces --epsilon)",
                )
            from ..temporal.allocate import allocate

            alloc = allocate(a.allocate, chain, a.n, a.release, max_points=a.max_points)
    rows = table.rows
    doc = _document(a, transition, initial, rows, table, alloc)
    if a.json:  # everything is computed: write it whole (no partial file on error)
        from pathlib import Path

        from ..pipeline.results.atomic import atomic_write_text

        atomic_write_text(Path(a.json), json.dumps(doc, indent=1) + "\n")
    if a.csv:
        _write_csv(a.csv, rows)
    _print(a, rows, table, alloc)
    return 0


def _document(a, transition, initial, rows, table, alloc) -> dict:
    import numpy as np

    keys = list(rows[0])
    doc: dict = {
        "inputs": {
            "transition": np.asarray(transition, dtype=float).tolist(),
            "epsilon": list(a.epsilon),
            "n": a.n,
            "release": a.release,
            "initial": initial,
            "known_records": list(a.known_records),
            "state_values": a.state_values,
            "method": a.method,
            "max_points": a.max_points,
        },
        "exact": table.exact,
    }
    if table.cao_note:
        doc["cao_note"] = table.cao_note
    for key in keys:
        doc[key] = [r[key] for r in rows]
    res = table.result
    if res is not None and np.any(np.isfinite(res.tpl)):
        i = int(np.nanargmax(res.tpl))  # the engine numbers steps from 1
        doc["witness"] = {
            "i": i,
            "a": rows[i]["a"],
            "b": rows[i]["b"],
            "outputs": res.witness(i + 1),
        }
        if a.n <= 50:
            doc["witnesses"] = [res.witness(t) for t in range(1, a.n + 1)]
    if alloc is not None:
        doc["allocation"] = alloc.as_dict()
    return doc


def _write_csv(path: str, rows: list[dict]) -> None:
    """The table as CSV (the JSON's per-record columns; empty cells where a value is ``None``)."""
    import csv
    import io
    from pathlib import Path

    from ..pipeline.results.atomic import atomic_write_text

    buf = io.StringIO()
    keys = list(dict.fromkeys(k for r in rows for k in r))
    w = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
    w.writeheader()
    w.writerows({k: ("" if r.get(k) is None else r[k]) for k in keys} for r in rows)
    atomic_write_text(Path(path), buf.getvalue())


def _fmt(row: dict, key: str) -> str:
    """A cell: the value, or an interval ``low..high`` with its width (its ends may agree to 4 digits)."""
    v, low, high = row.get(key), row.get(key + "_low"), row.get(key + "_high")
    if low is not None and high is not None and high - low > 1e-12:
        return f"{low:.4f}..{high:.4f} (width {high - low:.1e})"
    return "-" if v is None else f"{v:.4f}"


def _relative(value: float, name: str, ref: float, ref_name: str) -> str:
    """``name`` against ``ref_name`` in words, always in that order: "Cao 2.1 % above exact" (never
    a signed "-0.0 %" from a rounding-level difference)."""
    if not (math.isfinite(value) and math.isfinite(ref)) or ref == 0:
        return f"{name} vs {ref_name}: not comparable"
    rel = (value / ref - 1) * 100
    if abs(rel) < 0.05:
        return f"{name} equal to {ref_name} within 0.05 %"
    return f"{name} {abs(rel):.1f} % {'above' if rel > 0 else 'below'} {ref_name}"


def _print(a, rows, table, alloc) -> None:
    """The table: a column per leakage, its unit (nats) under its name; the largest TPL below."""
    cols = [
        c
        for c in ("epsilon", "bpl", "fpl", "tpl", "cao_bpl", "cao_fpl", "cao_tpl")
        if any(r.get(c) is not None or r.get(c + "_low") is not None for r in rows)
    ]
    n = len(rows)
    show = (
        list(range(n)) if n <= a.rows else list(range(a.rows // 2)) + [-1] + list(range(n - a.rows // 2, n))
    )
    cells = {c: [_fmt(rows[i], c) for i in show if i >= 0] for c in cols}
    widths = {c: max([8, len(c), *map(len, cells[c])]) for c in cols}
    print(f"{'i':>5}" + "".join(f"  {c:>{widths[c]}}" for c in cols))
    print(f"{'':>5}" + "".join(f"  {'(nats)':>{widths[c]}}" for c in cols))
    for i in show:
        if i < 0:
            print(f"{'...':>5}")
            continue
        print(f"{rows[i]['i']:>5}" + "".join(f"  {_fmt(rows[i], c):>{widths[c]}}" for c in cols))
    tpl = [r["tpl"] if r["tpl"] is not None else r.get("tpl_high") for r in rows]
    if any(v is not None for v in tpl):
        i = max(range(n), key=lambda j: -math.inf if tpl[j] is None else tpl[j])
        line = f"max TPL: exact {tpl[i]:.6g} nats at i = {i} (values a={rows[i]['a']}, b={rows[i]['b']})"
        cao = [r["cao_tpl"] for r in rows if r["cao_tpl"] is not None]
        if cao:
            line += f"; Cao {max(cao):.6g} nats ({_relative(max(cao), 'Cao', tpl[i], 'exact')})"
        print(line)
    elif rows[0]["cao_tpl"] is not None:
        i = max(range(n), key=lambda j: rows[j]["cao_tpl"])
        print(f"max TPL: Cao {rows[i]['cao_tpl']:.6g} nats at i = {i}")
    if table.cao_note:
        print(table.cao_note)
    if table.exact is False:
        print(
            f"interval: the hull outgrew the cap ({table.points} points kept); exact values lie in low..high"
        )
    if alloc is not None:
        _print_allocation(alloc)


def _print_allocation(alloc) -> None:
    c = alloc.exact_constant
    print(
        f"per-step eps for every TPL <= {alloc.alpha:g} nats over n = {alloc.steps} records: exact "
        f"{c:.6g}"
        + (
            f", Cao {alloc.cao_constant:.6g} ({_relative(alloc.cao_constant, 'Cao', c, 'exact')})"
            if alloc.cao_constant
            else ""
        )
        + (f"; Cao's horizon-free {alloc.cao_upper_bound:.6g}" if alloc.cao_upper_bound else "")
    )
    T = alloc.steps
    if T <= 2:  # no middle step: the schedule is its one or two steps
        print(f"schedule over the {T} steps: exact [{', '.join([f'{alloc.exact_end:.6g}'] * T)}]")
        return
    if alloc.exact_end <= c * (1 + 1e-6):  # the end search found no room: say so, not a 3-part list
        line = (
            f"schedule: exact {c:.6g} at every step (raising the first and last step's eps would "
            f"push some TPL above {alloc.alpha:g})"
        )
    else:
        e = f"{alloc.exact_end:.6g}"
        line = f"schedule [first, middle.., last]: exact [{e}, {c:.6g}.., {e}]"
    if alloc.cao_start:
        line += (
            f"; Cao's quantification [{alloc.cao_start:.6g}, {alloc.cao_middle:.6g}.., {alloc.cao_end:.6g}]"
            " (safe against Cao's bound, which is above the exact TPL)"
        )
    print(line)


# ---------------------------------------------------------------------- Gaussian noise on a value


def _value_noise(a) -> int:
    """``--release gaussian``: the accountant's bracketed delta(eps), eps(delta) and Renyi curve of
    the whole release against the adversary who knows nothing (nats), and with ``--json`` the file."""
    from ..core.errors import ConfigError

    for flag, given in (
        ("--known-records", a.known_records),
        ("--allocate", a.allocate),
        ("--csv", a.csv),
        ("--max-points", a.max_points),
    ):
        if given not in (None, []):
            raise ConfigError(
                flag, given, "is not for --release gaussian (it prints delta(eps), eps(delta) and Renyi)"
            )
    if a.sigma is None:
        raise ConfigError("--sigma", None, "is required with --release gaussian")
    if a.state_values is None:
        raise ConfigError("--state-values", None, "is required with --release gaussian: a value per state")
    eps, deltas, alphas = list(a.epsilon or []), list(a.delta), list(a.alpha)
    if not (eps or deltas or alphas):
        raise ConfigError("--epsilon", None, "ask at least one of --epsilon, --delta, --alpha")
    from ..accounting.asks import check_alpha, check_delta, check_epsilon

    with named_by(VALUE_FLAGS):
        eps = [check_epsilon(e) for e in eps]
        deltas = [check_delta(d) for d in deltas]
        alphas = [check_alpha(x) for x in alphas]
        model = _chain_model(a)
        from ..mechanisms.value_noise import ValueNoise

        release = ValueNoise(release=a.release, state_values=tuple(a.state_values), sigma=a.sigma)
    check_writable_file("--json", a.json)
    from ..accounting import account
    from ..accounting.local import ValueNoiseAccount

    with named_by(VALUE_FLAGS):
        acc = account(model, [release], sizes=[0])
        if not isinstance(acc, ValueNoiseAccount):  # the accountant's type for a continuous release
            raise TypeError(f"the accountant answered {type(acc).__name__} for {release.label!r}")
        from .progress import Progress

        # the passes give no count: without a terminal a line every ~10 s says the work goes on
        with Progress("bdpsim temporal", "passes of the bracket"):
            acc.prepare(epsilons=eps, deltas=deltas, alphas=[x for x in alphas if math.isfinite(x)])
        rows = [(f"delta({e:g})", acc.delta(e)) for e in eps]
        rows += [(f"epsilon({d:g})", acc.epsilon(d)) for d in deltas]
        rows += [(f"renyi({x:g})", acc.renyi(x)) for x in alphas]
    bdpl = acc.renyi(math.inf)  # +inf, stated (0 where every state has the same value)
    if a.json:
        from pathlib import Path

        from ..pipeline.results.atomic import atomic_write_text
        from .base import finite_json

        doc = {
            "inputs": {
                "transition": [list(map(float, r)) for r in model.transition],
                "initial": [float(x) for x in model.initial],
                "n": a.n,
                "release": a.release,
                "sigma": release.sigma,
                "state_values": list(release.state_values),
            },
            "release": release.label,
            "meaning": MEANING,
            "adversary": ADVERSARY,
            "method": acc.method,
            "cells": acc.bins,
            "values": {name: {**v.as_dict(), "adversary": _who(v)} for name, v in rows},
            "bdpl": None if math.isinf(bdpl.value) else bdpl.value,
            "bdpl_note": ("inf: " if math.isinf(bdpl.value) else "") + bdpl.note,
        }
        atomic_write_text(Path(a.json), json.dumps(finite_json(doc), indent=1) + "\n")
    print(f"{release.label}, n = {a.n} records")
    print(f"{MEANING}; {ADVERSARY}")
    width = max(len(name) for name, _ in rows)
    for name, v in rows:
        who = _who(v)
        print(f"  {name:<{width}} = {v.text(8)}" + (f"  ({who})" if who else ""))
    print(f"  {'bdpl':<{width}} = {bdpl.value:g} ({bdpl.note})")
    print(f"method: {acc.method}; {acc.bins} cells")
    return 0


#: what the numbers of ``--release gaussian`` are
MEANING = "leakage on this chain (Bayesian DP: the chain is the prior), not a DP guarantee; nats"
#: whom they are about
ADVERSARY = "the worst record and value pair, the adversary knowing no other record"


def _who(v) -> str:
    adv = v.adversary
    if adv is None:
        return ""
    return f"record {adv.i}, x = {adv.x} vs {adv.x_prime}"


def _chain_model(a):
    """The chain of ``--transition`` / ``--gamma``, ``--n`` and ``--initial`` (one matrix)."""
    from ..core.errors import ConfigError
    from .chain import chain_model

    try:
        return chain_model(a)
    except ConfigError:
        raise
    except ValueError as err:  # a per-step list of matrices: one chain here
        raise ConfigError(
            "--transition", a.transition, f"one transition matrix with --release gaussian ({err})"
        ) from None


__all__ = ["EPILOG", "FLAGS", "add_parser", "command"]
