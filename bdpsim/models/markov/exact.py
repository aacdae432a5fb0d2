"""Exact BDPL of an additive query plus noise on a Markov chain (paper §6, thesis §7).

* One adversary: ``P(S = s | x_K, x_i)`` for ``S = sum_t f(X_t)`` (a count, or a sum of per-state
  values on a lattice) by the clamped forward recursion over (position, state, partial sum)
  (:meth:`MarkovChainModel.additive_law_masked`), then the noise law's exact sup of two mixtures
  (Laplace: :func:`~bdpsim.kernels.noise.laplace_mixture.grid_sup`, the one exact Laplace grid
  supremum).
* Every adversary, small ``n``: :func:`exhaustive_markov_count` enumerates every known set in one
  batched recursion; paper scale: the window reduction (:mod:`bdpsim.models.markov.window`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...adversary import Adversary
from ...core.errors import ConfigError, NotAvailable, naming
from ...kernels.chains.lattice import lattice
from ...queries import AdditiveQuery, CountQuery
from ..engines import (
    AdversarySearch,
    BdplScore,
    ExhaustiveResult,
    LatticePair,
    PairScore,
    ProfileScore,
    QueryLaws,
    QueryLawsEngine,
    SearchCost,
    SearchTooLarge,
    check_all_targets,
)
from .model import MarkovChainModel
from .segments import chain_query_laws
from .window import DEFAULT_TOLERANCE, scan_cost, scored_search, window_rows

#: the window search's own options (:class:`~bdpsim.models.engines.HasSearchOptions`) and their
#: defaults: windows longer than the least length whose truncation bound is below ``tolerance``
#: are left out (:mod:`bdpsim.models.markov.window`)
WINDOW_OPTIONS: dict[str, Any] = {"window_limit": "auto", "tolerance": DEFAULT_TOLERANCE}

EXHAUSTIVE_LIMIT = 5_000_000

if TYPE_CHECKING:  # pragma: no cover
    from .window import WindowAdversary, WindowSearch

    #: a chain's window search (``WindowSearchResult`` of :mod:`bdpsim.models.engines`)
    ChainSearchResult = tuple[WindowSearch, list[WindowAdversary], np.ndarray]


def _laws(model: MarkovChainModel, query: AdditiveQuery, adv: Adversary) -> QueryLaws:
    """The laws of ``S = sum_t f(X_t)`` under ``(x_K, x)`` and ``(x_K, x')`` on its lattice
    ``n f_min + delta j`` by the clamped forward recursion (every record carries the partial sum:
    the numbers of every exact BDPL; :func:`_pair_laws` is the linear-time path of the attack's
    output laws)."""
    pos = list(adv.known) + [adv.i]
    vals = np.array([list(adv.x_known) + [adv.x], list(adv.x_known) + [adv.x_prime]])
    g, delta, fmin = _lattice(model, query)
    allowed = np.ones((2, model.n, model.states))
    for j, p in enumerate(pos):
        allowed[:, p, :] = 0.0
        allowed[np.arange(2), p, vals[:, j]] = 1.0
    law, logev = model.additive_law_masked(allowed, g)
    if not np.all(np.isfinite(logev)):
        raise NotAvailable(f"adversary {adv}: a conditioning event has probability zero")
    atoms = model.n * fmin + delta * np.arange(law.shape[1], dtype=float)
    return QueryLaws(atoms, law[0], law[1], float(delta))


def _lattice(model: MarkovChainModel, query: AdditiveQuery):
    with naming(fields={"values": "mechanism.state_values"}):  # the query values off any lattice
        return lattice(query.per_state(model.states))


def _pair_laws(model: MarkovChainModel, query: AdditiveQuery, adv: Adversary) -> QueryLaws:
    """:func:`_laws` run of unknown records by run, on the atoms the unknown records reach
    (:func:`~bdpsim.models.markov.segments.chain_query_laws` with ``trim``: linear in ``n``)."""
    g, delta, fmin = _lattice(model, query)
    return chain_query_laws(model, g, delta, fmin, adv, trim=True)


def check_exhaustive(model: MarkovChainModel, sizes: Sequence[int]) -> None:
    """Raise :class:`~bdpsim.models.engines.SearchTooLarge` (field ``run.adversaries``) when the
    enumeration would examine more than :data:`EXHAUSTIVE_LIMIT` adversaries
    ``n sum_k C(n-1, k) s^k``."""
    total = model.n * sum(math.comb(model.n - 1, k) * model.states**k for k in sizes)
    if total > EXHAUSTIVE_LIMIT:
        raise SearchTooLarge(
            "run.adversaries",
            f"'all' would examine {total} adversaries (limit 5e6); lower n or restrict known_sizes",
        )


def exhaustive_markov_count(
    model: MarkovChainModel,
    mech,
    sizes: Sequence[int],
    targets: Sequence[int] | None = None,
    batch: int = 65_536,
    noise=None,
) -> ExhaustiveResult:
    """Exact BDPL of every adversary ``(i, K, x_K, {x, x'})`` with ``|K|`` in ``sizes`` of a
    count plus noise ``mech`` (its ``query_function.counted_states`` and ``noise``, any noise law:
    its exact ``grid_sup`` on the count's lattice, for Laplace noise
    :func:`~bdpsim.kernels.noise.laplace_mixture.grid_sup`).

    Each other record is either unknown or known with one of the ``s`` values, so for a target
    ``i`` there are ``(s + 1)^(n - 1)`` (known set, known values) combinations; their count laws
    under every ``x_i`` come from one batched clamped recursion
    (:meth:`MarkovChainModel.count_law_masked`), processed in batches of ``batch`` combinations.
    Each unordered pair ``x < x'`` is one adversary (the value is symmetric in ``x, x'``);
    conditions of probability zero are skipped. ``targets`` restricts the target indices;
    ``noise`` replaces the mechanism's noise law (an engine's :meth:`~MarkovEngine.with_noise`).
    """
    n, s = model.n, model.states
    noise = mech.noise if noise is None else noise
    wanted = {int(k) for k in sizes}
    codes = np.array(list(itertools.product(range(-1, s), repeat=n - 1)), dtype=np.int8)
    codes = codes[np.isin((codes >= 0).sum(axis=1), list(wanted))]
    pairs = list(itertools.combinations(range(s), 2))
    parts = []
    for i in range(n) if targets is None else targets:
        others = [j for j in range(n) if j != i]
        for start in range(0, codes.shape[0], batch):
            c = codes[start : start + batch]
            m = c.shape[0]
            allowed = np.empty((m, s, n, s))
            cols = (c[:, :, None] == -1) | (c[:, :, None] == np.arange(s)[None, None, :])
            allowed[:, :, others, :] = cols[:, None, :, :]
            allowed[:, :, i, :] = np.eye(s)[None, :, :]
            law, logev = model.count_law_masked(
                allowed.reshape(m * s, n, s), mech.query_function.counted_states
            )
            law = law.reshape(m, s, n + 1)
            ok = np.isfinite(logev).reshape(m, s)
            for x, xp in pairs:
                rows = np.flatnonzero(ok[:, x] & ok[:, xp])
                if rows.size == 0:
                    continue
                v, where = noise.grid_sup(law[rows, x], law[rows, xp], 1.0)  # atoms 0..n, step 1
                v = np.abs(v)
                pattern = np.full((rows.size, n), -2, dtype=np.int8)
                pattern[:, others] = c[rows]
                parts.append(
                    ExhaustiveResult(
                        np.full(rows.size, i),
                        pattern,
                        np.full(rows.size, x),
                        np.full(rows.size, xp),
                        v,
                        where,
                    )
                )
    return ExhaustiveResult.concat(parts, n)


def _method(noise) -> str:
    return (
        f"forward recursion over (position, state, lattice sum), then the exact sup of two {noise.name} "
        "mixtures; all adversaries by the window reduction"
    )


class MarkovEngine(QueryLawsEngine):
    """The exact engine of ``query + noise`` (an additive query on a lattice, any noise law) on a
    Markov chain: per adversary the two query laws by the forward recursion over (position, state,
    lattice sum) then the noise law's exact sup of two mixtures (:class:`QueryLawsEngine`); every
    adversary by the window reduction, for any score (:meth:`search`; the BDPL: :meth:`window`, the
    privacy profile: :meth:`profile_window`); the privacy profile per adversary; another noise law
    (:meth:`with_noise`).

    Capabilities: :class:`~bdpsim.models.engines.HasSearch`,
    :class:`~bdpsim.models.engines.HasNoiseLaw`, :class:`~bdpsim.models.engines.HasWindowSearch`,
    :class:`~bdpsim.models.engines.HasProfile`, :class:`~bdpsim.models.engines.HasProfileSearch`,
    :class:`~bdpsim.models.engines.HasQueryLaws`, :class:`~bdpsim.models.engines.HasSearchCost`
    (the window scan's estimate), :class:`~bdpsim.models.engines.HasScanRows` (its law pairs by
    window size), :class:`~bdpsim.models.engines.HasSearchOptions` (the window
    truncation, :data:`WINDOW_OPTIONS`).
    """

    def __init__(self, model: MarkovChainModel, mech, query: AdditiveQuery, noise) -> None:
        self.model, self.mechanism, self.query, self.noise = model, mech, query, noise
        self.values = query.per_state(model.states)
        self.method = _method(noise)
        self.search_options: dict[str, Any] = dict(WINDOW_OPTIONS)

    def with_search_options(self, **options) -> MarkovEngine:
        """This engine with the window search's options changed (:data:`WINDOW_OPTIONS`; checked
        by the search)."""
        unknown = sorted(set(options) - set(WINDOW_OPTIONS))
        if unknown:
            raise ConfigError(
                "search",
                unknown,
                f"the window search's options are {list(WINDOW_OPTIONS)} (besides min_known, targets)",
            )
        new = self.with_noise(self.noise)  # a copy sharing the noise-free part
        new.search_options = {**self.search_options, **options}
        return new

    def search_cost(self, min_known: int) -> SearchCost:
        """The window scan's up-front estimate (:func:`~bdpsim.models.markov.window.scan_cost`)."""
        return SearchCost(*scan_cost(self.model, self.values, min_known=min_known, **self.search_options))

    def scan_rows(self, min_known: int) -> np.ndarray:
        """The law pairs the window scan scores, by unknown records per window
        (:func:`~bdpsim.models.markov.window.window_rows`)."""
        return window_rows(self.model, min_known=min_known, **self.search_options)

    def with_noise(self, noise) -> MarkovEngine:
        new = super().with_noise(noise)
        new.method = type(self)._describe(noise)
        return new

    @staticmethod
    def _describe(noise) -> str:
        return _method(noise)

    def query_laws(self, adversary: Adversary) -> QueryLaws:
        return _laws(self.model, self.query, adversary)

    def output_pair(self, adversary: Adversary) -> LatticePair:
        """The adversary's output laws on the atoms its unknown records reach (linear in ``n``:
        :func:`~bdpsim.models.markov.segments.chain_query_laws`)."""
        laws = _pair_laws(self.model, self.query, adversary)
        return LatticePair(laws.under_x, laws.under_x_prime, laws.step, float(laws.atoms[0]), self.noise)

    def check_search(self, min_known: int) -> None:
        return None  # the window reduction is polynomial in n

    def search(
        self, score: PairScore, min_known: int = 0, top: int | None = 1, targets: Sequence[int] | None = None
    ) -> AdversarySearch:
        """Every adversary scored by the window reduction
        (:func:`~bdpsim.models.markov.window.scored_search`; ``tolerance``: the truncation of
        windows longer than the automatic window limit)."""
        return scored_search(
            self.model,
            self.values,
            self.noise,
            score,
            top=top,
            min_known=min_known,
            targets=targets,
            **self.search_options,
        )

    def profile_window(self, min_known: int, epsilon: float, top: int | None) -> ChainSearchResult:
        found = self.search(ProfileScore(epsilon), min_known, top)
        return found.detail, found.rows, found.values[:, 0]

    def check_window(self, min_known: int) -> None:
        return None  # the window reduction is polynomial in n

    def window(self, min_known: int, top: int | None, targets=None) -> ChainSearchResult:
        check_all_targets(targets)
        found = self.search(BdplScore(), min_known, top)
        return found.detail, found.rows, found.values[:, 0]


class MarkovCountEngine(MarkovEngine):
    """:class:`MarkovEngine` of a count (any noise law), which also enumerates every known set
    (:func:`exhaustive_markov_count`; capability :class:`~bdpsim.models.engines.HasExhaustive`)."""

    def __init__(self, model: MarkovChainModel, mech, query: AdditiveQuery, noise) -> None:
        super().__init__(model, mech, query, noise)
        self.method = self._describe(noise)

    @staticmethod
    def _describe(noise) -> str:
        return (
            "clamped forward recursion over (position, state, count), then the exact sup of two "
            f"{noise.name} mixtures; all adversaries by the window reduction (or enumeration of every K)"
        )

    def check_exhaustive(self, sizes: Sequence[int]) -> None:
        check_exhaustive(self.model, sizes)

    def exhaustive(self, sizes: Sequence[int], targets: Sequence[int] | None) -> ExhaustiveResult:
        return exhaustive_markov_count(self.model, self.mechanism, sizes, targets, noise=self.noise)


def markov_engine(model: MarkovChainModel, mech, query: AdditiveQuery, noise) -> MarkovEngine:
    """The exact engine of ``query + noise`` on ``model`` (any noise law: its exact functions, for
    Laplace noise :func:`~bdpsim.kernels.noise.laplace_mixture.grid_sup`): per adversary, every
    adversary by the window reduction, the privacy profile; and for counts enumeration of every
    known set."""
    if isinstance(query, CountQuery):
        return MarkovCountEngine(model, mech, query, noise)
    return MarkovEngine(model, mech, query, noise)
