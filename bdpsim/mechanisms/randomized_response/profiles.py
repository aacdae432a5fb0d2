"""The privacy profile of randomized response on a binary chain over every adversary, exact: what
the attack quantities read (:mod:`bdpsim.attack.worst`), beside the BDPL of
:mod:`bdpsim.mechanisms.randomized_response.window`.

The output is the flipped count ``Z`` on ``0..T`` (the debiasing is a bijection), so an
adversary's two output laws are two probability vectors (:func:`~.window.rr_laws`), and its privacy profile
``delta(eps) = max(sum_z (p_z - e^eps q_z)^+, sum_z (q_z - e^eps p_z)^+)`` a finite sum.

**Every adversary.** The window reduction of the BDPL holds for the profile (the hockey-stick
divergence is jointly convex and invariant to a common shift): given its nearest known records
``l < i < r`` an adversary's output law is a common-weight mixture of those of ``K* = K ∪ ([T] \\
[l, r])``, and the flips outside the window add ``Z_out`` with the law
``D = Bin(m1, 1 - rho) * Bin(m - m1, rho)`` of the ``m = T - L - R - 1`` outside records of which
``m1`` are ones. So the search runs over the cells ``(left kind, L, right kind, R, m1)``: each
cell's laws are the window's inside laws ``q_x`` convolved with ``D`` (needs every transition and
start probability > 0, as the BDPL's window search). A chain with zeros is searched by brute force
over every data tuple and known set (``T <=``
:data:`~bdpsim.mechanisms.randomized_response.core.BRUTE_FORCE_MAX_T`).
The cells' count grows like ``T^3`` and their laws like ``T``: refused above :data:`SEARCH_LIMIT`
law entries, up front.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import numpy as np

from ...adversary import Adversary
from ...core.errors import NotAvailable
from ...models.engines import AdversaryRow, AdversarySearch, SearchTooLarge
from ...models.markov.model import MarkovChainModel
from .core import BRUTE_FORCE_MAX_T, END, START, check_rr
from .direct import flipped_count_laws
from .window import advance_step, left_laws, realise_window, target_step

#: most entries (cells x outcomes) of the laws the profile search scores
SEARCH_LIMIT = 60_000_000


def _outside_laws(m: int, rho: float) -> np.ndarray:
    """``D[m1, z] = P(Z_out = z)`` for ``m1 = 0..m`` ones among ``m`` outside records."""
    return flipped_count_laws(m, rho) if m > 0 else np.ones((1, 1))


def _window_cells(model: MarkovChainModel, rho: float, min_known: int) -> Iterator[tuple]:
    """Every window cell: ``(kl, L, kr, R, m1s, W0, W1)`` with ``W0[k]``, ``W1[k]`` the laws of
    ``Z`` on ``0..T`` given ``X_i = 0`` and ``1`` for the ``k``-th outside composition ``m1s[k]``."""
    T, P = model.n, model.transition
    e = np.array([[1 - rho, rho], [rho, 1 - rho]])
    D_cache: dict[int, np.ndarray] = {}
    for kl in (0, 1, START):
        F = left_laws(model, e, kl)
        Ls = np.arange(T)
        Ls = Ls[Ls <= T - 1] if kl == START else Ls[Ls <= T - 2]
        H = [target_step(F[Ls], x, e) for x in (0, 1)]
        for R in range(T):
            used = Ls + R + (1 if kl == START else 2)
            for kr in (0, 1, END):
                need = used + (1 if kr != END else 0)
                sel = (need <= T) if kr != END else (need == T)
                sel &= T - 1 - Ls - R >= min_known
                if not sel.any():
                    continue
                if kr == END:
                    q = [h[sel].sum(axis=1) for h in H]
                else:
                    q = [np.einsum("byk,y->bk", h[sel], P[:, int(kr)]) for h in H]
                q = [v / v.sum(axis=1, keepdims=True) for v in q]
                for row, L in enumerate(Ls[sel]):
                    m = T - int(L) - R - 1
                    ones = (kl == 1) + (kr == 1)
                    zeros = (kl == 0) + (kr == 0)
                    m1s = np.arange(ones, m - zeros + 1)
                    if m not in D_cache:
                        D_cache[m] = _outside_laws(m, rho)
                    D = D_cache[m][m1s]
                    n_in = int(L) + R + 1
                    W = []
                    for v in q:
                        law = np.zeros((m1s.size, T + 1))
                        for j in range(n_in + 1):  # (q * D)[z] = sum_j q[j] D[z - j]
                            law[:, j : j + m + 1] += v[row, j] * D
                        W.append(law)
                    yield (
                        int(kl) if kl != START else START,
                        int(L),
                        int(kr) if kr != END else END,
                        R,
                        m1s,
                        W[0],
                        W[1],
                    )
            if R < T - 1:
                H = [advance_step(h, P, e) for h in H]


def _brute_cells(model: MarkovChainModel, rho: float, min_known: int) -> Iterator[tuple]:
    """Every adversary by brute force over the data tuples (``T <= 12``): ``(i, K, codes, L0, L1)``
    with ``L0[k], L1[k]`` the laws of ``Z`` given ``X_i = 0, 1`` and the known values coded
    ``codes[k]`` (bit ``b``: the ``b``-th known record)."""
    T, P, w = model.n, model.transition, model.initial
    xs = np.array(list(itertools.product([0, 1], repeat=T)), dtype=np.int64)
    p = w[xs[:, 0]].copy()
    for t in range(1, T):
        p *= P[xs[:, t - 1], xs[:, t]]
    joint = p[:, None] * flipped_count_laws(T, rho)[xs.sum(axis=1)]  # P(X = x, Z = z)
    for i in range(T):
        others = [j for j in range(T) if j != i]
        for size in range(min_known, T):
            for K in itertools.combinations(others, size):
                key = (xs[:, list(K)] @ (2 ** np.arange(len(K)))) * 2 + xs[:, i]
                acc = np.zeros((2 ** (len(K) + 1), T + 1))
                np.add.at(acc, key, joint)
                z = acc.sum(axis=1)
                ok = (z[0::2] > 0) & (z[1::2] > 0)
                if ok.any():
                    codes = np.flatnonzero(ok)
                    yield i, K, codes, acc[0::2][ok] / z[0::2][ok, None], acc[1::2][ok] / z[1::2][ok, None]


def _cost(model: MarkovChainModel) -> float:
    """Law entries the window search scores: ``sum over windows of (m + 1)(T + 1)``."""
    T = model.n
    return 4.5 * T * T * (T / 2 + 1) * (T + 1)


def check_search(model: MarkovChainModel, rho: float) -> None:
    """Raise :class:`~bdpsim.models.engines.SearchTooLarge` (field ``model.n``) when the chain has
    no profile search over every adversary (module docstring)."""
    check_rr(model, rho)
    positive = model.transition.min() > 0 and model.initial.min() > 0
    if not positive:
        if model.n > BRUTE_FORCE_MAX_T:
            raise SearchTooLarge(
                "model.n",
                f"randomized response on a chain with zero transition or start probabilities: the "
                f"profile search over every adversary is a brute force, T <= {BRUTE_FORCE_MAX_T} "
                f"(here {model.n})",
            )
        return
    if _cost(model) > SEARCH_LIMIT:
        raise SearchTooLarge(
            "model.n",
            f"randomized response on n = {model.n} records: the profile search over every adversary "
            f"scores ~{_cost(model):.2g} law entries (limit {SEARCH_LIMIT:.0e}); use fewer records",
        )


def _profile_values(W0: np.ndarray, W1: np.ndarray, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(value, forward)``: per row and eps ``max(sum (w0 - e^eps w1)^+, sum (w1 - e^eps w0)^+)``
    and whether the ``w0`` side attains it."""
    ee = np.exp(eps)[None, :, None]
    f = np.maximum(W0[:, None, :] - ee * W1[:, None, :], 0.0).sum(axis=2)
    b = np.maximum(W1[:, None, :] - ee * W0[:, None, :], 0.0).sum(axis=2)
    return np.maximum(f, b), f >= b


class _Top:
    """The ``top`` largest values of each component seen, with what each row describes."""

    def __init__(self, m: int, top: int) -> None:
        self.top = top
        self.kept: list[list[tuple[float, Adversary]]] = [[] for _ in range(m)]

    def add(self, values: np.ndarray, forward: np.ndarray, describe) -> None:
        for k, kept in enumerate(self.kept):
            col = values[:, k]
            if len(kept) >= self.top:
                floor = kept[-1][0]
                idx = np.flatnonzero(col > floor)
            else:
                idx = np.arange(col.size)
            if idx.size == 0:
                continue
            best = idx[np.argsort(-col[idx], kind="stable")[: self.top]]
            kept.extend((float(col[j]), describe(int(j), bool(forward[j, k]))) for j in best)
            kept.sort(key=lambda r: -r[0])
            del kept[self.top :]


def rr_profiles(
    model: MarkovChainModel, rho: float, epsilons: Sequence[float], min_known: int = 0, top: int | None = 1
) -> AdversarySearch:
    """The privacy profile at each of ``epsilons`` over every adversary with ``|K| >= min_known``
    (module docstring): each component's supremum, an adversary attaining it (``x`` first in the
    order that attains it) and its ``top`` leading adversaries
    (:class:`~bdpsim.models.engines.AdversarySearch`; ``values``: the supremum alone)."""
    check_search(model, rho)
    eps = np.asarray([float(v) for v in epsilons], dtype=float)
    keep = _Top(eps.size, max(1, top or 1))
    positive = model.transition.min() > 0 and model.initial.min() > 0
    if positive:
        for kl, L, kr, R, m1s, W0, W1 in _window_cells(model, rho, int(min_known)):
            v, fw = _profile_values(W0, W1, eps)

            def window(j: int, forward: bool, kl=kl, L=L, kr=kr, R=R, m1s=m1s) -> Adversary:
                a = realise_window(model, kl, L, kr, R, int(m1s[j]), 0 if forward else 1, 0)
                return Adversary(a.i, a.known, a.x_known, a.x, a.x_prime)

            keep.add(v, fw, window)
    else:
        for i, K, codes, W0, W1 in _brute_cells(model, rho, int(min_known)):
            v, fw = _profile_values(W0, W1, eps)

            def brute(j: int, forward: bool, i=i, K=K, codes=codes) -> Adversary:
                vals = tuple(int((int(codes[j]) >> b) & 1) for b in range(len(K)))
                return Adversary(i, tuple(K), vals, 0 if forward else 1, 1 if forward else 0)

            keep.add(v, fw, brute)
    if not keep.kept[0]:
        raise NotAvailable("no adversary has two target values of positive probability")
    names = tuple(f"delta({e:.17g})" for e in eps)
    leaders = tuple([AdversaryRow(adv, v) for v, adv in kept] for kept in keep.kept)
    worst = tuple(rows[0] for rows in leaders)
    value = np.array([w.bdpl for w in worst])
    return AdversarySearch(names, value, worst, leaders[0], value[None, :], 0.0, None, leaders)


__all__ = ["rr_profiles", "check_search", "SEARCH_LIMIT"]
