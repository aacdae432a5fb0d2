"""Exact supremum of the log-ratio of two Laplace mixtures (the Laplace mechanism of paper §3).

For ``Y = C + Lap(b)`` with discrete ``C`` (atoms ``c_j``, weights ``w_j``)::

    p(y) = sum_j w_j exp(-|y - c_j| / b) / (2 b)

Between two consecutive atoms (of either mixture) both densities are ``A e^{-y/b} + B e^{y/b}``,
so ``p1/p2 = (A1 + B1 u)/(A2 + B2 u)`` with ``u = e^{2y/b}`` is monotone. The supremum of
``ln p1/p2`` over ``y`` is therefore attained at an atom or in a tail, where it tends to
``ln E1[e^{C/b}] / E2[e^{C/b}]`` (``y -> +inf``) or ``ln E1[e^{-C/b}] / E2[e^{-C/b}]``
(``y -> -inf``).

* :func:`mixture_sup`: two mixtures with their own atoms; densities at all atoms from prefix/suffix
  log-sum-exps of sorted atoms, ``O((J1 + J2) log(J1 + J2))`` time, all in log space.
* :func:`grid_sup`: **the** exact Laplace grid supremum, batched over rows of two weight tables on
  a common lattice ``0..J-1`` (every exact engine's Laplace case: the window scan of a chain, the
  per-adversary and enumerated engines of a chain, pedigrees, Bayesian-network searches, through
  :meth:`bdpsim.kernels.noise.laws.LaplaceNoise.grid_sup` or directly): two first-order linear
  recursions, ``O(J)`` per row, with :func:`mixture_sup` as the exact fallback for a row whose
  density underflows. :func:`grid_mixture_sup` is its thin alias taking log-weights and atoms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MixtureSup:
    """``forward = sup_y ln p1/p2``, ``backward = sup_y ln p2/p1``; ``value`` is their max.

    ``argmax`` is the output ``y`` attaining ``value`` (``±inf`` for a tail supremum).
    """

    value: float
    forward: float
    backward: float
    argmax: float


def logsumexp(a: np.ndarray) -> float:
    """``ln sum exp(a)`` of a 1-D array (``-inf`` when all entries are ``-inf``)."""
    m = float(np.max(a))
    if not math.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(a - m))))


def _prepare(atoms, weights) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(atoms, dtype=float).ravel()
    w = np.asarray(weights, dtype=float).ravel()
    if c.shape != w.shape or c.size == 0:
        raise ValueError(f"atoms/weights: shapes {c.shape} and {w.shape} must match and be non-empty")
    if not (np.all(np.isfinite(c)) and np.all(np.isfinite(w)) and np.all(w >= 0)) or w.sum() <= 0:
        raise ValueError("atoms/weights: must be finite, weights >= 0 with a positive sum")
    keep = w > 0
    c, w = c[keep], w[keep]
    order = np.argsort(c, kind="stable")
    c, lw = c[order], np.log(w[order])
    return c, lw - logsumexp(lw)


def log_mixture_pdf(
    y: np.ndarray, atoms_sorted: np.ndarray, logw: np.ndarray, b: float, centre: float = 0.0
) -> np.ndarray:
    """``ln p(y)`` of the Laplace mixture, for sorted atoms and normalised log-weights.

    ``p(y) = [e^{-y/b} sum_{c_j <= y} w_j e^{c_j/b} + e^{y/b} sum_{c_j > y} w_j e^{-c_j/b}] / 2b``,
    evaluated with cumulative ``logaddexp`` (``centre`` shifts the exponents for precision).
    """
    c = (atoms_sorted - centre) / b
    left = np.concatenate([[-np.inf], np.logaddexp.accumulate(logw + c)])
    right = np.concatenate([np.logaddexp.accumulate((logw - c)[::-1])[::-1], [-np.inf]])
    y = np.asarray(y, dtype=float)
    k = np.searchsorted(atoms_sorted, y, side="right")
    yy = (y - centre) / b
    with np.errstate(invalid="ignore"):
        return np.logaddexp(left[k] - yy, right[k] + yy) - math.log(2 * b)


def mixture_sup(atoms1, weights1, atoms2, weights2, b: float) -> MixtureSup:
    """Exact ``sup_y |ln p1(y)/p2(y)|`` of two Laplace mixtures with common scale ``b``.

    Parameters
    ----------
    atoms1, weights1, atoms2, weights2 : array_like
        Atoms and (unnormalised, non-negative) weights of the two discrete laws of ``C``.
    b : float
        Laplace scale.
    """
    if not (math.isfinite(b) and b > 0):
        raise ValueError(f"b = {b!r}: the Laplace scale must be a finite number > 0")
    c1, lw1 = _prepare(atoms1, weights1)
    c2, lw2 = _prepare(atoms2, weights2)
    centre = float(np.median(np.concatenate([c1, c2])))
    ys = np.union1d(c1, c2)
    d = log_mixture_pdf(ys, c1, lw1, b, centre) - log_mixture_pdf(ys, c2, lw2, b, centre)
    tail_hi = logsumexp(lw1 + (c1 - centre) / b) - logsumexp(lw2 + (c2 - centre) / b)
    tail_lo = logsumexp(lw1 - (c1 - centre) / b) - logsumexp(lw2 - (c2 - centre) / b)
    cand = np.concatenate([d, [tail_hi, tail_lo]])
    where = np.concatenate([ys, [np.inf, -np.inf]])
    jf, jb = int(np.argmax(cand)), int(np.argmin(cand))
    fwd, bwd = float(cand[jf]), float(-cand[jb])
    return MixtureSup(max(fwd, bwd), fwd, bwd, float(where[jf] if fwd >= bwd else where[jb]))


_TINY = 1e-300  # below this a density may be subnormal: such rows use the log-space path


def _forward(W: np.ndarray, q: float) -> np.ndarray:
    """``Lf(k) = W(k) + q Lf(k - 1)`` along axis 1 (the recursion of ``lfilter([1], [1, -q])``,
    operation for operation)."""
    Wt = np.ascontiguousarray(W.T, dtype=float)
    out = np.empty_like(Wt)
    acc = out[0] = Wt[0]
    for k in range(1, Wt.shape[0]):
        acc = out[k] = Wt[k] + q * acc
    return out.T


def _backward(W: np.ndarray, q: float) -> np.ndarray:
    """``Rb(k) = q W(k + 1) + q Rb(k + 1)``, ``Rb(J - 1) = 0`` (``lfilter([0, q], [1, -q])`` on the
    reversed rows, operation for operation)."""
    Wt = np.ascontiguousarray(W.T[::-1], dtype=float)
    out = np.empty_like(Wt)
    out[0] = 0.0
    acc = out[0]
    for k in range(1, Wt.shape[0]):
        acc = out[k] = q * Wt[k - 1] + q * acc
    return out[::-1].T


def grid_sup(W1: np.ndarray, W2: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``sup_y ln p1(y)/p2(y)`` (signed, largest in magnitude) for Laplace mixtures with
    atoms on ``0..J-1``, non-negative weights ``W1, W2`` (shape ``(B, J)``, rows normalised here)
    and scale ``b``.

    ``p(k) ∝ Lf(k) + Rb(k)`` with ``Lf(k) = sum_{j<=k} w_j q^{k-j}``, ``Rb(k) = sum_{j>k} w_j
    q^{j-k}``, ``q = e^{-1/b}``. Between atoms the ratio is monotone and beyond the extreme atoms
    constant (equal to the tail limits), so lattice points where both densities are normal floats
    suffice; a row where a density at one of its atoms is below ``1e-300`` falls back to the
    log-space :func:`mixture_sup`.
    Returns the signed log-ratio of largest magnitude per row and its atom.
    """
    B, J = W1.shape
    q = float(np.exp(-1.0 / b))
    den = [_forward(W, q) + _backward(W, q) for W in (W1, W2)]
    shift = np.log(W1.sum(axis=1) / W2.sum(axis=1))  # normalisation, applied after the argmax
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d = np.log(den[0] / den[1])
    bad = np.zeros(B, dtype=bool)
    dmax = dmin = d
    if min(den[0].min(), den[1].min()) < _TINY:
        small = (den[0] < _TINY) | (den[1] < _TINY)
        bad = np.any(small & ((W1 > 0) | (W2 > 0)), axis=1)
        dmax, dmin = np.where(small, -np.inf, d), np.where(small, np.inf, d)
    jf, jb = np.argmax(dmax, axis=1), np.argmin(dmin, axis=1)
    r = np.arange(B)
    fwd, bwd = d[r, jf] - shift, d[r, jb] - shift
    val = np.where(fwd >= -bwd, fwd, bwd)
    atom = np.where(fwd >= -bwd, jf, jb).astype(float)
    k = np.arange(J)
    for i in np.flatnonzero(bad):
        m = mixture_sup(k, W1[i], k, W2[i], b)
        val[i] = m.value if m.forward >= m.backward else -m.value
        nz = np.flatnonzero((W1[i] > 0) | (W2[i] > 0))
        atom[i] = float(np.clip(m.argmax, nz[0], nz[-1]))
    return val, atom


def grid_mixture_sup(
    logw1: np.ndarray, logw2: np.ndarray, atoms: np.ndarray, b: float
) -> tuple[np.ndarray, np.ndarray]:
    """Batched exact ``sup_y |ln p1(y)/p2(y)|`` for Laplace mixtures on a shared atom grid: a thin
    alias of :func:`~bdpsim.kernels.noise.laplace_mixture.grid_sup` (the one exact Laplace grid
    supremum) taking log-weights.

    Equally spaced ``atoms = c_0 + delta k`` (``k = 0..J-1``) are the lattice of
    :func:`~bdpsim.kernels.noise.laplace_mixture.grid_sup` with scale ``b / delta``; other atoms
    fall back to :func:`~bdpsim.kernels.noise.laplace_mixture.mixture_sup` per row.

    Parameters
    ----------
    logw1, logw2 : ndarray, shape (B, J)
        Log-weights (``-inf`` for zero; normalised or not) on the common ``atoms`` (shape ``(J,)``).
    atoms : ndarray, shape (J,)
        The common atoms, increasing.
    b : float
        Laplace scale.

    Returns
    -------
    value : ndarray, shape (B,)
        ``sup_y |ln p1/p2|`` per row.
    argmax : ndarray, shape (B,)
        An atom where it is attained (beyond the extreme atoms the ratio is constant, equal to its
        value at the nearest extreme atom, so a tail supremum is reported at that atom).
    """
    c = np.asarray(atoms, dtype=float).ravel()
    W1, W2 = np.exp(np.asarray(logw1, dtype=float)), np.exp(np.asarray(logw2, dtype=float))
    if W1.ndim != 2 or W1.shape != W2.shape or W1.shape[1] != c.size:
        raise ValueError(
            f"logw1/logw2: shapes {W1.shape} and {W2.shape} must both be (B, {c.size}) for {c.size} atoms"
        )
    if not (math.isfinite(b) and b > 0):
        raise ValueError(f"b = {b!r}: the Laplace scale must be a finite number > 0")
    step = (c[-1] - c[0]) / (c.size - 1) if c.size > 1 else 1.0
    k = np.arange(c.size)
    if step > 0 and np.allclose(c, c[0] + step * k, rtol=0.0, atol=1e-9 * max(abs(step), abs(c[0]))):
        v, atom = grid_sup(W1, W2, b / step)
        return np.abs(v), c[0] + step * atom
    value, where = np.empty(W1.shape[0]), np.empty(W1.shape[0])
    for i in range(W1.shape[0]):
        m = mixture_sup(c, W1[i], c, W2[i], b)
        value[i], where[i] = m.value, m.argmax
    return value, where
