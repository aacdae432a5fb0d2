"""One registration style for every plug-in type: a :class:`Registry` checks each entry against its
contract (a runtime-checkable :class:`typing.Protocol`, plus the entry's declared name, keys and
domain) when it registers, so an incomplete kind fails at import of its module, not mid-run.

The four plug-in registries are :data:`bdpsim.models.MODEL_KINDS`,
:data:`bdpsim.mechanisms.MECHANISM_KINDS`, :data:`bdpsim.kernels.noise.laws.NOISE_LAWS` and
:data:`bdpsim.estimators.ESTIMATORS` (and the calibration methods,
:data:`bdpsim.calibration.methods.CALIBRATION_METHODS`). A registry is a ``dict`` from name to
entry, so reading it is plain dictionary access.

Plug-ins installed as packages register themselves without a line in bdpsim: a distribution that
declares an entry point in the group :data:`PLUGIN_GROUP` (``bdpsim.plugins``) names a module whose
import registers its kinds; :func:`load_plugins` imports them all, once per process, when the
first config is read (:func:`bdpsim.pipeline.config.parse_config`), so ``bdpsim run`` in a shell
sees them too.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from importlib.metadata import entry_points
from typing import Any

from .errors import ConfigError
from .schema import Key

#: the entry-point group of plug-in modules (``[project.entry-points."bdpsim.plugins"]`` in a
#: plug-in's ``pyproject.toml``: ``copies = "mypackage.copies"``)
PLUGIN_GROUP = "bdpsim.plugins"
_scanned = False  # whether this process has read the installed entry points (read once: ~10 ms)


def _members(protocol: type) -> list[str]:
    """The attributes a protocol declares (methods, properties and annotated data)."""
    names: list[str] = []
    for base in reversed(protocol.__mro__[:-1]):
        if base.__name__ in ("Protocol", "Generic") or not base.__dict__.get("_is_protocol", False):
            continue
        names += [
            n
            for n in (*base.__dict__.get("__annotations__", {}), *base.__dict__)
            if not n.startswith("_") and n not in names
        ]
    return names


def missing_members(obj: Any, protocol: type) -> list[str]:
    """The members of ``protocol`` that ``obj`` lacks (a method set to ``None`` counts as lacking)."""
    out = []
    for name in _members(protocol):
        try:
            value = inspect.getattr_static(obj, name)
        except AttributeError:
            out.append(name)
            continue
        if value is None and callable(inspect.getattr_static(protocol, name, None)):
            out.append(name)
    return out


def _home(entry: Any) -> str:
    """The module that defines an entry (its own, for a class; its class's, for an instance)."""
    return str((entry if inspect.isclass(entry) else type(entry)).__module__)


class Registry(dict):
    """Name -> entry, each entry checked against ``protocol`` when it registers.

    Parameters
    ----------
    what : str
        What an entry is, for messages (``"model kind"``).
    protocol : type
        The runtime-checkable protocol every entry satisfies (for classes registered as kinds,
        the class object itself is checked: its methods and class attributes).
    check : callable, optional
        ``(entry) -> None | reason``: further checks (e.g. a domain among the allowed ones).
    entries : iterable of (name, entry), optional
        Entries to register now.
    """

    def __init__(
        self,
        what: str,
        protocol: type,
        check: Callable[[Any], str | None] | None = None,
        entries: Iterable[tuple[str, Any]] | Mapping[str, Any] = (),
    ):
        super().__init__()
        self.what, self.protocol, self._check = what, protocol, check
        for name, entry in dict(entries).items():
            self.register(entry, name)

    def register(self, entry: Any, name: str | None = None) -> Any:
        """Check ``entry`` against the contract and add it under ``name`` (default: its ``name``);
        a :class:`TypeError` says what is missing, or that another module's entry holds the name
        (registering again from the same module replaces the entry). Returns ``entry`` (usable as
        a decorator)."""
        lacks = missing_members(entry, self.protocol)
        label = name or inspect.getattr_static(entry, "name", entry)
        if lacks:
            raise TypeError(f"{self.what} {label!r} lacks {', '.join(lacks)}")
        key = name if name is not None else entry.name
        if not (isinstance(key, str) and key):
            raise TypeError(f"{self.what} {entry!r}: needs a name (a non-empty string)")
        keys = inspect.getattr_static(entry, "keys", {})
        if not (isinstance(keys, Mapping) and all(isinstance(k, Key) for k in keys.values())):
            raise TypeError(f"{self.what} {key!r}: needs keys (a mapping of str to Key)")
        why = self._check(entry) if self._check is not None else None
        if why:
            raise TypeError(f"{self.what} {key!r}: {why}")
        held = self.get(key)
        if held is not None and _home(held) != _home(entry):  # a plug-in may not shadow another's name
            raise TypeError(
                f"{self.what} {key!r} is registered already (by {_home(held)}); choose another name"
            )
        self[key] = entry
        return entry

    def __reduce__(self):  # a registry pickles as its entries (workers import the kinds anyway)
        return dict, (dict(self),)


def load_plugins() -> list[str]:
    """Import every module installed under the entry-point group :data:`PLUGIN_GROUP`, the first
    time it is called in a process (importing a plug-in module registers its kinds, noise laws,
    estimators or calibration methods); returns the names of the entry points imported now. A
    module that fails to import raises :class:`~bdpsim.core.errors.ConfigError` naming the entry
    point and the cause (and the next call tries again)."""
    global _scanned
    if _scanned:
        return []
    done = []
    for ep in entry_points(group=PLUGIN_GROUP):
        try:
            ep.load()
        except Exception as exc:  # any failure of a third-party import: one line, its cause named
            raise ConfigError(
                f"plugin {ep.name}", ep.value, f"could not be imported ({type(exc).__name__}: {exc})"
            ) from exc
        done.append(ep.name)
    _scanned = True
    return done


__all__ = ["PLUGIN_GROUP", "Registry", "load_plugins", "missing_members"]
