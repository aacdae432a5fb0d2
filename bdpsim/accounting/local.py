"""The accountant of the local release of every record of a Markov chain (k-RR, any eps-DP step).

The records ``x_1..x_n`` are a chain's steps; every record is released through its own
randomiser, independently given the records (:class:`~bdpsim.accounting.releases.LocalRelease`;
several local releases on the same records are one randomiser whose output is the tuple of their
outputs, ``M[x, (r, r')] = M_1[x, r] M_2[x, r']``). The joint law of the output sequence given
the adversary's hypotheses is carried along the chain by forward and backward filters
(:mod:`bdpsim.kernels.chains.local_profile`): the filter's vector measure is held to a grid by a
merge of the atoms of each cell (a garbling: the lower end) and a split of each atom onto the
cell's corners (the release is a garbling of it: the upper end). Every number is the supremum over
adversaries (target, pair of values, known records of an allowed number) of its divergence,
bracketed (:mod:`bdpsim.kernels.chains.local_worst`): the grid is refined until the bracket of
``delta(eps)`` is :data:`TOLERANCE` wide or the grid reaches its finest size; the width printed
with each number is the one reached. The ``delta = 0`` limit (``alpha = inf``) is the exact
temporal leakage ``max_t TPL_t`` of the release (with ``sizes = [0]``, the adversary who knows
nothing) and ``delta(eps) = 0`` for ``eps >= bdpl``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..adversary import Adversary
from ..core.errors import NotAvailable
from ..kernels.argcheck import TooExpensive
from ..kernels.chains.local_profile import (
    GRID,
    LocalAdversary,
    finest_grid,
    local_release,
    release_profile,
)
from ..kernels.chains.local_profile import LocalRelease as ChainRelease
from ..kernels.chains.local_worst import GRID_MAX, first_pass_work, release_worst_profile
from .asks import Derived, check_alpha, check_delta, check_epsilon, check_fpr
from .releases import LocalRelease
from .values import Value, bracket

#: the width of ``delta(eps)`` the refinement aims at
TOLERANCE = 1e-6
#: what each adversary's known set is, in the report
KNOWN_NOTE = "it knows the nearest known records on each side of its target (others do not matter)"


def joint_matrix(releases: tuple[LocalRelease, ...], states: int) -> np.ndarray:
    """``M[x, r]`` of the tuple of outputs of several local releases on the same records (rows =
    states): the row-wise product of their matrices (independent randomisers given the record)."""
    M = releases[0].matrix(states)
    for r in releases[1:]:
        N = r.matrix(states)
        M = (M[:, :, None] * N[:, None, :]).reshape(states, -1)
    return M


def as_adversary(adv: LocalAdversary) -> Adversary:
    """The kernel's adversary in the accountant's words (records from 0; its nearest known records)."""
    known = [(w[0] - 1, w[1]) for w in (adv.before, adv.after) if w is not None]
    return Adversary(adv.target - 1, tuple(k for k, _ in known), tuple(v for _, v in known), adv.a, adv.b)


def _value(low, high, adversary: Adversary | None, note: str) -> Value:
    lo, hi = float(np.asarray(low)), float(np.asarray(high))
    return bracket(max(lo, 0.0), max(hi, lo, 0.0), adversary, note)


@dataclass
class LocalAccount(Derived):
    """The accountant of a local release of every record of ``model`` (a Markov chain):
    ``delta(eps)``, ``epsilon(delta)``, ``renyi(alpha)``, ``bdpl``, ``advantage`` (module docstring).
    Numbers asked together (:meth:`prepare`) share one refinement of the grid."""

    model: Any
    releases: tuple
    adversary: Adversary | None
    sizes: tuple[int, ...]
    chain: ChainRelease
    flat: list = field(default_factory=list)
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def method(self) -> str:
        return (
            "local release: the chain's forward and backward filters on a grid, bracketed (lower: "
            "atoms merged per cell; upper: atoms split onto the cell's corners)"
        )

    def check_cost(self) -> None:
        """Refuse up front (``NotAvailable`` with the estimate) a chain too long for the bracket."""
        label = "; ".join(r.label for r in self.releases)
        try:
            if self.adversary is None:
                first_pass_work(self.chain, sizes=list(self.sizes), tolerance=TOLERANCE)
        except TooExpensive as err:
            raise NotAvailable(
                f"release {label!r} on {self.model.n} records: {err.rule}; use sizes=[0] (the adversary "
                "who knows nothing), fewer records or one adversary"
            ) from None

    # ------------------------------------------------------------------ computing
    def prepare(self, epsilons=(), deltas=(), alphas=()) -> None:
        """Compute ``delta`` at ``epsilons``, ``epsilon`` at ``deltas`` and ``renyi`` at ``alphas``
        (and the BDPL) in one refinement of the grid; the later calls read them."""
        eps = [check_epsilon(e) for e in epsilons if ("delta", float(e)) not in self._cache]
        dls = [check_delta(d) for d in deltas if ("epsilon", float(d)) not in self._cache]
        als = [check_alpha(a) for a in alphas if ("renyi", float(a)) not in self._cache]
        als = [a for a in als if math.isfinite(a)]
        if not (eps or dls or als) and ("renyi", math.inf) in self._cache:
            return
        if self.adversary is not None:
            self._prepare_one(eps, dls, als)
            return
        try:
            w = release_worst_profile(
                self.chain,
                epsilons=eps or [0.0],
                sizes=list(self.sizes),
                deltas=dls,
                alphas=als,
                tolerance=TOLERANCE,
                max_grid=GRID_MAX,
            )
        except TooExpensive as err:
            raise NotAvailable(
                f"release {self.releases[0].label!r} on {self.model.n} records: {err.rule}; use "
                "sizes=[0] or one adversary"
            ) from None
        grid = f"grid {w.grid}, {'converged' if w.converged else 'finest grid'}"
        for j, e in enumerate(w.epsilon):
            adv = as_adversary(w.attained_by[j])
            self._cache[("delta", float(e))] = _value(
                w.delta.low[j], w.delta.high[j], adv, f"{grid}; {KNOWN_NOTE}"
            )
        for a, b in w.renyi.items():
            self._cache[("renyi", a)] = _value(b.low, b.high, as_adversary(w.renyi_by[a]), grid)
        self._cache[("renyi", math.inf)] = _value(w.bdpl.low, w.bdpl.high, as_adversary(w.bdpl_by), grid)
        for d, b in w.epsilon_at.items():
            self._cache[("epsilon", d)] = _value(
                b.low, b.high, None, f"{grid}; the inverse of the supremum over adversaries of delta(eps)"
            )

    def _prepare_one(self, eps: list[float], dls: list[float], als: list[float]) -> None:
        """One adversary: the grid doubled from :data:`GRID` until every ``delta`` asked is
        :data:`TOLERANCE` wide (or the finest grid)."""
        adv = self.adversary
        assert adv is not None
        known = {int(k) + 1: int(v) for k, v in zip(adv.known, adv.x_known)}
        top = min(GRID_MAX, finest_grid(self.chain.states))
        g = min(GRID, top)
        while True:
            br = release_profile(
                self.chain, target=int(adv.i) + 1, pair=(int(adv.x), int(adv.x_prime)), known=known, grid=g
            )
            d = br.delta(np.array(eps or [0.0]))
            if float(np.max(d.width)) <= TOLERANCE or g >= top:
                break
            g = min(2 * g, top)
        note = f"grid {g}"
        for j, e in enumerate(eps):
            self._cache[("delta", e)] = _value(d.low[j], d.high[j], adv, note)
        for a in als:
            b = br.renyi(a)
            self._cache[("renyi", a)] = _value(b.low, b.high, adv, note)
        b = br.bdpl()
        self._cache[("renyi", math.inf)] = _value(b.low, b.high, adv, note)
        for dl in dls:
            b = br.epsilon(dl)
            self._cache[("epsilon", dl)] = _value(b.low, b.high, adv, note)

    # ------------------------------------------------------------------ public numbers
    def delta(self, epsilon: float) -> Value:
        """``sup_adv max(H_eps(p||q), H_eps(q||p))`` of the whole output sequence, bracketed."""
        e = check_epsilon(epsilon)
        self.prepare(epsilons=[e])
        return self._cache[("delta", e)]

    def epsilon(self, delta: float) -> Value:
        """``inf {eps >= 0 : sup_adv delta(eps) <= delta}``, bracketed (bisection to ``1e-9``)."""
        d = check_delta(delta)
        self.prepare(deltas=[d])
        return self._cache[("epsilon", d)]

    def renyi(self, alpha: float) -> Value:
        """``sup_adv max(D_alpha(p||q), D_alpha(q||p))``; ``alpha = inf``: the exact temporal leakage
        ``max_t TPL_t`` (with ``sizes = [0]``)."""
        a = check_alpha(alpha)
        self.prepare(alphas=[a])
        return self._cache[("renyi", a)]

    def tpr_at(self, fpr: float) -> Value:
        check_fpr("fpr", fpr)
        raise NotAvailable(
            "tpr_at: the optimal attack's trade-off of a local release is not in the accountant; "
            "ask delta(eps) (the trade-off curve is determined by the profile)"
        )

    def naive(self):
        raise NotAvailable("a local release has no per-release naive composition here")


def local_account(
    model, releases: tuple, adversary: Adversary | None, sizes: tuple[int, ...]
) -> LocalAccount:
    """The :class:`LocalAccount` of ``releases`` (all local) on ``model``; ``NotAvailable`` naming the
    release where the model is not a Markov chain or the chain is too long."""
    from ..models.protocols import MarkovChain

    if not isinstance(model, MarkovChain):
        raise NotAvailable(
            f"release {releases[0].label!r}: the joint law of a local release is computed on a Markov "
            f"chain (a markov model), not on {type(model).__name__}"
        )
    M = joint_matrix(releases, int(model.states))
    chain = local_release(
        np.asarray(model.transition, dtype=float),
        np.asarray(model.initial, dtype=float),
        M.T,
        steps=int(model.n),
    )
    acc = LocalAccount(model, releases, adversary, sizes, chain)
    acc.check_cost()
    return acc
