"""Data models: correlated record distributions with exact conditional sampling.

:data:`MODEL_KINDS` is the registry the config loader reads: a new data model is one module with
its model and a :class:`ModelKind` (config keys, builder, bounds, cost, adversaries, exact
engines) and one :func:`register_model_kind` call.
"""

# registration order (markov, gaussian, pedigree) is the order of the [model] keys in sweeps
from .markov import kind as _markov_kind  # noqa: F401, I001
from .gaussian import kind as _gaussian_kind  # noqa: F401
from .pedigree import kind as _pedigree_kind  # noqa: F401
from .bayesnet import kind as _bayesnet_kind  # noqa: F401
from . import mrf as _mrf  # noqa: F401
from ..kernels.chains.transition import gamma_of, omega_of, symmetric_chain, transition_matrix
from .bayesnet.model import BayesNetModel
from .base import MODEL_KINDS, DataModel, DiscreteModel, ModelKind, ModelSpec, SampleCost, register_model_kind
from .engines import ExactEngine, ExhaustiveResult
from .gaussian.model import GaussianClass, GaussianModel, limited_covariance
from .markov.model import MarkovChainModel
from .pedigree.model import PedigreeModel

__all__ = [
    "BayesNetModel",
    "MODEL_KINDS",
    "DataModel",
    "DiscreteModel",
    "ExactEngine",
    "ExhaustiveResult",
    "GaussianClass",
    "GaussianModel",
    "MarkovChainModel",
    "ModelKind",
    "ModelSpec",
    "PedigreeModel",
    "SampleCost",
    "gamma_of",
    "limited_covariance",
    "omega_of",
    "register_model_kind",
    "symmetric_chain",
    "transition_matrix",
]
