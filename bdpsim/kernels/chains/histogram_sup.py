"""Exact supremum of the log-ratio of two product-Laplace mixtures (a private histogram), and the
exact BDPL of a histogram release on a Markov chain over all adversaries (small cases).

**The release.** ``Y = h(X) + Lap(b)^k``: a vector query ``h`` (here the histogram of states,
``k`` cells) plus independent ``Lap(b)`` noise per cell. Given a condition (the adversary's
knowledge and the target's value) ``h(X)`` is discrete with atoms ``c`` (count vectors) and
weights ``w_c``, so the output density is a mixture of product Laplace kernels::

    p(y) = sum_c w_c prod_k e^{-|y_k - c_k| / b} / (2b)^k.

**Where the supremum of ln p1/p2 is.** Let ``V_k`` be the set of the ``k``-th coordinates of the
atoms of *both* mixtures. Inside a cell of the grid ``V_1 x ... x V_k`` every ``|y_k - c_k|`` has
a fixed sign, so each mixture is ``sum_{s in {+-1}^k} A_s e^{s.y/b}`` with ``A_s >= 0``. Fix all
coordinates but ``y_k``: on an interval of ``R`` between consecutive points of ``V_k`` (or beyond
the extreme ones) each mixture is ``a e^{y_k/b} + a' e^{-y_k/b}`` (``a, a' >= 0`` depending on the
other coordinates), i.e. ``e^{-y_k/b} (a' + a u)`` with ``u = e^{2 y_k/b}``, and the ratio is
``(a' + a u)/(c' + c u)``: a linear-fractional function of ``u > 0`` with a positive denominator,
hence monotone on the interval. So along any one coordinate the supremum is attained at a point of
``V_k`` or approached as ``y_k -> +-inf``. Coordinate ascent then proves the claim: starting from
any ``y``, move ``y_1`` to its best candidate (the ratio does not decrease), then ``y_2``, ...;
a coordinate sent to ``+inf`` (``-inf``) leaves the limit ratio of the mixtures with weights
``w_c e^{c_k/b}`` (``w_c e^{-c_k/b}``) and the remaining coordinates' kernels, which has the same
form, so the argument continues in the remaining coordinates. After ``k`` moves ``y`` is a vertex
of the extended grid ``(V_1 u {+-inf}) x ... x (V_k u {+-inf})`` (infinite coordinates as limits)
and the ratio there is at least the one at the start. Conversely every vertex value is a value
of the ratio: beyond the extreme point of ``V_k`` every atom's kernel in coordinate ``k`` is
``e^{-+(y_k - c_k)/b}``, a factor common to the whole mixture, so the ratio does not depend on
``y_k`` there and the "limit" is attained at any ``y_k`` past the extreme atom. Hence
**sup_y ln p1/p2 = max over the extended grid's vertices**, a maximum (the same holds for any
superset of ``V_k``, e.g. every integer ``0..N`` for count vectors).

**Vertex values.** At a vertex, coordinate ``k``'s kernel is ``e^{-|v - c_k|/b}`` for finite
``v`` and, after removing the factor common to every mixture, ``e^{-(c_k - min V_k)/b}`` at
``-inf`` and ``e^{-(max V_k - c_k)/b}`` at ``+inf``. The mixture at all vertices is then the
multilinear contraction ``W x_1 E_1 x_2 ... x_k E_k`` of the dense weight tensor ``W`` over the
grid with the ``(|V_k| + 2) x |V_k|`` kernel matrices ``E_k`` (one matrix product per axis),
exact up to rounding; a log-space contraction takes over where a vertex value would underflow.

**Markov chains, all adversaries.** The window reduction (:mod:`bdpsim.models.markov.window`) holds for vector
additive queries: given the target's nearest known records ``l < i < r``, the unknown records
outside ``(l, r)`` add to ``h(X)`` an independent vector whose law does not depend on ``x_i``, and
a ratio of two mixtures with common weights is at most the largest ratio of its parts. So the
worst adversary knows everything outside a window and nothing inside it, and
:func:`chain_histogram_bdpl` searches windows ``(L unknowns, target, R unknowns)`` between a known
left value (or the chain start, law ``q``) and a known right value (or the chain end), each with
the exact law of the window's count vector from a forward recursion over (state, count vector).
Cost: ``O(T^2 s^2)`` (window, boundary values) cases, each ``s`` contractions over at most
``(T + 3)^s`` vertices, i.e. about ``T^(s+2)``: polynomial in ``T`` but steep. Measured for
``s = 5`` and one noise scale on one shared core: T = 5: 0.6 s, T = 8: 7-10 s, T = 10: 30-60 s
(250 MB), T = 12: 400 s (400 MB); the arrays grow as ``(T + 1)^5 s^2`` and :data:`LIMIT` refuses T > 16 up
front.
Checked against the supremum over every adversary ``(i, K, x_K)`` and every data tuple
(``tests/studies/test_pufferfish_fig2.py``; 2-3 states, T <= 5, and the 5-state chain of the Pufferfish
figure at T = 4, to 1e-15).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

LIMIT = 40_000_000  # entries of the largest array a contraction may build
_TINY = 1e-290  # a vertex value below this may have lost precision: use the log-space path


@dataclass(frozen=True)
class HistogramSup:
    """``forward = sup_y ln p1/p2``, ``backward = sup_y ln p2/p1``, ``value`` their max and
    ``argmax`` the vertex attaining it (a tuple of coordinates, ``+-inf`` for a tail)."""

    value: float
    forward: float
    backward: float
    argmax: tuple


def log_kernel_matrix(values, b: float) -> np.ndarray:
    """Rows ``-inf, values..., +inf``, columns ``values``: the log of the per-coordinate kernel at
    the vertices (all entries ``<= 0``, common factors of the infinite rows removed)."""
    v = np.asarray(values, dtype=float)
    lo = -(v - v[0]) / b
    hi = -(v[-1] - v) / b
    return np.vstack([lo, -np.abs(v[:, None] - v[None, :]) / b, hi])


def kernel_matrix(values, b: float) -> np.ndarray:
    """``exp`` of :func:`log_kernel_matrix` (entries in ``[0, 1]``)."""
    return np.exp(log_kernel_matrix(values, b))


def _check_size(shape, extra: int = 1) -> None:
    size = math.prod(shape) * extra
    if size > LIMIT:
        raise ValueError(
            f"histogram sup: an array of {size:.3g} entries (> {LIMIT:.0e}) would be "
            f"needed for a grid of shape {tuple(shape)}; the case is too large"
        )


def vertex_log_density(W, b: float, values=None, batch: int = 0) -> np.ndarray:
    """``ln sum_c W[c] prod_k E_k[v_k, c_k]`` at every vertex of the extended grid.

    ``W`` is a dense non-negative weight tensor over the grid ``values[0] x ... x values[k-1]``
    (default ``0..n_k - 1`` per axis, sorted), after ``batch`` leading axes that are not
    contracted (several tensors at once); the result has shape ``(n_1 + 2, ..., n_k + 2)`` after
    the batch axes, index ``0`` meaning ``-inf`` and ``n_k + 1`` meaning ``+inf`` on axis ``k``.
    It equals the log-density of ``c + Lap(b)^k`` up to a term that depends on the vertex and
    ``b`` only, the same for every weight tensor on the same grid (ratios are exact).
    """
    W = np.asarray(W, dtype=float)
    if values is None:
        values = [np.arange(n) for n in W.shape[batch:]]
    E = [kernel_matrix(v, b) for v in values]
    _check_size(W.shape[:batch] + tuple(n + 2 for n in W.shape[batch:]))
    M = W
    for Ek in reversed(E):  # contract the last axis, bring the result to the front:
        M = np.moveaxis(M @ Ek.T, -1, batch)  # after k steps the axes are back in their order
    with np.errstate(divide="ignore"):
        L = np.log(M)
    if M.min() > _TINY:
        return L
    flat_W = W.reshape((-1,) + W.shape[batch:])
    flat_L = L.reshape((-1,) + L.shape[batch:])
    for j in range(flat_W.shape[0]):
        if not flat_L[j].min() > math.log(_TINY):
            flat_L[j] = _vertex_log_density_logspace(flat_W[j], [log_kernel_matrix(v, b) for v in values])
    return flat_L.reshape(L.shape)


def _vertex_log_density_logspace(W: np.ndarray, logE: list) -> np.ndarray:
    """The same contraction in log space (for very small ``b`` or weights)."""
    with np.errstate(divide="ignore"):
        L = np.log(W)
    for ax, lE in enumerate(logE):
        Lm = np.moveaxis(L, ax, 0)  # (n, rest)
        _check_size(lE.shape + Lm.shape[1:])
        t = lE.reshape(lE.shape + (1,) * (Lm.ndim - 1)) + Lm[None]  # (n + 2, n, rest)
        m = np.max(t, axis=1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        with np.errstate(divide="ignore"):
            out = np.log(np.sum(np.exp(t - m), axis=1)) + m[:, 0]
        L = np.moveaxis(out, 0, ax)
    return L


def lattice_sup(W1, W2, b: float, values=None) -> HistogramSup:
    """Exact ``sup_y ln p1(y)/p2(y)`` (and the reverse) for ``Y = C + Lap(b)^k`` with ``C``'s
    weights ``W1``, ``W2`` given as dense tensors on a common grid (see :func:`vertex_log_density`;
    the tensors are normalised here)."""
    W1, W2 = np.asarray(W1, dtype=float), np.asarray(W2, dtype=float)
    if W1.shape != W2.shape or W1.sum() <= 0 or W2.sum() <= 0 or W1.min() < 0 or W2.min() < 0:
        raise ValueError("lattice_sup: weight tensors must have one shape, be >= 0 with positive sums")
    if values is None:
        values = [np.arange(n) for n in W1.shape]
    d = vertex_log_density(W1 / W1.sum(), b, values) - vertex_log_density(W2 / W2.sum(), b, values)
    jf, jb = int(np.argmax(d)), int(np.argmin(d))
    fwd, bwd = float(d.flat[jf]), float(-d.flat[jb])
    j = jf if fwd >= bwd else jb
    idx = np.unravel_index(j, d.shape)
    arg = tuple(
        -math.inf if i == 0 else (math.inf if i == len(v) + 1 else float(v[i - 1]))
        for i, v in zip(idx, values)
    )
    return HistogramSup(max(fwd, bwd), fwd, bwd, arg)


def histogram_sup(atoms1, weights1, atoms2, weights2, b: float) -> HistogramSup:
    """:func:`lattice_sup` for scattered atoms (arrays ``(J, k)``): the grid is the union of the
    atoms' coordinates per axis (dense, so meant for small cases)."""
    a1, a2 = np.atleast_2d(np.asarray(atoms1, dtype=float)), np.atleast_2d(np.asarray(atoms2, dtype=float))
    w1, w2 = np.asarray(weights1, dtype=float).ravel(), np.asarray(weights2, dtype=float).ravel()
    if a1.shape[1] != a2.shape[1] or a1.shape[0] != w1.size or a2.shape[0] != w2.size:
        raise ValueError("histogram_sup: atoms must be (J, k) arrays matching their weights")
    values = [np.unique(np.concatenate([a1[:, k], a2[:, k]])) for k in range(a1.shape[1])]
    shape = tuple(v.size for v in values)
    _check_size([n + 2 for n in shape])
    tensors = []
    for a, w in ((a1, w1), (a2, w2)):
        W = np.zeros(shape)
        idx = tuple(np.searchsorted(values[k], a[:, k]) for k in range(a.shape[1]))
        np.add.at(W, idx, w)
        tensors.append(W)
    return lattice_sup(tensors[0], tensors[1], b, values)


# ------------------------------------------------------------------------- Markov chains


def _step(F: np.ndarray, M: np.ndarray) -> np.ndarray:
    """One unknown record: ``G[..., c + e_y, y] = sum_x F[..., c, x] M[x, y]`` (the state on the
    last axis, the ``s`` count axes before it; counts beyond the grid cannot occur)."""
    s = M.shape[0]
    G = F @ M
    out = np.zeros_like(G)
    base = G.ndim - 1 - s
    for y in range(s):
        src = [slice(None)] * (G.ndim - 1) + [y]
        dst = list(src)
        src[base + y], dst[base + y] = slice(0, -1), slice(1, None)
        out[tuple(dst)] = G[tuple(src)]
    return out


def _left_part(P, start, L: int, size: int):
    """``(F, M)``: ``F[c, z]`` = P(counts = c of ``L`` unknown records, the last of them = z | left)
    and the transition ``M`` into the next record; counts on ``0..size - 1`` per state."""
    s = P.shape[0]
    shape = (size,) * s
    _check_size(shape, s * s)
    F = np.zeros(shape + (s,))
    if isinstance(start, tuple):  # chain start: a virtual record whose "transition" is q
        M = np.tile(np.asarray(start[1], dtype=float), (s, 1))
        F[(0,) * s + (0,)] = 1.0
    else:  # a known left value: F = e_a with no counts
        M = P
        F[(0,) * s] = np.asarray(start, dtype=float)
    for _ in range(L):
        F = _step(F, M)
        M = P
    return F, M


def _with_target(F: np.ndarray, M: np.ndarray) -> np.ndarray:
    """The target's record, all values at once: ``H[x, c, z]`` (non-zero for ``z = x`` only)."""
    s = M.shape[0]
    G = _step(F, M)
    H = np.zeros((s,) + G.shape)
    for x in range(s):
        H[x, ..., x] = G[..., x]
    return H


def window_laws(P, start, L: int, R: int) -> np.ndarray:
    """Joint weights of a window's count vector, target value and last state.

    The window is ``L`` unknown records, the target, ``R`` unknown records. ``start`` is the law of
    the known record before the window (``e_a`` for a known left value ``a``: the window's first
    record has law ``start @ P``), or ``("start", q)`` for the chain start (the window's first
    record has law ``q``). Returns ``out[x, c_1..c_s, z]`` = P(target = x, counts = c, last record
    of the window = z | left), the counts (on ``0..L + R + 1``) over the window's records.
    """
    P = np.asarray(P, dtype=float)
    H = _with_target(*_left_part(P, start, L, L + R + 2))
    for _ in range(R):
        H = _step(H, P)
    return H


@dataclass(frozen=True)
class ChainHistogramBDPL:
    """Exact BDPL of ``histogram + Lap(b)^s`` over all adversaries, and a worst window:
    ``left`` = known left value or ``"start"``, ``right`` = known right value or ``"end"``,
    ``L``/``R`` unknowns left/right of the target, ``x``/``x_prime`` the target pair (the ratio
    ``p(y | x)/p(y | x')`` is the large one), ``output`` the worst output vertex in window counts
    (the known records' counts subtracted; ``+-inf`` for a tail), ``windows`` the number of
    (window, boundary values) cases searched."""

    value: float
    b: float
    L: int
    R: int
    left: object
    right: object
    x: int
    x_prime: int
    output: tuple
    windows: int


def _reachable(P: np.ndarray, q: np.ndarray, T: int) -> np.ndarray:
    supp = np.zeros((T, P.shape[0]), dtype=bool)
    supp[0] = q > 0
    for t in range(1, T):
        supp[t] = (supp[t - 1].astype(float) @ (P > 0)) > 0
    return supp


def _right_kinds(left: str, L: int, R: int, T: int) -> list[str]:
    """Which right boundaries a window ``(left, L, R)`` can have in a chain of length ``T``: from
    the chain start the window is ``0..L+R``; after a known record at any ``l >= 0`` it is
    ``l+1..l+L+R+1`` (the caller checks that ``X_l = a`` is reachable at a fitting ``l``)."""
    if left == "start":
        used = L + R + 1
        return (["end"] if used == T else []) + (["known"] if used + 1 <= T else [])
    used = L + R + 2
    return (["end"] if used <= T else []) + (["known"] if used + 1 <= T else [])


def chain_histogram_bdpl(P, q, T: int, scales, min_known: int = 0) -> list[ChainHistogramBDPL]:
    """Exact BDPL over all adversaries ``(K, i)`` of ``Y = histogram(X) + Lap(b)^s`` for the chain
    ``(P, q)`` of length ``T``, one result per ``b`` in ``scales`` (window reduction, see the module
    docstring; pairs ``x, x'`` of zero probability given a window's boundaries are skipped).

    For each left boundary (the chain start, or a known value ``a`` at some reachable position)
    and ``L``, the recursion runs once over ``R = 0, 1, ...``, emitting the window law for every
    right boundary the chain's length allows. ``min_known``: only adversaries that know at least
    that many records (a window of ``L + R + 1`` records leaves ``T - L - R - 1`` known).
    """
    P, q = np.asarray(P, dtype=float), np.asarray(q, dtype=float)
    s = P.shape[0]
    scales = [float(b) for b in scales]
    supp = _reachable(P, q, T)
    best: list = [None] * len(scales)
    count = 0
    lefts: list[tuple[Any, Any]] = [("start", ("start", q))] + [(a, np.eye(s)[a]) for a in range(s)]
    for a, start in lefts:
        kind = "start" if a == "start" else "known"
        for L in range(T - (kind == "known")):
            if kind == "start":
                Rmax = T - 1 - L
            else:  # some position l = 0..T-2-L with X_l = a reachable, and R <= T - 2 - L - l
                ls = np.flatnonzero(supp[: T - 1 - L, a])
                if ls.size == 0:
                    continue
                Rmax = T - 2 - L - int(ls[0])
            H = _with_target(*_left_part(P, start, L, L + Rmax + 2))
            for R in range(Rmax + 1):
                if R:
                    H = _step(H, P)
                N = L + R + 1
                if N > T - min_known:
                    break
                Hn = H[(slice(None),) + (slice(0, N + 1),) * s]
                laws: list[tuple[Any, Any]] = []
                for rk in _right_kinds(kind, L, R, T):
                    if kind == "known" and not (
                        supp[T - 2 - L - R, a] if rk == "end" else int(ls[0]) <= T - 3 - L - R
                    ):
                        continue
                    if rk == "end":
                        laws.append(("end", Hn.sum(axis=-1)))
                    else:
                        HP = Hn @ P
                        laws += [(c, HP[..., c]) for c in range(s)]
                for c, W in laws:
                    count += _score(W, a, c, L, R, scales, best)
    return [ChainHistogramBDPL(**{**r.__dict__, "windows": count}) for r in best]


def _score(W: np.ndarray, a, c, L: int, R: int, scales, best: list) -> int:
    """Update ``best`` with the window law ``W[x, counts]``; 1 if it had two feasible targets."""
    s = W.shape[0]
    tot = W.reshape(s, -1).sum(axis=1)
    xs = np.flatnonzero(tot > 0)
    if xs.size < 2:
        return 0
    Wn = W[xs] / tot[xs].reshape((-1,) + (1,) * (W.ndim - 1))
    for j, b in enumerate(scales):
        D = vertex_log_density(Wn, b, batch=1)
        hi, lo = D.max(axis=0), D.min(axis=0)
        k = int(np.argmax(hi - lo))
        v = float((hi - lo).flat[k])
        if best[j] is None or v > best[j].value:
            idx = np.unravel_index(k, hi.shape)
            out = tuple(-math.inf if i == 0 else (math.inf if i == L + R + 3 else float(i - 1)) for i in idx)
            col = D.reshape(xs.size, -1)[:, k]
            best[j] = ChainHistogramBDPL(
                v, b, L, R, a, c, int(xs[np.argmax(col)]), int(xs[np.argmin(col)]), out, 0
            )
    return 1
