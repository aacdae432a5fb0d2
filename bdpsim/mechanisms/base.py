"""The mechanism interface, the mechanism *kind* that owns a config's ``[mechanism]`` table, and
its registry.

A mechanism is a randomized algorithm on data batches ``(N, n) -> (N,)`` (batch on the first axis,
the ``numpy.random.Generator`` passed in). A :class:`MechanismKind` owns its config keys and
builds the mechanism of a configuration point *for its model* (``build(params, spec)``): that is
where it checks that it fits the model (states, record domain) and where calibrated kinds (the
Markov Quilt, Wasserstein and group mechanisms of :mod:`bdpsim.calibration`) compute their noise.
:func:`register_mechanism_kind` checks a kind when it registers.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ..core.errors import check
from ..core.registry import Registry
from ..core.schema import Key


@runtime_checkable
class Mechanism(Protocol):
    """A randomized algorithm on data batches (batch on the first axis).

    ``epsilon`` is its DP parameter (``None``: not claimed to be eps-DP); :meth:`columns` gives the
    ``summary.csv`` cells that describe it (``clip_low``, ``clip_high``, ``noise_scale``, ``x``,
    ``x_prime``); :meth:`adversary_targets` how a real-valued adversary draws ``x, x'``.
    """

    # read-only members (properties), so that frozen dataclasses and computed values satisfy it
    @property
    def kind(self) -> str: ...

    @property
    def epsilon(self) -> float | None: ...

    summary_extras: ClassVar[tuple[str, ...]]

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...

    def columns(self) -> dict: ...

    def adversary_targets(self, targets: str) -> tuple[str, tuple[float, float] | None]: ...


def positive(field_name: str, x: float) -> float:
    """``x`` as a finite float > 0, else a :class:`~bdpsim.core.errors.ConfigError` naming the field."""
    ok = isinstance(x, (int, float, np.number)) and not isinstance(x, bool)
    x = float(x) if ok else math.nan
    check(math.isfinite(x) and x > 0, field_name, x, "must be a finite number > 0")
    return x


NO_COLUMNS = {
    "clip_low": math.nan,
    "clip_high": math.nan,
    "noise_scale": math.nan,
    "x": math.nan,
    "x_prime": math.nan,
}


class MechanismKind(abc.ABC):
    """A mechanism kind: config keys, validation against the model, and the builder.

    Subclasses set :attr:`name`, :attr:`doc`, :attr:`keys` and :attr:`domain` (the records it
    takes: ``"discrete"``, ``"real"`` or ``"any"``) and implement :meth:`build`.
    """

    name: str = ""
    doc: str = ""
    keys: Mapping[str, Key] = {}
    domain: str = "any"
    #: ``{"model": {...}, "mechanism": {...}}``: a small configuration using this kind (the
    #: contract tests, tests/architecture/test_contracts.py, build and run it)
    example: Mapping[str, Any] | None = None

    def hints(self, params: dict) -> dict:
        """What the model may want to know of this mechanism before it is built (e.g.
        ``value_range``: the range of record values the query looks at; default: nothing)."""
        return {}

    @abc.abstractmethod
    def build(self, params: dict, spec) -> Mechanism:
        """The mechanism of one configuration point from its ``[mechanism]`` values, for the model
        ``spec`` (:class:`~bdpsim.models.base.ModelSpec`); raises
        :class:`~bdpsim.core.errors.ConfigError`."""


@runtime_checkable
class MechanismKindContract(Protocol):
    """What :func:`register_mechanism_kind` checks a mechanism kind has."""

    name: str
    keys: Mapping[str, Key]
    domain: str

    def hints(self, params: dict) -> dict: ...

    def build(self, params: dict, spec) -> Mechanism: ...


def _domain(kind) -> str | None:
    return (
        None if kind.domain in ("discrete", "real", "any") else "domain must be 'discrete', 'real' or 'any'"
    )


MECHANISM_KINDS: Registry = Registry("mechanism kind", MechanismKindContract, _domain)


def register_mechanism_kind(kind: MechanismKind) -> MechanismKind:
    """Add ``kind`` to :data:`MECHANISM_KINDS` after checking it is complete; returns it."""
    return MECHANISM_KINDS.register(kind, stacklevel=2)


def required(params: dict, key: str):
    """``params[key]``, or a :class:`~bdpsim.core.errors.ConfigError` saying it is required."""
    check(params[key] is not None, f"mechanism.{key}", None, "is required")
    return params[key]
