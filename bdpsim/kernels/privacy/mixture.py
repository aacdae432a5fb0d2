"""The privacy loss of two lattice mixtures with a noise kernel, bracketed cell by cell.

The two output laws of one release are ``p(y) = sum_j w_j k(y - c_j)`` and ``q(y)`` likewise with
``w'`` (atoms ``c_j`` of the query). The hockey-stick divergence and the supremum of the loss are
exact elsewhere (the noise law's ``hockey_stick`` and ``sup_log_ratio``); here the whole law of the
loss ``L = ln p/q`` under ``p`` is bracketed: the output line is cut into cells of known ``P``-mass
on which ``L`` is certified to lie in ``[lower, upper]``, which is what a privacy-loss distribution
(:mod:`bdpsim.kernels.privacy.pld`), the Rényi divergence and a composition need.

* **Laplace kernel** (``e^{-|y|/b}/2b``): between two atoms both mixtures are ``A e^{y/b} + B
  e^{-y/b}``, so ``L`` is monotone there and its bounds on a cell are its end values; beyond the
  extreme atoms ``L`` is constant (exact).
* **Gaussian kernel** (``N(0, sigma^2)``): ``d ln p/dy = (m_p(y) - y)/sigma^2`` with ``m_p(y)`` the
  posterior mean of the atom, non-decreasing in ``y`` (the posterior is an exponential family in
  ``y``), so on a cell ``[a, b]`` the slope of ``L`` lies in ``[m_p(a) - m_q(b), m_p(b) - m_q(a)] /
  sigma^2``; the bounds are the two lines from the end values meeting inside the cell (error
  second order in the cell width). Outside ``[c_min - 39 sigma, c_max + 39 sigma]`` the mass under
  ``p`` is below ``1e-330`` and underflows: omitted.
* **Lattice laws** (``step Z``, e.g. geometric): every output is a cell of its own (exact), the
  outputs beyond ``TAIL`` mass at either end go to ``+inf`` (upper) and are dropped (lower); for
  the geometric law the loss is constant beyond the extreme atoms, so the tails are exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from scipy.special import logsumexp, ndtr

from ..argcheck import require
from ..noise.protocols import GaussianKernel, HasStep, LaplaceKernel


@runtime_checkable
class TwoSidedGeometric(Protocol):
    """A lattice law ``P(step k) ∝ q^{|k|}`` (its ``q`` and ``step``): the loss of two mixtures of it
    is constant beyond their extreme atoms."""

    q: float
    step: float

    def cdf(self, y) -> np.ndarray: ...


#: tail mass of a lattice law left out of the cells (to +inf in the upper bound)
TAIL = 1e-17
#: normal quantile beyond which the mass underflows in double precision
GAUSS_REACH = 39.0


@dataclass(frozen=True)
class LossCells:
    """Cells of ``P``-mass ``mass`` with the loss in ``[lower, upper]``; ``inf_mass`` of ``P``
    where the loss may be ``+inf`` (dropped by a lower bound)."""

    mass: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    inf_mass: float = 0.0


def _normalised(atoms, w1, w2):
    c = np.asarray(atoms, dtype=float).ravel()
    a, b = np.asarray(w1, dtype=float).ravel(), np.asarray(w2, dtype=float).ravel()
    require(
        a.shape == c.shape and b.shape == c.shape, "w1", a.shape, f"must have one weight per atom ({c.size})"
    )
    require(
        bool(np.all(a >= 0) & np.all(b >= 0)) and a.sum() > 0 and b.sum() > 0,
        "w1",
        "weights",
        "must be >= 0, not all 0",
    )
    keep = (a > 0) | (b > 0)
    c, a, b = c[keep], a[keep] / a.sum(), b[keep] / b.sum()
    order = np.argsort(c, kind="stable")
    return c[order], a[order], b[order]


def _logmix(logk: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``ln sum_j w_j k(y - c_j)`` from ``logk[y, j]``."""
    with np.errstate(divide="ignore"):
        return logsumexp(logk + np.log(w)[None, :], axis=1)


def laplace_cells(scale: float, atoms, w1, w2, per_gap: int = 64) -> LossCells:
    """Cells of a Laplace-mixture pair (module docstring): ``per_gap`` cells between neighbouring
    atoms, one exact cell per tail."""
    c, a, b = _normalised(atoms, w1, w2)
    bsc = float(scale)
    if c.size == 1:
        return LossCells(np.ones(1), np.zeros(1), np.zeros(1))
    pts = np.unique(np.concatenate([np.linspace(c[j], c[j + 1], per_gap + 1) for j in range(c.size - 1)]))
    logk = -np.abs(pts[:, None] - c[None, :]) / bsc
    L = _logmix(logk, a) - _logmix(logk, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.where(np.isnan(L), -np.inf, L)
    F = 0.5 * np.where(
        pts[:, None] < c[None, :],
        np.exp(-np.abs(pts[:, None] - c[None, :]) / bsc),
        2 - np.exp(-np.abs(pts[:, None] - c[None, :]) / bsc),
    )
    cdf = F @ a  # P(Y <= pts)
    mass = np.concatenate([[cdf[0]], np.diff(cdf), [1.0 - cdf[-1]]])
    lo = np.concatenate([[L[0]], np.minimum(L[:-1], L[1:]), [L[-1]]])
    hi = np.concatenate([[L[0]], np.maximum(L[:-1], L[1:]), [L[-1]]])
    return _finish(np.maximum(mass, 0.0), lo, hi)


def _finish(mass, lo, hi, inf_mass: float = 0.0) -> LossCells:
    use = mass > 0
    return LossCells(mass[use], lo[use], hi[use], inf_mass)


def gaussian_cells(sigma: float, atoms, w1, w2, per_sigma: int = 64) -> LossCells:
    """Cells of a Gaussian-mixture pair (module docstring), ``per_sigma`` cells per ``sigma``."""
    c, a, b = _normalised(atoms, w1, w2)
    s = float(sigma)
    lo_y, hi_y = c[0] - GAUSS_REACH * s, c[-1] + GAUSS_REACH * s
    m = int(math.ceil((hi_y - lo_y) / s * per_sigma))
    pts = np.linspace(lo_y, hi_y, m + 1)
    z = (pts[:, None] - c[None, :]) / s
    logk = -0.5 * z * z
    with np.errstate(divide="ignore"):
        lp, lq = _logmix(logk, a), _logmix(logk, b)
        post_p = np.exp(logk + np.log(a)[None, :] - lp[:, None]) @ c
        post_q = np.exp(logk + np.log(b)[None, :] - lq[:, None]) @ c
    L = lp - lq
    # slopes of L on each cell: [mp(a) - mq(b), mp(b) - mq(a)] / s^2
    smin = (post_p[:-1] - post_q[1:]) / s**2
    smax = (post_p[1:] - post_q[:-1]) / s**2
    h = np.diff(pts)
    La, Lb = L[:-1], L[1:]
    hi = _envelope(La, Lb, h, smax, smin)
    lo = -_envelope(-La, -Lb, h, -smin, -smax)
    cdf = ndtr((pts[:, None] - c[None, :]) / s) @ a
    mass = np.maximum(np.diff(cdf), 0.0)
    lo = np.where(np.isfinite(lo), lo, -np.inf)
    return _finish(mass, lo, hi)


def _envelope(La, Lb, h, up, down):
    """``max_{t in [0, h]} min(La + up t, Lb - down (h - t))``: the largest value a function with
    slope in ``[down, up]`` through ``La`` at 0 and ``Lb`` at ``h`` can take."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(up > down, (Lb - La - down * h) / (up - down), 0.0)
    t = np.clip(np.nan_to_num(t), 0.0, h)
    return np.maximum(np.minimum(La + up * t, Lb - down * (h - t)), np.maximum(La, Lb))


def lattice_steps(c: np.ndarray, step: float) -> np.ndarray:
    """``(c - c_0) / step`` for sorted atoms ``c`` that lie on one lattice of the noise step (else
    ``ParameterError``)."""
    k = (c - c[0]) / step
    require(
        bool(np.all(np.abs(k - np.rint(k)) <= 1e-9 * np.maximum(1.0, np.abs(k)))),
        "atoms",
        c.tolist()[:5],
        f"must lie on one lattice of the noise step {step}",
    )
    return k


def lattice_cells(noise, atoms, w1, w2) -> LossCells:
    """Cells of a pair with a lattice noise law (``noise.step``, ``noise.log_density``, ``noise.cdf``):
    one exact cell per output on ``c_0 + step Z``, ``TAIL`` mass at each end to ``+inf``."""
    c, a, b = _normalised(atoms, w1, w2)
    st = float(noise.step)
    k = lattice_steps(c, st)
    reach = 1
    while float(noise.cdf(np.array([-reach * st - 0.5 * st]))[0]) > TAIL:
        reach *= 2
    ks = np.arange(-reach, int(round(k[-1])) + reach + 1)
    y = c[0] + st * ks
    logk = noise.log_density(y[:, None] - c[None, :])
    lp, lq = _logmix(logk, a), _logmix(logk, b)
    p = np.exp(lp)
    with np.errstate(invalid="ignore"):
        L = np.where(p > 0, lp - lq, -np.inf)
    out_mass = max(0.0, 1.0 - float(p.sum()))
    if isinstance(noise, TwoSidedGeometric):  # constant loss beyond the extreme atoms: exact
        lm = float(np.sum(a * noise.cdf(y[0] - 0.5 * st - c)))
        mass = np.concatenate([[lm], p, [max(0.0, out_mass - lm)]])
        L = np.concatenate([[L[0]], L, [L[-1]]])
        return _finish(mass, L, L)
    return _finish(p, L, L, out_mass)


def loss_cells(noise, atoms, w1, w2, resolution: int = 64) -> LossCells:
    """The cells of the pair for a Laplace, Gaussian or lattice noise law (else ``ValueError``)."""
    if isinstance(noise, LaplaceKernel):
        return laplace_cells(noise.scale, atoms, w1, w2, resolution)
    if isinstance(noise, GaussianKernel):
        return gaussian_cells(noise.sigma, atoms, w1, w2, resolution)
    if noise.discrete and isinstance(noise, HasStep):
        return lattice_cells(noise, atoms, w1, w2)
    raise ValueError(f"noise = {noise.name!r}: no certified loss cells (laplace, gaussian or a lattice law)")


def cells_renyi(cells: LossCells, alpha: float) -> tuple[float, float]:
    """``(lower, upper)`` of ``D_alpha`` from the cells (``alpha > 1`` finite)."""
    a = float(alpha)
    require(1.0 < a < math.inf, "alpha", alpha, "must be in (1, inf)")
    up = math.inf if cells.inf_mass > 0 else float(logsumexp((a - 1) * cells.upper, b=cells.mass) / (a - 1))
    fin = np.isfinite(cells.lower)
    low = (
        float(logsumexp((a - 1) * cells.lower[fin], b=cells.mass[fin]) / (a - 1)) if fin.any() else -math.inf
    )
    return max(low, 0.0), up


def gaussian_mix_logpdf(y: np.ndarray, atoms, w, sigma: float) -> np.ndarray:
    """``ln sum_j w_j phi_sigma(y - c_j)`` (helper of the Monte Carlo likelihoods)."""
    c = np.asarray(atoms, dtype=float)
    z = (np.asarray(y, dtype=float)[..., None] - c) / sigma
    with np.errstate(divide="ignore"):
        return logsumexp(-0.5 * z * z + np.log(w), axis=-1) - math.log(sigma * math.sqrt(2 * math.pi))


__all__ = ["LossCells", "laplace_cells", "gaussian_cells", "lattice_cells", "loss_cells", "cells_renyi"]
