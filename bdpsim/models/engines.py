"""Exact engines: what a (model, mechanism) pair can compute exactly, one protocol per capability.

An *exact engine* is an object built once per (model, mechanism) pair — by the model kind
(:meth:`bdpsim.models.base.ModelKind.exact`) or by a mechanism with an engine of its own
(:class:`HasExactMechanism`) — and asked through :func:`engine_for` (this module; also
``bdpsim.estimators.engine_for``), which returns one or raises
:class:`~bdpsim.core.errors.NotAvailable` with the reason. Every engine satisfies :class:`ExactEngine`
(one adversary's exact BDPL, both sides); what else it can do is a capability, asked with
``isinstance``::

    eng = engine_for(model, mechanism)
    if isinstance(eng, HasWindowSearch):          # the supremum over every adversary
        search, rows, values = eng.window(min_known=0, top=1)
    if isinstance(eng, HasQueryLaws):             # the two laws an adversary compares
        laws = eng.query_laws(adversary)          # S | x_K, x and S | x_K, x' (output: S + noise)

==========================  =========================================================
capability                  what it gives
==========================  =========================================================
:class:`ExactEngine`        ``bdpl(adv)``, ``one_sided(adv)``, ``method``, ``incomplete``
:class:`HasExhaustive`      every adversary with ``|K|`` in a set of sizes, enumerated
:class:`HasWindowSearch`    the supremum over every adversary with ``|K| >= k``
:class:`HasWindowPlan`      that search's up-front estimate and its parts (tasks)
:class:`HasProfile`         one adversary's privacy profile ``delta(eps)``
:class:`HasProfileSearch`   the profile's supremum over every adversary, and who
                            attains it
:class:`HasQueryLaws`       the exact laws of the query under ``x`` and ``x'``, and
                            the noise law
==========================  =========================================================

An engine too large for a requested search says so by raising :class:`SearchTooLarge` (a
:class:`~bdpsim.core.errors.NotAvailable` naming the config field to change) from its ``check_*``
method, before any work.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ..adversary import Adversary, Estimate
from ..core.errors import NotAvailable
from ..kernels.noise.laws import grid_delta_pair

if TYPE_CHECKING:  # pragma: no cover
    from .protocols import WindowRow

    #: what a window (or profile) search returns: ``(search, rows, values)`` — the search object
    #: (its ``bdpl`` is the supremum), the reported adversaries (``WindowRow``, the most leaking
    #: first) and the values of every searched cell (a name for the type checker only)
    WindowSearchResult = tuple[Any, Sequence[WindowRow], np.ndarray]

__all__ = [
    "ExactEngine",
    "HasExactMechanism",
    "PairEngine",
    "build_engine",
    "complete_engine",
    "engine_for",
    "exact_engine",
    "ExhaustiveResult",
    "HasExhaustive",
    "HasProfile",
    "HasProfileSearch",
    "HasQueryLaws",
    "HasWindowPlan",
    "HasWindowSearch",
    "QueryLaws",
    "QueryLawsEngine",
    "SearchTooLarge",
    "check_all_targets",
    "use_engine",
]


class SearchTooLarge(NotAvailable):
    """A search over every adversary refused up front as too large to finish.

    Parameters
    ----------
    field : str
        The config field whose value makes it too large (``run.adversaries``, ``model.n``, ...).
    reason : str
        Why, with the numbers (one line).
    """

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason

    def __reduce__(self):
        return SearchTooLarge, (self.field, self.reason)


@runtime_checkable
class ExactEngine(Protocol):
    """The exact BDPL of one (model, mechanism) pair, adversary by adversary.

    Attributes
    ----------
    method : str
        How it computes (for the docs and ``bdpsim validate``).
    incomplete : str or None
        Set when only *some* adversaries have an exact value (``bdpl`` raises
        :class:`~bdpsim.core.errors.NotAvailable` for the others): why the pair has no exact BDPL as a
        whole. Such an engine serves exact references, not ``estimator = "exact"``
        (:func:`bdpsim.estimators.engine_for` refuses it with this reason).
    """

    method: str
    incomplete: str | None

    def bdpl(self, adversary: Adversary) -> Estimate:
        """Exact two-sided ``BDPL_(K,i)(x, x') = sup_s |ln p(s | x_K, x) / p(s | x_K, x')|``."""
        ...

    def one_sided(self, adversary: Adversary) -> Estimate:
        """Exact one-sided ``sup_s ln p(s | x_K, x) / p(s | x_K, x')`` for the ordered pair (what
        the thesis' signed estimator estimates)."""
        ...


@runtime_checkable
class HasExhaustive(Protocol):
    """Enumeration of every adversary ``(i, K, x_K, {x, x'})`` with ``|K|`` in ``sizes``."""

    def check_exhaustive(self, sizes: Sequence[int]) -> None:
        """Raise :class:`SearchTooLarge` if the enumeration is too large to finish."""
        ...

    def exhaustive(self, sizes: Sequence[int], targets: Sequence[int] | None) -> ExhaustiveResult:
        """Every adversary with ``|K|`` in ``sizes`` (and target in ``targets``; ``None``: all)."""
        ...


@runtime_checkable
class HasWindowSearch(Protocol):
    """The supremum over every adversary with ``|K| >= min_known`` by a reduced search (the window
    reduction of a chain, :mod:`bdpsim.models.markov.window`; the separated-region search of a
    network, :mod:`bdpsim.models.bayesnet.search`)."""

    def check_window(self, min_known: int) -> None:
        """Raise :class:`SearchTooLarge` if the search is too large to finish."""
        ...

    def window(
        self, min_known: int, top: int | None, targets: Sequence[int] | None = None
    ) -> WindowSearchResult:
        """``(search, rows, values)``: ``rows`` the ``top`` most leaking adversaries (``None``:
        all cells), the most leaking first; ``targets`` restricts the targets (engines with
        :class:`HasWindowPlan`; others take ``None`` only)."""
        ...


@runtime_checkable
class HasWindowPlan(Protocol):
    """A window search with an up-front estimate, run as one task per part of the targets."""

    def window_estimate(self, min_known: int) -> str:
        """The up-front estimate of the search (one line, for ``bdpsim validate``)."""
        ...

    def window_parts(self) -> list[list[int]]:
        """The target lists of the tasks; each part runs ``window(min_known, top, targets=part)``
        and its value is the worst over its targets."""
        ...


@runtime_checkable
class HasProfile(Protocol):
    """The privacy profile of one adversary (hockey-stick divergence of its two output laws)."""

    def profile(self, adversary: Adversary, epsilon: float) -> float:
        """``delta(eps) = max(∫ (p_x - e^eps p_x')^+, ∫ (p_x' - e^eps p_x)^+)``."""
        ...


@runtime_checkable
class HasProfileSearch(Protocol):
    """The privacy profile's supremum over every adversary with ``|K| >= min_known``."""

    def profile_window(self, min_known: int, epsilon: float, top: int | None) -> WindowSearchResult:
        """``(search, rows, values)`` as :meth:`HasWindowSearch.window` gives them, ranked by
        ``delta(eps)`` (``search.bdpl`` is the supremum of ``delta(eps)``)."""
        ...


@dataclass(frozen=True)
class QueryLaws:
    """The exact laws of the query ``S`` an adversary compares, on common atoms.

    The mechanism's output is ``Y = S + Z`` with ``Z`` the engine's ``noise`` law, independent of
    the data, so the two output laws are ``p(y | x_K, x) = sum_j under_x[j] f_Z(y - atoms[j])`` and
    the same with ``under_x_prime``.

    Parameters
    ----------
    atoms : ndarray, shape (J,)
        The values of ``S`` (a lattice ``atoms[0] + step * j``).
    under_x, under_x_prime : ndarray, shape (J,)
        ``P(S = atoms[j] | X_K = x_K, X_i = x)`` and the same given ``X_i = x'``.
    step : float
        The lattice step.
    """

    atoms: np.ndarray
    under_x: np.ndarray
    under_x_prime: np.ndarray
    step: float


@runtime_checkable
class HasQueryLaws(Protocol):
    """The two exact query laws of an adversary and the noise law added to the query: together the
    two output laws of the adversary (:class:`QueryLaws`)."""

    noise: Any

    def query_laws(self, adversary: Adversary) -> QueryLaws:
        """The laws of the query given ``(x_K, x)`` and ``(x_K, x')`` (raises
        :class:`~bdpsim.core.errors.NotAvailable` when a condition has probability zero)."""
        ...


def check_all_targets(targets) -> None:
    """For a window search that covers every target at once (no :class:`HasWindowPlan`):
    ``targets`` must be ``None``."""
    if targets is not None:
        raise TypeError(f"targets = {targets!r}: this window search covers every target at once (pass None)")


class QueryLawsEngine(ABC):
    """The exact engine of ``S + Z`` — an additive query ``S`` on a lattice plus noise ``Z`` of any
    law — written once: a kind's engine gives the two exact laws of ``S``
    (:meth:`query_laws`) and the noise law (``noise``), and everything else follows here from the
    noise law's exact functions (:mod:`bdpsim.kernels.noise.laws`).

    With ``p(y | x_K, x) = sum_j w_j f_Z(y - s_j)`` and ``p(y | x_K, x')`` the same with ``w'``
    (the atoms ``s_j = s_0 + delta j`` and weights of :class:`QueryLaws`):

    * :meth:`bdpl`: ``sup_y |ln p(y | x_K, x) / p(y | x_K, x')|``, the noise law's ``grid_sup``
      on the lattice;
    * :meth:`one_sided`: ``sup_y ln p(y | x_K, x) / p(y | x_K, x')``, its ``sup_log_ratio``;
    * :meth:`profile`: ``delta(eps) = max(∫ (p_x - e^eps p_x')^+, ∫ (p_x' - e^eps p_x)^+)``, its
      hockey-stick divergences (:func:`~bdpsim.kernels.noise.laws.grid_delta_pair`).

    A subclass sets ``noise`` and ``method`` and implements :meth:`query_laws`; it satisfies
    :class:`ExactEngine`, :class:`HasProfile` and :class:`HasQueryLaws` (the protocols stay the
    interface: this class is how an engine gets them, not what callers check).
    """

    noise: Any
    method: str
    incomplete: str | None = None

    @abstractmethod
    def query_laws(self, adversary: Adversary) -> QueryLaws:
        """The laws of the query given ``(x_K, x)`` and ``(x_K, x')`` (raises
        :class:`~bdpsim.core.errors.NotAvailable` when a condition has probability zero)."""

    def bdpl(self, adversary: Adversary) -> Estimate:
        """Exact two-sided ``BDPL_(K,i)(x, x') = sup_y |ln p(y | x_K, x) / p(y | x_K, x')|``, with
        the output ``y`` where it is attained (an atom ``s_0 + delta j``, or ``±inf`` for a tail)."""
        laws = self.query_laws(adversary)
        v, atom = self.noise.grid_sup(laws.under_x[None], laws.under_x_prime[None], laws.step)
        where = float(laws.atoms[0] + laws.step * atom[0]) if np.isfinite(atom[0]) else float(atom[0])
        return Estimate(float(abs(v[0])), 0, where)

    def one_sided(self, adversary: Adversary) -> Estimate:
        """Exact one-sided ``sup_y ln p(y | x_K, x) / p(y | x_K, x')`` (the argmax only when this
        side is the larger, else ``nan``)."""
        laws = self.query_laws(adversary)
        s = self.noise.sup_log_ratio(laws.atoms, laws.under_x, laws.atoms, laws.under_x_prime)
        return Estimate(s.forward, 0, s.argmax if s.forward >= s.backward else math.nan)

    def profile(self, adversary: Adversary, epsilon: float) -> float:
        """The adversary's privacy profile ``max(delta(x || x'), delta(x' || x))`` at ``epsilon``."""
        laws = self.query_laws(adversary)
        W1, W2 = laws.under_x[None], laws.under_x_prime[None]
        fwd, bwd = grid_delta_pair(self.noise, W1, W2, laws.step, epsilon)
        return float(max(fwd[0], bwd[0]))


@dataclass(frozen=True)
class ExhaustiveResult:
    """All adversaries of an exhaustive search, column-wise (one entry per adversary).

    ``pattern[j, t]`` describes record ``t`` for adversary ``j``: ``-2`` the target, ``-1``
    unknown, ``>= 0`` known (the known value for discrete data; for Gaussian data the known values
    are the prior means ``values``, since the BDPL does not depend on them).
    """

    i: np.ndarray
    pattern: np.ndarray
    x: np.ndarray
    x_prime: np.ndarray
    value: np.ndarray
    argmax: np.ndarray
    values: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.value.size)

    @property
    def best(self) -> int:
        return int(np.argmax(self.value))

    def known(self, j: int) -> tuple[int, ...]:
        return tuple(int(t) for t in np.flatnonzero(self.pattern[j] >= 0))

    def x_known(self, j: int) -> tuple:
        k = np.flatnonzero(self.pattern[j] >= 0)
        if self.values is None:
            return tuple(int(v) for v in self.pattern[j, k])
        return tuple(float(self.values[t]) for t in k)

    def adversary(self, j: int) -> Adversary:
        return Adversary(
            int(self.i[j]), self.known(j), self.x_known(j), self.x[j].item(), self.x_prime[j].item()
        )

    @classmethod
    def concat(cls, parts: Sequence[Any], n: int = 0) -> Any:
        """The adversaries of ``parts`` (results of this class) one after the other: every
        per-adversary field concatenated, the per-record ``values`` of the first part; no part,
        no adversary (``n`` records)."""
        if not parts:  # no adversary with two positive-probability target values
            e = np.zeros(0)
            return cls(e.astype(int), np.zeros((0, n), dtype=np.int8), e.astype(int), e.astype(int), e, e)
        cols = [vars(p) for p in parts]  # the fields of each part, by name
        return cls(
            **{
                name: v if name == "values" or v is None else np.concatenate([c[name] for c in cols])
                for name, v in cols[0].items()
            }
        )


@runtime_checkable
class HasExactMechanism(Protocol):
    """A mechanism with its own exact engine on a model (an :class:`ExactEngine` with its
    capabilities; raises :class:`~bdpsim.core.errors.NotAvailable` with the reason when it has
    none), e.g. randomized response, the histogram; it answers before the model kind's engine
    (:func:`exact_engine`). Declared here, below the mechanisms, so that :func:`engine_for` asks it
    without importing them (``bdpsim.mechanisms.protocols`` re-exports it)."""

    def exact(self, model): ...


def _kind_of(model):
    from .base import MODEL_KINDS, DataModel  # the kinds' registry sits above this module

    kind = MODEL_KINDS.get(model.kind) if isinstance(model, DataModel) else None
    if kind is None:
        raise NotAvailable(
            f"model {type(model).__name__}: not of a registered model kind ({list(MODEL_KINDS)})"
        )
    return kind


def _build_engine(model, mechanism) -> ExactEngine:
    if isinstance(mechanism, HasExactMechanism):
        return mechanism.exact(model)
    return _kind_of(model).exact(model, mechanism)


def exact_engine(model, mechanism) -> ExactEngine:
    """A new exact engine of a (model, mechanism) pair — possibly one that covers only some
    adversaries (``incomplete``); raises :class:`NotAvailable` with the reason when there is none.
    A mechanism with an engine of its own (``mechanism.exact(model)``, e.g. randomized response)
    answers first; otherwise the model kind's engine for "query + noise" mechanisms.

    Every call builds: whoever needs the engine more than once keeps it (a configuration point
    builds its engine once, :attr:`bdpsim.pipeline.config.ExperimentPoint.engine`, and hands it to
    its estimators and searches)."""
    found = build_engine(model, mechanism)
    if isinstance(found, NotAvailable):
        raise NotAvailable(str(found))
    return found


def build_engine(model, mechanism) -> ExactEngine | NotAvailable:
    """:func:`exact_engine`'s answer as a value: the new engine, or its refusal (a
    :class:`~bdpsim.core.errors.NotAvailable`, returned, not raised) — what a configuration point
    keeps and passes on (the ``engine`` argument of :func:`use_engine`)."""
    try:
        return _build_engine(model, mechanism)
    except NotAvailable as exc:
        return exc


#: a pair's exact engine as a caller passes it on: the engine, the refusal :func:`build_engine`
#: returned, or ``None`` (not built: :func:`use_engine` builds one)
PairEngine = ExactEngine | NotAvailable | None


def use_engine(engine: PairEngine, model, mechanism, *, complete: bool = False) -> ExactEngine:
    """The engine a caller passed for ``(model, mechanism)`` — ``engine`` itself, its refusal
    raised, or (``None``) a new one (:func:`exact_engine`); ``complete``: for every adversary, as
    :func:`engine_for` (an ``incomplete`` engine refused with its reason)."""
    found: ExactEngine | NotAvailable = build_engine(model, mechanism) if engine is None else engine
    if complete:
        return complete_engine(found)
    if isinstance(found, NotAvailable):
        raise NotAvailable(str(found))
    return found


def engine_for(model, mechanism) -> ExactEngine:
    """The exact engine for *every* adversary of a (model, mechanism) pair (read by config
    validation, the exact estimator, the driver and ``bdpsim validate``); raises
    :class:`NotAvailable` with the reason when there is none, or when the engine covers only some
    adversaries (its ``incomplete``). Its capabilities are the protocols of this module
    (``isinstance(engine, HasWindowSearch)``, ...)."""
    return complete_engine(build_engine(model, mechanism))


def complete_engine(found: ExactEngine | NotAvailable) -> ExactEngine:
    """:func:`engine_for` from what :func:`build_engine` answered (an engine or its refusal)."""
    if isinstance(found, NotAvailable):
        raise NotAvailable(f"{found}; use estimator = 'mixture' (query + Laplace) or 'kde'")
    if found.incomplete is not None:
        raise NotAvailable(found.incomplete)
    return found
