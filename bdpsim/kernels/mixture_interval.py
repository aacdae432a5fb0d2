"""A confidence interval for the supremum of the log-ratio of two Laplace mixtures whose weights
are only sampled (the mixture estimator's per-adversary interval, issue 25).

The query ``C`` takes values in a known finite set of atoms ``u`` (a lattice, or a grid of cells
of width ``w`` for a continuous query on a bounded range); its weights ``w_u`` (condition ``x``)
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
tails, :func:`~bdpsim.kernels.laplace_mixture.mixture_sup`, plus the log of the ratio of total
masses). A cell of width ``w`` holds its mass within ``w/2`` of its midpoint, and ``k`` is
``1/b``-log-Lipschitz, so replacing the mass by its midpoint changes each density by at most a
factor ``e^{w/2b}``: the cells' interval is ``[L - w/b, U + w/b]``.

The interval is wide exactly where the estimate is not identified by the sample: a supremum
driven by rare extreme query values (narrow noise, long chains), whose weights the sample cannot
bound from above relative to their neighbours.
"""

from __future__ import annotations

import math

import numpy as np

from .binomial import clopper_pearson_lower, clopper_pearson_upper
from .laplace_mixture import mixture_sup

#: cells per Laplace scale for a continuous query (the interval's discretisation slack is 1/CELLS nats)
CELLS = 100


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
    """Clopper–Pearson ``(lo, hi)`` for each atom's weight at one-sided level ``a`` each."""
    k = np.asarray(counts, dtype=float)
    return (np.asarray(clopper_pearson_lower(k, total, a), dtype=float),
            np.asarray(clopper_pearson_upper(k, total, a), dtype=float))


def sup_interval(support1: np.ndarray, counts1: np.ndarray, support2: np.ndarray, counts2: np.ndarray,
                 b: float, alpha: float, slack: float = 0.0) -> tuple[float, float]:
    """``(L, U)``: a ``1 - alpha`` confidence interval for ``V`` (module docstring).

    Parameters
    ----------
    support1, support2 : ndarray
        Every atom each law can put mass on (a lattice of query values, or cell midpoints).
    counts1, counts2 : ndarray of int
        Sample counts per atom (aligned with the supports); their sums are ``N``, ``N'``.
    b : float
        Laplace scale.
    alpha : float
        ``1 -`` the confidence level.
    slack : float
        Discretisation slack added to ``U`` and taken from ``L`` (``w/b`` for cells of width ``w``).
    """
    n1, n2 = int(np.sum(counts1)), int(np.sum(counts2))
    a = alpha / (2.0 * (len(support1) + len(support2)))
    lo1, hi1 = weight_box(counts1, n1, a)
    lo2, hi2 = weight_box(counts2, n2, a)
    f_lo, b_lo = unnormalised_sups(support1, lo1, support2, hi2, b)   # sup ln lo1/hi2, sup ln hi2/lo1
    f_hi, b_hi = unnormalised_sups(support1, hi1, support2, lo2, b)   # sup ln hi1/lo2, sup ln lo2/hi1
    low = max(0.0, f_lo, b_hi) - slack
    high = max(f_hi, b_lo) + slack
    return max(0.0, low), high


def on_support(atoms: np.ndarray, counts: np.ndarray, support: np.ndarray) -> np.ndarray:
    """``counts`` of the sampled ``atoms`` placed on the (sorted) ``support`` (nearest support
    point; every atom must lie within the support's range)."""
    idx = np.clip(np.searchsorted(support, atoms), 0, support.size - 1)
    left = np.clip(idx - 1, 0, support.size - 1)
    idx = np.where(np.abs(support[left] - atoms) < np.abs(support[idx] - atoms), left, idx)
    out = np.zeros(support.size, dtype=np.int64)
    np.add.at(out, idx, np.asarray(counts, dtype=np.int64))
    return out


def cells(lo: float, hi: float, b: float) -> tuple[np.ndarray, float]:
    """Midpoints of cells of width ``w <= b / CELLS`` covering ``[lo, hi]``, and the slack ``w / b``."""
    m = max(1, math.ceil((hi - lo) * CELLS / b))
    w = (hi - lo) / m if hi > lo else 0.0
    return lo + w * np.arange(m + 1), (w / b)
