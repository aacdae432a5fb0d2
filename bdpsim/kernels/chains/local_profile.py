"""The privacy profile of a local release of every record of a Markov chain, bracketed.

**Setting.** A person's values ``x_1..x_T`` follow a Markov chain (``k`` states, initial law
``pi_1``, transitions ``P_t`` from step ``t`` to ``t + 1``, possibly different per step). Each step
releases ``r_t ~ L_t[., x_t]`` independently given ``x_t`` (``L_t[r, x] = P(r_t = r | x_t = x)``,
entries ``> 0``: k-RR, the extreme mechanism of every eps-DP step, any finite release). An
adversary targets step ``t``, knows the values ``x_K`` of the steps ``K`` and compares ``x_t = a``
with ``x_t = b`` from the whole release ``r = r_1..r_T``. Its privacy loss is
``L(r) = ln P(r | x_t = a, x_K) / P(r | x_t = b, x_K)`` and its privacy profile the hockey-stick
divergence ``delta(eps) = E_a[(1 - e^{eps - L})^+] = sum_r (P(r | a, x_K) - e^eps P(r | b, x_K))^+``.

**Only the nearest known steps matter.** Let ``s < t < s'`` be the last known step before ``t``
and the first after it (values ``c`` and ``d``; the chain's ends if none). Given ``x_s`` and
``x_{s'}`` the chain splits into independent pieces, so the releases outside ``(s, s')`` and at
the known steps have a law that does not depend on ``x_t``: they multiply both hypotheses' laws by
the same factor, which leaves every divergence unchanged. Every known set with the same nearest
steps and values has the same profile; the supremum over known sets is a supremum over windows
``(s, s')`` and their values ``(c, d)`` (those a known set of an allowed size can have:
:func:`window_allowed`). Inside the window, past and future are independent given ``x_t``:

``P(r | a, x_K) = P(r_{s+1..t-1} | x_t = a, x_s = c) L_t[r_t, a] P(r_{t+1..s'-1} | x_t = a, x_{s'} = d)``

so the pair of laws is the product of three independent pairs and ``L = L_past + L_t + L_future``.
The past term is a function of the forward vector ``u(r)_x = P(r_{s+1..t-1}, x_t = x | x_s = c)``
(``u = P_s[c, .]`` at ``t = s + 1``, ``u(r, o) = P_t^T (u(r) * L_t[o, .])``), with mass
``u_a / Q_a`` under ``a`` (``Q = sum_r u(r)``, the law of ``x_t`` given ``x_s = c``); the future
term of the backward vector ``v(r)_x = P(r_{t+1..s'-1}, x_{s'} = d | x_t = x)`` (``v = P_{s'-1}[., d]``
at ``t = s' - 1``, or ``1`` without a known step; ``v(o, r) = P_t (L_{t+1}[o, .] * v(r))``), with
mass ``v_a / N_a``. A pair ``(a, b)`` counts where both values are possible given ``c`` and ``d``
(``Q_a N_a > 0`` and ``Q_b N_b > 0``).

**The bracket.** The number of output sequences grows like ``m^T``; the filter's vector measure
is held to a grid by two discretisations (:mod:`bdpsim.kernels.chains.belief_grid`): a merge of
the atoms of each cell (a garbling of the release: every divergence can only shrink) and a split
of each atom onto its cell's corners (the release is a garbling of the result: every divergence
can only grow). Both commute with the later filter steps and with the independent other terms,
so composing ``past x present x future`` (:mod:`bdpsim.kernels.chains.pair_product`: the
hockey-stick of a product, exact on its parts) gives
``delta_lower(eps) <= delta(eps) <= delta_upper(eps)`` for every ``eps``, the same order for every
Rényi divergence ``D_alpha`` (data processing) and for ``eps(delta)``, and for the ``delta = 0``
limit, the largest loss ``max_r L(r) = BPL_t(a, b) + FPL_t(a, b) - eps_t(a, b)`` of the exact
temporal leakage (:mod:`bdpsim.temporal.exact`; with 2 states both ends equal it: the extreme
atoms are kept apart and the grid's ends are the hull's, with more states the upper end is the
grid box's corner). The gap is a second-order effect of the cell size and narrows like
``grid^-2``. Up to floating-point rounding (relative ``~1e-15``) the bracket holds for every grid;
the exact enumeration of every output sequence (:func:`enumerate_local_release`, small ``T``) is
the tests' oracle. The supremum over adversaries, refined to a tolerance:
:mod:`bdpsim.kernels.chains.local_worst`.

**Sharing work.** One forward sweep from the chain start gives the past of every target, one
backward sweep from the end every future (``sizes = [0]``: cost linear in ``T``). A known step
``s`` with value ``c`` starts a sweep of its own (on a chain whose transitions and releases are the
same at every step, one sweep per value serves every ``s``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..argcheck import ParameterError, TooExpensive, count_as_float, require
from .belief_grid import MAX_NODES, Atoms, loss_factor, merge_in_grid, propagate, split_onto_grid
from .pair_product import PairBracket, PairFactor, ProductPair
from .transition import stationary_distribution, transition_matrix

#: default cells per axis of the direction grid when no tolerance is asked
GRID = 256
#: default limit of the estimated work (atom-steps of the sweeps plus outcome-searches of the compositions)
MAX_WORK = 2e10
#: most output sequences times state paths the exact enumeration visits
MAX_ENUMERATION = 20_000_000


# ----------------------------------------------------------------------------- the release


@dataclass(frozen=True)
class LocalRelease:
    """A Markov chain and the local release of each of its steps (module docstring), validated.

    Build it with :func:`local_release`. ``transitions[t - 1]`` is ``P_t`` (step ``t`` to
    ``t + 1``), ``likelihoods[t - 1]`` is ``L_t`` (``(m_t, k)``, columns summing to 1).
    """

    transitions: tuple[np.ndarray, ...]
    initial: np.ndarray
    likelihoods: tuple[np.ndarray, ...]
    homogeneous: bool = field(init=False)

    def __post_init__(self) -> None:
        same_P = all(
            P is self.transitions[0] or np.array_equal(P, self.transitions[0]) for P in self.transitions
        )
        same_L = all(
            L is self.likelihoods[0]
            or (L.shape == self.likelihoods[0].shape and np.array_equal(L, self.likelihoods[0]))
            for L in self.likelihoods
        )
        object.__setattr__(self, "homogeneous", bool(same_P and same_L))

    @property
    def steps(self) -> int:
        return len(self.likelihoods)

    @property
    def stationary(self) -> bool:
        """The same transitions and releases at every step and an initial law stationary for
        them (to ``1e-12``): the releases' law is then invariant under a shift in time."""
        if not self.homogeneous:
            return False
        if not self.transitions:
            return True
        return bool(np.max(np.abs(self.initial @ self.transitions[0] - self.initial)) <= 1e-12)

    @property
    def states(self) -> int:
        return int(self.initial.size)

    def priors(self) -> list[np.ndarray]:
        """``pi_t`` for ``t = 1..T``."""
        return self._priors

    @cached_property
    def _priors(self) -> list[np.ndarray]:
        out = [self.initial]
        for P in self.transitions:
            out.append(out[-1] @ P)
        return out

    @cached_property
    def possible(self) -> list[list[int]]:
        """The values of positive probability at each step ``1..T`` (``possible[t - 1]``)."""
        return [[x for x in range(self.states) if p[x] > 0] for p in self._priors]


def _likelihood(L, k: int, name: str) -> np.ndarray:
    arr = np.asarray(L, dtype=float) if not isinstance(L, str) else np.array([])
    require(
        arr.ndim == 2 and arr.shape[1] == k and arr.shape[0] >= 1,
        name,
        np.shape(arr),
        f"must be an (outputs, {k}) matrix: L[r, x] = P(r | x)",
    )
    require(
        bool(np.all(np.isfinite(arr))) and bool(np.all(arr > 0)),
        name,
        arr.tolist() if arr.size <= 40 else arr.shape,
        "entries must be finite and > 0 (every output possible from every state)",
    )
    cols = arr.sum(axis=0)
    require(
        bool(np.all(np.abs(cols - 1) < 1e-9)),
        name,
        np.round(cols, 12).tolist(),
        "each column (a state's output law) must sum to 1",
    )
    return arr


def local_release(transitions, initial, likelihoods, *, steps: int | None = None) -> LocalRelease:
    """Validate a chain and its local release (:class:`LocalRelease`).

    Parameters
    ----------
    transitions : array_like
        One ``(k, k)`` row-stochastic matrix (every step), or ``T - 1`` of them (``P_t``: step
        ``t`` to ``t + 1``).
    initial : array_like or "stationary"
        The law of ``x_1`` (``"stationary"``: the stationary law of the first matrix).
    likelihoods : array_like
        One ``(m, k)`` matrix ``L[r, x] = P(r | x)`` (every step), or ``T`` of them.
    steps : int, optional
        ``T``; needed when both ``transitions`` and ``likelihoods`` are single matrices.
    """
    per_P = isinstance(transitions, (list, tuple)) and len(transitions) > 0 and np.ndim(transitions[0]) == 2
    per_P = per_P or (isinstance(transitions, np.ndarray) and transitions.ndim == 3)
    per_L = isinstance(likelihoods, (list, tuple)) and len(likelihoods) > 0 and np.ndim(likelihoods[0]) == 2
    per_L = per_L or (isinstance(likelihoods, np.ndarray) and likelihoods.ndim == 3)
    T = None
    if per_L:
        T = len(likelihoods)
    elif per_P:
        T = len(transitions) + 1
    if steps is not None:
        require(
            isinstance(steps, (int, np.integer)) and not isinstance(steps, bool) and steps >= 1,
            "steps",
            steps,
            "must be an integer >= 1",
        )
        require(T is None or T == int(steps), "steps", steps, f"the per-step lists give T = {T}")
        T = int(steps)
    require(
        T is not None, "steps", steps, "give steps = T when transitions and likelihoods are single matrices"
    )
    assert T is not None
    if per_P:
        mats = []
        for i, P in enumerate(transitions):
            try:
                mats.append(transition_matrix(P))
            except ParameterError as exc:
                raise ParameterError("transitions", f"step {i + 1}: {exc.value}", exc.rule) from None
        require(
            len(mats) == T - 1,
            "transitions",
            f"{len(mats)} matrices",
            f"a per-step list needs T - 1 = {T - 1} matrices (P_t maps step t to t + 1)",
        )
    else:
        try:
            P0 = transition_matrix(transitions)
        except ParameterError as exc:
            raise ParameterError("transitions", exc.value, exc.rule) from None
        mats = [P0] * (T - 1)
    k = mats[0].shape[0] if mats else (transition_matrix(transitions).shape[0] if not per_P else 0)
    require(
        all(P.shape == (k, k) for P in mats),
        "transitions",
        [P.shape for P in mats][:8],
        "all matrices must have the same number of states",
    )
    if isinstance(initial, str):
        require(initial == "stationary", "initial", initial, "must be 'stationary' or a probability vector")
        require(bool(mats), "initial", initial, "a chain of one step has no transition to be stationary for")
        pi = stationary_distribution(mats[0])
    else:
        pi = np.asarray(initial, dtype=float)
        require(
            pi.shape == (k,)
            and bool(np.all(np.isfinite(pi)))
            and bool(np.all(pi >= 0))
            and abs(float(pi.sum()) - 1) < 1e-9,
            "initial",
            np.asarray(initial).tolist() if np.size(initial) <= 40 else np.shape(initial),
            f"must be {k} probabilities >= 0 summing to 1",
        )
    if per_L:
        require(
            len(likelihoods) == T,
            "likelihoods",
            f"{len(likelihoods)} matrices",
            f"a per-step list needs one matrix per step ({T})",
        )
        liks = tuple(_likelihood(L, k, "likelihoods") for L in likelihoods)
    else:
        L0 = _likelihood(likelihoods, k, "likelihoods")
        liks = (L0,) * T
    return LocalRelease(tuple(mats), pi, liks)


# ----------------------------------------------------------------------------- sweeps


def _reduce(atoms: Atoms, grid: int, kind: str) -> Atoms:
    """The atoms held to the grid: kept as they are while there are at most as many as cells."""
    d = max(int(np.count_nonzero(atoms.total() > 0)) - 1, 1)
    if atoms.size <= grid**d:
        return atoms
    return split_onto_grid(atoms, grid) if kind == "upper" else merge_in_grid(atoms, grid)


def _filter(
    start: np.ndarray, moves: Iterator[tuple[np.ndarray, np.ndarray]], grid: int, kind: str
) -> Iterator[Atoms]:
    """The measure at the start, then after each move ``(L, M)`` (before it is held to the grid:
    the last step before a target is used unreduced)."""
    X = Atoms.of(np.asarray(start, dtype=float)[None, :])
    yield X
    for L, M in moves:
        Y = propagate(X, L, M)
        yield Y
        X = _reduce(Y, grid, kind)


def value_pairs(k: int) -> list[tuple[int, int]]:
    return [(a, b) for a in range(k) for b in range(a + 1, k)]


#: per pair (a < b): (lower factor, upper factor) for the order (a, b); None where a or b is impossible
Factors = dict[tuple[int, int], tuple[PairFactor, PairFactor]]


def _factors(lower: Atoms, upper: Atoms, bins: int) -> Factors:
    tot = lower.total()
    out: Factors = {}
    for a, b in value_pairs(lower.states):
        if tot[a] > 0 and tot[b] > 0:
            out[(a, b)] = (loss_factor(lower, a, b, bins, "lower"), loss_factor(upper, a, b, bins, "upper"))
    return out


#: where the factors of a target come from: ("past" | "future", the sweep's start, the index in it)
Slot = tuple[str, tuple[int, int], int]


class Sweeps:
    """The past and future factors of every target for every start (the chain start or a known
    step's value), computed on demand and kept (module docstring: sharing work).

    A sweep is named by its start: ``(0, -1)`` the chain start, ``(T + 1, -1)`` the chain end,
    ``(s, c)`` a known value ``c`` at step ``s`` (on a chain with the same transitions and releases
    at every step, one sweep per value serves every ``s``: it starts at step 1 or ``T``).
    ``wanted``: the sweeps from the chain's start and end keep the factors of these targets only
    (``("past", t)``, ``("future", t)``; ``None``: all); asking for another reruns the sweep once,
    keeping every step.
    :attr:`used` records every target asked, for the next pass's ``wanted``."""

    def __init__(
        self, rel: LocalRelease, grid: int, bins: int, wanted: set[tuple[str, int]] | None = None
    ) -> None:
        self.rel, self.grid, self.bins = rel, grid, bins
        self.wanted = None if wanted is None else set(wanted)
        self.used: set[tuple[str, int]] = set()
        self._store: dict[tuple[str, tuple[int, int]], list[Factors | None]] = {}
        self._present: dict[tuple[int, int, int], PairFactor] = {}
        self.runs = 0

    def past_slot(self, t: int, lo: int, c: int) -> Slot:
        """The slot of the past of target ``t`` after the known step ``lo`` (value ``c``; ``lo = 0``:
        the chain start)."""
        if lo == 0:
            return ("past", (0, -1), t - 1)
        return ("past", (1 if self.rel.homogeneous else lo, c), t - lo - 1)

    def future_slot(self, t: int, hi: int, d: int) -> Slot:
        """The slot of the future of target ``t`` before the known step ``hi`` (value ``d``;
        ``hi = T + 1``: the chain end)."""
        T = self.rel.steps
        if hi == T + 1:
            return ("future", (T + 1, -1), T - t)
        return ("future", (T if self.rel.homogeneous else hi, d), hi - t - 1)

    def _run(self, side: str, start_key: tuple[int, int]) -> list[Factors | None]:
        rel = self.rel
        T = rel.steps
        s0, c = start_key
        if side == "past":
            start = rel.initial if s0 == 0 else rel.transitions[s0 - 1][c]
            step = 1
        else:
            start = np.ones(rel.states) if s0 == T + 1 else rel.transitions[s0 - 2][:, c].copy()
            step = -1
        wanted = self.wanted if s0 in (0, T + 1) else None  # the sweeps of known values keep all
        self.runs += 1
        lo = _filter(start, _moves(rel, side, s0), self.grid, "lower")
        up = _filter(start, _moves(rel, side, s0), self.grid, "upper")
        return [
            _factors(X, Y, self.bins) if wanted is None or (side, s0 + step * (i + 1)) in wanted else None
            for i, (X, Y) in enumerate(zip(lo, up))
        ]

    def factors(self, slot: Slot, t: int) -> Factors:
        """The factors of a slot (``t``: its target)."""
        side, start_key, index = slot
        self.used.add((side, t))
        store_key = (side, start_key)
        got = self._store.get(store_key)
        if got is None or got[index] is None:
            if got is not None:  # a target the last pass did not ask for: one rerun keeping every step
                self.wanted = None
            self._store[store_key] = got = self._run(side, start_key)
        out = got[index]
        assert out is not None
        return out

    def past(self, t: int, lo: int, c: int) -> Factors:
        """The past factors of target ``t`` (:meth:`past_slot`)."""
        return self.factors(self.past_slot(t, lo, c), t)

    def future(self, t: int, hi: int, d: int) -> Factors:
        """The future factors of target ``t`` (:meth:`future_slot`)."""
        return self.factors(self.future_slot(t, hi, d), t)

    def present(self, t: int, a: int, b: int) -> PairFactor:
        """The release of step ``t`` as a part for the pair ``(a, b)`` (one object per distinct release)."""
        i = 0 if self.rel.homogeneous else t - 1
        key = (i, a, b)
        if key not in self._present:
            L = self.rel.likelihoods[t - 1]
            self._present[key] = PairFactor(L[:, a], L[:, b])
        return self._present[key]


def _moves(rel: LocalRelease, side: str, s0: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The moves ``(L, M)`` of the sweep from ``s0`` (:meth:`Sweeps._run`): forward from step
    ``s0 + 1`` with ``M = P_s``, backward from step ``s0 - 1`` with ``M = P_{s-1}^T``."""
    T = rel.steps
    if side == "past":
        return ((rel.likelihoods[s - 1], rel.transitions[s - 1]) for s in range(s0 + 1, T))
    return ((rel.likelihoods[s - 1], rel.transitions[s - 2].T) for s in range(s0 - 1, 1, -1))


# ----------------------------------------------------------------------------- one adversary


@dataclass(frozen=True)
class LocalAdversary:
    """An adversary of the local release: target step ``target`` (1-based), hypotheses ``a`` vs
    ``b`` (states from 0), the nearest known steps ``before = (s, c)`` and ``after = (s', d)``
    (``None``: nothing known on that side). Every known set with these nearest steps and values has
    the same profile (module docstring)."""

    target: int
    a: int
    b: int
    before: tuple[int, int] | None = None
    after: tuple[int, int] | None = None

    @property
    def known(self) -> dict[int, int]:
        """The nearest known steps and their values ``{step: value}``."""
        return dict(x for x in (self.before, self.after) if x is not None)

    def reversed(self) -> LocalAdversary:
        """The same adversary with the hypotheses swapped."""
        return LocalAdversary(self.target, self.b, self.a, self.before, self.after)


def _nearest(
    rel: LocalRelease, target: int, known: Mapping[int, int] | None
) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    T, k = rel.steps, rel.states
    require(
        isinstance(target, (int, np.integer)) and not isinstance(target, bool) and 1 <= int(target) <= T,
        "target",
        target,
        f"must be a step in 1..{T}",
    )
    known = dict(known or {})
    for s, v in known.items():
        require(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 1 <= int(s) <= T,
            "known",
            s,
            f"steps must be in 1..{T}",
        )
        require(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= int(v) < k,
            "known",
            {s: v},
            f"values must be states in 0..{k - 1}",
        )
    require(int(target) not in known, "known", sorted(known), f"must not contain the target {target}")
    before = [s for s in known if s < target]
    after = [s for s in known if s > target]
    lo = max(before) if before else None
    hi = min(after) if after else None
    return (
        (lo, int(known[lo])) if lo is not None else None,
        (hi, int(known[hi])) if hi is not None else None,
    )


def _check_possible(rel: LocalRelease, known: Mapping[int, int]) -> None:
    """Refuse known values of probability 0."""
    if not known:
        return
    steps = sorted(known)
    law = rel.priors()[steps[0] - 1]
    prob = float(law[known[steps[0]]])
    prev = steps[0]
    for s in steps[1:]:
        M = np.eye(rel.states)
        for P in rel.transitions[prev - 1 : s - 1]:
            M = M @ P
        prob *= float(M[known[prev], known[s]])
        prev = s
    require(prob > 0, "known", dict(known), "these values have probability 0 together")


def adversary_slots(sw: Sweeps, adv: LocalAdversary) -> tuple[Slot, Slot, int]:
    """The slots of the past and future of ``adv`` and the index of its step's release: a key equal
    for every adversary composing the same parts (with the pair)."""
    T = sw.rel.steps
    t = adv.target
    lo, c = adv.before if adv.before else (0, -1)
    hi, d = adv.after if adv.after else (T + 1, -1)
    return sw.past_slot(t, lo, c), sw.future_slot(t, hi, d), 0 if sw.rel.homogeneous else t


def adversary_bracket(sw: Sweeps, adv: LocalAdversary) -> PairBracket | None:
    """The bracket of ``adv`` (order ``(a, b)``), or ``None`` where ``a`` or ``b`` is impossible."""
    t = adv.target
    past_slot, future_slot, _ = adversary_slots(sw, adv)
    key = (min(adv.a, adv.b), max(adv.a, adv.b))
    past = sw.factors(past_slot, t).get(key)
    fut = sw.factors(future_slot, t).get(key)
    if past is None or fut is None:
        return None
    pres = sw.present(t, key[0], key[1])
    low = ProductPair((past[0], pres, fut[0]))
    up = ProductPair((past[1], pres, fut[1]))
    if adv.a > adv.b:
        low, up = low.reversed(), up.reversed()
    return PairBracket(low, up)


def grid_argument(grid, name: str = "grid") -> int:
    require(
        isinstance(grid, (int, np.integer)) and not isinstance(grid, bool) and 2 <= int(grid) <= 1_000_000,
        name,
        grid,
        "must be an integer in 2..1000000 (cells per axis)",
    )
    return int(grid)


def finest_grid(k: int) -> int:
    """The finest grid whose nodes fit :data:`~bdpsim.kernels.chains.belief_grid.MAX_NODES` (``k`` states)."""
    return max(2, int(MAX_NODES ** (1.0 / max(k - 1, 1))) - 1)


def loss_bins(grid: int, bins) -> int:
    if bins is None:
        return max(1024, 4 * grid)
    return grid_argument(bins, "bins")


def estimate_work(
    rel: LocalRelease,
    grid: int,
    sweeps: float,
    compositions: float,
    bins: int,
    n_eps: int,
    max_work: float,
    adversaries: float = 0.0,
    visit: float = 0.0,
) -> float:
    """The estimated work (atom-steps of the sweeps, outcome-searches of the compositions, and
    ``visit`` for each adversary looked at); :class:`TooExpensive` above ``max_work``."""
    k = rel.states
    m = max(L.shape[0] for L in rel.likelihoods)
    cap = float(grid + 1) ** (k - 1)  # atoms held per step; fewer while m^s is smaller
    lm = math.log(m)  # m^s past the float range (many outputs: a quantised Gaussian) is above the cap
    held = sum(min(cap, float(m) ** s if s * lm < 700 else math.inf) for s in range(rel.steps))
    outcomes = min(float(bins), cap * m)  # of a part
    work = sweeps * held * m * k * 2 ** (k - 1) + compositions * outcomes * m * max(n_eps, 1) * 2
    work += adversaries * visit
    if not math.isfinite(work) or work > max_work:
        raise TooExpensive(
            "steps",
            rel.steps,
            f"the bracket may take ~{work:.3g} operations ({count_as_float(sweeps):.3g} sweeps of "
            f"{rel.steps} steps on a grid of {grid} cells per axis in {k - 1} dimensions, "
            f"{count_as_float(compositions):.3g} compositions of {count_as_float(adversaries):.3g} "
            f"adversaries), above the limit {max_work:.3g}",
        )
    return work


def local_release_profile(
    transitions,
    initial,
    likelihoods,
    *,
    target: int,
    pair: tuple[int, int],
    known: Mapping[int, int] | None = None,
    steps: int | None = None,
    grid: int = GRID,
    bins: int | None = None,
    max_work: float = MAX_WORK,
) -> PairBracket:
    """The privacy profile of one adversary of a chain's local release, bracketed (module docstring).

    Parameters
    ----------
    transitions, initial, likelihoods, steps
        The chain and its release (:func:`local_release`).
    target : int
        The target step ``t`` (1-based).
    pair : (int, int)
        The hypotheses ``(a, b)``: ``x_t = a`` against ``x_t = b`` (states from 0).
    known : mapping of int to int, optional
        Known steps and their values ``{s: x_s}`` (only the nearest on each side of ``t`` matter).
    grid : int
        Cells per axis of the direction grid (the bracket narrows like ``grid^-2``).
    bins : int, optional
        Cells of the one-dimensional loss grid of each part (default ``max(1024, 4 grid)``).
    max_work : float
        Refuse (:class:`~bdpsim.kernels.argcheck.TooExpensive`) a larger estimated work.

    Returns
    -------
    PairBracket
        ``delta(eps)``, ``epsilon(delta)``, ``renyi(alpha)`` and ``bdpl()`` as :class:`Bounds`, each
        the larger of both orders of the pair (``.lower`` / ``.upper`` are the order ``(a, b)``).
    """
    rel = local_release(transitions, initial, likelihoods, steps=steps)
    return release_profile(
        rel, target=target, pair=pair, known=known, grid=grid, bins=bins, max_work=max_work
    )


def release_profile(
    rel: LocalRelease,
    *,
    target: int,
    pair: tuple[int, int],
    known: Mapping[int, int] | None = None,
    grid: int = GRID,
    bins: int | None = None,
    max_work: float = MAX_WORK,
) -> PairBracket:
    """:func:`local_release_profile` on a validated :class:`LocalRelease`."""
    k = rel.states
    require(
        isinstance(pair, (tuple, list))
        and len(pair) == 2
        and all(
            isinstance(x, (int, np.integer)) and not isinstance(x, bool) and 0 <= int(x) < k for x in pair
        )
        and int(pair[0]) != int(pair[1]),
        "pair",
        pair,
        f"must be two different states in 0..{k - 1}",
    )
    g = grid_argument(grid)
    nb = loss_bins(g, bins)
    before, after = _nearest(rel, target, known)
    _check_possible(rel, dict(known or {}))
    estimate_work(rel, g, 4.0, 1.0, nb, 20, max_work)
    adv = LocalAdversary(int(target), int(pair[0]), int(pair[1]), before, after)
    out = adversary_bracket(Sweeps(rel, g, nb), adv)
    require(
        out is not None,
        "pair",
        tuple(pair),
        f"both values must be possible at step {target} given the known values {dict(known or {})}",
    )
    assert out is not None
    return out


# ----------------------------------------------------------------------------- every adversary


def known_sizes(sizes, steps: int) -> tuple[int, ...]:
    """Allowed numbers of known steps: ``"all"`` (``0..T-1``) or a list of integers in ``0..T-1``."""
    if isinstance(sizes, str):
        require(sizes == "all", "sizes", sizes, "must be 'all' or a list of integers")
        return tuple(range(steps))
    require(
        isinstance(sizes, (list, tuple, range, np.ndarray))
        and len(sizes) > 0
        and all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 0 <= int(s) < steps
            for s in sizes
        ),
        "sizes",
        sizes,
        f"must be 'all' or a non-empty list of integers in 0..{steps - 1}",
    )
    return tuple(sorted({int(s) for s in sizes}))


def window_allowed(t: int, lo: int, hi: int, steps: int, sizes: Sequence[int]) -> bool:
    """Whether a known set of a size in ``sizes`` can have ``lo`` and ``hi`` as the nearest known
    steps around ``t`` (``lo = 0``, ``hi = T + 1``: none): it holds the boundaries (``n0`` steps)
    and any number of the ``lo - 1 + T - hi`` steps outside the window."""
    n0 = int(lo >= 1) + int(hi <= steps)
    outside = max(lo - 1, 0) + max(steps - hi, 0)
    return any(n0 <= s <= n0 + outside for s in sizes)


def windows(rel: LocalRelease, t: int, sizes: Sequence[int]) -> list[tuple[int, int, int, int]]:
    """Every ``(lo, c, hi, d)`` an allowed known set can have around ``t`` (``c = -1``, ``d = -1``
    where ``lo = 0``, ``hi = T + 1``: nothing known on that side)."""
    T = rel.steps
    if max(sizes) == 0:
        return [(0, -1, T + 1, -1)]
    values = rel.possible
    los = [0, *range(1, t)]
    his = [*range(t + 1, T + 1), T + 1]
    out = []
    for lo in los:
        for hi in his:
            if window_allowed(t, lo, hi, T, sizes):
                for c in values[lo - 1] if lo >= 1 else [-1]:
                    for d in values[hi - 1] if hi <= T else [-1]:
                        out.append((lo, c, hi, d))
    return out


# ----------------------------------------------------------------------------- the oracle


def enumerate_local_release(
    rel: LocalRelease, *, target: int, pair: tuple[int, int], known: Mapping[int, int] | None = None
) -> PairFactor:
    """The exact pair of laws of the whole release ``r_1..r_T`` given ``x_t = a`` and ``x_t = b``
    (and ``x_K``), by enumerating every output sequence and every state path:
    ``P(r | x_t = a, x_K) = sum_{x : x_t = a, x_K} pi_1(x_1) prod_s P_s[x_s, x_{s+1}] prod_s L_s[r_s, x_s]
    / P(x_t = a, x_K)``. The tests' oracle; refused (:class:`TooExpensive`) beyond
    :data:`MAX_ENUMERATION` sequence-path pairs."""
    T, k = rel.steps, rel.states
    _nearest(rel, target, known)
    known = dict(known or {})
    a, b = int(pair[0]), int(pair[1])
    outputs = [L.shape[0] for L in rel.likelihoods]
    n_out = math.prod(outputs)
    cost = n_out * k**T * T
    if cost > MAX_ENUMERATION:
        raise TooExpensive(
            "steps", T, f"enumerating {n_out} output sequences x {k**T} paths exceeds {MAX_ENUMERATION}"
        )
    paths = np.array(np.unravel_index(np.arange(k**T), (k,) * T)).T  # (k^T, T)
    prior = rel.initial[paths[:, 0]].copy()
    for s in range(T - 1):
        prior *= rel.transitions[s][paths[:, s], paths[:, s + 1]]
    for s, v in known.items():
        prior *= paths[:, s - 1] == v
    seqs = np.array(np.unravel_index(np.arange(n_out), tuple(outputs))).T  # (n_out, T)
    lik = np.ones((n_out, paths.shape[0]))
    for s in range(T):
        lik *= rel.likelihoods[s][seqs[:, s][:, None], paths[:, s][None, :]]
    masses = []
    for x in (a, b):
        w = prior * (paths[:, target - 1] == x)
        require(w.sum() > 0, "pair", (a, b), f"x_{target} = {x} is impossible given the known values")
        masses.append(lik @ w / w.sum())
    return PairFactor(masses[0], masses[1])


__all__ = [
    "GRID",
    "MAX_WORK",
    "LocalAdversary",
    "LocalRelease",
    "enumerate_local_release",
    "known_sizes",
    "local_release",
    "local_release_profile",
    "release_profile",
    "window_allowed",
]
