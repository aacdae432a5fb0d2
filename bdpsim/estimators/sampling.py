"""Conditional sampling of query values and mechanism outputs, in bounded-memory chunks.

Thesis §3.1.2 step 2–3: draw data tuples with ``X_K = x_K, X_i = x_i`` and run the mechanism once
per tuple. For a Markov chain with a count query the law of the count given the condition is
known exactly (:meth:`MarkovChainModel.count_law`); ``mode="auto"`` then draws the count from that
law, which has exactly the distribution of counting freshly sampled chains, at a fraction of the
cost. ``mode="data"`` always simulates full data tuples (chunk by chunk).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from ..core.errors import naming
from ..kernels.chains.lattice import lattice
from ..mechanisms.protocols import HasQueryFunction
from ..models.protocols import HasGaussianConditional, HasQueryLaw, HasStates
from ..queries import AdditiveQuery, ClippedSumQuery, laplace_noisy

SAMPLING_MODES = ("auto", "data")


def exact_query_law(model, mechanism, known: Mapping) -> tuple[np.ndarray, np.ndarray] | None:
    """``(atoms, probabilities)`` of the noiseless query given ``known``, or ``None`` when the
    model offers no exact law for this mechanism's query (its ``query_law``,
    :class:`~bdpsim.models.protocols.HasQueryLaw`)."""
    if isinstance(model, HasQueryLaw) and laplace_noisy(mechanism) is not None:  # optional capabilities
        return model.query_law(mechanism.query_function, known)
    return None


def _data_chunks(model, known: Mapping, size: int, rng: np.random.Generator, chunk: int):
    cond = model.conditional(known) if isinstance(model, HasGaussianConditional) else None
    done = 0
    while done < size:
        m = min(chunk, size - done)
        if cond is not None:
            yield model.sample_conditional(known, m, rng, cond=cond)
        else:
            yield model.sample_conditional(known, m, rng)
        done += m


def _multinomial(
    law: tuple[np.ndarray, np.ndarray], size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    atoms, p = law
    counts = rng.multinomial(size, p / p.sum())
    keep = counts > 0
    return atoms[keep], counts[keep]


def _simulated(model, mechanism, known, size, rng, chunk) -> np.ndarray:
    return np.concatenate([mechanism.query(d) for d in _data_chunks(model, known, size, rng, chunk)])


def merge_laws(*laws: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The empirical law of the union of samples given as ``(atoms, counts)`` laws: sorted
    distinct atoms and their summed counts."""
    atoms = np.concatenate([a for a, _ in laws])
    counts = np.concatenate([c for _, c in laws])
    order = np.argsort(atoms, kind="stable")
    atoms, counts = atoms[order], counts[order]
    if atoms.size == 0:
        return atoms, counts
    start = np.flatnonzero(np.concatenate([[True], atoms[1:] != atoms[:-1]]))
    return atoms[start], np.add.reduceat(counts, start)


def sample_query_counts(
    model,
    mechanism,
    known: Mapping,
    size: int,
    rng: np.random.Generator,
    mode: str = "auto",
    chunk: int = 65_536,
) -> tuple[np.ndarray, np.ndarray]:
    """The empirical law of ``size`` noiseless query values: sorted distinct ``atoms`` and their
    ``counts``. With an exact query law (``mode="auto"``) the counts are one multinomial draw,
    which has exactly the law of counting ``size`` i.i.d. query values. Otherwise data tuples are
    simulated chunk by chunk and each chunk is reduced to its law at once, so memory holds one
    chunk of tuples plus the distinct query values (``n + 1`` of them for a count)."""
    law = exact_query_law(model, mechanism, known) if mode == "auto" else None
    if law is not None:
        return _multinomial(law, size, rng)
    return merge_laws(
        *(
            np.unique(mechanism.query(d), return_counts=True)
            for d in _data_chunks(model, known, size, rng, chunk)
        )
    )


def sample_query(
    model,
    mechanism,
    known: Mapping,
    size: int,
    rng: np.random.Generator,
    mode: str = "auto",
    chunk: int = 65_536,
) -> np.ndarray:
    """``size`` noiseless query values ``f(X)`` with ``X ~ pi(. | known)`` (sorted when drawn
    from an exact law; the order carries no information for i.i.d. draws)."""
    law = exact_query_law(model, mechanism, known) if mode == "auto" else None
    if law is not None:
        return np.repeat(*_multinomial(law, size, rng))
    return _simulated(model, mechanism, known, size, rng, chunk)


def sample_outputs(
    model,
    mechanism,
    known: Mapping,
    size: int,
    rng: np.random.Generator,
    mode: str = "auto",
    chunk: int = 65_536,
) -> np.ndarray:
    """``size`` mechanism outputs ``M(X)`` with ``X ~ pi(. | known)`` (one output per tuple)."""
    if laplace_noisy(mechanism) is not None:
        q = sample_query(model, mechanism, known, size, rng, mode, chunk)
        return q + mechanism.noise.sample(size, rng)
    return np.concatenate([mechanism(d, rng) for d in _data_chunks(model, known, size, rng, chunk)])


@functools.lru_cache(maxsize=64)
def _lattice(values: tuple[float, ...]) -> tuple[np.ndarray, float, float]:
    with naming(fields={"values": "mechanism.state_values"}):  # the query values off any lattice
        return lattice(np.asarray(values))


def query_support(model, mechanism, known: Mapping) -> tuple[str, object] | None:
    """Where the noiseless query's values lie given ``known``: ``("lattice", atoms)`` (every value
    it can take), ``("range", (lo, hi))`` (an interval holding them), or ``None`` when the query is
    unbounded (an unclipped sum) or of a kind not known here.

    An additive query on discrete records (a count, a sum of per-state values) takes values on
    its lattice ``n f_min + delta k`` (:func:`~bdpsim.kernels.chains.lattice.lattice`) between the known
    records' sum plus ``|U| min f`` and plus ``|U| max f``; a clipped sum of real records lies in
    ``[sum clip(x_K) + |U| a, sum clip(x_K) + |U| b]``.
    """
    q = mechanism.query_function if isinstance(mechanism, HasQueryFunction) else None
    unknown = model.n - len(known)
    if isinstance(q, AdditiveQuery) and isinstance(model, HasStates):
        n = cast(Any, model).n  # HasStates: a data model, with n records
        f = q.per_state(model.states)
        if f.ndim == 2:  # per-record values (a count of named states, RecordCountQuery)
            g, delta, fmin = lattice(f)
            k0 = sum(int(g[int(r), int(v)]) for r, v in known.items())
            free = [r for r in range(n) if r not in known]
            lo, hi = sum(int(g[r].min()) for r in free), sum(int(g[r].max()) for r in free)
        else:  # one value per state, the same for every record
            g, delta, fmin = _lattice(tuple(f))
            k0 = sum(int(g[int(v)]) for v in known.values())
            lo, hi = unknown * int(g.min()), unknown * int(g.max())
        return "lattice", n * fmin + delta * np.arange(k0 + lo, k0 + hi + 1)
    if isinstance(q, ClippedSumQuery):
        a, c = q.clip
        fixed = float(np.sum(np.clip(np.asarray(list(known.values()), dtype=float), a, c)))
        return "range", (fixed + unknown * a, fixed + unknown * c)
    return None
