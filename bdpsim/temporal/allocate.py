"""Per-step budgets against the exact temporal leakage, beside Cao et al.'s.

For a target ``alpha`` and a horizon ``T``:

* the **exact constant** budget: the largest ``eps`` with ``max_t TPL_t(eps) <= alpha`` for the
  exact ``TPL_t`` of :func:`bdpsim.temporal.exact.temporal_exact` (its upper end where it is an
  interval, so the budget is always safe). ``TPL_t`` is non-decreasing in ``eps`` (a larger box
  contains the smaller one; for k-RR the smaller step is a garbling of the larger) and
  ``eps <= TPL_t <= T eps``, so bisection on ``[alpha / T, alpha]`` finds it;
* the **exact schedule** ``[e_end, e_mid, ..., e_mid, e_end]`` (the form of Cao et al.'s
  quantification allocation): ``e_mid`` the exact constant budget, then the largest ``e_end >=
  e_mid`` keeping ``max_t TPL_t <= alpha`` (the first and last steps have one side only);
* Cao et al.'s constant budget for the same ``T`` (bisection on their ``TPL_t``), their
  horizon-free upper-bound allocation (TKDE Theorem 10) and their quantification schedule
  (:mod:`bdpsim.temporal.cao`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import cast

import numpy as np

from ..kernels.argcheck import require
from ..kernels.roots import monotone_root

#: relative precision of the bisections
TOLERANCE = 1e-7


def _largest(excess, lo: float, hi: float) -> float:
    """The largest ``x`` in ``[lo, hi]`` with ``excess(x) <= 0`` (``excess`` non-decreasing,
    ``excess(lo) <= 0``), to relative :data:`TOLERANCE`: ``hi`` when it qualifies, else the safe end
    of the bisection (:func:`bdpsim.kernels.roots.monotone_root`)."""
    if excess(hi) <= 0:
        return hi
    root = monotone_root(excess, lo, hi, rtol=TOLERANCE, log=False, expand=False)
    return float(cast(float, root.safe))  # lo is safe: never None


@dataclass(frozen=True)
class Allocation:
    """Per-step budgets keeping the temporal leakage at most ``alpha`` over ``steps`` steps.

    ``exact_constant`` / ``exact_end``, ``exact_middle``: against the exact TPL;
    ``cao_constant``: Cao's TPL over the same steps; ``cao_upper_bound``: Cao's horizon-free
    constant (Theorem 10); ``cao_start``, ``cao_middle``, ``cao_end``: Cao's quantification
    schedule (``None`` where Cao's allocation cannot reach ``alpha``).
    """

    alpha: float
    steps: int
    exact_constant: float
    exact_end: float
    exact_middle: float
    cao_constant: float | None
    cao_upper_bound: float | None
    cao_start: float | None
    cao_middle: float | None
    cao_end: float | None

    def as_dict(self) -> dict:
        return asdict(self)


def allocate(
    alpha: float,
    transition,
    steps: int,
    mechanism: str = "any",
    *,
    initial="stationary",
    values=None,
    max_points: int | None = None,
    schedule: bool = True,
) -> Allocation:
    """:class:`Allocation` of ``alpha`` over ``steps`` steps (module docstring).

    Parameters
    ----------
    alpha : float
        The target temporal leakage (> 0).
    transition, steps, mechanism, initial, values
        As for :func:`bdpsim.temporal.exact.temporal_exact` (one matrix).
    schedule : bool
        Also search the end-boosted schedule (else ``exact_end = exact_middle``).
    """
    from ..core.errors import BdpsimError
    from .cao import allocate_quantification, allocate_upper_bound, cao_leakage
    from .chain import MAX_EPSILON, MIN_EPSILON, released_chain
    from .exact import engine_of

    require(
        isinstance(alpha, (int, float))
        and not isinstance(alpha, bool)
        and math.isfinite(alpha)
        and alpha > 0,
        "alpha",
        alpha,
        "must be a finite number > 0",
    )
    # checked once, not at every bisection step (the budget is the search's)
    chain = released_chain(transition, 1.0, steps, mechanism, initial=initial, state_values=values)
    # eps <= TPL <= T eps: the search runs over [alpha / T, alpha], which must be budgets a step may have
    require(
        chain.steps * MIN_EPSILON <= alpha <= MAX_EPSILON,
        "alpha",
        alpha,
        f"must be in [{chain.steps * MIN_EPSILON:g}, {MAX_EPSILON:g}] (the per-step eps searched "
        f"lies in [alpha / n, alpha], and a step's eps in [{MIN_EPSILON:g}, {MAX_EPSILON:g}])",
    )

    def worst(eps) -> float:
        res = engine_of(chain.with_epsilon(eps), max_points=max_points).leakage()
        return float(np.nanmax(res.tpl_high))

    T = chain.steps
    lo = alpha / T
    const = _largest(lambda e: worst(e) - alpha, lo, alpha)
    if T >= 2 and schedule:

        def sched(e_end: float) -> list[float]:
            return [e_end] + [const] * (T - 2) + [e_end]

        end = _largest(lambda e: worst(sched(e)) - alpha, const, alpha)
    else:
        end = const
    cinit = None if chain.stationary else chain.initial

    def cao_worst(eps: float) -> float:
        return float(np.max(cao_leakage(chain.transition, eps, T, initial=cinit).tpl))

    try:
        cao_const: float | None = _largest(lambda e: cao_worst(e) - alpha, lo, alpha)
    except BdpsimError:  # pragma: no cover - Cao's recursion refuses the chain
        cao_const = None
    try:
        ub: float | None = allocate_upper_bound(alpha, chain.transition)
    except BdpsimError:
        ub = None
    try:
        q = allocate_quantification(alpha, chain.transition)
        qs: tuple = (q.start, q.middle, q.end)
    except BdpsimError:
        qs = (None, None, None)
    return Allocation(float(alpha), T, const, end, const, cao_const, ub, *qs)
