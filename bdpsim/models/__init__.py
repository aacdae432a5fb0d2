"""Data models: correlated record distributions with exact conditional sampling."""

from .gaussian import GaussianModel, limited_covariance
from .markov import MarkovChainModel

__all__ = ["GaussianModel", "MarkovChainModel", "limited_covariance"]
