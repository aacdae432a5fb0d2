"""Noise calibrated to an attack target: the least noise such that the worst
adversary's advantage is ``<= a``, or its TPR at FPR ``f`` is ``<= b``; beside it the noise that
eps-BDP calibration needs for the ``eps`` whose pure-eps curve meets the same target.

**Monotonicity.** If noise ``N2 = N1 + W`` (``W`` independent) both output laws of every adversary
are post-processed by the same kernel, so every trade-off curve can only rise (data processing for
trade-off functions, Dong, Roth and Su 2022, Lemma 2.9): the worst advantage and TPR@FPR are
non-increasing in the Laplace scale, the Gaussian sigma and (decreasing) the geometric epsilon —
the decompositions of :mod:`bdpsim.kernels.noise.laws`, each law's ``monotone`` trait. Staircase
noise has none (its calibration by bisection is not certified; refused here). The least noise is
found by bracketing and bisection in ``ln(parameter)`` to relative ``1e-6``
(:func:`bdpsim.kernels.roots.monotone_root`), rounded to 6 significant digits toward more noise
(the printed amount meets the target), and its worst value is recomputed.

**The eps-BDP comparison.** The pure-eps curve has advantage ``tanh(eps/2)`` and
``TPR(f) = min(1, e^eps f, 1 - e^-eps (1 - f))``; so the target ``a`` corresponds to
``eps = 2 artanh(a)`` and ``(f, b)`` to ``eps = max(ln(b / f), ln((1 - f)/(1 - b)))``: an eps-BDP
mechanism with that eps meets the attack target whatever the data correlation, but needs more
noise than the attack target itself (the saving is ``comparison / attack``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from ..calibration.budget import (
    DEFAULT_BUDGET,
    EXACT_SEARCHES,
    NOISE_SCAN_FACTOR,
    Budget,
    TooSlow,
    budget_of,
    duration,
)
from ..core.errors import ConfigError, NotAvailable
from ..kernels.noise.traits import law_names
from ..kernels.roots import monotone_root
from .tradeoff import check_fpr
from .worst import attack_risk, check_attack_cost, worst_tpr

REL_TOL = 1e-6
#: the least eps (of the pure curve meeting the target) the search resolves: below it a worst
#: attack value is below floating-point resolution (an advantage computes as ~7e-16 at any larger
#: amount of noise), so the amount comes from group privacy instead (:func:`_group_bound`)
RESOLUTION_EPSILON = 2e-12
#: significant digits of the calibrated parameter (rounded toward more noise: ``safe_round``)
SIGNIFICANT = 6


def target_epsilon(
    target_advantage: float | None = None, target_tpr: float | None = None, at_fpr: float | None = None
) -> float:
    """The ``eps`` whose pure-eps curve has advantage ``target_advantage`` or TPR ``target_tpr`` at
    FPR ``at_fpr`` (module docstring)."""
    if target_advantage is not None:
        a = float(check_fpr("target_advantage", target_advantage))
        return 2.0 * math.atanh(a)
    b, f = float(check_fpr("target_tpr", target_tpr)), float(check_fpr("at_fpr", at_fpr))
    if b <= f:
        raise ConfigError("target_tpr", b, f"must exceed at_fpr = {f:g} (TPR = FPR is the trivial attack)")
    return max(math.log(b / f), math.log((1.0 - f) / (1.0 - b)))


#: the kinds of an attack calibration's worst value (:attr:`AttackCalibration.kind`)
EXACT = "exact"
UPPER_BOUND = "certified upper bound over every adversary"
GROUP_BOUND = "certified upper bound (group privacy)"


@dataclass(frozen=True)
class AttackCalibration:
    """The least noise meeting an attack target, and the eps-BDP calibration it is compared with.

    ``parameter`` is the calibrated noise law's parameter (``noise.parameter_name``), ``value`` the
    worst advantage (or TPR@FPR bound) it achieves; ``epsilon`` the pure-eps curve's eps for the
    same target and ``bdp_parameter`` the least parameter of the same law that is eps-BDP
    (``None`` when no amount is, e.g. Gaussian noise); ``saving`` = ``bdp_parameter / parameter``
    for a law whose noise grows with the parameter, the inverse otherwise (> 1: the attack target
    needs less noise). ``note``: how the amount was found when not by the search (a target below
    floating-point resolution: :func:`_group_bound`). ``kind``: what ``value`` is — :data:`EXACT`
    (the worst advantage; a worst TPR whose attained value meets the bound for every adversary),
    :data:`UPPER_BOUND` (a worst TPR's bound for every adversary, above the largest attained) or
    :data:`GROUP_BOUND` (the pure-eps curve's value of the group-privacy bound).
    """

    noise: str
    parameter_name: str
    parameter: float
    value: float
    target: float
    what: str
    epsilon: float
    bdp_parameter: float | None
    saving: float | None
    note: str | None = None
    kind: str = "exact"

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _check_target(target_advantage, target_tpr, at_fpr) -> tuple[str, float]:
    if (target_advantage is None) == (target_tpr is None):
        raise ConfigError(
            "target_advantage", target_advantage, "give exactly one of target_advantage and target_tpr"
        )
    if target_advantage is not None:
        return "advantage", float(check_fpr("target_advantage", target_advantage))
    if at_fpr is None:
        raise ConfigError("at_fpr", None, "is required with target_tpr")
    check_fpr("at_fpr", at_fpr)
    return f"tpr@{float(at_fpr):g}", float(check_fpr("target_tpr", target_tpr))


def _least_parameter(
    value: Callable[[float], float], p0: float, grows: bool, target: float, progress: Callable | None = None
) -> float:
    """The noise parameter at which ``value`` (the worst attack value, non-increasing in the amount
    of noise, which grows with the parameter when ``grows``) falls to ``target``: bracketed from
    ``p0`` by factors of 2 in ln(parameter), then bisected to ``REL_TOL`` in ln(parameter)
    (:func:`bdpsim.kernels.roots.monotone_root`); the end that meets it. ``progress(step, None)``
    after each evaluation."""
    steps = iter(range(1, 10**6))

    def excess(par: float) -> float:
        out = value(par) - target
        if progress is not None:
            progress(next(steps), None)
        return out

    less = p0 / 2.0 if grows else p0 * 2.0
    root = monotone_root(excess, p0, less, rtol=REL_TOL)
    if root.unsafe is None:
        raise ConfigError("target", target, "is met by any amount of noise (nothing to calibrate)")
    if root.safe is None:
        raise ConfigError("target", target, "cannot be met by this noise law")
    return root.safe


def safe_round(value: float, grows: bool, digits: int = SIGNIFICANT) -> float:
    """``value`` to ``digits`` significant digits rounded toward more noise (up when the noise
    grows with the parameter, down otherwise): the printed amount meets the target that
    ``value`` meets (noise is monotone), where rounding to nearest may miss it."""
    if value == 0.0 or not math.isfinite(value):
        return value
    e = math.floor(math.log10(abs(value))) - (digits - 1)
    scaled = value / 10.0**e
    r = math.ceil(scaled - 1e-9) if grows else math.floor(scaled + 1e-9)  # an exact decimal stays
    out = float(f"{r}e{e}")
    if grows and out < value:
        out = float(f"{r + 1}e{e}")
    if not grows and out > value:
        out = float(f"{r - 1}e{e}")
    return out


def calibrate_attack(
    model,
    mechanism,
    *,
    target_advantage: float | None = None,
    target_tpr: float | None = None,
    at_fpr: float | None = None,
    sizes="all",
    compare: bool = True,
    engine=None,
    progress: Callable | None = None,
    budget=DEFAULT_BUDGET,
) -> AttackCalibration:
    """The least noise of ``mechanism``'s noise law (its other settings kept) such that the worst
    adversary's advantage is ``<= target_advantage``, or its TPR at ``at_fpr`` (the bound for every
    adversary) is ``<= target_tpr``; with ``compare`` also the least eps-BDP noise of the same law
    for :func:`target_epsilon` (:func:`bdpsim.calibration.calibrate` on chains,
    :func:`bdpsim.calibration.graphs.calibrate_graph` on networks and random fields).

    Every amount is searched by the pair's one exact engine re-noised
    (:class:`~bdpsim.models.engines.HasNoiseLaw`: the query's laws computed once), through
    :func:`~bdpsim.attack.worst.attack_risk`; the amount returned is rounded to
    :data:`SIGNIFICANT` digits toward more noise (``safe_round``: the printed amount meets
    the target), and its worst value recomputed. ``progress(step, None)`` after each amount tried.

    Parameters
    ----------
    model : data model
        Any model whose exact engine searches every adversary.
    mechanism : NoisyQuery
        ``query + noise``: its noise law's amount is calibrated (the amount given starts the search).
    target_advantage : float, optional
        The largest worst advantage ``max (TPR - FPR)`` allowed, in (0, 1).
    target_tpr, at_fpr : float, optional
        Instead, the largest worst TPR at the false-positive rate ``at_fpr``.
    sizes : "all", "thesis" or sequence of int
        The known-set sizes of the adversaries.
    compare : bool
        Also the least eps-BDP amount of the same law (``bdp_parameter``, ``saving``).
    engine : exact engine, optional
        The pair's engine (built here when not given).
    progress : callable, optional
        ``progress(step, None)`` after each amount tried.
    budget : float or Budget or None, optional
        Estimated seconds the search may take (default
        :data:`~bdpsim.calibration.budget.DEFAULT_BUDGET`, an hour; ``None``: no limit): about
        :data:`~bdpsim.calibration.budget.EXACT_SEARCHES` amounts are tried, each one search over
        every adversary of the engine's estimate (:class:`~bdpsim.models.engines.HasSearchCost`;
        another law than Laplace :data:`~bdpsim.calibration.budget.NOISE_SCAN_FACTOR` times it);
        a search that does not fit is refused before it starts
        (:class:`~bdpsim.calibration.budget.TooSlow`, naming the model's field, with the estimate).
        The eps-BDP comparison is charged to what is left.

    Returns
    -------
    AttackCalibration
        The least amount (``parameter``), its worst value, and the eps-BDP comparison.

    Raises
    ------
    ConfigError
        Targets outside (0, 1), or a noise law without monotonicity.
    TooSlow
        The search's estimate exceeds ``budget``.
    NotAvailable
        A pair whose engine cannot be re-noised.
    """
    from ..models.engines import HasNoiseLaw, engine_for
    from ..queries import NoisyQuery

    what, target = _check_target(target_advantage, target_tpr, at_fpr)
    eps = target_epsilon(target_advantage, target_tpr, at_fpr)
    if not isinstance(mechanism, NoisyQuery):
        raise ConfigError(
            "mechanism", type(mechanism).__name__, "must be 'query + noise' (a noise law to calibrate)"
        )
    noise = mechanism.noise
    monotone = law_names(monotone=True)  # a proof that more noise cannot raise an attack value
    if noise.name not in monotone:
        raise ConfigError(
            "noise",
            noise.name,
            f"must be one of {list(monotone)} (worst attack values monotone in the amount of noise)",
        )
    grows = noise.noise_grows_with_parameter
    eng = engine if engine is not None else engine_for(model, mechanism)
    if not isinstance(eng, HasNoiseLaw):
        raise NotAvailable(
            f"exact engine {type(eng).__name__}: cannot be re-noised (no other amount of noise to search)"
        )

    if eps < RESOLUTION_EPSILON:
        return _group_bound(model, mechanism, what, target, eps, at_fpr)
    check_attack_cost(model)  # memory first: instant, where the search's estimate is not (10^7 records)
    ledger = budget_of(budget)
    _charge_search(ledger, eng, model, noise.name, sizes)

    def measured(par: float) -> tuple[float, str]:
        found = eng.with_noise(noise.with_parameter(par))
        if what == "advantage":
            return attack_risk(model, mechanism, sizes=sizes, engine=found).advantage, EXACT
        w = worst_tpr(model, mechanism, float(at_fpr), sizes, engine=found)  # type: ignore[arg-type]
        return w.upper, EXACT if w.certified else UPPER_BOUND

    def value(par: float) -> float:
        return measured(par)[0]

    par = safe_round(_least_parameter(value, float(noise.parameter), grows, target, progress), grows)
    achieved, kind = measured(par)
    bdp = None
    if compare and type(noise).pure_dp:  # eps-BDP exists for some amount of this noise
        bdp = _bdp_parameter(model, mechanism, eps, sizes, ledger)
    saving = None if bdp is None else (bdp / par if grows else par / bdp)
    return AttackCalibration(
        noise.name, noise.parameter_name, par, achieved, target, what, eps, bdp, saving, kind=kind
    )


def _group_bound(model, mechanism, what: str, target: float, eps: float, at_fpr) -> AttackCalibration:
    """A target whose pure curve's ``eps`` is below :data:`RESOLUTION_EPSILON` (e.g. an advantage
    of ``1e-300``), met by group privacy: the noise of DP epsilon ``eps / n`` for the query's
    sensitivity ``Delta`` (amount ``n Delta / eps``) bounds every output-law ratio by
    ``e^{n Delta / amount} = e^eps`` (the query moves by at most ``n Delta``), so its BDPL over every
    adversary is ``<= eps`` and every attack value is within the pure ``eps`` curve: the target is
    met (certified, not the least noise). Pure-DP laws only; ``value`` is that bound."""
    from .tradeoff import pure_dp_tradeoff

    noise = mechanism.noise
    if not type(noise).pure_dp:
        raise ConfigError(
            "target",
            target,
            f"is below floating-point resolution (the pure curve's eps {eps:.3g} < "
            f"{RESOLUTION_EPSILON:g}) and {noise.name} noise has no pure-DP bound to meet it by",
        )
    sens = float(mechanism.query_function.sensitivity)
    grows = noise.noise_grows_with_parameter
    amount = model.n * sens / eps
    # the law's parameter for this amount (:func:`~bdpsim.kernels.noise.laws.noise_with_amount`):
    # the amount itself where the noise grows with it, else the DP epsilon Delta / amount
    par = safe_round(amount if grows else sens / amount, grows)
    bound = model.n * sens / (par if grows else sens / par)  # the BDPL bound at the rounded amount
    value = math.tanh(bound / 2) if what == "advantage" else float(pure_dp_tradeoff(bound).tpr_at(at_fpr))
    note = (
        f"the target is below floating-point resolution (eps {eps:.3g} < {RESOLUTION_EPSILON:g}): "
        f"met by group privacy (DP epsilon eps/n over n = {model.n} records; BDPL <= eps), not "
        "the least noise"
    )
    return AttackCalibration(
        noise.name, noise.parameter_name, par, value, target, what, eps, par, 1.0, note, GROUP_BOUND
    )


def _charge_search(ledger: Budget | None, engine, model, noise: str, sizes) -> None:
    """Charge the attack calibration's searches (about ``EXACT_SEARCHES`` amounts, one search over
    every adversary each) to ``ledger``, or raise :class:`TooSlow` before any work when their
    estimate does not fit (field ``model.transition`` on a chain, else ``model``)."""
    from ..adversary import known_sizes
    from ..calibration.engine import search_cost
    from ..models.protocols import MarkovChain

    if ledger is None:
        return
    one = search_cost(engine, known_sizes(sizes, model.n)[0])
    factor = NOISE_SCAN_FACTOR.get(noise, 1.0)
    est = EXACT_SEARCHES * one.seconds * factor
    if ledger.fits(est):
        ledger.charge(est)
        return
    chain = isinstance(model, MarkovChain)
    field, value = (
        ("model.transition", f"{model.states} states") if chain else ("model", f"{model.n} records")
    )
    law = f", {noise} noise ~{factor:g}x a Laplace search" if factor != 1.0 else ""
    raise TooSlow(
        field,
        value,
        f"the attack calibration needs ~{duration(est)} ({one.what}{law}, ~{duration(one.seconds * factor)} "
        f"per amount of noise, ~{EXACT_SEARCHES} amounts); at most ~{duration(ledger.left)} allowed "
        "(a chain with fewer states or faster mixing, fewer records, or an eps target"
        + (f"; {ledger.hint})" if ledger.hint else ")"),
    )


def _bdp_parameter(model, mechanism, eps: float, sizes, ledger: Budget | None = None) -> float | None:
    """The least parameter of the mechanism's noise law that is eps-BDP over every adversary
    (:func:`bdpsim.calibration.calibrate` on Markov chains, :func:`bdpsim.calibration.graphs.calibrate_graph`
    on networks and random fields; an upward-closed family), else ``None``."""
    from ..adversary import is_upward_closed, known_sizes
    from ..calibration import calibrate
    from ..models.markov.model import MarkovChainModel
    from ..models.protocols import FactorGraph, HasStates, MarkovChain
    from ..queries import AdditiveQuery, CountQuery, StateSumQuery

    ks = known_sizes(sizes, model.n)
    q = mechanism.query_function
    if not is_upward_closed(ks, model.n):
        return None
    if isinstance(model, FactorGraph) and isinstance(q, AdditiveQuery):  # networks and random fields
        from ..calibration.graphs import calibrate_graph

        values = q.per_state(cast(HasStates, model).states)
        row = calibrate_graph(
            model, eps, values, method="exact", noise=mechanism.noise.name, min_known=ks[0], budget=ledger
        )[0]
        return row.scale if row.parameter is None else row.parameter  # the Laplace scale is its parameter
    if not isinstance(model, MarkovChain):
        return None
    kw = (
        {"counted_states": list(q.counted_states)}
        if isinstance(q, CountQuery)
        else {"state_values": list(q.state_values)}
        if isinstance(q, StateSumQuery)
        else None
    )
    if kw is None:
        return None
    c = calibrate(
        cast(MarkovChainModel, model),
        eps,
        method="exact",
        noise=mechanism.noise.name,
        min_known=ks[0],
        budget=ledger,
        **kw,
    )
    return c.scale if c.parameter is None else c.parameter


__all__ = ["AttackCalibration", "calibrate_attack", "target_epsilon"]
