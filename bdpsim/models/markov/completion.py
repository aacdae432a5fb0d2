"""Completions of a window adversary's known records (the rest of the chain outside the window,
at the likeliest positive-probability values) and their query sums, for the rows that
:mod:`bdpsim.models.markov.window` reports: :class:`CompletionSums` computes a sum only when an
adversary is reported, bit for bit equal to the full tables of :func:`window_completion_sums` (kept as
the reference)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...kernels.chains import window_scan as wk
from .model import MarkovChainModel


def window_completion_sums(
    model: MarkovChainModel, supp: np.ndarray, f: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(S_left[l, a], S_right[r, c])``: the query value of :func:`window_completion`'s values on
    ``0..l`` ending in ``a`` and on ``r..n-1`` starting at ``c`` — for every ``l``, ``r`` at once
    (``O(n s^2)``; the reference for :class:`CompletionSums`, which the search uses)."""
    P, n, s = model.transition, model.n, model.states
    left = np.zeros((n, s))
    left[0] = f
    for t in range(1, n):  # the predecessor of a at t is the likeliest reachable state at t - 1
        prev = np.argmax(np.where(supp[t - 1][:, None], P, -1.0), axis=0)
        left[t] = f + left[t - 1][prev]
    right = np.zeros((n, s))
    right[n - 1] = f
    nxt = np.argmax(P, axis=1)
    for t in range(n - 2, -1, -1):
        right[t] = f + right[t + 1][nxt]
    return left, right


class CompletionSums:
    """The query value of :func:`window_completion`'s values, on demand: ``left(l, a)`` on ``0..l``
    ending in ``a``, ``right(r, c)`` on ``r..n-1`` starting at ``c`` — the entries
    ``S_left[l, a]``, ``S_right[r, c]`` of :func:`window_completion_sums`, bit for bit, without its
    ``O(n s^2)`` tables.

    The completion walks from the boundary outwards by fixed maps: to the right the likeliest
    next state ``nxt``, to the left the likeliest reachable predecessor, which depends on the
    position only through the support of the previous record
    (:class:`~bdpsim.kernels.chains.window_scan.Support`,
    periodic after a transient). So the walk on (support row, state) recurs after at most
    ``(transient + period) s`` steps and the values repeat: the sum is taken term by term in
    the same order as the tables (from the far chain end towards the boundary) over the
    repeated values, or, when every partial sum is an exactly representable float (integer or
    dyadic query values, e.g. a count), from the term counts in exact integer arithmetic.

    Parameters
    ----------
    model : MarkovChainModel
    supp : Support
        Of ``model`` (:func:`bdpsim.kernels.chains.window_scan.support`).
    f : ndarray, shape (s,)
        Query value per state.
    """

    def __init__(self, model: MarkovChainModel, supp: wk.Support, f: np.ndarray) -> None:
        P = model.transition
        self.n, self.f, self.supp = model.n, np.asarray(f, dtype=float), supp
        # prev[k, a]: the likeliest predecessor of a given the support row k of the previous record
        self.prev = np.array([np.argmax(np.where(row[:, None], P, -1.0), axis=0) for row in supp.rows])
        self.nxt = np.argmax(P, axis=1)
        self._memo: dict = {}

    def left(self, l: int, a: int) -> float:
        """Query value of the completion on ``0..l`` ending in ``X_l = a``."""
        key = ("l", int(l), int(a))
        if key not in self._memo:
            idx = self.supp.index
            start = self.supp.start
            walk: list[int] = []  # walk[k]: state at position l - k
            seen: dict[tuple[int, int], int] = {}
            u, st = int(l), int(a)
            cyc = None
            while True:
                walk.append(st)
                if u == 0:
                    break
                k = idx(u - 1)
                if u - 1 >= start:
                    j = seen.setdefault((k, st), len(walk) - 1)
                    if j != len(walk) - 1:  # positions l - j .. u + 1 repeat down to `start`
                        walk.pop()
                        cyc = (j, l - j - start + 1)
                        break
                st = int(self.prev[k, st])
                u -= 1
            if cyc is None:
                seq = [(np.asarray(walk), 1)]
            else:
                j, count = cyc
                cycle = np.asarray(walk[j:])
                per = _repeat(cycle, count)
                st = int(cycle[(count - 1) % cycle.size])  # the state at position `start`
                tail, u = [], start
                while u > 0:
                    st = int(self.prev[idx(u - 1), st])
                    tail.append(st)
                    u -= 1
                seq = [(np.asarray(walk[:j]), 1)] + per + [(np.asarray(tail, dtype=np.int64), 1)]
            self._memo[key] = _far_to_near_sum(self.f, seq)
        return self._memo[key]

    def right(self, r: int, c: int) -> float:
        """Query value of the completion on ``r..n-1`` starting at ``X_r = c``."""
        key = ("r", int(r), int(c))
        if key not in self._memo:
            walk: list[int] = []  # walk[k]: state at r + k
            seen: dict[int, int] = {}
            st, left_over = int(c), self.n - int(r)
            cyc = None
            while left_over > 0:
                j = seen.setdefault(st, len(walk))
                if j != len(walk):
                    cyc = (j, left_over)
                    break
                walk.append(st)
                st = int(self.nxt[st])
                left_over -= 1
            if cyc is None:
                seq = [(np.asarray(walk), 1)]
            else:
                j, count = cyc
                seq = [(np.asarray(walk), 1)] + _repeat(np.asarray(walk[j:]), count)
            self._memo[key] = _far_to_near_sum(self.f, seq)
        return self._memo[key]


def _repeat(cycle: np.ndarray, count: int) -> list:
    """``count`` states of the repeated ``cycle`` as ``[(cycle, times), (partial, 1)]``."""
    q, rem = divmod(int(count), cycle.size)
    return [(cycle, q), (cycle[:rem], 1)]


def _far_to_near_sum(f: np.ndarray, seq: list) -> float:
    """``f`` summed over the states ``seq`` (pieces ``(states, times)`` in walk order, nearest
    first), as the recursion of :func:`window_completion_sums` does: starting at the far end, one term at
    a time. Exactly in integers when every partial sum is an exactly representable float."""
    counts = np.zeros(f.size, dtype=object)
    for states, times in seq:
        if states.size and times:
            counts += np.bincount(states, minlength=f.size).astype(object) * int(times)
    exact = [Fraction(float(v)) for v in f]
    den = max(q.denominator for q in exact)
    total_abs = sum(int(c) * abs(q.numerator) * (den // q.denominator) for c, q in zip(counts, exact))
    if total_abs <= 2**53:  # every partial sum is an integer multiple of 1/den below 2^53/den
        return float(
            Fraction(sum(int(c) * q.numerator * (den // q.denominator) for c, q in zip(counts, exact)), den)
        )
    terms = np.concatenate([np.tile(states, times) for states, times in seq if states.size and times])
    return float(np.add.accumulate(f[terms[::-1]])[-1])


def window_completion(model, supp, a, l, c, r) -> tuple[int, ...]:
    """Positive-probability values for ``0..l`` ending in ``a`` and ``r..n-1`` starting at ``c``:
    each step the likeliest neighbour (the first on ties), ``x_{t-1} = argmax_{u reachable at t-1}
    P[u, x_t]`` leftward and ``x_{t+1} = argmax_v P[x_t, v]`` rightward.

    ``supp`` is the ``(n, s)`` array of :func:`~bdpsim.kernels.chains.window_scan.reachable` or its
    :class:`~bdpsim.kernels.chains.window_scan.Support`. Each step is a lookup in a table of the
    argmax per (distinct support row, value), built once per call (``O(rows s^2)``), so the
    ``O(n)`` walk is one list index per record."""
    P = model.transition
    left: list[int] = []
    if a is not None:
        left = [int(a)]
        if l > 0:
            if isinstance(supp, wk.Support):
                rows, idx = supp.rows, np.asarray(supp.index(np.arange(l)))
            else:
                rows, idx = np.unique(np.asarray(supp)[:l], axis=0, return_inverse=True)
            # table[k][b]: argmax over u of where(rows[k][u], P[u, b], -1) (first on ties, as 1-D argmax)
            table = [np.argmax(np.where(row[:, None], P, -1.0), axis=0).tolist() for row in rows]
            at = np.asarray(idx).reshape(-1).tolist()
            v = left[0]
            for t in range(l, 0, -1):
                v = table[at[t - 1]][v]
                left.append(v)
        left.reverse()
    right: list[int] = []
    if c is not None:
        nxt = np.argmax(P, axis=1).tolist()
        v = int(c)
        right = [v]
        for _ in range(r + 1, model.n):
            v = nxt[v]
            right.append(v)
    return tuple(left + right)
