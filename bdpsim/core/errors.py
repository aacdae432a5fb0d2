"""Error types of bdpsim.

Every input check raises a :class:`BdpsimError` subclass (itself a ``ValueError``) whose
message names the field, the offending value and the rule, so that the CLI can print it as a
single line and exit with code 2.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .shown import shown as _short

if TYPE_CHECKING:
    import numpy as np


class BdpsimError(ValueError):
    """Base class of bdpsim's input errors (a ``ValueError``)."""


class ConfigError(BdpsimError):
    """A bad configuration or argument: ``field = value: rule``.

    Parameters
    ----------
    field : str
        Dotted name of the field, e.g. ``"model.rho"``.
    value : Any
        The offending value.
    rule : str
        The rule it breaks, phrased for a user.
    """

    def __init__(self, field: str, value: Any, rule: str) -> None:
        self.field, self.value, self.rule = field, value, rule
        super().__init__(f"{field} = {_short(value)}: {rule}")

    def __reduce__(self):  # survives pickling (raised in a worker process, re-raised here)
        value = self.value
        try:
            import pickle

            pickle.dumps(value)
        except Exception:
            value = _short(value)
        return (_rebuild, (type(self), self.field, value, self.rule, str(self)))


def _rebuild(cls, field: str, value: Any, rule: str, message: str) -> ConfigError:
    err = cls.__new__(cls)
    err.field, err.value, err.rule = field, value, rule
    err.args = (message,)
    return err


class NotAvailable(BdpsimError):
    """An estimator or exact computation does not support a (model, mechanism) pair."""


class EstimatorError(BdpsimError):
    """An estimator cannot produce a value for its input (e.g. constant samples for a KDE)."""


def check(condition: bool | np.bool_, field: str, value: Any, rule: str) -> None:
    """Raise :class:`ConfigError` unless ``condition`` holds (never ``assert``)."""
    if not condition:
        raise ConfigError(field, value, rule)


@runtime_checkable
class NamedParameter(Protocol):
    """What a kernel's input error carries (:class:`bdpsim.kernels.argcheck.ParameterError`):
    the parameter's name, the value and the rule."""

    param: str
    value: Any
    rule: str


def field_error(
    exc: BaseException, prefix: str = "", fields: Mapping[str, str] | None = None
) -> ConfigError | None:
    """``exc`` as a :class:`ConfigError`: itself if it is one; for a kernel's error (a
    :class:`NamedParameter`), the one naming the config field ``fields[param]`` if given, else
    ``prefix.param`` (``param`` alone without a prefix); ``None`` for any other exception."""
    if isinstance(exc, ConfigError):
        return exc
    if isinstance(exc, BdpsimError) or not isinstance(exc, NamedParameter):
        return None
    name = (fields or {}).get(exc.param) or (f"{prefix}.{exc.param}" if prefix else exc.param)
    return ConfigError(name, exc.value, exc.rule)


@contextmanager
def naming(prefix: str = "", fields: Mapping[str, str] | None = None) -> Iterator[None]:
    """Re-raise a kernel's input error raised inside the block as a :class:`ConfigError` naming
    the config field (:func:`field_error`): ``with naming("mechanism"): LaplaceNoise(b)`` turns
    ``scale = -1: must be ...`` into ``mechanism.scale = -1: must be ...``; ``fields`` maps a
    parameter whose field has another name (``{"values": "mechanism.state_values"}``)."""
    try:
        yield
    except ValueError as exc:
        new = field_error(exc, prefix, fields)
        if new is None or new is exc:
            raise
        raise new from None
