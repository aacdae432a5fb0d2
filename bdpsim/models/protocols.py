"""Optional capabilities of a data model, as runtime-checkable protocols.

A data model must satisfy :class:`~bdpsim.models.base.DataModel`; everything else a caller may use
is one of these capabilities, asked for with ``isinstance(model, HasX)`` (never ``getattr`` or a
concrete class): a model kind registered from anywhere gets the fast paths by implementing the
method. :func:`~bdpsim.models.base.register_model_kind` checks the kind itself against its contract;
the contract tests (``tests/architecture/test_contracts.py``) run every registered kind from its ``example``
(:attr:`~bdpsim.models.base.ModelKind.example`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class HasQueryLaw(Protocol):
    """The exact law ``(atoms, probabilities)`` of a query's value given known records
    (``None`` for a query it has no law for)."""

    def query_law(self, query, known: Mapping[int, Any]) -> tuple[np.ndarray, np.ndarray] | None: ...


@runtime_checkable
class HasGaussianConditional(Protocol):
    """A multivariate normal law: its conditional given known records in closed form
    (``mean``, ``cov``, ``unknown``, ``known``, ``chol``, ``gain``), reusable across chunks."""

    mean: np.ndarray
    cov: np.ndarray

    def conditional(self, known: Mapping[int, float]): ...

    def sample_conditional(
        self, known: Mapping[int, float], size: int, rng: np.random.Generator, cond=None
    ) -> np.ndarray: ...


@runtime_checkable
class HasStates(Protocol):
    """Records on the states ``0..states-1``."""

    @property
    def states(self) -> int: ...


@runtime_checkable
class HasAdditiveLaw(Protocol):
    """The law of ``sum_r g(X_r)`` for integer per-state steps ``g`` given known records."""

    def additive_law(self, known: Mapping[int, int], g) -> np.ndarray: ...


__all__ = ["HasAdditiveLaw", "HasGaussianConditional", "HasQueryLaw", "HasStates"]


@runtime_checkable
class MarkovChain(Protocol):
    """A (time-homogeneous) Markov chain of ``n`` records: ``transition``, start law ``initial``
    (``None``: stationary), ``is_stationary``; the calibration methods and randomized response
    work on these."""

    transition: np.ndarray
    initial: np.ndarray | None

    @property
    def n(self) -> int: ...

    @property
    def states(self) -> int: ...

    @property
    def is_stationary(self) -> bool: ...


@runtime_checkable
class HasCountLaw(Protocol):
    """The exact law of the count of ``counted`` states given known records (a pedigree's)."""

    def count_law(self, known: Mapping, counted) -> np.ndarray: ...


__all__ += ["HasCountLaw", "MarkovChain"]


@runtime_checkable
class HasRecordStates(Protocol):
    """Records with their own numbers of states (``record_states[r]``; a network of mixed
    cardinalities): adversaries draw ``x, x'`` among the target's own states."""

    record_states: tuple[int, ...]


@runtime_checkable
class HasRecordNames(Protocol):
    """Records with names (network nodes): ``record_names()`` or ``None`` when they have none."""

    def record_names(self) -> tuple[str, ...] | None: ...


@runtime_checkable
class HasStateNames(Protocol):
    """States with names (a network read from a BIF file): ``state_names`` per node (``None``
    when unnamed), a state's name, and the per-record indices of a count of named states
    (:meth:`~bdpsim.models.bayesnet.model.BayesNetModel.count_codes`)."""

    state_names: Any

    def state_label(self, record: int, state: int) -> str: ...

    def count_codes(self, values, field_name: str = ...) -> Any: ...


__all__ += ["HasRecordNames", "HasRecordStates", "HasStateNames"]


@runtime_checkable
class HasGenotypes(Protocol):
    """Records are genotypes ``BB``, ``Bb``, ``bb`` (states 0, 1, 2; ``allele_b`` the minor allele's
    frequency): a count may name them (``counted_states = ["BB"]``)."""

    allele_b: float


__all__ += ["HasGenotypes"]


@runtime_checkable
class WindowRow(Protocol):
    """One adversary an all-adversary search reports (the items of
    :meth:`~bdpsim.models.engines.HasWindowSearch.window`): target ``i``, its value ``bdpl`` and
    ``argmax``, its ``adversaries.csv.gz`` columns (``table_row()``: exactly ``i, known, x_known,
    x, x_prime``, compact where the search is) and the adversary itself (``adversary()``). Node
    names of a model with named records are the driver's (:class:`HasRecordNames`), not the row's."""

    @property
    def i(self) -> int: ...

    @property
    def bdpl(self) -> float: ...

    @property
    def argmax(self) -> float: ...

    def table_row(self) -> dict: ...

    def adversary(self): ...


__all__ += ["WindowRow"]


@runtime_checkable
class FactorGraph(Protocol):
    """A product of factors over nodes (Bayesian networks, Markov random fields): the interaction
    graph and the factor lookup of the separated-region search over every adversary
    (:mod:`bdpsim.models.bayesnet.search`)."""

    def interaction_graph(self) -> dict[int, set[int]]: ...

    def factors_touching(self, nodes) -> list[int]: ...


__all__ += ["FactorGraph"]


@runtime_checkable
class HasTargetValues(Protocol):
    """A mechanism on real-valued records whose adversaries distinguish one fixed pair of target
    values ``(x, x')`` (an unclipped sum's ``target_values``): without it the targets are unbounded."""

    target_values: tuple[float, float]


__all__ += ["HasTargetValues"]
