"""The numbers behind the analytic figures (thesis §4–§7, paper §4–§6), as tidy rows (pure numpy).

Each ``*_rows`` function returns a list of dicts, the exact content of the figure's CSV. The
default arguments are the sources' own plotting parameters where the authors published them
(``plots_for_paper.py`` and ``BDP_RR/*.py`` of the public repository
lange-martin/privacy-utility-bdp); the gallery README lists every remaining difference.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

from . import bounds as B
from .mechanisms.rr_core import rr_flip_probability

RR_CURVE = "randomized_response"  # paper Fig. 2: the curve of Chakrabarti et al.'s mechanism


def thesis_fig03_rows(eps=np.linspace(0.0, 5.0, 201)) -> list[dict]:
    """beta = P(|Lap(n/eps)| > n/2) = exp(-eps/2): eps-BDP count via the general bound, m = n
    (thesis Cor. 4.4, Fig. 3)."""
    return [{"epsilon": float(e), "beta": math.exp(-e / 2)} for e in eps]


def thesis_fig05_rows(eps=np.linspace(0.0, 5.0, 201)) -> list[dict]:
    """Minimum beta of any eps-free-lunch-private (alpha, beta)-accurate algorithm,
    ``beta >= 1/(e^eps + 1)`` (thesis Cor. 4.7, Fig. 5; plotted on a log axis)."""
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


def thesis_fig08_rows(ns=(3, 5, 7), points=200, epsilon=1.0) -> list[dict]:
    """General bound ``n eps`` vs the Gaussian bound ``(n^2/(4(1/rho - n + 2)) + 1) eps`` for rho in
    the open interval (0, 1/(n-2)) where the latter applies (thesis Prop. 6.4, Fig. 8), 1-DP."""
    rows = []
    for n in ns:
        top = 1.0 / (n - 2) if n > 2 else 1.0
        for rho in np.linspace(0.0, top, points + 2)[1:-1]:
            rows.append({"n": n, "rho": float(rho), "gaussian_bound": B.gaussian_bound(epsilon, rho, n).value,
                         "general_bound": B.general_bound(epsilon, n).value})
    return rows


def thesis_fig11_rows(omegas=np.logspace(0, 2, 81), gammas=np.logspace(0, 3, 121)) -> list[dict]:
    """Markov bound beats Zhao's iff 4 ln gamma < 6 ln omega (gamma >= omega always holds)."""
    return [{"omega": float(w), "gamma": float(g), "markov_better": int(4 * math.log(g) < 6 * math.log(w)),
             "feasible": int(g >= w)} for w in omegas for g in gammas]


def thesis_fig13_rows(eps=(0.5, 1.0, 2.0), ns=range(1, 101)) -> list[dict]:
    """Where the Markov bound ``eps + 4 ln gamma`` beats the general bound ``n eps``:
    ``gamma < gamma_max = exp((n - 1) eps / 4)`` (thesis eq. 284, Fig. 13)."""
    return [{"epsilon": float(e), "n": int(n), "gamma_max": math.exp((n - 1) * e / 4),
             "general_bound": n * e} for e in eps for n in ns]


def thesis_fig16_rows(eps=(1.0, 2.0, 5.0, 10.0), hs=np.linspace(1.0, 10.0, 91)) -> list[dict]:
    """Max gamma with h = eps/(eps - 4 ln gamma) <= h: gamma = exp(eps (1 - 1/h) / 4)."""
    return [{"epsilon": e, "h": float(h), "gamma_max": math.exp(e * (1 - 1 / h) / 4)} for e in eps for h in hs]


def gaussian_rho_general_better(m: int) -> float:
    """The rho above which the general bound ``m`` beats the Gaussian factor ``h`` (paper eq. 4):
    ``h <= m  iff  rho <= (m - 1) / (5/4 m^2 - 3 m + 2)``."""
    return (m - 1) / (1.25 * m * m - 3 * m + 2)


def paper_fig1_rows(ms=(3, 6, 12, 24), points=1000, h_max=10.0) -> list[dict]:
    """Gaussian relative error factor ``h = m^2/(4(1/rho - m + 2)) + 1`` vs rho (paper Cor. 5.9,
    Fig. 1), from rho = 0 up to ``h = h_max`` (the exact endpoint is included), with
    ``general_better = 1`` where ``h > m``, i.e. rho above :func:`gaussian_rho_general_better`."""
    rows = []
    for m in ms:
        rho_top = 1.0 / (m * m / (4.0 * (h_max - 1.0)) + m - 2.0)  # h(rho_top) = h_max
        cross = gaussian_rho_general_better(m)
        grid = np.linspace(0.0, 1.0, points)
        grid = np.union1d(grid[grid < rho_top], [rho_top] + ([cross] if cross < rho_top else []))
        for rho in grid:
            h = B.gaussian_factor(float(rho), m)
            rows.append({"m": m, "rho": float(rho), "h": h, "general_better": int(h > m),
                         "rho_general_better": cross if cross < rho_top else math.nan})
    return rows


def paper_fig3_rows(eps=(0.5, 1.0, 2.0, 5.0, 10.0, 20.0), gammas=np.logspace(0, 2, 1000),
                    h_max=10.0) -> list[dict]:
    """Markov relative error factor ``h = eps/(eps - 4 ln gamma)`` (paper Cor. 6.3, Fig. 3) for
    gamma >= 1 up to ``h = h_max``: each curve ends exactly at ``gamma = exp(eps (1 - 1/h_max)/4)``,
    the last grid point before its asymptote ``gamma = e^{eps/4}``."""
    rows = []
    for e in eps:
        g_top = math.exp(e * (1 - 1 / h_max) / 4)
        for g in np.union1d(gammas[gammas < g_top], [g_top]):
            rows.append({"epsilon": e, "gamma": float(g), "h": B.markov_factor(e, float(g))})
    return rows


# ------------------------------------------------------------------ paper Fig. 2: randomized response

def rr_alpha(n: int, count: int, rho: float, beta: float = 0.05) -> float:
    """Exact alpha at level beta of the debiased randomized-response count
    ``(Z - n rho)/(1 - 2 rho)``, ``Z = X + Y``, ``X ~ Bin(count, 1 - rho)``, ``Y ~ Bin(n - count, rho)``:
    the smallest alpha with ``P(|estimate - count| > alpha) <= beta`` (binomial convolution; the
    bisection of the authors' ``plots/mle_accu.py`` reduces to this discrete quantile)."""
    px = binom.pmf(np.arange(count + 1), count, 1 - rho)
    py = binom.pmf(np.arange(n - count + 1), n - count, rho)
    pz = np.convolve(px, py)
    err = np.abs((np.arange(n + 1) - n * rho) / (1 - 2 * rho) - count)
    order = np.argsort(err)[::-1]
    tail = np.cumsum(pz[order])  # P(|err| >= err[order[k]])
    k = int(np.searchsorted(tail, beta, side="right"))  # first k with P(err >= e_k) > beta
    return float(err[order[k]]) if k < order.size else 0.0


def paper_fig2_rows(pss=(0.8, 0.7, 0.6), eps=np.arange(1, 41) * 0.25, n=700, count=350,
                    beta=0.05) -> list[dict]:
    """Panel (a), paper Fig. 2: alpha at beta = 5 % of the Markov-bound Laplace count
    ``ln(1/beta)/(eps - 4 ln gamma)`` vs Chakrabarti et al.'s randomized response (t = 1 - P_ss,
    gamma = P_ss/(1 - P_ss)), n = 700 with 350 ones. ``authors_point = 1`` marks the five eps of
    each P_ss that the authors' ``plots/mle_accu.py`` evaluates (ceil(4 ln gamma) to 10)."""
    rows = []
    for p in pss:
        g = p / (1 - p)
        theirs = np.linspace(math.ceil(4 * math.log(g)), 10, 5)
        for e in eps:
            tau = B.calibrate_markov(float(e), B.symmetric_chain(g))
            ours = math.log(1 / beta) / tau if math.isfinite(tau) else math.nan
            rho = rr_flip_probability(1 - p, float(e))
            rows.append({"panel": "a", "p_ss": p, "gamma": g, "epsilon": float(e), "alpha_markov_laplace": ours,
                         "rr_flip": rho, "alpha_randomized_response": rr_alpha(n, count, rho, beta),
                         "authors_point": int(bool(np.isclose(theirs, e).any()))})
    return rows


def rr_beta_iid(alpha: np.ndarray, n: int, theta: float, rho: float) -> np.ndarray:
    """beta(alpha) of the randomized-response mean as the authors' ``BDP_RR/BDP_accuracy.py``
    computes it: records i.i.d. Bernoulli(theta), reports ``Y ~ Bin(n, q)`` with
    ``q = (1 - 2 rho) theta + rho``, estimate ``(Y/n - rho)/(1 - 2 rho)``, and
    ``beta = P(|Y/n - q| >= (1 - 2 rho) alpha)``."""
    scale = 1 - 2 * rho
    q = scale * theta + rho
    k = np.arange(n + 1)
    pmf = binom.pmf(k, n, q)
    mask = np.abs(k / n - q)[None, :] >= scale * np.asarray(alpha, float)[:, None]
    return (mask * pmf[None, :]).sum(axis=1)


def paper_fig2_authors_rows(n=500, epsilon=4.0, switch=0.3, thetas=(0.1, 0.5, 0.7),
                            alphas=np.linspace(0.0, 0.2, 200)) -> list[dict]:
    """Panel (b), the authors' variant (``BDP_RR/BDP_accuracy.py``): beta vs alpha for the mean of
    n = 500 bits at eps = 4 on the lazy symmetric chain with switch probability 0.3
    (gamma = 0.7/0.3). Randomized response per true proportion theta (:func:`rr_beta_iid`); the
    Markov-bound Laplace mean ``beta = exp(-alpha n tau)``, ``tau = eps - 4 ln gamma``."""
    gamma = (1 - switch) / switch
    tau = B.calibrate_markov(epsilon, B.symmetric_chain(gamma))
    rho = rr_flip_probability(switch, epsilon)
    alphas = np.asarray(alphas, float)
    common = {"panel": "b", "n": n, "epsilon": epsilon, "switch": switch, "gamma": gamma}
    rows = [{**common, "curve": "markov_laplace", "theta": math.nan, "tau": tau, "rr_flip": math.nan,
             "alpha": float(a), "beta": math.exp(-a * n * tau)} for a in alphas]
    for th in thetas:
        rows += [{**common, "curve": RR_CURVE, "theta": th, "tau": math.nan, "rr_flip": rho,
                  "alpha": float(a), "beta": float(b)} for a, b in zip(alphas, rr_beta_iid(alphas, n, th, rho))]
    return rows
