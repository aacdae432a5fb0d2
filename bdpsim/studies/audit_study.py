"""Studies of the black-box audit (``estimator = "audit"``): coverage on cases with exact values,
and the certified bound vs budget beside the thesis' KDE (the rows of the ``bdpsim-audit`` figure).

**Coverage** (:func:`coverage`). Each repeat is an independent configuration (its own seed: new
adversaries, new samples) run through the driver's own per-adversary task (``run_chunk``) and the
estimator's configuration-level certification; it counts whether the certified lower bound exceeds

* the exact BDPL of the adversary it certifies (``over_adversary``: the sharp test — at most
  ``alpha`` of the repeats plus binomial noise by construction),
* the exact BDPL of the whole configuration over every adversary (``over_configuration``),

and whether the point estimate lies within two of its standard errors of the exact log-ratio of
the certified event (:func:`exact_event_log_ratio`: what it estimates). Cases (:data:`CASES`): a
Laplace count, a geometric count and randomized response on the thesis' symmetric chain.

**Budget** (:func:`budget_rows`). The activity chain's Laplace count (exact BDPL 3.4749), the audit
at increasing budgets beside the KDE estimator run on the same window adversaries with the same
number of mechanism calls.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from ..adversary import Adversary
from ..estimators import AuditEstimator, KdeEstimator
from ..kernels.chains.transition import ACTIVITY as _ACTIVITY
from ..mechanisms import randomized_response_bdpl
from ..mechanisms.protocols import HasFlip
from ..mechanisms.randomized_response.core import debiased_count
from ..models.engines import HasWindowSearch
from ..pipeline.config import parse_config
from ..pipeline.driver import run_chunk, run_experiment
from ..queries import CountQuery, NoisyQuery

#: the coverage cases: a binary symmetric chain (thesis Fig. 14, gamma = 4), n = 6, every known size
CHAIN = {"kind": "markov", "n": 6, "gamma": 4.0}
CASES: dict[str, dict] = {
    "laplace count": {"kind": "count", "epsilon": 1.0},
    "geometric count": {"kind": "count", "epsilon": 1.0, "noise": "geometric"},
    "randomized response": {"kind": "randomized_response", "flip": 0.25},
}
ACTIVITY = [list(row) for row in _ACTIVITY]  # Lange's activity chain, as a config table


def _event_probability(atoms: np.ndarray, w: np.ndarray, noise, lo: float, hi: float) -> float:
    """``P(lo <= C + Z <= hi)`` for ``C ~ (atoms, w)`` and the noise law ``Z``."""
    upper = noise.cdf(hi - atoms)
    if not np.isfinite(lo):
        lower = 0.0
    elif noise.discrete:
        lower = noise.cdf(lo - atoms - noise.step / 2)
    else:
        lower = noise.cdf(lo - atoms)
    return float(w @ (upper - lower))


def _rr_probability(model, mech: HasFlip, known: dict, lo: float, hi: float) -> float:
    """``P(lo <= D <= hi)`` for the debiased flipped count ``D`` given ``known`` (binary chain)."""
    from scipy.stats import binom

    atoms, w = model.query_law(CountQuery((1,)), known)
    n, rho = model.n, mech.flip
    z = np.arange(n + 1)
    inside = (debiased_count(z, n, rho) >= lo) & (debiased_count(z, n, rho) <= hi)
    total = 0.0
    for c, p in zip(atoms.astype(int), w):  # Z = Bin(c, 1 - rho) + Bin(n - c, rho)
        law = np.convolve(
            binom.pmf(np.arange(c + 1), c, 1 - rho), binom.pmf(np.arange(n - c + 1), n - c, rho)
        )
        total += p * float(law[inside].sum())
    return total


def exact_event_log_ratio(model, mechanism, adversary: Adversary, event) -> float:
    """Exact ``ln P(S | x_K, x) / P(S | x_K, x')`` (or the reverse, as ``event.direction`` says) of a
    scalar-output event ``S = [lo, hi]``, for an additive query plus noise or randomized response on
    a model with exact query laws (:meth:`~bdpsim.models.MarkovChainModel.query_law`): the quantity
    the audit's point estimate estimates."""

    def prob(target) -> float:
        known = adversary.condition(target)
        if isinstance(mechanism, HasFlip):  # randomized response
            return _rr_probability(model, mechanism, known, event.lo, event.hi)
        if isinstance(mechanism, NoisyQuery):  # query + noise (Laplace or any other law)
            noise = mechanism.noise
        else:
            raise TypeError(f"no exact event probability for mechanism {mechanism.kind!r}")
        atoms, w = model.query_law(mechanism.query_function, known)
        return _event_probability(atoms, w, noise, event.lo, event.hi)

    p, q = prob(adversary.x), prob(adversary.x_prime)
    return math.log(p / q) if event.direction > 0 else math.log(q / p)


def _config(
    mechanism: dict,
    budget: int,
    adversaries: int,
    seed: int,
    model: dict | None = None,
    run: dict | None = None,
) -> dict:
    table = {
        "estimator": "audit",
        "adversaries": adversaries,
        "known_sizes": "all",
        "audit_budget": budget,
        "seed": seed,
        **(run or {}),
    }
    if table["estimator"] != AuditEstimator.name:  # the audit's own key: another estimator refuses it
        del table["audit_budget"]
    return {"run": table, "model": copy.deepcopy(model or CHAIN), "mechanism": dict(mechanism)}


def configuration_exact(mechanism: dict, model: dict | None = None) -> float:
    """The exact BDPL over every adversary: the window search of the point's exact engine, or
    :func:`~bdpsim.mechanisms.randomized_response_bdpl` for randomized response."""
    doc = {
        "run": {"estimator": "exact", "known_sizes": "all"},
        "model": copy.deepcopy(model or CHAIN),
        "mechanism": dict(mechanism),
    }
    point = parse_config(doc).points[0]
    mech, chain = point.mechanism, point.model.fixed
    if isinstance(mech, HasFlip):  # randomized response
        return float(randomized_response_bdpl(chain, mech.flip).bdpl)
    return float(np.max(cast(HasWindowSearch, point.exact_engine).window(0, 1)[2]))


def coverage(
    case: str,
    repeats: int = 200,
    budget: int = 40_000,
    adversaries: int = 8,
    alpha: float = 0.05,
    seed: int = 1000,
    log: Callable[[str], None] | None = None,
) -> tuple[dict, list[dict]]:
    """Repeat the audit of :data:`CASES` ``[case]`` ``repeats`` times (seeds ``seed + r``); returns
    the summary (counts and rates) and one row per repeat (see the module docstring)."""
    mech = CASES[case]
    config_exact = configuration_exact(mech)
    rows = []
    adv_over = adv_total = 0
    t0 = time.perf_counter()
    for r in range(repeats):
        cfg = parse_config(_config(mech, budget, adversaries, seed + r, run={"audit_alpha": alpha}))
        point = cfg.points[0]
        chunk = run_chunk(point, list(range(adversaries)))
        est = point.estimator()
        c = est.configuration_audit(point.finish_context(), chunk.stats)
        target = (
            exact_event_log_ratio(c.model, point.mechanism, c.adversary, c.event)
            if c.event is not None
            else math.nan
        )
        lo, ex = chunk.stats["bdpl_lower"], chunk.stats["exact"]
        adv_over += int(np.sum(lo > ex + 1e-12))
        adv_total += int(np.sum(np.isfinite(ex)))
        rows.append(
            {
                "case": case,
                "repeat": r,
                "seed": seed + r,
                "budget": budget,
                "calls": c.calls,
                "lower": c.lower,
                "estimate": c.estimate,
                "se": c.se,
                "event_log_ratio": target,
                "adversary_exact": c.exact,
                "configuration_exact": config_exact,
                "event": c.event.describe() if c.event is not None else "",
            }
        )
        if log and (r + 1) % 50 == 0:
            log(f"  {case}: {r + 1}/{repeats} repeats ({time.perf_counter() - t0:.0f} s)")
    from scipy.stats import binom

    over_adv = sum(r["lower"] > r["adversary_exact"] + 1e-12 for r in rows)
    over_cfg = sum(r["lower"] > r["configuration_exact"] + 1e-12 for r in rows)
    with_se = [r for r in rows if np.isfinite(r["se"]) and np.isfinite(r["event_log_ratio"])]
    within = sum(abs(r["estimate"] - r["event_log_ratio"]) <= 2 * r["se"] for r in with_se)
    allowed = int(binom.ppf(1 - 1e-3, repeats, alpha))
    summary = {
        "case": case,
        "repeats": repeats,
        "budget": budget,
        "adversaries": adversaries,
        "alpha": alpha,
        "configuration_exact": config_exact,
        "over_adversary": int(over_adv),
        "over_configuration": int(over_cfg),
        "allowed_over": allowed,
        "within_2se": int(within),
        "with_se": len(with_se),
        "within_2se_rate": within / len(with_se) if with_se else math.nan,
        "per_adversary_over": adv_over,
        "per_adversary_total": adv_total,
        "mean_lower": float(np.mean([r["lower"] for r in rows])),
        "mean_adversary_exact": float(np.nanmean([r["adversary_exact"] for r in rows])),
        "seconds": time.perf_counter() - t0,
    }
    return summary, rows


def budget_rows(
    budgets: Sequence[float] = (1e5, 1e6, 1e7, 1e8),
    adversaries: int = 40,
    n: int = 288,
    kde_samples: Sequence[int] = (10_000, 100_000),
    seed: int = 1,
    jobs: int = 1,
    out=None,
    log: Callable[[str], None] | None = None,
) -> list[dict]:
    """Rows of the ``bdpsim-audit`` figure: the audit (``bdpl_lower``, ``bdpl_audit`` ± se) of the
    activity chain's Laplace count at each budget, with the exact BDPL, and the KDE estimator's 99th
    percentile and maximum over the same window adversaries at ``kde_samples`` per condition
    (``2 * adversaries * samples`` mechanism calls)."""
    import tempfile
    from pathlib import Path

    from ..estimators.supremum import exact_bdpl
    from ..mechanisms import LaplaceCount
    from ..models import MarkovChainModel

    model = {"kind": "markov", "n": n, "transition": ACTIVITY}
    mech = {"kind": "count", "epsilon": 1.0}
    exact = exact_bdpl(MarkovChainModel(ACTIVITY, n), LaplaceCount(1.0)).bdpl  # the pair's engine
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(out) if out is not None else Path(tmp)
        for b in budgets:
            doc = _config(
                mech,
                int(b),
                adversaries,
                seed,
                model,
                run={"adversary_family": "windows", "exact_reference": False, "adversary_rows": 5},
            )
            t = time.perf_counter()
            r = run_experiment(parse_config(doc), root / f"audit-{int(b)}", jobs=jobs, progress=False)[0]
            rows.append(
                {
                    "estimator": AuditEstimator.name,
                    "calls": int(r["audit_calls"]),
                    "budget": int(b),
                    "lower": r["bdpl_lower"],
                    "estimate": r["bdpl_audit"],
                    "se": r["bdpl_audit_se"],
                    "value": r["bdpl_audit"],
                    "bdpl_exact": exact,
                    "n": n,
                    "adversaries": adversaries,
                    "seconds": time.perf_counter() - t,
                }
            )
            if log:
                log(f"  audit {b:.0e}: lower {r['bdpl_lower']:.3f}, estimate {r['bdpl_audit']:.3f}")
        for s in kde_samples:
            doc = _config(
                mech,
                0,
                adversaries,
                seed,
                model,
                run={
                    "adversary_family": "windows",
                    "estimator": "kde",
                    "samples": int(s),
                    "exact_reference": False,
                    "noise_floor_adversaries": 0,
                    "sampling": "data",
                    "adversary_rows": 5,
                },
            )
            t = time.perf_counter()
            r = run_experiment(parse_config(doc), root / f"kde-{int(s)}", jobs=jobs, progress=False)[0]
            calls = 2 * adversaries * int(s)
            rows.append(
                {
                    "estimator": KdeEstimator.name,
                    "calls": calls,
                    "budget": calls,
                    "lower": math.nan,
                    "estimate": r["bdpl_p99"],
                    "se": math.nan,
                    "value": r["bdpl_max"],
                    "bdpl_exact": exact,
                    "n": n,
                    "adversaries": adversaries,
                    "seconds": time.perf_counter() - t,
                }
            )
            if log:
                log(f"  kde {s}: p99 {r['bdpl_p99']:.3f}, max {r['bdpl_max']:.3f}")
    return rows
