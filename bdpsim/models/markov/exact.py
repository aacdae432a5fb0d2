"""Exact BDPL of an additive query plus Laplace noise on a Markov chain (paper §6, thesis §7).

* One adversary: ``P(S = s | x_K, x_i)`` for ``S = sum_t f(X_t)`` (a count, or a sum of per-state
  values on a lattice) by the clamped forward recursion over (position, state, partial sum)
  (:meth:`MarkovChainModel.additive_law_masked`), then the exact sup of two Laplace mixtures.
* Every adversary, small ``n``: :func:`exhaustive_markov_count` enumerates every known set in one
  batched recursion; paper scale: the window reduction (:mod:`bdpsim.models.markov.window`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...adversary import Adversary, Estimate
from ...core.errors import NotAvailable, naming
from ...kernels.noise.laplace_mixture import grid_mixture_sup
from ...kernels.chains.lattice import lattice
from ...kernels.noise.protocols import LaplaceKernel
from ...queries import AdditiveQuery, CountQuery
from ..base import ExactEngine, ExhaustiveResult
from .model import MarkovChainModel
from .window import window_table
from ..noisy import noisy_bdpl, noisy_profile, one_sided_from_laws

EXHAUSTIVE_LIMIT = 5_000_000


def _laws(model: MarkovChainModel, query: AdditiveQuery, adv: Adversary):
    """``(law under x, law under x', lattice step, atoms)`` of ``S = sum_t f(X_t)`` by the clamped
    forward recursion."""
    pos = list(adv.known) + [adv.i]
    vals = np.array([list(adv.x_known) + [adv.x], list(adv.x_known) + [adv.x_prime]])
    with naming(fields={"values": "mechanism.state_values"}):  # the query values off any lattice
        g, delta, fmin = lattice(query.per_state(model.states))
    allowed = np.ones((2, model.n, model.states))
    for j, p in enumerate(pos):
        allowed[:, p, :] = 0.0
        allowed[np.arange(2), p, vals[:, j]] = 1.0
    law, logev = model.additive_law_masked(allowed, g)
    if not np.all(np.isfinite(logev)):
        raise NotAvailable(f"adversary {adv}: a conditioning event has probability zero")
    return law[:1], law[1:], delta, model.n * fmin + delta * np.arange(law.shape[1], dtype=float)


def additive_bdpl(model: MarkovChainModel, query: AdditiveQuery, b: float, adv: Adversary) -> Estimate:
    """Exact ``BDPL_(K,i)(x, x')`` of ``query + Lap(b)``: both laws by the clamped forward
    recursion, then the exact sup of two Laplace mixtures (log space)."""
    W1, W2, _, atoms = _laws(model, query, adv)
    with np.errstate(divide="ignore"):
        v, where = grid_mixture_sup(np.log(W1), np.log(W2), atoms, b)
    return Estimate(float(v[0]), 0, float(where[0]))


def exhaustive_limit(model: MarkovChainModel, sizes: Sequence[int]) -> str | None:
    total = model.n * sum(math.comb(model.n - 1, k) * model.states ** k for k in sizes)
    return None if total <= EXHAUSTIVE_LIMIT else (
        f"'all' would examine {total} adversaries (limit 5e6); lower n or restrict known_sizes")


def exhaustive_markov_count(model: MarkovChainModel, mech, sizes: Sequence[int],
                            targets: Sequence[int] | None = None, batch: int = 65_536) -> ExhaustiveResult:
    """Exact BDPL of every adversary ``(i, K, x_K, {x, x'})`` with ``|K|`` in ``sizes`` of a
    Laplace count ``mech`` (its ``query_function.counted_states`` and ``noise.scale``).

    Each other record is either unknown or known with one of the ``s`` values, so for a target
    ``i`` there are ``(s + 1)^(n - 1)`` (known set, known values) combinations; their count laws
    under every ``x_i`` come from one batched clamped recursion
    (:meth:`MarkovChainModel.count_law_masked`), processed in batches of ``batch`` combinations.
    Each unordered pair ``x < x'`` is one adversary (the value is symmetric in ``x, x'``);
    conditions of probability zero are skipped. ``targets`` restricts the target indices.
    """
    n, s, b = model.n, model.states, mech.noise.scale
    atoms = np.arange(n + 1.0)
    wanted = {int(k) for k in sizes}
    codes = np.array(list(itertools.product(range(-1, s), repeat=n - 1)), dtype=np.int8)
    codes = codes[np.isin((codes >= 0).sum(axis=1), list(wanted))]
    pairs = list(itertools.combinations(range(s), 2))
    parts = []
    for i in (range(n) if targets is None else targets):
        others = [j for j in range(n) if j != i]
        for start in range(0, codes.shape[0], batch):
            c = codes[start:start + batch]
            m = c.shape[0]
            allowed = np.empty((m, s, n, s))
            cols = (c[:, :, None] == -1) | (c[:, :, None] == np.arange(s)[None, None, :])
            allowed[:, :, others, :] = cols[:, None, :, :]
            allowed[:, :, i, :] = np.eye(s)[None, :, :]
            law, logev = model.count_law_masked(allowed.reshape(m * s, n, s), mech.query_function.counted_states)
            law = law.reshape(m, s, n + 1)
            ok = np.isfinite(logev).reshape(m, s)
            with np.errstate(divide="ignore", invalid="ignore"):
                lw = np.log(law)
            for x, xp in pairs:
                rows = np.flatnonzero(ok[:, x] & ok[:, xp])
                if rows.size == 0:
                    continue
                v, where = grid_mixture_sup(lw[rows, x], lw[rows, xp], atoms, b)
                pattern = np.full((rows.size, n), -2, dtype=np.int8)
                pattern[:, others] = c[rows]
                parts.append(ExhaustiveResult(np.full(rows.size, i), pattern, np.full(rows.size, x),
                                              np.full(rows.size, xp), v, where))
    return ExhaustiveResult.concat(parts, n)


def markov_engine(model: MarkovChainModel, mech, query: AdditiveQuery, noise) -> ExactEngine:
    """The exact engine of ``query + noise`` on ``model``: per adversary, every adversary by the
    window reduction, the privacy profile; and (Laplace counts only) enumeration of every known set."""
    f = query.per_state(model.states)
    profile: dict[str, Any] = dict(profile=lambda adv, eps: noisy_profile(model, _laws, query, noise, adv, eps),
                   window_profile=lambda min_known, eps: window_table(model, f, noise, min_known=min_known,
                                                                       top=1, profile=eps)[0].bdpl,
                   profile_window=lambda min_known, eps, top: window_table(model, f, noise, min_known=min_known,
                                                                           top=top, profile=eps))
    if not isinstance(noise, LaplaceKernel):  # the law's capability: closed-form Laplace mixture sups
        return ExactEngine(
            bdpl=lambda adv: noisy_bdpl(model, _laws, query, noise, adv),
            one_sided=lambda adv: noisy_bdpl(model, _laws, query, noise, adv, signed=True),
            method=f"forward recursion over (position, state, lattice sum), then the exact sup of two {noise.name} "
                   "mixtures; all adversaries by the window reduction",
            window=lambda min_known, top: window_table(model, f, noise, min_known=min_known, top=top), **profile)
    b = noise.scale
    count = isinstance(query, CountQuery)
    return ExactEngine(**profile,
        bdpl=lambda adv: additive_bdpl(model, query, b, adv),
        one_sided=lambda adv: one_sided_from_laws(model, query, b, adv),
        method=("clamped forward recursion over (position, state, count), then the exact sup of two "
                "Laplace mixtures; all adversaries by the window reduction (or enumeration of every K)"
                if count else "forward recursion over (position, state, lattice sum of state_values); all "
                "adversaries by the window reduction"),
        exhaustive=(lambda sizes, targets: exhaustive_markov_count(model, mech, sizes, targets)) if count else None,
        limit=(lambda sizes: exhaustive_limit(model, sizes)) if count else None,
        window=lambda min_known, top: window_table(model, f, b, min_known=min_known, top=top))
