"""``bdpsim worst-case``: search a model class for the largest exact BDPL (exact objective, many
local starts); argument parsing and printing only, the searches are :mod:`bdpsim.studies.worstcase`."""

from __future__ import annotations

import math

from ..core.errors import ConfigError
from .base import JSON_HELP, emit, subcommand, subcommands
from .progress import add_quiet_option


def add_parser(sub) -> None:
    """Register ``bdpsim worst-case`` (``gaussian``, ``markov``) on the top-level subparsers ``sub``."""
    w = subcommand(
        sub,
        "worst-case",
        command,
        help="search the model class for the largest exact BDPL",
        description="Worst-case searches (exact objective, many local starts).\n"
        "gaussian: max over Sigma_rho and (i, K) of the unclipped-sum slope |a|;\n"
        "markov: max over stationary chains with max P / min P <= gamma of the\n"
        "exact BDPL of the eps-DP count (every adversary, K = {} included).",
        epilog="examples:\n  bdpsim worst-case gaussian --n 5 --rho 0.3\n"
        "  bdpsim worst-case markov --gamma 5 --n 6 --epsilon 1\n"
        "  bdpsim worst-case markov --gamma 5 --n 6 --epsilon 1 --json",
    )
    ws = subcommands(w, "which", "MODEL")
    wg = subcommand(
        ws,
        "gaussian",
        command,
        help="worst Sigma_rho for the unclipped Laplace sum",
        description="Maximise the slope |a| of the unclipped Laplace sum's BDPL |a| |x - x'| / beta "
        "over correlation matrices with |off-diagonal| <= rho and over adversaries "
        "(i, K), by L-BFGS-B from many starts; prints the worst matrix and the "
        "equicorrelated and Gaussian-bound references.",
        epilog="example:\n  bdpsim worst-case gaussian --n 5 --rho 0.3",
        action=_worst_gaussian,
    )
    wg.add_argument("--n", type=int, required=True, help="records (2..12)")
    wg.add_argument("--rho", type=float, required=True, help="max. |correlation|, in [0, 1)")
    wg.add_argument("--noise-scale", type=float, default=10.0, help="Laplace beta (default 10)")
    wg.add_argument("--distance", type=float, default=10.0, help="|x - x'| (default 10)")
    wg.add_argument("--starts", type=int, default=40, help="local optimiser starts per known-set size")

    wm = subcommand(
        ws,
        "markov",
        command,
        help="worst chain for a given max/min transition ratio gamma",
        description="Search stationary chains with max P / min P <= gamma for the largest exact "
        "BDPL of the eps-DP Laplace count (every adversary, K = {} included), by "
        "Nelder-Mead from random starts; compares with the symmetric chain of "
        "thesis Fig. 14 and the Markov bound.",
        epilog="example:\n  bdpsim worst-case markov --gamma 5 --n 6 --epsilon 1",
        action=_worst_markov,
    )
    wm.add_argument(
        "--gamma",
        type=float,
        required=True,
        help="max / min transition probability of the chains searched (>= 1)",
    )
    wm.add_argument("--n", type=int, default=6, help="records (2..9; default 6)")
    wm.add_argument(
        "--epsilon", type=float, required=True, help="DP parameter of the Laplace count (noise scale 1/eps)"
    )
    wm.add_argument("--states", type=int, default=2, help="2 or 3 (default 2)")
    wm.add_argument("--starts", type=int, default=8, help="Nelder-Mead starts (default 8)")
    for leaf in (wg, wm):
        leaf.add_argument("--seed", type=int, default=1, help="seed of the random starts")
        add_quiet_option(leaf)
        leaf.add_argument("--json", action="store_true", help=JSON_HELP)


def _finite(flag: str, value: float, rule: str, ok) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and ok(value)):
        raise ConfigError(flag, value, rule)


def _check_worst_case(a) -> None:
    """Every argument of ``worst-case`` checked before any search (one line, exit 2)."""
    _finite("--starts", a.starts, "must be an integer >= 1", lambda v: v >= 1)
    if a.action is _worst_gaussian:
        _finite("--n", a.n, "must be an integer in 2..12", lambda v: 2 <= v <= 12)
        _finite("--rho", a.rho, "must be a finite number in [0, 1)", lambda v: 0 <= v < 1)
        _finite("--noise-scale", a.noise_scale, "must be a finite number > 0", lambda v: v > 0)
        _finite("--distance", a.distance, "must be a finite number > 0 (|x - x'|)", lambda v: v > 0)
    else:
        _finite("--gamma", a.gamma, "must be a finite number >= 1", lambda v: v >= 1)
        _finite("--epsilon", a.epsilon, "must be a finite number > 0", lambda v: v > 0)
        _finite(
            "--n",
            a.n,
            "must be an integer in 2..9 (each evaluation is an exhaustive search)",
            lambda v: 2 <= v <= 9,
        )
        _finite("--states", a.states, "must be 2 or 3", lambda v: v in (2, 3))


def command(a) -> int:
    """Run ``bdpsim worst-case ...``: every argument checked first, then the search (a progress bar),
    then the table or JSON."""
    import numpy as np

    from ..studies import worstcase as W
    from .progress import Progress

    _check_worst_case(a)
    with Progress("bdpsim worst-case", "searches", quiet=a.quiet) as bar:
        lines, data = a.action(a, np.random.default_rng(a.seed), W, bar)
    emit(a, lines, data)
    return 0


def _worst_gaussian(a, rng, W, progress=None) -> tuple[list[str], dict]:
    import numpy as np

    r = W.worst_gaussian_sum(a.n, a.rho, rng, a.starts, progress=progress)
    out = [
        f"Gaussian Sigma_rho, n = {a.n}, rho = {a.rho}, unclipped sum + Lap({a.noise_scale:g}), "
        f"|x - x'| = {a.distance:g}",
        f"worst slope |a|          {r.slope:.6f}  (target i = 0, known K = {{1..{r.known_size}}}; "
        f"{r.starts} starts per |K|)",
    ]
    if r.capped:
        out.append(
            f"note: only {r.starts} of {a.starts} starts are positive definite (random draws capped at "
            f"{50 * a.starts}; most U[-rho, rho] matrices are not PD for n = {a.n}, rho = {a.rho})"
        )
    out.append(f"equicorrelated, K = {{}}  {r.equicorrelated:.6f}  (1 + (n - 1) rho)")
    worst = r.bdpl(a.distance, a.noise_scale)
    out.append(f"worst BDPL(x, x')        {worst:.6f}")
    h = r.gaussian_factor
    bound = h * a.distance / a.noise_scale if math.isfinite(h) else math.nan
    out.append(
        "Gaussian bound (m = n)   "
        + (f"{bound:.6f}" if math.isfinite(h) else "not applicable (rho (n - 2) >= 1)")
    )
    out.append("worst correlation matrix:")
    out.append(np.array2string(r.correlation, precision=4, suppress_small=True))
    data = {
        "n": a.n,
        "rho": a.rho,
        "noise_scale": a.noise_scale,
        "distance": a.distance,
        "slope": r.slope,
        "known_size": r.known_size,
        "starts": r.starts,
        "requested_starts": a.starts,
        "equicorrelated": r.equicorrelated,
        "bdpl": worst,
        "gaussian_bound": bound,
        "gaussian_bound_reason": "" if math.isfinite(h) else "rho (n - 2) >= 1",
        "correlation": r.correlation.tolist(),
    }
    return out, data


def _worst_markov(a, rng, W, progress=None) -> tuple[list[str], dict]:
    import numpy as np

    r = W.worst_markov_chain(
        a.gamma, a.n, a.epsilon, rng, states=a.states, starts=a.starts, progress=progress
    )
    out = [
        f"stationary {a.states}-state chains with max P / min P <= {a.gamma:g}, n = {a.n}, eps = "
        f"{a.epsilon:g}",
        f"worst exact BDPL found   {r.bdpl:.6f} nats  ({r.evaluations} chains evaluated exhaustively)",
    ]
    if math.isfinite(r.symmetric_bdpl):
        out.append(f"symmetric chain (Fig.14) {r.symmetric_bdpl:.6f} nats")
    out.append(f"Markov bound             {r.markov_bound:.6f} nats")
    out.append("worst transition matrix:")
    out.append(np.array2string(r.transition, precision=4))
    data = {
        "gamma": a.gamma,
        "n": a.n,
        "epsilon": a.epsilon,
        "states": a.states,
        "bdpl": r.bdpl,
        "evaluations": r.evaluations,
        "symmetric_bdpl": r.symmetric_bdpl,
        "markov_bound": r.markov_bound,
        "transition": r.transition.tolist(),
    }
    return out, data
