"""The estimator interface, its registry, and what the cost model tells an estimator.

An estimator class *is* its kind: it owns its ``[run]`` keys (:attr:`Estimator.keys`, validated by
its own ``__post_init__``), says which (model, mechanism) pairs it handles (``supports``), what one
adversary costs it (``cost``), and which ``summary.csv`` cells it fills (``summary``).
:func:`register_estimator` checks an estimator class when it registers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ..adversary import Adversary, Estimate
from ..core.columns import OwnedColumn, owned_problem
from ..core.registry import Registry
from ..core.schema import Key

__all__ = [
    "READ_BY_SOME",
    "CostContext",
    "ESTIMATORS",
    "Estimate",
    "Estimator",
    "FinishContext",
    "register_estimator",
]


@dataclass(frozen=True)
class CostContext:
    """What one adversary of a configuration point costs before estimation (see
    :mod:`bdpsim.pipeline.cost`; units: elementary operations on records, bytes).

    ``conditions`` is the number of conditional samples drawn per adversary on average (2, plus 2
    for the noise floor's share); ``per_sample`` the work of one sampled data tuple; ``law`` the work
    of one exact query law (``None``: the model has none for this query, tuples are simulated);
    ``law_bytes`` its tables; ``chunk`` the sampling chunk; ``continuous`` whether query values are
    continuous (one distinct value per sample).
    """

    adversaries: float
    conditions: float
    n: float
    per_sample: float
    law: float | None
    law_bytes: float
    chunk: float
    continuous: bool

    def sampling(self, samples: float) -> tuple[float, float]:
        """``(work, bytes)`` of drawing ``samples`` query values per condition for every adversary."""
        A, c = self.adversaries, self.conditions
        if self.law is not None:  # the query's law once per condition, then a multinomial draw
            return A * c * (self.law + self.n), self.law_bytes
        chunk = min(self.chunk, samples)
        return A * c * samples * self.per_sample, 2 * chunk * self.n * 8 + chunk * 8 * 2


@dataclass(frozen=True)
class FinishContext:
    """What an estimator's configuration-level work (:meth:`Estimator.finish`) may use of a point.

    ``adversary(j)`` is ``(model, adversary)`` number ``j`` as the driver drew it; ``stream(*path)``
    a configuration-level generator (independent of every adversary's); ``engine()`` the point's
    exact engine for every adversary (raises :class:`~bdpsim.core.errors.NotAvailable` with the
    reason when there is none); ``engine_of(model)`` the engine to pass on for a model
    ``adversary(j)`` drew (the ``engine`` argument of :meth:`Estimator.reference`: the point's own
    for its fixed model, ``None`` for a model of a family); ``pair`` names the model and mechanism
    kinds. Nothing here builds an engine: the point built its own once.
    """

    mechanism: Any
    adversary: Callable[[int], tuple]
    stream: Callable[..., np.random.Generator]
    exact_reference: bool
    exhaustive: bool
    sizes: tuple[int, ...]
    engine: Callable[[], Any]
    pair: str
    engine_of: Callable[[Any], Any] = lambda model: None


@runtime_checkable
class Estimator(Protocol):
    """Estimates the adversary-specific target-dependent BDPL of one adversary.

    **The exact engine.** The methods that may use the pair's exact engine take it as ``engine``:
    what the caller built for the (model, mechanism) pair — an
    :class:`~bdpsim.models.engines.ExactEngine`, or its refusal (a
    :class:`~bdpsim.core.errors.NotAvailable`, :func:`bdpsim.models.engines.build_engine`) — or
    ``None`` (not built: the estimator builds one if it needs it,
    :func:`bdpsim.models.engines.use_engine`). The driver passes the configuration point's engine
    (built once per point, :attr:`bdpsim.pipeline.config.ExperimentPoint.engine`) for its fixed
    model, one engine per drawn model for a family; an estimator never builds or looks one up
    when it is given one.
    """

    name: ClassVar[str]
    keys: ClassVar[Mapping[str, Key]]
    #: the generic ``[run]`` keys of :data:`READ_BY_SOME` it reads (the run refuses the others beside
    #: it: a sample count beside the exact estimator changes nothing)
    reads: ClassVar[frozenset[str]]
    exact: ClassVar[bool]
    #: summary.csv columns it owns, in every table (bdpsim.core.columns.owned_columns; the KDE's); a new
    #: estimator declares extra columns instead (summary_extras: only in the runs that use it)
    summary_columns: ClassVar[tuple[OwnedColumn, ...]]
    summary_extras: ClassVar[tuple[str, ...]]  # extra summary.csv columns it may fill (bdpsim.core.columns)
    adversary_extras: ClassVar[tuple[str, ...]]

    @classmethod
    def from_settings(cls, settings) -> Estimator:
        """The estimator a :class:`~bdpsim.pipeline.settings.RunSettings` asks for (validates its keys)."""
        ...

    @staticmethod
    def supports(model, mechanism, engine: Any = None) -> str | None:
        """``None`` if the estimator handles the (model, mechanism) pair, else the reason
        (``engine``: the point's, as for :meth:`estimate`)."""
        ...

    def estimate(
        self, model, mechanism, adversary: Adversary, rng: np.random.Generator, engine: Any = None
    ) -> Estimate:
        """The estimate for ``adversary`` (``engine``: the pair's exact engine, see the class
        docstring; a sampling estimator ignores it)."""
        ...

    def reference(self, model, mechanism, adversary: Adversary, engine: Any = None) -> Estimate:
        """The exact value of the quantity :meth:`estimate` estimates, by ``engine`` (the class
        docstring; raises :class:`~bdpsim.core.errors.NotAvailable` where there is none)."""
        ...

    def null_estimate(self, model, mechanism, adversary: Adversary, rng: np.random.Generator) -> Estimate:
        """The same estimate between two independent sample sets drawn under the *same*
        condition ``X_i = x`` (true value 0): the estimator's noise floor."""
        ...

    def cost(self, ctx: CostContext) -> tuple[float, float]:
        """``(work, bytes per task)`` of estimating every adversary of a point."""
        ...

    def summary(self, stats: Mapping[str, np.ndarray]) -> dict:
        """The ``summary.csv`` cells this estimator fills from the per-adversary statistics
        (core cells of :data:`bdpsim.pipeline.rows.ESTIMATOR_CELLS`, the columns it owns,
        :attr:`summary_columns`, and its :attr:`summary_extras`)."""
        ...

    def check(self, model, mechanism, engine: Any = None) -> None:
        """Checks of the pair that depend on this estimator's own settings (raises
        :class:`~bdpsim.core.errors.ConfigError`; run before anything runs; ``engine``: the point's,
        as for :meth:`estimate`)."""
        ...

    def finish(self, ctx: FinishContext, stats: Mapping[str, np.ndarray], rows) -> dict:
        """Configuration-level work once every adversary is done (e.g. certifying the most leaking
        adversary on fresh samples); returns more ``summary.csv`` cells (``{}``: none)."""
        ...


#: the generic ``[run]`` keys (:data:`bdpsim.pipeline.settings.GENERIC_KEYS`) that only some
#: estimators read, each declaring its own in :attr:`Estimator.reads`: the sample count and how the
#: samples are drawn, the noise floor's adversaries, the exact reference beside an estimate, the
#: search over every adversary; ``bootstrap`` is read by none (accepted for old configs). The run
#: itself reads the others (seed, adversaries, known sizes, percentile, ...) whatever the estimator.
READ_BY_SOME = frozenset(
    {
        "samples",
        "sampling",
        "chunk",
        "noise_floor_adversaries",
        "exact_reference",
        "exhaustive_method",
        "bootstrap",
    }
)


def _exact_flag(cls) -> str | None:
    reads = cls.reads
    if not (isinstance(reads, frozenset) and reads <= READ_BY_SOME):
        return f"reads must be a frozenset of {sorted(READ_BY_SOME)} (the generic keys it reads)"
    return owned_problem(cls.summary_columns) or (
        None if isinstance(cls.exact, bool) else "exact must be a bool"
    )


ESTIMATORS: Registry = Registry("estimator", Estimator, _exact_flag)


def register_estimator(cls: type) -> type:
    """Add an estimator class to :data:`ESTIMATORS` after checking it is complete (the class object
    against the :class:`Estimator` protocol)."""
    return ESTIMATORS.register(cls, stacklevel=2)
