"""Gaussian models: the multivariate normal law, the Sigma_rho class, its kind and exact engine."""

from __future__ import annotations

from .model import (  # noqa: F401  (re-exported: the module this package replaces; documented there)
    GaussianClass,
    GaussianConditional,
    GaussianModel,
    block_size,
    limited_covariance,
    max_correlation,
)
