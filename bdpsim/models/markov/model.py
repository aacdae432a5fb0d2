"""Markov chain data model (paper Def. 6.1; thesis Fig. 14).

Records ``X_1..X_n`` form a Markov chain on states ``{0..s-1}`` with transition matrix ``P`` and
initial law ``w`` (default: the stationary law, hypothesis (H2) of the Markov bound).
Conditioning on any set of known positions is exact: forward filtering computes
``alpha_t(x) ∝ P(X_t = x, known up to t)`` once per condition, and backward sampling draws
``X_t | X_{t+1} = y`` with probabilities ``∝ alpha_t(x) P[x, y]``, vectorised over the sample axis.
The same recursion, extended by a count dimension, gives the exact law of a count query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import ArrayLike

from ...core.errors import ConfigError, check, naming
from ...kernels.chains.transition import stationary_distribution, transition_matrix
from ..base import additive_query_law

#: chains this long or longer sample given known records by bridges
# (:meth:`MarkovChainModel.sample_conditional`)
BRIDGE_MIN_N = 64


def _known_arrays(known: Mapping[int, int], n: int, s: int) -> np.ndarray:
    """Return an ``(n, s)`` 0/1 mask of allowed states per position."""
    mask = np.ones((n, s))
    for pos, val in known.items():
        if not 0 <= int(pos) < n:
            raise ConfigError("known position", pos, f"must be in 0..{n - 1}")
        if not 0 <= int(val) < s:
            raise ConfigError("known value", val, f"must be a state in 0..{s - 1}")
        mask[int(pos)] = 0.0
        mask[int(pos), int(val)] = 1.0
    return mask


@dataclass(frozen=True)
class MarkovChainModel:
    """A stationary-or-not finite Markov chain of ``n`` records.

    Parameters
    ----------
    transition : array_like, shape (s, s)
        Row-stochastic transition matrix ``P``.
    n : int
        Number of records (chain length), >= 2.
    initial : array_like, shape (s,), optional
        Law of ``X_1``; default the stationary law ``w P = w``.
    """

    transition: np.ndarray
    n: int
    initial: np.ndarray = cast(np.ndarray, None)  # None: the stationary law (set in __post_init__)
    kind: str = field(default="markov", init=False)

    if TYPE_CHECKING:  # what the constructor accepts; after __post_init__ both are read-only arrays

        def __init__(self, transition: ArrayLike, n: int, initial: ArrayLike | None = None) -> None: ...

    def __post_init__(self) -> None:
        with naming(fields={"P": "model.transition"}):
            P = transition_matrix(self.transition)
        check(
            isinstance(self.n, (int, np.integer)) and self.n >= 2,
            "model.n",
            self.n,
            "must be an integer >= 2",
        )
        if self.initial is None:
            w = stationary_distribution(P)
        else:
            w = np.asarray(self.initial, dtype=float)
            check(
                w.shape == (P.shape[0],),
                "model.initial",
                w.tolist(),
                f"must have one probability per state ({P.shape[0]})",
            )
            check(
                bool(np.all(w >= 0)) and abs(w.sum() - 1) < 1e-8,
                "model.initial",
                w.tolist(),
                "must be probabilities summing to 1",
            )
        P.setflags(write=False)
        w = np.array(w)
        w.setflags(write=False)
        object.__setattr__(self, "transition", P)
        object.__setattr__(self, "initial", w)
        object.__setattr__(self, "n", int(self.n))

    @property
    def states(self) -> int:
        return self.transition.shape[0]

    @property
    def is_stationary(self) -> bool:
        """(H2): the initial law is stationary."""
        return bool(np.allclose(self.initial @ self.transition, self.initial, atol=1e-10))

    @property
    def is_independent(self) -> bool:
        """All rows of ``P`` equal and start = row: the records are i.i.d."""
        P = self.transition
        return bool(np.allclose(P, P[0]) and np.allclose(self.initial, P[0]))

    # ------------------------------------------------------------------ filtering
    def _forward(self, known: Mapping[int, int]) -> tuple[np.ndarray, float]:
        """Normalised filter ``alpha (n, s)`` and ``log P(known)``."""
        P, n = self.transition, self.n
        mask = _known_arrays(known, n, self.states)
        alpha = np.empty((n, self.states))
        a = self.initial * mask[0]
        logz = 0.0
        for t in range(n):
            if t:
                a = (alpha[t - 1] @ P) * mask[t]
            z = a.sum()
            if z <= 0:
                raise ConfigError("known", dict(known), "conditioning event has probability zero")
            alpha[t] = a / z
            logz += np.log(z)
        return alpha, logz

    def log_evidence(self, known: Mapping[int, int]) -> float:
        """``log P(X_K = x_K)`` for the known positions (``-inf`` if impossible)."""
        try:
            return self._forward(known)[1]
        except ConfigError:
            return -np.inf

    def marginals(self, known: Mapping[int, int]) -> np.ndarray:
        """Posterior marginals ``P(X_t = x | known)``, shape ``(n, s)`` (forward–backward)."""
        alpha, _ = self._forward(known)
        P, n = self.transition, self.n
        mask = _known_arrays(known, n, self.states)
        beta = np.ones((n, self.states))
        for t in range(n - 2, -1, -1):
            b = P @ (beta[t + 1] * mask[t + 1])
            beta[t] = b / b.max()
        post = alpha * beta
        return post / post.sum(axis=1, keepdims=True)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Unconditional draws, shape ``(size, n)``."""
        return self.sample_conditional({}, size, rng)

    def sample_conditional(
        self, known: Mapping[int, int], size: int, rng: np.random.Generator, method: str = "auto"
    ) -> np.ndarray:
        """Exact draws of the chain given ``X_j = known[j]``, shape ``(size, n)``, dtype int16.

        Forward filtering once, then backward sampling
        ``P(X_t = x | X_{t+1} = y, known_{<=t}) ∝ alpha_t(x) P[x, y]``, vectorised over samples.

        ``method``: ``"ffbs"`` runs the backward pass over every position (one uniform per
        position and sample, known positions included: the stream the committed results were made
        with); ``"bridge"`` samples only the unknown positions — the known records split the chain
        into independent segments (a prefix before the first known record, bridges between two known
        records, a suffix after the last one), and the same backward step over an unknown segment's
        positions, from its right end (a known value, or the filter at the chain end) down to its
        left end, draws the segment given its two boundaries; the known columns are filled by
        broadcasting. Same law, ``O(|U| size)`` instead of ``O(n size)`` work, a different random
        stream. ``"auto"`` (default) takes the bridge for chains of at least
        :data:`BRIDGE_MIN_N` records with some known record and the backward pass otherwise (so the
        streams of shorter chains, those of every committed result, are unchanged).
        """
        check(method in ("auto", "ffbs", "bridge"), "sampling method", method, "must be auto, ffbs or bridge")
        if method == "auto":
            method = "bridge" if known and self.n >= BRIDGE_MIN_N else "ffbs"
        alpha, _ = self._forward(known)
        if method == "bridge":
            return self._sample_bridge(alpha, known, size, rng)
        P, n, s = self.transition, self.n, self.states
        out = np.empty((size, n), dtype=np.int16)
        u = rng.random((n, size))
        cdf = np.cumsum(alpha[-1])
        out[:, -1] = np.minimum((u[-1][:, None] >= cdf[None, :-1]).sum(axis=1), s - 1)
        for t in range(n - 2, -1, -1):
            q = alpha[t][None, :] * P.T  # q[y, x] ∝ alpha_t(x) P[x, y]
            z = q.sum(axis=1, keepdims=True)
            z[z == 0] = 1.0
            cdf = np.cumsum(q / z, axis=1)[:, :-1]  # (s, s-1)
            nxt = out[:, t + 1]
            if s == 2:
                out[:, t] = u[t] >= cdf[nxt, 0]
            else:
                out[:, t] = (u[t][:, None] >= cdf[nxt]).sum(axis=1)
        return out

    def _sample_bridge(
        self, alpha: np.ndarray, known: Mapping[int, int], size: int, rng: np.random.Generator
    ) -> np.ndarray:
        """The backward pass over the unknown positions only (see :meth:`sample_conditional`)."""
        P, n, s = self.transition, self.n, self.states
        row = np.zeros(n, dtype=np.int16)
        is_known = np.zeros(n, dtype=bool)
        for pos, val in known.items():
            row[int(pos)] = int(val)
            is_known[int(pos)] = True
        out = np.broadcast_to(row, (size, n)).copy()
        unknown = np.flatnonzero(~is_known)[::-1]  # right to left
        u = rng.random((unknown.size, size))
        for k, t in enumerate(unknown):
            if t == n - 1:  # the chain's end: the filter itself
                cdf = np.cumsum(alpha[-1])
                out[:, t] = np.minimum((u[k][:, None] >= cdf[None, :-1]).sum(axis=1), s - 1)
                continue
            q = alpha[t][None, :] * P.T  # q[y, x] ∝ alpha_t(x) P[x, y]
            z = q.sum(axis=1, keepdims=True)
            z[z == 0] = 1.0
            cdf = np.cumsum(q / z, axis=1)[:, :-1]  # (s, s-1)
            if is_known[t + 1]:  # the right end of a segment: one row of the table for everyone
                c = cdf[row[t + 1]]
                out[:, t] = (u[k][:, None] >= c[None, :]).sum(axis=1) if s > 2 else u[k] >= c[0]
            elif s == 2:
                out[:, t] = u[k] >= cdf[out[:, t + 1], 0]
            else:
                out[:, t] = (u[k][:, None] >= cdf[out[:, t + 1]]).sum(axis=1)
        return out

    def query_law(self, query, known: Mapping[int, int]) -> tuple[np.ndarray, np.ndarray] | None:
        """Exact law ``(atoms, probabilities)`` of an additive query given ``known``
        (:func:`~bdpsim.models.base.additive_query_law`); ``None`` for other queries."""
        return additive_query_law(self, query, known)

    # ------------------------------------------------------------------ count law
    def count_law(
        self, positions: Sequence[int], values: np.ndarray, counted: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Exact law of ``C = #{t : X_t in counted}`` given ``X_positions = values``.

        Forward recursion over (position, state, count) with the known positions clamped,
        batched over rows of ``values``:
        ``a_{t+1}(y, c + 1[y in S]) = sum_x a_t(x, c) P[x, y]`` restricted to allowed ``y``.

        Parameters
        ----------
        positions : sequence of int, length k
            Known positions (may be empty).
        values : array_like of int, shape (B, k)
            One row of known values per batch element.
        counted : sequence of int
            The counted states ``S``.

        Returns
        -------
        law : ndarray, shape (B, n + 1)
            ``P(C = c | X_positions = values)``; rows of impossible conditions are nan.
        log_evidence : ndarray, shape (B,)
            ``log P(X_positions = values)`` (``-inf`` when impossible).
        """
        n, s = self.n, self.states
        positions = [int(p) for p in positions]
        values = np.atleast_2d(np.asarray(values, dtype=np.int64))
        if values.shape[1] != len(positions):
            raise ConfigError(
                "values", values.shape, f"must have one column per known position ({len(positions)})"
            )
        B = values.shape[0]
        allowed = np.ones((B, n, s))
        for j, p in enumerate(positions):
            allowed[:, p, :] = 0.0
            allowed[np.arange(B), p, values[:, j]] = 1.0
        return self.count_law_masked(allowed, counted)

    def count_law_masked(self, allowed: np.ndarray, counted: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`count_law` for a batch of 0/1 masks ``allowed[b, t, x]`` (state ``x`` allowed at
        position ``t`` in condition ``b``): one batched recursion for many different known sets."""
        g = np.zeros(self.states, dtype=np.int64)
        g[list(counted)] = 1
        return self.additive_law_masked(allowed, g)

    def additive_law_masked(
        self, allowed: np.ndarray, increments: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Exact law of ``S = sum_t g(X_t)`` (``g`` non-negative integers per state) for a batch of
        masks ``allowed[b, t, x]``: the forward recursion over (position, state, partial sum)
        ``a_{t+1}(y, k + g(y)) = sum_x a_t(x, k) P[x, y]`` restricted to allowed ``y``.

        Returns ``law`` of shape ``(B, n max(g) + 1)`` (nan rows for impossible conditions) and
        ``log P(condition)``.
        """
        P, n = self.transition, self.n
        g = np.asarray(increments, dtype=np.int64)
        B = allowed.shape[0]
        K = n * int(g.max()) + 1
        a = np.zeros((B, K, self.states))
        for y in range(self.states):
            a[:, g[y], y] = self.initial[y]
        a *= allowed[:, 0, None, :]
        shifted = [(y, int(g[y])) for y in range(self.states) if g[y] > 0]
        logz = np.zeros(B)
        with np.errstate(divide="ignore"):
            for t in range(1, n + 1):
                if t % 8 == 0 or t == n:  # rescale often enough that nothing underflows
                    z = a.sum(axis=(1, 2))
                    ok = z > 0
                    zz = np.where(ok, z, 1.0)
                    a /= zz[:, None, None]
                    logz += np.where(ok, np.log(zz), -np.inf)
                if t == n:
                    break
                nxt = a @ P  # sum_x a[b, k, x] P[x, y]
                for y, d in shifted:
                    nxt[:, d:, y] = nxt[:, :-d, y]
                    nxt[:, :d, y] = 0.0
                a = nxt * allowed[:, t, None, :]
        law = a.sum(axis=2)
        law[~np.isfinite(logz)] = np.nan
        return law, logz

    def additive_law(self, known: Mapping[int, int], increments: np.ndarray) -> np.ndarray:
        """``P(S = k | known)``, ``S = sum_t g(X_t)``, ``k = 0..n max(g)`` (see
        :meth:`additive_law_masked`); ConfigError for a probability-zero condition."""
        mask = _known_arrays(known, self.n, self.states)
        law, _ = self.additive_law_masked(mask[None], increments)
        if not np.all(np.isfinite(law)):
            raise ConfigError("known", dict(known), "conditioning event has probability zero")
        return law[0]
