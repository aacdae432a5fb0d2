"""BDPL estimators: ``kde`` (the thesis'), ``mixture`` (Rao–Blackwellised), ``exact`` and ``audit``
(certified lower bounds for black-box mechanisms).

:data:`ESTIMATORS` is the registry: each class owns its ``[run]`` keys and has
``from_settings(RunSettings)``, ``supports(model, mechanism) -> None | reason``, ``estimate``,
``reference``, ``null_estimate``, ``cost`` and ``summary``.
"""

from .. import mechanisms as _mechanisms  # noqa: F401, I001  (their summary columns registered first: their place in summary.csv)
from ..adversary import Estimate
from ..kernels.noise.laplace_mixture import MixtureSup, grid_mixture_sup, mixture_sup
from .audit import AuditEstimator  # noqa: I001  (registered after the thesis' estimators)
from .base import ESTIMATORS, CostContext, Estimator, register_estimator
from .exact import ExactEstimator, adversary_bdpl, engine_for, exact_engine, exact_reference
from .kde import KDE_BACKENDS, KdeEstimator
from .mixture import MixtureEstimator


def make_estimator(settings) -> Estimator:
    """The estimator a :class:`~bdpsim.pipeline.settings.RunSettings` asks for."""
    return ESTIMATORS[settings.estimator].from_settings(settings)


__all__ = [
    "AuditEstimator",
    "ESTIMATORS",
    "KDE_BACKENDS",
    "CostContext",
    "Estimate",
    "Estimator",
    "ExactEstimator",
    "KdeEstimator",
    "MixtureEstimator",
    "MixtureSup",
    "adversary_bdpl",
    "engine_for",
    "exact_engine",
    "exact_reference",
    "grid_mixture_sup",
    "make_estimator",
    "mixture_sup",
    "register_estimator",
]
