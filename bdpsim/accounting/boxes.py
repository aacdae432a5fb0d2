"""The window scan's score ``delta(eps)`` of two Laplace releases of one scale (the noisy histogram
of two states): the worst window only, by branch and bound over the box brackets of
:mod:`bdpsim.kernels.privacy.boxes`.

Every pair of window laws is first bracketed coarsely (:data:`COARSE`); the pairs are then bracketed
to the full tolerance in the order of their coarse upper ends, while that end exceeds the largest
fine upper end found so far (a box bracket's upper end does not grow as its boxes are split: each
sub-box's bounds are tighter). A pair left coarse scores its coarse upper end, at most the best
fine one, so the largest score and the window attaining it are those of the full scan (the ranking
below it is not: the search asks ``top = 1`` only).
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels.privacy.boxes import TOLERANCE, laplace_boxes_hockey
from ..mechanisms.histogram import ATTACK_MAX_N, THREE_STATE_MAX_N
from .pairs import Components, ReleasePlan, box_scale

#: width of the first, coarse bracket of every pair
COARSE = 1e-3


def boxes_reach(plan: ReleasePlan, n: int, every: bool) -> bool:
    """Whether the box brackets take the plan's Laplace releases on ``n`` records (else Monte Carlo):
    two releases (boxes of the plane) for one adversary, and over ``every`` adversary up to
    ``n = ATTACK_MAX_N``; three (boxes of R^3, the histogram of three states) for one adversary
    up to ``n = THREE_STATE_MAX_N``, never over every adversary."""
    if box_scale(plan) is None:
        return False
    if len(plan.reduced) == 2:
        return not every or n <= ATTACK_MAX_N
    return not every and n <= THREE_STATE_MAX_N


def three_state_search_cost(n: int) -> str:
    """The estimated cost of the search over every adversary of three Laplace releases by boxes of
    R^3, in words (the refusal names it)."""
    return (
        f"about {4 * n * n} windows, each two box brackets of R^3 of up to 4e7 kernel evaluations "
        f"(measured on a loaded machine, one delta(eps): n = 3 in 33 s, n = 4 in 64 s)"
    )


class BoxDelta:
    """``score(W1, W2) -> (two-sided delta(eps) upper ends, 0)`` of the plan's two Laplace releases
    (module docstring); ``evaluated`` counts the pairs bracketed to the full tolerance."""

    def __init__(self, plan: ReleasePlan, comps: Components, epsilon: float) -> None:
        b = box_scale(plan)
        if b is None:
            raise ValueError("BoxDelta: the plan is not two Laplace releases of one scale")
        self.b, self.epsilon = b, float(epsilon)
        self.cols = [c for c, _ in plan.reduced]
        self.comps = comps
        self.best = -math.inf
        self.evaluated = 0

    def _two_sided(self, atoms, p, q, tol: float) -> tuple[float, float]:
        f = laplace_boxes_hockey(atoms, p, q, self.b, self.epsilon, tol=tol)
        if self.epsilon == 0.0:  # total variation: one order
            return f.upper, 1.0
        r = laplace_boxes_hockey(atoms, q, p, self.b, self.epsilon, tol=tol)
        return (f.upper, 1.0) if f.upper >= r.upper else (r.upper, -1.0)

    def __call__(self, W1, W2) -> tuple[np.ndarray, np.ndarray]:
        rows = W1.shape[0]
        atoms = self.comps.decode(W1.shape[1])[:, self.cols]
        value, sign = np.full(rows, np.nan), np.ones(rows)
        live = [r for r in range(rows) if W1[r].sum() > 0 and W2[r].sum() > 0]
        coarse = {}
        for r in live:
            use = (W1[r] > 0) | (W2[r] > 0)
            coarse[r] = self._two_sided(atoms[use], W1[r][use], W2[r][use], COARSE)
        for r in sorted(live, key=lambda r: -coarse[r][0]):
            v, s = coarse[r]
            if v > self.best:
                use = (W1[r] > 0) | (W2[r] > 0)
                v, s = self._two_sided(atoms[use], W1[r][use], W2[r][use], TOLERANCE)
                self.evaluated += 1
                self.best = max(self.best, v)
            value[r], sign[r] = v, s
        return value * sign, np.zeros(rows)


__all__ = ["BoxDelta", "COARSE", "boxes_reach", "three_state_search_cost"]
