"""Calibration on pedigrees, Bayesian networks and Markov random fields: the optimal integer noise
and the exact calibration of Laplace, geometric and staircase noise.

:func:`calibrate_graph` is ``bdpsim calibrate config`` for a model that is not a Markov chain. Every
number comes from the model's exact engine over **every** adversary with ``|K| >= min_known``:

* pedigrees: the exhaustive search over adversary classes
  (:func:`bdpsim.models.pedigree.exact.exhaustive_pedigree_count`; a count of genotypes);
* Bayesian networks and Markov random fields: the separated-region search
  (:func:`bdpsim.models.bayesnet.search.bdpl_search`, exhaustive where the regions do not
  prune), refused up front with its estimate when too costly (:func:`~.optimal.network_plan`).

**Exact calibration** (``method = "exact"``): the least amount ``a`` of a noise law whose exact
BDPL over all adversaries is ``<= eps`` — the Laplace scale ``b = a``, or the DP epsilon
``Delta / a`` of geometric and staircase noise (so the DP adversary leaks ``Delta / a`` for
each). ``BDPL(a)`` is non-increasing in ``a`` (Laplace: ``Lap(b2) = Lap(b1) + W``,
:mod:`bdpsim.calibration.methods`;
the others checked numerically, :mod:`bdpsim.kernels.noise.laws`), and
``Delta/eps <= a* <= n Delta/eps`` (the DP adversary leaks ``Delta/a``; every eps'-DP mechanism is
``n eps'``-BDP, paper Thm 4.3): a root search on ``ln BDPL`` vs ``ln a`` to relative
``1e-9`` (:func:`bdpsim.kernels.roots.monotone_root`, Illinois steps, as the chains'), returned from
the safe side (the returned amount's BDPL was computed and is ``<= eps``).

**Optimal noise** (``method = "optimal"``): :func:`~.optimal.optimal_noise` (the LP over integer
pmfs on the law pairs the engine scores, verified by the same engine).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import ConfigError, NotAvailable, check
from ..kernels.chains.lattice import lattice
from ..kernels.noise.laws import LaplaceNoise, noise_with_amount
from ..kernels.noise.optimal_lp import Infeasible, mean_abs
from ..kernels.noise.protocols import LaplaceKernel
from ..kernels.roots import monotone_root
from ..models.engines import SearchTooLarge
from ..models.pedigree.exact import check_exhaustive
from ..models.protocols import FactorGraph, HasCountLaw, MarkovChain
from .budget import TooSlow, duration
from .methods import Calibration
from .optimal import (
    NETWORK_SEARCHES,
    network_bdpl,
    network_plan,
    optimal_noise,
    pedigree_bdpl,
    pedigree_counted,
)
from .target import check_positive, check_target_epsilon, exact_laws

RTOL = 1e-9
#: all-adversary searches of an exact calibration (bracket ends and Brent steps; typically 8-14)
EXACT_SEARCHES = 14
METHODS = ("optimal", "exact", "all")


@dataclass(frozen=True)
class GraphEngine:
    """A model's exact all-adversary BDPL of ``query + noise`` for any noise law: ``bdpl(noise)``;
    ``seconds`` the estimated time of one search (``nan``: no estimate); ``sensitivity`` and
    ``step`` of the query values."""

    model: Any
    values: np.ndarray
    bdpl: Callable
    seconds: float
    sensitivity: float
    step: float


def graph_engine(model, values, *, min_known: int = 0) -> GraphEngine:
    """The exact all-adversary engine of a pedigree (a count: ``values`` one 0/1 per genotype) or of
    a Bayesian network / Markov random field (``values`` per state, on an integer lattice); refused
    in one line when the search cannot be done (its estimate)."""
    v = np.asarray(values, dtype=float)
    g, step, _ = lattice(v)
    sens = float(v.max() - v.min())
    check(sens > 0, "state_values", v.tolist(), "the query is constant (sensitivity 0): it needs no noise")
    if isinstance(model, FactorGraph):
        plan = network_plan(model, v, max_seconds=math.inf)
        return GraphEngine(
            model,
            v,
            lambda noise: network_bdpl(model, plan, noise, min_known=min_known),
            plan[0].seconds,
            sens,
            step,
        )
    check(
        isinstance(model, HasCountLaw) and not isinstance(model, MarkovChain),
        "model",
        type(model).__name__,
        "must be a pedigree, a Bayesian network or a Markov random field (Markov chains: calibrate markov)",
    )
    pedigree_counted(v)  # a count of genotypes, checked up front
    try:
        check_exhaustive(model, range(model.n))
    except SearchTooLarge as err:
        raise ConfigError("model", f"{model.n} people", err.reason) from None
    return GraphEngine(
        model, v, lambda noise: pedigree_bdpl(model, v, noise, min_known=min_known), math.nan, sens, 1.0
    )


def noise_at(law: str, amount: float, sensitivity: float, step: float, staircase_gamma: float | None = None):
    """The noise law ``law`` with ``amount`` of noise
    (:func:`~bdpsim.kernels.noise.laws.noise_with_amount`)."""
    return noise_with_amount(law, amount, sensitivity, step=step, staircase_gamma=staircase_gamma)


def exact_amount(
    engine: GraphEngine,
    epsilon: float,
    law: str = "laplace",
    *,
    staircase_gamma: float | None = None,
    rtol: float = RTOL,
) -> tuple[float | None, float]:
    """Least amount of ``law`` with exact BDPL ``<= epsilon`` (module docstring) and its BDPL;
    ``(None, 0)`` when even ``2^-60 Delta/eps`` is eps-BDP (no noise needed)."""
    check(
        law in exact_laws(),
        "noise",
        law,
        f"must be one of {list(exact_laws())} (pure DP laws with one amount)",
    )
    D, n = engine.sensitivity, engine.model.n
    seen: dict[float, float] = {}

    def excess(amount: float) -> float:  # > 0 iff the amount leaks more than eps
        v = engine.bdpl(noise_at(law, amount, D, engine.step, staircase_gamma))
        seen[amount] = v
        return math.log(max(v, 1e-300)) - math.log(epsilon)

    # an unreachable extreme value can make the DP adversary leak less (the bracket moves down);
    # every eps'-DP noise is (n eps')-BDP: only rounding puts BDPL(n Delta/eps) above eps
    root = monotone_root(excess, n * D / epsilon, D / epsilon, rtol=rtol, step="illinois")
    if root.unsafe is None:
        return None, 0.0
    if root.safe is None:
        raise RuntimeError(f"no amount below {root.unsafe:g} of {law} noise reaches eps = {epsilon:g}")
    return root.safe, seen[root.safe]  # the least amount whose BDPL was computed <= eps


def exact_noise(
    engine: GraphEngine, epsilon: float, law: str = "laplace", *, staircase_gamma: float | None = None
) -> Calibration:
    """Method ``exact`` of :func:`calibrate_graph`: the least ``law`` noise that is eps-BDP, as a
    :class:`~bdpsim.calibration.Calibration` row (``scale`` the amount; ``parameter`` the DP
    epsilon of geometric and staircase noise; ``mean_abs`` its ``E|Z|``)."""
    amount, value = exact_amount(engine, epsilon, law, staircase_gamma=staircase_gamma)
    n = engine.model.n
    if amount is None:
        return Calibration(
            "exact",
            float(epsilon),
            n,
            None,
            None,
            "not applicable: BDPL <= eps at every "
            "amount of noise (no target values are distinguishable): no noise is needed",
            law,
        )
    noise = noise_at(law, amount, engine.sensitivity, engine.step, staircase_gamma)
    reason = (
        f"least {law} noise with exact BDPL <= eps over every adversary (bracketing search, relative "
        f"{RTOL:g})"
    )
    if isinstance(noise, LaplaceKernel):  # the amount is the Laplace scale itself
        return Calibration("exact", float(epsilon), n, amount, value, reason, mean_abs=amount)
    return Calibration(
        "exact",
        float(epsilon),
        n,
        amount,
        value,
        reason,
        law,
        float(noise.parameter),
        mean_abs=mean_abs(noise),
    )


def optimal_row(
    engine: GraphEngine, epsilon: float, *, objective: str = "mean_abs", min_known: int = 0, progress=None
) -> Calibration:
    """Method ``optimal`` of :func:`calibrate_graph` (:func:`~.optimal.optimal_noise`) as a row."""
    try:
        opt = optimal_noise(
            engine.model,
            epsilon,
            engine.values,
            objective=objective,
            min_known=min_known,
            progress=progress,
            max_seconds=math.inf,
        )
    except Infeasible as exc:
        return Calibration(
            "optimal", float(epsilon), engine.model.n, None, None, f"not applicable: {exc}", "table"
        )
    return opt.as_calibration(engine.model.n, "law pairs", ("bdpl", "truncation_tolerance"))


def quilt_row(engine: GraphEngine, epsilon: float) -> Calibration:
    """The general Markov Quilt mechanism's Laplace noise on a Bayesian network (Pufferfish paper
    §4, :func:`~bdpsim.calibration.quilt.bayesnet.mqm_bayesnet`: scale ``Delta sigma`` for
    eps-Pufferfish privacy) with its exact BDPL over every adversary (for method ``all``)."""
    from .quilt.bayesnet import mqm_bayesnet

    q = mqm_bayesnet(engine.model, epsilon)
    scale = engine.sensitivity * q.sigma
    if not math.isfinite(scale):
        return Calibration(
            "markov-quilt-general",
            float(epsilon),
            engine.model.n,
            None,
            None,
            "not applicable: no quilt gives a finite sigma",
        )
    reason = (
        f"scale = sensitivity * sigma, sigma = {q.sigma:.6g} by the general Markov Quilt mechanism (worst "
        f"record {q.record}, quilt {list(q.quilt)}; eps-Pufferfish)"
    )
    return Calibration(
        "markov-quilt-general",
        float(epsilon),
        engine.model.n,
        scale,
        engine.bdpl(LaplaceNoise(scale)),
        reason,
        mean_abs=scale,
    )


def calibrate_graph(
    model,
    epsilon: float,
    values,
    *,
    method: str = "optimal",
    noise: str = "laplace",
    objective: str = "mean_abs",
    min_known: int = 0,
    staircase_gamma: float | None = None,
    budget: float | None = None,
    progress=None,
) -> list[Calibration]:
    """The optimal noise and/or the exact calibration on a pedigree, Bayesian network or Markov
    random field (module docstring), each with its exact BDPL over every adversary.

    Parameters
    ----------
    model : PedigreeModel, BayesNetModel or MRFModel
    epsilon : float
        Target BDPL.
    values : array of shape (states,)
        Query value per state (a count: 0/1; pedigrees: a count of genotypes).
    method : {"optimal", "exact", "all"}
        ``all``: the optimal noise, then the exact calibration of Laplace, geometric and staircase
        noise (``noise`` is then ignored), and on a Bayesian network the general Markov Quilt
        mechanism's Laplace noise (:func:`quilt_row`).
    noise : str
        The law ``exact`` calibrates: one of :func:`~.target.exact_laws` (laplace, geometric, staircase).
    budget : float, optional
        Estimated seconds a method may take (networks; ``None``: no limit): a costlier one raises
        :class:`~bdpsim.calibration.budget.TooSlow` before it starts (with ``all``: its row says
        ``not run``).
    """
    check(method in METHODS, "method", method, f"must be one of {list(METHODS)}")
    check_positive(epsilon, "epsilon")
    check(noise in exact_laws(), "noise", noise, f"must be one of {list(exact_laws())} here")
    check_target_epsilon(epsilon, method, noise)
    engine = graph_engine(model, values, min_known=min_known)
    runs = {
        "optimal": [("optimal", "table")],
        "exact": [("exact", noise)],
        "all": [("optimal", "table")] + [("exact", law) for law in exact_laws()],
    }[method]
    if method == "all" and isinstance(model, FactorGraph):  # Bayesian networks (a random field is refused)
        runs.append(("markov-quilt-general", "laplace"))
    out = []
    for k, law in runs:
        searches = {"optimal": NETWORK_SEARCHES, "markov-quilt-general": 1}.get(k, EXACT_SEARCHES)
        est = engine.seconds * searches
        if budget is not None and est > budget:  # nan (no estimate) passes
            exc = TooSlow(
                "model",
                f"{model.n} records",
                f"{k} needs ~{duration(est)} (~{searches} exact "
                f"searches over every adversary of ~{duration(engine.seconds)} each, estimate); "
                f"at most ~{duration(budget)} allowed",
            )
            if len(runs) == 1:
                raise exc
            out.append(Calibration(k, float(epsilon), model.n, None, None, f"not run: {exc.rule}", law))
            continue
        try:
            if k == "optimal":
                out.append(
                    optimal_row(engine, epsilon, objective=objective, min_known=min_known, progress=progress)
                )
            elif k == "markov-quilt-general":
                try:
                    out.append(quilt_row(engine, epsilon))
                except ConfigError as exc:  # not a Bayesian network: the mechanism does not apply, no row
                    if exc.field != "model":
                        raise
            else:
                out.append(exact_noise(engine, epsilon, law, staircase_gamma=staircase_gamma))
        except NotAvailable as exc:
            out.append(Calibration(k, float(epsilon), model.n, None, None, f"not applicable: {exc}", law))
    return out
