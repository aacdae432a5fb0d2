"""Figure 2 of the Pufferfish paper, regenerated: the L1 error of the Markov Quilt mechanism's
private histogram of a 5-state chain vs log ε (Wang, Song & Chaudhuri, *Privacy-preserving
Analysis of Correlated Data*, arXiv:1603.03977v1, §5; ``papers/002...``), plus the exact BDPL of
the same release at small T (panel (d)) and, at the figure's T = 5000, the black-box audit's
certified 95 % lower bound and the exact BDPL of the short-window adversaries (panel (e),
:mod:`bdpsim.studies.pufferfish_audit`) (bdpsim's additions).

Parameter for parameter (paper §5 and the Fig. 2 caption unless said):

* a ``k = 5``-state chain ``P``, aperiodic, irreducible and reversible with ``pi_min(P) >= pi_gen
  = 0.05`` and eigengap ``g(P) = 1 - |lambda_2(P)| >= g_gen = 0.1`` (§4.3's definition: the least
  ``1 - |lambda|`` over eigenvalues ``lambda != 1``); an initial law ``q`` uniform on the simplex;
  ``P`` and ``q`` generated once and fixed (§5); a new sample ``X_1..X_T`` in every run;
* ``F`` = the histogram of states as *frequencies*, 2/T-Lipschitz in L1 (§5), released as
  ``F + (2 sigma / T) Lap(1)`` per cell with ``sigma`` = MQMApprox's ``sigma_max`` for a 1-Lipschitz
  query computed from the estimates ``pi_est <= pi_gen``, ``g_est <= g_gen`` (§4.3 Lemma 4.7,
  App. B.2's FastMarkovQuiltMechanism = ``k_findBest_2dir.m`` =
  :func:`bdpsim.calibration.quilt.chain.mqm_approx_search`).
  The authors' ``plotHistNoise.m`` adds ``Lap(2 sigma)`` to each count and reports
  ``mean(sum|noise|)/T``: the same thing;
* utility = L1 distance between private and exact frequencies, averaged over 100 runs (§5);
* panels: (a) vary ``pi_est`` (``g_est = 0.1, T = 5000``), (b) vary ``g_est`` (``pi_est = 0.05,
  T = 5000``), (c) vary ``T`` (``g_est = 0.1, pi_est = 0.05``) (Fig. 2 caption).

**Not in the sources** (arXiv v1 has no figure image in our copy, and the public repository
``shs037/pufferfish`` is the SIGMOD 2017 version's code, without this experiment): the plotted
values of ``pi_est``, ``g_est``, ``T`` and ``ε`` and how ``P`` was drawn. bdpsim's choices are
:data:`CONFIG` and :func:`generate_chain`; see ``GALLERY_ENTRY["deviation"]``.

**What the figure can and cannot show.** The noise is independent of the data, so the L1 error
has expectation ``2 k sigma / T`` whatever the chain (and ``sigma`` depends on ``pi_est, g_est,
ε, T`` only): the chain sample does not influence the curves. bdpsim reports this expectation
beside the Monte Carlo mean (``l1_error_expected``) and draws the chain anyway, as the paper does.
"""

from __future__ import annotations

import bisect
import math
import time
from pathlib import Path
from typing import TypedDict

import numpy as np

from ..calibration.quilt.chain import authors_eigengap
from ..kernels.chains.histogram_sup import chain_histogram_bdpl
from ..pipeline import seeds
from .pufferfish_audit import AUDIT, QUICK_AUDIT, audit_rows, mqm_release_sigma


class GalleryEntry(TypedDict):
    """What the gallery needs of this figure (:data:`GALLERY_ENTRY`)."""

    id: str
    title: str
    source: str
    compute: str
    plot: str
    panels: int
    layout: str
    deviation: dict[str, str]  # the keywords of bdpsim.figures.deviations.Deviation


GALLERY_ENTRY: GalleryEntry = {
    "id": "pufferfish-fig2",
    "title": "Pufferfish paper Fig. 2: L1 error of the Markov Quilt mechanism's private histogram vs ε, "
    "varying (a) π_est, (b) g_est, (c) T; (d) exact BDPL of the release at small T; "
    "(e) its BDPL at T = 5000: certified 95 % lower bound (audit) and exact over short windows",
    "source": "Wang, Song & Chaudhuri, Privacy-preserving Analysis of Correlated Data (arXiv:1603.03977v1), "
    "§5 and Fig. 2; authors' code shs037/pufferfish (k_findBest_2dir.m, plotHistNoise.m)",
    "compute": "bdpsim.pufferfish_fig2:gallery_rows",
    "plot": "bdpsim.figures.pufferfish:plot_pufferfish_fig2",
    "panels": 5,
    "layout": "grid2",
    "deviation": {
        "source": "k = 5 states, π_gen = 0.05, g_gen = 0.1, P and q fixed, new sample per run, 100 runs, "
        "frequency histogram + (2σ/T)·Lap(1) per cell, σ = MQMApprox(π_est, g_est, ε, T), L1 error vs "
        "log ε; (a) π_est varies (g_est = 0.1, T = 5000), (b) g_est varies (π_est = 0.05, T = 5000), "
        "(c) T varies (g_est = 0.1, π_est = 0.05). The plotted π_est, g_est, T and ε values and the "
        "chain generator are not stated; the figure image is missing from our copy and the public "
        "code (shs037/pufferfish) does not contain this experiment",
        "ours": "π_est ∈ {0.01, …, 0.05}, g_est ∈ {0.02, …, 0.10}, T ∈ {500, 1000, 2000, 5000, 10000}, "
        "ε ∈ {0.1, 0.2, 0.5, 1, 2, 5, 10}; P reversible by construction (P_ij = α π_j U_ij, U symmetric "
        "uniform, π = π_gen + (1 − kπ_gen)·Dirichlet(1)), rejection until 1 − |λ₂(P)| ≥ g_gen and "
        "(1 − |λ₂(PP*)|)/2 ≥ g_gen (the paper's and the authors' run_realData.m eigengap); "
        "q ~ Dirichlet(1); seed 20160313; log–log axes. Added: the expectation 2kσ/T beside the Monte "
        "Carlo mean, group DP (σ = T/ε) for reference, and (d) the exact BDPL of the same release "
        "(and of the ε-DP Laplace histogram, b = 2/ε) over all adversaries for T ≤ 8; (e) at T = 5000, "
        "where the exact value is out of reach, the black-box audit's certified 95 % lower bound "
        "(24 window adversaries, 10^6 mechanism calls per ε; checked against the exact value at "
        "T = 8) and the exact BDPL over the adversaries whose unknown records form a window of "
        "≤ 8 records (itself a lower bound on the BDPL)",
        "why": "the source's value sets and generator are not recoverable; the L1 error does not "
        "depend on the "
        "chain (the noise is data-independent), so the generator cannot change panels (a)–(c). The exact "
        "BDPL over all adversaries is feasible only for small T (grid of (T + 3)^5 output "
        "vertices per window); "
        "at T = 5000 only lower bounds are available",
    },
}

SEED = 20160313  # arXiv:1603.03977 was submitted on 13 March 2016

CONFIG = {
    "k": 5,
    "pi_gen": 0.05,
    "g_gen": 0.1,
    "runs": 100,  # §5
    "epsilons": [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0],  # not stated: bdpsim's
    "panels": {
        "a": {"vary": "pi_est", "values": [0.01, 0.02, 0.03, 0.04, 0.05], "fixed": {"g_est": 0.1, "T": 5000}},
        "b": {"vary": "g_est", "values": [0.02, 0.04, 0.06, 0.08, 0.1], "fixed": {"pi_est": 0.05, "T": 5000}},
        "c": {"vary": "T", "values": [500, 1000, 2000, 5000, 10000], "fixed": {"pi_est": 0.05, "g_est": 0.1}},
    },
    "exact_T": [2, 3, 4, 5, 6, 7, 8],  # panel (d), bdpsim's addition
    "audit": AUDIT,  # panel (e), bdpsim's addition
}
QUICK = {"runs": 20, "exact_T": [2, 3, 4, 5], "audit": QUICK_AUDIT}


# ------------------------------------------------------------------------------- data model


def stationary(P) -> np.ndarray:
    """Stationary law of an irreducible ``P`` (left eigenvector of eigenvalue 1)."""
    w, V = np.linalg.eig(np.asarray(P, dtype=float).T)
    v = np.real(V[:, int(np.argmin(np.abs(w - 1)))])
    return v / v.sum()


def eigengap(P) -> float:
    """``1 - |lambda_2(P)|``: the least ``1 - |lambda|`` over eigenvalues other than 1 (§4.3)."""
    return float(authors_eigengap(P, "chain"))


def generate_chain(
    rng: np.random.Generator, k: int = 5, pi_gen: float = 0.05, g_gen: float = 0.1, max_tries: int = 20_000
) -> tuple[np.ndarray, np.ndarray, int]:
    """A ``k``-state transition matrix with ``pi_min >= pi_gen`` and eigengap ``>= g_gen`` that is
    aperiodic, irreducible and reversible, and an initial law uniform on the simplex.

    ``pi = pi_gen + (1 - k pi_gen) Dirichlet(1)``; ``P_ij = alpha pi_j U_ij`` (``i != j``) with ``U``
    symmetric, entries uniform on (0, 1), ``alpha`` uniform on (0, 1), and ``P_ii = 1 - sum_j P_ij
    > 0``. Then ``pi_i P_ij = alpha pi_i pi_j U_ij`` is symmetric (reversible, stationary law
    ``pi``), every entry is positive (irreducible, aperiodic); draws are rejected unless both the
    paper's eigengap ``1 - |lambda_2(P)|`` (§4.3) and the authors' multi-state one
    ``(1 - |lambda_2(P P*)|)/2`` (``run_realData.m``; smaller for reversible ``P``) are ``>= g_gen``.
    Returns ``(P, q, tries)``.
    """
    if not 0 < pi_gen < 1 / k:
        raise ValueError(f"pi_gen = {pi_gen} must lie in (0, 1/k)")
    for tries in range(1, max_tries + 1):
        pi = pi_gen + (1 - k * pi_gen) * rng.dirichlet(np.ones(k))
        U = np.triu(rng.uniform(size=(k, k)), 1)
        U = U + U.T
        alpha = rng.uniform()
        P = alpha * U * pi[None, :]
        np.fill_diagonal(P, 0.0)
        np.fill_diagonal(P, 1.0 - P.sum(axis=1))
        if min(eigengap(P), authors_eigengap(P, "reversal")) >= g_gen:
            return P, rng.dirichlet(np.ones(k)), tries
    raise RuntimeError(f"no chain with eigengap >= {g_gen} in {max_tries} draws")


def sample_chain(rng: np.random.Generator, P, q, T: int) -> np.ndarray:
    """``X_1..X_T`` (states ``0..k-1``) of the chain started at ``q``."""
    cum = np.cumsum(np.asarray(P, dtype=float), axis=1)
    cum[:, -1] = 1.0
    rows = cum.tolist()
    u = rng.uniform(size=T).tolist()  # inverse CDF, one uniform per record
    x = [min(bisect.bisect_right(np.cumsum(q).tolist(), u[0]), len(q) - 1)]
    for t in range(1, T):
        x.append(bisect.bisect_right(rows[x[-1]], u[t]))
    return np.array(x, dtype=np.int64)


def frequencies(x, k: int) -> np.ndarray:
    """The histogram of states as frequencies (§5's ``F``)."""
    return np.bincount(np.asarray(x), minlength=k) / len(x)


# ------------------------------------------------------------------------------- mechanism


def mqm_sigma(pi_est: float, g_est: float, epsilon: float, T: int) -> float:
    """MQMApprox ``sigma_max`` for a 1-Lipschitz query (``k_findBest_2dir.m``)."""
    return mqm_release_sigma(pi_est, g_est, epsilon, T)


def private_histogram(rng: np.random.Generator, freq, sigma: float, T: int) -> np.ndarray:
    """``F + (2 sigma / T) Lap(1)`` per cell: the frequency histogram is 2/T-Lipschitz (§5)."""
    freq = np.asarray(freq, dtype=float)
    return freq + (2.0 * sigma / T) * rng.laplace(size=freq.shape)


def l1_error(private, exact) -> float:
    return float(np.sum(np.abs(np.asarray(private) - np.asarray(exact))))


# ------------------------------------------------------------------------------- experiment


def _cells(config: dict) -> list[dict]:
    """One cell per (panel, varied value, mechanism, ε); group DP (σ = T/ε, for any π_est, g_est)
    once per panel at its fixed T (in (c) at the largest T: its error 2k/ε does not depend on T)."""
    cells = []
    for panel, spec in config["panels"].items():
        for v in spec["values"]:
            par = {**spec["fixed"], spec["vary"]: v}
            for e in config["epsilons"]:
                cells.append(
                    {
                        "panel": panel,
                        "parameter": spec["vary"],
                        "value": v,
                        "mechanism": "markov-quilt-approx",
                        "pi_est": par["pi_est"],
                        "g_est": par["g_est"],
                        "T": int(par["T"]),
                        "epsilon": e,
                    }
                )
        T = spec["fixed"].get("T", max(spec["values"]))
        for e in config["epsilons"]:
            cells.append(
                {
                    "panel": panel,
                    "parameter": spec["vary"],
                    "value": math.nan,
                    "mechanism": "group-dp",
                    "pi_est": math.nan,
                    "g_est": math.nan,
                    "T": int(T),
                    "epsilon": e,
                }
            )
    for c in cells:
        c["sigma"] = (
            mqm_sigma(c["pi_est"], c["g_est"], c["epsilon"], c["T"])
            if c["mechanism"] != "group-dp"
            else c["T"] / c["epsilon"]
        )
    return cells


def l1_rows(config: dict | None = None, seed: int = SEED) -> tuple[list[dict], dict]:
    """Panels (a)-(c): rows (panel, parameter, value, mechanism, pi_est, g_est, T, epsilon, sigma,
    l1_error_mean, l1_error_se over runs, l1_error_expected = 2 k sigma / T, runs) and the chain.

    Seeds: ``seeds.node(seed).spawn(2)`` gives the chain's stream and the runs' root; run ``r``
    uses child ``r`` of the latter, split into one data stream (one sample per distinct T, in
    increasing T) and one noise stream per cell.
    """
    cfg = {**CONFIG, **(config or {})}
    k = cfg["k"]
    chain_ss, runs_ss = seeds.node(seed).spawn(2)
    P, q, tries = generate_chain(np.random.default_rng(chain_ss), k, cfg["pi_gen"], cfg["g_gen"])
    cells = _cells(cfg)
    Ts = sorted({c["T"] for c in cells})
    errors = np.zeros((len(cells), cfg["runs"]))
    for r, run_ss in enumerate(runs_ss.spawn(cfg["runs"])):
        data_ss, noise_ss = run_ss.spawn(2)
        freqs = {
            T: frequencies(sample_chain(np.random.default_rng(ss), P, q, T), k)
            for T, ss in zip(Ts, data_ss.spawn(len(Ts)))
        }
        for j, (c, ss) in enumerate(zip(cells, noise_ss.spawn(len(cells)))):
            f = freqs[c["T"]]
            errors[j, r] = l1_error(private_histogram(np.random.default_rng(ss), f, c["sigma"], c["T"]), f)
    n = cfg["runs"]
    rows = []
    for c, e in zip(cells, errors):
        rows.append(
            {
                **c,
                "l1_error_mean": float(e.mean()),
                "l1_error_se": float(e.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan,
                "l1_error_expected": 2 * k * c["sigma"] / c["T"],
                "runs": n,
            }
        )
    chain = {
        "P": P.tolist(),
        "q": q.tolist(),
        "generator_tries": tries,
        "pi_min": float(stationary(P).min()),
        "eigengap": eigengap(P),
        "eigengap_reversal": float(authors_eigengap(P, "reversal")),
        "reversible_error": float(np.abs(stationary(P)[:, None] * P - (stationary(P)[:, None] * P).T).max()),
    }
    return rows, chain


def bdpl_rows(P, q, T_values, epsilons, pi_est: float = 0.05, g_est: float = 0.1, log=None) -> list[dict]:
    """Panel (d): the exact BDPL over all adversaries of the MQM histogram release (counts +
    ``Lap(2 sigma)`` per cell, the same release as the frequencies' up to scale) and of the ε-DP
    Laplace histogram (``Lap(2/ε)``, L1 sensitivity 2), for each ``T`` in ``T_values``."""
    rows = []
    for T in T_values:
        t0 = time.perf_counter()
        sig = {e: mqm_sigma(pi_est, g_est, e, T) for e in epsilons}
        scales = [2 * sig[e] for e in epsilons] + [2 / e for e in epsilons]
        res = chain_histogram_bdpl(P, q, T, scales)
        dt = time.perf_counter() - t0
        for j, r in enumerate(res):
            e = epsilons[j % len(epsilons)]
            mqm = j < len(epsilons)
            rows.append(
                {
                    "panel": "d",
                    "parameter": "T",
                    "value": T,
                    "T": T,
                    "epsilon": e,
                    "mechanism": "markov-quilt-approx" if mqm else "laplace-dp",
                    "pi_est": pi_est if mqm else math.nan,
                    "g_est": g_est if mqm else math.nan,
                    "sigma": sig[e] if mqm else 1 / e,
                    "laplace_scale_counts": r.b,
                    "bdpl_exact": r.value,
                    "worst_window": f"L={r.L} R={r.R} left={r.left} right={r.right} x={r.x} x'={r.x_prime}",
                    "windows": r.windows,
                    "seconds": dt / len(res),
                }
            )
        if log:
            log(f"  exact BDPL T = {T}: {dt:.1f} s for {len(res)} scales")
    return rows


def figure_rows(config: dict | None = None, seed: int = SEED, log=None) -> tuple[list[dict], dict]:
    """All five panels' rows and the metadata extras (chain, timings); panel (e) only when
    ``config["audit"]`` is set (:func:`bdpsim.studies.pufferfish_audit.audit_rows`, seeded with
    ``seed``, its small-T exact values taken from panel (d) where there)."""
    cfg = {**CONFIG, **(config or {})}
    t0 = time.perf_counter()
    rows, chain = l1_rows(cfg, seed)
    t1 = time.perf_counter()
    if log:
        log(f"  panels (a)-(c): {t1 - t0:.1f} s")
    P, q = np.array(chain["P"]), np.array(chain["q"])
    d = bdpl_rows(P, q, cfg["exact_T"], cfg["epsilons"], log=log)
    rows += d
    t2 = time.perf_counter()
    extra = {"chain": chain, "config": cfg, "seconds_l1": t1 - t0, "seconds_exact": t2 - t1}
    if cfg.get("audit"):
        exact = {
            (r["T"], r["epsilon"]): r["bdpl_exact"] for r in d if r["mechanism"] == "markov-quilt-approx"
        }
        rows += audit_rows(P, q, cfg["audit"], seed=seed, exact=exact, sigma=mqm_sigma, log=log)
        extra["seconds_audit"] = time.perf_counter() - t2
    return rows, extra


def gallery_rows(ctx) -> list[dict]:
    """``compute(ctx)`` for the gallery (:class:`bdpsim.figures.gallery.Context`; ``ctx.quick``:
    :data:`QUICK`)."""
    return figure_rows(QUICK if ctx.quick else None, log=ctx.log)[0]


COLUMNS = [
    "panel",
    "parameter",
    "value",
    "mechanism",
    "pi_est",
    "g_est",
    "T",
    "epsilon",
    "sigma",
    "l1_error_mean",
    "l1_error_se",
    "l1_error_expected",
    "runs",
    "laplace_scale_counts",
    "bdpl_exact",
    "worst_window",
    "windows",
    "seconds",
    "bdpl_lower",
    "bdpl_audit",
    "bdpl_audit_se",
    "audit_calls",
    "audit_budget",
    "audit_alpha",
    "audit_exact",
    "audit_adversary",
    "audit_event",
    "audit_note",
    "bdpl_exact_windows",
    "window_n",
    "seconds_exact_windows",
]


def write_rows(rows: list[dict], stem, extra: dict, seed: int = SEED) -> list[Path]:
    """``stem.csv`` (the rows, :data:`COLUMNS`) and ``stem.json`` (config, seed, chain, package
    versions, git revision, time)."""
    from ..pipeline import results as R

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    full = [{c: r.get(c, math.nan) for c in COLUMNS} for r in rows]
    R.atomic_write_text(stem.with_suffix(".csv"), R.csv_text(full, COLUMNS))
    meta = R.metadata(
        "figure",
        config=extra.get("config"),
        seed=seed,
        figure=GALLERY_ENTRY["id"],
        source=GALLERY_ENTRY["source"],
        deviation=GALLERY_ENTRY["deviation"],
        **{k: v for k, v in extra.items() if k != "config"},
    )
    R.atomic_write_text(stem.with_suffix(".json"), R.dumps(meta))
    return [stem.with_suffix(".csv"), stem.with_suffix(".json")]
