"""Several calibrations of one query on one model, as ``bdpsim calibrate config`` prints them: the
optimal integer noise and the exact calibration of every pure-DP law, on any model whose exact
engine searches every adversary (a chain, a pedigree, a Bayesian network, a Markov random field,
a model kind of a plug-in).

:func:`calibrate_graph` runs, for ``method = "optimal" | "exact" | "all"``, the rows of
:data:`~bdpsim.calibration.CALIBRATION_METHODS`' ``optimal`` and ``exact`` methods
(:func:`~bdpsim.calibration.methods.calibrate_query`: every number from the model's exact engine
over **every** adversary with ``|K| >= min_known``, re-noised for each amount,
:mod:`bdpsim.calibration.engine`):

* **exact calibration**: the least amount ``a`` of a noise law whose exact BDPL over all
  adversaries is ``<= eps`` — the Laplace scale ``b = a``, or the DP epsilon ``Delta / a`` of
  geometric and staircase noise (so the DP adversary leaks ``Delta / a`` for each), by the one
  bracketing search (:func:`~bdpsim.calibration.methods.exact_scale`), returned from the safe side;
* **optimal noise**: :func:`~bdpsim.calibration.optimal.optimal_noise` (the LP over integer pmfs on
  the law pairs the engine scores, verified by the same engine);
* with ``all``, on a Bayesian network also the general Markov Quilt mechanism's Laplace noise
  (:func:`quilt_row`).

One :class:`~bdpsim.calibration.budget.Budget` is shared by the rows: a row whose estimate does not
fit in what is left says ``not run`` (module docstring of :mod:`bdpsim.calibration.budget`).
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import ConfigError, NotAvailable, check
from .budget import DEFAULT_BUDGET, Budget, TooSlow, budget_of
from .methods import Calibration, CalibrationProblem, calibrate_query
from .optimal import integer_step
from .target import check_positive, check_target_epsilon, exact_laws

METHODS = ("optimal", "exact", "all")


def quilt_row(problem: CalibrationProblem) -> Calibration | None:
    """The general Markov Quilt mechanism's Laplace noise on a Bayesian network (Pufferfish paper
    §4, :func:`~bdpsim.calibration.quilt.bayesnet.mqm_bayesnet`: scale ``Delta sigma`` for
    eps-Pufferfish privacy) with its exact BDPL over every adversary (for method ``all``); ``None``
    on a model that is not a Bayesian network (the mechanism needs a directed model)."""
    from .quilt.bayesnet import mqm_bayesnet

    try:
        q = mqm_bayesnet(problem.model, problem.epsilon)
    except ConfigError as exc:  # not a Bayesian network: the mechanism does not apply, no row
        if exc.field != "model":
            raise
        return None
    scale = problem.sensitivity * q.sigma
    if not math.isfinite(scale):
        return problem.not_applicable("markov-quilt-general", "no quilt gives a finite sigma")
    reason = (
        f"scale = sensitivity * sigma, sigma = {q.sigma:.6g} by the general Markov Quilt mechanism (worst "
        f"record {q.record}, quilt {list(q.quilt)}; eps-Pufferfish)"
    )
    return problem.result("markov-quilt-general", scale, reason)


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
    budget: float | Budget | None = DEFAULT_BUDGET,
    progress=None,
    query=None,
) -> list[Calibration]:
    """The optimal noise and/or the exact calibration of the query on ``model`` (module docstring),
    each with its exact BDPL over every adversary.

    Parameters
    ----------
    model : any model with an exact engine over every adversary
    epsilon : float
        Target BDPL.
    values : array of shape (states,)
        Query value per state (a count: 0/1; pedigrees: a count of genotypes).
    method : {"optimal", "exact", "all"}
        ``all``: the optimal noise, then the exact calibration of every pure-DP law
        (:func:`~.target.exact_laws`; ``noise`` is then ignored), and on a Bayesian network the
        general Markov Quilt mechanism's Laplace noise (:func:`quilt_row`).
    noise : str
        The law ``exact`` calibrates: one of :func:`~.target.exact_laws` (laplace, geometric, staircase).
    budget : float or Budget or None, optional
        Estimated seconds the rows may take together (default
        :data:`~bdpsim.calibration.budget.DEFAULT_BUDGET`, an hour; ``None``: no limit): a costlier one raises
        :class:`~bdpsim.calibration.budget.TooSlow` before it starts (with ``all``: its row says
        ``not run``).
    progress : callable, optional
        ``progress(done, None)`` after each search and LP round.
    query : AdditiveQuery, optional
        The query itself, when ``values`` do not say it all.
    """
    check(method in METHODS, "method", method, f"must be one of {list(METHODS)}")
    check_positive(epsilon, "epsilon")
    check(noise in exact_laws(), "noise", noise, f"must be one of {list(exact_laws())} here")
    check_target_epsilon(epsilon, method, noise)
    if method == "optimal":  # the one row asked for cannot be computed: refused, not a row
        integer_step(values)
    runs = {
        "optimal": [("optimal", "laplace")],
        "exact": [("exact", noise)],
        "all": [("optimal", "laplace")] + [("exact", law) for law in exact_laws()],
    }[method]
    common = dict(
        query=query,
        objective=objective,
        staircase_gamma=staircase_gamma,
        budget=budget_of(budget),
        progress=progress,
    )
    out = []
    for k, law in runs:
        try:
            out.append(
                calibrate_query(model, epsilon, values, method=k, noise=law, min_known=min_known, **common)
            )
        except TooSlow as exc:
            if len(runs) == 1:
                raise
            out.append(_not_run(k, epsilon, model.n, exc.rule, "table" if k == "optimal" else law))
        except NotAvailable as exc:
            out.append(_not_run(k, epsilon, model.n, f"not applicable: {exc}", law, prefix=False))
    if method == "all":
        f = np.asarray(values, dtype=float)
        problem = CalibrationProblem(model, f, epsilon, {"min_known": min_known}, **common)
        try:
            row = quilt_row(problem)
        except TooSlow as exc:
            row = _not_run("markov-quilt-general", epsilon, model.n, exc.rule, "laplace")
        if row is not None:
            out.append(row)
    return out


def _not_run(method: str, epsilon: float, n: int, why: str, noise: str, prefix: bool = True) -> Calibration:
    return Calibration(method, float(epsilon), n, None, None, f"not run: {why}" if prefix else why, noise)
