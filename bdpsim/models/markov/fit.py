"""A Markov chain fitted to a user's time series (paper §7.1.2, as the utility experiment fits the
activity and electricity data): the maximum-likelihood transition matrix of the observed
transitions, ``P[a, b] = N(a -> b) / N(a -> .)``, where a missing reading breaks the chain instead
of being bridged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.errors import ConfigError, check
from .model import MarkovChainModel


def transition_counts(segments: Sequence[np.ndarray], states: int = 2) -> np.ndarray:
    """Counts ``C[a, b]`` of the transitions ``x_t -> x_{t+1}`` within each segment, both readings
    present (a NaN entry breaks a segment: no transition into or out of it is counted).

    Parameters
    ----------
    segments : sequence of array_like
        Each a run of consecutive readings, states ``0..states-1`` as numbers, NaN where missing.
    states : int
        The number of states ``k``.

    Returns
    -------
    ndarray, shape (k, k)
        The transition counts.
    """
    C = np.zeros((states, states))
    for seg in segments:
        seg = np.asarray(seg, float)
        ok = np.isfinite(seg[:-1]) & np.isfinite(seg[1:])
        a, b = seg[:-1][ok].astype(int), seg[1:][ok].astype(int)
        np.add.at(C, (a, b), 1)
    return C


def _reading(value: Any) -> float:
    """One reading as a float, NaN for a missing one (``None``, NaN, pandas' ``NA``)."""
    if value is None:
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        if str(value) in ("<NA>", "NA", "nan", "NaT"):  # pandas' NA (float(pd.NA) raises TypeError)
            return math.nan
        raise ConfigError(
            "series", value, "readings must be state numbers 0..k-1, or missing (NaN)"
        ) from None


def _run(values: Any) -> np.ndarray:
    """One run of readings as a 1-D float array, NaN where missing."""
    try:
        return np.asarray(values, dtype=float).ravel()  # numbers, None (NaN), NaN
    except (TypeError, ValueError):  # pandas' NA, or something that is no reading
        return np.array([_reading(v) for v in np.ravel(np.asarray(values, dtype=object))], dtype=float)


def _segments(series: Any) -> list[np.ndarray]:
    """``series`` as a list of 1-D float arrays: one series, the rows of a 2-D array, or a sequence
    of series."""
    if isinstance(series, np.ndarray) and series.ndim == 2:
        return [_run(row) for row in series]
    items = list(series)
    nested = bool(items) and all(
        isinstance(s, (Sequence, np.ndarray)) and not isinstance(s, (str, bytes)) for s in items
    )
    return [_run(run) for run in (items if nested else [items])]


def fit_chain(
    series: Any,
    *,
    states: int | None = None,
    n: int | None = None,
    initial: Any = None,
) -> MarkovChainModel:
    """A :class:`~bdpsim.models.markov.model.MarkovChainModel` fitted to a time series: the
    maximum-likelihood transition matrix ``P[a, b] = N(a -> b) / N(a -> .)`` of the transitions
    between consecutive readings that are both present (:func:`transition_counts`), the records
    ``n`` the readings present.

    Parameters
    ----------
    series : array_like or sequence of array_like
        The state ``0..k-1`` of each reading, in time order (threshold a measurement first: e.g.
        ``steps > 0`` for active). A missing reading is NaN, ``None`` or pandas' ``NA``: it breaks
        the chain (no transition into or out of it is counted). Several runs (one per day, or a
        2-D array with one run per row) are fitted together, with no transition counted from one
        run to the next.
    states : int, optional
        The number of states ``k`` (default: 1 + the largest state observed).
    n : int, optional
        The fitted model's number of records (default: the readings present, missing ones
        dropped, as paper §7.1.2 counts the activity data's).
    initial : array_like, optional
        The chain's initial law (default: the fitted matrix's stationary law).

    Returns
    -------
    MarkovChainModel
        The fitted chain; its ``transition`` is the estimate.

    Raises
    ------
    ConfigError
        Naming ``series``, ``states`` or ``n``: a reading that is not a state, no two consecutive
        readings present, or a state never left in the data (its row of ``P`` is unknown).
    """
    runs = _segments(series)
    present = np.concatenate(runs) if runs else np.zeros(0)
    present = present[np.isfinite(present)]
    bad = present[(present < 0) | (present != np.round(present))]
    check(
        bad.size == 0, "series", float(bad[0]) if bad.size else None, "readings must be state numbers 0..k-1"
    )
    top = int(present.max()) + 1 if present.size else 0
    if states is None:
        states = max(top, 2)
    check(
        isinstance(states, int) and not isinstance(states, bool) and states >= 2,
        "states",
        states,
        "must be an integer >= 2",
    )
    check(top <= states, "series", float(top - 1), f"a state past states - 1 = {states - 1}")
    counts = transition_counts(runs, states)
    check(counts.sum() > 0, "series", f"{present.size} readings", "needs two consecutive readings present")
    out = counts.sum(axis=1)
    never = [a for a in range(states) if out[a] == 0]
    check(
        not never,
        "series",
        f"state {never[0] if never else ''}",
        "is never left in the data (no observed transition out of it): its row of the transition "
        "matrix is unknown; drop the state or give more data",
    )
    n = int(present.size) if n is None else n
    check(isinstance(n, int) and not isinstance(n, bool) and n >= 1, "n", n, "must be an integer >= 1")
    return MarkovChainModel(counts / out[:, None], n, initial)


__all__ = ["fit_chain", "transition_counts"]
