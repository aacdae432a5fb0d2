"""``bdpsim temporal``: exact temporal leakage of a continual release, beside Cao et al.'s TPL.

Only argument parsing and printing live here; the work is
:func:`bdpsim.temporal.table.temporal_table` and :func:`bdpsim.temporal.allocate.allocate`.
"""

from __future__ import annotations

import json
import math

from .base import named_by, subcommand
from .chain import parse_vector, transition_of

EPILOG = """\
examples:
  bdpsim temporal --transition "[[0.882,0.118],[0.305,0.695]]" \\
      --epsilon 1 --steps 10
  bdpsim temporal --transition "[[0.5,0.3,0.2],[0.2,0.6,0.2],[0.1,0.2,0.7]]" \\
      --epsilon 1 --steps 20 --mechanism krr --json tpl.json
  bdpsim temporal --gamma 4 --epsilon 0.5 --steps 288 --allocate 2
  bdpsim temporal --transition "[[0.8,0.2],[0.3,0.7]]" --steps 3 \\
      --epsilon 1 2 1 --known 1 --method exact
  bdpsim temporal --transition "[[0.9,0.1,0],[0.1,0.8,0.1],[0,0.2,0.8]]" \\
      --steps 12 --epsilon 1 --mechanism laplace --values 0 1 3

A person's values x_1..x_T follow the Markov chain; step t releases r_t from an eps_t-DP
mechanism. BPL_t, FPL_t and TPL_t are the sup over outputs and value pairs (a, b) of
ln P(releases | x_t = a) / P(releases | x_t = b) for the releases up to t, from t, and all.
Exact values (bpl, fpl, tpl) come from propagating the reachable likelihood vectors (only the
extreme points of their convex hull); cao_* is Cao et al.'s recursion (ICDE 2017 / TKDE 2019), an
upper bound. Where the hull outgrows --max-points an exact value becomes an interval
[low, high] that provably holds (printed as low..high; JSON keys tpl_low, tpl_high, ...).

Mechanisms: krr (P(r = x) = e^eps / (e^eps + k - 1)); laplace, geometric, staircase (noise on the
one-hot histogram, each coordinate eps/2-DP; with --values, noise on the state's value); any
(the sup over every eps-DP step: Cao's setting). Gaussian noise is not pure DP (infinite leakage).
--known S...: steps whose value the adversary knows (exact only; Cao's TPL cannot express it).
--allocate ALPHA: the per-step eps keeping max_t TPL_t <= ALPHA, exact against Cao's.
"""

#: ``--method`` choices (bdpsim.temporal.table.METHODS; kept equal by a test: building the parser
#: imports no SciPy)
METHODS = ("exact", "cao", "both")

#: library parameter -> the flag that sets it
FLAGS = {
    "transition": "--transition",
    "P": "--transition",
    "gamma": "--gamma",
    "epsilon": "--epsilon",
    "steps": "--steps",
    "known": "--known",
    "initial": "--initial",
    "mechanism": "--mechanism",
    "values": "--values",
    "method": "--method",
    "alpha": "--allocate",
    "max_points": "--max-points",
}


def add_parser(sub) -> None:
    """Register ``bdpsim temporal`` on the top-level subparsers ``sub``."""
    from ..temporal.releases import release_names

    p = subcommand(
        sub,
        "temporal",
        command,
        help="exact temporal leakage (BPL/FPL/TPL) of a continual release vs Cao's TPL",
        description="Exact backward, forward and temporal privacy leakage of a time series "
        "released step by step, beside Cao et al.'s TPL.",
        epilog=EPILOG,
    )
    chain = p.add_mutually_exclusive_group(required=True)
    chain.add_argument(
        "--transition",
        metavar="MATRIX",
        help="transition matrix as JSON (or a list of T-1 matrices, one per step)",
    )
    chain.add_argument("--gamma", type=float, help="the symmetric 2-state chain [[g,1],[1,g]]/(1+g)")
    p.add_argument(
        "--epsilon",
        type=float,
        nargs="+",
        required=True,
        metavar="EPS",
        help="per-step DP level: one value, or one per step",
    )
    p.add_argument("--steps", type=int, required=True, metavar="T", help="number of releases T >= 1")
    p.add_argument(
        "--mechanism", default="any", choices=release_names(), help="per-step mechanism (default any)"
    )
    p.add_argument(
        "--initial",
        default="stationary",
        metavar="LAW",
        help="law of x_1: 'stationary' (default) or a JSON vector",
    )
    p.add_argument(
        "--known",
        type=int,
        nargs="*",
        default=[],
        metavar="S",
        help="steps (1..T) whose value the adversary knows",
    )
    p.add_argument(
        "--values",
        type=float,
        nargs="+",
        metavar="V",
        help="a value per state: laplace/geometric noise on it instead of the histogram",
    )
    p.add_argument("--method", default="both", choices=METHODS, help="exact, cao or both (default)")
    p.add_argument(
        "--allocate",
        type=float,
        metavar="ALPHA",
        help="also find the per-step eps keeping every TPL_t <= ALPHA (exact and Cao's)",
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
        help="rows printed (first and last N/2 when T is larger; default 20)",
    )
    p.add_argument("--json", metavar="FILE", help="write every step's values and the inputs as JSON")


def _fmt(row: dict, key: str) -> str:
    v = row.get(key)
    if v is None and row.get(key + "_low") is not None:
        return f"{row[key + '_low']:.4f}..{row[key + '_high']:.4f}"
    return "-" if v is None else f"{v:.4f}"


def command(a) -> int:
    from ..core.errors import ConfigError

    with named_by(FLAGS):
        transition = transition_of(a, per_step=True)
    initial = "stationary" if a.initial == "stationary" else parse_vector("--initial", a.initial)
    if a.max_points is not None and a.max_points < 2:
        raise ConfigError("--max-points", a.max_points, "must be an integer >= 2")
    if a.rows < 2:
        raise ConfigError("--rows", a.rows, "must be an integer >= 2")
    eps = a.epsilon[0] if len(a.epsilon) == 1 else list(a.epsilon)
    from ..temporal.table import temporal_table

    with named_by(FLAGS):
        table = temporal_table(
            transition,
            eps,
            a.steps,
            a.mechanism,
            initial=initial,
            known=a.known,
            values=a.values,
            method=a.method,
            max_points=a.max_points,
        )
        alloc = None
        if a.allocate is not None:
            if not (math.isfinite(a.allocate) and a.allocate > 0):
                raise ConfigError("--allocate", a.allocate, "must be a finite number > 0")
            if len(a.epsilon) != 1 or a.known or table.per_step:
                raise ConfigError(
                    "--allocate",
                    a.allocate,
                    "needs one transition matrix and no --known (the budget replaces --epsilon)",
                )
            from ..temporal.allocate import allocate

            alloc = allocate(
                a.allocate,
                table.chain,
                a.steps,
                a.mechanism,
                values=a.values,
                max_points=a.max_points,
            )
    rows = table.rows
    doc = _document(a, transition, initial, rows, table, alloc)
    if a.json:  # everything is computed: write it whole (no partial file on error)
        from pathlib import Path

        from ..pipeline.results.atomic import atomic_write_text

        atomic_write_text(Path(a.json), json.dumps(doc, indent=1) + "\n")
    _print(a, rows, table, alloc)
    return 0


def _document(a, transition, initial, rows, table, alloc) -> dict:
    import numpy as np

    keys = list(rows[0])
    doc: dict = {
        "inputs": {
            "transition": np.asarray(transition, dtype=float).tolist(),
            "epsilon": list(a.epsilon),
            "steps": a.steps,
            "mechanism": a.mechanism,
            "initial": initial,
            "known": list(a.known),
            "values": a.values,
            "method": a.method,
            "max_points": a.max_points,
        },
        "exact": table.exact,
    }
    for key in keys:
        doc[key] = [r[key] for r in rows]
    res = table.result
    if res is not None and np.any(np.isfinite(res.tpl)):
        t_max = int(np.nanargmax(res.tpl)) + 1
        doc["witness"] = {
            "t": t_max,
            "a": rows[t_max - 1]["a"],
            "b": rows[t_max - 1]["b"],
            "outputs": res.witness(t_max),
        }
        if a.steps <= 50:
            doc["witnesses"] = [res.witness(t) for t in range(1, a.steps + 1)]
    if alloc is not None:
        doc["allocation"] = alloc.as_dict()
    return doc


def _print(a, rows, table, alloc) -> None:
    cols = [
        c
        for c in ("t", "epsilon", "bpl", "fpl", "tpl", "cao_bpl", "cao_fpl", "cao_tpl")
        if any(r.get(c) is not None or r.get(c + "_low") is not None for r in rows)
    ]
    T = len(rows)
    show = (
        list(range(T)) if T <= a.rows else list(range(a.rows // 2)) + [-1] + list(range(T - a.rows // 2, T))
    )
    print("  ".join(f"{c:>14}" if c not in ("t",) else f"{c:>6}" for c in cols))
    for i in show:
        if i < 0:
            print(f"{'...':>6}")
            continue
        r = rows[i]
        print("  ".join(f"{r['t']:>6}" if c == "t" else f"{_fmt(r, c):>14}" for c in cols))
    tpl = [r["tpl"] if r["tpl"] is not None else r.get("tpl_high") for r in rows]
    tpl_ok = [v for v in tpl if v is not None]
    if tpl_ok:
        i = max(range(T), key=lambda j: -math.inf if tpl[j] is None else tpl[j])
        line = f"max TPL: exact {tpl[i]:.6g} at t = {i + 1} (values a={rows[i]['a']}, b={rows[i]['b']})"
        cao = [r["cao_tpl"] for r in rows if r["cao_tpl"] is not None]
        if cao:
            line += f"; Cao {max(cao):.6g} ({(max(cao) / tpl[i] - 1) * 100:+.1f} %)"
        print(line)
    elif rows[0]["cao_tpl"] is not None:
        i = max(range(T), key=lambda j: rows[j]["cao_tpl"])
        print(f"max TPL: Cao {rows[i]['cao_tpl']:.6g} at t = {i + 1}")
    if table.exact is False:
        print(
            f"interval: the hull outgrew the cap ({table.points} points kept); exact values lie in low..high"
        )
    if alloc is not None:
        print(
            f"per-step eps for TPL_t <= {alloc.alpha:g} over {alloc.steps} steps: exact "
            f"{alloc.exact_constant:.6g}"
            + (
                f", Cao {alloc.cao_constant:.6g} "
                f"({(alloc.exact_constant / alloc.cao_constant - 1) * 100:+.1f} %)"
                if alloc.cao_constant
                else ""
            )
            + (f"; Cao's horizon-free {alloc.cao_upper_bound:.6g}" if alloc.cao_upper_bound else "")
        )
        print(
            f"schedule [end, middle.., end]: exact [{alloc.exact_end:.6g}, {alloc.exact_middle:.6g}.., "
            f"{alloc.exact_end:.6g}]"
            + (
                f"; Cao's quantification [{alloc.cao_start:.6g}, {alloc.cao_middle:.6g}.., "
                f"{alloc.cao_end:.6g}]"
                if alloc.cao_start
                else ""
            )
        )
