"""Exact sup and hockey-stick divergence for mixtures of exponential kernels (Laplace, geometric).

Both noise laws have the kernel ``e^{-|z - z_j|}`` in *kernel units* ``z = y / b`` (Laplace of
scale ``b``, continuous ``y``) or ``z = epsilon * k`` (two-sided geometric ``P(k) ∝ e^{-epsilon |k|}``
on the integers ``k``). For a mixture ``sum_j w_j e^{-|z - z_j|}`` with sorted atoms ``z_j`` write

    L_j = sum_{i <= j} w_i e^{-(z_j - z_i)},        R_j = sum_{i > j} w_i e^{-(z_i - z_j)},

so that the (unnormalised) density at an atom is ``L_j + R_j`` and, on ``z = z_j + tau`` with
``0 <= tau <= g_j = z_{j+1} - z_j``,

    p(z_j + tau) ∝ L_j e^{-tau} + R'_j e^{-(g_j - tau)},        R'_j = w_{j+1} + R_{j+1}.        (1)

Two consequences (as in :mod:`bdpsim.kernels.noise.laplace_mixture`):

* the ratio of two such mixtures is monotone on every gap and constant beyond the extreme atoms,
  so ``sup ln p1/p2`` is attained at an atom (the tail limits equal the values at the extreme atoms);
* ``f = p1 - e^eps p2`` is ``A e^{-tau} + B e^{-(g - tau)}`` on a gap, with at most one sign change
  at ``tau* = (g + ln(-A/B)) / 2``: the positive part integrates (Laplace) or sums as a geometric
  series (geometric) in closed form; beyond the extreme atoms ``f`` is the value at the atom times
  ``e^{-|tau|}``.

All recursions run in log space (a loop over the atoms, vectorised over rows), or with
``scipy.signal.lfilter`` in linear space when the gaps are uniform and the atom range is at most
600 kernel units (then every density at an atom is at least ``e^{-600}/J``: no underflow).
"""

from __future__ import annotations

import numpy as np

_LINEAR_RANGE = 600.0


def log_sides(W: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(ln L, ln R')`` of module eq. (1) for rows of non-negative weights ``W`` (shape ``(B, J)``)
    on sorted atoms ``z`` (kernel units); ``ln R'`` has shape ``(B, J)`` with ``-inf`` in its last
    column (no atom to the right)."""
    B, J = W.shape
    g = np.diff(z)
    with np.errstate(divide="ignore"):
        linear = _uniform_sides(W, z)
        if linear is not None:
            L, Rp = linear
            return np.log(np.maximum(L, 0.0)), np.log(np.maximum(Rp, 0.0))
        lw = np.log(W)
    lL = np.empty_like(lw)
    lR = np.full_like(lw, -np.inf)
    lL[:, 0] = lw[:, 0]
    for j in range(1, J):
        lL[:, j] = np.logaddexp(lw[:, j], lL[:, j - 1] - g[j - 1])
    if J > 1:
        lR[:, J - 2] = lw[:, J - 1]
    for j in range(J - 3, -1, -1):
        lR[:, j] = np.logaddexp(lw[:, j + 1], lR[:, j + 1] - g[j + 1])
    return lL, lR


def _is_uniform(z: np.ndarray) -> bool:
    """Uniformly spaced atoms over at most :data:`_LINEAR_RANGE` kernel units (every density at an
    atom is then at least ``e^-600 / J``: the sides need no log space)."""
    g = np.diff(z)
    return bool(z.size > 1 and z[-1] - z[0] <= _LINEAR_RANGE and np.allclose(g, g[0], rtol=1e-12, atol=0))


def _uniform_sides(W: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(L, R')`` of module eq. (1) in linear space by two linear filters (``scipy.signal``) on
    uniform atoms (:func:`_is_uniform`), else ``None``."""
    if not _is_uniform(z):
        return None
    from scipy.signal import lfilter

    q = float(np.exp(-(z[1] - z[0])))
    L = lfilter([1.0], [1.0, -q], W, axis=1)
    # R'_j = w_{j+1} + q w_{j+2} + ...  (a causal filter on the reversed row)
    Rp = np.zeros_like(W)
    Rp[:, :-1] = lfilter([1.0], [1.0, -q], W[:, ::-1], axis=1)[:, ::-1][:, 1:]
    return L, Rp


def sides(W: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(L, R')`` of module eq. (1) in linear space (what the hockey-stick divergences use): on
    uniform atoms (:func:`_is_uniform`) the recursions ``L_j = w_j + q L_{j-1}``,
    ``R'_j = w_{j+1} + q R'_{j+1}`` along the atoms, every row at once; else ``exp`` of the
    log-space recursion (:func:`log_sides`)."""
    if not _is_uniform(z):
        lL, lR = log_sides(W, z)
        return np.exp(lL), np.exp(lR)
    q = float(np.exp(-(z[1] - z[0])))
    Wt = np.ascontiguousarray(W.T, dtype=float)
    L = np.empty_like(Wt)
    Rp = np.empty_like(Wt)
    acc = L[0] = Wt[0]
    for k in range(1, Wt.shape[0]):  # one numpy operation per atom over every row: measured faster
        acc = L[k] = Wt[k] + q * acc  # than lfilter, blockwise cumulative sums or a BLAS product
    acc = Rp[-1] = 0.0 * Wt[-1]
    for k in range(Wt.shape[0] - 2, -1, -1):
        acc = Rp[k] = Wt[k + 1] + q * acc
    return L.T, Rp.T


def _columns(ee, rows: int) -> np.ndarray:
    """``e^eps`` as a ``(rows or 1, m)`` array: one row of ``m`` values for every row, or one
    value per row and column."""
    e = np.asarray(ee, dtype=float)
    if e.ndim <= 1:
        return e.reshape(1, -1)
    if e.shape[0] not in (1, rows):
        raise ValueError(f"e^eps of shape {e.shape}: need (m,) or ({rows}, m)")
    return e


def _gap_mass(A: np.ndarray, B: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``sum over gaps of ∫_0^g max(0, A e^{-tau} + B e^{-(g - tau)}) dtau`` (``q = e^{-g}``): the
    whole gap ``(A + B)(1 - q)`` where both are >= 0; with one sign change at
    ``tau* = (g + ln(-A/B))/2`` (``A B < 0``), ``(sqrt(P) - sqrt(q N))^2`` while ``tau*`` is inside
    the gap (``P``: the positive coefficient, ``N``: minus the negative one; the closed form of
    :func:`laplace_delta`'s integral at ``tau*``), the whole gap past it; nothing where both are
    <= 0."""
    Q = np.broadcast_to(q, A.shape)
    out = A + B
    out *= 1.0 - Q
    np.maximum(out, 0.0, out=out)  # both >= 0: the whole gap; both <= 0: nothing
    cross = np.nonzero(A * B < 0.0)
    if cross[0].size:
        a, b, qq = A[cross], B[cross], Q[cross]
        P, N = np.where(a > 0, a, b), -np.where(a > 0, b, a)
        cut = np.square(np.maximum(np.sqrt(P) - np.sqrt(qq * N), 0.0))
        out[cross] = np.where(P * qq >= N, (a + b) * (1.0 - qq), cut)
    return out.sum(axis=1)


def laplace_deltas(W1: np.ndarray, W2: np.ndarray, z: np.ndarray, ee) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``∫ max(0, p1 - e^eps p2) dy`` and ``∫ max(0, p2 - e^eps p1) dy`` of two Laplace
    mixtures on atoms ``z = c / b`` (rows normalised by the caller) at several ``e^eps`` at once:
    ``ee`` of shape ``(m,)`` (the same values for every row) or ``(rows, m)`` (one per row and
    column); both of shape ``(rows, m)`` (:func:`laplace_prepared` applied once)."""
    return laplace_prepared(W1, W2, z)(ee)


def laplace_prepared(W1: np.ndarray, W2: np.ndarray, z: np.ndarray):
    """``(ee, subset=None) -> (forward, backward)`` of :func:`laplace_deltas` for these rows (or
    the rows ``subset`` of them, an index or mask; ``ee`` then of shape ``(m,)`` or
    ``(len(subset), m)``): the computation of
    :func:`laplace_delta` (module eq. (1): one sign change per gap, tails at the extreme atoms),
    the sides ``L, R'`` of both mixtures computed here once for every later ``eps`` and both
    directions, a gap's integral in the closed form of :func:`_gap_mass`."""
    L1, R1 = sides(W1, z)
    L2, R2 = sides(W2, z)
    q = np.exp(-np.diff(z))[None, :]
    if z.size > 1:  # the densities at the extreme atoms (the tails' factors)
        left1, left2 = W1[:, 0] + R1[:, 0] * q[0, 0], W2[:, 0] + R2[:, 0] * q[0, 0]
    else:
        left1, left2 = W1[:, 0], W2[:, 0]
    right1, right2 = L1[:, -1], L2[:, -1]
    directions = (
        (L1[:, :-1], R1[:, :-1], L2[:, :-1], R2[:, :-1], left1, left2, right1, right2),
        (L2[:, :-1], R2[:, :-1], L1[:, :-1], R1[:, :-1], left2, left1, right2, right1),
    )

    def bound() -> np.ndarray:
        """Per row ``max_j |ln p1(z_j) / p2(z_j)|`` at the atoms: the pair's BDPL (the ratio of two
        Laplace mixtures is monotone between atoms and constant beyond them)."""
        d1 = L1 + np.append(R1[:, :-1] * q, np.zeros((L1.shape[0], 1)), axis=1) if z.size > 1 else L1
        d2 = L2 + np.append(R2[:, :-1] * q, np.zeros((L2.shape[0], 1)), axis=1) if z.size > 1 else L2
        return _atom_bound(d1, d2)

    def at(ee, subset=None) -> tuple[np.ndarray, np.ndarray]:
        use = directions if subset is None else tuple(tuple(a[subset] for a in d) for d in directions)
        n = use[0][4].shape[0]
        E = _columns(ee, n)
        m = E.shape[1]
        out = np.zeros((2, n, m))
        for k in range(m):
            e = np.broadcast_to(E[:, k], (n,))
            ec = e[:, None]
            for d, (La, Ra, Lb, Rb, la, lb, ra, rb) in enumerate(use):
                total = 0.5 * (np.maximum(la - e * lb, 0.0) + np.maximum(ra - e * rb, 0.0))
                if z.size > 1:
                    total += 0.5 * _gap_mass(La - ec * Lb, Ra - ec * Rb, q)
                out[d, :, k] = np.minimum(total, 1.0)
        return out[0], out[1]

    at.bdpl_bound = bound  # type: ignore[attr-defined]
    return at


def _atom_bound(d1: np.ndarray, d2: np.ndarray) -> np.ndarray:
    """Per row ``max_j |ln d1_j / d2_j|`` over the atoms where either density is positive (``inf``
    where one is 0 and the other not): the sup of the log-ratio of two exponential-kernel
    mixtures (module docstring), from their densities at the atoms."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.abs(np.log(d1) - np.log(d2))
    r = np.where((d1 > 0) | (d2 > 0), r, 0.0)
    return np.max(np.nan_to_num(r, nan=np.inf), axis=1)


def log_at_atoms(W: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``ln(L_j + R_j)`` (the unnormalised log-density at each atom) with the two sides."""
    lL, lR = log_sides(W, z)
    g = np.append(np.diff(z), 0.0)
    return np.logaddexp(lL, lR - g), lL, lR


def signed_sup(d_fwd: np.ndarray, d_bwd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Combine ``sup ln p1/p2`` and ``sup ln p2/p1`` into the signed value of largest magnitude
    (ties go to the forward direction) and a boolean 'forward wins'."""
    fw = d_fwd >= d_bwd
    return np.where(fw, d_fwd, -d_bwd), fw


def atom_sup(W1: np.ndarray, W2: np.ndarray, z: np.ndarray):
    """Forward/backward sup of ``ln p1/p2`` over the atoms (and hence over all of ``z``, see module
    docstring) for rows normalised by the caller on a common atom set.

    Returns ``(fwd, jf, bwd, jb)``: ``fwd = max_j ln p1/p2``, ``bwd = max_j ln p2/p1`` per row, with
    their atom indices. Atoms where both densities vanish (impossible with rows of positive mass)
    are ignored; a density vanishing on one side only gives ``+inf``.
    """
    l1, _, _ = log_at_atoms(W1, z)
    l2, _, _ = log_at_atoms(W2, z)
    with np.errstate(invalid="ignore"):
        d = l1 - l2
    both = np.isneginf(l1) & np.isneginf(l2)
    df = np.where(both, -np.inf, d)
    db = np.where(both, -np.inf, -d)
    jf, jb = np.argmax(df, axis=1), np.argmax(db, axis=1)
    r = np.arange(W1.shape[0])
    return df[r, jf], jf, db[r, jb], jb


def _clipped(tau: np.ndarray, lo, hi) -> np.ndarray:
    return np.minimum(np.maximum(tau, lo), hi)


def laplace_delta(W1: np.ndarray, W2: np.ndarray, z: np.ndarray, eps: float) -> np.ndarray:
    """Exact ``∫ max(0, p1 - e^eps p2) dy`` for two Laplace mixtures on atoms ``z = c / b``.

    With normalised weights the densities are ``(L e^{-tau} + R' e^{-(g - tau)}) / 2b`` on a gap
    (module eq. (1)) and ``dy = b dtau``, so a gap contributes ``(1/2) ∫_0^g max(0, A e^{-tau} +
    B e^{-(g - tau)}) dtau`` with ``A = L1 - e^eps L2``, ``B = R'1 - e^eps R'2``; the integrand changes
    sign at most once, at ``tau* = (g + ln(-A/B))/2``. Each tail contributes
    ``(1/2) max(0, D)``, ``D = (L1 + R1) - e^eps (L2 + R2)`` at the extreme atom.
    """
    ee = float(np.exp(eps))
    lL1, lR1 = log_sides(W1, z)
    lL2, lR2 = log_sides(W2, z)
    L1, R1, L2, R2 = np.exp(lL1), np.exp(lR1), np.exp(lL2), np.exp(lR2)
    g = np.diff(z)
    total = np.zeros(W1.shape[0])
    if z.size > 1:
        A = L1[:, :-1] - ee * L2[:, :-1]
        Bv = R1[:, :-1] - ee * R2[:, :-1]
        G = np.broadcast_to(g, A.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            tstar = 0.5 * (G + np.log(-A / Bv))
        lo = np.where((A > 0) & (Bv < 0), 0.0, np.where((A < 0) & (Bv > 0), _clipped(tstar, 0.0, G), 0.0))
        hi = np.where((A > 0) & (Bv < 0), _clipped(tstar, 0.0, G), G)
        none = (A <= 0) & (Bv <= 0)
        # ∫_lo^hi A e^{-t} + B e^{-(g-t)} dt, all exponents <= 0
        part = A * (np.exp(-lo) - np.exp(-hi)) + Bv * (np.exp(-(G - hi)) - np.exp(-(G - lo)))
        total += 0.5 * np.sum(np.where(none, 0.0, np.maximum(part, 0.0)), axis=1)
    D_left = W1[:, 0] + R1[:, 0] * np.exp(-g[0]) if z.size > 1 else W1[:, 0]
    D_left = D_left - ee * ((W2[:, 0] + R2[:, 0] * np.exp(-g[0])) if z.size > 1 else W2[:, 0])
    D_right = L1[:, -1] - ee * L2[:, -1]
    total += 0.5 * (np.maximum(D_left, 0.0) + np.maximum(D_right, 0.0))
    return np.minimum(total, 1.0)


def geometric_delta(W1: np.ndarray, W2: np.ndarray, k: np.ndarray, lam: float, eps: float) -> np.ndarray:
    """Exact ``sum_y max(0, p1(y) - e^eps p2(y))`` for two mixtures of the two-sided geometric law
    ``P(k) = (1-q)/(1+q) q^{|k|}``, ``q = e^{-lam}``, over the integers, atoms at sorted integers ``k``
    (weights normalised by the caller over *all* atom classes, see :func:`geometric_classes`).

    Atoms contribute their own terms; the ``g - 1`` integers inside a gap of length ``g`` give
    ``C (A q^tau + B q^{g - tau})``, ``tau = 1..g-1`` (``C = (1-q)/(1+q)``, ``A, B`` as in
    :func:`laplace_delta`), positive on one run of consecutive ``tau`` whose sum is a finite
    geometric series; each tail adds ``C max(0, D) q/(1-q)``.
    """
    z = lam * np.asarray(k, dtype=float)
    lL1, lR1 = log_sides(W1, z)
    lL2, lR2 = log_sides(W2, z)
    L1, R1, L2, R2 = np.exp(lL1), np.exp(lR1), np.exp(lL2), np.exp(lR2)
    return _geometric_mass(L1, R1, L2, R2, k, lam, float(np.exp(eps)))


def _geometric_mass(L1, R1, L2, R2, k, lam: float, ee) -> np.ndarray:
    """:func:`geometric_delta` from the sides ``L, R'`` of both mixtures (module eq. (1)) at
    ``e^eps = ee`` (a number, or one value per row as a ``(rows, 1)`` array)."""
    q = float(np.exp(-lam))
    C = -np.expm1(-lam) / (1.0 + q)
    gk = np.diff(np.asarray(k, dtype=np.int64))
    qg = np.exp(-lam * gk)
    at1 = L1 + np.append(R1[:, :-1] * qg, np.zeros((L1.shape[0], 1)), axis=1)
    at2 = L2 + np.append(R2[:, :-1] * qg, np.zeros((L2.shape[0], 1)), axis=1)
    D = at1 - ee * at2
    total = np.sum(np.maximum(D, 0.0), axis=1)
    tail = q / -np.expm1(-lam)  # q/(1-q)
    total += (np.maximum(D[:, 0], 0.0) + np.maximum(D[:, -1], 0.0)) * tail
    inner = np.flatnonzero(gk >= 2)
    if inner.size:
        A = L1[:, inner] - ee * L2[:, inner]
        Bv = R1[:, inner] - ee * R2[:, inner]
        G = np.broadcast_to(gk[inner].astype(float), A.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            tstar = 0.5 * (G + np.log(-A / Bv) / lam)
        dec = (A > 0) & (Bv < 0)  # positive for tau < tau*
        inc = (A < 0) & (Bv > 0)  # positive for tau > tau*
        ta = np.where(inc, np.floor(np.where(inc, tstar, 0.0)) + 1.0, 1.0)
        tb = np.where(dec, np.ceil(np.where(dec, tstar, 0.0)) - 1.0, G - 1.0)
        ta, tb = np.maximum(ta, 1.0), np.minimum(tb, G - 1.0)
        n = tb - ta + 1.0
        ok = (n >= 1) & ~((A <= 0) & (Bv <= 0))
        n = np.where(ok, n, 0.0)
        geo = -np.expm1(-lam * n) / -np.expm1(-lam)  # (1 - q^n)/(1 - q)
        with np.errstate(over="ignore", invalid="ignore"):
            part = A * np.exp(-lam * ta) * geo + Bv * np.exp(-lam * (G - tb)) * geo
        total += np.sum(np.where(ok, np.maximum(part, 0.0), 0.0), axis=1)
    return C * total


def geometric_deltas(W1: np.ndarray, W2: np.ndarray, k: np.ndarray, lam: float, ee):
    """:func:`geometric_delta` of both directions at several ``e^eps`` at once (``ee`` as in
    :func:`laplace_deltas`): ``(forward, backward)``, each of shape ``(rows, m)``
    (:func:`geometric_prepared` applied once)."""
    return geometric_prepared(W1, W2, k, lam)(ee)


def geometric_prepared(W1: np.ndarray, W2: np.ndarray, k: np.ndarray, lam: float):
    """``(ee, subset=None) -> (forward, backward)`` of :func:`geometric_deltas` for these rows (or
    the rows ``subset`` of them), the sides of both mixtures computed here once."""
    z = lam * np.asarray(k, dtype=float)
    L1, R1 = sides(W1, z)
    L2, R2 = sides(W2, z)

    def bound() -> np.ndarray:
        """Per row ``max |ln p1 / p2|`` at the atoms: the pair's BDPL on this class."""
        gk = np.diff(np.asarray(k, dtype=np.int64))
        qg = np.exp(-lam * gk)
        d1 = L1 + np.append(R1[:, :-1] * qg, np.zeros((L1.shape[0], 1)), axis=1)
        d2 = L2 + np.append(R2[:, :-1] * qg, np.zeros((L2.shape[0], 1)), axis=1)
        return _atom_bound(d1, d2)

    def at(ee, subset=None) -> tuple[np.ndarray, np.ndarray]:
        S = (L1, R1, L2, R2) if subset is None else tuple(a[subset] for a in (L1, R1, L2, R2))
        E = _columns(ee, S[0].shape[0])
        cols = range(E.shape[1])
        fwd = np.stack([_geometric_mass(S[0], S[1], S[2], S[3], k, lam, E[:, c : c + 1]) for c in cols], 1)
        bwd = np.stack([_geometric_mass(S[2], S[3], S[0], S[1], k, lam, E[:, c : c + 1]) for c in cols], 1)
        return fwd, bwd

    at.bdpl_bound = bound  # type: ignore[attr-defined]
    return at


def geometric_classes(c: np.ndarray, step: float, tol: float = 1e-9) -> list[tuple[np.ndarray, np.ndarray]]:
    """Split atom positions ``c`` (sorted) into classes whose members differ by integer multiples of
    ``step``: the outputs ``c_j + step * Z`` of different classes never coincide, so the mixtures
    decompose over classes. Returns ``[(indices, integer positions), ...]``; residues closer than
    ``tol`` steps are one class."""
    u = np.asarray(c, dtype=float) / step
    frac = u - np.floor(u)
    frac = np.where(frac > 1.0 - tol, 0.0, frac)
    order = np.argsort(frac, kind="stable")
    fs = frac[order]
    cuts = np.flatnonzero(np.diff(fs) > tol) + 1
    out = []
    for grp in np.split(order, cuts):
        grp = np.sort(grp)
        r = float(np.mean(frac[grp]))
        out.append((grp, np.rint(u[grp] - r).astype(np.int64)))
    return out
