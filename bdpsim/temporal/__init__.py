"""Leakage of a time series released step by step (continual release).

:mod:`.cao` and :mod:`.lfp` port Cao et al.'s temporal privacy leakage (TPL; MATLAB code
``yangcao888/TPL``): the incremental leakage L(α) by LP and by TKDE Theorem 4, the BPL/FPL/TPL
timelines, the Theorem 10 suprema and the two budget allocations. They are upper bounds of the
exact leakage.

The public names of :mod:`.cao` and :mod:`.lfp` are this package's too, loaded on first use:
:mod:`.releases` (what a step may release, read by the command line) imports no NumPy.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import Any

#: the modules whose public names (their ``__all__``) this package hands out
_MODULES = (".cao", ".lfp")


def __getattr__(name: str) -> Any:
    if find_spec(f"{__name__}.{name}") is not None:  # a module of the package: ``from . import x``
        raise AttributeError(name)  # imports it
    for module in _MODULES:
        found = import_module(module, __name__)
        if name in found.__all__:
            return vars(found)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
