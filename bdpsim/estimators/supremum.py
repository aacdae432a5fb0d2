"""The exact BDPL of a model and mechanism: of one adversary, or the supremum over every adversary
(the exact engine's window search where the known sizes allow it, else its enumeration).

:func:`exact_bdpl` is public as ``bdpsim.exact_bdpl``; the studies and the API call it from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..adversary import Adversary, is_upward_closed, known_sizes
from ..core.errors import ConfigError, NotAvailable
from ..models.engines import HasExhaustive, HasWindowSearch, SearchTooLarge
from .exact import adversary_bdpl, engine_for


@dataclass(frozen=True)
class ExactResult:
    """The exact BDPL ``sup`` over the examined adversaries and the adversary attaining it;
    ``adversaries`` counts the adversaries (or, for the window search, the window classes) examined."""

    bdpl: float
    adversary: Adversary
    adversaries: int


def exact_bdpl(
    model, mechanism, adversary: Adversary | None = None, *, sizes: str | tuple[int, ...] = "all"
) -> ExactResult:
    """Exact BDPL of ``mechanism`` on ``model``: of one ``adversary``, or the supremum over every
    adversary ``(i, K, x_K, x, x')`` with ``|K|`` in ``sizes`` (``"all"``: 0..n-1).

    ``BDPL = sup_{K,i} sup_{x, x', x_K, s} ln p(s | x_K, x) / p(s | x_K, x')`` (thesis §3.1,
    paper §3); the engine is the model kind's for the pair (:func:`bdpsim.estimators.engine_for`).

    Parameters
    ----------
    model : DataModel
        E.g. ``MarkovChainModel(P, n)`` or ``GaussianModel(mu, cov)``.
    mechanism : Mechanism
        E.g. ``LaplaceCount(epsilon)``.
    adversary : Adversary, optional
        One adversary ``(i, K, x_K, x, x')``; omitted: the supremum over all of them.
    sizes : "all" or tuple of int, optional
        Sizes ``|K|`` searched when ``adversary`` is omitted (``"all"``: 0..n-1).

    Returns
    -------
    ExactResult
        ``bdpl``, the adversary attaining it, and how many were examined.

    Raises
    ------
    NotAvailable
        When the pair has no exact engine (or no exhaustive search).
    ConfigError
        When the search over every adversary exceeds its engine's up-front estimate (field
        ``sizes``; e.g. a Bayesian network of thousands of regions), before any work.
    """
    if adversary is not None:
        return ExactResult(adversary_bdpl(model, mechanism, adversary).value, adversary, 1)
    eng = engine_for(model, mechanism)
    ks = known_sizes(sizes, model.n)
    if isinstance(eng, HasWindowSearch) and is_upward_closed(ks, model.n):
        try:  # the engine's up-front estimate, before any work (a network too large: one line)
            eng.check_window(ks[0])
        except SearchTooLarge as err:
            raise ConfigError("sizes", sizes, err.reason) from None
        search, advs, values = eng.window(ks[0], 1)  # a histogram's window search has no search object
        return ExactResult(
            search.bdpl if search is not None else float(values.max()), advs[0].adversary(), int(values.size)
        )
    if not isinstance(eng, HasExhaustive):
        raise NotAvailable(f"no exhaustive search for {model.kind}+{mechanism.kind}")
    try:
        eng.check_exhaustive(ks)
    except SearchTooLarge as err:
        raise ConfigError("sizes", sizes, err.reason) from None
    res = eng.exhaustive(ks, None)
    j = res.best
    return ExactResult(float(res.value[j]), res.adversary(j), len(res))
