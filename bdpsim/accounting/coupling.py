"""A certified upper end of the joint privacy profile over every adversary where the joint laws are
measured by Monte Carlo: the releases of one query, some of them with continuous non-Gaussian noise
(e.g. ten Laplace counts).

For an adversary the two joint output laws are mixtures of one product kernel over the values ``j``
of the query, ``P = sum_j A_j K_j`` and ``Q = sum_k B_k K_k``, with ``K_j`` the law of the releases
when the query is ``j`` steps (independent noise per release). For any coupling ``pi`` of ``A`` and
``B``, ``P = sum pi(j, k) K_j`` and ``Q = sum pi(j, k) K_k``; the hockey-stick divergence is jointly
convex, so::

    H_eps(P || Q) <= sum_{j,k} pi(j, k) H_eps(K_j || K_k) <= sum pi(j, k) h[|j - k|],

with ``h[m]`` the larger of the two orders of ``H_eps`` between the product kernels ``m`` steps apart:
the releases' own privacy-loss distributions composed (independent given the query value), each
bracketed on a loss grid (:class:`~bdpsim.kernels.privacy.pld.LossBracket`, its upper end). The
monotone coupling gives :func:`~bdpsim.accounting.search.coupling_bound`; the window scan's supremum
of it over every window is an upper end of the supremum over every adversary (the window reduction
of :mod:`bdpsim.accounting.search`), certified, not sampled. It is looser than the Monte Carlo value
of the worst window found (it ignores how the mixture smooths the laws) but it holds: the window
sweep (:mod:`bdpsim.accounting.sweep`) caps each window's Monte Carlo upper end with it, and it is
the upper end alone where the sweep does not apply.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ..core.errors import BdpsimError
from ..kernels.privacy import mixture as MX
from ..kernels.privacy.pld import LossBracket
from .pairs import LOSS_STEP, POINT_RESOLUTION, Components, ReleasePlan
from .search import component_marginal, coupling_bound, coupling_pieces

#: loss grid of the shift profiles ``h[m]`` (with the output cells of
#: :data:`~bdpsim.accounting.pairs.POINT_RESOLUTION`): those of the pairs measured, so that where the
#: adversary knows the query's value up to the target the bound is the pair's own certified upper end
STEP = LOSS_STEP
#: ``h[m]`` at or above this is taken as 1 for every larger shift (``H_eps <= 1`` always)
SATURATED = 1.0 - 1e-9


def _shift(groups: Counter, m: int, step: float, epsilon) -> np.ndarray:
    """``h[m]`` (:func:`shift_profile`) of one shift ``m >= 1`` at each value of ``epsilon`` (shape
    ``(K,)``): the composed loss brackets do not depend on ``eps``, so they are built once."""
    atoms = np.array([0.0, m * step])
    one, other = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    worst = np.zeros(eps.size)
    for u, v in ((one, other), (other, one)):
        total: LossBracket | None = None
        for z, k in groups.items():
            cells = MX.loss_cells(z, atoms, u, v, POINT_RESOLUTION)
            br = LossBracket.from_cells(cells.mass, cells.lower, cells.upper, STEP, cells.inf_mass)
            br = br.self_compose(k) if k > 1 else br
            total = br if total is None else total.compose(br)
        assert total is not None  # a plan has at least one release
        worst = np.maximum(worst, np.atleast_1d(total.upper.delta(eps)))
    return np.minimum(worst, 1.0)


def shift_profile(plan: ReleasePlan, step: float, epsilon, size: int, known=()) -> np.ndarray:
    """``h[m]``, ``m = 0..size-1``: the upper end of ``max(H_eps(K_0 || K_m), H_eps(K_m || K_0))`` for
    the product kernel of the plan's releases (every release reads the same query; ``m`` lattice
    steps of ``step``), by composing the releases' bracketed privacy-loss distributions between two
    point masses (equal noise laws by repeated squaring). Computed shift by shift (after the
    ``known`` first values) until one reaches :data:`SATURATED`; the larger shifts are then 1, a
    valid upper end of any hockey-stick divergence (no monotonicity in ``m`` is assumed).
    ``epsilon`` a number: shape ``(size,)``; an array of ``K`` values: ``(size, K)``, each column
    saturating on its own (the composition is built once per shift for every ``eps``)."""
    groups = Counter(z for _, z in plan.reduced)
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    h = np.ones((size, eps.size))
    h[0] = np.maximum(0.0, -np.expm1(eps))  # H_eps(K || K) = (1 - e^eps)_+: 0 unless eps < 0
    known = np.asarray(known, dtype=float).reshape(-1, eps.size) if len(known) else np.zeros((0, eps.size))
    done = min(known.shape[0], size)
    h[:done] = known[:done]
    if not (done and np.all(h[done - 1] >= SATURATED)):
        for m in range(max(done, 1), size):
            h[m] = _shift(groups, m, step, eps)
            if np.all(h[m] >= SATURATED):
                break
    return h[:, 0] if np.ndim(epsilon) == 0 else h


def coupling_score(plan: ReleasePlan, comps: Components, epsilon):
    """The window scan's row score of the coupling bound (module docstring) for releases of one
    query, or ``None`` where it does not apply (several queries, or a noise law whose privacy-loss
    distribution is not bracketed). ``epsilon`` an array of ``K`` values: the bound at each, shape
    ``(rows, K)`` (one coupling per row, one shift profile per ``eps``)."""
    cols = {c for c, _ in plan.reduced}
    if len(cols) != 1:
        return None
    c = cols.pop()
    step = comps.step[c]
    marginal = component_marginal(comps, c)
    many = np.ndim(epsilon) > 0
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    shifts: list[np.ndarray] = [np.zeros((0, eps.size))]

    def h_of(size: int) -> np.ndarray:
        if shifts[0].shape[0] < size:
            shifts[0] = shift_profile(plan, step, eps, max(size, 2 * shifts[0].shape[0]), shifts[0])
        return shifts[0]

    def score(W1, W2):
        A, B = marginal(W1), marginal(W2)
        An, Bn = A / A.sum(axis=1, keepdims=True), B / B.sum(axis=1, keepdims=True)
        h = h_of(A.shape[1])
        if not many:
            return coupling_bound(An, Bn, h[:, 0]), np.zeros(A.shape[0])
        mass, gap = coupling_pieces(An, Bn)
        gap = np.minimum(gap, h.shape[0] - 1)
        out = np.stack([np.sum(mass * h[gap, g], axis=1) for g in range(eps.size)], axis=1)
        return out, np.zeros(A.shape[0])

    try:  # a noise law without bracketed loss cells: no coupling bound
        shifts[0] = shift_profile(plan, step, eps, 2)
    except (BdpsimError, ValueError, TypeError):
        return None
    if not math.isfinite(step) or step <= 0:
        return None
    return score


__all__ = ["coupling_score", "shift_profile"]
