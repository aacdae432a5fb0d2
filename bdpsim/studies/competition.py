"""The competition, measured: every way to protect a count on a Markov chain, under BDP.

For a chain, a length ``T`` and a target ``eps``, each method prescribes noise for the count of
state 1, and bdpsim computes the **exact BDPL over all adversaries** of what it prescribes:

* Laplace mechanisms ``count + Lap(b)`` — ``exact`` (the smallest eps-BDP scale), the bounds
  ``general``, ``markov``, ``zhao``, the Pufferfish mechanisms ``markov-quilt-approx``,
  ``markov-quilt-exact``, ``wasserstein`` and the ``group`` DP baseline
  (:data:`bdpsim.calibration.CALIBRATION_METHODS`); their BDPL by the window search
  (:func:`bdpsim.models.markov.window.window_search`, truncation tolerance :data:`SEARCH_TOLERANCE`).
* ``randomized-response``: Chakrabarti et al.'s flip probability for the symmetric chains
  (:mod:`bdpsim.mechanisms.randomized_response.mechanism`; not defined for the asymmetric activity chain);
  its exact
  BDPL by the window search over windows and outside compositions. Its noise is not Laplace:
  ``noise_std`` is the standard deviation of the debiased count's error and ``scale`` the Laplace
  scale with that standard deviation (``noise_std / sqrt 2``), flagged in ``scale_kind``.

``eps_bdp`` is 1 when the exact BDPL is at most ``eps`` (relative ``1e-9``), else 0.
``bdpl_no_knowledge`` is the leakage to the adversaries who know no record (``K = {}``), the
adversary of Pufferfish privacy with the secrets ``X_i = x``: a Pufferfish mechanism keeps it
below ``eps``; BDP's adversary may also know other records (``bdpl``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from ..calibration import CALIBRATION_METHODS, CalibrationProblem
from ..calibration.wasserstein import markov_laws
from ..core.errors import ConfigError
from ..kernels.chains.lattice import query_values
from ..kernels.chains.transition import ACTIVITY
from ..kernels.noise.laplace_mixture import mixture_sup
from ..mechanisms.randomized_response.core import flip_for_chain, rr_noise_std
from ..mechanisms.randomized_response.direct import rr_no_knowledge_bdpl
from ..mechanisms.randomized_response.window import rr_bdpl
from ..models import MarkovChainModel, symmetric_chain

SEARCH_TOLERANCE = 1e-10
EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
LENGTHS = (100, 288)
LAPLACE_METHODS = (
    "general",
    "group",
    "markov",
    "zhao",
    "markov-quilt-approx",
    "markov-quilt-exact",
    "wasserstein",
    "exact",
)
GUARANTEE = {
    "exact": "eps-BDP (exact search)",
    "general": "eps-BDP (general bound, m = T)",
    "group": "group DP, one group of T records",
    "markov": "eps-BDP (Markov bound)",
    "zhao": "eps-BDP (Zhao et al. bound)",
    "markov-quilt-approx": "eps-Pufferfish (MQMApprox)",
    "markov-quilt-exact": "eps-Pufferfish (MQMExact)",
    "wasserstein": "eps-Pufferfish (Wasserstein)",
    "randomized-response": "Chakrabarti et al.'s eps",
}


def competition_chains() -> list[tuple[str, np.ndarray]]:
    """``(label, P)``: the activity chain and thesis Fig. 15's symmetric chains, gamma = 3, 10."""
    return [
        ("activity", np.array(ACTIVITY)),
        ("gamma = 3", symmetric_chain(3.0)),
        ("gamma = 10", symmetric_chain(10.0)),
    ]


def laplace_no_knowledge_bdpl(laws: dict, scale: float) -> float:
    """``max_{i, x, x'} sup_y |ln p(y | X_i = x) / p(y | X_i = x')|`` of ``query + Lap(scale)``
    from the conditional laws of :func:`bdpsim.calibration.wasserstein.markov_laws` (exact Laplace-mixture
    sup)."""

    best = -math.inf
    targets = sorted({i for i, _ in laws})
    for i in targets:
        vals = sorted(x for (j, x) in laws if j == i)
        for a in range(len(vals)):
            for b in range(a + 1, len(vals)):
                (c1, w1), (c2, w2) = laws[i, vals[a]], laws[i, vals[b]]
                best = max(best, mixture_sup(c1, w1, c2, w2, scale).value)
    return best


def _row(
    chain,
    T,
    eps,
    method,
    mechanism,
    scale,
    std,
    bdpl,
    reason,
    scale_kind="laplace",
    seconds=math.nan,
    no_knowledge=None,
):
    ok = math.nan if bdpl is None or not math.isfinite(bdpl) else float(bdpl <= eps * (1 + 1e-9))
    return {
        "chain": chain,
        "T": T,
        "epsilon": float(eps),
        "method": method,
        "mechanism": mechanism,
        "guarantee": GUARANTEE.get(method, method),
        "scale": math.nan if scale is None else float(scale),
        "scale_kind": scale_kind,
        "noise_std": math.nan if std is None else float(std),
        "bdpl": math.nan if bdpl is None else float(bdpl),
        "eps_bdp": ok,
        "bdpl_no_knowledge": math.nan if no_knowledge is None else float(no_knowledge),
        "bdpl_over_eps": math.nan if bdpl is None else float(bdpl) / eps,
        "reason": reason,
        "seconds": seconds,
    }


def laplace_rows(
    label: str,
    P,
    T: int,
    epsilons: Sequence[float] = EPSILONS,
    methods: Sequence[str] = LAPLACE_METHODS,
    tolerance: float = SEARCH_TOLERANCE,
) -> list[dict]:
    """Every Laplace calibration of the count of state 1 and its exact BDPL (one shared cache of
    window searches per chain, so the exact search starts from the other methods' points)."""

    model = MarkovChainModel(P, T)
    f = query_values(model.states)
    laws = markov_laws(model, f)
    cache: dict = {}
    rows = []
    for eps in epsilons:
        problem = CalibrationProblem(model, f, float(eps), {"tolerance": tolerance}, cache)
        for m in methods:
            t0 = time.perf_counter()
            c = CALIBRATION_METHODS[m].calibrate(problem)
            std = None if c.scale is None else math.sqrt(2.0) * c.scale
            seconds = time.perf_counter() - t0
            nk = None if c.scale is None else laplace_no_knowledge_bdpl(laws, c.scale)
            rows.append(
                _row(
                    label,
                    T,
                    eps,
                    m,
                    "Laplace",
                    c.scale,
                    std,
                    c.bdpl,
                    c.reason,
                    seconds=seconds,
                    no_knowledge=nk,
                )
            )
    return rows


def rr_rows(label: str, P, T: int, epsilons: Sequence[float] = EPSILONS) -> list[dict]:
    """Chakrabarti et al.'s randomized response (debiased count) and its exact BDPL."""

    model = MarkovChainModel(P, T)
    rows = []
    for eps in epsilons:
        try:
            rho = flip_for_chain(model.transition, eps)
        except ConfigError:
            rows.append(
                _row(
                    label,
                    T,
                    eps,
                    "randomized-response",
                    "randomized response",
                    None,
                    None,
                    None,
                    "not applicable: Chakrabarti et al.'s flip probability is for symmetric "
                    "(lazy) binary chains",
                    "std-equivalent",
                )
            )
            continue
        t0 = time.perf_counter()
        res = rr_bdpl(model, rho)
        std = rr_noise_std(T, rho)
        w = res.worst
        rows.append(
            _row(
                label,
                T,
                eps,
                "randomized-response",
                "randomized response",
                std / math.sqrt(2.0),
                std,
                res.bdpl,
                f"flip probability rho = {rho:.6g} (switch t = {model.transition[0, 1]:.6g}); "
                f"worst adversary: target {w.i}, {len(w.known)} known records, output {w.z} ones",
                "std-equivalent",
                time.perf_counter() - t0,
                rr_no_knowledge_bdpl(model, rho),
            )
        )
    return rows


def _case(label, P, T, eps, methods, randomized_response):
    """One (chain, T, eps): Laplace rows and the randomized-response row (a joblib task)."""
    return (
        laplace_rows(label, P, T, [eps], methods),
        rr_rows(label, P, T, [eps]) if randomized_response else [],
    )


def competition_rows(
    chains: Sequence[tuple[str, np.ndarray]] | None = None,
    lengths: Sequence[int] = LENGTHS,
    epsilons: Sequence[float] = EPSILONS,
    methods: Sequence[str] = LAPLACE_METHODS,
    randomized_response: bool = True,
    log=None,
    jobs: int = 1,
) -> list[dict]:
    """The comparison table: one row per (chain, T, eps, method).

    ``jobs > 1`` runs the (chain, T, eps) cases in parallel processes (each case then calibrates
    exactly from its own methods' window searches instead of a cache shared across eps; the exact
    scales agree to the search's relative ``1e-9``).
    """
    chains = list(chains or competition_chains())
    rows = []
    if jobs > 1:
        from ..pipeline.backends import tasks

        cases = [(label, P, T, eps) for label, P in chains for T in lengths for eps in epsilons]
        out = list(
            tasks(
                _case, ((label, P, T, eps, methods, randomized_response) for label, P, T, eps in cases), jobs
            )
        )
        done = dict(zip([(c[0], c[2], c[3]) for c in cases], out, strict=True))
        for label, _ in chains:
            for T in lengths:
                rows += [r for eps in epsilons for r in done[label, T, eps][0]]
                rows += [r for eps in epsilons for r in done[label, T, eps][1]]
        return rows
    for label, P in chains:
        for T in lengths:
            t0 = time.perf_counter()
            rows += laplace_rows(label, P, T, epsilons, methods)
            if randomized_response:
                rows += rr_rows(label, P, T, epsilons)
            if log is not None:
                log(f"  {label}, T = {T}: {time.perf_counter() - t0:.1f} s")
    return rows


def not_eps_bdp(rows: Sequence[dict]) -> list[dict]:
    """The rows whose prescribed noise is not eps-BDP (exact BDPL > eps)."""
    return [r for r in rows if r["eps_bdp"] == 0.0]
