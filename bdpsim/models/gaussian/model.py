"""Multivariate Gaussian data model (paper Def. 4.2 and Def. 5.4).

Conditioning on the known set ``T`` is exact (Schur complement)::

    X_U | x_T ~ N(mu_U + S_UT S_TT^{-1} (x_T - mu_T),  S_UU - S_UT S_TT^{-1} S_TU)

The Cholesky factor of the conditional covariance is computed once per condition
(:meth:`GaussianModel.conditional`) and reused for every sample chunk.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ...core.errors import ConfigError, check


@dataclass(frozen=True)
class GaussianConditional:
    """The law of ``X_U`` given ``X_T = x_T``: mean, Cholesky factor and the linear map.

    ``gain`` is ``S_UT S_TT^{-1}`` (shape ``(|U|, |T|)``), so ``mean = mu_U + gain (x_T - mu_T)``.
    """

    unknown: tuple[int, ...]
    known: tuple[int, ...]
    known_values: np.ndarray
    mean: np.ndarray
    cov: np.ndarray
    chol: np.ndarray
    gain: np.ndarray


@dataclass(frozen=True)
class GaussianModel:
    """``X ~ N(mean, cov)`` with ``cov`` symmetric positive definite.

    Parameters
    ----------
    mean : array_like, shape (n,)
    cov : array_like, shape (n, n)
    """

    mean: np.ndarray
    cov: np.ndarray
    kind: str = field(default="gaussian", init=False)

    def __post_init__(self) -> None:
        mu = np.asarray(self.mean, dtype=float)
        S = np.asarray(self.cov, dtype=float)
        check(mu.ndim == 1 and mu.size >= 2, "model.mean", mu.tolist(), "must be a vector of length n >= 2")
        n = mu.size
        check(S.shape == (n, n), "model.cov", S.shape, f"must be an {n} x {n} matrix")
        check(
            bool(np.all(np.isfinite(S))) and bool(np.all(np.isfinite(mu))),
            "model.cov",
            S.tolist(),
            "entries must be finite",
        )
        check(np.allclose(S, S.T, atol=1e-12), "model.cov", S.tolist(), "must be symmetric")
        try:
            np.linalg.cholesky(S)
        except np.linalg.LinAlgError:
            raise ConfigError("model.cov", S.tolist(), "must be positive definite") from None
        mu, S = mu.copy(), S.copy()
        mu.setflags(write=False)
        S.setflags(write=False)
        object.__setattr__(self, "mean", mu)
        object.__setattr__(self, "cov", S)

    @property
    def n(self) -> int:
        return self.mean.size

    @property
    def is_independent(self) -> bool:
        return bool(np.count_nonzero(self.cov - np.diag(np.diag(self.cov))) == 0)

    def conditional(self, known: Mapping[int, float]) -> GaussianConditional:
        """Schur-complement conditional law of the unknown records given ``known``."""
        T = tuple(sorted(int(k) for k in known))
        for t in T:
            check(0 <= t < self.n, "known position", t, f"must be in 0..{self.n - 1}")
        U = tuple(j for j in range(self.n) if j not in known)
        xT = np.array([float(known[t]) for t in T])
        mu, S = self.mean, self.cov
        if T:
            S_TT = S[np.ix_(T, T)]
            S_UT = S[np.ix_(U, T)]
            gain = np.linalg.solve(S_TT, S_UT.T).T if U else np.zeros((0, len(T)))
            mean = mu[list(U)] + gain @ (xT - mu[list(T)])
            cov = S[np.ix_(U, U)] - gain @ S_UT.T
        else:
            gain = np.zeros((len(U), 0))
            mean = mu.copy()
            cov = S.copy()
        cov = (cov + cov.T) / 2
        chol = np.linalg.cholesky(cov) if U else np.zeros((0, 0))
        return GaussianConditional(U, T, xT, mean, cov, chol, gain)

    def sample_conditional(
        self,
        known: Mapping[int, float],
        size: int,
        rng: np.random.Generator,
        cond: GaussianConditional | None = None,
    ) -> np.ndarray:
        """Exact draws of ``X`` given ``X_j = known[j]``, shape ``(size, n)``."""
        cond = cond or self.conditional(known)
        out = np.empty((size, self.n))
        if cond.known:
            out[:, list(cond.known)] = cond.known_values
        if cond.unknown:
            z = rng.standard_normal((size, len(cond.unknown)))
            out[:, list(cond.unknown)] = cond.mean + z @ cond.chol.T
        return out

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample_conditional({}, size, rng)


def block_size(block, n: int) -> int:
    """The block size ``m`` of "at most m correlated" records (paper Def. 4.2): ``block`` or ``n``."""
    m = n if block is None else int(block)
    check(1 <= m <= n, "model.block", block, f"must be in 1..n ({n})")
    return m


def limited_covariance(
    n: int,
    rho: float,
    sigma: float,
    rng: np.random.Generator,
    *,
    block: int | None = None,
    draw: str = "uniform",
    max_tries: int = 10_000,
) -> np.ndarray:
    """A random limited covariance matrix ``Sigma_rho`` (paper Def. 5.4).

    Constant diagonal ``sigma^2``; off-diagonal entries ``sigma^2 r_jk`` with ``|r_jk| <= rho``;
    positive definite (rejection sampling). With ``block = m`` the records split into
    consecutive independent blocks of size ``<= m`` ("at most m correlated", Def. 4.2).

    Parameters
    ----------
    draw : {"uniform", "positive", "equicorrelated"}
        ``r_jk ~ U[-rho, rho]``, ``r_jk ~ U[0, rho]``, or ``r_jk = rho`` (deterministic).
    """
    check(isinstance(n, (int, np.integer)) and n >= 2, "model.n", n, "must be an integer >= 2")
    check(math.isfinite(rho) and 0 <= rho < 1, "model.rho", rho, "must be in [0, 1)")
    check(math.isfinite(sigma) and sigma > 0, "model.sigma", sigma, "must be > 0")
    check(
        draw in ("uniform", "positive", "equicorrelated"),
        "model.cov_draw",
        draw,
        "must be 'uniform', 'positive' or 'equicorrelated'",
    )
    m = block_size(block, n)
    same_block = (np.arange(n)[:, None] // m) == (np.arange(n)[None, :] // m)
    off = same_block & ~np.eye(n, dtype=bool)
    for _ in range(max_tries):
        if draw == "equicorrelated":
            r = np.full((n, n), rho)
        else:
            low = -rho if draw == "uniform" else 0.0
            r = rng.uniform(low, rho, size=(n, n))
            r = np.triu(r, 1)
            r = r + r.T
        R = np.where(off, r, 0.0) + np.eye(n)
        if np.linalg.eigvalsh(R)[0] > 1e-10:
            return sigma**2 * R
        if draw == "equicorrelated":
            break
    raise ConfigError("model.rho", rho, f"no positive definite {draw} Sigma_rho found for n = {n}; lower rho")


@dataclass(frozen=True)
class GaussianClass:
    """The limited-covariance class ``Sigma_rho`` from which each adversary draws its model
    (thesis §6.4.1): mean uniform on ``mean_range`` (or fixed ``mean``), covariance
    :func:`limited_covariance`. Our reading: the thesis does not say how it drew them."""

    n: int
    rho: float
    sigma: float = 1.0
    block: int | None = None
    cov_draw: str = "uniform"
    mean_range: tuple[float, float] = (0.0, 10.0)
    mean: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        lo, hi = self.mean_range
        check(
            math.isfinite(lo) and math.isfinite(hi) and lo < hi,
            "model.mean_range",
            list(self.mean_range),
            "must be [low, high] with low < high",
        )
        if self.mean is not None:
            check(len(self.mean) == self.n, "model.mean", list(self.mean), f"must have n = {self.n} entries")
        # every check of n, rho, sigma, block and cov_draw lives in limited_covariance: draw once
        limited_covariance(
            self.n,
            self.rho,
            self.sigma,
            np.random.default_rng(0),
            block=self.block,
            draw=self.cov_draw,
            max_tries=2000,
        )

    def draw(self, rng: np.random.Generator) -> GaussianModel:
        lo, hi = self.mean_range
        mean = np.array(self.mean) if self.mean is not None else rng.uniform(lo, hi, size=self.n)
        return GaussianModel(
            mean, limited_covariance(self.n, self.rho, self.sigma, rng, block=self.block, draw=self.cov_draw)
        )

    def equicorrelated(self) -> GaussianModel:
        """The one model of an ``equicorrelated`` class (mean: ``mean`` or the range's midpoint)."""
        mean = np.asarray(
            self.mean or [0.5 * (self.mean_range[0] + self.mean_range[1])] * self.n, dtype=float
        )
        return GaussianModel(
            mean,
            limited_covariance(
                self.n,
                self.rho,
                self.sigma,
                np.random.default_rng(0),
                block=self.block,
                draw="equicorrelated",
            ),
        )


def max_correlation(cov: np.ndarray) -> float:
    """Largest ``|Sigma_jk| / sqrt(Sigma_jj Sigma_kk)`` over ``j != k``."""
    S = np.asarray(cov, dtype=float)
    d = np.sqrt(np.diag(S))
    R = S / np.outer(d, d)
    return float(np.max(np.abs(R - np.eye(S.shape[0]))))
