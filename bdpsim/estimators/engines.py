"""The exact-engine table: which (model, mechanism) pairs have an exact BDPL, and how.

:data:`EXACT_ENGINES` is the one table config validation, the exact estimator, the driver's
exhaustive searches and ``bdpsim validate`` read. An engine is a row: adding one for a new model
kind is one entry here (its computations live in the model's own module).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..adversary import Adversary
from ..errors import NotAvailable
from .. import genomic
from .base import Estimate
from .exact import (ExactEngine, _clipped_sum, _gaussian_limit, _gaussian_sum, _independent, _markov_count,
                    _markov_limit, _markov_window, exhaustive_gaussian_sum, exhaustive_markov_count)


def engine_for(model, mechanism) -> ExactEngine | str:
    """The exact engine of a (model, mechanism) pair, or the reason there is none."""
    eng = EXACT_ENGINES.get((getattr(model, "kind", None), getattr(mechanism, "kind", None)))
    if eng is None:
        pairs = ", ".join(f"{m}+{k}" for m, k in EXACT_ENGINES)
        return (f"no exact BDPL for model '{getattr(model, 'kind', model)}' with mechanism "
                f"'{getattr(mechanism, 'kind', mechanism)}' (exact engines: {pairs}); use estimator = 'mixture'")
    why = eng.requires(model, mechanism) if eng.requires else None
    return eng if why is None else why


def unavailable_reason(model, mechanism) -> str | None:
    """Why no exact value exists for every adversary of this pair (``None`` when one does)."""
    eng = engine_for(model, mechanism)
    return eng if isinstance(eng, str) else None


def adversary_bdpl(model, mechanism, adversary: Adversary) -> Estimate:
    """Exact ``sup_s |ln p(s | x_K, x) / p(s | x_K, x')|`` for one adversary (raises
    :class:`NotAvailable` where the pair, or this adversary, has no exact value).

    ``p(s | x_K, x) = E_{x_U ~ pi(x_U | x_K, x)} p_M(s | x_K, x, x_U)`` integrates the unknown
    records out under the conditional data law (thesis §3.1, paper §3).

    Parameters
    ----------
    model : DataModel
        E.g. :class:`~bdpsim.models.MarkovChainModel` or :class:`~bdpsim.models.GaussianModel`.
    mechanism : Mechanism
        E.g. :class:`~bdpsim.mechanisms.LaplaceCount`.
    adversary : Adversary
        ``(i, K, x_K, x, x')``.

    Returns
    -------
    Estimate
        ``value`` is the adversary's exact BDPL.
    """
    eng = EXACT_ENGINES.get((getattr(model, "kind", None), getattr(mechanism, "kind", None)))
    if eng is None:
        raise NotAvailable(unavailable_reason(model, mechanism))
    return eng.bdpl(model, mechanism, adversary)


@dataclass(frozen=True)
class ExactEstimator:
    """Exact per-adversary BDPL; noise floor 0 by construction."""

    name: str = field(default="exact", init=False)

    @classmethod
    def from_settings(cls, settings) -> "ExactEstimator":
        return cls()

    @staticmethod
    def supports(model, mechanism) -> str | None:
        return unavailable_reason(model, mechanism)

    def estimate(self, model, mechanism, adversary, rng=None) -> Estimate:
        return adversary_bdpl(model, mechanism, adversary)

    def null_estimate(self, model, mechanism, adversary, rng=None) -> Estimate:
        return Estimate(0.0)




EXACT_ENGINES: dict[tuple[str, str], ExactEngine] = {(e.model, e.mechanism): e for e in (
    ExactEngine("markov", "count", _markov_count,
                "clamped forward recursion over (position, state, count), then the exact sup of two "
                "Laplace mixtures; all adversaries by the window reduction (or enumeration of every K)",
                exhaustive=exhaustive_markov_count, limit=_markov_limit, window=_markov_window),
    ExactEngine("markov", "sum", _markov_count,
                "forward recursion over (position, state, lattice sum of state_values); all adversaries "
                "by the window reduction", window=_markov_window),
    ExactEngine("gaussian", "sum", _gaussian_sum,
                "closed form |a| |x - x'| / beta, a = 1 + 1^T S_UT S_TT^-1 e_i",
                exhaustive=exhaustive_gaussian_sum, limit=_gaussian_limit),
    ExactEngine("gaussian", "clipped_sum", _clipped_sum,
                "tail value |clip(x) - clip(x')| / b when no unknown record depends on the target",
                requires=_independent),
    ExactEngine("pedigree", "count", genomic.exact_estimate,
                "enumeration of the genotypes of people with children, binomial counts of their "
                "children; exhaustive over adversary classes of exchangeable children",
                exhaustive=genomic.exhaustive_for_driver, limit=genomic.exhaustive_limit),
)}
