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
sees them too. A plug-in that fails to import is skipped with one warning naming it (the other
plug-ins and every built-in kind still work), and a name bdpsim registers itself (a built-in kind)
cannot be taken by a plug-in.
"""

from __future__ import annotations

import inspect
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from importlib.metadata import entry_points
from typing import Any

from .schema import Key
from .warn import warn_user

#: the entry-point group of plug-in modules (``[project.entry-points."bdpsim.plugins"]`` in a
#: plug-in's ``pyproject.toml``: ``copies = "mypackage.copies"``)
PLUGIN_GROUP = "bdpsim.plugins"
_scanned = False  # whether this process has read the installed entry points (read once: ~10 ms)
#: entry point -> why it was skipped (``"copies (mypackage.copies): ModuleNotFoundError: ..."``)
_skipped: dict[str, str] = {}


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


def _builtin(module: str) -> bool:
    """Whether ``module`` is one of bdpsim's own modules."""
    return module == "bdpsim" or module.startswith("bdpsim.")


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
        self._by: dict[str, str] = {}  # name -> the module that registered it
        for name, entry in dict(entries).items():
            self.register(entry, name, stacklevel=2)

    def register(self, entry: Any, name: str | None = None, *, stacklevel: int = 1) -> Any:
        """Check ``entry`` against the contract and add it under ``name`` (default: its ``name``);
        a :class:`TypeError` says what is missing, or that the name is taken: by bdpsim itself (a
        built-in kind, which no other module may replace, whatever class its entry has) or by
        another module's entry (registering again from the same module replaces the entry).
        Returns ``entry`` (usable as a decorator).

        ``stacklevel`` (as in ``warnings.warn``): which caller registers, 1 for the caller of
        this method, 2 for its caller (a ``register_*`` function passes 2)."""
        by = str(sys._getframe(stacklevel).f_globals.get("__name__", "?"))
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
        if held is not None and held is not entry:
            held_by = self._by.get(key, _home(held))
            if _builtin(held_by) and by != held_by:  # a built-in: no plug-in replaces it
                raise TypeError(
                    f"{self.what} {key!r} is built into bdpsim ({held_by}); a plug-in ({by}) "
                    "cannot replace it: choose another name"
                )
            if _home(held) != _home(entry):  # a plug-in may not shadow another's name
                raise TypeError(
                    f"{self.what} {key!r} is registered already (by {_home(held)}); choose another name"
                )
        self[key] = entry
        self._by[key] = by
        return entry

    def __reduce__(self):  # a registry pickles as its entries (workers import the kinds anyway)
        return dict, (dict(self),)


@contextmanager
def _sigint_seen() -> Iterator[list[int]]:
    """Record whether a real Ctrl-C (SIGINT) arrives while the block runs (the list gets its
    signal number), so that a ``KeyboardInterrupt`` a plug-in raises itself at import is told
    apart from the user's. The interrupt behaves as before: the previous handler runs. Outside the
    main thread, or with SIGINT ignored, nothing is installed (and every interrupt counts as the
    user's)."""
    seen: list[int] = []
    try:
        previous = signal.getsignal(signal.SIGINT)
    except ValueError:  # pragma: no cover - no signals here
        previous = None
    if not callable(previous):  # SIG_IGN, SIG_DFL or unknown: leave it alone
        yield [signal.SIGINT]
        return

    def handler(signum, frame):
        seen.append(signum)
        previous(signum, frame)

    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        yield [signal.SIGINT]
        return
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous)


def _one_line(exc: BaseException) -> str:
    """``Type: message`` on one line (a ``SystemExit``: the exit call and its code)."""
    if isinstance(exc, SystemExit):
        return f"called exit({exc.code!r}) at import"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load_plugins() -> list[str]:
    """Import every module installed under the entry-point group :data:`PLUGIN_GROUP`, the first
    time it is called in a process (importing a plug-in module registers its kinds, noise laws,
    estimators or calibration methods); returns the names of the entry points imported now.

    A plug-in that fails to import — any exception, a ``SystemExit``, or a ``KeyboardInterrupt``
    it raises itself — is skipped with one :class:`UserWarning` naming the entry point, its module
    and the error on one line; the run goes on with the other plug-ins and the built-in kinds
    (a config naming a kind of the skipped plug-in is refused by :func:`skipped_note`'s line). A
    real Ctrl-C during the import still interrupts."""
    global _scanned
    if _scanned:
        return []
    _scanned = True
    _skipped.clear()
    done = []
    for ep in entry_points(group=PLUGIN_GROUP):
        with _sigint_seen() as sigint:
            try:
                ep.load()
            except KeyboardInterrupt as exc:
                if sigint:  # the user pressed Ctrl-C: an interrupt, not a broken plug-in
                    _scanned = False
                    raise
                why = _one_line(exc)
            except (Exception, SystemExit) as exc:  # a third-party import: one line, its cause named
                why = _one_line(exc)
            else:
                done.append(ep.name)
                continue
        _skipped[ep.name] = f"{ep.name} ({ep.value}): {why}"
        warn_user(f"plug-in {_skipped[ep.name]}; skipped")  # at the first caller outside bdpsim
    return done


def skipped_note() -> str:
    """``""``, or ``"; skipped plug-ins: copies (mypackage.copies): ModuleNotFoundError: ..."``
    (for the line refusing an unknown kind: the kind may be a skipped plug-in's)."""
    return f"; skipped plug-ins: {'; '.join(_skipped.values())}" if _skipped else ""


__all__ = ["PLUGIN_GROUP", "Registry", "load_plugins", "missing_members", "skipped_note"]
