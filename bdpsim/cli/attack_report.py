"""The report of ``bdpsim attack`` (``markov`` and ``config``): the worst adversary's advantage and
TPR at low FPR as a table or one JSON object, shared by both subcommands."""

from __future__ import annotations

import json
import math

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


def _adversary_json(adv) -> dict:
    return {
        k: (list(v) if isinstance(v, tuple) else v)
        for k, v in {
            "i": adv.i,
            "known": adv.known,
            "x_known": adv.x_known,
            "x": adv.x,
            "x_prime": adv.x_prime,
        }.items()
    }


def _describe(adv, n: int) -> str:
    k = len(adv.known)
    return (
        f"i={adv.i}, |K|={k}, x={adv.x}, x'={adv.x_prime}"
        if k < n - 1 or k == 0
        else f"i={adv.i}, |K|={k} (all others), x={adv.x}, x'={adv.x_prime}"
    )


def _worst_bdpl(model, mech, sizes) -> float:
    """The exact BDPL over every adversary (what eps-BDP states; its pure-eps curve bounds every attack)."""
    from ..api import exact_bdpl

    return float(exact_bdpl(model, mech, sizes=sizes).bdpl)


def report(a, model, mech, sizes, risk, rows) -> int:
    """Print the worst adversary's attack (``risk``, ``rows``: ``(fpr, WorstValue)``) as a table, or
    one JSON object with ``a.json``; shared by ``attack markov`` and ``attack config``."""
    noise = mech.noise
    e = _worst_bdpl(model, mech, sizes)
    pure_adv = math.tanh(e / 2) if math.isfinite(e) else 1.0
    if a.json:  # an infinite BDPL (Gaussian noise) is null
        print(
            json.dumps(
                finite_json(
                    {
                        "advantage": risk.advantage,
                        "adversary": _adversary_json(risk.adversary),
                        "bdpl": e,
                        "adversary_bdpl": risk.bdpl,
                        "pure_eps_advantage": pure_adv,
                        "bayes_success": risk.bayes_success(0.5),
                        "noise": noise.name,
                        "noise_parameter": float(noise.parameter),
                        "tpr": [
                            {
                                "fpr": f,
                                "tpr": w.value,
                                "upper": w.upper,
                                "certified": w.certified,
                                "pure_eps_tpr": min(1.0, math.exp(e) * f) if math.isfinite(e) else 1.0,
                                "adversary": _adversary_json(w.adversary),
                            }
                            for f, w in rows
                        ],
                    }
                )
            )
        )
        return 0
    print(f"exact BDPL over every adversary {e:.6g} nats")
    print(f"worst adversary: {_describe(risk.adversary, model.n)} (its BDPL {risk.bdpl:.6g} nats)")
    print(f"advantage (max TPR - FPR) {risk.advantage:.6g}")
    print(f"  (the pure-eps curve of the BDPL allows {pure_adv:.6g})")
    print(f"Bayes success at prior 1/2 {risk.bayes_success(0.5):.6g}")
    print(f"{'FPR':>8} {'TPR':>10} {'bound':>10} {'pure-eps':>9}  attained by")
    for f, w in rows:
        pure = min(1.0, math.exp(e) * f) if math.isfinite(e) else 1.0
        bound = "exact" if w.certified else f"{w.upper:.6g}"
        print(f"{f:>8.3g} {w.value:>10.6g} {bound:>10} {pure:>9.4g}  {_describe(w.adversary, model.n)}")
    return 0
