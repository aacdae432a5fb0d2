"""BDPL estimators: ``kde`` (the thesis'), ``mixture`` (Rao–Blackwellised) and ``exact``."""

from .base import Estimate, Estimator
from .exact import ExactEstimator, adversary_bdpl, unavailable_reason
from .kde import KDE_BACKENDS, KdeEstimator
from .laplace_mixture import MixtureSup, grid_mixture_sup, mixture_sup
from .mixture import MixtureEstimator

ESTIMATORS = ("kde", "mixture", "exact")

__all__ = ["ESTIMATORS", "KDE_BACKENDS", "Estimate", "Estimator", "ExactEstimator",
           "KdeEstimator", "MixtureEstimator", "MixtureSup", "adversary_bdpl",
           "grid_mixture_sup", "mixture_sup", "unavailable_reason"]
