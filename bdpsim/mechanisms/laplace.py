"""Laplace mechanisms (thesis §3, paper Def. 5.6, Lemma 5.7): constructors of the one query + noise
family, :class:`~bdpsim.mechanisms.noisy.NoisyQueryMechanism` with a
:class:`~bdpsim.kernels.noise.laws.LaplaceNoise`.

Each keeps its name, its arguments, its config fields and its ``summary.csv`` cells
(``noise_scale``, and ``clip_low``/``clip_high`` or ``x``/``x_prime``): ``LaplaceCount(1.0)`` is
``NoisyQueryMechanism(CountQuery((1,)), LaplaceNoise(1.0), "count", stated_epsilon=1.0)``. The
noise law is built once from the epsilon (which it checks, naming ``mechanism.epsilon``); the
mixture estimator and the Laplace exact engines apply to every mechanism of the family whose noise
law is a Laplace kernel (:func:`bdpsim.queries.laplace_noisy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.errors import check, naming
from ..kernels.noise.laws import LaplaceNoise, noise_from_params
from ..kernels.noise.traits import LAPLACE
from ..models.common.genetics import GENOTYPES
from ..queries import ClippedSumQuery, CountQuery, StateSumQuery, SumQuery
from .counted import count_query
from .noisy import NoisyQueryMechanism


def _from_epsilon(query, epsilon: float, kind: str) -> NoisyQueryMechanism:
    """``query + Lap(sensitivity / epsilon)``, epsilon checked once (by the law, naming
    ``mechanism.epsilon``) and kept as given."""
    with naming("mechanism"):
        noise = noise_from_params(LAPLACE.name, epsilon=epsilon, sensitivity=float(query.sensitivity))
    return NoisyQueryMechanism(query, noise, kind, stated_epsilon=float(epsilon))


def _from_scale(query, noise_scale: float, kind: str, targets=None) -> NoisyQueryMechanism:
    """``query + Lap(noise_scale)``, the scale checked by the law (naming ``mechanism.noise_scale``)."""
    with naming("mechanism", {"scale": "mechanism.noise_scale"}):
        noise = LaplaceNoise(noise_scale)
    return NoisyQueryMechanism(query, noise, kind, targets)


def LaplaceCount(
    epsilon: float, counted_states: Sequence[int | str] = (1,), *, model: Any = None
) -> NoisyQueryMechanism:
    """``#{j : X_j in counted_states} + Lap(1/eps)``; sensitivity 1 (eps-DP).

    Parameters
    ----------
    epsilon : float
        The DP parameter (> 0): the noise is ``Lap(1/epsilon)``.
    counted_states : sequence of int or str
        The states the query counts (default state 1): indices ``0, 1, ...``, or genotype names
        (``"BB"``, ``"Bb"``, ``"bb"``), or with ``model`` the model's own state names (a Bayesian
        network's, ``("high",)``).
    model : data model, optional
        The model the count runs on: its state names are read and the states checked against it
        as ``bdpsim run`` reads ``[mechanism] counted_states``
        (:func:`bdpsim.mechanisms.counted.count_query`; on a network whose records number a name
        differently, a per-record count).

    Returns
    -------
    NoisyQueryMechanism
        A :class:`~bdpsim.queries.CountQuery` plus :class:`~bdpsim.kernels.noise.laws.LaplaceNoise`.
    """
    if model is None and not isinstance(counted_states, str):
        names = [v for v in counted_states if isinstance(v, str) and v not in GENOTYPES]
        check(
            not names,
            "counted_states",
            list(counted_states),
            f"state names like {names[0]!r} are the model's: pass it, LaplaceCount(epsilon, "
            f"counted_states={tuple(counted_states)!r}, model=network) (without one, states are "
            "indices 0, 1, ... or genotypes BB, Bb, bb)"
            if names
            else "",
        )
    if model is not None or any(isinstance(v, str) for v in counted_states):
        query = count_query(counted_states, model, "counted_states")
    else:
        query = CountQuery(counted_states)  # type: ignore[arg-type]
    return _from_epsilon(query, epsilon, "count")


def ClippedSum(epsilon: float, clip: tuple[float, float] = (0.0, 10.0)) -> NoisyQueryMechanism:
    """``sum_j clip(X_j, a, b) + Lap((b - a)/eps)``: eps-DP and (eps/(b-a))-l1-metric private.

    Parameters
    ----------
    epsilon : float
        The DP parameter (> 0).
    clip : (float, float)
        The range ``[a, b]`` each record is clipped to (``a < b``).

    Returns
    -------
    NoisyQueryMechanism
        A :class:`~bdpsim.queries.ClippedSumQuery` plus Laplace noise of scale ``(b - a) / eps``.
    """
    return _from_epsilon(ClippedSumQuery(clip), epsilon, "clipped_sum")


def LaplaceSum(noise_scale: float, target_values: tuple[float, float] = (0.0, 10.0)) -> NoisyQueryMechanism:
    """Unclipped ``sum_j X_j + Lap(beta)``: (1/beta)-l1-metric private, not DP (thesis Fig. 10).

    Parameters
    ----------
    noise_scale : float
        ``beta`` (> 0).
    target_values : (float, float)
        The fixed pair ``(x, x')`` every adversary distinguishes.

    Returns
    -------
    NoisyQueryMechanism
        A :class:`~bdpsim.queries.SumQuery` plus Laplace noise, its ``targets`` the pair.
    """
    return _from_scale(SumQuery(), noise_scale, "sum", target_values)


def LaplaceStateSum(
    state_values: Sequence[float], epsilon: float | None = None, noise_scale: float | None = None
) -> NoisyQueryMechanism:
    """``sum_t f(X_t) + Lap(b)`` on a model with discrete states: ``f = state_values`` per state.

    Parameters
    ----------
    state_values : sequence of float
        ``f``, one value per state (not all equal); sensitivity ``max f - min f``.
    epsilon : float, optional
        The DP parameter: ``b = sensitivity / epsilon``.
    noise_scale : float, optional
        ``b`` itself (then the mechanism is ``(sensitivity / b)``-DP); exactly one of the two.

    Returns
    -------
    NoisyQueryMechanism
        A :class:`~bdpsim.queries.StateSumQuery` plus Laplace noise.
    """
    query = StateSumQuery(state_values)  # type: ignore[arg-type]  # checked there
    check(
        (epsilon is None) != (noise_scale is None),
        "mechanism.epsilon",
        epsilon,
        "a state sum takes exactly one of epsilon (eps-DP) or noise_scale",
    )
    if epsilon is not None:
        return _from_epsilon(query, epsilon, "sum")
    return _from_scale(query, noise_scale, "sum")  # type: ignore[arg-type]  # not None (checked)


__all__ = ["ClippedSum", "LaplaceCount", "LaplaceStateSum", "LaplaceSum"]
