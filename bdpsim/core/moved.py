"""Old import paths of modules that moved to the layer folders, kept for one release.

Importing a module by its old name (``bdpsim.driver``; ``ConfigError`` from ``bdpsim.errors``) still
works: a meta-path
finder hands out the module at its new place under the old name, with a
:class:`DeprecationWarning` naming the new path. The same module object serves both names, so
classes and registries are shared. :data:`MOVES` is also the table
``tests/architecture/test_layout.py`` checks every reference against. Planned removal: the release
after 0.3.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: old dotted name -> new dotted name (a package moves with everything inside it)
MOVES: dict[str, str] = {
    "bdpsim.errors": "bdpsim.core.errors",
    "bdpsim.schema": "bdpsim.core.schema",
    "bdpsim.registry": "bdpsim.core.registry",
    "bdpsim.columns": "bdpsim.core.columns",
    "bdpsim.bundled": "bdpsim.core.bundled",
    "bdpsim.settings": "bdpsim.pipeline.settings",
    "bdpsim.config": "bdpsim.pipeline.config",
    "bdpsim.cost": "bdpsim.pipeline.cost",
    "bdpsim.rows": "bdpsim.pipeline.rows",
    "bdpsim.summarize": "bdpsim.pipeline.summarize",
    "bdpsim.flags": "bdpsim.pipeline.flags",
    "bdpsim.driver": "bdpsim.pipeline.driver",
    "bdpsim.plan": "bdpsim.pipeline.plan",
    "bdpsim.backends": "bdpsim.pipeline.backends",
    "bdpsim.results": "bdpsim.pipeline.results",
    "bdpsim.sampling": "bdpsim.estimators.sampling",
    "bdpsim.figdata": "bdpsim.figures.data",
    "bdpsim.gallery": "bdpsim.figures.gallery",
}


def new_name(old: str) -> str | None:
    """The new dotted name of a moved module (or of a module inside a moved package)."""
    for o, n in MOVES.items():
        if old == o or old.startswith(o + "."):
            return n + old[len(o) :]
    return None


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.target}; the old path goes in the release after 0.3",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """The module ran under its new name already."""


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds a moved module under its old name (first in :data:`sys.meta_path`, so that a module
    inside a moved package is never loaded twice, once under each name)."""

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001 - the finder protocol
        new = new_name(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def install() -> None:
    """Install the finder once (``bdpsim/__init__.py`` calls this)."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
