"""Exact engines: what a (model, mechanism) pair can compute exactly, one protocol per capability.

An *exact engine* is an object built once per (model, mechanism) pair — by the model kind
(:meth:`bdpsim.models.base.ModelKind.exact`) or by a mechanism with an engine of its own
(:class:`HasExactMechanism`) — and asked through :func:`engine_for` (this module; also
``bdpsim.estimators.engine_for``), which returns one or raises
:class:`~bdpsim.core.errors.NotAvailable` with the reason. Every call builds a new engine: whoever
needs it more than once keeps it (a configuration point builds its own once,
:attr:`bdpsim.pipeline.config.ExperimentPoint.engine`, and hands it to its estimators). Every
engine satisfies :class:`ExactEngine` (one adversary's exact BDPL, both sides); what else it can do
is a capability, asked with ``isinstance``::

    eng = engine_for(model, mechanism)
    if isinstance(eng, HasSearch):                # every adversary, ranked by any score
        found = eng.search(StackedScore(BdplScore(), ProfileScore(0.0)), min_known=0)
        found.value, found.worst                  # the sup of each component, and who attains it
    if isinstance(eng, HasNoiseLaw):              # the same engine with another noise law
        found = eng.with_noise(LaplaceNoise(2.0)).search(BdplScore())
    if isinstance(eng, HasQueryLaws):             # the two laws an adversary compares
        laws = eng.query_laws(adversary)          # S | x_K, x and S | x_K, x' (output: S + noise)

============================  =========================================================
capability                    what it gives
============================  =========================================================
:class:`ExactEngine`          ``bdpl(adv)``, ``one_sided(adv)``, ``method``, ``incomplete``
:class:`HasSearch`            ``search(score, min_known, top, targets)``: every
                              adversary with ``|K| >= min_known``, ranked by a score of
                              its two laws (one value or a vector per adversary); the
                              sup of each component and the adversary attaining it;
                              ``law_pairs(min_known)``: every law pair it scores
:class:`HasNoiseLaw`          ``noise`` and ``with_noise(law)``: the same engine (same
                              query laws, same cached recursions) with another noise
:class:`HasSearchCost`        ``search_cost(min_known)``: that search's up-front
                              estimate (seconds of one core, and what it depends on)
:class:`HasScanRows`          ``scan_rows(min_known)``: the law pairs that search scores,
                              by unknown records per window, before any work
:class:`HasSearchOptions`     options of its own search (a chain's window truncation)
:class:`HasExhaustive`        every adversary with ``|K|`` in a set of sizes, enumerated
:class:`HasExhaustiveParts`   that enumeration's tasks: target lists sharing cached work
:class:`HasWindowSearch`      the BDPL's supremum over every adversary with ``|K| >= k``
:class:`HasWindowPlan`        that search's up-front estimate and its parts (tasks)
:class:`HasProfile`           one adversary's privacy profile ``delta(eps)``
:class:`HasProfileSearch`     the profile's supremum over every adversary, and who
                              attains it
:class:`HasQueryLaws`         the exact laws of the query under ``x`` and ``x'``, and
                              the noise law
============================  =========================================================

**The search with a score.** The engines of "query + noise" (:class:`QueryLawsEngine`: chains,
networks, random fields, pedigrees, and any kind that writes its ``query_laws``) search every
adversary at once for any score (:class:`PairScore`): a function of a batch of law pairs — the
query's laws under ``x`` and ``x'`` on a common lattice, rows = adversary cells, the output being
query + the engine's noise law — to one value, or a vector, per row
(:mod:`bdpsim.kernels.noise.scores`: :class:`BdplScore`, :class:`ProfileScore`,
:class:`StackedScore`, :class:`FunctionScore`). ``window`` and ``profile_window`` are its uses with
the BDPL and the privacy profile. The chain's window reduction, the network's separated-region
reduction and the pedigree's exchangeable classes search fewer cells than there are adversaries;
they stay exact for a score that is **jointly quasi-convex in the pair of laws** (a pair of
common-weight mixtures scores at most its worst part) **and invariant to a common independent
shift** (a shift of both laws by one independent amount): the BDPL, the hockey-stick divergence
(the privacy profile ``delta(eps)``; at ``eps = 0`` the total variation, the attack's advantage),
the Rényi divergences, any f-divergence. The TPR of the optimal test at a fixed FPR is not one (a
mixture can spend its false positives where a part is strong): search the profile, whose convex
conjugate bounds it (:mod:`bdpsim.attack.worst`). A chain's window search may truncate the windows
(``window_limit = "auto"``): its ``tolerance`` bounds what the BDPL may miss (for the profile:
``delta(eps) <= delta_searched(eps - tolerance)``).

**Scores that read the sums.** A score sees the law pairs up to a common shift and a unit (rows on
``0, step, 2 step, ...``), which is all a shift-invariant score needs. A score that decodes the sums
themselves — several queries packed into one integer per state, the accountant's joint laws of
many releases (:mod:`bdpsim.accounting.search`) — declares it
(:class:`~bdpsim.kernels.noise.scores.ReadsQueryValues`, e.g. ``FunctionScore(fn, names,
reads_query_values=True)``): a chain's window scan and a network's region search then give it rows
on the query's per-state values as they are (non-negative integers, ``step = 1``, column ``k`` the
searched records' sum ``k``); the other searches refuse it (:func:`refuse_query_values`).

An engine too large for a requested search says so by raising :class:`SearchTooLarge` (a
:class:`~bdpsim.core.errors.NotAvailable` naming the config field to change) from its ``check_*``
method, before any work.
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import numpy as np

from ..adversary import Adversary, Estimate
from ..core.errors import NotAvailable, check
from ..kernels.noise.laws import NoiseLaw, grid_delta_pair
from ..kernels.noise.scores import (
    BdplScore,
    FunctionScore,
    PairScore,
    ProfileScore,
    ProfilesScore,
    RecordPairs,
    Scored,
    StackedScore,
    names_of,
    reads_query_values,
)
from .pairs import LatticePair, OutputPair
from .protocols import HasRecordStates, HasStates

if TYPE_CHECKING:  # pragma: no cover
    from .protocols import WindowRow

    #: what a window (or profile) search returns: ``(search, rows, values)`` — the search object
    #: (its ``bdpl`` is the supremum), the reported adversaries (``WindowRow``, the most leaking
    #: first) and the values of every searched cell (a name for the type checker only)
    WindowSearchResult = tuple[Any, Sequence[WindowRow], np.ndarray]

__all__ = [
    "AdversaryRow",
    "AdversarySearch",
    "BdplScore",
    "FunctionScore",
    "HasNoiseLaw",
    "HasOutputPair",
    "HasProfiles",
    "HasSearch",
    "HasScanRows",
    "HasSearchCost",
    "HasSearchOptions",
    "SearchCost",
    "LatticePair",
    "OutputPair",
    "ProfilesScore",
    "profile_score",
    "PairScore",
    "ProfileScore",
    "QueryLawPairs",
    "Scored",
    "StackedScore",
    "ExactEngine",
    "HasExactMechanism",
    "PairEngine",
    "build_engine",
    "complete_engine",
    "engine_for",
    "exact_engine",
    "ExhaustiveResult",
    "HasExhaustive",
    "HasExhaustiveParts",
    "HasProfile",
    "HasProfileSearch",
    "HasQueryLaws",
    "HasWindowPlan",
    "HasWindowSearch",
    "QueryLaws",
    "QueryLawsEngine",
    "SearchTooLarge",
    "adversary_row",
    "check_all_targets",
    "ranked_search",
    "refuse_query_values",
    "score_rows",
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
class HasExhaustiveParts(Protocol):
    """An enumeration whose targets share cached work (one propagation serves every target): run
    as a few tasks of many targets instead of one task per target."""

    def exhaustive_parts(self, jobs: int) -> list[list[int]]:
        """The target lists of the tasks (each runs ``exhaustive(sizes, part)``) for ``jobs`` workers."""
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
class AdversaryRow:
    """One adversary a search reports, as a :class:`~bdpsim.models.protocols.WindowRow`: the
    adversary, its value ``bdpl`` of the component it is reported for, and the output ``argmax``
    where that value is attained (``nan``: none; ``±inf``: a tail)."""

    adv: Adversary
    bdpl: float
    argmax: float = math.nan

    @property
    def i(self) -> int:
        return int(self.adv.i)

    def adversary(self) -> Adversary:
        return self.adv

    def table_row(self) -> dict:
        a = self.adv
        return {
            "i": int(a.i),
            "known": ";".join(map(str, a.known)),
            "x_known": ";".join(map(str, a.x_known)),
            "x": str(a.x),
            "x_prime": str(a.x_prime),
        }


@dataclass(frozen=True)
class AdversarySearch:
    """The result of :meth:`HasSearch.search`: every adversary with ``|K| >= min_known`` scored
    (through the engine's reduced cells).

    Attributes
    ----------
    names : tuple of str
        The score's components.
    value : ndarray, shape (m,)
        The supremum of each component over every searched adversary (exact; a chain's truncated
        window search: see ``tolerance``).
    worst : tuple of WindowRow, length m
        An adversary attaining each component's supremum (``worst[k].bdpl == value[k]``;
        ``worst[k].adversary()`` the :class:`~bdpsim.adversary.Adversary`, ``x`` first in the order
        that attains it).
    rows : list of WindowRow
        The ``top`` most leaking cells by the first component, the most leaking first (all cells
        for ``top = None``; a network's region search reports its worst only).
    values : ndarray, shape (cells, m)
        Every searched cell's values (one cell per window geometry class on a chain, per adversary
        class on a pedigree; the supremum alone on a network).
    tolerance : float
        A chain's window truncation ``D_d + E_d``: the BDPL's supremum lies in ``[value, value +
        tolerance]`` (0: exact).
    detail : object
        The engine's own search result (:class:`~bdpsim.models.markov.window.WindowSearch`,
        :class:`~bdpsim.models.bayesnet.search.SearchResult`, ...; what ``window`` returns first).
    leaders : tuple of lists
        Per component, its ``top`` cells, the most leaking first (``leaders[0]`` is ``rows``; a
        chain's search with ``top = None``: the other components' worst only; a network's region
        search: its worst only); ``()`` where the search did not rank them.
    """

    names: tuple[str, ...]
    value: np.ndarray
    worst: tuple
    rows: list
    values: np.ndarray
    tolerance: float = 0.0
    detail: Any = None
    leaders: tuple = ()

    def of(self, name: str) -> tuple[float, Any]:
        """``(value, worst)`` of the component ``name``."""
        k = self.names.index(name)
        return float(self.value[k]), self.worst[k]


@dataclass(frozen=True)
class QueryLawPairs:
    """Every law pair an exact search scores (:meth:`HasSearch.law_pairs`): rows ``W1[r]``
    (given ``x``) and ``W2[r]`` (given ``x'``) of the query's law on the lattice ``0, step, ...``
    up to a shift of the pair (the known records' part, which no shift-invariant score sees),
    normalised, padded with zeros to one width; not deduplicated (the searched cells, in the
    search's order). Meeting a quasi-convex, shift-invariant condition on every pair (e.g. a noise
    law's ``eps``-BDP) meets it for every adversary (module docstring), up to ``tolerance``: the
    search's truncation (a chain's windows longer than its window limit: a value met on every pair
    is met by every adversary within ``tolerance``; 0: exact)."""

    W1: np.ndarray
    W2: np.ndarray
    step: float
    tolerance: float = 0.0

    def __len__(self) -> int:
        return int(self.W1.shape[0])


@runtime_checkable
class HasSearch(Protocol):
    """The search over every adversary with ``|K| >= min_known``, ranked by any
    :class:`PairScore` (module docstring: the reduction's exactness condition on the score)."""

    def check_search(self, min_known: int) -> None:
        """Raise :class:`SearchTooLarge` if the search is too large to finish."""
        ...

    def search(
        self,
        score: PairScore,
        min_known: int = 0,
        top: int | None = 1,
        targets: Sequence[int] | None = None,
    ) -> AdversarySearch:
        """Every adversary with ``|K| >= min_known`` (and target in ``targets``; ``None``: all)
        scored by ``score``: the supremum of each component and who attains it, the ``top`` cells
        by the first component (:class:`AdversarySearch`)."""
        ...

    def law_pairs(self, min_known: int = 0, targets: Sequence[int] | None = None) -> QueryLawPairs:
        """Every law pair :meth:`search` scores (:class:`QueryLawPairs`)."""
        ...


@dataclass(frozen=True)
class SearchCost:
    """The up-front estimate of one search over every adversary (:class:`HasSearchCost`):
    ``seconds`` of one core (``nan``: no estimate) and ``what`` it depends on, in words (``window
    scan over 3 states, <= 17 unknowns per side``)."""

    seconds: float
    what: str


@runtime_checkable
class HasSearchCost(Protocol):
    """An engine that estimates its search over every adversary before any work (what a caller
    running several searches — a calibration — budgets with)."""

    def search_cost(self, min_known: int) -> SearchCost:
        """The estimate of one :meth:`HasSearch.search` with ``|K| >= min_known`` (raises
        :class:`SearchTooLarge` when the search cannot be planned at all)."""
        ...


@runtime_checkable
class HasScanRows(Protocol):
    """An engine whose search scores law pairs of windows (a chain's window scan) and counts them
    before any work: what a score whose cost grows with the window (a Monte Carlo sweep over
    every window) budgets with."""

    def scan_rows(self, min_known: int) -> np.ndarray:
        """``rows[m]``: the law pairs :meth:`HasSearch.search` with ``|K| >= min_known`` scores
        whose windows hold ``m`` unknown records beside the target (an upper end)."""
        ...


@runtime_checkable
class HasSearchOptions(Protocol):
    """An engine whose search takes options of its own beyond ``min_known`` and ``targets`` (a
    chain's window truncation: ``window_limit``, ``tolerance``): ``search_options`` their values,
    ``with_search_options(**options)`` the same engine with some changed (an unknown name raises
    :class:`~bdpsim.core.errors.ConfigError` naming ``search``)."""

    search_options: dict

    def with_search_options(self, **options: Any) -> Any: ...


@runtime_checkable
class HasNoiseLaw(Protocol):
    """An engine of "query + noise": its noise law ``noise`` and the same engine with another
    (``with_noise(law)``: the same query laws, the same cached recursions, no model work; e.g. a
    calibration bisecting over the amount of noise,
    ``engine.with_noise(law.with_parameter(a)).search(BdplScore())``)."""

    noise: Any

    def with_noise(self, noise: Any) -> Any:
        """This engine with the noise law ``noise`` (a :class:`~bdpsim.kernels.noise.laws.NoiseLaw`)."""
        ...


@runtime_checkable
class HasOutputPair(Protocol):
    """The two output laws of one adversary as the attack quantities read them
    (:class:`~bdpsim.models.pairs.OutputPair`: the hockey-stick divergences of both directions, the
    BDPL), whatever the mechanism's output is (query + noise on a lattice, two normal laws, a finite
    set of outcomes)."""

    def output_pair(self, adversary: Adversary) -> OutputPair:
        """``P`` given ``(x_K, x)`` and ``Q`` given ``(x_K, x')`` (raises
        :class:`~bdpsim.core.errors.NotAvailable` when a condition has probability zero)."""
        ...


@runtime_checkable
class HasProfiles(Protocol):
    """The two-sided privacy profile ``delta(eps) = sup_a max(∫ (p_a - e^eps q_a)^+, ∫ (q_a -
    e^eps p_a)^+)`` at several ``eps >= 0`` over every adversary with ``|K| >= min_known``, in one
    pass, with who attains each (what the attack reads its advantage, ``eps = 0``, and its TPR
    bounds from: :mod:`bdpsim.attack.worst`)."""

    def check_profiles(self, min_known: int) -> None:
        """Raise :class:`SearchTooLarge` if the search is too large to finish."""
        ...

    def profiles(
        self, epsilons: Sequence[float], min_known: int = 0, top: int | None = 1, bdpl: bool = False
    ) -> AdversarySearch:
        """Components ``delta(eps)`` for each of ``epsilons`` in order (then ``"bdpl"`` with
        ``bdpl``: the BDPL over every adversary, the numbers of :meth:`HasSearch.search` with
        :class:`BdplScore`); ``top`` cells by the first component (:class:`AdversarySearch`)."""
        ...


def profile_score(epsilons: Sequence[float], bdpl: bool = False) -> PairScore:
    """The score of :meth:`HasProfiles.profiles`: :class:`ProfilesScore` of ``epsilons`` (then
    the BDPL with ``bdpl``)."""
    return ProfilesScore([float(e) for e in epsilons], bdpl=bdpl)


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

    * :meth:`with_noise`: the same engine with another noise law (:class:`HasNoiseLaw`);
    * :meth:`search`: every adversary scored by any :class:`PairScore` (:class:`HasSearch`), by
      enumeration here — every target, known set of ``|K| >= min_known``, known values and pair of
      target values of a discrete model, at most :attr:`SEARCH_LIMIT` adversaries; the built-in
      kinds search fewer cells (the window, region and class reductions); :meth:`law_pairs`, the
      pairs it scores.

    A subclass sets ``noise`` and ``method`` and implements :meth:`query_laws`; it satisfies
    :class:`ExactEngine`, :class:`HasProfile`, :class:`HasQueryLaws`, :class:`HasNoiseLaw` and
    :class:`HasSearch` (the protocols stay the interface: this class is how an engine gets them,
    not what callers check). What it computes once for every noise law goes to :meth:`_noise_free`
    (shared by its :meth:`with_noise` copies, not pickled).
    """

    noise: Any
    method: str
    incomplete: str | None = None
    #: most adversaries the enumerating :meth:`search` examines
    SEARCH_LIMIT = 200_000
    #: rows of law pairs per call of a score
    SCORE_CHUNK = 20_000

    def _noise_free(self) -> dict:
        """What this engine computed that does not depend on the noise law (a dict; its
        :meth:`with_noise` copies share it; a pickled engine leaves it behind)."""
        found = self.__dict__.get("_noise_free_cache")
        if found is None:
            found = self.__dict__["_noise_free_cache"] = {}
        return found

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_noise_free_cache", None)
        return state

    def with_noise(self, noise) -> Any:
        """This engine with the noise law ``noise`` (:class:`HasNoiseLaw`): the same query laws and
        what they cached; only the noise changes."""
        if not isinstance(noise, NoiseLaw):
            raise TypeError(f"noise = {noise!r}: must be a noise law (bdpsim.kernels.noise.laws.NoiseLaw)")
        self._noise_free()  # created before the copy, so that both share it
        new = object.__new__(type(self))  # not copy.copy: it would drop it (__getstate__)
        new.__dict__.update(self.__dict__)
        object.__setattr__(new, "noise", noise)
        return new

    @abstractmethod
    def query_laws(self, adversary: Adversary) -> QueryLaws:
        """The laws of the query given ``(x_K, x)`` and ``(x_K, x')`` (raises
        :class:`~bdpsim.core.errors.NotAvailable` when a condition has probability zero)."""

    def output_pair(self, adversary: Adversary) -> LatticePair:
        """The adversary's two output laws (:class:`HasOutputPair`): its query laws plus the
        noise law, on the query's lattice."""
        laws = self.query_laws(adversary)
        return LatticePair(
            laws.under_x, laws.under_x_prime, float(laws.step), float(laws.atoms[0]), self.noise
        )

    def check_profiles(self, min_known: int) -> None:
        self.check_search(min_known)

    def profiles(
        self, epsilons: Sequence[float], min_known: int = 0, top: int | None = 1, bdpl: bool = False
    ) -> AdversarySearch:
        """The privacy profile at every one of ``epsilons`` over every adversary in one search
        (:class:`HasProfiles`; :meth:`search` with :func:`profile_score`)."""
        return cast(Any, self).search(profile_score(epsilons, bdpl), min_known, top)

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

    # ------------------------------------------------------------------ search by enumeration
    def _record_states(self) -> list[int]:
        """The number of states of every record of the engine's model (a discrete model), or
        :class:`~bdpsim.core.errors.NotAvailable`."""
        model = self.__dict__.get("model")
        if isinstance(model, HasRecordStates):
            return [int(c) for c in model.record_states]
        if isinstance(model, HasStates) and isinstance(model.states, (int, np.integer)):
            return [int(model.states)] * int(cast(Any, model).n)  # a data model: it has n
        raise NotAvailable(
            f"{type(self).__name__}: no search over every adversary (a discrete model's records are "
            "enumerated; this engine has no model with states)"
        )

    def _count(self, min_known: int, targets: Sequence[int] | None) -> int:
        cards = self._record_states()
        n = len(cards)
        total = 0
        for i in range(n) if targets is None else targets:
            others = [c for j, c in enumerate(cards) if j != i]
            # sum over known sets of size >= min_known of prod (states): elementary symmetric sums
            e = np.zeros(n)
            e[0] = 1.0
            for c in others:
                e[1:] = e[1:] + c * e[:-1]
            total += int(sum(e[k] for k in range(min_known, n))) * math.comb(cards[i], 2)
        return total

    def check_search(self, min_known: int) -> None:
        """Raise :class:`SearchTooLarge` (field ``run.adversaries``) above :attr:`SEARCH_LIMIT`
        adversaries (:meth:`search` enumerates them)."""
        total = self._count(min_known, None)
        if total > self.SEARCH_LIMIT:
            raise SearchTooLarge(
                "run.adversaries",
                f"the search over every adversary would enumerate {total} adversaries (limit "
                f"{self.SEARCH_LIMIT}); use fewer records or a larger min_known",
            )

    def _adversaries(self, min_known: int, targets: Sequence[int] | None):
        cards = self._record_states()
        n = len(cards)
        for i in range(n) if targets is None else targets:
            others = [j for j in range(n) if j != i]
            for k in range(min_known, n):
                for K in itertools.combinations(others, k):
                    for xk in itertools.product(*(range(cards[j]) for j in K)):
                        for x, xp in itertools.combinations(range(cards[i]), 2):
                            yield Adversary(i, K, xk, x, xp)

    def search(
        self,
        score: PairScore,
        min_known: int = 0,
        top: int | None = 1,
        targets: Sequence[int] | None = None,
    ) -> AdversarySearch:
        """Every adversary scored (:class:`HasSearch`), by enumeration (the class docstring); a
        score reading the query's values is refused (:func:`refuse_query_values`)."""
        names = names_of(score)
        refuse_query_values(score, f"{type(self).__name__}'s search by enumeration")
        check(
            isinstance(min_known, (int, np.integer)) and min_known >= 0,
            "min_known",
            min_known,
            "must be an integer >= 0",
        )
        if targets is None:
            self.check_search(int(min_known))
        elif self._count(int(min_known), targets) > self.SEARCH_LIMIT:
            raise SearchTooLarge("run.adversaries", f"more than {self.SEARCH_LIMIT} adversaries to enumerate")
        advs, laws = [], []
        for adv in self._adversaries(int(min_known), targets):
            try:
                law = self.query_laws(adv)
            except NotAvailable:  # a condition of probability zero: no such adversary
                continue
            advs.append(adv)
            laws.append(law)
        if not advs:
            raise NotAvailable("no adversary has two target values of positive probability")
        steps = {float(law.step) for law in laws}
        if len(steps) > 1:
            raise NotAvailable(f"the query's lattice step differs between adversaries ({sorted(steps)})")
        step = steps.pop()
        J = max(law.under_x.size for law in laws)
        pad = lambda w: np.pad(np.asarray(w, dtype=float), (0, J - w.size))  # noqa: E731
        W1 = np.vstack([pad(law.under_x) for law in laws])
        W2 = np.vstack([pad(law.under_x_prime) for law in laws])
        got = score_rows(score, W1, W2, step, self.noise, self.SCORE_CHUNK)
        starts = np.array([float(law.atoms[0]) for law in laws])

        def row(j: int, k: int) -> AdversaryRow:
            return adversary_row(advs[j], got, j, k, starts[j], step)

        return ranked_search(names, got, row, top)

    def law_pairs(self, min_known: int = 0, targets: Sequence[int] | None = None) -> QueryLawPairs:
        """Every law pair :meth:`search` scores (:class:`QueryLawPairs`), recorded by
        :class:`~bdpsim.kernels.noise.scores.RecordPairs` during one search."""
        rec = RecordPairs()
        found = self.search(rec, min_known, 1, targets)
        W1, W2, step = rec.stacked()
        return QueryLawPairs(W1, W2, step, float(found.tolerance))


def refuse_query_values(score, search: str) -> None:
    """Raise :class:`~bdpsim.core.errors.NotAvailable` when ``score`` reads the query's values
    themselves (:class:`~bdpsim.kernels.noise.scores.ReadsQueryValues`): ``search`` gives its law
    pairs up to a shift (the searches that give them on the values: a chain's window scan, a
    network's region search)."""
    if reads_query_values(score):
        raise NotAvailable(
            f"{search}: its law pairs are on the query's lattice up to a shift, not on the query's "
            "values as they are (a score reading them needs a chain's window scan or a network's "
            "region search)"
        )


def score_rows(score, W1: np.ndarray, W2: np.ndarray, step: float, noise, chunk: int = 20_000) -> Scored:
    """``score`` of the law pairs ``W1, W2`` (rows), in chunks of ``chunk`` rows, as one
    :class:`~bdpsim.kernels.noise.scores.Scored` of shape ``(rows, m)``."""
    rows = W1.shape[0]
    parts = [
        Scored.of(score(W1[s : s + chunk], W2[s : s + chunk], step, noise), min(chunk, rows - s))
        for s in range(0, rows, chunk)
    ]
    return Scored.join(parts, axis=0)


def adversary_row(adv: Adversary, got: Scored, j: int, k: int, start: float, step: float) -> AdversaryRow:
    """The searched adversary ``adv`` (cell ``j``) reported for component ``k``: ordered as the
    component is attained, its value and the output where (``start + step * atom``)."""
    a = adv if bool(got.forward[j, k]) else Adversary(adv.i, adv.known, adv.x_known, adv.x_prime, adv.x)
    atom = float(got.atom[j, k])
    y = start + step * atom if math.isfinite(atom) else atom
    return AdversaryRow(a, float(got.value[j, k]), y)


def ranked_search(names, got: Scored, row, top: int | None, pick=None, **kw) -> AdversarySearch:
    """The :class:`AdversarySearch` of scored cells: ``row(j, k)`` the row of cell ``j`` for
    component ``k``; ``pick(values_k) -> j`` the cell reported for a component's supremum
    (default: the first largest); the ``top`` cells by the first component (stable order)."""
    V = got.value
    finite = np.nan_to_num(V, nan=-np.inf)
    choose = pick or (lambda v: int(np.argmax(v)))
    worst = tuple(row(choose(finite[:, k]), k) for k in range(V.shape[1]))
    leaders = []
    for k in range(V.shape[1]):
        order = np.argsort(-finite[:, k], kind="stable")
        leaders.append([row(int(j), k) for j in (order if top is None else order[:top])])
    return AdversarySearch(
        tuple(names),
        np.array([w.bdpl for w in worst]),
        worst,
        leaders[0],
        V,
        **kw,
        leaders=tuple(leaders),
    )


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

    def known_sizes(self) -> np.ndarray:
        """``|K|``, the number of known records, of every adversary."""
        return (np.asarray(self.pattern) >= 0).sum(axis=1)

    def worst(self, rtol: float = 1e-9) -> int:
        """The adversary of the largest BDPL; among ties (within ``rtol``) one of the fewest known
        records, then the first."""
        top = self.value.max()
        tied = np.flatnonzero(self.value >= top - rtol * max(1.0, abs(top)))
        return int(tied[np.argmin(self.known_sizes()[tied])])

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
    (:func:`~bdpsim.models.engines.exact_engine`). Declared here, below the mechanisms, so that
    :func:`engine_for` asks it without importing them (``bdpsim.mechanisms.protocols`` re-exports
    it)."""

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
