"""The window scan's score ``delta(eps)`` of two or three Laplace releases of one scale (the noisy
histogram of two or three states): the worst window only, by branch and bound over the box brackets
of :mod:`bdpsim.kernels.privacy.boxes`.

**Two releases** (boxes of the plane). Every pair of window laws is first bracketed coarsely
(:data:`COARSE`); the pairs are then bracketed to the full tolerance in the order of their coarse
upper ends, while that end exceeds the largest fine upper end found so far (a box bracket's upper
end does not grow as its boxes are split: each sub-box's bounds are tighter). A pair left coarse
scores its coarse upper end, at most the best fine one, so the largest score and the window
attaining it are those of the full scan (the ranking below it is not: the search asks ``top = 1``
only).

**Three releases** (boxes of R^3, each fine bracket up to a few seconds). Windows whose laws are
the same up to a common shift of the count vectors (which moves no divergence; weights to 12
decimals, a score widened by their total-variation distance) are one pair, bracketed once. Each
order of each pair is bracketed to the widths :data:`LEVELS` in turn, then to the full tolerance,
while its upper end is at least the largest **lower** end found so far (over every pair, at any
width): an order left behind has an upper end below a lower end of another window, so it is not
the supremum, and scores that upper end. An order bracketed to the full tolerance scores its fine
upper end; the largest score is then a fine upper end, at least every window's value, and its
window is the one the search names (measured again by the accountant from the adversary's own
laws: the kernel's kept bracket, no work).
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels.privacy.boxes import TOLERANCE, laplace_boxes_hockey
from ..mechanisms.histogram import ATTACK_MAX_N, THREE_STATE_EVERY_MAX_N, THREE_STATE_MAX_N
from .pairs import Components, ReleasePlan, box_scale

#: width of the first, coarse bracket of every pair (two releases)
COARSE = 1e-3
#: widths each order of a pair of three releases is bracketed to in turn before the full tolerance,
#: while its upper end is at least the largest lower end found (measured on the 306 distinct pairs
#: of a 6-record chain at eps = 0.3: above the supremum's lower end at 0.1: 154, at 0.03: 60, at
#: 0.01: 8, at 0.003: 2; about 1, 5, 15, 30 ms a pair of 9 atoms)
LEVELS = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 1e-4)


def boxes_reach(plan: ReleasePlan, n: int, every: bool) -> bool:
    """Whether the box brackets take the plan's Laplace releases on ``n`` records (else Monte Carlo):
    two releases (boxes of the plane) for one adversary, and over ``every`` adversary up to
    ``n = ATTACK_MAX_N``; three (boxes of R^3, the histogram of three states) for one adversary
    up to ``n = THREE_STATE_MAX_N``, over every adversary up to ``n = THREE_STATE_EVERY_MAX_N``."""
    if box_scale(plan) is None:
        return False
    if len(plan.reduced) == 2:
        return not every or n <= ATTACK_MAX_N
    return n <= (THREE_STATE_EVERY_MAX_N if every else THREE_STATE_MAX_N)


def three_state_search_cost(n: int) -> str:
    """The estimated cost of the search over every adversary of three Laplace releases by boxes of
    R^3, in words (the refusal beyond :data:`~bdpsim.mechanisms.histogram.THREE_STATE_EVERY_MAX_N`
    names it)."""
    return (
        f"about {4 * n * n} windows of up to {(n + 1) * (n + 2) // 2} atoms each, one delta(eps) "
        "measured on a loaded machine n = 6 in 14 s, 8 in 24 s, 10 in 53 s, growing like n^4"
    )


class BoxDelta:
    """``score(W1, W2) -> (two-sided delta(eps) upper ends, 0)`` of the plan's two or three Laplace
    releases (module docstring); ``evaluated`` counts the pairs (three releases: the orders)
    bracketed to the full tolerance."""

    def __init__(self, plan: ReleasePlan, comps: Components, epsilon: float) -> None:
        b = box_scale(plan)
        if b is None:
            raise ValueError("BoxDelta: the plan is not two or three Laplace releases of one scale")
        self.b, self.epsilon = b, float(epsilon)
        self.cols = [c for c, _ in plan.reduced]
        self.comps = comps
        self.best = -math.inf
        self.evaluated = 0
        self.floor = -math.inf  # three releases: the largest lower end found
        self.scored: dict = {}  # three releases: each distinct pair's score, sign and weights

    def _two_sided(self, atoms, p, q, tol: float) -> tuple[float, float]:
        f = laplace_boxes_hockey(atoms, p, q, self.b, self.epsilon, tol=tol)
        if self.epsilon == 0.0:  # total variation: one order
            return f.upper, 1.0
        r = laplace_boxes_hockey(atoms, q, p, self.b, self.epsilon, tol=tol)
        return (f.upper, 1.0) if f.upper >= r.upper else (r.upper, -1.0)

    def __call__(self, W1, W2) -> tuple[np.ndarray, np.ndarray]:
        if len(self.cols) == 3:
            return self._levelled(W1, W2)
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

    def _levelled(self, W1, W2) -> tuple[np.ndarray, np.ndarray]:
        """Three releases: each distinct pair (both orders; one at ``eps = 0``) through
        :data:`LEVELS` then :data:`TOLERANCE` while its upper end is at least :attr:`floor`, the
        largest lower end found (module docstring)."""
        rows = W1.shape[0]
        atoms = self.comps.decode(W1.shape[1])[:, self.cols]
        value, sign = np.full(rows, np.nan), np.ones(rows)
        fresh: dict = {}
        where: dict = {}
        for r in range(rows):
            if not (W1[r].sum() > 0 and W2[r].sum() > 0):
                continue
            use = (W1[r] > 0) | (W2[r] > 0)
            a = atoms[use] - atoms[use].min(axis=0)
            p, q = W1[r][use] / W1[r][use].sum(), W2[r][use] / W2[r][use].sum()
            key = (a.shape, a.tobytes(), np.round(p, 12).tobytes(), np.round(q, 12).tobytes())
            where[r] = (key, p, q)
            if key not in self.scored and key not in fresh:
                fresh[key] = [(a, p, q), (a, q, p)] if self.epsilon > 0 else [(a, p, q)]
        ends: dict = {
            (key, o): (-math.inf, math.inf) for key, orders in fresh.items() for o in range(len(orders))
        }
        live = list(ends)
        for tol in (*LEVELS, TOLERANCE):
            for key, o in live:
                a, p, q = fresh[key][o]
                br = laplace_boxes_hockey(a, p, q, self.b, self.epsilon, tol=tol)
                ends[key, o] = (br.lower, br.upper)
                self.floor = max(self.floor, br.lower)
                self.evaluated += tol == TOLERANCE
            live = [k for k in live if ends[k][1] >= self.floor]
        for key, orders in fresh.items():
            up = [ends[key, o][1] for o in range(len(orders))]
            o = int(np.argmax(up))
            self.scored[key] = (up[o], 1.0 if o == 0 else -1.0, orders[0][1], orders[0][2])
        k = math.exp(self.epsilon)
        for r, (key, p, q) in where.items():
            v, s, p0, q0 = self.scored[key]
            # a pair under the same rounded key: H_eps moves by at most TV(p, p0) + e^eps TV(q, q0)
            # in either order
            slack = 0.5 * (1.0 + k) * float(np.abs(p - p0).sum() + np.abs(q - q0).sum())
            value[r], sign[r] = min(1.0, v + slack) if slack > 0 else v, s
        return value * sign, np.zeros(rows)


__all__ = ["BoxDelta", "COARSE", "boxes_reach", "three_state_search_cost"]
