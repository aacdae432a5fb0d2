"""The report of ``bdpsim attack`` (``markov`` and ``config``): the adversary of largest advantage,
its advantage, the worst TPR at low FPRs and the exact BDPL over every adversary, as a table or one
JSON object; the work is :func:`bdpsim.attack.attack_risk` (one search for all of it)."""

from __future__ import annotations

import json
import math
import sys

from .base import finite_json

#: --fpr default: the low false-positive rates attacks are judged at
DEFAULT_FPR = (1e-3, 1e-2, 0.1)


def add_fpr_argument(parser) -> None:
    """``--fpr`` (the false-positive rates the TPR is reported at) on ``parser``: both
    ``bdpsim attack`` subcommands take it alike."""
    parser.add_argument(
        "--fpr",
        type=float,
        nargs="+",
        default=list(DEFAULT_FPR),
        help="false-positive rates, each in (0, 1) (default " + " ".join(f"{f:g}" for f in DEFAULT_FPR) + ")",
    )


def add_report_arguments(parser) -> None:
    """``--json``, ``--quiet`` and ``--plot`` of both ``bdpsim attack`` subcommands."""
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar (nor, without a terminal, the progress line every 10 s)",
    )
    parser.add_argument(
        "--plot",
        metavar="PATH",
        help="also draw the ROC figure (linear and log axes) into PATH (.png, .pdf or .svg): "
        "the worst TPR at every FPR (attained, and the bound for every adversary) behind the "
        "table, against the pure-eps curve",
    )


def search_progress(quiet: bool, desc: str = "bdpsim attack"):
    """A :class:`~bdpsim.cli.progress.Progress` of the profile searches of
    :func:`bdpsim.attack.attack_risk` (a bar on a terminal, else a line every 10 s on stderr:
    silent for a quick search; nothing with ``quiet``), to close after the work."""
    from .progress import Progress

    return Progress(desc, "profile searches", quiet=quiet)


def check_plot_path(path) -> None:
    """A ``--plot`` path the figure can be written to (its format from the suffix), refused before
    any work."""
    if path is None:
        return
    from pathlib import Path

    from ..core.errors import ConfigError
    from .base import check_writable_file

    p = Path(path)
    if p.suffix.lower() not in (".png", ".pdf", ".svg"):
        raise ConfigError("--plot", str(path), "must end in .png, .pdf or .svg (the figure's format)")
    if not p.parent.exists() and str(p.parent) not in ("", "."):
        raise ConfigError("--plot", str(path), f"its folder {p.parent} does not exist")
    check_writable_file("--plot", str(path))


def plot(a, risk, title: str) -> None:
    """Draw the ROC figure of ``risk`` into ``a.plot`` (the curves behind the table's TPRs) and say
    which file was written."""
    from ..figures.attack import save_attack_roc
    from ..studies.attack_roc import risk_roc_data

    save_attack_roc(risk_roc_data(risk, marks=a.fpr), a.plot, title)
    print(f"ROC figure written to {a.plot}", file=sys.stderr)


#: most known records listed one by one in a table (the JSON lists every one)
KNOWN_SHOWN = 12


def known_words(model, adversary) -> str:
    """What the adversary knows, in the model's words: ``knows Rain = yes, Wind = low``; a chain's
    runs of consecutive records with one value together (``knows records 0-24 = 1, 26 = 0``); past
    :data:`KNOWN_SHOWN` items, how many more (``--json`` lists them all)."""
    from ..models.base import adversary_words

    w = adversary_words(model, adversary)
    known, values = w["known"], w["x_known"]
    if not known:
        return "knows no other record"
    names, states = w.get("known_names"), w.get("x_known_names")
    if names is None and states is None:  # unnamed records: runs of equal values
        items, start = [], 0
        for k in range(1, len(known) + 1):
            if k == len(known) or known[k] != known[k - 1] + 1 or values[k] != values[start]:
                lo, hi = known[start], known[k - 1]
                items.append(f"{lo}-{hi} = {values[start]}" if hi > lo else f"{lo} = {values[start]}")
                start = k
        head = "records " if len(known) > 1 else "record "
    else:
        who = names if names is not None else [str(k) for k in known]
        what = states if states is not None else values
        items = [f"{r} = {v}" for r, v in zip(who, what)]
        head = ""
    more = f" and {len(items) - KNOWN_SHOWN} more (--json lists them)" if len(items) > KNOWN_SHOWN else ""
    return f"knows {head}{', '.join(items[:KNOWN_SHOWN])}{more}"


def report(a, model, mech, risk, rows) -> int:
    """Print the attack (``risk``, ``rows``: ``(fpr, WorstValue)``) as a table, or one JSON object
    with ``a.json``; shared by ``attack markov`` and ``attack config``. Records and states are
    named in the model's own words beside their indices (:func:`bdpsim.models.base.adversary_words`)."""
    from ..attack.tradeoff import pure_dp_tpr
    from ..models.base import adversary_words, describe_adversary

    noise = getattr(mech, "noise", None)
    e = float(risk.bdpl_max) if risk.bdpl_max is not None else math.nan
    pure_adv = math.tanh(e / 2) if math.isfinite(e) else 1.0

    def pure_tpr(f: float) -> float:
        return pure_dp_tpr(e, f)  # no overflow past e^709

    drawn = risk.confidence is not None  # Monte Carlo: every number an estimate with its interval
    adv = risk.worst_advantage
    if a.json:  # an infinite BDPL (Gaussian noise) is null
        out = {
            "kind": risk.kind,
            "bdpl_max": e,
            "bdpl_kind": risk.bdpl_kind,
            "advantage": risk.advantage,
            "adversary": adversary_words(model, risk.adversary),
            "adversary_bdpl": risk.adversary_bdpl,
            "pure_eps_advantage": pure_adv,
            "bayes_success": risk.bayes_success(0.5),
            "tpr": [
                {
                    "fpr": f,
                    "tpr": w.value,
                    "upper": w.upper,
                    "certified": w.certified,
                    **({"lower": w.low} if drawn else {}),
                    "pure_eps_tpr": pure_tpr(f),
                    "adversary": adversary_words(model, w.adversary),
                }
                for f, w in rows
            ],
        }
        if drawn:
            out.update(
                confidence=risk.confidence,
                advantage_lower=adv.low,
                advantage_upper=adv.upper,
                bayes_success=(1.0 + adv.value) / 2,
                bayes_success_lower=(1.0 + adv.low) / 2,
                bayes_success_upper=(1.0 + adv.upper) / 2,
            )
        if noise is not None:
            out.update(noise=noise.name, noise_parameter=float(noise.parameter))
        print(json.dumps(finite_json(out)))
        return 0
    if drawn:
        return _report_drawn(model, risk, rows, e, pure_adv, pure_tpr)
    print(f"exact BDPL over every adversary (bdpl_max) {e:.6g} nats")
    print("adversary of largest advantage (the worst adversary):")
    print(f"  {describe_adversary(model, risk.adversary)}")
    print(f"  {known_words(model, risk.adversary)}")
    print(f"  its own BDPL {risk.adversary_bdpl:.6g} nats")
    from ..core.number_kinds import EXACT

    kind = " (the middle of a certified bracket)" if risk.kind != EXACT else " (exact)"
    print(f"advantage (max TPR - FPR) {risk.advantage:.6g}{kind}")
    print(f"  (the pure-eps curve of bdpl_max allows {pure_adv:.6g})")
    print(f"Bayes success at prior 1/2 {risk.bayes_success(0.5):.6g}")
    print("worst TPR at each FPR over every adversary (bound: for every adversary)")
    print(f"{'FPR':>7} {'TPR':>9} {'bound':>9} {'pure-eps':>8}  attained by")
    for f, w in rows:
        bound = "exact" if w.certified else f"{w.upper:.6g}"
        who = describe_adversary(model, w.adversary, short=True)
        print(f"{f:>7.3g} {w.value:>9.6g} {bound:>9} {pure_tpr(f):>8.4g}  {who}")
    return 0


def _report_drawn(model, risk, rows, e: float, pure_adv: float, pure_tpr) -> int:
    """The table of :func:`report` for a Monte Carlo attack (the Laplace histogram beyond the box
    brackets): each number an estimate with its interval and the confidence it holds at."""
    from ..core.number_kinds import EXACT
    from ..models.base import describe_adversary

    conf = f"{risk.confidence:.0%}"
    adv = risk.worst_advantage

    def interval(v: float, lo: float, hi: float) -> str:
        return f"{v:.4g} [{lo:.4g}, {hi:.4g}]"

    print(f"Monte Carlo: each interval below holds with probability at least {conf}")
    print("  (the accountant's window sweep: bdpsim account gives the same numbers)")
    if risk.bdpl_kind == EXACT:
        print(f"exact BDPL over every adversary (bdpl_max) {e:.6g} nats")
    else:
        print(f"BDPL over every adversary (bdpl_max) at most {e:.6g} nats (a certified upper end)")
    print("adversary of largest estimated advantage (the worst adversary):")
    print(f"  {describe_adversary(model, risk.adversary)}")
    print(f"  {known_words(model, risk.adversary)}")
    own = "(exact)" if risk.bdpl_kind == EXACT else "(at most)"
    print(f"  its own BDPL {risk.adversary_bdpl:.6g} nats {own}")
    print(f"advantage (max TPR - FPR) {interval(adv.value, adv.low, adv.upper)}")
    print(f"  (the pure-eps curve of bdpl_max allows {pure_adv:.6g})")
    b = [(1.0 + v) / 2 for v in (adv.value, adv.low, adv.upper)]
    print(f"Bayes success at prior 1/2 {interval(*b)}")
    print(f"worst TPR at each FPR over every adversary: estimate and {conf} interval")
    print("  (attained by: the adversary of the largest estimate)")
    print(f"{'FPR':>7} {'TPR':>9} {'low':>9} {'high':>9} {'pure-eps':>8}  attained by")
    for f, w in rows:
        who = describe_adversary(model, w.adversary, short=True)
        print(f"{f:>7.3g} {w.value:>9.4g} {w.low:>9.4g} {w.upper:>9.4g} {pure_tpr(f):>8.4g}  {who}")
    return 0


def report_local(a, model, release, risk) -> int:
    """Print the optimal attack on a local release of every record (``risk``: a
    :class:`~bdpsim.attack.local.LocalAttackRisk`): the advantage and the worst TPR at each
    ``a.fpr`` as certified brackets, each with the adversary attaining its lower end (the TPR: the
    worst adversary's own most powerful test), or one JSON object with ``a.json``."""
    from ..models.base import adversary_words, describe_adversary

    adv = risk.advantage
    rows = list(zip(a.fpr, risk.worst_tprs(a.fpr)))
    if a.json:
        out = {
            "release": release.label,
            "advantage": {"low": adv.low, "high": adv.high, "kind": adv.kind},
            "adversary": adversary_words(model, risk.adversary),
            "worst": risk.worst,
            "tpr": [
                {
                    "fpr": f,
                    "low": b.low,
                    "high": b.high,
                    "kind": b.kind,
                    "adversary": adversary_words(model, b.adversary) if b.adversary is not None else None,
                }
                for f, b in rows
            ],
        }
        print(json.dumps(finite_json(out)))
        return 0
    print(f"optimal attack on a local release of every record: {release.label}")
    print("adversary of largest advantage (the worst adversary; the lower end of its bracket):")
    print(f"  {describe_adversary(model, risk.adversary)}")
    print(f"  {known_words(model, risk.adversary)}")
    print(f"advantage (max TPR - FPR) {adv.text(6)}")
    print("worst TPR at each FPR over every adversary: its own most powerful test, a certified bracket")
    print("(the lower end attained by the adversary named, the upper end for every adversary)")
    print(f"{'FPR':>7} {'TPR low':>10} {'TPR high':>10} {'width':>8}  attained by")
    for f, b in rows:
        who = describe_adversary(model, b.adversary, short=True) if b.adversary is not None else "-"
        print(f"{f:>7.3g} {b.low:>10.6g} {b.high:>10.6g} {b.width:>8.2g}  {who}")
    return 0
