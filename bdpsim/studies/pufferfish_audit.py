"""Panel (e) of the ``pufferfish-fig2`` figure (:mod:`bdpsim.studies.pufferfish_fig2`): the BDPL of
the Markov Quilt mechanism's histogram release at the figure's own ``T = 5000`` under BDP's
adversary, where the exact value over all adversaries is out of reach.

The release is the one of panels (a)-(c): counts ``+ Lap(2 sigma)`` per cell with ``sigma`` =
MQMApprox(``pi_est = 0.05``, ``g_est = 0.1``, ε, ``T``) — bdpsim's ``[mechanism] kind =
"histogram"`` with ``epsilon = 1 / sigma`` (its scale is ``2 / epsilon``) — on the figure's 5-state
chain ``(P, q)`` as ``[model] kind = "markov"`` with ``n = T``. Two numbers per ε:

* **certified 95 % lower bound** (``bdpl_lower``): bdpsim's black-box audit (``estimator = "audit"``,
  :mod:`bdpsim.estimators.audit`) over ``adversaries`` window adversaries (``run.adversary_family =
  "windows"``: a target, up to ``h`` unknown records each side, everything else known with values
  drawn from the chain — where the worst adversary of a chain is), ``audit_budget`` mechanism calls,
  ``audit_alpha = 0.05``; it holds for the configuration's BDPL at level 95 % as a whole. Its point
  estimate ``bdpl_audit`` ± ``bdpl_audit_se`` is the certified event's log-ratio;
* **exact BDPL of a sub-family** (``bdpl_exact_windows``): the exact supremum over every adversary
  whose unknown records form a window of at most ``window_n - 1`` records with at least one known
  record beside it (:func:`~bdpsim.kernels.chains.histogram_sup.chain_histogram_bdpl` on a chain of
  ``window_n`` records, ``min_known = 1``). Given its known boundary value(s) such a window's law
  does not depend on the records beyond (Markov property), and the known records' counts only shift
  the release (the noise is translation invariant), so each of these adversaries exists with the
  same BDPL at every ``T >= window_n``: a deterministic lower bound on the BDPL at ``T = 5000``.

**Honesty check.** The same audit runs at a small ``T`` (8; 5 with ``--quick``) where panel (d) has
the exact BDPL over all adversaries (``bdpl_exact``): the certified bound must lie below it (it
does, with probability at least 95 % per configuration by construction).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..calibration.quilt.chain import mqm_approx_search
from ..kernels.chains.histogram_sup import chain_histogram_bdpl
from ..pipeline.config import parse_config
from ..pipeline.driver import run_chunk

MECHANISM = "markov-quilt-approx (audit lower bound)"

#: full fidelity: ~1 min of one core per ε at T = 5000 (1e6 calls of a 5000-record chain), ~45 s
#: for the exact window sub-family (window_n = 9), a few seconds per ε at the small T
AUDIT = {
    "T": 5000,
    "small_T": 8,
    "epsilons": [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0],
    "budget": 1_000_000,
    "small_budget": 1_000_000,
    "adversaries": 24,
    "alpha": 0.05,
    "window_n": 9,
    "pi_est": 0.05,
    "g_est": 0.1,
    "chunk": 2000,
}
QUICK_AUDIT = {
    **AUDIT,
    "small_T": 5,
    "epsilons": [2.0, 10.0],
    "budget": 200_000,
    "small_budget": 200_000,
    "adversaries": 8,
    "window_n": 6,
}


def audit_document(
    P, q, T: int, sigma: float, budget: int, adversaries: int, alpha: float, seed: int, chunk: int = 2000
) -> dict:
    """The bdpsim config of one audit: the chain ``(P, q)`` with ``n = T``, the histogram with
    ``Lap(2 sigma)`` per count (``epsilon = 1 / sigma``), window adversaries."""
    return {
        "run": {
            "estimator": "audit",
            "adversaries": int(adversaries),
            "known_sizes": "all",
            "adversary_family": "windows",
            "audit_budget": int(budget),
            "audit_alpha": float(alpha),
            "seed": int(seed),
            "chunk": int(chunk),
            "exact_reference": T <= 12,
            "adversary_rows": 5,
        },
        "model": {
            "kind": "markov",
            "n": int(T),
            "transition": np.asarray(P, dtype=float).tolist(),
            "initial": np.asarray(q, dtype=float).tolist(),
        },
        "mechanism": {"kind": "histogram", "epsilon": 1.0 / float(sigma)},
    }


def describe_adversary(adv, n: int) -> str:
    """``i=.. L=.. R=.. left=.. right=.. x=.. x'=..``: the window of unknown records around the
    target and its boundary values (``start``/``end``: the chain's ends)."""
    if adv is None:
        return ""
    known = dict(zip(adv.known, adv.x_known))
    unknown = [j for j in range(n) if j not in known]
    lo, hi = min(unknown), max(unknown)
    left = known.get(lo - 1, "start") if lo > 0 else "start"
    right = known.get(hi + 1, "end") if hi < n - 1 else "end"
    return f"i={adv.i} L={adv.i - lo} R={hi - adv.i} left={left} right={right} x={adv.x} x'={adv.x_prime}"


def run_audit(
    P, q, T: int, sigma: float, budget: int, adversaries: int, alpha: float, seed: int, chunk: int = 2000
) -> dict:
    """One configuration's audit, in process: the driver's per-adversary task (``run_chunk``) and
    the estimator's configuration-level certification (what ``run_experiment`` writes to
    ``summary.csv``); returns the row cells."""
    t0 = time.perf_counter()
    point = parse_config(audit_document(P, q, T, sigma, budget, adversaries, alpha, seed, chunk)).points[0]
    chunk_result = run_chunk(point, list(range(adversaries)))
    c = point.estimator().configuration_audit(point.finish_context(), chunk_result.stats)
    return {
        "bdpl_lower": c.lower,
        "bdpl_audit": c.estimate,
        "bdpl_audit_se": c.se,
        "audit_calls": c.calls,
        "audit_budget": int(budget),
        "audit_alpha": alpha,
        "audit_exact": c.exact,
        "audit_adversary": describe_adversary(c.adversary, T),
        "audit_event": c.event.describe() if c.event is not None else "",
        "audit_note": c.note,
        "windows": adversaries,
        "seconds": time.perf_counter() - t0,
    }


def window_exact(P, q, window_n: int, scales) -> tuple[list, float]:
    """Exact BDPL over the window adversaries of at most ``window_n - 1`` unknown records (module
    docstring), one result per Laplace scale, and the seconds taken."""
    t0 = time.perf_counter()
    res = chain_histogram_bdpl(P, q, int(window_n), list(scales), min_known=1)
    return res, time.perf_counter() - t0


def mqm_release_sigma(pi_est: float, g_est: float, epsilon: float, T: int) -> float:
    """MQMApprox ``sigma_max`` (as :func:`bdpsim.studies.pufferfish_fig2.mqm_sigma`)."""
    return float(mqm_approx_search(pi_est, g_est, epsilon, int(T)).sigma)


def audit_rows(
    P,
    q,
    config: dict | None = None,
    seed: int = 20160313,
    exact: dict | None = None,
    sigma: Callable[[float, float, float, int], float] | None = None,
    log: Callable[[str], None] | None = None,
) -> list[dict]:
    """Rows of panel (e) (``panel = "e"``, ``mechanism =`` :data:`MECHANISM`): per ε of
    ``config["epsilons"]`` one row at ``T = config["T"]`` (with ``bdpl_exact_windows``) and one at
    ``config["small_T"]`` (with ``bdpl_exact``: from ``exact[(T, ε)]`` when given, e.g. panel (d)'s
    rows, else computed). ``sigma(pi_est, g_est, ε, T)`` defaults to
    :func:`bdpsim.studies.pufferfish_fig2.mqm_sigma`."""
    if sigma is None:
        sigma = mqm_release_sigma
    cfg = {**AUDIT, **(config or {})}
    P, q = np.asarray(P, dtype=float), np.asarray(q, dtype=float)
    pi_est, g_est, eps_list = cfg["pi_est"], cfg["g_est"], list(cfg["epsilons"])
    exact = dict(exact or {})
    rows = []
    T, Ts = int(cfg["T"]), int(cfg["small_T"])
    sig = {e: sigma(pi_est, g_est, e, T) for e in eps_list}
    wres, wsec = window_exact(P, q, cfg["window_n"], [2 * sig[e] for e in eps_list])
    if log:
        log(f"  exact BDPL over windows of <= {cfg['window_n'] - 1} unknowns (T = {T}): {wsec:.1f} s")
    sig_small = {e: sigma(pi_est, g_est, e, Ts) for e in eps_list}
    missing = [e for e in eps_list if (Ts, e) not in exact]
    if missing:
        for e, r in zip(missing, chain_histogram_bdpl(P, q, Ts, [2 * sig_small[e] for e in missing])):
            exact[(Ts, e)] = r.value
    base = {"panel": "e", "parameter": "epsilon", "mechanism": MECHANISM, "pi_est": pi_est, "g_est": g_est}
    for e, w in zip(eps_list, wres):
        for t, s, budget in ((T, sig[e], cfg["budget"]), (Ts, sig_small[e], cfg["small_budget"])):
            a = run_audit(P, q, t, s, budget, cfg["adversaries"], cfg["alpha"], seed, cfg["chunk"])
            row = {**base, "value": e, "T": t, "epsilon": e, "sigma": s, "laplace_scale_counts": 2 * s, **a}
            if t == T:
                row.update(
                    bdpl_exact_windows=w.value,
                    window_n=int(cfg["window_n"]),
                    worst_window=f"L={w.L} R={w.R} left={w.left} right={w.right} x={w.x} x'={w.x_prime}",
                    seconds_exact_windows=wsec / len(eps_list),
                )
            else:
                row["bdpl_exact"] = exact[(t, e)]
            rows.append(row)
            if log:
                log(
                    f"  audit T = {t}, ε = {e:g}, σ = {s:.4g}: lower {a['bdpl_lower']:.4f}, estimate "
                    f"{a['bdpl_audit']:.4f} ± {a['bdpl_audit_se']:.4f}, {a['audit_calls']} calls, "
                    f"{a['seconds']:.1f} s"
                )
    return rows
