"""Noise laws of an additive mechanism and their exact kernels."""

from __future__ import annotations

from .laws import NoiseLaw, LaplaceNoise, GeometricNoise, StaircaseNoise, GaussianNoise, TableNoise, NOISE_LAWS, noise_from_params, noise_keys, register_noise_law, table_from_params, grid_delta_pair, ParameterError, MixtureSup  # noqa: F401  (re-exported: the module this package replaces; documented there)

