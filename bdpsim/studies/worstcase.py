"""Worst-case searches over data models (issue: exact leakage, items 4–5).

* :func:`worst_gaussian_sum` — for the unclipped Laplace sum, ``BDPL_(K,i)(x, x') =
  |a| |x - x'| / beta`` with ``a = 1 + 1^T S_UT S_TT^{-1} e_i`` (conditional law of paper Def. 5.4). The
  slope ``a`` is
  invariant to ``sigma`` and, by permuting records, WLOG ``i = 0`` and ``K = {1..k}``; we maximise
  ``|a|`` over the ``Sigma_rho`` class (unit diagonal, ``|off-diagonal| <= rho``, positive definite)
  with L-BFGS-B from many starts: sign vertices ``±rho``, the equicorrelated matrix and random
  interior points. Non-PD iterates are rejected by a barrier.
* :func:`worst_markov_chain` — for an eps-DP Laplace count on a stationary chain with
  ``max P / min P <= gamma``, maximise the exact BDPL (exhaustive over all adversaries) over the
  transition matrix: random starts refined by Nelder–Mead; any matrix is mapped into the feasible
  set by mixing it with the uniform matrix until the ratio is exactly ``gamma``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np

from .. import bounds as B
from ..core.errors import NotAvailable, check
from ..mechanisms import LaplaceCount
from ..models import MarkovChainModel
from ..models.engines import HasExhaustive, engine_for


def sum_slope(R: np.ndarray, k: int) -> float:
    """``a = 1 + 1^T S_UT S_TT^{-1} e_0`` for target 0, known ``{1..k}``, unknown the rest."""
    n = R.shape[0]
    T = list(range(k + 1))
    U = list(range(k + 1, n))
    if not U:
        return 1.0
    g = np.linalg.solve(R[np.ix_(T, T)], R[np.ix_(T, U)])  # (|T|, |U|) = S_TT^{-1} S_TU
    return 1.0 + float(g[0].sum())


def _corr(theta: np.ndarray, n: int) -> np.ndarray:
    R = np.eye(n)
    iu = np.triu_indices(n, 1)
    R[iu] = theta
    R.T[iu] = theta
    return R


@dataclass(frozen=True)
class GaussianWorstCase:
    """Largest ``|a|`` found, its correlation matrix, known-set size, and references."""

    n: int
    rho: float
    slope: float
    known_size: int
    correlation: np.ndarray
    equicorrelated: float
    gaussian_factor: float
    starts: int
    requested_starts: int = 0

    @property
    def capped(self) -> bool:
        """True when fewer positive definite starts were found than requested (draws are capped)."""
        return self.starts < self.requested_starts

    def bdpl(self, distance: float, beta: float) -> float:
        """Worst target-dependent BDPL ``|a| |x - x'| / beta`` found."""
        return self.slope * abs(distance) / beta


def worst_gaussian_sum(
    n: int, rho: float, rng: np.random.Generator, starts: int = 40, progress=None
) -> GaussianWorstCase:
    """Maximise ``|a|`` over ``Sigma_rho`` and over ``(i, K)`` (see module docstring).

    ``progress(done, total)``, if given, is called after each local search."""
    from scipy.optimize import minimize  # heavy: only where searched

    check(isinstance(n, int) and 2 <= n <= 12, "n", n, "must be an integer in 2..12")
    check(0 <= rho < 1, "rho", rho, "must be in [0, 1)")
    m = n * (n - 1) // 2
    best = (1.0, 0, np.eye(n))

    def objective(theta, k):
        R = _corr(theta, n)
        if np.linalg.eigvalsh(R)[0] < 1e-9:
            return 1e6
        return -abs(sum_slope(R, k))

    inits = [np.full(m, rho)]
    tries = 0
    while len(inits) < starts // 2 and tries < 50 * starts:
        tries += 1
        th = rho * rng.choice([-1.0, 1.0], size=m)
        if np.linalg.eigvalsh(_corr(th, n))[0] > 1e-9:
            inits.append(th)
    tries = 0
    while len(inits) < starts and tries < 50 * starts:  # capped: for large n * rho few draws are PD
        tries += 1
        th = rng.uniform(-rho, rho, m)
        if np.linalg.eigvalsh(_corr(th, n))[0] > 1e-9:
            inits.append(th)
    total = (n - 1) * len(inits) if rho else 0
    done = 0
    for k in range(0, n - 1):
        for th0 in inits:
            if rho == 0:
                break
            res = minimize(objective, th0, args=(k,), method="L-BFGS-B", bounds=[(-rho, rho)] * m)
            if -res.fun > best[0] and res.fun < 1e5:
                best = (-res.fun, k, _corr(res.x, n))
            done += 1
            if progress is not None:
                progress(done, total)
    equi = 1.0 + (n - 1) * rho
    return GaussianWorstCase(
        n, rho, best[0], best[1], best[2], equi, B.gaussian_factor(rho, n), len(inits), starts
    )


def _feasible(P: np.ndarray, gamma: float) -> np.ndarray:
    """Mix ``P`` with the uniform matrix until ``max P / min P <= gamma``."""
    s = P.shape[0]
    hi, lo = P.max(), P.min()
    if lo > 0 and hi / lo <= gamma:
        return P
    # (hi (1 - t) + t/s) = gamma (lo (1 - t) + t/s)  ->  t
    t = (hi - gamma * lo) / ((hi - gamma * lo) + (gamma - 1) / s) if gamma > 1 else 1.0
    return (1 - t) * P + t / s


def _matrix(z: np.ndarray, s: int, gamma: float) -> np.ndarray:
    P = np.exp(np.asarray(z).reshape(s, s))
    P /= P.sum(axis=1, keepdims=True)
    return _feasible(P, gamma)


@dataclass(frozen=True)
class MarkovWorstCase:
    """Largest exact BDPL found over chains with ``max P / min P <= gamma`` (``bdpl``, attained
    by ``transition``), the symmetric chain's exact BDPL, the Markov bound ``eps + 4 ln gamma``
    (paper Thm 6.2) of the worst chain, and the number of exact evaluations."""

    gamma: float
    n: int
    epsilon: float
    bdpl: float
    transition: np.ndarray
    symmetric_bdpl: float
    markov_bound: float
    evaluations: int


def markov_exact_bdpl(P: np.ndarray, n: int, epsilon: float, counted=(1,)) -> float:
    """Exact BDPL (max over every adversary, K = {} included) of the eps-DP count."""
    model = MarkovChainModel(P, n)
    engine = cast(HasExhaustive, engine_for(model, LaplaceCount(epsilon, tuple(counted))))
    return float(engine.exhaustive(range(n), None).value.max())


def worst_markov_chain(
    gamma: float,
    n: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    states: int = 2,
    starts: int = 12,
    maxiter: int = 150,
    progress=None,
) -> MarkovWorstCase:
    """Search stationary chains with ``max P / min P <= gamma`` for the largest exact BDPL.

    ``progress(done, total)``, if given, is called after each Nelder-Mead start."""
    from scipy.optimize import minimize  # heavy: only where searched

    check(gamma >= 1, "gamma", gamma, "must be >= 1")
    check(2 <= n <= 9, "n", n, "must be in 2..9 (each evaluation is an exhaustive search)")
    check(2 <= states <= 3, "states", states, "must be 2 or 3")
    check(
        isinstance(starts, (int, np.integer)) and not isinstance(starts, bool) and starts >= 1,
        "starts",
        starts,
        "must be an integer >= 1",
    )
    counted = (states - 1,)
    evals = [0]
    cache: dict = {}

    def f(z):
        P = _matrix(z, states, gamma)
        key = tuple(np.round(P.ravel(), 12))
        if key not in cache:
            evals[0] += 1
            cache[key] = markov_exact_bdpl(P, n, epsilon, counted)
        return -cache[key]

    sym = B.symmetric_chain(gamma) if states == 2 else None
    best_val, best_P = -math.inf, None
    lg = math.log(gamma) if gamma > 1 else 0.0
    inits = [np.log(sym).ravel()] if sym is not None else []
    inits += [rng.uniform(-lg, lg, states * states) * 1.5 for _ in range(starts - len(inits))]
    for j, z0 in enumerate(inits):
        res = minimize(
            f, z0, method="Nelder-Mead", options={"maxiter": maxiter, "xatol": 1e-4, "fatol": 1e-7}
        )
        if -res.fun > best_val:
            best_val, best_P = -res.fun, _matrix(res.x, states, gamma)
        if progress is not None:
            progress(j + 1, len(inits))
    if best_P is None:  # every start's exact value was NaN
        raise NotAvailable("no start of the search reached a chain with a finite exact BDPL")
    sym_val = markov_exact_bdpl(sym, n, epsilon, counted) if sym is not None else math.nan
    return MarkovWorstCase(
        gamma, n, epsilon, best_val, best_P, sym_val, B.markov_bound(epsilon, best_P).value, evals[0]
    )
