"""Laplace scales that make an additive query on a data model eps-BDP, and their exact BDPL.

Every method answers: which scale ``b`` should ``Y = sum_t f(X_t) + Lap(b)`` use so that its
BDPL is at most ``eps``? — and reports the exact BDPL over all adversaries of the mechanism it
prescribes, by the model's exact engine re-noised (:mod:`bdpsim.calibration.engine`). The bounds and
the competing mechanisms are a Markov chain's; ``exact`` and ``optimal`` take every model whose
engine searches every adversary (a chain, a pedigree, a network, a random field, a kind of a
plug-in).

* ``exact``: the smallest ``b`` with exact ``BDPL(b) <= eps``. ``Lap(b2) = Lap(b1) + W`` for
  ``b2 > b1`` (``W = 0`` w.p. ``(b1/b2)^2``, else ``Lap(b2)``: the characteristic functions give
  ``(1 + b1^2 t^2)/(1 + b2^2 t^2)``), so adding noise is post-processing and ``BDPL(b)`` is
  non-increasing: a bracketing root search (Illinois regula falsi on ``ln BDPL`` vs ``ln b``)
  to relative ``1e-9``, between ``Delta/eps`` (the DP adversary ``K = [n] \\ {i}`` alone leaks
  ``Delta/b``) and ``n Delta/eps`` (general bound, paper Thm 4.3).
* ``general``: ``b = Delta n / eps`` (paper Thm 4.3 with ``m = n`` correlated records).
* ``markov``: ``b = Delta / (eps - 4 ln gamma)``, needs (H1) ``P > 0``, (H2) stationary start and
  ``eps > 4 ln gamma`` (paper Thm 6.2).
* ``zhao``: ``b = Delta / (eps - 6 ln omega)`` (thesis eq. 20), same conditions.
* ``markov-quilt-approx`` / ``markov-quilt-exact``: ``b = Delta sigma`` with ``sigma`` the Markov
  Quilt mechanism's scale for eps-Pufferfish privacy of a 1-Lipschitz query, as the authors'
  MATLAB code computes it (:mod:`bdpsim.calibration.quilt.chain`; MQMExact uses the model's start law for 2
  states
  and the authors' worst-case marginals for more).
* ``wasserstein``: ``b = W / eps``, ``W`` the sup over records and value pairs of the
  infinity-Wasserstein distance between the query's conditional laws (:mod:`bdpsim.calibration.wasserstein`).
* ``group``: group differential privacy with one group of ``m = n`` records (every record of an
  irreducible chain is correlated with every other), ``b = Delta n / eps`` — the same scale as
  ``general`` (the general bound *is* group privacy; the authors' ``run_realData.m`` uses the
  chain length too).

* ``dp``: ``b = Delta / eps``, the DP baseline (paper §7): eps-DP, *not* eps-BDP under
  correlation; on a chain its exact BDPL says by how much (``bdpsim calibrate`` flags it).
* ``gaussian``: ``b = Delta h / eps`` with ``h = m^2 / (4 (1/rho - m + 2)) + 1`` (paper Cor. 5.9,
  §6.1, :func:`bdpsim.bounds.calibrate_gaussian`) on groups of ``m`` equicorrelated Gaussian
  records (:class:`~bdpsim.calibration.groups.GaussianGroups`); not a chain's method.

``Delta = max f - min f`` is the query's sensitivity. :data:`CALIBRATION_METHODS` is the one
calibration registry (a :class:`~bdpsim.core.registry.Registry` checked against
:class:`CalibrationMethod`): each entry says which problems it takes (:meth:`Method.supports`:
``None`` or the reason, e.g. a Gaussian bound on a chain) and returns a :class:`Calibration`
(a scale, or ``scale = None`` with the reason). The utility experiment
(:mod:`bdpsim.utility.experiment`), ``bdpsim calibrate``, the competition study and the
calibrated mechanism kinds all read it; register a new method with
:func:`register_calibration_method`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np

from .. import bounds as B
from ..core.errors import ConfigError, NotAvailable, check
from ..core.registry import Registry
from ..kernels.chains.lattice import lattice, query_values
from ..kernels.noise.checks import MAX_PROFILE_EPSILON
from ..kernels.noise.laws import NOISE_LAWS, noise_with_amount
from ..kernels.noise.optimal_lp import mean_abs
from ..kernels.noise.protocols import LaplaceKernel
from ..kernels.noise.scores import BdplScore, ProfileScore
from ..kernels.roots import monotone_root
from ..models.base import DataModel
from ..models.engines import SearchCost
from ..models.protocols import MarkovChain
from .budget import (
    DEFAULT_BUDGET,
    EXACT_SEARCHES,
    NOISE_SCAN_FACTOR,
    Budget,
    TooSlow,
    budget_of,
    check_mqm_exact,
    duration,
)
from .engine import additive_query, check_search, exact_engine, search_cost, searched
from .groups import CorrelatedGroups, EquicorrelatedGaussian
from .quilt.chain import mqm_approx, mqm_exact
from .target import check_positive, check_target_epsilon
from .wasserstein import markov_laws, sup_over_secret_pairs

RTOL = 1e-9
MIN_DELTA = 1e-10  # smallest target of the privacy profile: delta(eps) is exact to ~1e-14 absolute
EXACT_METHOD = "exact"  # the method that needs no bound: the exact engine's smallest eps-BDP scale


@dataclass(frozen=True)
class Calibration:
    """A method's Laplace scale for eps-BDP (``None`` if it cannot give one) and the exact BDPL
    of the mechanism it prescribes; ``reason`` says how the scale was obtained or why not."""

    method: str
    epsilon: float
    n: int
    scale: float | None
    bdpl: float | None
    reason: str
    noise: str = "laplace"
    parameter: float | None = None
    delta: float | None = None
    mean_abs: float | None = None  # E|Z| of the prescribed noise: the utility a method pays
    extra: dict | None = None  # further JSON fields of a method (optimal: the noise table, its variance, ...)
    tau: float | None = None  # a bound's DP parameter (scale = Delta / tau up to rounding; None: no bound)

    def as_dict(self) -> dict:
        d = {
            "method": self.method,
            "epsilon": self.epsilon,
            "n": self.n,
            "scale": self.scale,
            "bdpl": self.bdpl,
            "reason": self.reason,
        }
        if self.parameter is not None:  # another noise law than Laplace: its own parameter
            d.update(noise=self.noise, parameter=self.parameter, delta=self.delta)
        if self.mean_abs is not None:
            d["mean_abs"] = self.mean_abs
        d.update(self.extra or {})
        return d


@dataclass(frozen=True)
class CalibrationProblem:
    """A model, the per-state query values ``f``, the target ``epsilon`` and the search options.

    The model is a Markov chain (every method), any model with an exact engine over every
    adversary (methods ``exact`` and ``optimal``, through the engine: :mod:`.engine`) or groups of
    correlated records (the bounds, :mod:`.groups`). ``query`` is the query itself when the
    per-state values do not say it all (a count whose states differ between records: ``values``
    then holds its sensitivity and lattice); ``None``: the query of ``values``
    (:func:`~.engine.additive_query`).

    ``noise`` (default Laplace) is the noise law to calibrate (:mod:`bdpsim.kernels.noise.laws`): its
    amount ``s`` is the Laplace scale ``b``, the Gaussian ``sigma``, or ``Delta / s`` is the DP
    epsilon of geometric and staircase noise (so the DP adversary leaks ``Delta / s`` for every
    pure law, and more ``s`` means more noise). For Gaussian noise, whose pure BDPL is infinite,
    the target is the privacy profile: ``delta(epsilon) <= delta``.

    ``evaluate``: whether :meth:`result` computes the exact BDPL of the prescribed scale (a
    mechanism that only needs its scale skips it). ``cache``: ``scale -> (BDPL, tolerance)``
    already computed; ``BDPL(b)`` does not depend on ``epsilon``, so problems for several
    ``epsilon`` of one model and query may share one cache (the exact search then starts from the
    tightest bracket in it). ``budget``: estimated seconds the methods may take
    (:class:`~bdpsim.calibration.budget.Budget`, or a number for a new one; ``None``: no limit): a
    costlier step raises :class:`~bdpsim.calibration.budget.TooSlow`, and an exact BDPL costlier
    than what is left is not computed (``bdpl = None``, said in the reason).
    """

    model: Any
    values: np.ndarray
    epsilon: float
    search: dict = field(default_factory=dict)
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    evaluate: bool = True
    noise: str = "laplace"
    delta: float | None = None
    staircase_gamma: float | None = None
    budget: float | Budget | None = None
    objective: str = "mean_abs"  # what method "optimal" minimises: E|Z| or E Z^2 ("variance")
    progress: Callable | None = field(default=None, repr=False, compare=False)
    query: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        eps = self.epsilon
        check_positive(eps, "epsilon")
        object.__setattr__(self, "budget", budget_of(self.budget))
        check(
            self.sensitivity > 0,
            "state_values",
            np.asarray(self.values).tolist(),
            "the query is constant (sensitivity 0): it needs no noise",
        )
        check(self.noise in NOISE_LAWS, "noise", self.noise, f"must be one of {list(NOISE_LAWS)}")
        check(
            NOISE_LAWS[self.noise].calibratable,
            "noise",
            self.noise,
            f"a {self.noise} noise is one fixed law with "
            "no amount to calibrate (method 'optimal' computes the best table)",
        )
        check(
            self.profile or self.delta is None,
            "delta",
            self.delta,
            f"is the target of a noise law without pure DP (gaussian), not of {self.noise} noise",
        )
        if self.profile:
            check(
                eps <= MAX_PROFILE_EPSILON,
                "epsilon",
                eps,
                f"must be at most {MAX_PROFILE_EPSILON:g} for the "
                f"privacy profile of {self.noise} noise (delta(eps) is 0 to double precision long before)",
            )
            d = self.delta
            check(
                isinstance(d, (int, float)) and not isinstance(d, bool) and MIN_DELTA <= d < 1,
                "delta",
                d,
                f"{self.noise} noise has no pure DP: give a target delta in [{MIN_DELTA:g}, 1) for "
                "delta(epsilon) <= delta (the privacy profile is exact to ~1e-14)",
            )

    @property
    def profile(self) -> bool:
        """Whether the target is the privacy profile (noise without pure DP: Gaussian). Asked of
        the law calibrated for this query's sensitivity (geometric noise on a lattice of step 2
        is pure DP for a sensitivity of 2, not of 1)."""
        return not math.isfinite(self.noise_at(1.0).dp_epsilon(self.sensitivity))

    def noise_at(self, amount: float):
        """The noise law with ``amount`` of noise (see the class docstring)."""
        return noise_with_amount(
            self.noise, amount, self.sensitivity, step=self.step, staircase_gamma=self.staircase_gamma
        )

    @property
    def laplace(self) -> bool:
        """Whether the noise law is a Laplace kernel (:class:`~bdpsim.kernels.noise.protocols.LaplaceKernel`):
        the amount is its scale, and every method applies (the bounds calibrate a Laplace scale)."""
        return isinstance(self.noise_at(1.0), LaplaceKernel)

    @property
    def step(self) -> float:
        """The lattice step of the query values (geometric noise lives on it)."""
        return float(lattice(np.asarray(self.values, dtype=float))[1])

    @property
    def target(self) -> float:
        return float(cast(float, self.delta)) if self.profile else float(self.epsilon)  # profile: delta set

    @property
    def sensitivity(self) -> float:
        """``Delta = max f - min f``."""
        return float(np.max(self.values) - np.min(self.values))

    @property
    def chain(self) -> bool:
        """Whether the model is a Markov chain (the bounds' and competing mechanisms' model)."""
        return isinstance(self.model, MarkovChain)

    @property
    def exact(self) -> bool:
        """Whether the model may have an exact engine (a data model; groups of correlated records
        have none): its exact BDPL is computed."""
        return isinstance(self.model, DataModel)

    @property
    def group_size(self) -> int:
        """``m``: the most records correlated with one record (a chain's ``n``: an irreducible
        chain correlates every record with every other)."""
        return int(self.model.n if self.chain else cast(CorrelatedGroups, self.model).m)  # else: groups

    @property
    def ledger(self) -> Budget | None:
        """:attr:`budget` as the :class:`~bdpsim.calibration.budget.Budget` it became (a number
        given is a new one)."""
        return cast("Budget | None", self.budget)

    @property
    def min_known(self) -> int:
        return int(self.search.get("min_known", 0))

    @cached_property
    def engine(self):
        """The model's exact engine of the query plus noise (:func:`~.engine.exact_engine`), built
        on first use and re-noised for every amount; its refusal of a search too large to finish
        is raised here, before any work (:func:`~.engine.check_search`)."""
        query = self.query if self.query is not None else additive_query(self.values)
        engine = exact_engine(self.model, query, self.noise_at(1.0), self.search)
        check_search(engine, self.model, self.min_known)
        return engine

    def search_cost(self) -> SearchCost:
        """The up-front estimate of one search over every adversary (the engine's; with another
        noise law than Laplace, :data:`~bdpsim.calibration.budget.NOISE_SCAN_FACTOR` times it)."""
        cost = search_cost(self.engine, self.min_known)
        factor = NOISE_SCAN_FACTOR.get(self.noise, 1.0)
        if factor == 1.0:
            return cost
        return SearchCost(
            cost.seconds * factor, f"{cost.what}, {self.noise} noise ~{factor:g}x a Laplace scan"
        )

    def bdpl(self, scale: float) -> tuple[float, float]:
        """Exact BDPL over all adversaries at ``scale``: ``(value, truncation tolerance)`` (for a
        law without pure DP: the privacy profile ``delta(epsilon)``), by the engine re-noised."""
        scale = float(scale)
        if scale not in self.cache:
            score = ProfileScore(self.epsilon) if self.profile else BdplScore()
            self.cache[scale] = searched(
                self.engine, self.noise_at(scale), score, self.min_known, self.search.get("targets")
            )
            if self.progress is not None:
                self.progress(len(self.cache), None)
        return self.cache[scale]

    def too_slow(self, what: str, searches: float, fix: str) -> None:
        """Charge ``searches`` searches over every adversary to the budget, or raise
        :class:`~bdpsim.calibration.budget.TooSlow` with the estimate when they do not fit (field
        ``model.transition`` on a chain, else ``model``; ``fix``: what to change)."""
        if self.ledger is None:
            return
        one = self.search_cost()
        est = searches * one.seconds
        if not self.ledger.fits(est):
            field, value = (
                ("model.transition", f"{self.model.states} states")
                if self.chain
                else ("model", f"{self.model.n} records")
            )
            raise TooSlow(
                field,
                value,
                f"{what} needs ~{duration(est)} ({one.what}, ~{duration(one.seconds)} per search, "
                f"~{searches:g} searches); at most ~{duration(self.ledger.left)} allowed ({fix}"
                + (f"; {self.ledger.hint})" if self.ledger.hint else ")"),
            )
        self.ledger.charge(est)

    def result(self, method: str, scale: float, reason: str, tau: float | None = None) -> Calibration:
        """The calibration of ``scale``, with its exact BDPL when :attr:`evaluate` (on a model with an
        exact engine) and ``tau`` the bound's DP parameter if the scale came from one."""
        value = None
        evaluate = self.evaluate and self.exact
        if evaluate and self.ledger is not None and float(scale) not in self.cache:
            one = self.search_cost()
            if not self.ledger.fits(one.seconds):
                reason = f"{reason}; exact BDPL not computed: it needs ~{duration(one.seconds)} ({one.what})"
                return self._with(method, scale, None, reason, tau)
            self.ledger.charge(one.seconds)
        if evaluate:
            value = self.bdpl(scale)[0]
        elif self.exact and float(scale) in self.cache:  # computed anyway (the exact search's last point)
            value = self.cache[float(scale)][0]
        return self._with(method, scale, value, reason, tau)

    def _with(
        self, method: str, scale: float, value: float | None, reason: str, tau: float | None = None
    ) -> Calibration:
        if self.laplace:
            return Calibration(
                method,
                float(self.epsilon),
                self.model.n,
                float(scale),
                value,
                reason,
                mean_abs=float(scale),
                tau=tau,
            )
        law = self.noise_at(scale)
        return Calibration(
            method,
            float(self.epsilon),
            self.model.n,
            float(scale),
            None if self.profile else value,
            reason,
            self.noise,
            float(law.parameter),
            value if self.profile else None,
            mean_abs=mean_abs(law),
        )

    def not_applicable(self, method: str, why: str, noise: str = "laplace") -> Calibration:
        return Calibration(
            method, float(self.epsilon), self.model.n, None, None, f"not applicable: {why}", noise
        )


def exact_scale(problem: CalibrationProblem, rtol: float = RTOL) -> float | None:
    """Smallest ``b`` with ``BDPL(b) + tolerance <= eps``, to relative ``rtol`` (returned from the
    safe side: the returned scale is eps-BDP); ``None`` if even ``2^-60 Delta/eps`` is eps-BDP.
    The search is :func:`bdpsim.kernels.roots.monotone_root` (Illinois steps on ``ln BDPL`` vs
    ``ln b``) from the bracket ``[Delta/eps, n Delta/eps]`` (the DP adversary ``K = [n] \\ {i}``
    leaks ``Delta/b``; every eps'-DP mechanism is ``n eps'``-BDP, paper Thm 4.3), narrowed by the
    scales already cached; each ``BDPL(b)`` is the model's exact engine re-noised
    (:meth:`CalibrationProblem.bdpl`), whatever the model.

    For a noise law the search runs over its amount (:class:`CalibrationProblem`; the BDPL is
    non-increasing in it for Laplace, Gaussian and geometric noise, and for staircase noise with a
    fixed gamma — checked numerically, see :mod:`bdpsim.kernels.noise.laws`); for Gaussian noise the
    target is ``delta(eps) <= problem.delta``."""
    from scipy.special import ndtri

    eps = problem.epsilon
    target = problem.target

    def excess(scale: float) -> float:  # > 0 iff the scale leaks more than the target
        v, tol = problem.bdpl(scale)
        if problem.profile:  # delta(eps) falls like a normal tail: its probit is nearly linear (fewer steps)
            return float(ndtri(min(max(v + tol, 1e-300), 1.0 - 1e-16)) - ndtri(target))
        return math.log(max(v + tol, 1e-300)) - math.log(target)

    lo0, hi0 = problem.sensitivity / eps, problem.sensitivity * problem.model.n / eps
    lo, hi = lo0, hi0
    # scales already evaluated (other methods, other eps) narrow the bracket
    above = [b for b, (v, tol) in problem.cache.items() if v + tol > target]
    below = [b for b, (v, tol) in problem.cache.items() if v + tol <= target]
    if above and max(above) > lo:
        lo = max(above)
    if below and min(below) < hi:
        hi = min(below)
    if lo >= hi:  # cached values inconsistent with monotonicity (rounding): the default bracket
        lo, hi = lo0, hi0
    # an unreachable extreme state can make the DP adversary leak less (the bracket moves down);
    # only rounding or the truncation tolerance can put BDPL(hi) above eps (it moves up)
    root = monotone_root(excess, hi, lo, rtol=rtol, step="illinois")
    if root.unsafe is None:
        return None
    if root.safe is None:
        raise RuntimeError(f"no scale below {root.unsafe:g} reaches eps = {eps:g}")
    return root.safe  # a scale whose BDPL was computed


def _exact(p: CalibrationProblem) -> Calibration:
    p.too_slow(
        "exact",
        EXACT_SEARCHES,
        "a chain with fewer states or faster mixing, or a method without the exact search"
        if p.chain
        else "a smaller model, or a larger min_known",
    )
    scale = exact_scale(p)
    if scale is None:
        return p.not_applicable(
            "exact", "BDPL <= eps at every scale (no target values are distinguishable): no noise is needed"
        )
    how = (
        "smallest scale with exact BDPL <= eps"
        if p.laplace
        else f"least {p.noise} noise with exact BDPL <= eps over every adversary"
    )
    return p.result("exact", scale, f"{how} (bracketing search, relative {RTOL:g})")


def _general(p: CalibrationProblem) -> Calibration:
    m = p.group_size
    tau = B.calibrate_general(p.epsilon, m)
    if p.chain:
        return p.result(
            "general",
            p.sensitivity * m / p.epsilon,
            f"scale = sensitivity * m / eps with m = n = {m} (general bound)",
            tau,
        )
    return p.result(
        "general",
        p.sensitivity / tau,
        f"scale = sensitivity * m / eps with m = {m} correlated records per group (general bound)",
        tau,
    )


def _dp(p: CalibrationProblem) -> Calibration:
    return p.result(
        "dp",
        p.sensitivity / p.epsilon,
        "scale = sensitivity / eps: the DP baseline, eps-DP but not eps-BDP under correlation",
        float(p.epsilon),
    )


def _gaussian(p: CalibrationProblem) -> Calibration:
    g = cast(EquicorrelatedGaussian, p.model)  # Method("gaussian", models=(EquicorrelatedGaussian,))
    tau = B.calibrate_gaussian(p.epsilon, g.rho, g.m)
    if not math.isfinite(tau):
        return p.not_applicable(
            "gaussian", g.condition or f"needs rho (m - 2) < 1, rho (m - 2) = {g.rho * (g.m - 2):.4f}"
        )
    return p.result(
        "gaussian",
        p.sensitivity / tau,
        f"scale = sensitivity h / eps, h = {B.gaussian_factor(g.rho, g.m):.6g} (Gaussian bound, "
        f"rho = {g.rho:.6g}, m = {g.m})",
        tau,
    )


def _bound_method(name: str, quantity: str, factor: float, value_of: Callable, tau_of: Callable) -> Callable:
    def method(p: CalibrationProblem) -> Calibration:
        P = p.model.transition
        if P.min() <= 0:
            return p.not_applicable(name, "needs every transition probability > 0 (H1)")
        if not p.model.is_stationary:
            return p.not_applicable(name, "needs a stationary start w P = w (H2)")
        floor = factor * math.log(value_of(P))
        tau = tau_of(p.epsilon, P)  # the bound's DP parameter (bdpsim.bounds), nan when unreachable
        if not tau > 0:
            return p.not_applicable(name, f"needs eps > {factor:g} ln {quantity} = {floor:.3g}")
        return p.result(
            name,
            p.sensitivity / tau,
            f"scale = sensitivity / (eps - {factor:g} ln {quantity}), {quantity} = {value_of(P):.6g}",
            tau,
        )

    method.__doc__ = f"``{name}`` calibration: DP parameter ``eps - {factor:g} ln {quantity}``."
    return method


def _quilt(name: str, variant: str) -> Callable:
    def method(p: CalibrationProblem) -> Calibration:
        P, n = p.model.transition, p.model.n
        approx = variant == "approx"  # else the authors' MQMExact
        if not approx and n >= 3:
            check_mqm_exact(p.model.states, n, p.ledger)
        try:
            if approx:
                q = mqm_approx(P, n, p.epsilon)
                how = (
                    f"MQMApprox (k_findBest_2dir.m, search from the middle node), pi_min = "
                    f"{q.parameters['pi_min']:.6g}, eigengap = {q.parameters['eigengap']:.6g}"
                )
            else:
                if n < 3:
                    return p.not_applicable(name, "the authors' MQMExact searches nodes 2..n-1: n >= 3")
                # the authors' start law (first row of P^100) for a stationary chain, as mqm_exact's
                # default; a chain that starts elsewhere is protected for its own start law
                ini = None if p.model.is_stationary else p.model.initial
                q = mqm_exact(P, n, p.epsilon, initial=ini)
                how = (
                    (
                        "MQMExact (k_findBest_2dir_exact.m, node marginals from the first row of "
                        "P^100, as the "
                        "authors)"
                        if ini is None
                        else "MQMExact (k_findBest_2dir_exact.m, node marginals from the model's start law)"
                    )
                    if p.model.states == 2
                    else "MQMExact (k_findBest_2dir_exact_multi.m, worst-case node marginals)"
                )
        except TooSlow:
            raise
        except ConfigError as exc:
            return p.not_applicable(name, exc.rule)
        return p.result(
            name,
            p.sensitivity * q.sigma,
            f"scale = sensitivity * sigma, sigma = {q.sigma:.6g} by {how}; "
            f"worst node {q.node - 1} (0-indexed), quilt {q.quilt} (eps-Pufferfish)",
        )

    method.__doc__ = f"``{name}``: the Markov Quilt mechanism's scale ({variant} max-influence)."
    return method


def _wasserstein(p: CalibrationProblem) -> Calibration:
    try:
        w = sup_over_secret_pairs(markov_laws(p.model, p.values), p.model.n)
    except NotAvailable as exc:
        return p.not_applicable("wasserstein", str(exc))
    return p.result(
        "wasserstein",
        w.W / p.epsilon,
        f"scale = W / eps, W = {w.W:.6g} = W_inf of the query's laws given record {w.i} "
        f"(0-indexed) = {w.x} vs {w.x_prime} (sup over records and value pairs; eps-Pufferfish)",
    )


def _group(p: CalibrationProblem) -> Calibration:
    n = p.model.n
    return p.result(
        "group",
        p.sensitivity * n / p.epsilon,
        f"scale = sensitivity * m / eps, group DP with m = n = {n} (all records of an "
        "irreducible chain are correlated)",
    )


#: what a method's noise guarantees for the target eps (the contract tests check ``bdp`` and
#: ``pufferfish`` methods against the exact BDPL on a small chain, ``dp`` ones only for a scale)
GUARANTEES = {
    "bdp": "eps-BDP over every adversary of the model",
    "pufferfish": "eps-Pufferfish (the Markov Quilt and Wasserstein mechanisms)",
    "dp": "eps-DP only: not eps-BDP under correlation (the DP baseline)",
}
_MODEL_WORDS = {
    MarkovChain: "a Markov chain",
    DataModel: "a data model with an exact engine over every adversary",
    CorrelatedGroups: "groups of correlated records (n, m)",
    EquicorrelatedGaussian: "groups of equicorrelated Gaussian records (rho, m)",
}


@runtime_checkable
class CalibrationMethod(Protocol):
    """What :func:`register_calibration_method` checks a calibration method has.

    ``name``; ``doc`` (one line); ``guarantee`` (a key of :data:`GUARANTEES`);
    ``supports(problem)``: ``None`` if the method is defined on the problem's model, else the
    reason (a Gaussian bound on a chain); ``calibrate(problem)``: the :class:`Calibration` (a method
    that is defined but cannot reach the target returns ``scale = None`` and the reason, e.g. the
    Markov bound at ``eps <= 4 ln gamma``)."""

    @property
    def name(self) -> str: ...

    @property
    def doc(self) -> str: ...

    @property
    def guarantee(self) -> str: ...

    def supports(self, problem: CalibrationProblem) -> str | None: ...

    def calibrate(self, problem: CalibrationProblem) -> Calibration: ...


@dataclass(frozen=True)
class Method:
    """A calibration method from a function ``run(problem) -> Calibration`` and the models it takes.

    ``models``: runtime-checkable protocols (:class:`~bdpsim.models.protocols.MarkovChain`,
    :class:`~bdpsim.calibration.groups.CorrelatedGroups`, ...); the problem's model must satisfy
    one. :meth:`calibrate` (also the call ``method(problem)``) answers a problem it does not support
    with a not-applicable :class:`Calibration`, never an exception."""

    name: str
    run: Callable[[CalibrationProblem], Calibration] = field(repr=False)
    doc: str = ""
    guarantee: str = "bdp"
    models: tuple = (MarkovChain,)

    def supports(self, problem: CalibrationProblem) -> str | None:
        if isinstance(problem.model, self.models):
            return None
        return (
            f"{self.name} needs {' or '.join(_MODEL_WORDS.get(m, m.__name__) for m in self.models)}, "
            f"not {type(problem.model).__name__}"
        )

    def calibrate(self, problem: CalibrationProblem) -> Calibration:
        why = self.supports(problem)
        return problem.not_applicable(self.name, why) if why else self.run(problem)

    def __call__(self, problem: CalibrationProblem) -> Calibration:
        return self.calibrate(problem)


def _guarantee(method) -> str | None:
    return None if method.guarantee in GUARANTEES else f"guarantee must be one of {list(GUARANTEES)}"


CALIBRATION_METHODS: Registry = Registry("calibration method", CalibrationMethod, _guarantee)


def register_calibration_method(method: CalibrationMethod) -> CalibrationMethod:
    """Add ``method`` to :data:`CALIBRATION_METHODS` after checking it against
    :class:`CalibrationMethod` (a :class:`TypeError` says what it lacks); returns it."""
    return CALIBRATION_METHODS.register(method, stacklevel=2)


_ANY = (MarkovChain, CorrelatedGroups)
for _m in (
    Method(
        "exact",
        _exact,
        "the smallest scale whose exact BDPL over all adversaries is <= eps",
        models=(DataModel,),
    ),
    Method("dp", _dp, "Delta / eps: the DP baseline (not eps-BDP under correlation)", "dp", _ANY),
    Method(
        "general", _general, "Delta m / eps: the general bound (group privacy, m = n on a chain)", models=_ANY
    ),
    Method(
        "gaussian",
        _gaussian,
        "Delta h(rho, m) / eps: the Gaussian bound (paper §6.1)",
        models=(EquicorrelatedGaussian,),
    ),
    Method(
        "markov",
        _bound_method("markov", "gamma", 4.0, B.gamma_of, B.calibrate_markov),
        "Delta / (eps - 4 ln gamma): the Markov bound (paper Thm 6.2)",
    ),
    Method(
        "zhao",
        _bound_method("zhao", "omega", 6.0, B.omega_of, B.calibrate_zhao),
        "Delta / (eps - 6 ln omega): Zhao et al.'s bound (thesis eq. 20)",
    ),
    Method(
        "markov-quilt-approx",
        _quilt("markov-quilt-approx", "approx"),
        "the Markov Quilt mechanism (MQMApprox)",
        "pufferfish",
    ),
    Method(
        "markov-quilt-exact",
        _quilt("markov-quilt-exact", "exact"),
        "the Markov Quilt mechanism (MQMExact)",
        "pufferfish",
    ),
    Method("wasserstein", _wasserstein, "W / eps: the Wasserstein mechanism", "pufferfish"),
    Method("group", _group, "Delta n / eps: group DP with the whole chain as the group"),
):
    register_calibration_method(_m)


def supported_methods(model) -> list[str]:
    """The registered methods defined on ``model`` (whatever the target eps: a method that cannot
    reach one says so in its :class:`Calibration`)."""
    probe = CalibrationProblem(model, np.array([0.0, 1.0]), 1.0, evaluate=False)
    return [name for name, m in CALIBRATION_METHODS.items() if m.supports(probe) is None]


def calibrate_query(
    model,
    epsilon: float,
    values,
    *,
    query=None,
    method: str = "exact",
    evaluate: bool = True,
    noise: str = "laplace",
    delta: float | None = None,
    staircase_gamma: float | None = None,
    budget: float | Budget | None = DEFAULT_BUDGET,
    objective: str = "mean_abs",
    progress: Callable | None = None,
    **search,
) -> Calibration:
    """The calibration ``method`` (a key of :data:`CALIBRATION_METHODS`) of the query with per-state
    ``values`` (``query``: the query itself, when the values do not say it all) on ``model``, with
    the exact BDPL over all adversaries of what it prescribes: the one path of every model
    (:func:`calibrate_chain`, :func:`bdpsim.calibration.entry.calibrate`); arguments as
    :func:`calibrate_chain`'s. A method not defined on the model returns a not-applicable
    :class:`Calibration`."""
    if method not in CALIBRATION_METHODS:
        raise ConfigError("method", method, f"must be one of {sorted(CALIBRATION_METHODS)}")
    check_target_epsilon(epsilon, method, noise)
    problem = CalibrationProblem(
        model,
        np.asarray(values, dtype=float),
        epsilon,
        dict(search),
        evaluate=evaluate,
        noise=noise,
        delta=delta,
        staircase_gamma=staircase_gamma,
        budget=budget,
        objective=objective,
        progress=progress,
        query=query,
    )
    if not problem.laplace and method == "optimal":  # the optimal method chooses the noise law itself
        return problem.not_applicable(
            method,
            f"optimal chooses the noise law itself (an integer table): noise = {noise!r} does not apply",
        )
    if not problem.laplace and method != EXACT_METHOD:
        return problem.not_applicable(
            method, f"{method} calibrates Laplace noise; for {noise} noise use method = 'exact'"
        )
    return CALIBRATION_METHODS[method].calibrate(problem)


def calibrate_chain(
    model,
    epsilon: float,
    *,
    counted_states: Sequence[int] | None = None,
    state_values: Sequence[float] | None = None,
    **options,
) -> Calibration:
    """Laplace scale for eps-BDP by ``method`` (a key of :data:`CALIBRATION_METHODS`) and the
    exact BDPL over all adversaries of the mechanism it prescribes — or, with ``noise``, the least
    noise of another law that is eps-BDP (``method = "exact"``).

    On a Markov chain (:func:`bdpsim.calibration.entry.calibrate` takes every model).

    Parameters
    ----------
    model : MarkovChainModel
    epsilon : float
        Target BDPL, in ``(0, 700]`` (:func:`bdpsim.calibration.target.check_target_epsilon`;
        ``optimal``: ``[0.01, 90]``).
    counted_states, state_values
        The query: count of a state set (default state 1) or sum of per-state values
        (:func:`bdpsim.kernels.chains.lattice.query_values`).
    method : str
        ``exact`` (default), ``general``, ``markov``, ``zhao``, ``markov-quilt-approx``,
        ``markov-quilt-exact``, ``wasserstein``, ``group``, ``dp``, ``optimal`` or a registered name
        (a method not defined on a chain, e.g. ``gaussian``, returns a not-applicable Calibration).
    evaluate : bool, optional
        Also compute the exact BDPL of the prescribed scale (default; ``False``: the scale only).
    noise : str, optional
        ``laplace`` (default), ``geometric``, ``staircase`` (with ``staircase_gamma``, default
        ``gamma*`` of the DP epsilon) or ``gaussian`` (the least ``sigma`` with
        ``delta(epsilon) <= delta``); the bound-based and competing methods calibrate Laplace noise.
    delta : float, optional
        Target of the Gaussian privacy profile.
    objective : str, optional
        What ``method = "optimal"`` minimises: ``mean_abs`` (``E|Z|``, default) or ``variance``
        (``E Z^2``) (:mod:`bdpsim.calibration.optimal`).
    budget : float or Budget or None, optional
        Estimated seconds the method may take (default :data:`~bdpsim.calibration.budget.DEFAULT_BUDGET`,
        an hour; ``None``: no limit; a
        :class:`~bdpsim.calibration.budget.Budget` is shared by every calibration given it). A
        costlier exact search or MQMExact raises :class:`~bdpsim.calibration.budget.TooSlow` (a
        ConfigError naming the field to change, with the estimate) before it starts; a costlier
        exact BDPL of the prescribed scale is left out (``bdpl = None``).
    progress : callable, optional
        ``progress(done, None)`` after each search over every adversary (e.g.
        :class:`bdpsim.cli.progress.Progress`).
    **options
        The keywords of :func:`calibrate_query` documented above (``method``, ``evaluate``,
        ``noise``, ``delta``, ``staircase_gamma``, ``objective``, ``budget``, ``progress``) and the
        options of the exact engine's search (``min_known``, ``targets``; a chain's window search
        also takes ``window_limit`` and ``tolerance``, :mod:`bdpsim.models.markov.window`).
    """
    check(
        isinstance(model, MarkovChain),
        "model",
        type(model).__name__,
        "must be a Markov chain (MarkovChainModel; pedigrees, networks, random fields: bdpsim.calibrate)",
    )
    return calibrate_query(
        model, epsilon, query_values(model.states, counted_states, state_values), **options
    )


calibrate = calibrate_chain  # the name the calibrated mechanism kinds and the studies import
