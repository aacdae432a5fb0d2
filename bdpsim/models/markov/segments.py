"""The law of an additive query on a Markov chain given known records, segment by segment: time
linear in the chain's length.

Given the known records ``X_K = x_K`` (the target among them), the unknown records split into
maximal runs ``a..b`` of consecutive unknown positions; by the Markov property the runs are
independent given ``x_K``, each depending only on its neighbours ``x_{a-1}`` (or the start law
``w`` when ``a = 0``) and ``x_{b+1}`` (or nothing when ``b = n - 1``). So for
``S = sum_t f(X_t) = n f_min + delta sum_t g(X_t)`` (the query's lattice,
:func:`~bdpsim.kernels.chains.lattice.lattice`),

    sum_t g(X_t) | x_K  =  sum_{t in K} g(x_t)  +  sum over runs of  G_run,

``G_run`` independent, each with the law of the clamped forward recursion over (state, partial sum)
on its run alone (``F_a(y, g(y)) ∝ P[x_{a-1}, y]`` or ``w(y)``; ``F_{t+1}(y', k + g(y')) =
sum_y F_t(y, k) P[y, y']``; at the end weighted by ``P[y, x_{b+1}]`` or summed). The law of
``S`` is their convolution shifted by the known sum: the work is the runs' (``sum over runs of
length x width``), never the known records' — where
:meth:`~bdpsim.models.markov.model.MarkovChainModel.additive_law_masked` carries a partial sum of
width ``n max(g)`` through every record. The condition has probability zero exactly when a run's
law has no mass, two adjacent known values have ``P = 0``, or a known first record has ``w = 0``.
"""

from __future__ import annotations

import numpy as np

from ...adversary import Adversary
from ...core.errors import NotAvailable
from ..engines import QueryLaws
from .model import MarkovChainModel


def _run_law(
    P: np.ndarray, start: np.ndarray, g: np.ndarray, length: int, end: np.ndarray | None
) -> np.ndarray:
    """The law of ``sum g(X_t)`` over a run of ``length`` unknown records whose first state has
    the (unnormalised) law ``start`` and whose last is followed by a known state ``end`` is the
    column ``P[:, end]`` (``None``: the chain's end); normalised, or all zeros when impossible."""
    s, D = P.shape[0], int(g.max())
    F = np.zeros((s, 1 + D))
    F[np.arange(s), g] = start
    width = 1 + D
    for _ in range(length - 1):
        base = P.T @ F[:, :width]  # base[y', k] = sum_y F(y, k) P[y, y']
        nxt = np.zeros((s, width + D))
        for y in range(s):
            nxt[y, g[y] : g[y] + width] = base[y]
        total = nxt.sum()
        if not total > 0:
            return np.zeros(1)
        F, width = nxt / total, width + D
    law = (F * (end[:, None] if end is not None else 1.0)).sum(axis=0)
    total = law.sum()
    return law / total if total > 0 else np.zeros(1)


def segment_laws(
    model: MarkovChainModel, g: np.ndarray, adversary: Adversary
) -> tuple[np.ndarray, np.ndarray, int]:
    """``(law given x, law given x', offset)``: the laws of ``sum_t g(X_t)`` given the adversary's
    knowledge and each target value, on ``offset + j`` (``j = 0..``), by the runs of unknown
    records (module docstring). Raises :class:`~bdpsim.core.errors.NotAvailable` when a condition
    has probability zero."""
    P, w, n = model.transition, model.initial, model.n
    g = np.asarray(g, dtype=np.int64)
    laws = []
    offsets = []
    for value in (adversary.x, adversary.x_prime):
        known = np.full(n, -1, dtype=np.int64)
        known[list(adversary.known)] = np.asarray(adversary.x_known, dtype=np.int64)
        known[adversary.i] = int(value)
        if not _consistent(P, w, known):
            raise NotAvailable(f"adversary {adversary}: a conditioning event has probability zero")
        law = np.ones(1)
        unknown = known < 0
        edges = np.flatnonzero(np.diff(np.concatenate([[0], unknown.astype(np.int8), [0]])))
        for a, b in zip(edges[::2], edges[1::2] - 1):  # runs a..b of unknown records
            start = w if a == 0 else P[known[a - 1]]
            end = None if b == n - 1 else P[:, known[b + 1]]
            part = _run_law(P, start, g, int(b - a + 1), end)
            if not part.sum() > 0:
                raise NotAvailable(f"adversary {adversary}: a conditioning event has probability zero")
            law = np.convolve(law, part)
        laws.append(law)
        offsets.append(int(g[known[~unknown]].sum()))
    lo = min(offsets)
    J = max(o - lo + law.size for o, law in zip(offsets, laws))
    out = [np.pad(law, (o - lo, J - (o - lo) - law.size)) for o, law in zip(offsets, laws)]
    return out[0], out[1], lo


def _consistent(P: np.ndarray, w: np.ndarray, known: np.ndarray) -> bool:
    """No two adjacent known records with ``P = 0`` between them, and a known first record of
    positive start probability."""
    if known[0] >= 0 and not w[known[0]] > 0:
        return False
    both = (known[:-1] >= 0) & (known[1:] >= 0)
    return bool(np.all(P[known[:-1][both], known[1:][both]] > 0))


def chain_query_laws(
    model: MarkovChainModel,
    g: np.ndarray,
    delta: float,
    fmin: float,
    adversary: Adversary,
    trim: bool = False,
) -> QueryLaws:
    """The adversary's two laws of ``S = n f_min + delta sum_t g(X_t)`` (:func:`segment_laws`) on
    the query's whole lattice ``n f_min + delta j``, ``j = 0..n max(g)``; with ``trim`` on the
    atoms from the least known sum on, as long as the unknown records reach (what a pair of output
    laws needs: its functions are shift-invariant, and the width is the unknown records', not
    ``n``'s) (:class:`~bdpsim.models.engines.QueryLaws`)."""
    w1, w2, offset = segment_laws(model, g, adversary)
    if not trim:
        K = model.n * int(np.max(g)) + 1
        w1, w2 = (np.pad(w, (offset, K - offset - w.size)) for w in (w1, w2))
        offset = 0
    atoms = model.n * fmin + delta * (offset + np.arange(w1.size, dtype=float))
    return QueryLaws(atoms, w1, w2, float(delta))


__all__ = ["segment_laws", "chain_query_laws"]
