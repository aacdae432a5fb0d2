"""The two output laws of one adversary, as an exact engine gives them to the attack quantities.

An adversary ``(i, K, x_K, x, x')`` compares the mechanism's output law ``P`` given
``X_K = x_K, X_i = x`` with ``Q`` given ``X_i = x'``. What the optimal test can achieve is read
from the pair's hockey-stick divergences ``H(t) = ∫ (p - t q)^+`` and ``H'(t) = ∫ (q - t p)^+``
(at ``t = e^eps``: the privacy profile of each direction; Dong, Roth and Su 2022, Prop. 2.12), so
a pair is what answers :meth:`OutputPair.deltas` — one per kind of output:

* :class:`LatticePair` — ``query + noise`` with the query on a lattice ``start + step j``: the
  noise law's exact mixture functions (:func:`~bdpsim.kernels.noise.laws.grid_deltas`,
  ``grid_sup``);
* :class:`ShiftPair` — two normal laws of one variance, ``mu`` apart in standard deviations
  (``mu``-GDP; Gaussian records with Gaussian noise): the closed form;
* :class:`FinitePair` — two probability vectors on finite outcomes (randomized response's flipped
  count): the sums ``sum_y (p_y - t q_y)^+``.

:func:`pair_deltas` evaluates many pairs at once, one ``eps`` per pair (the attack's threshold
searches, :mod:`bdpsim.attack.tradeoff`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np
from scipy.special import ndtr, ndtri

from ..kernels.noise.checks import MAX_PROFILE_EPSILON
from ..kernels.noise.laws import grid_deltas, prepared_deltas


@runtime_checkable
class OutputPair(Protocol):
    """The two output laws of one adversary (``P``: given ``x``, ``Q``: given ``x'``)."""

    def deltas(self, epsilons) -> tuple[np.ndarray, np.ndarray]:
        """``(∫ (p - e^eps q)^+, ∫ (q - e^eps p)^+)`` at each of ``epsilons`` (shape ``(m,)``)."""
        ...

    def swapped(self) -> OutputPair:
        """The same pair with ``x`` and ``x'`` exchanged."""
        ...

    def bdpl(self) -> float:
        """``sup_y |ln p(y) / q(y)|`` (the adversary's exact BDPL; ``inf`` without pure DP)."""
        ...

    @property
    def label(self) -> str:
        """How its numbers are obtained (shown beside a curve)."""
        ...


@runtime_checkable
class HasClosedTradeOff(Protocol):
    """A pair whose optimal test has a closed form: ``closed_tpr(alpha)`` gives the largest TPR at
    FPR ``alpha`` and the likelihood-ratio threshold ``t*`` of the test attaining it."""

    def closed_tpr(self, alpha: float) -> tuple[float, float]: ...


def _clip_eps(epsilons) -> np.ndarray:
    """``eps`` as an array with ``|eps| <= MAX_PROFILE_EPSILON`` (the noise laws' range; the
    profile is constant to double precision beyond it)."""
    e = np.asarray(epsilons, dtype=float)
    return np.clip(e, -MAX_PROFILE_EPSILON, MAX_PROFILE_EPSILON)


@dataclass(frozen=True)
class LatticePair:
    """``P = sum_j w1[j] Z(. - start - step j)`` and ``Q`` likewise with ``w2`` (``Z``: the noise
    law ``noise``; ``w1, w2`` normalised, padded with zeros to one length)."""

    w1: np.ndarray
    w2: np.ndarray
    step: float
    start: float
    noise: Any

    def __post_init__(self) -> None:
        w1 = np.asarray(self.w1, dtype=float).ravel()
        w2 = np.asarray(self.w2, dtype=float).ravel()
        J = max(w1.size, w2.size)
        w1, w2 = np.pad(w1, (0, J - w1.size)), np.pad(w2, (0, J - w2.size))
        if not (np.all(np.isfinite(w1)) and np.all(np.isfinite(w2)) and w1.sum() > 0 and w2.sum() > 0):
            raise ValueError("w1, w2: need finite, non-negative weights of positive total")
        object.__setattr__(self, "w1", w1 / w1.sum())
        object.__setattr__(self, "w2", w2 / w2.sum())

    @property
    def atoms(self) -> np.ndarray:
        return self.start + self.step * np.arange(self.w1.size, dtype=float)

    def deltas(self, epsilons) -> tuple[np.ndarray, np.ndarray]:
        fwd, bwd = grid_deltas(self.noise, self.w1[None], self.w2[None], self.step, _clip_eps(epsilons))
        return fwd[0], bwd[0]

    def swapped(self) -> LatticePair:
        return LatticePair(self.w2, self.w1, self.step, self.start, self.noise)

    def bdpl(self) -> float:
        v, _ = self.noise.grid_sup(self.w1[None], self.w2[None], self.step)
        return float(abs(v[0]))

    @property
    def label(self) -> str:
        return f"exact ({self.noise.name} mixtures)"


@dataclass(frozen=True)
class ShiftPair:
    """``P = N(mu, 1)`` against ``Q = N(0, 1)`` (any two normal laws of one variance, in units of
    its standard deviation): ``H(t) = Phi(mu/2 - ln t / mu) - t Phi(-mu/2 - ln t / mu)``."""

    mu: float

    def __post_init__(self) -> None:
        m = abs(float(self.mu))
        if not math.isfinite(m):
            raise ValueError(f"mu = {self.mu!r}: must be finite")
        object.__setattr__(self, "mu", m)

    def deltas(self, epsilons) -> tuple[np.ndarray, np.ndarray]:
        d = shift_delta(self.mu, _clip_eps(epsilons))
        return d, d.copy()  # the two directions are mirror images

    def swapped(self) -> ShiftPair:
        return self

    def bdpl(self) -> float:
        return 0.0 if self.mu == 0.0 else math.inf

    @property
    def label(self) -> str:
        return f"closed form ({self.mu:.6g}-GDP)"

    def closed_tpr(self, alpha: float) -> tuple[float, float]:
        """``TPR = Phi(Phi^-1(alpha) + mu)`` (Dong, Roth and Su 2022, Cor. 2.13), the threshold test
        ``y > Phi^-1(1 - alpha)``: likelihood ratio ``t* = e^{mu c - mu^2 / 2}``."""
        mu, a = self.mu, float(alpha)
        value = min(1.0, max(a, float(ndtr(ndtri(a) + mu))))
        return value, (math.exp(mu * float(ndtri(1.0 - a)) - mu * mu / 2.0) if mu > 0 else 1.0)


def shift_delta(mu, eps) -> np.ndarray:
    """``∫ (p - e^eps q)^+`` for ``p = N(mu, 1)``, ``q = N(0, 1)`` (elementwise in ``mu, eps``;
    ``(1 - e^eps)^+`` at ``mu = 0``)."""
    m, e = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(eps, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = ndtr(m / 2 - e / m) - np.exp(e) * ndtr(-m / 2 - e / m)
    return np.where(m == 0.0, np.maximum(-np.expm1(e), 0.0), np.clip(out, 0.0, 1.0))


@dataclass(frozen=True)
class FinitePair:
    """``P = p``, ``Q = q``: two probability vectors on the same finite outcomes."""

    p: np.ndarray
    q: np.ndarray

    def __post_init__(self) -> None:
        p, q = np.asarray(self.p, dtype=float).ravel(), np.asarray(self.q, dtype=float).ravel()
        if p.shape != q.shape or p.size == 0 or not (np.all(p >= 0) and np.all(q >= 0)):
            raise ValueError("p, q: need two non-negative vectors of one length")
        object.__setattr__(self, "p", p / p.sum())
        object.__setattr__(self, "q", q / q.sum())

    def deltas(self, epsilons) -> tuple[np.ndarray, np.ndarray]:
        ee = np.exp(_clip_eps(epsilons))[:, None]
        return (
            np.maximum(self.p[None] - ee * self.q[None], 0.0).sum(axis=1),
            np.maximum(self.q[None] - ee * self.p[None], 0.0).sum(axis=1),
        )

    def swapped(self) -> FinitePair:
        return FinitePair(self.q, self.p)

    def bdpl(self) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.abs(np.log(self.p) - np.log(self.q))
        return float(np.max(np.where((self.p > 0) | (self.q > 0), r, 0.0)))

    @property
    def label(self) -> str:
        return "exact (finite outcomes)"


Rows = Callable[[np.ndarray], np.ndarray]


def _lattice_rows(pairs: list[LatticePair]) -> Rows:
    J = max(p.w1.size for p in pairs)
    W1 = np.vstack([np.pad(p.w1, (0, J - p.w1.size)) for p in pairs])
    W2 = np.vstack([np.pad(p.w2, (0, J - p.w2.size)) for p in pairs])
    at = prepared_deltas(pairs[0].noise, W1, W2, pairs[0].step)  # the rows' sides once, for every eps
    return lambda e: at(e[:, None])[0][:, 0]


def _shift_rows(pairs: list[ShiftPair]) -> Rows:
    mu = np.array([p.mu for p in pairs])
    return lambda e: shift_delta(mu, e)


def _finite_rows(pairs: list[FinitePair]) -> Rows:
    P, Q = np.vstack([p.p for p in pairs]), np.vstack([p.q for p in pairs])
    return lambda e: np.maximum(P - np.exp(e)[:, None] * Q, 0.0).sum(axis=1)


def _one_row(pair: OutputPair) -> Rows:
    return lambda e: np.array([pair.deltas(e)[0][0]])


def pair_deltas(pairs: Sequence[OutputPair]) -> Rows:
    """``eps -> ∫ (p_r - e^{eps_r} q_r)^+`` for each pair ``r`` of ``pairs`` at its own
    ``eps_r``, the pairs of one kind evaluated together (lattice pairs of one noise law and step
    stacked into rows of one :func:`~bdpsim.kernels.noise.laws.grid_deltas` call)."""
    groups: dict[Any, list[int]] = {}
    for r, p in enumerate(pairs):
        if isinstance(p, LatticePair):
            key: Any = ("lattice", id(p.noise), float(p.step))
        elif isinstance(p, ShiftPair):
            key = ("shift",)
        elif isinstance(p, FinitePair):
            key = ("finite", p.p.size)
        else:
            key = ("one", r)
        groups.setdefault(key, []).append(r)
    plans: list[tuple[np.ndarray, Rows]] = []
    for key, idx in groups.items():
        members = [pairs[r] for r in idx]
        if key[0] == "lattice":
            fn = _lattice_rows(cast(list[LatticePair], members))
        elif key[0] == "shift":
            fn = _shift_rows(cast(list[ShiftPair], members))
        elif key[0] == "finite":
            fn = _finite_rows(cast(list[FinitePair], members))
        else:
            fn = _one_row(members[0])
        plans.append((np.array(idx), fn))

    def evaluate(eps: np.ndarray) -> np.ndarray:
        e = _clip_eps(eps)
        out = np.empty(len(pairs))
        for ix, fn in plans:
            out[ix] = fn(e[ix])
        return out

    return evaluate


__all__ = [
    "HasClosedTradeOff",
    "OutputPair",
    "LatticePair",
    "ShiftPair",
    "FinitePair",
    "pair_deltas",
    "shift_delta",
]
