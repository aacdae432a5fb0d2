"""A confidence interval for the supremum of the log-ratio of two Laplace mixtures whose weights
are only sampled (the mixture estimator's per-adversary interval).

The query ``C`` takes values in a known finite set of atoms ``u`` (a lattice); its weights ``w_u``
(condition ``x``)
and ``w'_u`` (condition ``x'``) are unknown and estimated from ``N``, ``N'`` samples. The noise law
is known: ``p(y) = sum_u w_u k(y - u)`` with the Laplace kernel ``k``. The estimand is

    V = max(sup_y ln p(y)/q(y), sup_y ln q(y)/p(y)).

**Box of plausible weights.** Clopper–Pearson bounds per atom at level ``a = alpha / (2 J)``
each side, ``J`` the number of atoms of both conditions together (Bonferroni), hold together with
probability ``>= 1 - alpha``: ``lo_u <= w_u <= hi_u`` for every atom of both laws. Unseen atoms of
the support get ``lo = 0`` and the upper bound of a zero count; atoms outside the support get 0.

**From the box to V.** A Laplace mixture is increasing in each weight, so on that event, for
every ``y``, ``sum lo_u k(y-u) <= p(y) <= sum hi_u k(y-u)`` (the same for ``q``). Hence

    L = max(0, sup_y ln (sum lo_u k)/(sum hi'_u k), sup_y ln (sum lo'_u k)/(sum hi_u k)) <= V,
    U = max(sup_y ln (sum hi_u k)/(sum lo'_u k), sup_y ln (sum hi'_u k)/(sum lo_u k)) >= V,

and each supremum is one of two *unnormalised* Laplace mixtures, computed exactly (atoms and
tails, :func:`~bdpsim.kernels.noise.laplace_mixture.mixture_sup`, plus the log of the ratio of total
masses).

A query without a lattice but with a known range (a clipped sum of real records) gets its
interval from a Dvoretzky–Kiefer–Wolfowitz band on the two CDFs instead (:func:`band_interval`):
per-cell bounds would pay a union over many cells.

The interval is wide exactly where the estimate is not identified by the sample: a supremum
driven by rare extreme query values (narrow noise, long chains), whose weights the sample cannot
bound from above relative to their neighbours.
"""

from __future__ import annotations

import math

import numpy as np

from .noise.laplace_mixture import log_mixture_pdf, mixture_sup

#: grid points per Laplace scale for a query without a lattice (the upper end's slack is 2/GRID nats)
GRID = 200


def unnormalised_sups(atoms1, w1, atoms2, w2, b: float) -> tuple[float, float]:
    """``(sup_y ln P1(y)/P2(y), sup_y ln P2(y)/P1(y))`` for Laplace mixtures with non-negative,
    *unnormalised* weights ``P_k(y) = sum_j w_kj e^{-|y - c_kj|/b} / 2b``: the normalised
    supremum (:func:`mixture_sup`) plus (minus) ``ln(sum w1 / sum w2)``. A mixture with zero
    mass makes the ratio over it ``+inf`` (and the other ``-inf``)."""
    w1, w2 = np.asarray(w1, dtype=float), np.asarray(w2, dtype=float)
    s1, s2 = float(w1.sum()), float(w2.sum())
    if s1 <= 0 or s2 <= 0:
        return (math.inf if s1 > 0 else -math.inf), (math.inf if s2 > 0 else -math.inf)
    s = mixture_sup(atoms1, w1, atoms2, w2, b)
    d = math.log(s1) - math.log(s2)
    return s.forward + d, s.backward - d


def weight_box(counts: np.ndarray, total: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson ``(lo, hi)`` for each atom's weight at one-sided level ``a`` each
    (:func:`~bdpsim.kernels.audit.binomial.clopper_pearson_lower` / ``_upper``, without their input
    checks: counts here are sample counts, ``0 <= k <= total``)."""
    from scipy.special import betainccinv, betaincinv

    k = np.asarray(counts, dtype=float)
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, betaincinv(np.maximum(k, 1e-300), total - k + 1, a), 0.0)
        hi = np.where(k < total, betainccinv(k + 1, np.maximum(total - k, 1e-300), a), 1.0)
    return lo, hi


def sup_interval(
    support1: np.ndarray,
    counts1: np.ndarray,
    support2: np.ndarray,
    counts2: np.ndarray,
    b: float,
    alpha: float,
) -> tuple[float, float]:
    """``(L, U)``: a ``1 - alpha`` confidence interval for ``V`` (module docstring).

    Parameters
    ----------
    support1, support2 : ndarray
        Every atom each law can put mass on (sorted values of one lattice).
    counts1, counts2 : ndarray of int
        Sample counts per atom (aligned with the supports); their sums are ``N``, ``N'``.
    b : float
        Laplace scale.
    alpha : float
        ``1 -`` the confidence level.
    """
    return sup_intervals(support1, counts1, support2, counts2, b, (alpha,))[0]


def sup_intervals(
    support1: np.ndarray, counts1: np.ndarray, support2: np.ndarray, counts2: np.ndarray, b: float, alphas
) -> list[tuple[float, float]]:
    """:func:`sup_interval` at several levels ``1 - alpha`` at once (one pass over the lattice)."""
    n1, n2 = int(np.sum(counts1)), int(np.sum(counts2))
    J = len(support1) + len(support2)
    grid = np.union1d(support1, support2)
    i1, i2 = np.searchsorted(grid, support1), np.searchsorted(grid, support2)
    W = np.zeros((4 * len(alphas), grid.size))  # per level, rows: lo1, hi1, lo2, hi2 on the common lattice
    for k, alpha in enumerate(alphas):
        a = alpha / (2.0 * J)
        W[4 * k : 4 * k + 2, i1] = weight_box(counts1, n1, a)
        W[4 * k + 2 : 4 * k + 4, i2] = weight_box(counts2, n2, a)
    lp, tail_hi, tail_lo = _log_pdfs(grid, W, b)
    out = []
    for k in range(len(alphas)):
        f_lo, b_lo = _row_sups(lp, tail_hi, tail_lo, W, 4 * k, 4 * k + 3)  # lo1 / hi2
        f_hi, b_hi = _row_sups(lp, tail_hi, tail_lo, W, 4 * k + 1, 4 * k + 2)  # hi1 / lo2
        out.append((max(0.0, f_lo, b_hi), max(f_hi, b_lo)))
    return out


def _row_sups(lp, tail_hi, tail_lo, W, r1: int, r2: int) -> tuple[float, float]:
    """``(sup ln P_r1/P_r2, sup ln P_r2/P_r1)`` from the rows' log-densities and tails."""
    s1, s2 = float(W[r1].sum()), float(W[r2].sum())
    if s1 <= 0 or s2 <= 0:
        return (math.inf if s1 > 0 else -math.inf), (math.inf if s2 > 0 else -math.inf)
    d = np.concatenate([lp[r1] - lp[r2], [tail_hi[r1] - tail_hi[r2], tail_lo[r1] - tail_lo[r2]]])
    return float(np.max(d)), float(-np.min(d))


def _log_pdfs(grid: np.ndarray, W: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of weights ``W`` (on the sorted ``grid``): ``ln`` of the unnormalised mixture at
    every grid point (up to the common ``ln 2b`` and centring), and its two tail constants
    ``ln sum w e^{±c/b}`` — prefix and suffix log-sum-exps, as :func:`log_mixture_pdf`."""
    c = (grid - grid[grid.size // 2]) / b
    with np.errstate(divide="ignore"):
        lw = np.log(W)
    left = np.logaddexp.accumulate(lw + c, axis=1)
    right = np.logaddexp.accumulate((lw - c)[:, ::-1], axis=1)[:, ::-1]
    right_after = np.concatenate([right[:, 1:], np.full((W.shape[0], 1), -np.inf)], axis=1)
    return np.logaddexp(left - c, right_after + c), left[:, -1], right[:, 0]


def on_support(atoms: np.ndarray, counts: np.ndarray, support: np.ndarray) -> np.ndarray:
    """``counts`` of the sampled ``atoms`` placed on the (sorted) ``support`` (nearest support
    point; every atom must lie within the support's range)."""
    idx = np.clip(np.searchsorted(support, atoms), 0, support.size - 1)
    left = np.clip(idx - 1, 0, support.size - 1)
    idx = np.where(np.abs(support[left] - atoms) < np.abs(support[idx] - atoms), left, idx)
    return np.bincount(idx, weights=np.asarray(counts, dtype=float), minlength=support.size)


def _kernel(d, b: float):
    return np.exp(-np.abs(d) / b) / (2 * b)


def _band(
    y: np.ndarray, atoms: np.ndarray, counts: np.ndarray, lo: float, hi: float, b: float, eps: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` bounds on ``p(y)`` for every law on ``[lo, hi]`` whose CDF is within
    ``eps`` of the sample's: ``|p̂(y) - p(y)| <= eps TV_y`` with ``TV_y`` the total variation of
    ``c -> k(y - c)`` on ``[lo, hi]``, clipped to the smallest and largest kernel value there."""
    lw = np.log(counts / counts.sum())
    dens = np.exp(log_mixture_pdf(y, atoms, lw, b, float(np.median(atoms))))
    k_lo, k_hi = _kernel(y - lo, b), _kernel(hi - y, b)
    inside = (y >= lo) & (y <= hi)
    tv = np.where(inside, 2 * _kernel(0.0, b) - k_lo - k_hi, np.abs(k_lo - k_hi))
    floor = np.minimum(k_lo, k_hi)
    ceil = np.where(inside, _kernel(0.0, b), np.maximum(k_lo, k_hi))
    return np.maximum(dens - eps * tv, floor), np.minimum(dens + eps * tv, ceil)


def band_interval(
    law1: tuple[np.ndarray, np.ndarray],
    range1: tuple[float, float],
    law2: tuple[np.ndarray, np.ndarray],
    range2: tuple[float, float],
    b: float,
    alpha: float,
) -> tuple[float, float]:
    """``(L, U)`` for a query with values in known ranges but no lattice (a clipped sum of real
    records): a ``1 - alpha`` interval for ``V`` from the Dvoretzky–Kiefer–Wolfowitz band.

    With probability ``>= 1 - alpha`` both empirical CDFs are within
    ``eps_k = sqrt(ln(4/alpha) / 2 N_k)`` of the true ones (Massart's constant, ``alpha/2`` per
    condition), and then for every ``y``, ``|p̂(y) - p(y)| <= eps TV_y`` (``p(y) = ∫ k(y - c) dF(c)``
    integrated by parts; ``TV_y <= 1/b``), and ``p(y)`` lies between the smallest and the largest
    kernel value over the range. The bounds are evaluated on a grid of spacing ``h = b/GRID`` over
    the ranges (beyond them both densities decay alike, the ratio is constant); between grid points
    a true Laplace mixture changes by at most ``e^{h/b}``, so ``U`` adds ``2h/b``; ``L`` is a
    maximum over points, valid as is.
    """
    lo, hi = min(range1[0], range2[0]), max(range1[1], range2[1])
    m = max(1, math.ceil((hi - lo) * GRID / b))
    y = lo + (hi - lo) * np.arange(m + 1) / m
    h = (hi - lo) / m
    e1 = math.sqrt(math.log(4.0 / alpha) / (2.0 * float(np.sum(law1[1]))))
    e2 = math.sqrt(math.log(4.0 / alpha) / (2.0 * float(np.sum(law2[1]))))
    p_lo, p_hi = _band(y, law1[0], law1[1], *range1, b, e1)
    q_lo, q_hi = _band(y, law2[0], law2[1], *range2, b, e2)
    with np.errstate(divide="ignore"):
        low = max(0.0, float(np.max(np.log(p_lo) - np.log(q_hi))), float(np.max(np.log(q_lo) - np.log(p_hi))))
        high = max(float(np.max(np.log(p_hi) - np.log(q_lo))), float(np.max(np.log(q_hi) - np.log(p_lo))))
    return low, high + 2 * h / b
