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

from .. import bounds as B
from ..mechanisms.randomized_response.core import rr_flip_probability

RR_CURVE = "randomized_response"  # paper Fig. 2: the curve of Chakrabarti et al.'s mechanism


def thesis_fig03_rows(eps=np.linspace(0.0, 5.0, 201)) -> list[dict]:
    """``beta = P(|Lap(n/eps)| > n/2) = exp(-eps/2)``: eps-BDP count via the general bound, m = n
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
                rows.append(
                    {
                        "epsilon": e,
                        "m": mm,
                        "beta": float(b),
                        "alpha_laplace": B.laplace_alpha(e / mm, float(b)),
                        "alpha_lower_bound": lower,
                    }
                )
    return rows


def thesis_fig08_rows(ns=(3, 5, 7), points=200, epsilon=1.0) -> list[dict]:
    """General bound ``n eps`` vs the Gaussian bound ``(n^2/(4(1/rho - n + 2)) + 1) eps`` for rho in
    the open interval (0, 1/(n-2)) where the latter applies (thesis Prop. 6.4, Fig. 8), 1-DP."""
    rows = []
    for n in ns:
        top = 1.0 / (n - 2) if n > 2 else 1.0
        for rho in np.linspace(0.0, top, points + 2)[1:-1]:
            rows.append(
                {
                    "n": n,
                    "rho": float(rho),
                    "gaussian_bound": B.gaussian_bound(epsilon, rho, n).value,
                    "general_bound": B.general_bound(epsilon, n).value,
                }
            )
    return rows


def thesis_fig11_rows(omegas=np.logspace(0, 2, 81), gammas=np.logspace(0, 3, 121)) -> list[dict]:
    """Markov bound beats Zhao's iff 4 ln gamma < 6 ln omega (gamma >= omega always holds)."""
    return [
        {
            "omega": float(w),
            "gamma": float(g),
            "markov_better": int(4 * math.log(g) < 6 * math.log(w)),
            "feasible": int(g >= w),
        }
        for w in omegas
        for g in gammas
    ]


def thesis_fig13_rows(eps=(0.5, 1.0, 2.0), ns=range(1, 101)) -> list[dict]:
    """Where the Markov bound ``eps + 4 ln gamma`` beats the general bound ``n eps``:
    ``gamma < gamma_max = exp((n - 1) eps / 4)`` (thesis eq. 284, Fig. 13)."""
    return [
        {"epsilon": float(e), "n": int(n), "gamma_max": math.exp((n - 1) * e / 4), "general_bound": n * e}
        for e in eps
        for n in ns
    ]


def thesis_fig16_rows(eps=(1.0, 2.0, 5.0, 10.0), hs=np.linspace(1.0, 10.0, 91)) -> list[dict]:
    """Max gamma with h = eps/(eps - 4 ln gamma) <= h: gamma = exp(eps (1 - 1/h) / 4)."""
    return [
        {"epsilon": e, "h": float(h), "gamma_max": math.exp(e * (1 - 1 / h) / 4)} for e in eps for h in hs
    ]


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
            rows.append(
                {
                    "m": m,
                    "rho": float(rho),
                    "h": h,
                    "general_better": int(h > m),
                    "rho_general_better": cross if cross < rho_top else math.nan,
                }
            )
    return rows


def paper_fig3_rows(
    eps=(0.5, 1.0, 2.0, 5.0, 10.0, 20.0), gammas=np.logspace(0, 2, 1000), h_max=10.0
) -> list[dict]:
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


def paper_fig2_rows(
    pss=(0.8, 0.7, 0.6), eps=np.arange(1, 41) * 0.25, n=700, count=350, beta=0.05
) -> list[dict]:
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
            rows.append(
                {
                    "panel": "a",
                    "p_ss": p,
                    "gamma": g,
                    "epsilon": float(e),
                    "alpha_markov_laplace": ours,
                    "rr_flip": rho,
                    "alpha_randomized_response": rr_alpha(n, count, rho, beta),
                    "authors_point": int(bool(np.isclose(theirs, e).any())),
                }
            )
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


def paper_fig2_authors_rows(
    n=500, epsilon=4.0, switch=0.3, thetas=(0.1, 0.5, 0.7), alphas=np.linspace(0.0, 0.2, 200)
) -> list[dict]:
    """Panel (b), the authors' variant (``BDP_RR/BDP_accuracy.py``): beta vs alpha for the mean of
    n = 500 bits at eps = 4 on the lazy symmetric chain with switch probability 0.3
    (gamma = 0.7/0.3). Randomized response per true proportion theta (:func:`rr_beta_iid`); the
    Markov-bound Laplace mean ``beta = exp(-alpha n tau)``, ``tau = eps - 4 ln gamma``."""
    gamma = (1 - switch) / switch
    tau = B.calibrate_markov(epsilon, B.symmetric_chain(gamma))
    rho = rr_flip_probability(switch, epsilon)
    alphas = np.asarray(alphas, float)
    common = {"panel": "b", "n": n, "epsilon": epsilon, "switch": switch, "gamma": gamma}
    rows = [
        {
            **common,
            "curve": "markov_laplace",
            "theta": math.nan,
            "tau": tau,
            "rr_flip": math.nan,
            "alpha": float(a),
            "beta": math.exp(-a * n * tau),
        }
        for a in alphas
    ]
    for th in thetas:
        rows += [
            {
                **common,
                "curve": RR_CURVE,
                "theta": th,
                "tau": math.nan,
                "rr_flip": rho,
                "alpha": float(a),
                "beta": float(b),
            }
            for a, b in zip(alphas, rr_beta_iid(alphas, n, th, rho))
        ]
    return rows


# ------------------------------------------------------------------ schematic figures (thesis Figs. 4, 6,
# 12, 14)


def thesis_fig04_rows(f_d: float = 0.0, f_d_prime: float = 10.0, alpha: float = 4.0) -> list[dict]:
    """The sets of thesis eqs. (70)–(71) (Fig. 4) for an illustrative ``f(D)``, ``f(D')`` and
    ``alpha <= |f(D) - f(D')|/2``: the interval ``(f(D) - alpha, f(D) + alpha)`` and the complement
    ``R \\ (f(D') - alpha, f(D') + alpha)`` (two rays), which contains it. Values are illustrative
    (the thesis' figure is a schematic; its image is missing from our copy)."""
    if not alpha <= abs(f_d - f_d_prime) / 2:
        raise ValueError("alpha must be at most half the distance between f(D) and f(D')")
    return [
        {
            "set": "(f(D) - α, f(D) + α)",
            "low": f_d - alpha,
            "high": f_d + alpha,
            "f_d": f_d,
            "f_d_prime": f_d_prime,
            "alpha": alpha,
        },
        {
            "set": "R \\ (f(D') - α, f(D') + α)",
            "low": -math.inf,
            "high": f_d_prime - alpha,
            "f_d": f_d,
            "f_d_prime": f_d_prime,
            "alpha": alpha,
        },
        {
            "set": "R \\ (f(D') - α, f(D') + α)",
            "low": f_d_prime + alpha,
            "high": math.inf,
            "f_d": f_d,
            "f_d_prime": f_d_prime,
            "alpha": alpha,
        },
    ]


def thesis_fig06_rows(allele_b: float = 0.3) -> list[dict]:
    """Thesis Fig. 6 / Def. 5.1: the allele pair at one position, one allele from each parent; the
    three genotypes with their Hardy–Weinberg frequencies (founder law of
    :class:`~bdpsim.models.PedigreeModel`, minor-allele frequency ``allele_b``)."""
    from ..models.pedigree.model import GENOTYPES, hardy_weinberg

    law = hardy_weinberg(allele_b)
    names = {0: "homozygous-major", 1: "heterozygous", 2: "homozygous-minor"}
    return [
        {
            "genotype": GENOTYPES[g],
            "code": g,
            "kind": names[g],
            "allele_b": allele_b,
            "hardy_weinberg": float(law[g]),
        }
        for g in range(3)
    ]


FIG12_CHAINS = {"left": ((0.9, 0.1), (0.8, 0.2)), "right": ((0.9, 0.1), (0.2, 0.8))}
"""Two 2-state chains with gamma = 9 and omega = 2 (left) / 8 (right), the values thesis Fig. 12's
caption states (its image, and so its exact chains, are missing from our copy)."""


def chain_rows(label: str, model, symbols: dict | None = None) -> list[dict]:
    """One row per transition ``x -> y`` of a :class:`~bdpsim.models.MarkovChainModel`: the
    probability, the chain's gamma and omega and its Markov / Zhao bound offsets ``4 ln gamma``,
    ``6 ln omega`` (the bounds are eps + offset). ``symbols[(x, y)]`` is an optional label drawn
    instead of the number (thesis Fig. 14's ``γ/(1 + γ)``)."""
    P = np.asarray(model.transition, dtype=float)
    g, w = B.gamma_of(P), B.omega_of(P)
    return [
        {
            "chain": label,
            "from": x,
            "to": y,
            "probability": float(P[x, y]),
            "label": (symbols or {}).get((x, y), f"{P[x, y]:g}"),
            "gamma": g,
            "omega": w,
            "markov_offset": 4 * math.log(g),
            "zhao_offset": 6 * math.log(w),
            "stationary": "; ".join(f"{v:.6g}" for v in model.initial),
        }
        for x in range(P.shape[0])
        for y in range(P.shape[1])
    ]


def thesis_fig12_rows() -> list[dict]:
    """Thesis Fig. 12's two example chains (:data:`FIG12_CHAINS`), from the chain models."""
    from ..models import MarkovChainModel

    rows = []
    for side, P in FIG12_CHAINS.items():
        rows += chain_rows(side, MarkovChainModel(np.array(P), 2))
    return rows


def thesis_fig14_rows(gammas=(1.0, 2.0, 3.0, 5.0, 10.0)) -> list[dict]:
    """Thesis Fig. 14: the symmetric 2-state chain used for Fig. 15, ``P = [[γ, 1], [1, γ]]/(1 + γ)``
    (:func:`bdpsim.models.symmetric_chain`), with symbolic labels and, per gamma, the numbers
    (each checked against the symbol)."""
    from ..models import MarkovChainModel

    sym = {(0, 0): "γ/(1 + γ)", (1, 1): "γ/(1 + γ)", (0, 1): "1/(1 + γ)", (1, 0): "1/(1 + γ)"}
    rows = []
    for g in gammas:
        model = MarkovChainModel(B.symmetric_chain(g), 2)
        rs = chain_rows(f"gamma = {g:g}", model, sym)
        for r in rs:  # the symbol is the model's number
            want = g / (1 + g) if r["from"] == r["to"] else 1 / (1 + g)
            if not math.isclose(r["probability"], want, rel_tol=1e-12):
                raise AssertionError(f"symmetric_chain({g}) is not the chain of thesis Fig. 14")
        rows += [{**r, "gamma_parameter": g} for r in rs]
    return rows
