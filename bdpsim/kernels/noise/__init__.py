"""Noise laws of an additive mechanism and their exact kernels."""

from __future__ import annotations

from .laws import (  # noqa: F401  (re-exported: the module this package replaces; documented there)
    NOISE_LAWS,
    GaussianNoise,
    GeometricNoise,
    LaplaceNoise,
    MixtureSup,
    NoiseLaw,
    ParameterError,
    StaircaseNoise,
    TableNoise,
    grid_delta_pair,
    noise_from_params,
    noise_keys,
    register_noise_law,
    table_from_params,
)
