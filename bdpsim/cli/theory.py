"""``bdpsim bounds`` and ``bdpsim worst-case``: argument parsing and printing for the
theoretical bounds (paper Thm 4.3, 5.5/5.8, 6.2; thesis eq. 20) and the worst-case searches."""

from __future__ import annotations

import json
import math

from ..core.errors import ConfigError, naming
from .progress import add_quiet_option

EPILOG_BOUNDS = """\
examples:
  bdpsim bounds markov --transition "[[0.882,0.118],[0.305,0.695]]" --epsilon 1
  bdpsim bounds markov --gamma 5 --epsilon 1 --n 10
  bdpsim bounds gaussian --rho 0.275 --m 3 --epsilon 1
  bdpsim bounds general --m 10 --epsilon 0.5
  bdpsim bounds markov --gamma 5 --epsilon 1 --json   (machine-readable)
"""

JSON_HELP = "print one JSON object instead of the table (inf and nan as null, each with its reason)"


def _json_matrix(text: str):
    """``--transition``: a JSON matrix (checked when the command runs: one ``field = value: rule`` line)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _check_matrix(value) -> list:
    ok = (
        isinstance(value, list)
        and len(value) >= 1
        and all(
            isinstance(r, list)
            and len(r) == len(value[0])
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in r)
            for r in value
        )
    )
    if not ok:
        raise ConfigError(
            "--transition", value, "must be a JSON matrix of numbers like [[0.9,0.1],[0.3,0.7]]"
        )
    return value


def add_parsers(sub, parser_class, formatter_class) -> None:
    """Add the ``bounds`` and ``worst-case`` subcommands (parsers of ``parser_class``, help laid
    out by ``formatter_class``) to the subparsers ``sub``."""
    _Parser, _Formatter = parser_class, formatter_class
    b = sub.add_parser(
        "bounds",
        help="print the theoretical BDPL bounds (paper §4-§6)",
        description="Print the theoretical upper bounds on the BDPL of an eps-DP Laplace "
        "mechanism and the Laplace calibration for eps-BDP: general m eps (paper "
        "Thm 4.3), Gaussian (Thm 5.5/5.8), Markov eps + 4 ln gamma (Thm 6.2) and "
        "Zhao et al.'s eps + 6 ln omega (thesis eq. 20).",
        epilog=EPILOG_BOUNDS,
        formatter_class=_Formatter,
    )
    bs = b.add_subparsers(dest="which", required=True, parser_class=_Parser)
    bm = bs.add_parser(
        "markov",
        help="Markov chain bound eps + 4 ln gamma and Zhao's eps + 6 ln omega",
        description="Markov chain bound eps + 4 ln gamma (paper Thm 6.2) and Zhao et al.'s "
        "eps + 6 ln omega (thesis eq. 20) of a transition matrix (needs every "
        "P > 0 and a stationary start), with the calibration for eps-BDP.",
        epilog='examples:\n  bdpsim bounds markov --transition "[[0.882,0.118],[0.305,0.695]]" --epsilon 1\n'
        "  bdpsim bounds markov --gamma 5 --epsilon 1 --n 10",
        formatter_class=_Formatter,
    )
    bm.set_defaults(action=_bounds_markov)
    g = bm.add_mutually_exclusive_group(required=True)
    g.add_argument("--transition", type=_json_matrix, help="transition matrix as JSON")
    g.add_argument("--gamma", type=float, help="symmetric chain of thesis Fig. 14 with this ratio")
    bm.add_argument("--epsilon", type=float, required=True, help="DP parameter of the mechanism")
    bm.add_argument("--n", type=int, help="number of records (adds the general bound n eps)")
    bm.add_argument("--json", action="store_true", help=JSON_HELP)
    bg = bs.add_parser(
        "gaussian",
        help="Gaussian bound (m^2/(4(1/rho-m+2)) + 1) eps",
        description="Gaussian bound (m^2 / (4 (1/rho - m + 2)) + 1) eps of the clipped Laplace "
        "sum on m records with max. Pearson correlation rho (paper Thm 5.5/5.8; "
        "needs rho (m - 2) < 1), beside the general bound m eps.",
        epilog="example:\n  bdpsim bounds gaussian --rho 0.275 --m 3 --epsilon 1",
        formatter_class=_Formatter,
    )
    bg.set_defaults(action=_bounds_gaussian)
    bg.add_argument("--rho", type=float, required=True, help="max. Pearson correlation")
    bg.add_argument("--m", type=int, required=True, help="number of correlated records")
    bg.add_argument("--epsilon", type=float, required=True, help="DP parameter of the mechanism")
    bg.add_argument("--json", action="store_true", help=JSON_HELP)
    bgen = bs.add_parser(
        "general",
        help="general bound m eps",
        description="General bound m eps on the BDPL of an eps-DP mechanism when at most "
        "m records are correlated (paper Thm 4.3).",
        epilog="example:\n  bdpsim bounds general --m 10 --epsilon 0.5",
        formatter_class=_Formatter,
    )
    bgen.set_defaults(action=_bounds_general)
    bgen.add_argument("--m", type=int, required=True, help="number of correlated records")
    bgen.add_argument("--epsilon", type=float, required=True, help="DP parameter of the mechanism")
    bgen.add_argument("--json", action="store_true", help=JSON_HELP)
    w = sub.add_parser(
        "worst-case",
        help="search the model class for the largest exact BDPL",
        description="Worst-case searches (exact objective, many local starts).\n"
        "gaussian: max over Sigma_rho and (i, K) of the unclipped-sum slope |a|;\n"
        "markov: max over stationary chains with max P / min P <= gamma of the\n"
        "exact BDPL of the eps-DP count (every adversary, K = {} included).",
        epilog="examples:\n  bdpsim worst-case gaussian --n 5 --rho 0.3\n"
        "  bdpsim worst-case markov --gamma 5 --n 6 --epsilon 1\n"
        "  bdpsim worst-case markov --gamma 5 --n 6 --epsilon 1 --json",
        formatter_class=_Formatter,
    )
    ws = w.add_subparsers(dest="which", required=True, parser_class=_Parser)
    wg = ws.add_parser(
        "gaussian",
        help="worst Sigma_rho for the unclipped Laplace sum",
        description="Maximise the slope |a| of the unclipped Laplace sum's BDPL |a| |x - x'| / beta "
        "over correlation matrices with |off-diagonal| <= rho and over adversaries "
        "(i, K), by L-BFGS-B from many starts; prints the worst matrix and the "
        "equicorrelated and Gaussian-bound references.",
        epilog="example:\n  bdpsim worst-case gaussian --n 5 --rho 0.3",
        formatter_class=_Formatter,
    )
    wg.set_defaults(action=_worst_gaussian)
    wg.add_argument("--n", type=int, required=True, help="records (2..12)")
    wg.add_argument("--rho", type=float, required=True, help="max. |correlation|, in [0, 1)")
    wg.add_argument("--noise-scale", type=float, default=10.0, help="Laplace beta (default 10)")
    wg.add_argument("--distance", type=float, default=10.0, help="|x - x'| (default 10)")
    wg.add_argument("--starts", type=int, default=40, help="local optimiser starts per known-set size")
    wg.add_argument("--seed", type=int, default=1, help="seed of the random starts")
    add_quiet_option(wg)
    wg.add_argument("--json", action="store_true", help=JSON_HELP)
    wm = ws.add_parser(
        "markov",
        help="worst chain for a given max/min transition ratio gamma",
        description="Search stationary chains with max P / min P <= gamma for the largest exact "
        "BDPL of the eps-DP Laplace count (every adversary, K = {} included), by "
        "Nelder-Mead from random starts; compares with the symmetric chain of "
        "thesis Fig. 14 and the Markov bound.",
        epilog="example:\n  bdpsim worst-case markov --gamma 5 --n 6 --epsilon 1",
        formatter_class=_Formatter,
    )
    wm.set_defaults(action=_worst_markov)
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
    wm.add_argument("--seed", type=int, default=1, help="seed of the random starts")
    add_quiet_option(wm)
    wm.add_argument("--json", action="store_true", help=JSON_HELP)


def _fmt_bound(b) -> str:
    return f"{b.value:.4f}" if math.isfinite(b.value) else f"not applicable ({b.reason})"


def _strict(value):
    """``value`` for strict JSON: non-finite floats become ``null`` (their reasons travel beside them)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def _bound_data(b) -> dict:
    return {"value": b.value, "reason": "" if math.isfinite(b.value) else b.reason}


def _emit(a, lines: list[str], data: dict) -> None:
    """The table (``lines``) or, with ``--json``, ``data`` as one JSON object."""
    print(json.dumps(_strict(data), indent=2) if getattr(a, "json", False) else "\n".join(lines))


def command_bounds(a) -> int:
    _emit(a, *a.action(a))  # printed only once every value is computed: no results before an error
    return 0


def _bounds_markov(a) -> tuple[list[str], dict]:
    from .. import bounds as B

    lines: list[str] = []
    try:
        with naming(fields={"P": "--transition", "gamma": "--gamma"}):
            P = (
                B.symmetric_chain(a.gamma)
                if a.gamma is not None
                else B.transition_matrix(_check_matrix(a.transition))
            )
    except ConfigError as exc:
        raise ConfigError(f"--{exc.field.lstrip('-')}", exc.value, exc.rule) from None
    gam, om = B.gamma_of(P), B.omega_of(P)
    lines.append(f"transition     {P.tolist()}")
    from ..kernels.chains.transition import chain_structure

    what = chain_structure(P)
    if what is not None:
        lines.append(f"chain          {what}: the Markov and Zhao bounds do not apply")
    lines.append(
        f"gamma          {gam:.6g}   4 ln gamma = {4 * math.log(gam):.4f}"
        if math.isfinite(gam)
        else "gamma          inf"
    )
    lines.append(
        f"omega          {om:.6g}   6 ln omega = {6 * math.log(om):.4f}"
        if math.isfinite(om)
        else "omega          inf"
    )
    markov, zhao = B.markov_bound(a.epsilon, P), B.zhao_bound(a.epsilon, P)
    lines.append(
        f"markov bound   {_fmt_bound(markov)}   (eps + 4 ln gamma; needs P > 0 and a stationary start)"
    )
    lines.append(f"zhao bound     {_fmt_bound(zhao)}   (eps + 6 ln omega)")
    data: dict = {
        "transition": P.tolist(),
        "epsilon": a.epsilon,
        "chain": what or "",
        "gamma": gam,
        "omega": om,
        "markov_bound": _bound_data(markov),
        "zhao_bound": _bound_data(zhao),
    }
    if a.n is not None:
        general = B.general_bound(a.epsilon, a.n)
        lines.append(f"general bound  {_fmt_bound(general)}   (n eps)")
        data.update(n=a.n, general_bound=_bound_data(general))
    tau = B.calibrate_markov(a.epsilon, P)
    if math.isfinite(tau):
        why = ""
        lines.append(f"calibration    tau = {tau:.4f} for eps-BDP (Markov)")
    elif not math.isfinite(markov.value):  # no bound, so no calibration by it: not a rule on eps
        why = f"not applicable: the Markov bound {markov.reason}"
        lines.append(f"calibration    {why}")
    else:
        why = f"eps-BDP by the Markov bound needs eps > 4 ln gamma = {4 * math.log(gam):.4f}"
        lines.append(f"calibration    {why}")
    data["calibration"] = {"tau": tau, "reason": why}
    return lines, data


def _bounds_gaussian(a) -> tuple[list[str], dict]:
    from .. import bounds as B

    lines: list[str] = []
    h = B.gaussian_factor(a.rho, a.m)
    lines.append(
        f"factor h       {h:.4f}   (m^2/(4(1/rho - m + 2)) + 1)"
        if math.isfinite(h)
        else "factor h       not applicable (needs rho (m - 2) < 1)"
    )
    gauss, general = B.gaussian_bound(a.epsilon, a.rho, a.m), B.general_bound(a.epsilon, a.m)
    lines.append(f"gaussian bound {_fmt_bound(gauss)}")
    lines.append(f"general bound  {_fmt_bound(general)}")
    return lines, {
        "epsilon": a.epsilon,
        "rho": a.rho,
        "m": a.m,
        "factor": h,
        "gaussian_bound": _bound_data(gauss),
        "general_bound": _bound_data(general),
    }


def _bounds_general(a) -> tuple[list[str], dict]:
    from .. import bounds as B

    general = B.general_bound(a.epsilon, a.m)
    return [f"general bound  {_fmt_bound(general)}"], {
        "epsilon": a.epsilon,
        "m": a.m,
        "general_bound": _bound_data(general),
    }


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


def command_worst_case(a) -> int:
    import numpy as np

    from ..studies import worstcase as W
    from .progress import Progress

    _check_worst_case(a)
    with Progress("bdpsim worst-case", "searches", quiet=a.quiet) as bar:
        lines, data = a.action(a, np.random.default_rng(a.seed), W, bar)
    _emit(a, lines, data)
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
        f"worst exact BDPL found   {r.bdpl:.6f}  ({r.evaluations} chains evaluated exhaustively)",
    ]
    if math.isfinite(r.symmetric_bdpl):
        out.append(f"symmetric chain (Fig.14) {r.symmetric_bdpl:.6f}")
    out.append(f"Markov bound             {r.markov_bound:.6f}")
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
