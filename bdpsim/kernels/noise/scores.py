"""Scores of two laws on a lattice under a noise law, for the all-adversary searches (the window
scan of a chain, the separated-region search of a network, the pedigree's class search) and the
calibrations that reuse them.

A *score* (the ``score`` of :meth:`bdpsim.models.engines.HasSearch.search`) maps a batch of law
pairs — rows ``W1[r], W2[r]`` (non-negative weights, each row normalised by the score) of the
query ``S`` on the lattice ``0, step, 2 step, ...`` under ``x`` and ``x'``, the output being
``S + Z`` with ``Z`` the engine's noise law ``noise`` — to :class:`Scored` values, one row per pair
and one column per component (``names``): :class:`BdplScore` (``sup_y |ln p1/p2|``, the noise
law's ``grid_sup``), :class:`ProfileScore` (the privacy profile ``delta(eps)``, both directions),
:class:`StackedScore` (several at once, one pass), :class:`RecordPairs` (records the pairs, scores 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .laplace_mixture import grid_sup
from .laws import grid_delta_pair, prepared_deltas
from .protocols import HasBdplBound, LaplaceKernel


def pair_score(noise, delta: float, profile: float | None = None):
    """The window scan's score of two laws on a lattice of step ``delta`` for a noise law: its
    exact ``grid_sup``, or with ``profile = eps`` the privacy profile
    ``delta(eps) = max(∫ (p1 - e^eps p2)^+, ∫ (p2 - e^eps p1)^+)`` (signed by the direction)."""
    if profile is None:
        return lambda W1, W2: noise.grid_sup(W1, W2, delta)

    def score(W1, W2):
        fwd, bwd = grid_delta_pair(noise, W1, W2, delta, profile)
        return np.where(fwd >= bwd, fwd, -bwd), np.zeros(fwd.shape)

    return score


def scan_score(noise, delta: float, profile: float | None = None):
    """The score of the chain's window scan (:func:`bdpsim.kernels.chains.window_scan.scan`) for a
    noise law: :func:`pair_score`, but a Laplace kernel
    (:class:`~bdpsim.kernels.noise.protocols.LaplaceKernel`)
    scores the scan's unnormalised window laws directly with
    :func:`~bdpsim.kernels.noise.laplace_mixture.grid_sup` of scale ``scale / delta`` (its rows'
    normalisation applied after the argmax: the scan's numbers since the window reduction).
    """
    if profile is None and isinstance(noise, LaplaceKernel):
        b = float(noise.scale) / delta

        def score(W1, W2):
            return grid_sup(W1, W2, b)

        return score
    return pair_score(noise, delta, profile)


@runtime_checkable
class PairScore(Protocol):
    """A score of law pairs: ``names`` its components (one value per adversary cell, or ``m`` of
    them), and ``score(W1, W2, step, noise)`` for a batch of pairs — rows of the query's weights
    under ``x`` (``W1``) and ``x'`` (``W2``) on the lattice ``0, step, 2 step, ...`` (shape
    ``(rows, J)``, non-negative, possibly unnormalised: the score normalises), the output being
    query + ``noise`` — returning a :class:`Scored` (``value``, ``forward``, ``atom``, each
    ``(rows, m)``) or the values alone (``(rows,)`` or ``(rows, m)``). Larger is more leaking. The
    reduced searches are exact for scores jointly quasi-convex in the pair and invariant to a common
    shift (:mod:`bdpsim.models.engines`)."""

    @property
    def names(self) -> tuple[str, ...]: ...

    def __call__(self, W1: np.ndarray, W2: np.ndarray, step: float, noise: Any) -> Any: ...


@runtime_checkable
class HasScanPath(Protocol):
    """A score with a path of its own for the rows of a chain's window scan
    (:func:`bdpsim.kernels.chains.window_scan.scan`: unnormalised window laws):
    ``scan_path(noise, step)`` gives ``(W1, W2) -> Scored`` with the numbers the scan has always had
    (the BDPL's Laplace kernel normalises its rows after the argmax)."""

    def scan_path(self, noise: Any, step: float) -> Callable[[np.ndarray, np.ndarray], Scored]: ...


@dataclass(frozen=True)
class Scored:
    """What a score gives for ``rows`` law pairs and ``m`` components (arrays of shape ``(rows, m)``).

    Attributes
    ----------
    value : ndarray of float
        The component's value per pair, larger = more leaking (``nan``: not scored).
    forward : ndarray of bool
        Where it is attained with the first law over the second (``x`` over ``x'``: a search reports
        the adversary in this order); ``False``: the reverse order.
    atom : ndarray of float
        The lattice index of ``S`` where it is attained (``±inf``: a tail; ``nan``: no such point).
    """

    value: np.ndarray
    forward: np.ndarray
    atom: np.ndarray

    @classmethod
    def of(cls, out, rows: int) -> Scored:
        """A score's answer as 2-D arrays: a :class:`Scored`, or the values alone (shape ``(rows,)``
        or ``(rows, m)``; forward order, no atom)."""
        if isinstance(out, Scored):
            value, forward, atom = (np.asarray(a) for a in (out.value, out.forward, out.atom))
        else:
            value = np.asarray(out, dtype=float)
            forward, atom = np.ones(value.shape, dtype=bool), np.full(value.shape, math.nan)
        if value.ndim == 1:
            value, forward, atom = value[:, None], forward[:, None], atom[:, None]
        if (
            value.ndim != 2
            or value.shape[0] != rows
            or forward.shape != value.shape
            or atom.shape != value.shape
        ):
            raise ValueError(
                f"score value of shape {value.shape}: need one row per law pair ({rows}) and one "
                "column per component, forward and atom alike"
            )
        return cls(
            value.astype(float, copy=False), forward.astype(bool, copy=False), atom.astype(float, copy=False)
        )

    @classmethod
    def signed(cls, value, atom) -> Scored:
        """From the ``grid_sup`` convention: one signed value per row (positive: ``W1`` over
        ``W2``) and its atom."""
        v = np.asarray(value, dtype=float)
        return cls(np.abs(v)[:, None], (v >= 0)[:, None], np.asarray(atom, dtype=float)[:, None])

    @classmethod
    def join(cls, parts: Sequence[Scored], axis: int) -> Scored:
        """The parts side by side (``axis = 1``: more components) or one under the other
        (``axis = 0``: more rows)."""
        cat = np.hstack if axis == 1 else np.vstack
        return cls(
            cat([p.value for p in parts]), cat([p.forward for p in parts]), cat([p.atom for p in parts])
        )

    def triple(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(value, forward, atom)``: the contract of the kernels' searches
        (:func:`bdpsim.kernels.chains.window_scan.scan`)."""
        return self.value, self.forward, self.atom


@dataclass(frozen=True)
class BdplScore:
    """The BDPL of a pair: ``sup_y |ln p(y | x_K, x) / p(y | x_K, x')|``, the noise law's exact
    ``grid_sup`` (attained at an atom or in a tail: ``atom``)."""

    names: tuple[str, ...] = ("bdpl",)

    def __call__(self, W1, W2, step: float, noise) -> Scored:
        v, atom = noise.grid_sup(W1, W2, step)
        return Scored.signed(v, atom)

    def scan_path(self, noise, step: float) -> Callable[[np.ndarray, np.ndarray], Scored]:
        """The window scan's BDPL (:func:`scan_score`: a Laplace kernel scores the unnormalised rows
        directly)."""
        fn = scan_score(noise, step)
        return lambda W1, W2: Scored.signed(*fn(W1, W2))


@dataclass(frozen=True)
class ProfileScore:
    """The privacy profile of a pair at ``epsilon``: ``delta(eps) = max(∫ (p1 - e^eps p2)^+,
    ∫ (p2 - e^eps p1)^+)`` (``forward``: the first is the larger; no atom: ``0``). At ``eps = 0``
    it is the total variation, the optimal attack's advantage."""

    epsilon: float
    names: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not self.names:
            object.__setattr__(self, "names", (f"delta({self.epsilon:g})",))

    def __call__(self, W1, W2, step: float, noise) -> Scored:
        fwd, bwd = grid_delta_pair(noise, W1, W2, step, self.epsilon)
        out = np.where(fwd >= bwd, fwd, -bwd)  # the scans' numbers: the larger side, signed
        return Scored(np.abs(out)[:, None], (out >= 0)[:, None], np.zeros((fwd.size, 1)))


#: a pair whose BDPL is below ``eps - PRUNE_MARGIN`` has ``delta(eps) = 0``: not evaluated
PRUNE_MARGIN = 1e-9


@dataclass(frozen=True)
class ProfilesScore:
    """The privacy profile of a pair at several ``epsilons`` in one pass: a component
    ``delta(eps)`` per value (as :class:`ProfileScore` each), then with ``bdpl`` the BDPL
    (:class:`BdplScore`'s numbers, its scan path included). What the attack's searches read: the
    advantage (``eps = 0``), the profile its TPR bounds come from, the BDPL over every adversary.

    The values share their work: the mixtures' sides once for every ``eps``
    (:func:`~bdpsim.kernels.noise.laws.prepared_deltas`); and for a pure-DP noise law each pair's
    BDPL ``L`` is read first (from the same sides, or the BDPL component), since ``p <= e^L q``
    makes ``delta(eps) = 0`` exactly for ``eps >= L``: a pair is evaluated only at the ``eps``
    below its ``L`` (plus :data:`PRUNE_MARGIN`), the others are 0 — at large ``eps`` most pairs.
    """

    epsilons: tuple[float, ...]
    bdpl: bool = False
    names: tuple[str, ...] = field(default=(), compare=False)

    def __init__(self, epsilons, bdpl: bool = False, names: tuple[str, ...] = ()) -> None:
        eps = tuple(float(e) for e in np.ravel(np.asarray(epsilons, dtype=float)))
        if not eps:
            raise ValueError("epsilons = []: a profile score needs at least one eps")
        object.__setattr__(self, "epsilons", eps)
        object.__setattr__(self, "bdpl", bool(bdpl))
        default = tuple(f"delta({e:.17g})" for e in eps) + (("bdpl",) if bdpl else ())
        object.__setattr__(self, "names", tuple(names) or default)

    def _profiles(self, W1, W2, step: float, noise, sup) -> Scored:
        rows = np.shape(W1)[0]
        eps = np.array(self.epsilons)
        fwd, bwd = np.zeros((rows, eps.size)), np.zeros((rows, eps.size))
        at = prepared_deltas(noise, W1, W2, step)
        signed = sup(W1, W2) if self.bdpl else None
        L = None  # each pair's BDPL where the law is pure DP: delta(eps) = 0 from eps = L on
        if noise.pure_dp:
            if signed is not None:
                L = np.abs(signed.value[:, 0])
            elif isinstance(at, HasBdplBound):
                L = at.bdpl_bound()
        for k, e in enumerate(eps):
            sub = None if L is None else np.flatnonzero(L > e - PRUNE_MARGIN)
            if sub is not None and sub.size == 0:
                continue
            if sub is None or sub.size > 0.6 * rows:  # most rows: all of them (no copies)
                f, b = at(np.array([e]))
                fwd[:, k], bwd[:, k] = f[:, 0], b[:, 0]
            else:
                f, b = at(np.array([e]), sub)
                fwd[sub, k], bwd[sub, k] = f[:, 0], b[:, 0]
        forward = fwd >= bwd
        out = Scored(np.where(forward, fwd, bwd), forward, np.full(fwd.shape, np.nan))  # no output
        if signed is not None:
            out = Scored.join([out, signed], axis=1)
        return out

    def __call__(self, W1, W2, step: float, noise) -> Scored:
        return self._profiles(W1, W2, step, noise, lambda A, B: BdplScore()(A, B, step, noise))

    def scan_path(self, noise, step: float) -> Callable[[np.ndarray, np.ndarray], Scored]:
        """The same, the BDPL by the window scan's own path (:meth:`BdplScore.scan_path`)."""
        bdpl_path = BdplScore().scan_path(noise, step)
        return lambda W1, W2: self._profiles(W1, W2, step, noise, bdpl_path)


@dataclass(frozen=True)
class StackedScore:
    """Several scores in one pass over the law pairs: their components side by side (``names``
    joined, in order)."""

    parts: tuple

    def __init__(self, *parts) -> None:
        object.__setattr__(self, "parts", tuple(parts))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for p in self.parts for n in p.names)

    def __call__(self, W1, W2, step: float, noise) -> Scored:
        rows = np.shape(W1)[0]
        return Scored.join([Scored.of(p(W1, W2, step, noise), rows) for p in self.parts], axis=1)

    def scan_path(self, noise, step: float) -> Callable[[np.ndarray, np.ndarray], Scored]:
        """Each part by its own scan path where it has one (the BDPL's numbers, whatever it is
        stacked with), else by its call."""
        fns = [scan_path_of(p, noise, step) for p in self.parts]
        return lambda W1, W2: Scored.join([f(W1, W2) for f in fns], axis=1)


@runtime_checkable
class ReadsQueryValues(Protocol):
    """A score that reads the searched sums themselves, not only the pair up to a common shift and a
    unit: with ``reads_query_values`` true, a search gives it law pairs on the query's per-state
    values **as they are** — non-negative integers, ``step = 1`` — column ``k`` of a row the
    probability that the searched records' sum of the values is ``k`` (a chain's window: its
    unknown records and the target; a network's region: its records; a network's exhaustive table:
    every record), instead of on the query's lattice moved to its least value and divided by its
    step.

    What needs it: several additive queries packed into one integer per state (mixed radix: the
    accountant's components, :class:`bdpsim.accounting.pairs.Components`), whose joint law a score
    decodes column by column. The known records outside the sum add one packed integer (no carry),
    a common shift of each query: a score invariant to that shift (every divergence of the joint
    laws) keeps the reduced searches exact. The searches that honour it: a chain's window scan, a
    network's region search; the others refuse such a score
    (:func:`bdpsim.models.engines.refuse_query_values`)."""

    reads_query_values: bool


def reads_query_values(score) -> bool:
    """Whether ``score`` asks for law pairs on the query's own values (:class:`ReadsQueryValues`)."""
    return isinstance(score, ReadsQueryValues) and bool(score.reads_query_values)


@dataclass(frozen=True)
class FunctionScore:
    """Any function ``fn(W1, W2, step, noise)`` as a score with components ``names`` (it returns a
    :class:`Scored` or the values: shape ``(rows,)`` or ``(rows, len(names))``);
    ``reads_query_values``: it reads the sums themselves (:class:`ReadsQueryValues`)."""

    fn: Callable
    names: tuple[str, ...] = ("score",)
    reads_query_values: bool = False

    def __call__(self, W1, W2, step: float, noise) -> Scored:
        return Scored.of(self.fn(W1, W2, step, noise), np.shape(W1)[0])


class RecordPairs:
    """A score that records every law pair it is given (``pairs``: the batches ``(W1, W2, step)``,
    copied as given) and scores them 0: the law pairs an exact search examines
    (:meth:`bdpsim.models.engines.HasSearch.law_pairs`)."""

    names: tuple[str, ...] = ("recorded",)

    def __init__(self) -> None:
        self.pairs: list[tuple[np.ndarray, np.ndarray, float]] = []

    def __call__(self, W1, W2, step: float, noise) -> Scored:
        self.pairs.append((np.array(W1, dtype=float), np.array(W2, dtype=float), float(step)))
        rows = np.shape(W1)[0]
        return Scored(np.zeros((rows, 1)), np.ones((rows, 1), dtype=bool), np.full((rows, 1), math.nan))

    def stacked(self) -> tuple[np.ndarray, np.ndarray, float]:
        """Every recorded pair, rows normalised and padded with zeros to one width (trailing lattice
        points of weight 0 up to the widest), trimmed after the last atom of positive weight;
        ``(W1, W2, step)``. Raises :class:`ValueError` when the batches' steps differ."""
        if not self.pairs:
            return np.zeros((0, 1)), np.zeros((0, 1)), 1.0
        steps = {s for _, _, s in self.pairs}
        if len(steps) > 1:
            raise ValueError(f"recorded law pairs on lattices of different steps {sorted(steps)}")
        J = max(a.shape[1] for a, _, _ in self.pairs)
        W1 = np.vstack([np.pad(a, ((0, 0), (0, J - a.shape[1]))) for a, _, _ in self.pairs])
        W2 = np.vstack([np.pad(b, ((0, 0), (0, J - b.shape[1]))) for _, b, _ in self.pairs])
        pos = np.flatnonzero(((W1 > 0) | (W2 > 0)).any(axis=0))
        last = int(pos[-1]) + 1 if pos.size else 1
        W1, W2 = W1[:, :last], W2[:, :last]
        return W1 / W1.sum(axis=1, keepdims=True), W2 / W2.sum(axis=1, keepdims=True), steps.pop()


def names_of(score) -> tuple[str, ...]:
    """The components of a score (a :class:`PairScore` declares them)."""
    names = score.names if isinstance(score, PairScore) else None
    if not (isinstance(names, Sequence) and len(names) >= 1 and all(isinstance(n, str) for n in names)):
        raise TypeError(
            f"score {score!r}: needs names (a tuple of its components' names); wrap a function as "
            "FunctionScore(fn, names)"
        )
    return tuple(names)


def scan_path_of(score, noise, step: float) -> Callable[[np.ndarray, np.ndarray], Scored]:
    """``score`` as ``(W1, W2) -> Scored`` for a window scan: its own path
    (:class:`HasScanPath`), else its call with ``step`` and ``noise``."""
    if isinstance(score, HasScanPath):
        return score.scan_path(noise, step)
    return lambda W1, W2: Scored.of(score(W1, W2, step, noise), np.shape(W1)[0])
