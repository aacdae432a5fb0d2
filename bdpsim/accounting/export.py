"""The accountant's numbers for other tools: the privacy profile ``delta(eps)`` as CSV or JSON, and
the worst adversary's output-law pair as a privacy-loss distribution ``dp_accounting`` reads.

Every export says what it is: the leakage **on the given data model** (Bayesian DP: the worst
adversary's joint output laws under this model), **not a DP guarantee** (which holds for every data
law and every neighbouring pair).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence

import numpy as np

from ..core.errors import NotAvailable
from ..kernels.privacy import mixture as MX
from ..kernels.privacy.pld import LossBracket
from .values import MONTE_CARLO

LABEL = (
    "Bayesian DP leakage of these releases on the given data model (the worst adversary's joint "
    "output laws); not a DP guarantee"
)


def profile_rows(acc, epsilons: Sequence[float]) -> list[dict]:
    """One row per ``eps``: ``delta``, its interval, kind and the adversary attaining it."""
    rows = []
    for e in epsilons:
        v = acc.delta(float(e))
        adv = v.adversary
        rows.append(
            {
                "epsilon": float(e),
                "delta": v.value,
                "delta_lower": v.lower,
                "delta_upper": v.upper,
                "kind": v.kind,
                "target": "" if adv is None else adv.i,
                "known": "" if adv is None else ";".join(map(str, adv.known)),
                "x": "" if adv is None else adv.x,
                "x_prime": "" if adv is None else adv.x_prime,
            }
        )
    return rows


def profile_csv(acc, epsilons: Sequence[float]) -> str:
    """The profile as CSV text, its first line a ``#`` comment with :data:`LABEL`."""
    rows = profile_rows(acc, epsilons)
    buf = io.StringIO()
    buf.write(f"# {LABEL}\n")
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def profile_json(acc, epsilons: Sequence[float]) -> str:
    """The profile as JSON: ``{"label", "releases", "method", "profile": [rows]}``."""
    return json.dumps(
        {
            "label": LABEL,
            "releases": [r.label for r in acc.releases],
            "method": acc.method,
            "profile": profile_rows(acc, epsilons),
        },
        indent=2,
        default=_plain,
    )


def _plain(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return str(v)


def loss_brackets(acc, epsilon: float = 0.0, step: float = 1e-3) -> tuple[LossBracket, LossBracket]:
    """The privacy-loss distributions (both orders) of the adversary attaining ``delta(epsilon)``:
    certified brackets (:mod:`bdpsim.kernels.privacy.pld`)."""
    adv = acc.delta(epsilon).adversary
    if acc.gaussian:
        mu, _ = acc._gauss_worst()
        cells = MX.gaussian_cells(1.0, [0.0, mu], [0.0, 1.0], [1.0, 0.0], 256)
        br = LossBracket.from_cells(cells.mass, cells.lower, cells.upper, step)
        return br, br
    pair = acc.pair(adv)
    m = pair.method
    out = []
    for fwd in (True, False):
        if m == "one release":
            z, a, p, q = pair._one()
            cells = MX.loss_cells(z, a, p, q) if fwd else MX.loss_cells(z, a, q, p)
            out.append(LossBracket.from_cells(cells.mass, cells.lower, cells.upper, step, cells.inf_mass))
        elif m == "independent" and pair._gauss_mu() is None:
            out.append(pair._product_bracket(fwd))
        elif m == "enumeration":
            jl = pair._enumerated()
            P, Q = (jl.p, jl.q) if fwd else (jl.q, jl.p)
            with np.errstate(divide="ignore"):
                L = np.where(Q > 0, np.log(np.maximum(P, 1e-300)) - np.log(np.maximum(Q, 1e-300)), math.inf)
            out.append(LossBracket.from_losses(L, P, step, jl.outside))
        elif m == "independent":
            mu = pair._gauss_mu()
            cells = MX.gaussian_cells(1.0, [0.0, mu], [0.0, 1.0], [1.0, 0.0], 256)
            out.append(LossBracket.from_cells(cells.mass, cells.lower, cells.upper, step))
        else:
            raise NotAvailable(
                f"the worst pair of these releases has only a {MONTE_CARLO} profile: no privacy-loss "
                "distribution to export (export the delta(eps) curve instead)"
            )
    return out[0], out[1]


def to_dp_accounting(acc, epsilon: float = 0.0, step: float = 1e-3):
    """The worst adversary's pair (at ``delta(epsilon)``) as a pessimistic ``dp_accounting``
    ``PrivacyLossDistribution`` (optional extra ``accounting``): :data:`LABEL` applies."""
    try:
        import dp_accounting  # noqa: F401
    except ImportError:
        raise NotAvailable("dp_accounting is not installed: pip install 'bdpsim[accounting]'") from None
    from .naive import to_dp_accounting as convert

    fwd, bwd = loss_brackets(acc, epsilon, step)
    return convert(fwd.upper, bwd.upper)
