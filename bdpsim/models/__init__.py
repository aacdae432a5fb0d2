"""Data models: correlated record distributions with exact conditional sampling.

:data:`MODEL_KINDS` is the registry the config loader reads: a new data model is one module with
its model and a :class:`ModelKind` (config keys, builder, bounds, cost, adversaries, exact
engines) and one :func:`register_model_kind` call.
"""

# registration order (markov, gaussian, pedigree) is the order of the [model] keys in sweeps
from . import markov_kind as _markov_kind  # noqa: F401, I001
from . import gaussian_kind as _gaussian_kind  # noqa: F401
from . import pedigree_kind as _pedigree_kind  # noqa: F401
from . import bayesnet_kind as _bayesnet_kind  # noqa: F401
from . import mrf as _mrf  # noqa: F401
from ..kernels.chains import gamma_of, omega_of, symmetric_chain, transition_matrix
from .bayesnet import BayesNetModel
from .base import (MODEL_KINDS, DataModel, DiscreteModel, ExactEngine, ExhaustiveResult, ModelKind, ModelSpec,
                   SampleCost, register_model_kind)
from .gaussian import GaussianClass, GaussianModel, limited_covariance
from .markov import MarkovChainModel
from .pedigree import PedigreeModel

__all__ = ["BayesNetModel", "MODEL_KINDS", "DataModel", "DiscreteModel", "ExactEngine", "ExhaustiveResult", "GaussianClass",
           "GaussianModel", "MarkovChainModel", "ModelKind", "ModelSpec", "PedigreeModel", "SampleCost", "gamma_of",
           "limited_covariance", "omega_of", "register_model_kind", "symmetric_chain", "transition_matrix"]
