"""Numerical kernel of the window-reduced exhaustive search (see :mod:`bdpsim.models.markov.window`).

For a Markov chain with transition ``P``, start law ``w`` and an additive query whose per-state
values lie on an integer lattice ``g(x) in {0..Delta}`` (after an affine change of units), the
window adversary with ``L`` unknown records left of the target and ``R`` right of it sees the
window sum ``S = sum_{t=l+1}^{r-1} g(X_t)``. Its law given the left boundary (a known value ``a``
at ``l``, or the chain start), ``X_i = x`` and the right boundary (a known value ``c`` at ``r``,
or the chain end) comes from two clamped forward recursions on the chain of paper Def. 6.1:

* left:  ``F_0 = e_a P`` (known) or ``w`` (start);
  ``F_{L+1}(y, s) = sum_x F_L(x, s - g(x)) P[x, y]``;
* right: ``G_0(y, s) = F_L(x, s - g(x)) P[x, y]``, ``G_{R+1}(y, s) = sum_z G_R(z, s - g(z)) P[z, y]``;
  the law for a known ``c`` is ``G_R(c, .)``, for the chain end ``sum_y G_R(y, .)``.

All of this depends on ``(L, R, a, c, x)`` only, never on the position of the window; the
position enters only through which boundary values are reachable (:func:`feasible_cells`).
The supremum over outputs of ``|ln p(y | x) / p(y | x')|`` for ``Y = S + Lap(b)`` is attained
at a lattice point inside the union of the two supports (between atoms the ratio of two Laplace
mixtures is monotone and beyond the extreme atoms constant, see
:mod:`bdpsim.kernels.noise.laplace_mixture`), where ``p(k) ∝ sum_j w_j q^{|k - j|}``, ``q = e^{-1/b}``:
two first-order linear recursions (:func:`bdpsim.kernels.noise.laplace_mixture.grid_sup`), exact up to
rounding.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..noise.laplace_mixture import grid_sup

# cells are indexed [left kind, L, right kind, R]; kind 0 = known boundary value, 1 = chain end
KNOWN, END = 0, 1
_BUDGET = 3_000_000  # doubles per block of the right recursion (keeps memory in the 100 MB range)


class Support:
    """``supp[t, a] = P(X_t = a) > 0`` for ``t = 0..n-1`` without an ``(n, s)`` array.

    The support of ``X_t`` is a function of the support of ``X_{t-1}`` alone, so the sequence
    repeats as soon as one support recurs: rows ``0..start-1`` are a transient, then the rows
    ``start..start+period-1`` repeat (period 1 for an aperiodic chain). Only those
    ``start + period`` rows are stored (``rows``); indexing ``supp[t]``, ``supp[t, a]`` and
    ``supp[array_of_t]`` behaves as on the full array (:meth:`full`).

    Parameters
    ----------
    rows : ndarray of bool, shape (m, s)
        The distinct leading rows (``m = start + period``, ``m <= n``).
    start : int
        First row of the repeating block.
    n : int
        Chain length.
    """

    def __init__(self, rows: np.ndarray, start: int, n: int) -> None:
        self.rows, self.start, self.n = rows, int(start), int(n)
        self.period = rows.shape[0] - self.start
        self._cumany = np.logical_or.accumulate(rows, axis=0)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.rows.shape[1])

    def index(self, t):
        """Row of ``rows`` holding position ``t`` (an int or an integer array)."""
        t = np.asarray(t)
        k = np.where(t < self.start, t, self.start + (t - self.start) % self.period)
        return int(k) if k.ndim == 0 else k

    def __getitem__(self, key):
        if isinstance(key, tuple):
            return self.rows[(self.index(key[0]),) + key[1:]]
        return self.rows[self.index(key)]

    def any_upto(self, t):
        """``supp[0..t].any(axis=0)`` (``t`` an int or an integer array of positions ``>= 0``)."""
        return self._cumany[np.minimum(np.asarray(t), self.rows.shape[0] - 1)]

    def full(self) -> np.ndarray:
        """The ``(n, s)`` array."""
        return self.rows[self.index(np.arange(self.n))]


def support(model) -> Support:
    """:class:`Support` of the chain: boolean propagation (no underflow) until a support recurs
    (at most ``n`` steps; typically a few)."""
    step = (model.transition > 0).astype(np.int64)
    cur = np.asarray(model.initial) > 0
    rows, seen = [cur], {cur.tobytes(): 0}
    for t in range(1, model.n):
        cur = (cur.astype(np.int64) @ step) > 0
        k = seen.get(cur.tobytes())
        if k is not None:
            return Support(np.array(rows), k, model.n)
        seen[cur.tobytes()] = t
        rows.append(cur)
    return Support(np.array(rows), model.n - 1, model.n)


def reachable(model) -> np.ndarray:
    """``supp[t, a] = P(X_t = a) > 0``, by boolean propagation (no underflow), shape ``(n, s)``
    (:func:`support` without materialising is ``O(1)`` in ``n``)."""
    return support(model).full()


def feasible_cells(n: int, lmax: int, supp: np.ndarray, targets: np.ndarray, min_known: int) -> np.ndarray:
    """``ok[L, R, k, c]``: some window with ``L``/``R`` unknowns, left kind ``k`` (a state, or
    ``s`` = chain start) and right kind ``c`` (a state, or ``s`` = chain end) exists with an
    allowed target, ``|K| = n - 1 - L - R >= min_known`` and ``X_l = k`` reachable.

    ``supp`` is the ``(n, s)`` array of :func:`reachable` or a :class:`Support`; with a
    :class:`Support` and every position a target the work does not depend on ``n``."""
    s = supp.shape[1]
    every = bool(targets.all())
    ok = np.zeros((lmax + 1, lmax + 1, s + 1, s + 1), dtype=bool)
    R = np.arange(lmax + 1)
    for L in range(lmax + 1):
        size_ok = n - 1 - L - R >= min_known
        if L <= n - 1:  # chain start: i = L
            ok[L, :, s, :s] = ((L + R <= n - 2) & size_ok & bool(targets[L]))[:, None]
            ok[L, :, s, s] = (L + R == n - 1) & size_ok & bool(targets[L])
        # known left, chain end: i = n - 1 - R, l = n - 2 - R - L
        lpos = n - 2 - R - L
        good = (lpos >= 0) & size_ok
        i_end = np.clip(n - 1 - R, 0, n - 1)
        ok[L, good, :s, s] = supp[lpos[good]] & targets[i_end[good], None]
        # known left and right: i in [L + 1, n - 2 - R], l = i - L - 1
        if n - 2 - L - 1 < 0:
            continue
        if every and isinstance(supp, Support):  # some l in [0, n - 3 - R - L] with X_l = a
            hi = n - 3 - R - L
            good = (hi >= 0) & size_ok
            ok[L, good, :s, :s] = supp.any_upto(hi[good])[:, :, None]
            continue
        i = np.arange(L + 1, n)
        arr = targets[i, None] & supp[i - L - 1]  # (len, s)
        cum = np.vstack([np.zeros((1, s), dtype=np.int64), np.cumsum(arr, axis=0)])
        hi = n - 2 - R - (L + 1)  # index of last allowed i within `i`
        good = (hi >= 0) & size_ok
        ok[L, good, :s, :s] = (cum[hi[good] + 1] > 0)[:, :, None]
    return ok


def first_target(
    n: int, L: int, R: int, a: int | None, right_end: bool, supp: np.ndarray, targets: np.ndarray
) -> int:
    """A target position realising the window cell (the first one in chain order)."""
    if a is None:
        return L
    if right_end:
        return n - 1 - R
    for i in range(L + 1, n - 1 - R):
        if targets[i] and supp[i - L - 1, a]:
            return i
    raise RuntimeError("no position realises this window cell")  # excluded by feasible_cells


def _advance(A: np.ndarray, cur: int, g: np.ndarray, P: np.ndarray) -> np.ndarray:
    """One clamped step ``A'(y', s) = sum_y P[y, y'] A(y, s - g(y))`` on axes ``(..., y, s)``,
    reading the first ``cur`` sums; returns an array with ``cur + max(g)`` sums."""
    s = P.shape[0]
    out = np.zeros(A.shape[:-1] + (cur + int(g.max()),))
    for y in range(s):
        src = A[..., y, :cur]
        for y2 in np.flatnonzero(P[y]):
            out[..., y2, g[y] : g[y] + cur] += P[y, y2] * src
    return out


def scan(
    P: np.ndarray,
    w: np.ndarray,
    g: np.ndarray,
    b: float,
    lmax: int,
    ok: np.ndarray,
    score=None,
    components: int = 1,
) -> dict:
    """Worst window adversary per cell ``[left kind, L, right kind, R]`` for ``L, R <= lmax``.

    Parameters
    ----------
    P, w : ndarray
        Transition matrix and start law.
    g : ndarray of int, shape (s,)
        Query values on the integer lattice (``>= 0``).
    b : float
        Laplace scale in lattice units.
    lmax : int
        Largest number of unknown records searched on either side.
    ok : ndarray of bool, shape (lmax + 1, lmax + 1, s + 1, s + 1)
        :func:`feasible_cells`.
    score : callable, optional
        ``(W1, W2) -> (signed value, atom)`` per row of two laws on the lattice (rows
        unnormalised): the leakage of the pair (largest magnitude, positive for the ``W1`` over
        ``W2`` direction); or ``(value, forward, atom)``, each of shape ``(rows, components)``:
        the value of each component (larger: more leaking), whether it is attained in the ``W1``
        over ``W2`` direction, and where (:class:`bdpsim.kernels.noise.scores.Scored`). Default:
        Laplace noise of scale ``b``, :func:`grid_sup`; any noise law's ``grid_sup``, a
        privacy-profile score or several at once plug in (the window reduction holds for every
        score jointly quasi-convex in the pair and invariant to a common shift).
    components : int
        How many components the score gives (1 for a signed score).

    Returns
    -------
    dict
        Arrays of shape (2, lmax + 1, 2, lmax + 1), for the first component: ``value`` (``-inf``
        where no window exists), ``a``/``c`` (boundary states, ``s`` = chain end),
        ``x``/``x_prime`` (ordered so that the component is attained with ``x`` first) and
        ``atom`` (worst window sum, lattice units); ``components``: one such dict per component
        (the first is the top level's); plus ``evaluated``.
    """
    s, D = P.shape[0], int(g.max())
    if score is None:

        def score(W1, W2):
            return grid_sup(W1, W2, b)

    shape = (2, lmax + 1, 2, lmax + 1)
    parts = []
    for _ in range(int(components)):
        cell = {"value": np.full(shape, -np.inf), "atom": np.zeros(shape)}
        for key in ("a", "c", "x", "x_prime"):
            cell[key] = np.zeros(shape, dtype=np.int64)
        parts.append(cell)
    out: dict = {**parts[0], "components": parts, "evaluated": np.zeros((), dtype=np.int64)}
    pairs = np.array(list(itertools.combinations(range(s), 2)), dtype=np.int64).reshape(-1, 2)
    F = np.vstack([P, w[None, :]])[:, :, None]  # F[k, x, sigma] for L = 0
    per_L = (s + 1) * ((2 * lmax + 1) * D + 2) * (3 * s * s + 4 * (s + 1) * len(pairs))
    block = max(1, _BUDGET // per_L)
    L0 = 0
    while L0 <= lmax and pairs.size:
        L1 = min(lmax, L0 + block - 1)
        Fs = []
        for L in range(L0, L1 + 1):
            if L > L0:
                F = _advance(F, F.shape[-1], g, P)
            Fs.append(np.pad(F, ((0, 0), (0, 0), (0, (L1 - L) * D))))
        Fb = np.stack(Fs)  # (nb, s+1, s, L1*D + 1)
        JL = Fb.shape[-1]
        G: np.ndarray = np.zeros(Fb.shape[:3] + (s, JL + D))  # (L, k, x, next state, sigma)
        for x, gx in enumerate(g):
            G[:, :, x, :, gx : gx + JL] = Fb[:, :, x, None, :] * P[x][:, None]
        cur = JL + D
        for R in range(lmax + 1):
            later = np.flatnonzero(ok[L0 : L1 + 1, R:].any(axis=(1, 2, 3)))
            if later.size == 0:
                break
            G = G[: later[-1] + 1]  # rows (L) with no window at any R' >= R are dropped for good
            _score_step(G[..., :cur], pairs, score, ok[L0 : L0 + G.shape[0], R], L0, R, out)
            if R < lmax:
                G = _advance(G, cur, g, P)
                cur += D
        F = _advance(F, F.shape[-1], g, P) if L1 < lmax else F
        L0 = L1 + 1
    return out


def _triple(got, rows: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A score's answer as ``(value, forward, atom)`` of shape ``(rows, m)``: a signed pair
    ``(signed value, atom)`` (one component) or the triple itself."""
    if len(got) == 2:
        v, a = (np.asarray(t, dtype=float) for t in got)
        return np.abs(v)[:, None], ~(v < 0)[:, None], a[:, None]
    v, f, a = (np.asarray(t) for t in got)
    if v.shape != (rows, m) or f.shape != v.shape or a.shape != v.shape:
        raise ValueError(f"score returned arrays of shape {v.shape}: need ({rows}, {m}) (rows, components)")
    return v.astype(float, copy=False), f.astype(bool, copy=False), a.astype(float, copy=False)


def _score_step(G: np.ndarray, pairs: np.ndarray, score, ok: np.ndarray, L0: int, R: int, out: dict) -> None:
    """Score the feasible (L, k, c) rows of every target pair at right length ``R``; keep each
    cell's best, component by component. ``G`` has axes (L, k, x, next state, sigma)."""
    nL, s1, s, J = G.shape[0], G.shape[1], G.shape[2], G.shape[-1]
    sel = ok.reshape(-1)
    if not sel.any():
        return
    m = len(out["components"])
    vals = np.full((len(pairs), nL * s1 * s1, m), np.nan)
    fwds = np.ones_like(vals, dtype=bool)
    atoms = np.zeros_like(vals)
    for j, (x, xp) in enumerate(pairs):
        W = [
            np.concatenate([G[:, :, v], G[:, :, v].sum(axis=2, keepdims=True)], axis=2).reshape(-1, J)
            for v in (x, xp)
        ]
        if not sel.all():
            W = [w[sel] for w in W]
        live = (W[0].sum(axis=1) > 0) & (W[1].sum(axis=1) > 0)
        rows = np.flatnonzero(sel)[live]
        if rows.size:
            v, f, a = _triple(score(W[0][live], W[1][live]), rows.size, m)
            vals[j, rows], fwds[j, rows], atoms[j, rows] = v, f, a
            out["evaluated"] += rows.size
    kinds = [(KNOWN, slice(0, s)), (END, slice(s, s + 1))]
    for k, cell in enumerate(out["components"]):
        V = vals[:, :, k].reshape(len(pairs), nL, s1, s1)
        F = fwds[:, :, k].reshape(V.shape)
        A = atoms[:, :, k].reshape(V.shape)
        for kl, ks in kinds:
            for kr, cs in kinds:
                sub = np.nan_to_num(np.moveaxis(V[:, :, ks, cs], 1, 0), nan=-1.0)
                flat = sub.reshape(nL, -1)  # (L, pair * a * c); -1 where no window
                best = np.argmax(flat, axis=1)
                has = flat[np.arange(nL), best] >= 0
                pj, a, c = np.unravel_index(best[has], sub.shape[1:])
                Ls = np.flatnonzero(has)
                a, c = a + ks.start, c + cs.start
                forward = F[pj, Ls, a, c]
                idx = (kl, L0 + Ls, kr, R)
                x, xp = pairs[pj, 0], pairs[pj, 1]
                cell["value"][idx] = V[pj, Ls, a, c]
                atom = A[pj, Ls, a, c]
                # a score with no output where it is attained (nan, e.g. a privacy profile) keeps nan
                cell["atom"][idx] = (
                    atom if np.isnan(atom).all() else _clip_to_support(G, Ls, a, c, x, xp, atom)
                )
                cell["a"][idx], cell["c"][idx] = a, c
                cell["x"][idx] = np.where(forward, x, xp)
                cell["x_prime"][idx] = np.where(forward, xp, x)


def _clip_to_support(G, Ls, a, c, x, xp, atom) -> np.ndarray:
    """Move a worst atom into the union of the two laws' supports (beyond it the log-ratio is
    constant, so rounding may have put the argmax anywhere on that plateau)."""
    s = G.shape[2]

    def law(v):
        known = G[Ls, a, v, np.minimum(c, s - 1)]
        return np.where((c < s)[:, None], known, G[Ls, a, v].sum(axis=1))

    pos = (law(x) > 0) | (law(xp) > 0)
    lo = np.argmax(pos, axis=1)
    hi = pos.shape[1] - 1 - np.argmax(pos[:, ::-1], axis=1)
    return np.clip(atom, lo, hi)
