"""The accountant of the local release of every record of a Markov chain (k-RR, any eps-DP step).

The records ``x_1..x_n`` are a chain's steps; every record is released through its own
randomiser, independently given the records (:class:`~bdpsim.mechanisms.local.LocalRelease`;
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
    MAX_WORK,
    LocalAdversary,
    finest_grid,
    local_release,
    release_profile,
)
from ..kernels.chains.local_profile import LocalRelease as ChainRelease
from ..kernels.chains.local_worst import GRID_MAX, GRID_START, first_pass_work, release_worst_profile
from ..kernels.chains.value_channels import outside_over
from .asks import Derived, check_alpha, check_delta, check_epsilon, check_fpr
from .releases import LocalRelease
from .values import Value, bracket, exact

#: the eps at which ``tpr_at`` reads the profile (``t = e^eps`` and ``e^-eps``)
TPR_EPSILONS = (0.0, *(float(e) for e in np.round(np.geomspace(0.01, 8.0, 24), 6)))
#: how the profile's ``tpr_at`` bracket was found (a continuous release), in the report
PROFILE_TPR_NOTE = (
    "bracketed from the privacy profile at 25 eps: the upper end holds for every adversary, the "
    "lower end is attained by the adversary named"
)
#: how ``LocalAccount.tpr_at``'s bracket was found, in the report
TPR_NOTE = (
    "the worst adversary's own most powerful test: the lower end attained by the adversary named, "
    "the upper end for every adversary"
)
#: how ``LocalAccount.epsilon``'s adversary certifies the lower end, in the report
EPSILON_NOTE = "the adversary named has delta(eps) > delta at the lower end"
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


class LocalNumbers(Derived):
    """The numbers every local-release accountant reads from its cache (filled by ``prepare``):
    ``delta``, ``epsilon``, and ``tpr_at`` as the bracket its profile certifies
    (:class:`LocalAccount` overrides it with each adversary's own most powerful test); ``naive``
    is not computed for local releases."""

    _cache: dict

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

    def tpr_at(self, fpr: float) -> Value:
        """The worst adversary's most powerful test at false-positive rate ``a = fpr``, bracketed
        from the profile at :data:`TPR_EPSILONS` (``t = e^eps``, ``delta(eps)`` in ``[d_lo, d_hi]``):

        * upper, for every adversary and both orders: ``TPR <= min(t a + d_hi, 1 - (1 - a - d_hi)
          / t)`` (the f-DP curve the profile implies);
        * lower, attained: the adversary of ``d_lo`` has a set ``S``, ``q = Q(S)``, with ``P(S) >=
          d_lo + t q``; its ROC curve is concave through ``(0, 0)``, ``(q, P(S))`` and ``(1, 1)``.
          If ``q >= a`` the chord from the origin gives ``TPR >= a (d_lo / q + t) >= a t / (1 -
          d_lo)`` (``P(S) <= 1`` bounds ``q <= (1 - d_lo) / t``); if ``q <= a`` the chord to ``(1, 1)``
          gives ``TPR >= d_lo + a (1 - d_lo)`` (least at ``q = 0`` for ``t >= 1``); the least of the
          two (and the trivial test ``TPR = a``).

        The bracket is what the profile certifies, not refined further (its width is printed)."""
        a = check_fpr("fpr", fpr)
        self.prepare(epsilons=TPR_EPSILONS)
        lo, hi, who = a, 1.0, None
        for e in TPR_EPSILONS:
            v = self._cache[("delta", float(e))]
            t, d_lo, d_hi = math.exp(e), float(v.lower), min(float(v.upper), 1.0)
            hi = min(hi, t * a + d_hi, 1.0 - (1.0 - a - d_hi) / t)
            through_origin = a * t / (1.0 - d_lo) if d_lo < 1.0 and a <= (1.0 - d_lo) / t else math.inf
            low = min(through_origin, d_lo + a * (1.0 - d_lo), 1.0)
            if low > lo:
                lo, who = low, v.adversary
        return bracket(lo, max(hi, lo), who, PROFILE_TPR_NOTE)

    def naive(self):
        raise NotAvailable("a local release has no per-release naive composition here")


@dataclass
class LocalAccount(LocalNumbers):
    """The accountant of a local release of every record of ``model`` (a Markov chain):
    ``delta(eps)``, ``epsilon(delta)``, ``renyi(alpha)``, ``bdpl``, ``advantage`` (module docstring).
    Numbers asked together (:meth:`prepare`) share one refinement of the grid."""

    model: Any
    releases: tuple
    adversary: Adversary | None
    sizes: tuple[int, ...]
    chain: ChainRelease
    flat: list = field(default_factory=list)
    #: the width of ``delta(eps)`` the grid's refinement aims at
    tolerance: float = TOLERANCE
    #: the kernels' work limit of one pass
    max_work: float = MAX_WORK
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
    def prepare(self, epsilons=(), deltas=(), alphas=(), fprs=()) -> None:
        """Compute ``delta`` at ``epsilons``, ``epsilon`` at ``deltas``, ``renyi`` at ``alphas`` and
        ``tpr_at`` at ``fprs`` (and the BDPL) in one refinement of the grid; the later calls read
        them."""
        eps = [check_epsilon(e) for e in epsilons if ("delta", float(e)) not in self._cache]
        dls = [check_delta(d) for d in deltas if ("epsilon", float(d)) not in self._cache]
        als = [check_alpha(a) for a in alphas if ("renyi", float(a)) not in self._cache]
        als = [a for a in als if math.isfinite(a)]
        fps = [float(check_fpr("fpr", f)) for f in fprs if ("tpr", float(f)) not in self._cache]
        if not (eps or dls or als or fps) and ("renyi", math.inf) in self._cache:
            return
        if self.adversary is not None:
            self._prepare_one(eps, dls, als, fps)
            return
        try:
            w = release_worst_profile(
                self.chain,
                epsilons=eps or [0.0],
                sizes=list(self.sizes),
                deltas=dls,
                alphas=als,
                fprs=fps,
                tolerance=self.tolerance,
                max_grid=GRID_MAX,
                max_work=self.max_work,
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
        low, high = float(np.asarray(w.bdpl.low)), float(np.asarray(w.bdpl.high))
        self._cache[("renyi", math.inf)] = self._bdpl(low, high, as_adversary(w.bdpl_by), grid)
        for d, b in w.epsilon_at.items():
            who = w.epsilon_by[d]
            self._cache[("epsilon", d)] = _value(
                b.low,
                b.high,
                None if who is None else as_adversary(who),
                f"{grid}; the inverse of the supremum over adversaries of delta(eps); "
                + (EPSILON_NOTE if who is not None else "delta(0) <= delta: eps(delta) = 0"),
            )
        for f, b in w.tpr.items():
            self._cache[("tpr", f)] = _value(b.low, b.high, as_adversary(w.tpr_by[f]), f"{grid}; {TPR_NOTE}")

    def _bdpl(self, low: float, high: float, adversary: Adversary, note: str) -> Value:
        """The BDPL: the kernel's bracket ``[low, high]``, or, where it is wider than
        :attr:`tolerance`, the exact value of the temporal engine (:func:`bdpsim.exact_bdpl` of the
        releases' joint matrix over the same known-set sizes) when it lies in the bracket and its
        enumeration is not refused."""
        if high - low > self.tolerance:
            from ..core.errors import BdpsimError
            from ..estimators.supremum import exact_bdpl
            from ..mechanisms.local import LocalRelease as Release

            try:
                M = joint_matrix(self.releases, int(self.model.states))
                ex = exact_bdpl(self.model, Release(M), sizes=self.sizes)
            except BdpsimError:
                ex = None
            if ex is not None and low - 1e-9 <= ex.bdpl <= high + 1e-9:
                return exact(
                    float(ex.bdpl), ex.adversary, "the temporal engine's exact max_t TPL_t (in the bracket)"
                )
        return _value(low, high, adversary, note)

    def _prepare_one(self, eps: list[float], dls: list[float], als: list[float], fps: list[float]) -> None:
        """One adversary: the grid doubled from :data:`GRID` until every ``delta`` and ``tpr_at``
        asked is :attr:`tolerance` wide (or the finest grid)."""
        adv = self.adversary
        assert adv is not None
        known = {int(k) + 1: int(v) for k, v in zip(adv.known, adv.x_known)}
        top = min(GRID_MAX, finest_grid(self.chain.states))
        g = min(GRID, top)
        while True:
            br = release_profile(
                self.chain,
                target=int(adv.i) + 1,
                pair=(int(adv.x), int(adv.x_prime)),
                known=known,
                grid=g,
                max_work=self.max_work,
            )
            d = br.delta(np.array(eps or [0.0]))
            tp = br.tpr(np.array(fps)) if fps else None
            width = max(float(np.max(d.width)), float(np.max(tp.width)) if tp is not None else 0.0)
            if width <= self.tolerance or g >= top:
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
        for j, f in enumerate(fps):
            assert tp is not None
            self._cache[("tpr", f)] = _value(tp.low[j], tp.high[j], adv, f"{note}; {TPR_NOTE}")

    # ------------------------------------------------------------------ public numbers
    def prepare_tprs(self, fprs=()) -> None:
        """``tpr_at`` at every FPR of ``fprs`` in one refinement of the grid."""
        self.prepare(fprs=fprs)

    def tpr_at(self, fpr: float) -> Value:
        """The worst adversary's most powerful test at false-positive rate ``a = fpr``:
        ``sup_adv TPR_adv(a)``, each adversary's own ``TPR_adv(a) = inf_eps [e^eps a +
        delta_adv(eps)]`` over every real ``eps`` and both orders (Neyman-Pearson on its own pair,
        :func:`~bdpsim.kernels.chains.pair_product.tpr_both`), bracketed: the lower end attained by
        a test of the adversary named (on its lower pair, a garbling of its release), the upper end
        for every adversary; the grid refined with the profile's until :attr:`tolerance` wide. This
        is the true worst TPR ``sup_adv inf_eps``, not the profile's bound ``inf_eps sup_adv``."""
        a = float(check_fpr("fpr", fpr))
        self.prepare(fprs=[a])
        return self._cache[("tpr", a)]

    def renyi(self, alpha: float) -> Value:
        """``sup_adv max(D_alpha(p||q), D_alpha(q||p))``; ``alpha = inf``: the exact temporal leakage
        ``max_t TPL_t`` (with ``sizes = [0]``)."""
        a = check_alpha(alpha)
        self.prepare(alphas=[a])
        return self._cache[("renyi", a)]


# ---------------------------------------------------------------------- continuous releases

#: cells of the bracketing channels' first pass, and the most the refinement takes
BINS_START, BINS_MAX = 64, 4096
#: the filter grid's tolerance in the first pass (it only measures the channels' gap)
FIRST_TOLERANCE = 1e-5
#: the work limit of a continuous release's passes, in the kernels' estimate (which counts every
#: composition at its largest: 2-state chain, 100 records, 2318 cells, estimated 3.4e10, took 150 s
#: on two loaded cores for both channels)
VALUE_MAX_WORK = 1e11
#: the filter grids the cost estimates assume for the first pass and for the tolerance (measured:
#: about 500 and 1100 cells on 2-state chains of 10 to 1000 records)
FIRST_GRID, FINE_GRID = 512, 1024


def _log_mean(w: float, a: float, b: float) -> float:
    """``ln(w e^a + (1 - w) e^b)`` without overflow (``w`` in ``[0, 1]``)."""
    if w >= 1.0:
        return a
    terms = [math.log(w) + a] if w > 0 else []
    terms.append(math.log1p(-w) + b)
    return float(np.logaddexp.reduce(terms))


@dataclass
class ValueNoiseAccount(LocalNumbers):
    """The accountant of a release with continuous outputs at every record of a chain (Gaussian
    noise on a per-state value, :class:`~bdpsim.mechanisms.value_noise.ValueNoise`), bracketed.

    The release is held between two finite channels (:mod:`bdpsim.kernels.chains.value_channels`):
    a lower one, a garbling of it, and an upper one of which the release restricted to a range is a
    garbling; each is accounted like k-RR (:class:`LocalAccount`). ``delta(eps)`` lies in
    ``[delta_lower(eps), delta_upper(eps) + 1 - (1 - tau)^T]`` (``tau``: one step's output outside the
    range, the same under every state), ``eps(delta)`` in ``[eps_lower(delta), eps_upper(delta - 1 +
    (1 - tau)^T)]``, ``D_alpha`` in ``[D_lower, ln(w e^{(alpha-1) D_upper} + (1 - w) e^{(alpha-1) B})
    / (alpha - 1)]`` with ``w = (1 - tau)^T`` and ``B`` the closed-form bound of the release given
    some output outside the range. The upper channel's weights are integrals computed by quadrature:
    its certified per-step error ``e`` (:class:`~bdpsim.kernels.chains.value_channels.ChannelPair`)
    widens the upper ends, ``(1 - tau)^T`` becoming ``((1 - tau) e^{-e})^T`` in ``delta`` and
    ``eps``, and ``(alpha - 1) D_upper`` gaining ``(2 alpha - 1) T e`` in ``D_alpha``. The cells
    are refined until the bracket of ``delta`` is :data:`TOLERANCE` wide (a first pass of
    :data:`BINS_START` cells measures the gap, which narrows like ``bins^-2``; the second aims at
    the tolerance) or :data:`BINS_MAX` cells or the cost limit. The BDPL is ``+inf`` (the loss of
    one output is unbounded), stated, not computed (``0`` where every state has the same value and
    nothing else is released)."""

    model: Any
    releases: tuple
    adversary: Adversary | None
    sizes: tuple[int, ...]
    value: Any
    others: tuple = ()
    flat: list = field(default_factory=list)
    bins: int = 0
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def method(self) -> str:
        return (
            "continuous local release: held between two finite channels in the Blackwell order "
            "(lower: the outputs quantised into cells; upper: the outputs in a range split onto the "
            "cells' nodes, plus the probability of an output outside the range), each accounted by "
            "the chain's forward and backward filters on a grid, bracketed"
        )

    @property
    def steps(self) -> int:
        return int(self.model.n)

    def _accounts(self, bins: int, tolerance: float) -> tuple[LocalAccount, LocalAccount, Any]:
        """The accounts of the lower and upper channel with ``bins`` cells."""
        k = int(self.model.states)
        pair = self.value.channels(k, bins, self.steps)
        out = []
        for M in (pair.lower, pair.upper):
            for r in self.others:
                N = r.matrix(k)
                M = (M[:, :, None] * N[:, None, :]).reshape(k, -1)
            chain = local_release(
                np.asarray(self.model.transition, dtype=float),
                np.asarray(self.model.initial, dtype=float),
                M.T,
                steps=self.steps,
            )
            acc = LocalAccount(
                self.model,
                self.releases,
                self.adversary,
                self.sizes,
                chain,
                tolerance=tolerance,
                max_work=10 * VALUE_MAX_WORK,  # the cells are chosen within VALUE_MAX_WORK (_fits)
            )
            out.append(acc)
        return out[0], out[1], pair

    def _work(self, bins: int, grid: int) -> None:
        """:class:`TooExpensive` where one channel's pass with ``bins`` cells on a filter grid of
        ``grid`` cells per axis is estimated above :data:`VALUE_MAX_WORK`: the kernels' estimate
        of a first pass (grid 64) scaled by ``grid / 64`` (the sweeps' and compositions' work grow
        at most in proportion)."""
        _, up, _ = self._accounts(bins, TOLERANCE / 2)
        first = first_pass_work(up.chain, sizes=list(self.sizes), n_eps=4, max_work=math.inf)
        work = first * grid / GRID_START
        if work > VALUE_MAX_WORK:
            raise TooExpensive(
                "bins",
                bins,
                f"the bracket may take ~{work:.3g} operations ({self.steps} steps, {bins} cells, a "
                f"filter grid of {grid}), above the limit {VALUE_MAX_WORK:.3g}",
            )

    def check_cost(self) -> None:
        """Refuse up front (``NotAvailable`` with the estimate) a chain too long for the first pass
        (on the filter grid it reaches: :data:`FIRST_GRID`)."""
        try:
            self._work(BINS_START, FIRST_GRID)
        except TooExpensive as err:
            raise NotAvailable(
                f"release {self.value.label!r} on {self.model.n} records: {err.rule}; use fewer "
                "records"
                + ("" if max(self.sizes) == 0 else " or sizes=[0] (the adversary who knows nothing)")
            ) from None

    def _fits(self, bins: int) -> bool:
        """Whether a pass with ``bins`` cells is within the work limit (on the filter grid a
        tolerance of about ``1e-7`` reaches: :data:`FINE_GRID`)."""
        try:
            self._work(bins, FINE_GRID)
        except TooExpensive:
            return False
        return True

    # ------------------------------------------------------------------ computing
    def prepare(self, epsilons=(), deltas=(), alphas=()) -> None:
        """Compute the numbers asked (``delta`` at ``epsilons``, ``epsilon`` at ``deltas``,
        ``renyi`` at ``alphas``) in one refinement of the cells (class docstring)."""
        eps = [check_epsilon(e) for e in epsilons if ("delta", float(e)) not in self._cache]
        dls = [check_delta(d) for d in deltas if ("epsilon", float(d)) not in self._cache]
        als = [check_alpha(a) for a in alphas if ("renyi", float(a)) not in self._cache]
        als = [a for a in als if math.isfinite(a)]
        if not (eps or dls or als) and self._cache:
            return
        asked = eps or [0.0]
        bins, reached = BINS_START, math.inf
        lo, up, pair = self._run(BINS_START, FIRST_TOLERANCE, asked, [], [])
        slack = pair.slack(self.steps)
        reached = max(float(up.delta(e).upper) + slack - float(lo.delta(e).lower) for e in asked)
        if reached > TOLERANCE:
            aim = int(math.ceil(1.1 * BINS_START * math.sqrt(max(reached, 0.0) / (TOLERANCE / 2))))
            bins = min(max(aim, 2 * BINS_START), BINS_MAX)
            while bins > BINS_START and not self._fits(bins):
                bins = int(bins * 0.8)
            bins = max(bins, BINS_START)  # none fits: the first pass's cells (and numbers)
        if bins > BINS_START or dls or als:
            tol = TOLERANCE / 2 if bins > BINS_START else FIRST_TOLERANCE
            try:
                lo, up, pair = self._run(bins, tol, asked, dls, als)
            except NotAvailable:  # the filter grid outgrew the limit: the first pass's bracket
                bins = BINS_START
                lo, up, pair = self._run(bins, FIRST_TOLERANCE, asked, dls, als)
        self.bins = bins
        slack = pair.slack(self.steps)
        note = (
            f"{bins} cells; outside the range (|z| > {pair.range:.3g} sigma) or off the computed upper "
            f"channel over all steps: {slack:.2g}"
        )
        for e in eps:
            a, b = lo.delta(e), up.delta(e)
            self._cache[("delta", e)] = _value(a.lower, min(b.upper + slack, 1.0), a.adversary, note)
        for d in dls:
            a = lo.epsilon(d)
            high = up.epsilon(d - slack).upper if d - slack > 0 else math.inf
            self._cache[("epsilon", d)] = _value(a.lower, high, None, note)
        for al in als:
            a, b = lo.renyi(al), up.renyi(al)
            tau, bound = self._outside_renyi(al, pair.range)
            w = 1.0 - outside_over(tau, self.steps)
            inside = (al - 1) * float(b.upper) + (2 * al - 1) * pair.log_ratio(self.steps)
            high = _log_mean(w, inside, (al - 1) * bound) / (al - 1)
            self._cache[("renyi", al)] = _value(a.lower, high, a.adversary, note)

    def _run(self, bins: int, tolerance: float, eps, dls, als):
        lo, up, pair = self._accounts(bins, tolerance)
        slack = pair.slack(self.steps)
        lo.prepare(epsilons=eps, deltas=dls, alphas=als)
        up.prepare(epsilons=eps, deltas=[d - slack for d in dls if d - slack > 0], alphas=als)
        return lo, up, pair

    def _outside_renyi(self, alpha: float, Z: float) -> tuple[float, float]:
        """``(tau', B)``: the range's outside weight per step and ``B >= D_alpha`` of the release
        given some step in the outside part, over every adversary: the prior's largest ratio plus
        one step's Rényi divergence in either part of the mixture
        (:func:`~bdpsim.kernels.chains.value_channels.step_renyi_values`; other releases of the
        step add their own ``D_alpha``)."""
        from ..kernels.chains.value_channels import prior_ratio_bound

        k = int(self.model.states)
        prior = prior_ratio_bound(np.asarray(self.model.transition, dtype=float), self.model.initial)
        tau, step = self.value.step_renyi(alpha, Z)
        others = [r.matrix(k) for r in self.others]
        worst = 0.0
        for a in range(k):
            for b in range(k):
                if a == b or prior[a, b] == -math.inf:  # -inf: a value no record takes, no adversary
                    continue
                d = prior[a, b] + float(step[a, b])
                for M in others:
                    d += float(np.log(np.sum(M[a] ** alpha * M[b] ** (1 - alpha)))) / (alpha - 1)
                worst = max(worst, d)
        return tau, worst

    # ------------------------------------------------------------------ public numbers
    def renyi(self, alpha: float) -> Value:
        """``sup_adv max(D_alpha(p||q), D_alpha(q||p))``, bracketed; ``alpha = inf``: ``+inf`` (one
        output's loss is unbounded)."""
        a = check_alpha(alpha)
        if math.isinf(a):
            if self.value.separation == 0.0 and not self.others:
                return exact(0.0, None, "every state has the same value: the outputs say nothing")
            return exact(math.inf, None, "the loss of one output is unbounded (Gaussian noise)")
        self.prepare(alphas=[a])
        return self._cache[("renyi", a)]


def local_account(
    model, releases: tuple, adversary: Adversary | None, sizes: tuple[int, ...]
) -> LocalAccount | ValueNoiseAccount:
    """The :class:`LocalAccount` of ``releases`` (all local) on ``model`` (a
    :class:`ValueNoiseAccount` where one has continuous outputs); ``NotAvailable`` naming the
    release where the model is not a Markov chain or the chain is too long."""
    from ..kernels.chains.value_channels import HasChannels
    from ..models.protocols import MarkovChain

    if not isinstance(model, MarkovChain):
        raise NotAvailable(
            f"release {releases[0].label!r}: the joint law of a local release is computed on a Markov "
            f"chain (a markov model), not on {type(model).__name__}"
        )
    continuous = [r for r in releases if isinstance(r, HasChannels)]
    if continuous:
        if len(continuous) > 1:
            raise NotAvailable(
                f"release {continuous[1].label!r} beside {continuous[0].label!r}: one release with "
                "continuous outputs per account (two would need a channel pair of their tuple)"
            )
        others = tuple(r for r in releases if r is not continuous[0])
        vacc = ValueNoiseAccount(model, releases, adversary, sizes, continuous[0], others)
        vacc.check_cost()
        return vacc
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
