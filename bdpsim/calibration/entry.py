"""The one Python entry point of calibration, :func:`calibrate`, for every model ``bdpsim calibrate``
takes: a Markov chain (every method of :data:`~bdpsim.calibration.CALIBRATION_METHODS`, by the
window reduction: :func:`bdpsim.calibration.methods.calibrate_chain`) and a pedigree, Bayesian
network or Markov random field (``exact`` and ``optimal``, by the model's exact all-adversary
engine: :func:`bdpsim.calibration.graphs.calibrate_graph`), the query given as counted states,
state values or a mechanism.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.errors import ConfigError, check
from ..models.protocols import FactorGraph, HasCountLaw, MarkovChain
from .methods import EXACT_METHOD, Calibration, calibrate_chain
from .target import check_target_epsilon, query_of

#: the methods on a pedigree, network or random field
GRAPH_METHODS = (EXACT_METHOD, "optimal")


def calibrate(
    model,
    epsilon: float,
    *,
    counted_states: Sequence[int] | None = None,
    state_values: Sequence[float] | None = None,
    method: str = "exact",
    evaluate: bool = True,
    noise: str = "laplace",
    delta: float | None = None,
    staircase_gamma: float | None = None,
    budget: float | None = None,
    objective: str = "mean_abs",
    progress: Callable | None = None,
    mechanism=None,
    **search,
) -> Calibration:
    """The noise ``method`` prescribes for eps-BDP of an additive query on ``model``, with the
    exact BDPL over every adversary of what it prescribes,
    ``sup_{i, K, x_K, x, x', s} ln p(s | x_K, x) / p(s | x_K, x')``.

    Parameters
    ----------
    model : MarkovChainModel, PedigreeModel, BayesNetModel or MRFModel
    epsilon : float
        Target BDPL, in ``(0, 700]`` (``optimal``: ``[0.01, 90]``; staircase noise ``>= 1e-4``:
        :func:`bdpsim.calibration.target.check_target_epsilon`).
    counted_states, state_values
        The query: count of a state set (default state 1; genotype names on a pedigree) or sum of
        per-state values.
    mechanism : Mechanism, optional
        The query as a mechanism whose query is additive (``LaplaceCount(1.0, (2,))``,
        ``LaplaceStateSum``, ...): its ``query_function`` gives the per-state values, instead of
        ``counted_states`` / ``state_values`` (its own noise is not used).
    method : str
        On a chain every registered method (:func:`~bdpsim.calibration.methods.calibrate_chain`);
        on a pedigree, network or random field ``exact`` (the least Laplace scale, or the least
        geometric / staircase noise with ``noise``) or ``optimal`` (the least-E|Z| integer noise).
    evaluate, delta, budget, objective, progress, **search
        As :func:`~bdpsim.calibration.methods.calibrate_chain` (on a pedigree, network or random
        field: ``min_known`` is the only search option, ``delta`` is refused and the exact BDPL is
        always computed).

    Returns
    -------
    Calibration
        ``scale`` (the Laplace scale, or the amount ``Delta / eps'`` of geometric and staircase
        noise), ``bdpl`` and ``reason``; ``method = "optimal"``: the noise table in ``extra``.
    """
    if isinstance(model, MarkovChain):
        chain: Any = model  # a MarkovChain (protocol) is what calibrate_chain runs on
        return calibrate_chain(
            chain,
            epsilon,
            state_values=_query_values(model, counted_states, state_values, mechanism),
            method=method,
            evaluate=evaluate,
            noise=noise,
            delta=delta,
            staircase_gamma=staircase_gamma,
            budget=budget,
            objective=objective,
            progress=progress,
            **search,
        )
    # pedigrees, networks, random fields: their exact all-adversary engines (scipy.optimize: imported here)
    from .graphs import calibrate_graph

    check(
        method in GRAPH_METHODS,
        "method",
        method,
        f"on a {type(model).__name__} must be one of "
        f"{list(GRAPH_METHODS)} (the bounds and the competing mechanisms are defined on a Markov chain)",
    )
    check_target_epsilon(epsilon, method, noise)
    check(
        not search.keys() - {"min_known"},
        "search",
        sorted(search),
        "on a pedigree, network or random field only min_known is an option of the exact search",
    )
    check(delta is None, "delta", delta, "is the target of gaussian noise, calibrated on a Markov chain only")
    check(
        isinstance(model, (HasCountLaw, FactorGraph)),
        "model",
        type(model).__name__,
        "must be a Markov chain, pedigree, Bayesian network or Markov random field",
    )
    rows = calibrate_graph(
        model,
        epsilon,
        _query_values(model, counted_states, state_values, mechanism),
        method=method,
        noise=noise,
        objective=objective,
        min_known=int(search.get("min_known", 0)),
        staircase_gamma=staircase_gamma,
        budget=budget,
        progress=progress,
    )
    return rows[0]


def _query_values(model, counted_states, state_values, mechanism) -> tuple[float, ...]:
    """The query's value ``f(s)`` per state ``s`` of ``model``, read one way for every model: from
    ``mechanism``'s additive query, or from ``counted_states`` / ``state_values``
    (:func:`~bdpsim.calibration.target.query_of`: the count of state 1 without either)."""
    if mechanism is not None:
        check(
            counted_states is None and state_values is None,
            "mechanism",
            type(mechanism).__name__,
            "give the query as a mechanism or as counted_states / state_values, not both",
        )
        try:
            state_values = [float(v) for v in mechanism.query_function.per_state(model.states)]
        except AttributeError:
            raise ConfigError(
                "mechanism",
                type(mechanism).__name__,
                "must be a mechanism with an additive query "
                "(a count or a sum of state values) on a discrete model",
            ) from None
    return query_of(int(model.states), counted_states, state_values, model=model).values
