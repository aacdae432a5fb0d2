"""The worst adversary: the largest advantage and TPR at a given FPR over every adversary, read
from the privacy profile the pair's exact engine searches.

Everything here reaches the exact computations through the engine
(:func:`bdpsim.models.engines.engine_for`, or the engine a caller passes) and two of its
capabilities: :class:`~bdpsim.models.engines.HasOutputPair` (one adversary's two output laws) and
:class:`~bdpsim.models.engines.HasProfiles` (the privacy profile at several ``eps`` over every
adversary in one search), or, for known-set sizes that are not ``{k..n-1}`` or an engine without
the profile search, :class:`~bdpsim.models.engines.HasExhaustive` (every adversary enumerated).

**Advantage.** ``TV(P_a, Q_a) = delta_a(0)`` is the privacy profile at ``eps = 0``, so its
maximum over every adversary ``a = (i, K, x_K, x, x')`` is the profile search at ``eps = 0`` (the
window reduction on chains, the region search on networks and random fields, the class search on
pedigrees: the reductions hold for the hockey-stick divergence, jointly convex and
shift-invariant), and the adversary attaining it is the search's worst cell: **the worst
adversary** of an attack is this one, the adversary of largest advantage.

**TPR at FPR alpha.** Every adversary and both orders of its pair obey
``TPR_a(alpha) <= t alpha + Delta(t)`` for every ``t > 0``, where ``Delta(t) = sup_a max(H_a(t),
H'_a(t))`` is the two-sided profile at ``eps = ln t`` (for ``t < 1``:
``Delta(t) = 1 - t + t Delta(1/t)``). So the search computes the profile at several ``eps`` in one
pass (:class:`~bdpsim.kernels.noise.scores.ProfilesScore`) and

* the least ``t alpha + Delta(t)`` over the ``t`` searched is an upper bound for every adversary
  (``upper``; the f-DP guarantee the profile implies: Dong, Roth and Su 2022, Prop. 2.12);
* the exact TPR of the adversaries attaining the profile (and of the search's leading cells),
  both orders of each pair, is attained (``value``, with its adversary and its optimal
  likelihood-ratio threshold ``t*``);
* the next pass searches the profile at every uncertified ``alpha``'s ``t*`` at once, for all the
  FPRs asked together, until ``upper`` meets ``value`` (certified exact: ``gap = 0`` up to floating
  point; the saddle point of ``inf_t sup_a [t alpha + H_a(t)]``) or :data:`MAX_PASSES` passes;
  otherwise both bounds are returned.

One pass of :data:`FIRST_EPSILONS` gives the advantage and (with ``bdpl``) the BDPL over every
adversary too. **On a chain** (a window search, Laplace or geometric noise) the same pass also
solves the worst TPR at every FPR asked with it by branch and bound over the window's law pairs,
which bound every adversary's TPR (:mod:`bdpsim.attack.pruned`): certified exact in that one
search, so ``bdpsim attack markov`` costs one search of the engine whatever the number of FPRs;
elsewhere two or three (FPRs asked later: the passes above).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..adversary import Adversary, is_upward_closed, known_sizes
from ..core.errors import ConfigError, NotAvailable
from ..core.number_kinds import BRACKET, EXACT, MONTE_CARLO
from ..kernels.noise.protocols import HasDeltaTable
from ..mechanisms.histogram import NoisyHistogram
from ..mechanisms.protocols import ReleasesEveryRecord
from ..models.engines import (
    HasExhaustive,
    HasNoiseLaw,
    HasOutputPair,
    HasProfiles,
    HasSearch,
    HasSearchOptions,
    PairEngine,
    QueryLawsEngine,
    use_engine,
)
from .pruned import TprScore
from .tradeoff import LOG_T_MAX, TradeOff, check_fpr, drawn_tradeoff, pair_tradeoff, pure_dp_tpr, tpr_rows

#: most searches of the profile (the first included) before the worst TPR@FPR returns its bounds
MAX_PASSES = 3
#: relative gap below which the worst TPR@FPR counts as certified exact
CERTIFIED = 1e-9
#: cells of each search (by its first component) whose TPR is computed beside the worst of each eps
TOP_CELLS = 16
#: candidate adversaries a search over every adversary may hold (each search: the worst of each
#: component and :data:`TOP_CELLS` leaders; 119 measured on the activity chain with three FPRs)
CANDIDATES = 150
#: bytes per record of one candidate: its known set and values, in the adversary and in its key
#: (four tuples of 8-byte references; 4.9 KB per record measured at n = 100 000 and 400 000)
CANDIDATE_RECORD_BYTES = 32
#: the most memory the candidates may hold: the default limit of a run (``--max-memory-gib 8``)
MAX_CANDIDATE_BYTES = 8 * 2**30
#: the eps of the first search: 0 (the advantage); the TPR's thresholds come from its adversaries
FIRST_EPSILONS = (0.0,)
#: most adversaries an enumeration (sizes that are not upward closed) attacks one by one
ENUMERATION_LIMIT = 200_000


@dataclass(frozen=True)
class WorstValue:
    """A worst-case value over every adversary: ``value`` is attained by ``adversary`` (exact);
    ``upper`` holds for every adversary (``== value`` when certified).

    A Monte Carlo value (``confidence`` given, with ``lower``): ``value`` is the estimate and
    ``[lower, upper]`` an interval that holds with probability at least ``confidence``; it is
    never certified."""

    value: float
    adversary: Adversary
    upper: float
    lower: float | None = None
    confidence: float | None = None

    def __post_init__(self) -> None:
        if (self.lower is None) != (self.confidence is None):
            raise ValueError(
                f"lower = {self.lower!r}, confidence = {self.confidence!r}: a Monte Carlo value gives "
                "both (its interval's lower end and the probability the interval holds), an exact one neither"
            )
        if self.confidence is not None and not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence = {self.confidence!r}: must be in (0, 1)")

    @property
    def low(self) -> float:
        """The lower end: the interval's (Monte Carlo), else ``value`` (attained)."""
        return self.value if self.lower is None else self.lower

    @property
    def certified(self) -> bool:
        return self.confidence is None and self.upper - self.value <= CERTIFIED * max(1.0, self.upper)


def swap(adv: Adversary) -> Adversary:
    """The adversary with ``x`` and ``x'`` exchanged."""
    return Adversary(adv.i, adv.known, adv.x_known, adv.x_prime, adv.x)


def _key(adv: Adversary) -> tuple:
    """One key for both orders of an adversary's pair."""
    lo, hi = sorted((adv.x, adv.x_prime), key=repr)
    return (adv.i, tuple(adv.known), tuple(adv.x_known), lo, hi)


def output_pair(engine, adversary: Adversary):
    """The adversary's two output laws by ``engine`` (:class:`~bdpsim.models.engines.HasOutputPair`),
    or :class:`~bdpsim.core.errors.NotAvailable` with the reason."""
    if not isinstance(engine, HasOutputPair):
        raise NotAvailable(
            f"exact engine {type(engine).__name__} ({engine.method}): no exact output "
            "laws of an adversary; give a Monte Carlo budget (bdpsim.attack.simulated_attack)"
        )
    return engine.output_pair(adversary)


def directed_tpr(
    model, mechanism, adv: Adversary, fpr: float, engine: PairEngine = None
) -> tuple[float, Adversary, float]:
    """``(TPR, ordered adversary, t*)``: the better order of the pair at ``fpr`` and the ``t`` of
    its optimal likelihood-ratio threshold."""
    eng = use_engine(engine, model, mechanism)
    pair = output_pair(eng, adv)
    vals, ts = tpr_rows([pair, pair.swapped()], np.full(2, float(check_fpr("fpr", fpr))))
    k = int(np.argmax(vals))
    return float(vals[k]), (adv if k == 0 else swap(adv)), float(ts[k])


class _Attack:
    """The state of one worst-case search: the profile ``Delta(eps)`` at every ``eps`` searched and
    who attains it, the candidate adversaries with their pairs, and the best attained TPR per FPR."""

    def __init__(self, engine, min_known: int, progress: Callable | None, window: bool = False) -> None:
        self.engine, self.min_known, self.progress = engine, int(min_known), progress
        #: the engine's search is a chain's window search: the first search solves the worst TPR
        #: of the FPRs asked with it by branch and bound (:mod:`bdpsim.attack.pruned`)
        self.window = window
        self.envelope: dict[float, tuple[float, Adversary]] = {}
        self.pairs: dict[tuple, tuple[Adversary, Any]] = {}
        self.best: dict[float, tuple[float, Adversary, float]] = {}
        self.tried: dict[float, set] = {}
        #: per FPR solved by the branch and bound: the largest TPR over every law pair searched,
        #: which bounds every adversary's
        self.bounded: dict[float, float] = {}
        self.bdpl: float | None = None
        self.passes = 0

    # ------------------------------------------------------------------ searches
    def search(
        self, epsilons: Sequence[float], bdpl: bool = False, alphas: Sequence[float] = ()
    ) -> list[Adversary]:
        """One search of the profile at ``epsilons`` (and the BDPL; and on a chain's window search
        the worst TPR at ``alphas``): the envelope updated; the new candidate adversaries (the
        worst of each eps and TPR, the leading cells of each eps)."""
        eps = list(dict.fromkeys(float(e) for e in epsilons))  # in order: the first ranks the rows
        tprs = [float(a) for a in dict.fromkeys(alphas)] if self.window and eps == [0.0] else []
        if tprs:
            score = TprScore(tprs, bdpl)
            found = cast(HasSearch, self.engine).search(score, self.min_known, TOP_CELLS)
        else:
            found = self.engine.profiles(eps, self.min_known, TOP_CELLS, bdpl)
        self.passes += 1
        if self.progress is not None:
            self.progress(self.passes, MAX_PASSES)
        out = []
        leaders = found.leaders or (found.rows,)
        profiles = len(eps) + (1 if bdpl else 0)
        for k, name in enumerate(found.names):
            adv = found.worst[k].adversary()
            out.append(adv)
            if k >= profiles:  # a TPR solved over every pair: its worst only
                self.bounded[tprs[k - profiles]] = float(found.value[k])
                continue
            if name == "bdpl":
                self.bdpl = float(found.value[k])
                top = self.bdpl + float(found.tolerance)  # every adversary's BDPL is at most this
                if top <= LOG_T_MAX:  # so delta(top) = 0 (p <= e^top q): the pure-eps bound
                    self.envelope.setdefault(top, (0.0, adv))
            else:
                self.envelope[eps[k]] = (float(found.value[k]), adv)
            if k < len(leaders):
                out += [r.adversary() for r in leaders[k]]
        return out

    def upper(self, alpha: float) -> tuple[float, float]:
        """``min_t [t alpha + Delta(t)]`` over the ``t = e^{+-eps}`` searched, and that ``t``."""
        best = (1.0, 1.0)
        for e, (d, _) in self.envelope.items():
            t = math.exp(min(e, LOG_T_MAX))
            for tt, v in ((t, t * alpha + d), (1.0 / t, alpha / t + 1.0 - 1.0 / t + d / t)):
                if v < best[0]:
                    best = (v, tt)
        return best

    # ------------------------------------------------------------------ candidates
    def attack(self, advs: Sequence[Adversary], alphas: Sequence[float]) -> None:
        """The exact TPR at each of ``alphas`` of each adversary of ``advs`` not tried yet (both
        orders of its pair), the best per alpha kept."""
        for adv in advs:
            key = _key(adv)
            if key not in self.pairs:
                try:
                    self.pairs[key] = (adv, output_pair(self.engine, adv))
                except NotAvailable:  # a condition of probability zero: no such adversary
                    continue
        for a in alphas:
            todo = [k for k in self.pairs if k not in self.tried.setdefault(a, set())]
            if not todo:
                continue
            self.tried[a].update(todo)
            rows, who = [], []
            for k in todo:
                adv, pair = self.pairs[k]
                rows += [pair, pair.swapped()]
                who += [adv, swap(adv)]
            vals, ts = tpr_rows(rows, np.full(len(rows), a))
            j = int(np.argmax(vals))
            if a not in self.best or vals[j] > self.best[a][0]:
                self.best[a] = (float(vals[j]), who[j], float(ts[j]))

    def result(self, alpha: float) -> WorstValue:
        v, adv, _ = self.best[alpha]
        return WorstValue(v, adv, max(min(self.upper(alpha)[0], self.bounded.get(alpha, math.inf)), v))

    def certified(self, alpha: float) -> bool:
        return self.result(alpha).certified

    def refine(self, alphas: Sequence[float]) -> None:
        """Search the profile at every uncertified alpha's threshold ``t*`` (one search for all),
        until certified, nothing new to search, or :data:`MAX_PASSES` searches in all (the first
        included; ``MAX_PASSES - 1`` more for FPRs asked later)."""
        limit = max(MAX_PASSES, self.passes + MAX_PASSES - 1) if self.passes > 1 else MAX_PASSES
        while self.passes < limit:
            gaps = {a: self.result(a) for a in alphas}
            todo = sorted(
                (a for a in alphas if not gaps[a].certified), key=lambda a: gaps[a].value - gaps[a].upper
            )
            eps = [min(abs(math.log(self.best[a][2])), LOG_T_MAX) for a in todo]  # the widest gap first
            eps = [e for e in eps if not any(abs(e - s) <= 1e-12 for s in self.envelope)]
            if not eps:
                return
            self.attack(self.search(eps), alphas)


def _min_known(engine, model, sizes) -> int | None:
    """The least known-set size when ``sizes`` is ``{k..n-1}`` and the engine searches the profile,
    else ``None`` (enumerate)."""
    ks = known_sizes(sizes, model.n)
    if isinstance(engine, HasProfiles) and is_upward_closed(ks, model.n):
        return ks[0]
    return None


def _window(engine) -> bool:
    """Whether the engine's profile search is a chain's window search — the one search with options
    of its own (:class:`~bdpsim.models.engines.HasSearchOptions`: the window truncation) whose
    profiles are its search with the profile score — whose law pairs bound every adversary's TPR
    (:mod:`bdpsim.attack.pruned`), with a noise law that evaluates a pair's profile at many ``t``
    from one table (Laplace, geometric; a Gaussian pair's profile is a search per ``t``: the
    profile passes instead)."""
    return (
        isinstance(engine, HasSearchOptions)
        and isinstance(engine, HasSearch)
        and isinstance(engine, HasNoiseLaw)
        and isinstance(engine.noise, HasDeltaTable)
        and type(engine).profiles is QueryLawsEngine.profiles  # type: ignore[attr-defined]
    )


def _enumerate(engine, model, sizes) -> list[Adversary]:
    ks = known_sizes(sizes, model.n)
    if not isinstance(engine, HasExhaustive):
        raise NotAvailable(
            f"exact engine {type(engine).__name__}: no profile search or enumeration of every adversary "
            f"for {type(model).__name__}: the worst adversary is unknown"
        )
    engine.check_exhaustive(ks)  # SearchTooLarge (a NotAvailable) with the reason
    res = engine.exhaustive(ks, None)
    if len(res) > ENUMERATION_LIMIT:
        raise NotAvailable(
            f"{len(res)} adversaries to attack one by one (limit {ENUMERATION_LIMIT}); use known sizes "
            "{k..n-1} (the profile search) or fewer records"
        )
    return [res.adversary(j) for j in range(len(res))]


@dataclass
class _Enumerated:
    """Every adversary of an enumeration with its pair (the worst-case values are maxima over
    them, exact)."""

    advs: list
    pairs: list

    def advantage(self) -> WorstValue:
        tv = np.array([p.deltas([0.0])[0][0] for p in self.pairs])
        j = int(np.argmax(tv))
        return WorstValue(float(tv[j]), self.advs[j], float(tv[j]))

    def tpr(self, alpha: float) -> WorstValue:
        rows = [q for p in self.pairs for q in (p, p.swapped())]
        who = [b for a in self.advs for b in (a, swap(a))]
        vals, _ = tpr_rows(rows, np.full(len(rows), alpha))
        j = int(np.argmax(vals))
        return WorstValue(float(vals[j]), who[j], float(vals[j]))


def _enumerated(engine, model, sizes) -> _Enumerated:
    advs, pairs = [], []
    for adv in _enumerate(engine, model, sizes):
        try:
            pairs.append(output_pair(engine, adv))
        except NotAvailable:
            continue
        advs.append(adv)
    if not advs:
        raise NotAvailable("no adversary has two target values of positive probability")
    return _Enumerated(advs, pairs)


def worst_advantage(model, mechanism, sizes="all", *, engine: PairEngine = None) -> WorstValue:
    """``max_a TV(P_a, Q_a)`` over every adversary with ``|K|`` in ``sizes``, exact."""
    return attack_risk(model, mechanism, sizes=sizes, engine=engine).worst_advantage


def worst_tpr(
    model, mechanism, fpr: float, sizes="all", *, start: Adversary | None = None, engine: PairEngine = None
) -> WorstValue:
    """``max_a TPR_a(fpr)`` over every adversary with ``|K|`` in ``sizes`` and both orders of its
    pair (module docstring: certified by the profile search, or both bounds); ``start``: one more
    adversary to try first."""
    alpha = float(check_fpr("fpr", fpr))
    risk = attack_risk(model, mechanism, sizes=sizes, engine=engine, fpr=(alpha,), start=start)
    return risk.worst_tpr(alpha)


@dataclass(frozen=True)
class AttackRisk:
    """What the leakage means to an attacker: the optimal attack of one adversary, or the worst
    over every adversary.

    Attributes
    ----------
    advantage : float
        ``max (TPR - FPR) = TV(P, Q)``: the adversary's, or for a worst-case result the largest
        over every adversary.
    adversary : Adversary
        The adversary given, or for a worst-case result **the adversary of largest advantage**
        (the one attaining ``advantage``; ``x``: the positives).
    adversary_bdpl : float
        That adversary's own exact BDPL (``advantage <= tanh(adversary_bdpl / 2)``); ``inf``
        without pure DP.
    curve : TradeOff
        That adversary's trade-off curve (``tpr_at``, ``beta``, ``bayes_success``).
    worst : bool
        ``True``: ``tpr_at`` maximises over every adversary (the search of the module docstring).
    bdpl_max : float or None
        For a worst-case result asked with ``bdpl``: the exact BDPL over every adversary (what
        eps-BDP states; its pure-eps curve bounds every attack), from the same search; else
        ``None``.
    kind : str
        ``"exact"``; ``"certified bracket"`` (the box brackets of the Laplace histogram: each
        :meth:`worst_tpr` a bracket); ``"Monte Carlo"`` (the histogram beyond them:
        :func:`bdpsim.account`'s window sweep; ``advantage`` and ``tpr_at`` are estimates,
        :attr:`worst_advantage` and :meth:`worst_tpr` give their intervals (some may be certified
        brackets, each :class:`WorstValue` says), ``curve`` is the adversary's curve estimated from
        its own draws; for one adversary ``tpr_at`` is the better of its two orders, as
        :meth:`bdpsim.accounting.Account.tpr_at`).
    confidence : float or None
        For ``"Monte Carlo"``: the probability each interval holds (0.95); else ``None``.
    """

    advantage: float
    adversary: Adversary
    adversary_bdpl: float
    curve: TradeOff
    worst: bool
    bdpl_max: float | None = None
    _state: Any = field(default=None, repr=False, compare=False)
    kind: str = EXACT
    confidence: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in (EXACT, BRACKET, MONTE_CARLO):
            raise ValueError(f"kind = {self.kind!r}: must be one of {[EXACT, BRACKET, MONTE_CARLO]}")
        if (self.kind == MONTE_CARLO) != (self.confidence is not None):
            raise ValueError(
                f"confidence = {self.confidence!r}: given for a Monte Carlo result only "
                f"(kind = {self.kind!r})"
            )
        if self.confidence is not None and not isinstance(self._state, _Accounted):
            raise ValueError("a Monte Carlo result needs its account (the intervals come from it)")

    @property
    def drawn(self) -> bool:
        """Whether the numbers are Monte Carlo estimates (:attr:`confidence`)."""
        return self.confidence is not None

    @property
    def bdpl_kind(self) -> str:
        """How :attr:`bdpl_max` is known: ``"exact"``, or ``"certified bracket"`` where it is the
        upper end of the accountant's bracket (the histogram past the exact search's reach)."""
        return self._state.bdpl_kind if isinstance(self._state, _Accounted) else EXACT

    @property
    def worst_advantage(self) -> WorstValue:
        """The advantage with the adversary attaining it (exact: ``upper == value``; an account's
        bracket: its lower end attained and its upper end; Monte Carlo: the estimate with its
        interval)."""
        if isinstance(self._state, _Accounted):
            return self._state.advantage()
        return WorstValue(self.advantage, self.adversary, self.advantage)

    def tpr_at(self, fpr):
        """The largest true-positive rate at false-positive rate ``fpr`` in (0, 1): this
        adversary's ``1 - beta(fpr)``, or for a worst-case result the maximum attained over every
        adversary (:meth:`worst_tpr`; float, an array for an array)."""
        a = check_fpr("fpr", fpr)
        if not self.worst and not self.drawn:
            return self.curve.tpr_at(fpr)
        found = self.worst_tprs([float(v) for v in a.ravel()])
        out = np.array([w.value for w in found]).reshape(a.shape)
        return float(out) if np.ndim(fpr) == 0 else out

    def worst_tpr(self, fpr: float) -> WorstValue:
        """The worst ``TPR@fpr`` with the adversary attaining it and the bound for every adversary."""
        return self.worst_tprs([float(check_fpr("fpr", fpr))])[0]

    def worst_tprs(self, fprs: Sequence[float]) -> list[WorstValue]:
        """:meth:`worst_tpr` of several FPRs, searched together (the searches already made for
        this result reused)."""
        alphas = [float(check_fpr("fpr", f)) for f in fprs]
        if self.drawn:  # the account's intervals, for one adversary or every adversary
            return [self._state.tpr(a) for a in alphas]
        if not self.worst:
            return [
                WorstValue(float(self.curve.tpr_at(a)), self.adversary, float(self.curve.tpr_at(a)))
                for a in alphas
            ]
        state = self._state
        if isinstance(state, _Enumerated):
            return [state.tpr(a) for a in alphas]
        new = [a for a in alphas if a not in state.best]
        if new:
            state.attack([adv for adv, _ in state.pairs.values()], new)
            state.refine(new)
        return [state.result(a) for a in alphas]

    def bound_curve(self, fpr) -> tuple[np.ndarray, np.ndarray]:
        """``(attained, upper)`` on the FPR grid ``fpr``: the largest TPR of the adversaries this
        result has examined (each exact, attained), and the bound ``min_t [t alpha + Delta(t)]``
        for every adversary from the profile searched — the curves behind :meth:`worst_tpr` (equal
        to its value and upper bound at the FPRs it was asked; an adversary's own curve when not a
        worst-case result)."""
        a = np.atleast_1d(check_fpr("fpr", fpr)).astype(float)
        if isinstance(self._state, _Accounted):  # an account's intervals or brackets: both ends
            found = self.worst_tprs([float(x) for x in a])
            return np.array([w.low for w in found]), np.array([w.upper for w in found])
        if not self.worst:
            v = np.asarray(self.curve.tpr_at(a), dtype=float)
            return v, v
        state = self._state
        if isinstance(state, _Enumerated):
            v = np.array([state.tpr(x).value for x in a])
            return v, v
        pairs = [p for _, p in state.pairs.values()]
        rows = [q for p in pairs for q in (p, p.swapped())]
        vals, _ = tpr_rows([r for r in rows for _ in a], np.tile(a, len(rows)))
        attained = vals.reshape(len(rows), a.size).max(axis=0)
        for k, x in enumerate(a):  # the refined values where they were asked
            if float(x) in state.best:
                attained[k] = max(attained[k], state.best[float(x)][0])
        upper = np.array([state.upper(float(x))[0] for x in a])
        return attained, np.maximum(upper, attained)

    def beta(self, alpha):
        """``1 - tpr_at(alpha)``: the trade-off function (for a worst-case result the lower envelope
        ``min_a beta_a(alpha)`` over every adversary)."""
        a = check_fpr("alpha", alpha)
        b = 1.0 - np.asarray(self.tpr_at(a), dtype=float)
        return float(b) if np.ndim(alpha) == 0 else b

    def bayes_success(self, prior: float = 0.5) -> float:
        """The adversary's Bayes-optimal probability of guessing ``X_i`` (prior ``P(X_i = x)``;
        at prior 1/2, ``(1 + advantage) / 2``; for a Monte Carlo result at another prior an
        estimate from the adversary's own draws)."""
        if isinstance(self._state, _Accounted) and float(prior) == 0.5:
            return (1.0 + self.advantage) / 2.0
        return self.curve.bayes_success(prior)


def attack_risk(
    model,
    mechanism,
    adversary: Adversary | None = None,
    *,
    sizes: str | Sequence[int] = "all",
    fpr: Sequence[float] = (),
    bdpl: bool = False,
    start: Adversary | None = None,
    engine: PairEngine = None,
    progress: Callable | None = None,
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
        Any mechanism whose exact engine gives an adversary's output laws: "query + noise" with
        any noise law, randomized response on a binary chain.
    adversary : Adversary, optional
        One adversary; omitted: the worst over all of them.
    sizes : "all" or tuple of int, optional
        Known-set sizes searched when ``adversary`` is omitted.
    fpr : sequence of float, optional
        FPRs whose worst TPR is searched in the same searches as the advantage
        (:meth:`AttackRisk.worst_tpr`; others are searched when asked).
    bdpl : bool, optional
        Also the exact BDPL over every adversary, from the first search (:attr:`AttackRisk.bdpl_max`).
    start : Adversary, optional
        One more adversary whose TPR is tried first.
    engine : ExactEngine, optional
        The pair's exact engine as the caller built it (a configuration point's); ``None``: a new
        one (:func:`bdpsim.models.engines.engine_for`).
    progress : callable, optional
        ``progress(done, total)`` after each search of the profile (at most :data:`MAX_PASSES`).

    Returns
    -------
    AttackRisk
        ``advantage``, ``tpr_at(fpr)``, ``beta(alpha)``, ``adversary`` (of largest advantage).

    Raises
    ------
    NotAvailable
        When the pair has no exact output laws (use :func:`bdpsim.attack.montecarlo.simulated_attack`
        with a sample budget), or no search over every adversary.
    """
    if isinstance(mechanism, ReleasesEveryRecord):  # a local release: its bracketed attack
        return _local_risk(model, mechanism, adversary, sizes, bdpl, fpr)
    if isinstance(mechanism, NoisyHistogram):  # the accountant's box brackets
        return _histogram_risk(model, mechanism, adversary, sizes, fpr, bdpl, progress)
    if adversary is not None:
        if not isinstance(adversary, Adversary):
            raise TypeError(f"adversary = {adversary!r}: must be a bdpsim.Adversary")
        eng = use_engine(engine, model, mechanism)
        pair = output_pair(eng, adversary)
        curve = pair_tradeoff(pair)
        return AttackRisk(curve.advantage, adversary, pair.bdpl(), curve, False)
    alphas = [float(check_fpr("fpr", f)) for f in fpr]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # a NaN is refused by name
        return _worst_risk(model, mechanism, sizes, alphas, bdpl, start, engine, progress)


def _local_risk(model, release, adversary, sizes, bdpl: bool, fpr: Sequence[float]):
    """The optimal attack on a local release of every record (:mod:`bdpsim.attack.local`): the
    advantage and the worst TPR at each ``fpr`` bracketed, with the adversaries attaining them (no
    BDPL beside: ``bdpl`` is refused naming :func:`bdpsim.exact_bdpl`)."""
    from .local import local_attack_risk

    if bdpl:
        raise NotAvailable(
            f"release {release.label!r}: its attack gives the advantage and the worst TPR (bracketed), "
            "not the BDPL beside them; ask bdpsim.attack_risk(model, release) and "
            "bdpsim.exact_bdpl(model, release)"
        )

    return local_attack_risk(model, release, adversary, sizes=sizes, fpr=fpr)


def _worst_value(v, cap: float = math.inf) -> WorstValue:
    """An account's :class:`~bdpsim.accounting.Value` as a worst-case value: a bracket's lower end
    attained by its adversary and its upper end for every adversary; a Monte Carlo estimate with its
    interval and confidence. Every end at most ``cap``, a value certain to hold (the pure-eps value
    of a BDPL's certified upper end)."""
    hi = min(v.upper, cap)
    if v.kind == MONTE_CARLO:
        return WorstValue(min(v.value, hi), v.adversary, hi, min(v.lower, hi), v.confidence)
    return WorstValue(min(v.lower, hi), v.adversary, hi)


@dataclass
class _Accounted(_Enumerated):
    """The worst-case values of an account (:func:`bdpsim.account`): its ``advantage`` and
    ``tpr_at`` (:func:`_worst_value`)."""

    account: Any = None
    #: a certified upper end of the BDPL of every adversary the account covers: its pure-eps values
    #: cap the intervals (``tanh(bdpl / 2)`` the advantage, ``min(e^eps a, 1 - e^-eps (1 - a))`` the
    #: TPR)
    bdpl: float = math.inf
    #: whether :attr:`bdpl` is the exact BDPL (``"exact"``) or a bracket's upper end
    bdpl_kind: str = EXACT

    def advantage(self) -> WorstValue:
        return _worst_value(self.account.advantage, math.tanh(self.bdpl / 2))

    def advantage_value(self) -> float:
        """The advantage as one number: the estimate (Monte Carlo) or the bracket's middle, at most
        the cap."""
        return min(float(self.account.advantage.value), self.advantage().upper)

    def tpr(self, alpha: float) -> WorstValue:
        cap = min(pure_dp_tpr(self.bdpl, alpha), 1.0 - math.exp(-self.bdpl) * (1.0 - alpha))
        return _worst_value(self.account.tpr_at(alpha), cap)


@dataclass
class _BoxAccounted(_Accounted):
    """:class:`_Accounted` of three Laplace releases (the histogram of three states): each TPR by
    :func:`bdpsim.attack.boxes.box_tpr` (the threshold searched on coarser brackets), kept per FPR."""

    found: dict = field(default_factory=dict)

    def tpr(self, alpha: float) -> WorstValue:
        from .boxes import box_tpr

        if alpha not in self.found:
            v, upper, adv = box_tpr(self.account, alpha)
            self.found[alpha] = WorstValue(v, adv, upper)
        return self.found[alpha]


def _histogram_risk(model, mechanism, adversary, sizes, fpr, bdpl: bool, progress=None) -> AttackRisk:
    """The optimal attack on the Laplace histogram: the account of its one release
    (:func:`bdpsim.account`: the noisy count of every state). Where the box brackets reach (two
    states: one adversary, or every adversary up to
    :data:`~bdpsim.mechanisms.histogram.ATTACK_MAX_N` records; three states: one adversary up to
    :data:`~bdpsim.mechanisms.histogram.THREE_STATE_MAX_N` records, every adversary up to
    :data:`~bdpsim.mechanisms.histogram.THREE_STATE_EVERY_MAX_N`), certified brackets: their
    hockey-stick divergences bracketed by boxes of the plane to 1e-6, of R^3 wider, the curve of the
    adversary (of largest advantage) from the middle of each bracket. Beyond them (more records, or
    four states or more), Monte Carlo (:func:`_drawn_histogram_risk`)."""
    from ..accounting import account

    if adversary is not None and not isinstance(adversary, Adversary):
        raise TypeError(f"adversary = {adversary!r}: must be a bdpsim.Adversary")
    s = mechanism.histogram_cells()
    acc = account(model, [mechanism], adversary=adversary, sizes=sizes)
    alphas = [float(check_fpr("fpr", f)) for f in fpr]
    if acc.plan.method == "monte carlo":
        return _drawn_histogram_risk(model, mechanism, acc, adversary, sizes, alphas, bdpl, progress)
    if acc.plan.method != "boxes":
        raise NotAvailable(
            f"the Laplace histogram of {s} states: its attack risk needs the joint law of {s} noisy "
            f"counts, which the accountant computes here by {acc.plan.method}; use bdpsim run with "
            "estimator = 'audit', or bdpsim.attack.simulated_attack with a sample budget"
        )
    adv = adversary if adversary is not None else acc.advantage.adversary
    pair = acc.pair(adv)
    width = "width <= 1e-6" if s == 2 else "of R^3, width growing with n (~3e-4 at n = 10)"
    curve = _bracket_tradeoff(pair, f"box brackets {width} (their middle)")
    own = pair.bdpl().value
    if adversary is not None:
        return AttackRisk(curve.advantage, adv, own, curve, False, kind=BRACKET)
    state = (_BoxAccounted if s == 3 else _Accounted)([adv], [], acc)
    for a in alphas:
        state.tpr(a)
    top = acc.bdpl.value if bdpl else None
    return AttackRisk(acc.advantage.value, adv, own, curve, True, top, state, kind=BRACKET)


#: draws of the Monte Carlo adversary's own trade-off curve (:func:`_drawn_histogram_risk`)
CURVE_DRAWS = 200_000
#: the Monte Carlo attack of a list reading several queries (the histogram of three or more states)
#: over every adversary costs about this many times the estimate of one ``delta(eps)`` of its
#: sweep (:func:`bdpsim.accounting.accountant.sweep_cost_of`): the advantage, then the profile at
#: many ``eps`` and the best windows' lower ends. Measured: three states, n = 9, advantage and three
#: TPRs with the BDPL, 106 s of CPU against 21 s estimated (one delta(eps): 29 s)
ATTACK_SWEEPS = 5.0
#: the most estimated seconds of that attack before it is refused up front (about 10 minutes:
#: three states up to about n = 15; the accountant itself takes up to 300 s per delta(eps))
MAX_ATTACK_SECONDS = 600.0
#: the stream of those draws, beside the account's seed
CURVE_TAG = 11


def _drawn_histogram_risk(
    model, mechanism, acc, adversary, sizes, alphas, bdpl: bool, progress
) -> AttackRisk:
    """The attack on a Laplace histogram beyond the box brackets, by Monte Carlo: the advantage
    ``delta(0)`` and each ``tpr_at`` are the account's (:meth:`bdpsim.accounting.Account.tpr_at`:
    over every adversary the window sweep's intervals, for one adversary its own draws), each an
    interval holding with probability 95 % (or a certified bracket where the adversary's query is
    fixed by what it knows); the adversary of the largest estimated advantage; its curve estimated
    from :data:`CURVE_DRAWS` losses of its own (:func:`drawn_tradeoff`; the middle of the bracket
    where certified); its own BDPL and ``bdpl_max`` exact (the histogram's exact engine,
    :func:`bdpsim.exact_bdpl`), or past that engine's reach the upper end of the accountant's
    certified bracket. Those BDPLs cap every interval (:class:`_Accounted`). ``progress(done,
    total)`` after the advantage and after each TPR."""
    from ..accounting.accountant import releases_named, sweep_cost_of
    from ..accounting.pairs import CONFIDENCE
    from ..core.shown import duration
    from ..estimators.supremum import exact_bdpl

    cost = sweep_cost_of(acc)
    if cost is not None and ATTACK_SWEEPS * cost.seconds > MAX_ATTACK_SECONDS:
        raise NotAvailable(
            f"{releases_named(acc)}: the Monte Carlo attack over every adversary of n = {model.n} "
            f"records ({mechanism.histogram_cells()} states) needs about "
            f"{duration(ATTACK_SWEEPS * cost.seconds)} ({ATTACK_SWEEPS:g} window sweeps of about "
            f"{duration(cost.seconds)} each; limit {duration(MAX_ATTACK_SECONDS)}); use fewer records, "
            "give adversary= (one adversary), or bdpsim account CONFIG (one delta(eps) at a time)"
        )
    total = 1 + len(alphas)
    if progress is not None:
        progress(0, total)
    kind = EXACT
    try:
        if adversary is None:
            top = exact_bdpl(model, mechanism, sizes=sizes if isinstance(sizes, str) else tuple(sizes)).bdpl
        else:
            top = exact_bdpl(model, mechanism, adversary).bdpl
    except NotAvailable:  # past the exact search's reach (or sizes it does not search): the bracket
        top, kind = float(acc.bdpl.upper), BRACKET
    state = _Accounted([], [], acc, top, kind)
    found = state.advantage()
    if progress is not None:
        progress(1, total)
    adv = adversary if adversary is not None else found.adversary
    pair = acc.pair(adv)
    if adversary is not None:
        own = top
    else:
        try:
            own = exact_bdpl(model, mechanism, adv).bdpl
        except NotAvailable:
            own = float(pair.bdpl().upper)
    if pair.method == "monte carlo":
        curve = drawn_tradeoff(pair.losses(CURVE_DRAWS, np.random.default_rng([acc.seed, CURVE_TAG])))
    else:  # the adversary's query is fixed by what it knows: certified laws
        curve = _bracket_tradeoff(pair)
    for k, a in enumerate(alphas):  # asked with the attack: computed now (the account keeps its sweeps)
        state.tpr(a)
        if progress is not None:
            progress(2 + k, total)
    return AttackRisk(
        state.advantage_value(),
        adv,
        own,
        curve,
        adversary is None,
        top if bdpl and adversary is None else None,
        state,
        kind=MONTE_CARLO,
        confidence=CONFIDENCE,
    )


def _bracket_tradeoff(pair, label: str = "") -> TradeOff:
    """The trade-off curve of an account's pair from the middle of each bracket of its forward
    hockey-stick divergence (:meth:`bdpsim.accounting.pairs.JointPair.hockey`)."""

    def hockey(t: float) -> float:
        lo, hi = pair.hockey(math.log(t), True)
        return 0.5 * (lo + hi)

    return TradeOff(hockey, label=label or f"{pair.method} (the middle of each bracket)")


def check_attack_cost(model) -> None:
    """Refuse, before any work, a search over every adversary of a model whose candidate
    adversaries would not fit in memory: up to :data:`CANDIDATES` of them, each with ``n`` known
    records (:data:`CANDIDATE_RECORD_BYTES` each), beyond :data:`MAX_CANDIDATE_BYTES` (``n`` up
    to about 1.8 million; the time grows alike, ~40 us per record measured)."""
    n = int(model.n)
    need = float(CANDIDATES) * CANDIDATE_RECORD_BYTES * n
    if need > MAX_CANDIDATE_BYTES:
        most = MAX_CANDIDATE_BYTES // (CANDIDATES * CANDIDATE_RECORD_BYTES)
        raise ConfigError(
            "model.n",
            n,
            f"the attack over every adversary holds up to {CANDIDATES} candidate adversaries of n "
            f"records each: ~{need / 2**30:.3g} GiB (limit {MAX_CANDIDATE_BYTES / 2**30:g} GiB: "
            f"n <= {most}), refused before the work; attack fewer records or one adversary",
        )


def _worst_risk(model, mechanism, sizes, alphas, bdpl, start, engine, progress) -> AttackRisk:
    """:func:`attack_risk` over every adversary (:func:`check_attack_cost` first)."""
    check_attack_cost(model)
    eng = use_engine(engine, model, mechanism, complete=True)
    k = _min_known(eng, model, sizes)
    if k is None:
        state: Any = _enumerated(eng, model, sizes)
        w = state.advantage()
        pair = output_pair(eng, w.adversary)
        bdpl_max = max(p.bdpl() for p in state.pairs) if bdpl else None
        return AttackRisk(w.value, w.adversary, pair.bdpl(), pair_tradeoff(pair), True, bdpl_max, state)
    cast(HasProfiles, eng).check_profiles(k)  # an engine with the profile search (_min_known)
    state = _Attack(eng, k, progress, _window(eng))
    advs = state.search(FIRST_EPSILONS, bdpl, alphas)
    d0, adv0 = state.envelope[0.0]
    state.attack(([start] if start is not None else []) + advs, alphas)
    state.refine(alphas)
    stored = state.pairs.get(_key(adv0))
    if stored is None:
        pair = output_pair(eng, adv0)
    else:  # the pair in the order that attains the advantage
        pair = stored[1] if stored[0] == adv0 else stored[1].swapped()
    own = pair.bdpl()
    _check_finite([d0, own, *(state.best[a][0] for a in alphas if a in state.best)], mechanism)
    return AttackRisk(d0, adv0, own, pair_tradeoff(pair), True, state.bdpl, state)


def _check_finite(values, mechanism) -> None:
    """A ``ConfigError`` naming the mechanism's ``epsilon`` (or its noise) when a value computed is
    not a number: the noise is too small for floating point (e.g. ``epsilon = 1e308``: the
    lattice of the query over the Laplace scale overflows)."""
    if not any(math.isnan(float(v)) for v in values):
        return
    from ..queries import NoisyQuery

    eps = mechanism.epsilon
    noise = mechanism.noise if isinstance(mechanism, NoisyQuery) else None
    field, value = (
        ("epsilon", eps)
        if eps is not None
        else ("noise", f"{noise.name} {noise.parameter_name} = {noise.parameter:g}")
        if noise is not None
        else ("mechanism", mechanism.kind)
    )
    raise ConfigError(
        field,
        value,
        "leaves too little noise for floating point (the attack's numbers are not numbers): give more noise",
    )


__all__ = [
    "AttackRisk",
    "WorstValue",
    "attack_risk",
    "worst_advantage",
    "worst_tpr",
    "directed_tpr",
    "output_pair",
    "swap",
    "MAX_PASSES",
    "check_attack_cost",
    "FIRST_EPSILONS",
]
