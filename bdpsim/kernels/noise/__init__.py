"""Noise laws of an additive mechanism and their exact kernels.

The names below are :mod:`bdpsim.kernels.noise.laws`'s (documented there), loaded on first use:
importing :mod:`bdpsim.kernels.noise.traits` (what each law can do) needs no NumPy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the re-exported names, for the type checker
    from .laws import (  # noqa: F401
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

_FROM_LAWS = (
    "NOISE_LAWS",
    "GaussianNoise",
    "GeometricNoise",
    "LaplaceNoise",
    "MixtureSup",
    "NoiseLaw",
    "ParameterError",
    "StaircaseNoise",
    "TableNoise",
    "grid_delta_pair",
    "noise_from_params",
    "noise_keys",
    "register_noise_law",
    "table_from_params",
)


def __getattr__(name: str) -> Any:
    if name in _FROM_LAWS:
        return vars(import_module(".laws", __name__))[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_FROM_LAWS)
