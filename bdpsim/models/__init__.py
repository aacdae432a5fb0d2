"""Data models: correlated record distributions with exact conditional sampling.

:data:`MODEL_KINDS` is the registry the config loader reads: adding a data model means one new
module (the model, its config keys and its builder) and one entry here.
"""

from . import gaussian, markov, pedigree
from .base import DataModel, ModelKind, ModelSpec
from .gaussian import GaussianClass, GaussianModel, limited_covariance
from .pedigree import PedigreeModel
from .markov import MarkovChainModel, gamma_of, omega_of, symmetric_chain, transition_matrix

MODEL_KINDS: dict[str, ModelKind] = {k.name: k for k in (markov.KIND, gaussian.KIND, pedigree.KIND)}

__all__ = ["MODEL_KINDS", "DataModel", "GaussianClass", "GaussianModel", "MarkovChainModel",
           "ModelKind", "ModelSpec", "PedigreeModel", "gamma_of", "limited_covariance", "omega_of", "symmetric_chain",
           "transition_matrix"]
