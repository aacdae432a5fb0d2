"""Noise laws of an additive mechanism and their exact kernels.

The public names of :mod:`bdpsim.kernels.noise.laws` (documented there) are this package's too,
loaded on first use: importing :mod:`bdpsim.kernels.noise.traits` (what each law can do) needs no
NumPy.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import Any


def __getattr__(name: str) -> Any:
    if find_spec(f"{__name__}.{name}") is not None:  # a module of the package: ``from . import x``
        raise AttributeError(name)  # imports it (asking .laws first would import it half-way)
    laws = import_module(".laws", __name__)
    if name in laws.__all__:
        return vars(laws)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
