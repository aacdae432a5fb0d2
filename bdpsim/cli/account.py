"""``bdpsim account CONFIG``: the privacy accountant of a list of releases on one data model."""

from __future__ import annotations

import argparse
import json
import sys

from .base import check_writable_file, finite_json, quietly, subcommand

EPILOG = """examples:
  bdpsim account account_smart_meter
  bdpsim account my.toml --epsilon 0.5 1 2 --delta 1e-5 --alpha 2 inf --json
  bdpsim account account_smart_meter --plot profile.png

my.toml: the data model, one [[release]] table per release, and the asks:
  [model]
  kind = "markov"
  n = 24
  transition = [[0.9, 0.1], [0.3, 0.7]]

  [[release]]          # a [mechanism] table of bdpsim run: kind, noise,
  kind = "count"       # its amount (epsilon, scale or sigma), counted_states
  noise = "gaussian"   # or state_values; repeat = k releases it k times
  sigma = 3.0
  repeat = 10

  [account]            # optional; --epsilon, --delta, --alpha replace it
  epsilon = [0.5, 1.0]
  delta = [1e-5]
  alpha = [2.0, inf]
  fpr = [0.01]
Or, alone, the local release of every record of a chain: kind = "local",
randomiser = "krr" and epsilon (or "matrix" and likelihoods, one row per state).

The numbers are the worst adversary's on the given data model (Bayesian DP): the leakage of these
releases on these records, not a DP guarantee. Each is printed with its kind (exact, certified
bracket, Monte Carlo) and width, beside the naive answers (per-release BDPLs summed; per-release
profiles composed as if independent)."""


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def add_parser(sub) -> None:
    """Register ``bdpsim account`` on the top-level subparsers ``sub``."""
    p = subcommand(
        sub,
        "account",
        command,
        help="privacy accountant: joint delta(eps), Rényi, BDPL of many releases on correlated records",
        description="The joint privacy profile delta(eps), epsilon(delta), Rényi divergences, BDPL "
        "and optimal attack of every release of CONFIG together (independent noises, the same "
        "records), over every adversary.",
        epilog=EPILOG,
    )
    p.add_argument(
        "config",
        help="accountant config ([model], [[release]], [account]), a run config of the continual "
        "kind, or a bundled name",
    )
    p.add_argument(
        "--epsilon",
        type=_number,
        nargs="+",
        metavar="EPS",
        help="delta(eps) at these eps (>= 0); any of --epsilon, --delta, --alpha replaces the "
        "[account] table's asks",
    )
    p.add_argument(
        "--delta", type=_number, nargs="+", metavar="D", help="epsilon(delta) at these delta in (0, 1)"
    )
    p.add_argument(
        "--alpha", type=_number, nargs="+", metavar="A", help="Rényi divergences (alpha > 1; inf: BDPL)"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--plot", metavar="PATH", help="write the delta(eps) and trade-off curves (PNG/PDF/SVG)")


def command(a) -> int:
    from ..accounting import account
    from ..accounting.asks import check_alpha, check_delta, check_epsilon
    from ..accounting.report import account_report, format_report
    from ..pipeline.account_config import load_account_config

    eps = [check_epsilon(e) for e in a.epsilon] if a.epsilon else None
    dls = [check_delta(d) for d in a.delta] if a.delta else None
    als = [check_alpha(x) for x in a.alpha] if a.alpha else None
    if a.plot is not None:  # before the work: an empty or unwritable path, not a temporary file's name
        from ..figures.accounting import check_plot_path

        check_plot_path(a.plot)
        check_writable_file("--plot", a.plot)
    cfg = quietly(load_account_config, a.config)  # its warnings after it, as run's
    acc = account(cfg.model, list(cfg.releases), sizes=cfg.sizes, targets=cfg.targets, seed=cfg.seed)
    asked = eps is not None or dls is not None or als is not None  # the flags replace [account]'s asks
    rep = account_report(
        acc,
        (eps or []) if asked else cfg.epsilon,
        (dls or []) if asked else cfg.delta,
        (als or []) if asked else cfg.alpha,
        () if asked else cfg.fpr,
    )
    if a.plot:
        from ..figures.accounting import plot_account

        plot_account(acc, a.plot, title=cfg.title)
        print(f"wrote {a.plot}", file=sys.stderr)  # stderr: --json keeps stdout one document
    if a.json:  # inf (an unbounded BDPL, a bracket's open end) as null: its kind says why
        print(json.dumps(finite_json(rep), indent=2, default=str, allow_nan=False))
    else:
        print(format_report(rep, cfg.title))
    return 0
