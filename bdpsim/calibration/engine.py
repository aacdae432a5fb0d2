"""The exact engine a calibration searches: the model's own engine of ``query + noise``, asked once
and re-noised for every amount of noise tried.

A calibration asks one question many times — the exact BDPL (or privacy profile) over every
adversary of ``query + Z(a)`` as the amount ``a`` of a noise law varies — and, for the optimal
noise, every law pair that search scores. Both are the engine's (:mod:`bdpsim.models.engines`):
:func:`exact_engine` asks for the model's engine of the query plus a noise law once (the engine
over every adversary, as :func:`~bdpsim.models.engines.engine_for`), and the calibration then
calls ``engine.with_noise(law).search(score, min_known)``
(:class:`~bdpsim.models.engines.HasNoiseLaw`, :class:`~bdpsim.models.engines.HasSearch`: no
model work is repeated) and ``engine.law_pairs``.
Nothing here knows a model kind: a chain (window reduction), a pedigree (adversary classes), a
Bayesian network or Markov random field (separated regions) and a kind added from outside the
package (its engine's enumeration) are calibrated alike. The up-front cost of a search is the
engine's (:class:`~bdpsim.models.engines.HasSearchCost`, ``nan`` when it has no estimate), and
so is its refusal (:class:`~bdpsim.models.engines.SearchTooLarge`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.errors import ConfigError, NotAvailable
from ..kernels.noise.laws import LaplaceNoise
from ..models.engines import (
    HasNoiseLaw,
    HasSearch,
    HasSearchCost,
    HasSearchOptions,
    SearchCost,
    SearchTooLarge,
    build_engine,
    complete_engine,
)
from ..queries import AdditiveQuery, CountQuery, StateSumQuery

#: options of every engine's search; others are the engine's own (:class:`HasSearchOptions`)
SEARCH_KEYS = ("min_known", "targets")


def additive_query(values) -> AdditiveQuery:
    """The additive query with per-state ``values``: a count of the states valued 1 when the values
    are 0 and 1 (both present), else the sum of the values (the same per-state values either way:
    a model whose engine takes counts only, a pedigree, gets a count)."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 1:  # a table per record: the values do not say which query it is
        raise ConfigError(
            "counted_states",
            f"a table of {v.shape[0]} records",
            "a count whose states differ between records (state names at different indices) is "
            "calibrated to eps-BDP with the query itself (bdpsim.calibrate, calibrate config), not "
            "from per-record values",
        )
    if v.ndim == 1 and bool(np.all((v == 0) | (v == 1))) and v.any() and not v.all():
        return CountQuery(tuple(int(s) for s in np.flatnonzero(v == 1)))
    return StateSumQuery(tuple(float(x) for x in v))


def _refusal(model, query, why: str) -> ConfigError:
    """An engine's refusal as the argument that causes it: the state values a model's engine does
    not take (a pedigree counts genotypes), else the model."""
    if isinstance(query, StateSumQuery):
        return ConfigError("state_values", list(query.state_values), why)
    return ConfigError("model", type(model).__name__, why)


def exact_engine(model, query: AdditiveQuery, noise: Any = None, search: dict | None = None):
    """The exact engine of ``query + noise`` on ``model`` (``noise`` default ``Lap(1)``: a
    calibration re-noises it) for every adversary, with the search options ``search`` other than
    :data:`SEARCH_KEYS` (the engine's own, :class:`~bdpsim.models.engines.HasSearchOptions`).

    Raises
    ------
    ConfigError
        The model has no exact engine searching every adversary of this query (field ``model``, or
        ``state_values`` for a sum its engine does not take), an option its search does not take
        (``search``).
    """
    from ..mechanisms.noisy import NoisyQueryMechanism

    law = LaplaceNoise(1.0) if noise is None else noise
    kind = "count" if isinstance(query, CountQuery) else "sum"
    found = build_engine(model, NoisyQueryMechanism(query, law, kind))
    if isinstance(found, NotAvailable):  # the reason without the run's advice on estimators
        raise _refusal(model, query, f"has no exact engine over every adversary: {found}")
    try:
        engine = complete_engine(found)
    except NotAvailable as exc:
        raise _refusal(model, query, f"its exact engine covers only some adversaries: {exc}") from None
    if not (isinstance(engine, HasSearch) and isinstance(engine, HasNoiseLaw)):
        raise _refusal(
            model,
            query,
            f"its exact engine ({type(engine).__name__}) has no search over every adversary with "
            "another amount of noise (bdpsim.models.engines.HasSearch, HasNoiseLaw)",
        )
    own = {k: v for k, v in (search or {}).items() if k not in SEARCH_KEYS}
    if own:
        if not isinstance(engine, HasSearchOptions):
            raise ConfigError(
                "search",
                sorted(search or {}),
                f"the exact search of a {type(model).__name__} takes only {' and '.join(SEARCH_KEYS)}",
            )
        engine = engine.with_search_options(**own)
    return engine


def check_search(engine, model, min_known: int) -> None:
    """The engine's own refusal of a search too large to finish, before any work, as a
    :class:`~bdpsim.core.errors.ConfigError` naming the model."""
    try:
        engine.check_search(int(min_known))
    except SearchTooLarge as exc:
        raise ConfigError("model", f"{model.n} records", exc.reason) from None


def search_cost(engine, min_known: int) -> SearchCost:
    """The engine's up-front estimate of one search (``nan`` seconds: it gives none)."""
    if isinstance(engine, HasSearchCost):
        return engine.search_cost(int(min_known))
    return SearchCost(math.nan, f"{type(engine).__name__} gives no estimate")


def searched(engine, noise, score, min_known: int = 0, targets=None) -> tuple[float, float]:
    """``(value, tolerance)``: the supremum of ``score`` (one component) over every adversary of
    the engine re-noised with ``noise``, and the search's truncation tolerance."""
    found = engine.with_noise(noise).search(score, int(min_known), 1, targets)
    return float(found.value[0]), float(found.tolerance)


__all__ = ["SEARCH_KEYS", "additive_query", "check_search", "exact_engine", "search_cost", "searched"]
