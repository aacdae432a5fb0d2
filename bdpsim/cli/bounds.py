"""``bdpsim bounds``: the theoretical upper bounds on the BDPL of an eps-DP Laplace mechanism and the
calibrations they give (paper Thm 4.3, 5.5/5.8, 6.2; thesis eq. 20); argument parsing and printing
only, the bounds are :mod:`bdpsim.bounds`."""

from __future__ import annotations

import math

from ..core.errors import ConfigError, naming
from .base import JSON_HELP, emit, subcommand, subcommands
from .chain import MATRIX_EXAMPLE, parse_matrix

EPILOG = """\
examples:
  bdpsim bounds markov --transition "[[0.882,0.118],[0.305,0.695]]" --epsilon 1
  bdpsim bounds markov --gamma 5 --epsilon 1 --n 10
  bdpsim bounds gaussian --rho 0.275 --m 3 --epsilon 1
  bdpsim bounds general --m 10 --epsilon 0.5
  bdpsim bounds markov --gamma 5 --epsilon 1 --json   (machine-readable)
"""


def add_parser(sub) -> None:
    """Register ``bdpsim bounds`` (``markov``, ``gaussian``, ``general``) on the top-level
    subparsers ``sub``."""
    b = subcommand(
        sub,
        "bounds",
        command,
        help="print the theoretical BDPL bounds (paper §4-§6)",
        description="Print the theoretical upper bounds on the BDPL of an eps-DP Laplace "
        "mechanism and the Laplace calibration for eps-BDP: general m eps (paper "
        "Thm 4.3), Gaussian (Thm 5.5/5.8), Markov eps + 4 ln gamma (Thm 6.2) and "
        "Zhao et al.'s eps + 6 ln omega (thesis eq. 20).",
        epilog=EPILOG,
    )
    bs = subcommands(b, "which", "BOUND")
    bm = subcommand(
        bs,
        "markov",
        command,
        help="Markov chain bound eps + 4 ln gamma and Zhao's eps + 6 ln omega",
        description="Markov chain bound eps + 4 ln gamma (paper Thm 6.2) and Zhao et al.'s "
        "eps + 6 ln omega (thesis eq. 20) of a transition matrix (needs every "
        "P > 0 and a stationary start), with the calibration for eps-BDP.",
        epilog='examples:\n  bdpsim bounds markov --transition "[[0.882,0.118],[0.305,0.695]]" --epsilon 1\n'
        "  bdpsim bounds markov --gamma 5 --epsilon 1 --n 10",
        action=_bounds_markov,
    )
    g = bm.add_mutually_exclusive_group(required=True)
    g.add_argument(
        "--transition", metavar="MATRIX", help=f'transition matrix as JSON, e.g. "{MATRIX_EXAMPLE}"'
    )
    g.add_argument(
        "--gamma", type=float, help="the symmetric chain of thesis Fig. 14 with max P / min P = gamma"
    )
    bm.add_argument("--n", type=int, help="number of records (adds the general bound n eps)")
    bg = subcommand(
        bs,
        "gaussian",
        command,
        help="Gaussian bound (m^2/(4(1/rho-m+2)) + 1) eps",
        description="Gaussian bound (m^2 / (4 (1/rho - m + 2)) + 1) eps of the clipped Laplace "
        "sum on m records with max. Pearson correlation rho (paper Thm 5.5/5.8; "
        "needs rho (m - 2) < 1), beside the general bound m eps.",
        epilog="example:\n  bdpsim bounds gaussian --rho 0.275 --m 3 --epsilon 1",
        action=_bounds_gaussian,
    )
    bg.add_argument("--rho", type=float, required=True, help="max. Pearson correlation")
    bgen = subcommand(
        bs,
        "general",
        command,
        help="general bound m eps",
        description="General bound m eps on the BDPL of an eps-DP mechanism when at most "
        "m records are correlated (paper Thm 4.3).",
        epilog="example:\n  bdpsim bounds general --m 10 --epsilon 0.5",
        action=_bounds_general,
    )
    for leaf in (bg, bgen):
        leaf.add_argument("--m", type=int, required=True, help="number of correlated records")
    for leaf in (bm, bg, bgen):
        leaf.add_argument("--epsilon", type=float, required=True, help="DP parameter of the mechanism")
        leaf.add_argument("--json", action="store_true", help=JSON_HELP)


def command(a) -> int:
    """Run ``bdpsim bounds ...``: printed only once every value is computed (no results before an
    error)."""
    emit(a, *a.action(a))
    return 0


def _fmt_bound(b) -> str:
    """A bound's value in nats, or why it does not apply."""
    return f"{b.value:.4f} nats" if math.isfinite(b.value) else f"not applicable ({b.reason})"


def _bound_data(b) -> dict:
    return {"value": b.value, "reason": "" if math.isfinite(b.value) else b.reason}


def _bounds_markov(a) -> tuple[list[str], dict]:
    from .. import bounds as B

    lines: list[str] = []
    try:
        with naming(fields={"P": "--transition", "gamma": "--gamma"}):
            P = (
                B.symmetric_chain(a.gamma)
                if a.gamma is not None
                else B.transition_matrix(parse_matrix("--transition", a.transition))
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
