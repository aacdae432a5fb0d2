"""The numbers of the accountant's figure: the joint privacy profile on a grid of ``eps``, the
naive composition and one release beside it, and the trade-off curves those profiles imply."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import NotAvailable


@dataclass(frozen=True)
class ProfileCurves:
    """``delta(eps)`` on ``eps``: the joint (``joint``, ``joint_lower``, ``joint_upper``), the
    per-release profiles composed as if independent (``naive``, ``nan`` where not available) and
    the first release alone (``single``)."""

    eps: np.ndarray
    joint: np.ndarray
    joint_lower: np.ndarray
    joint_upper: np.ndarray
    naive: np.ndarray
    single: np.ndarray
    releases: int


def profile_curves(acc, eps) -> ProfileCurves:
    """The curves of :class:`ProfileCurves` on ``eps`` (all asked at once: a local release's
    bracket computes every ``eps`` in one refinement); a curve the account has not (the naive
    composition or the one release of a local release) is ``nan``."""
    e = np.asarray(eps, dtype=float)
    acc.prepare(epsilons=[float(v) for v in e])
    vals = [acc.delta(float(v)) for v in e]
    naive = np.full(e.shape, np.nan)
    single = np.full(e.shape, np.nan)
    try:
        nv = acc.naive() if len(acc.flat) > 1 else None
    except NotAvailable:
        nv = None
    for j, v in enumerate(e):
        try:
            naive[j] = nv.composed_delta(float(v)).value if nv is not None else np.nan
        except NotAvailable:
            pass
    if acc.flat:
        one = acc.single(acc.flat[0])
        single = np.array([one.delta(float(v)).value for v in e])
    return ProfileCurves(
        e,
        np.array([v.value for v in vals]),
        np.array([v.lower for v in vals]),
        np.array([v.upper for v in vals]),
        naive,
        single,
        len(acc.flat) or len(acc.releases),
    )


def implied_tradeoff(eps, delta, alpha) -> np.ndarray:
    """The trade-off curve a profile implies (Dong, Roth and Su 2022, Prop. 2.12):
    ``beta(alpha) = max_eps max(0, 1 - delta(eps) - e^eps alpha, e^-eps (1 - delta(eps) - alpha))``,
    over the ``eps`` given (a lower envelope from finitely many points: a valid curve, tighter
    with a finer grid)."""
    e = np.asarray(eps, dtype=float)[:, None]
    d = np.asarray(delta, dtype=float)[:, None]
    a = np.asarray(alpha, dtype=float)[None, :]
    ok = np.isfinite(d)
    b = np.maximum(0.0, np.maximum(1 - d - np.exp(e) * a, np.exp(-e) * (1 - d - a)))
    return np.where(ok, b, 0.0).max(axis=0)
