"""The one Python entry point of calibration, :func:`calibrate`, for every model ``bdpsim calibrate``
takes: a Markov chain (every method of :data:`~bdpsim.calibration.CALIBRATION_METHODS`) and every
other model whose exact engine searches every adversary — a pedigree, a Bayesian network, a Markov
random field, a model kind of a plug-in (``exact`` and ``optimal``) — all through one path
(:func:`bdpsim.calibration.methods.calibrate_query`: the model's exact engine, re-noised), the
query given as counted states, state values or a mechanism.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from ..core.errors import check
from ..mechanisms.protocols import ReleasesEveryRecord
from ..models.protocols import MarkovChain
from ..queries import additive_noisy
from .budget import Budget
from .methods import Calibration, calibrate_query, supported_methods
from .target import CalibratedQuery, per_state_values, query_of


def calibrate(
    model,
    epsilon: float,
    *,
    counted_states: Sequence[int | str] | None = None,
    state_values: Sequence[float] | None = None,
    method: str = "exact",
    evaluate: bool = True,
    noise: str = "laplace",
    delta: float | None = None,
    staircase_gamma: float | None = None,
    budget: float | Budget | None = None,
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
    model : a Markov chain or any model with an exact engine over every adversary
        ``MarkovChainModel``, ``PedigreeModel``, ``BayesNetModel``, ``MRFModel``, a plug-in's kind.
    epsilon : float
        Target BDPL, in ``(0, 700]`` (``optimal``: ``[0.01, 90]``; staircase noise ``>= 1e-4``:
        :func:`bdpsim.calibration.target.check_target_epsilon`).
    counted_states, state_values
        The query: count of a state set (default state 1), read as ``bdpsim run`` reads a config's
        ``counted_states`` (indices, genotype names on a pedigree, a BIF network's own state
        names: ``["high", "severe"]``), or sum of per-state values.
    mechanism : Mechanism, optional
        The query as a mechanism whose query is additive (``LaplaceCount(1.0, (2,))``,
        ``LaplaceStateSum``, ...): its ``query_function`` gives the per-state values, instead of
        ``counted_states`` / ``state_values`` (its own noise is not used). Or a local release of
        every record (:class:`~bdpsim.LocalRelease`): its largest epsilon (a schedule: the largest
        factor on it) whose exact BDPL meets ``epsilon``, a
        :class:`~bdpsim.calibration.local.LocalCalibration` (``search``: ``sizes``, default
        ``(0,)``, the adversary who knows no step: ``max_t TPL_t``).
    method : str
        On a chain every registered method (:func:`~bdpsim.calibration.methods.calibrate_chain`);
        on another model ``exact`` (the least Laplace scale, or the least amount of the law
        ``noise`` names) or ``optimal`` (the least-E|Z| integer noise).
    evaluate, delta, budget, objective, progress, **search
        As :func:`~bdpsim.calibration.methods.calibrate_chain` (``min_known`` and ``targets`` are
        every engine's search options; ``window_limit`` and ``tolerance`` a chain's).

    Returns
    -------
    Calibration
        ``scale`` (the Laplace scale, or the amount ``Delta / eps'`` of geometric and staircase
        noise), ``bdpl`` and ``reason``; ``method = "optimal"``: the noise table in ``extra``.
    """
    if isinstance(mechanism, ReleasesEveryRecord):  # a local release: its budget, not a noise scale
        from .local import calibrate_local

        return calibrate_local(model, epsilon, mechanism, **search)  # type: ignore[return-value]
    q = _query(model, counted_states, state_values, mechanism)
    if not isinstance(model, MarkovChain):  # a chain answers a method not defined on it with a row
        methods = supported_methods(model)
        check(
            bool(methods),
            "model",
            type(model).__name__,
            "has no calibration: a Markov chain, or a data model of a registered kind whose exact "
            "engine searches every adversary (a pedigree, a Bayesian network, a Markov random field, ...)",
        )
        check(
            method in methods,
            "method",
            method,
            f"on a {type(model).__name__} must be one of "
            f"{methods} (the bounds and the competing mechanisms are defined on a Markov chain)",
        )
    return calibrate_query(
        model,
        epsilon,
        q.values,
        query=q.record_query,
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


def _query(model, counted_states, state_values, mechanism):
    """The query (:class:`~bdpsim.calibration.target.CalibratedQuery`: its values per state and the
    query itself), read one way for every model: ``mechanism``'s additive query, or
    ``counted_states`` / ``state_values`` as ``bdpsim run`` reads them
    (:func:`~bdpsim.calibration.target.query_of`: the count of state 1 without either)."""
    if mechanism is not None:
        check(
            counted_states is None and state_values is None,
            "mechanism",
            type(mechanism).__name__,
            "give the query as a mechanism or as counted_states / state_values, not both",
        )
        found = additive_noisy(mechanism)
        check(
            found is not None,
            "mechanism",
            type(mechanism).__name__,
            "must be a mechanism with an additive query "
            "(a count or a sum of state values) on a discrete model",
        )
        query = cast(tuple, found)[0]
        values = per_state_values(query, int(model.states))
        return CalibratedQuery(values, None, values, "flags", query)
    return query_of(int(model.states), counted_states, state_values, model=model)
