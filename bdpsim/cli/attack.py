"""``bdpsim attack``: what the leakage means to an attacker — the largest advantage and the worst
TPR at low FPR over every adversary, exact, beside the pure-eps reading of the BDPL.

Only argument parsing and printing live here; the work is :func:`bdpsim.attack.attack_risk`.
"""

from __future__ import annotations

from .attack_report import add_fpr_argument, add_report_arguments, report
from .base import flag_error, subcommand, subcommands
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


def add_parser(sub) -> None:
    """Register ``bdpsim attack`` (``markov``, ``config``) on the top-level subparsers ``sub``."""
    from . import attack_config

    c = subcommand(
        sub,
        "attack",
        command,
        help="the optimal attack: advantage and TPR at low FPR, exact",
        description="What the leakage means to an attacker: the optimal test's advantage "
        "and true-positive rate at low false-positive rates, exact, for the "
        "worst adversary.",
        epilog=EPILOG,
    )
    cs = subcommands(c, "model_kind", "MODEL")
    m = subcommand(
        cs,
        "markov",
        command,
        help="a count (or state sum) plus noise on a Markov chain",
        description="The worst adversary's optimal attack on a count (or sum of per-state "
        "values) plus noise over a Markov chain of n records.",
        epilog=EPILOG,
    )
    add_chain_arguments(m)
    add_initial_argument(m)
    from ..kernels.noise.traits import DEFAULT_LAW, law_names

    m.add_argument(
        "--noise",
        default=DEFAULT_LAW,
        choices=law_names(calibratable=True),
        help=f"noise law (default {DEFAULT_LAW})",
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
    attack_config.add_parser(cs)


#: a library field -> the flag of ``attack markov`` that sets it
FLAGS = {
    "epsilon": "--epsilon",
    "scale": "--scale",
    "sigma": "--sigma",
    "fpr": "--fpr",
    "counted_states": "--counted",
    "state_values": "--state-values",
    "values": "--state-values",
    "run.known_sizes": "--min-known",
    "model.n": "--n",
}


def command(a) -> int:
    """Run ``bdpsim attack markov``: a table, or one JSON object (``--json``)."""
    from ..attack import attack_risk
    from ..attack.tradeoff import check_fpr
    from ..core.errors import ConfigError
    from ..kernels.noise.laws import NOISE_LAWS, noise_from_params
    from ..mechanisms.noisy import NoisyQueryMechanism
    from .attack_report import check_plot_path, plot, search_progress

    check_fpr("--fpr", a.fpr)
    check_plot_path(a.plot)
    check_chain_flags(a)
    law = NOISE_LAWS[a.noise]
    if a.epsilon is not None and not law.pure_dp and "epsilon" not in law.keys:  # not an eps-DP law
        amount = "--" + str(law.parameter_name).replace("_", "-")
        raise ConfigError(
            "--epsilon", a.epsilon, f"{a.noise} noise is not eps-DP for any eps: give its amount {amount}"
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
        named = flag_error(err, FLAGS)
        if named is None:
            raise
        if named.field == "--epsilon" and a.epsilon is None and a.scale is not None:  # eps from --scale
            named = ConfigError("--scale", a.scale, named.rule)
        raise named from None
    if a.plot:
        eps = (
            f", eps = {mech.epsilon:.4g}"
            if mech.epsilon is not None
            else f", {noise.parameter_name} = {noise.parameter:.4g}"
        )
        plot(a, risk, f"Markov chain, n = {a.n}, {noise.name} noise{eps}")
    return report(a, model, mech, risk, rows)


__all__ = ["EPILOG", "add_parser", "command"]
