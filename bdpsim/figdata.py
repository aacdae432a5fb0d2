"""The numbers behind the analytic figures (SCIENCE.md §6–§8), as tidy rows (pure numpy).

Each ``*_rows`` function returns a list of dicts, the exact content of the figure's CSV.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

from . import bounds as B


def thesis_fig03_rows(eps=np.linspace(0.05, 10, 200)) -> list[dict]:
    """beta = P(|Lap(n/eps)| > n/2) = exp(-eps/2): eps-BDP count via the general bound (m = n)."""
    return [{"epsilon": float(e), "beta": math.exp(-e / 2)} for e in eps]


def thesis_fig05_rows(eps=np.linspace(0.0, 6, 121)) -> list[dict]:
    """Minimum beta of any eps-free-lunch-private (alpha, beta)-accurate algorithm: 1/(e^eps + 1)."""
    return [{"epsilon": float(e), "beta_min": 1.0 / (math.exp(e) + 1.0)} for e in eps]


def thesis_fig07_rows(eps=(1.0, 2.0), m=(3, 10), beta=np.linspace(0.005, 0.5, 100)) -> list[dict]:
    """Genomic count: Laplace alpha = ln(1/beta) m / eps vs the lower bound (m - 1)/2, which holds
    for beta < 1/(e^eps + 1) (thesis Cor. 4.4 and 5.3)."""
    rows = []
    for e in eps:
        for mm in m:
            for b in beta:
                lower = (mm - 1) / 2 if b < 1 / (math.exp(e) + 1) else math.nan
                rows.append({"epsilon": e, "m": mm, "beta": float(b),
                             "alpha_laplace": B.laplace_alpha(e / mm, float(b)), "alpha_lower_bound": lower})
    return rows


def thesis_fig08_rows(ns=(3, 5, 7), points=100, epsilon=1.0) -> list[dict]:
    """General bound n eps vs Gaussian bound for rho in (0, 1/(n-2)), 1-DP."""
    rows = []
    for n in ns:
        top = 1.0 / (n - 2) if n > 2 else 1.0
        for rho in np.linspace(top / points, top * (1 - 1 / points), points):
            rows.append({"n": n, "rho": float(rho), "gaussian_bound": B.gaussian_bound(epsilon, rho, n).value,
                         "general_bound": B.general_bound(epsilon, n).value})
    return rows


def thesis_fig11_rows(omegas=np.logspace(0, 2, 81), gammas=np.logspace(0, 3, 121)) -> list[dict]:
    """Markov bound beats Zhao's iff 4 ln gamma < 6 ln omega (gamma >= omega always holds)."""
    return [{"omega": float(w), "gamma": float(g), "markov_better": int(4 * math.log(g) < 6 * math.log(w)),
             "feasible": int(g >= w)} for w in omegas for g in gammas]


def thesis_fig13_rows(ns=range(2, 31), gammas=np.logspace(0, 2, 101), epsilon=0.5) -> list[dict]:
    """Markov bound beats the general bound iff eps + 4 ln gamma < n eps."""
    return [{"n": int(n), "gamma": float(g),
             "markov_better": int(B.markov_bound(epsilon, B.symmetric_chain(g)).value < n * epsilon)}
            for n in ns for g in gammas]


def thesis_fig16_rows(eps=(1.0, 2.0, 5.0, 10.0), hs=np.linspace(1.0, 10.0, 91)) -> list[dict]:
    """Max gamma with h = eps/(eps - 4 ln gamma) <= h: gamma = exp(eps (1 - 1/h) / 4)."""
    return [{"epsilon": e, "h": float(h), "gamma_max": math.exp(e * (1 - 1 / h) / 4)} for e in eps for h in hs]


def paper_fig1_rows(ms=(2, 3, 5, 10), points=200) -> list[dict]:
    """Gaussian relative error factor h = m^2/(4(1/rho - m + 2)) + 1 vs rho, where it applies."""
    rows = []
    for m in ms:
        top = 1.0 / (m - 2) if m > 2 else 1.0
        for rho in np.linspace(0, min(top, 1.0) * (1 - 1e-3), points):
            rows.append({"m": m, "rho": float(rho), "h": B.gaussian_factor(float(rho), m)})
    return rows


def paper_fig3_rows(eps=(5.0, 10.0, 20.0), gammas=np.linspace(1.0, 150.0, 300)) -> list[dict]:
    """Markov relative error factor h = eps/(eps - 4 ln gamma) vs gamma (nan where eps <= 4 ln gamma)."""
    return [{"epsilon": e, "gamma": float(g), "h": B.markov_factor(e, float(g))} for e in eps for g in gammas]


def rr_flip_probability(t: float, epsilon: float) -> float:
    """Chakrabarti et al.'s flip probability for a lazy symmetric binary chain with switch prob. t."""
    E = math.exp(epsilon)
    num = 4 + t * (t * E - 2) - math.sqrt(t * t * E * (4 + t * (t * E - 4)))
    return num / (8 + 2 * t * (t * E + t - 4))


def rr_alpha(n: int, count: int, rho: float, beta: float = 0.05) -> float:
    """Exact alpha at level beta of the debiased randomized-response count
    ``(Z - n rho)/(1 - 2 rho)``, ``Z = X + Y``, ``X ~ Bin(count, 1 - rho)``, ``Y ~ Bin(n - count, rho)``:
    the smallest alpha with ``P(|estimate - count| > alpha) <= beta`` (binomial convolution; the
    bisection of the original reduces to this discrete quantile)."""
    px = binom.pmf(np.arange(count + 1), count, 1 - rho)
    py = binom.pmf(np.arange(n - count + 1), n - count, rho)
    pz = np.convolve(px, py)
    err = np.abs((np.arange(n + 1) - n * rho) / (1 - 2 * rho) - count)
    order = np.argsort(err)[::-1]
    tail = np.cumsum(pz[order])  # P(|err| >= err[order[k]])
    k = int(np.searchsorted(tail, beta, side="right"))  # first k with P(err >= e_k) > beta
    return float(err[order[k]]) if k < order.size else 0.0


def paper_fig2_rows(pss=(0.8, 0.7, 0.6), eps=np.linspace(0.25, 20, 80), n=700, count=350,
                    beta=0.05) -> list[dict]:
    """Alpha at beta = 5 %: Markov-bound Laplace count ln(1/beta)/(eps - 4 ln gamma) vs the
    randomized response of Chakrabarti et al. (t = 1 - P_ss, gamma = P_ss/(1 - P_ss))."""
    rows = []
    for p in pss:
        g = p / (1 - p)
        for e in eps:
            tau = B.calibrate_markov(float(e), B.symmetric_chain(g))
            ours = math.log(1 / beta) / tau if math.isfinite(tau) else math.nan
            rho = rr_flip_probability(1 - p, float(e))
            rows.append({"p_ss": p, "gamma": g, "epsilon": float(e), "alpha_markov_laplace": ours,
                         "rr_flip": rho, "alpha_randomized_response": rr_alpha(n, count, rho, beta)})
    return rows
