"""Model fitting on real data (paper §7.1): Pearson coefficients; empirical transition matrices.

Every fit reports the validity conditions of the bound it feeds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import bounds as B
from ..core.errors import check
from ..models.markov.fit import transition_counts  # the counts bdpsim.fit_chain fits a chain from


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation coefficient ``cov(x, y) / (sd(x) sd(y))``."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    check(
        x.shape == y.shape and x.size >= 3, "data", x.shape, "needs two equally long columns of >= 3 values"
    )
    return float(np.corrcoef(x, y)[0, 1])


def fit_gaussian(columns: dict[str, np.ndarray], m: int) -> dict:
    """Pairwise Pearson coefficients of the given columns, their max ``|rho|`` and the Gaussian-bound
    condition ``rho (m - 2) < 1`` (paper Thm 5.8)."""
    names = list(columns)
    pairs = {f"{a}-{b}": pearson(columns[a], columns[b]) for i, a in enumerate(names) for b in names[i + 1 :]}
    rho = max(abs(v) for v in pairs.values())
    h = B.gaussian_factor(rho, m)
    return {
        "pearson": pairs,
        "rho": rho,
        "m": m,
        "gaussian_factor": h,
        "gaussian_bound_applies": bool(math.isfinite(h)),
        "condition": f"rho (m - 2) = {rho * (m - 2):.4f} < 1"
        if math.isfinite(h)
        else f"rho (m - 2) = {rho * (m - 2):.4f} >= 1: the Gaussian bound does not apply",
    }


def fit_markov(segments: Sequence[np.ndarray], states: int = 2) -> dict:
    """Empirical transition matrix (:func:`~bdpsim.models.markov.fit.transition_counts`, as
    :func:`bdpsim.fit_chain` fits it), gamma, omega, and the (H1)/(H2) conditions of the Markov
    bound."""
    C = transition_counts(segments, states)
    rows = C.sum(axis=1, keepdims=True)
    check(bool(np.all(rows > 0)), "data", C.tolist(), "every state needs an observed transition out of it")
    P = C / rows
    pos = bool(np.all(P > 0))
    g, w = B.gamma_of(P), B.omega_of(P)
    return {
        "transition": P.tolist(),
        "counts": C.tolist(),
        "gamma": g,
        "omega": w,
        "four_ln_gamma": 4 * math.log(g) if math.isfinite(g) else math.inf,
        "six_ln_omega": 6 * math.log(w) if math.isfinite(w) else math.inf,
        "H1_all_positive": pos,
        "H2_stationary": "assumed: with P > 0 the chain is irreducible and aperiodic, so a stationary "
        "start exists (paper §7.1.2); one observed chain cannot test it"
        if pos
        else "not guaranteed (some P = 0)",
    }
