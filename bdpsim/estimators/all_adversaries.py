"""The BDPL over *every* adversary beside a sampled run's numbers, where it is cheap.

A sampled run's ``bdpl_exact`` is the largest exact value among the *sampled* adversaries: a
lower bound on the BDPL, reached only when the sample happens to hold a worst adversary. Where
the point's exact engine has a chain's window search (a Markov chain with an additive query,
:mod:`bdpsim.models.markov.window`: seconds at any ``n``), the supremum over every adversary is
written beside it as ``bdpl_all_adversaries``; elsewhere that column is empty (a network's region
search or an enumeration may take hours, which a sampled run did not ask for).
"""

from __future__ import annotations

import math

import numpy as np

from ..adversary import is_upward_closed
from ..core.columns import Column, register_columns
from ..core.errors import NotAvailable
from ..models.engines import HasWindowPlan, HasWindowSearch

ALL_ADVERSARIES = "bdpl_all_adversaries"
register_columns(
    "summary",
    Column(
        ALL_ADVERSARIES,
        float,
        "sampled runs of a chain with a window search: the exact BDPL over every "
        "adversary (i, K, x_K, x, x') with |K| in known_sizes, sup ln p(s | x_K, x) / "
        "p(s | x_K, x'), beside bdpl_exact, the max over the sampled ones only (empty "
        "for adversaries = 'all', where bdpl_exact is this value, and where the search "
        "is not cheap)",
    ),
)


def all_adversaries_cheap(point) -> bool:
    """Whether ``point`` samples its adversaries and its exact engine gives the supremum over all of
    them by a single window search (one fixed model, known-set sizes ``{k..n-1}``, within the
    engine's window limit).

    Parameters
    ----------
    point : ExperimentPoint
        A configuration point.

    Returns
    -------
    bool
        True when :func:`all_adversaries_bdpl` computes a value for it.
    """
    if point.settings.exhaustive or point.model.fixed is None:
        return False
    try:
        eng = point.exact_engine
    except NotAvailable:
        return False
    if not isinstance(eng, HasWindowSearch) or isinstance(eng, HasWindowPlan):
        return False
    sizes = point.sizes
    if not is_upward_closed(sizes, point.model.n):
        return False
    try:
        eng.check_window(sizes[0])
    except NotAvailable:
        return False
    return True


def all_adversaries_bdpl(point) -> float:
    """``BDPL = sup_{K,i} sup_{x, x', x_K, s} ln p(s | x_K, x) / p(s | x_K, x')`` over every
    adversary of ``point`` (thesis §3.1; the window reduction of the chain's exact engine, as
    :func:`bdpsim.exact_bdpl` without an adversary), or ``nan`` when that search is not cheap
    (:func:`all_adversaries_cheap`).

    Parameters
    ----------
    point : ExperimentPoint
        A configuration point.

    Returns
    -------
    float
        The BDPL over every adversary with ``|K|`` in the point's ``known_sizes``, or ``nan``.
    """
    if not all_adversaries_cheap(point):
        return math.nan
    eng = point.exact_engine
    assert isinstance(eng, HasWindowSearch)  # checked by all_adversaries_cheap (for the type checker)
    _, _, values = eng.window(point.sizes[0], 1)  # the cells' values: their max is the
    return float(np.max(values))  # supremum (as an all-adversary run's bdpl_max; a histogram's has no search)
