"""Exact per-adversary BDPL: the model kind's exact engine for a (model, mechanism) pair.

Which pairs have an exact BDPL, and how, is each model kind's
(:meth:`~bdpsim.models.base.ModelKind.exact`); this module asks the right kind and wraps the
answer as an estimator. An engine's ``bdpl`` is two-sided,
``sup_s |ln p(s | x_K, x) / p(s | x_K, x')|`` (both orders of the pair at once); its ``one_sided``
is ``sup_s ln p(s | x_K, x) / p(s | x_K, x')`` for the ordered pair — what the thesis' signed KDE
estimator estimates (thesis §2, Def. 2.11; §3.1.2 step 6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ..adversary import Adversary, Estimate
from ..errors import NotAvailable
from ..models import MODEL_KINDS, ExactEngine
from ..schema import Key
from .base import CostContext, register_estimator


def _kind_of(model):
    kind = MODEL_KINDS.get(getattr(model, "kind", None))
    if kind is None:
        raise NotAvailable(f"model {type(model).__name__}: not of a registered model kind ({list(MODEL_KINDS)})")
    return kind


def exact_engine(model, mechanism) -> ExactEngine | str:
    """The exact engine of a (model, mechanism) pair — possibly one that covers only some
    adversaries (``incomplete``) — or the reason there is none. A mechanism with an engine of its
    own (``mechanism.exact(model)``, e.g. randomized response) answers first; otherwise the model
    kind's engine for "query + noise" mechanisms."""
    own = getattr(mechanism, "exact", None)
    if callable(own):
        return own(model)
    try:
        return _kind_of(model).exact(model, mechanism)
    except NotAvailable as exc:
        return str(exc)


def engine_for(model, mechanism) -> ExactEngine | str:
    """The exact engine for *every* adversary of a (model, mechanism) pair, or the reason there is
    none (read by config validation, the exact estimator, the driver and ``bdpsim validate``)."""
    eng = exact_engine(model, mechanism)
    if isinstance(eng, str):
        return eng + "; use estimator = 'mixture' (query + Laplace) or 'kde'"
    return eng if eng.incomplete is None else eng.incomplete


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
    eng = exact_engine(model, mechanism)
    if isinstance(eng, str):
        raise NotAvailable(eng)
    return eng.bdpl(adversary)


def exact_reference(model, mechanism, adversary: Adversary, signed: bool = False) -> Estimate:
    """Exact ``sup_s ln p(s | x_K, x)/p(s | x_K, x')`` (``signed``) or its two-sided version.

    Raises :class:`~bdpsim.errors.NotAvailable` where no exact value exists.
    """
    eng = exact_engine(model, mechanism)
    if isinstance(eng, str):
        raise NotAvailable(eng)
    if not signed:
        return eng.bdpl(adversary)
    if eng.one_sided is None:
        raise NotAvailable(f"no one-sided exact value for {model.kind}+{mechanism.kind}")
    return eng.one_sided(adversary)


@dataclass(frozen=True)
class ExactEstimator:
    """Exact per-adversary BDPL; noise floor 0 by construction."""

    name: ClassVar[str] = "exact"
    exact: ClassVar[bool] = True
    keys: ClassVar[dict[str, Key]] = {}
    summary_extras: ClassVar[tuple[str, ...]] = ()
    adversary_extras: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_settings(cls, settings) -> "ExactEstimator":
        return cls()

    @staticmethod
    def supports(model, mechanism) -> str | None:
        return unavailable_reason(model, mechanism)

    def estimate(self, model, mechanism, adversary, rng=None) -> Estimate:
        return adversary_bdpl(model, mechanism, adversary)

    def reference(self, model, mechanism, adversary) -> Estimate:
        return adversary_bdpl(model, mechanism, adversary)

    def null_estimate(self, model, mechanism, adversary, rng=None) -> Estimate:
        return Estimate(0.0)

    def cost(self, ctx: CostContext) -> tuple[float, float]:
        return 0.0, 0.0  # the exact values are the point's references (bdpsim.cost)

    def summary(self, stats) -> dict:
        return {"n_samples": math.nan}

    def finish(self, point, stats, rows) -> dict:
        """No configuration-level work: every cell comes from the per-adversary statistics."""
        return {}


register_estimator(ExactEstimator)
