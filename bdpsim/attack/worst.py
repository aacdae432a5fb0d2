"""The worst adversary: the largest advantage and TPR at a given FPR over every adversary.

**Advantage.** ``TV(P_a, Q_a) = delta_a(0)`` is the privacy profile at ``eps = 0``, so its
maximum over every adversary ``a = (i, K, x_K, x, x')`` is the exact engine's profile search at
``eps = 0`` (the window reduction on chains, the region search on networks and random fields; the
reduction holds for the hockey-stick divergence, which is jointly convex and shift-invariant), and
the adversary attaining it is the search's worst cell.

**TPR at FPR alpha.** Every adversary and both orders of its pair obey
``TPR_a(alpha) <= t alpha + Delta(t)`` for every ``t > 0``, where ``Delta(t) = sup_a max(H_a(t),
H'_a(t))`` is the two-sided profile at ``eps = ln t`` (for ``t < 1``:
``Delta(t) = 1 - t + t Delta(1/t)``). With ``a_k`` the adversary attaining ``Delta(t_k)`` and
``t_{k+1}`` the minimiser of ``t alpha + H_{a_k}(t)``, the iteration stops when an adversary's
exact ``TPR`` (a lower bound, attained) meets ``t alpha + Delta(t)`` (an upper bound for every
adversary): then the value is certified exact (``gap = 0`` up to floating point). Otherwise both
bounds are returned (``tpr_upper``). This is the saddle point of
``inf_t sup_a [t alpha + H_a(t)]``; the upper bound is the f-DP guarantee implied by the
profile, the greatest convex minorant of the lower envelope ``min_a beta_a`` (Dong, Roth and Su
2022, Prop. 2.12: a family of (eps, delta(eps)) guarantees is the f-DP guarantee of the convex
conjugate of ``delta``).

Engines without a profile search (randomized response, Gaussian records, exhaustive-only pairs)
enumerate their exhaustive search's adversaries; small models only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..adversary import Adversary, is_upward_closed, known_sizes
from ..core.errors import NotAvailable
from ..estimators import engine_for
from ..models.engines import HasExhaustive, HasProfileSearch
from .laws import markov_worst_tv, output_laws
from .tradeoff import LOG_T_MAX, TradeOff, check_fpr

#: profile iterations of the worst TPR@FPR search before it returns its two bounds
MAX_ROUNDS = 6
#: relative gap below which the worst TPR@FPR counts as certified exact
CERTIFIED = 1e-9
#: cells of the last profile search examined when the iteration does not certify its value
TOP_CELLS = 16


@dataclass(frozen=True)
class WorstValue:
    """A worst-case value over every adversary: ``value`` is attained by ``adversary`` (exact);
    ``upper`` holds for every adversary (``== value`` when certified)."""

    value: float
    adversary: Adversary
    upper: float

    @property
    def certified(self) -> bool:
        return self.upper - self.value <= CERTIFIED * max(1.0, self.upper)


def swap(adv: Adversary) -> Adversary:
    """The adversary with ``x`` and ``x'`` exchanged."""
    return Adversary(adv.i, adv.known, adv.x_known, adv.x_prime, adv.x)


def directed_tpr(model, mechanism, adv: Adversary, fpr: float) -> tuple[float, Adversary, float]:
    """``(TPR, ordered adversary, t*)``: the better order of the pair at ``fpr`` and the ``t`` of
    its optimal likelihood-ratio threshold."""
    laws = output_laws(model, mechanism, adv)
    best = (-1.0, adv, 1.0)
    for lw, a in ((laws, adv), (laws.swapped(), swap(adv))):
        v, t = lw.tradeoff().tpr_threshold(fpr)
        if v > best[0]:
            best = (v, a, t)
    return best


def _sizes(model, sizes) -> tuple[int, ...]:
    return known_sizes(sizes, model.n)


def _engine(model, mechanism):
    return engine_for(model, mechanism)  # raises NotAvailable with the reason when there is none


def _profile_search(eng, model, ks):
    """``eps -> (Delta(e^eps), adversary attaining it)`` for ``eps >= 0``, or ``None``."""
    if not isinstance(eng, HasProfileSearch) or not is_upward_closed(ks, model.n):
        return None

    def at(eps: float, top: int = 1):
        res, advs, _ = eng.profile_window(ks[0], float(eps), top)
        if top == 1:
            return float(res.bdpl), advs[0].adversary()
        return [a.adversary() for a in advs]

    return at


def _enumerate(eng, model, ks) -> list[Adversary]:
    if not isinstance(eng, HasExhaustive):
        raise NotAvailable(
            f"no exhaustive or profile search for {model.kind}: the worst adversary is unknown"
        )
    eng.check_exhaustive(ks)  # SearchTooLarge (a NotAvailable) with the reason
    res = eng.exhaustive(ks, None)
    return [res.adversary(j) for j in range(len(res))]


def worst_advantage(model, mechanism, sizes="all") -> WorstValue:
    """``max_a TV(P_a, Q_a)`` over every adversary with ``|K|`` in ``sizes``, exact."""
    ks = _sizes(model, sizes)
    if is_upward_closed(ks, model.n) and (fast := markov_worst_tv(model, mechanism, ks[0])) is not None:
        return WorstValue(fast[0], fast[1], fast[0])
    eng = _engine(model, mechanism)
    at = _profile_search(eng, model, ks)
    if at is not None:
        v, adv = at(0.0)
        return WorstValue(v, adv, v)
    best = max(
        (
            (output_laws(model, mechanism, a).tradeoff().advantage, i, a)
            for i, a in enumerate(_enumerate(eng, model, ks))
        ),
        key=lambda r: (r[0], -r[1]),
    )
    return WorstValue(best[0], best[2], best[0])


def worst_tpr(model, mechanism, fpr: float, sizes="all", *, start: Adversary | None = None) -> WorstValue:
    """``max_a TPR_a(fpr)`` over every adversary with ``|K|`` in ``sizes`` and both orders of its
    pair (module docstring: certified by the profile search, or both bounds)."""
    alpha = float(check_fpr("fpr", fpr))
    ks = _sizes(model, sizes)
    eng = _engine(model, mechanism)
    at = _profile_search(eng, model, ks)
    if at is None:
        rows = [directed_tpr(model, mechanism, a, alpha) for a in _enumerate(eng, model, ks)]
        v, adv, _ = max(rows, key=lambda r: r[0])
        return WorstValue(v, adv, v)

    def delta(t: float) -> tuple[float, Adversary]:
        if t >= 1.0:
            d, a = at(min(math.log(t), LOG_T_MAX))
            return d, a
        d, a = at(min(-math.log(t), LOG_T_MAX))
        return 1.0 - t + t * d, a

    def top(t: float, k: int) -> list[Adversary]:
        return at(min(abs(math.log(t)), LOG_T_MAX), k)

    adv = start if start is not None else at(0.0)[1]
    best_v, best_a, t = directed_tpr(model, mechanism, adv, alpha)
    upper = math.inf
    seen = set()
    for _ in range(MAX_ROUNDS):
        d, a = delta(t)
        upper = min(upper, t * alpha + d, 1.0)
        if upper - best_v <= CERTIFIED * max(1.0, upper):
            break
        key = (a.i, a.known, a.x_known, a.x, a.x_prime)
        if key in seen:
            break
        seen.add(key)
        v, a2, t = directed_tpr(model, mechanism, a, alpha)
        if v > best_v:
            best_v, best_a = v, a2
    if upper - best_v > CERTIFIED * max(1.0, upper):  # not certified: try the next cells at the last t
        for a in top(t, TOP_CELLS):
            v, a2, _ = directed_tpr(model, mechanism, a, alpha)
            if v > best_v:
                best_v, best_a = v, a2
    return WorstValue(best_v, best_a, max(upper, best_v))


@dataclass(frozen=True)
class AttackRisk:
    """What the leakage means to an attacker : the optimal attack of one adversary, or
    the worst over every adversary.

    Attributes
    ----------
    advantage : float
        ``max (TPR - FPR) = TV(P, Q)`` (the worst adversary's for a worst-case result).
    adversary : Adversary
        The adversary attaining ``advantage`` (``x``: the positives).
    bdpl : float
        That adversary's exact BDPL (``nan`` where the engine has none); ``advantage <= tanh(bdpl/2)``.
    curve : TradeOff
        That adversary's trade-off (``tpr_at``, ``beta``, ``bayes_success``).
    worst : bool
        ``True``: ``tpr_at`` maximises over every adversary (the search of :func:`worst_tpr`).
    """

    advantage: float
    adversary: Adversary
    bdpl: float
    curve: TradeOff
    worst: bool
    model: object = None
    mechanism: object = None
    sizes: object = "all"

    def tpr_at(self, fpr):
        """The largest true-positive rate at false-positive rate ``fpr`` in (0, 1): this
        adversary's ``1 - beta(fpr)``, or for a worst-case result the maximum over every adversary
        (float; an array for an array)."""
        a = check_fpr("fpr", fpr)
        if not self.worst:
            return self.curve.tpr_at(fpr)
        out = np.array([self.worst_tpr(float(v)).value for v in a.ravel()]).reshape(a.shape)
        return float(out) if np.ndim(fpr) == 0 else out

    def worst_tpr(self, fpr: float) -> WorstValue:
        """The worst ``TPR@fpr`` with the adversary attaining it and the bound for every adversary."""
        if not self.worst:
            v = float(self.curve.tpr_at(fpr))
            return WorstValue(v, self.adversary, v)
        return worst_tpr(self.model, self.mechanism, fpr, self.sizes, start=self.adversary)

    def beta(self, alpha):
        """``1 - tpr_at(alpha)``: the trade-off function (for a worst-case result the lower envelope
        ``min_a beta_a(alpha)`` over every adversary)."""
        a = check_fpr("alpha", alpha)
        b = 1.0 - np.asarray(self.tpr_at(a), dtype=float)
        return float(b) if np.ndim(alpha) == 0 else b

    def bayes_success(self, prior: float = 0.5) -> float:
        """The adversary's Bayes-optimal probability of guessing ``X_i`` (prior ``P(X_i = x)``)."""
        return self.curve.bayes_success(prior)


def _bdpl(model, mechanism, adv: Adversary) -> float:
    from ..estimators import adversary_bdpl

    try:
        return float(adversary_bdpl(model, mechanism, adv).value)
    except (NotAvailable, ValueError):
        return math.nan


def attack_risk(
    model, mechanism, adversary: Adversary | None = None, *, sizes: str | Sequence[int] = "all"
) -> AttackRisk:
    """The optimal attack on ``mechanism`` over ``model``: of one ``adversary``, or the worst over
    every adversary ``(i, K, x_K, x, x')`` with ``|K|`` in ``sizes`` (as :func:`bdpsim.exact_bdpl`).

    The adversary tests ``X_i = x'`` (negatives, law ``Q``) against ``X_i = x`` (positives, law
    ``P``) from the output; ``TPR(alpha) = inf_t [t alpha + ∫ (p - t q)^+]`` (Neyman-Pearson),
    ``advantage = TV(P, Q)`` (:mod:`bdpsim.attack.tradeoff`).

    Parameters
    ----------
    model : DataModel
        E.g. ``MarkovChainModel(P, n)``, a Bayesian network, a random field, a pedigree, or a
        ``GaussianModel`` (unclipped sum with Gaussian noise: ``mu``-GDP in closed form).
    mechanism : Mechanism
        "query + noise" with any noise law (``LaplaceCount``, ``NoisyQueryMechanism``).
    adversary : Adversary, optional
        One adversary; omitted: the worst over all of them.
    sizes : "all" or tuple of int, optional
        Known-set sizes searched when ``adversary`` is omitted.

    Returns
    -------
    AttackRisk
        ``advantage``, ``tpr_at(fpr)``, ``beta(alpha)``, ``adversary``.

    Raises
    ------
    NotAvailable
        When the pair has no exact output law (use :func:`bdpsim.attack.montecarlo.simulated_attack`
        with a sample budget).
    """
    if adversary is not None:
        if not isinstance(adversary, Adversary):
            raise TypeError(f"adversary = {adversary!r}: must be a bdpsim.Adversary")
        curve = output_laws(model, mechanism, adversary).tradeoff()
        return AttackRisk(
            curve.advantage,
            adversary,
            _bdpl(model, mechanism, adversary),
            curve,
            False,
            model,
            mechanism,
            sizes,
        )
    w = worst_advantage(model, mechanism, sizes)
    curve = output_laws(model, mechanism, w.adversary).tradeoff()
    return AttackRisk(
        w.value, w.adversary, _bdpl(model, mechanism, w.adversary), curve, True, model, mechanism, sizes
    )


__all__ = ["AttackRisk", "WorstValue", "attack_risk", "worst_advantage", "worst_tpr", "directed_tpr", "swap"]
