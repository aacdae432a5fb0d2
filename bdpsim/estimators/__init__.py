"""BDPL estimators: ``kde`` (the thesis'), ``mixture`` (Rao–Blackwellised) and ``exact``.

:data:`ESTIMATORS` is the registry: each class has ``from_settings(RunSettings)``,
``supports(model, mechanism) -> None | reason``, ``estimate`` and ``null_estimate``.
"""

from .base import Estimate, Estimator
from .engines import EXACT_ENGINES, ExactEstimator, adversary_bdpl, engine_for, unavailable_reason
from .exact import ExactEngine
from .kde import KDE_BACKENDS, KdeEstimator
from ..kernels.laplace_mixture import MixtureSup, grid_mixture_sup, mixture_sup
from .mixture import MixtureEstimator

ESTIMATORS: dict[str, type] = {"kde": KdeEstimator, "mixture": MixtureEstimator, "exact": ExactEstimator}


def make_estimator(settings) -> Estimator:
    """The estimator a :class:`~bdpsim.settings.RunSettings` asks for."""
    return ESTIMATORS[settings.estimator].from_settings(settings)


__all__ = ["ESTIMATORS", "EXACT_ENGINES", "KDE_BACKENDS", "Estimate", "Estimator", "ExactEngine",
           "ExactEstimator", "KdeEstimator", "MixtureEstimator", "MixtureSup", "adversary_bdpl",
           "engine_for", "grid_mixture_sup", "make_estimator", "mixture_sup", "unavailable_reason"]
