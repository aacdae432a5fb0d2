"""The optimal attack on the local release of every record of a Markov chain
(:class:`~bdpsim.mechanisms.local.LocalRelease` with a likelihood matrix: k-RR, randomized response,
a matrix), from the bracketed privacy profile of the chain kernel
(:mod:`bdpsim.kernels.chains.local_worst`, :mod:`bdpsim.kernels.chains.local_profile`).

**Advantage.** ``TV(P, Q) = delta(0)``: the profile at ``eps = 0``, of one adversary or its
supremum over every adversary (target, pair of values, nearest known records on each side),
bracketed ``[low, high]`` to :data:`TOLERANCE` (the grid refined until then, or its finest size).

**TPR at FPR alpha.** Every adversary and both orders of its pair obey ``TPR(alpha) <= t alpha +
Delta(t)`` for every ``t > 0`` (``Delta(t)`` the two-sided profile at ``eps = ln t``; ``t < 1``:
``1 - t + t Delta(1/t)``): the least of these over the ``eps`` of :data:`EPSILONS`, at the upper ends
of the profile's brackets, is an **upper bound** for every adversary (the f-DP guarantee the
profile implies), not the TPR of an attack: it is reported as a bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..adversary import Adversary
from ..core.errors import ConfigError, NotAvailable
from ..kernels.argcheck import TooExpensive
from ..kernels.chains.local_profile import GRID, finest_grid, known_sizes, local_release, release_profile
from ..kernels.chains.local_worst import GRID_MAX, first_pass_work, release_worst_profile
from ..models.protocols import MarkovChain
from .tradeoff import check_fpr

#: the width of the advantage's bracket the refinement aims at
TOLERANCE = 1e-6
#: the eps at which the profile is bracketed for the TPR bound (``t = e^eps`` and ``e^-eps``)
EPSILONS = (0.0, *np.round(np.geomspace(0.01, 8.0, 24), 6))


@dataclass(frozen=True)
class Bracket:
    """A number known to lie in ``[low, high]`` (``kind``: ``certified bracket`` or ``upper bound``)."""

    low: float
    high: float
    kind: str

    @property
    def width(self) -> float:
        return self.high - self.low

    def text(self, digits: int = 4) -> str:
        if self.kind == "upper bound":
            return f"<= {self.high:.{digits}g} (upper bound)"
        return f"[{self.low:.{digits}g}, {self.high:.{digits}g}] ({self.kind}, width {self.width:.2g})"


@dataclass(frozen=True)
class LocalAttackRisk:
    """The optimal attack on a local release, bracketed.

    Attributes
    ----------
    advantage : Bracket
        ``max (TPR - FPR) = TV(P, Q)`` of the adversary given, or its supremum over every adversary,
        certified between ``low`` and ``high``.
    adversary : Adversary
        The adversary given, or the one of the largest lower end (its nearest known records).
    worst : bool
        Whether the numbers are suprema over every adversary.
    epsilon, delta_high : numpy.ndarray
        The profile's ``eps`` and the upper ends of its bracket (the TPR bound reads them).
    grid : int
        The kernel's grid of the last pass.
    """

    advantage: Bracket
    adversary: Adversary
    worst: bool
    epsilon: np.ndarray
    delta_high: np.ndarray
    grid: int

    def tpr_bound(self, fpr: float) -> Bracket:
        """An upper bound of ``TPR`` at ``fpr`` for every adversary (or the one given): ``min_t [t
        alpha + Delta(t)]`` at the profile's upper ends (module docstring); ``low`` is ``fpr`` (the
        trivial test), so the bracket is ``[fpr, bound]``, labelled ``upper bound``."""
        a = float(check_fpr("fpr", fpr))
        t = np.exp(self.epsilon)
        d = np.minimum(self.delta_high, 1.0)
        above = t * a + d  # t = e^eps >= 1
        below = a / t + 1.0 - 1.0 / t + d / t  # t = e^-eps <= 1: Delta(t) = 1 - t + t Delta(1/t)
        return Bracket(a, float(min(1.0, above.min(), below.min())), "upper bound")


def _chain(model, release) -> Any:
    if not isinstance(model, MarkovChain):
        raise NotAvailable(
            f"release {release.label!r}: the optimal attack on a local release is computed on a Markov "
            f"chain, not on {type(model).__name__}"
        )
    M = release.matrix(int(model.states))  # NotAvailable for any / continuous outputs / schedules
    return local_release(
        np.asarray(model.transition, dtype=float),
        np.asarray(model.initial, dtype=float),
        M.T,
        steps=int(model.n),
    )


def _adversary(adv) -> Adversary:
    """The kernel's adversary in bdpsim's words (records from 0; its nearest known records)."""
    known = [(w[0] - 1, w[1]) for w in (adv.before, adv.after) if w is not None]
    return Adversary(adv.target - 1, tuple(k for k, _ in known), tuple(v for _, v in known), adv.a, adv.b)


def local_attack_risk(
    model, release, adversary: Adversary | None = None, *, sizes: Any = "all"
) -> LocalAttackRisk:
    """The optimal attack on ``release`` (a local release with a likelihood matrix) over ``model``
    (a Markov chain): of one ``adversary``, or the worst over every adversary with ``|K|`` in
    ``sizes`` (module docstring); ``NotAvailable`` naming the release where there is no matrix or no
    chain, or where the bracket's work is too large (before the work)."""
    chain = _chain(model, release)
    if adversary is not None:
        if not isinstance(adversary, Adversary):
            raise ConfigError("adversary", adversary, "must be a bdpsim.Adversary")
        known = {int(k) + 1: int(v) for k, v in zip(adversary.known, adversary.x_known)}
        top = min(GRID_MAX, finest_grid(chain.states))
        g = min(GRID, top)
        eps = np.array(EPSILONS)
        while True:
            br = release_profile(
                chain,
                target=int(adversary.i) + 1,
                pair=(int(adversary.x), int(adversary.x_prime)),
                known=known,
                grid=g,
            )
            d = br.delta(eps)
            if float(d.high[0] - d.low[0]) <= TOLERANCE or g >= top:
                break
            g = min(2 * g, top)
        adv = Bracket(float(max(d.low[0], 0.0)), float(max(d.high[0], d.low[0], 0.0)), "certified bracket")
        return LocalAttackRisk(adv, adversary, False, eps, np.asarray(d.high, dtype=float), g)
    ks = list(known_sizes(sizes, int(model.n)))
    try:
        first_pass_work(chain, sizes=ks, tolerance=TOLERANCE)
        w = release_worst_profile(
            chain, epsilons=list(EPSILONS), sizes=ks, tolerance=TOLERANCE, max_grid=GRID_MAX
        )
    except TooExpensive as err:
        raise NotAvailable(
            f"release {release.label!r} on {model.n} records: {err.rule}; use sizes=[0] (the adversary "
            "who knows nothing), fewer records or one adversary"
        ) from None
    lo, hi = float(max(w.delta.low[0], 0.0)), float(max(w.delta.high[0], w.delta.low[0], 0.0))
    return LocalAttackRisk(
        Bracket(lo, hi, "certified bracket"),
        _adversary(w.attained_by[0]),
        True,
        np.asarray(w.epsilon, dtype=float),
        np.asarray(w.delta.high, dtype=float),
        int(w.grid),
    )


__all__ = ["Bracket", "EPSILONS", "LocalAttackRisk", "TOLERANCE", "local_attack_risk"]
