"""The utility frontier: E|Z| of the optimal integer noise vs eps, beside the calibrated
Laplace, geometric and staircase noises and the Markov Quilt mechanism, for a count on a chain.

Rows (one CSV, ``kind`` tells them apart):

* ``kind = "frontier"``: ``chain, n, epsilon, method, noise, mean_abs, bdpl, seconds`` — ``optimal``
  (:func:`bdpsim.calibration.optimal.optimal_noise`, verified by the exact engine), ``exact`` with
  ``laplace``, ``geometric`` and ``staircase`` noise (the least amount of each that is eps-BDP), and
  ``markov-quilt-exact`` (Laplace, its scale for eps-Pufferfish; its exact BDPL is reported too);
  One block per chain of :data:`CHAINS`: the activity data's fitted chain (one day, n = 288) and the
  paper's three Electricity chains (:data:`ELECTRICITY`, n = :data:`ELECTRICITY_N` days);
* ``kind = "pmf"``: ``chain, n, epsilon, k, p_optimal, p_geometric`` — the optimal pmf and the
  calibrated geometric pmf at each integer ``k`` (tails included) for the eps in ``pmf_epsilons``.

``scripts/findings/frontier.py`` writes them to ``results/figures/bdpsim-frontier.csv`` and the findings table
``docs/generated/frontier.md``; the ``bdpsim-frontier`` figure draws them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from ..calibration import calibrate
from ..calibration.optimal import optimal_noise
from ..calibration.target import exact_laws
from ..kernels.chains.transition import ACTIVITY
from ..kernels.noise.laws import GeometricNoise
from ..models import MarkovChainModel

EPSILONS = (0.5, 1.0, 2.0, 4.0)


def _rows_normalised(P) -> tuple:
    """``P`` with each row divided by its sum (the paper prints 3 decimals: 0.149 + 0.850 = 0.999)."""
    return tuple(tuple(float(x) / sum(row) for x in row) for row in P)


#: the paper's printed Electricity chains (§7.1.2: AMPds, one state per day, high = above 70/80/90 kWh),
#: rows normalised; Electricity_P.csv has no pinned download, so the printed matrices stand in for a fit
ELECTRICITY = {
    70: _rows_normalised(((0.445, 0.555), (0.149, 0.850))),
    80: _rows_normalised(((0.818, 0.182), (0.371, 0.629))),
    90: _rows_normalised(((0.894, 0.106), (0.478, 0.522))),
}
#: the paper's n for the Electricity data (Table 3: 731 days of AMPds); the activity day is n = 288.
#: Measured (2-core machine, shared): one optimal LP at n = 731, eps = 1 takes ~8 s, every method ~15 s
ELECTRICITY_N = 731
CHAINS = (
    ("activity", ACTIVITY, 288),
    *((f"electricity-{t}kWh", P, ELECTRICITY_N) for t, P in ELECTRICITY.items()),
)
#: the laws whose least eps-BDP amount each row computes: every law an exact calibration takes
LAWS = exact_laws()


def frontier_rows(
    chains=CHAINS,
    epsilons: Sequence[float] = EPSILONS,
    pmf_epsilons: Sequence[float] = (1.0,),
    pmf_range: int = 25,
    log: Callable[[str], None] = lambda m: None,
) -> list[dict]:
    """The frontier and pmf rows (module docstring) for each ``(label, P, n)`` and eps."""
    rows = []
    for label, P, n in chains:
        model = MarkovChainModel(np.array(P, dtype=float), int(n))
        for eps in epsilons:
            base = {"kind": "frontier", "chain": label, "n": int(n), "epsilon": float(eps)}
            t0 = time.perf_counter()
            opt = optimal_noise(model, float(eps), [0.0, 1.0])
            rows.append(
                {
                    **base,
                    "method": "optimal",
                    "noise": "table",
                    "mean_abs": opt.mean_abs,
                    "bdpl": opt.bdpl,
                    "seconds": time.perf_counter() - t0,
                }
            )
            log(f"{label} n={n} eps={eps}: optimal E|Z| = {opt.mean_abs:.4f} ({rows[-1]['seconds']:.0f} s)")
            geo = None
            for law in LAWS:
                t0 = time.perf_counter()
                c = calibrate(model, float(eps), noise=law)
                rows.append(
                    {
                        **base,
                        "method": "exact",
                        "noise": law,
                        "mean_abs": c.mean_abs,
                        "bdpl": c.bdpl,
                        "seconds": time.perf_counter() - t0,
                    }
                )
                if law == "geometric":
                    geo = GeometricNoise(cast(float, c.parameter))  # a calibrated law's parameter
                log(f"  exact {law}: E|Z| = {c.mean_abs:.4f}")
            t0 = time.perf_counter()
            q = calibrate(model, float(eps), method="markov-quilt-exact")
            rows.append(
                {
                    **base,
                    "method": "markov-quilt-exact",
                    "noise": "laplace",
                    "mean_abs": q.mean_abs,
                    "bdpl": q.bdpl,
                    "seconds": time.perf_counter() - t0,
                }
            )
            if any(math.isclose(eps, e) for e in pmf_epsilons):
                k = np.arange(-pmf_range, pmf_range + 1)
                geometric = cast(GeometricNoise, geo)  # set: the geometric law is calibrated above
                po, pg = opt.noise.pmf_at(k), np.exp(geometric.log_density(k.astype(float)))
                rows += [
                    {
                        "kind": "pmf",
                        "chain": label,
                        "n": int(n),
                        "epsilon": float(eps),
                        "k": int(a),
                        "p_optimal": float(b),
                        "p_geometric": float(g),
                    }
                    for a, b, g in zip(k, po, pg, strict=True)
                ]
    return rows


def findings_table(rows: list[dict]) -> str:
    """Markdown: per chain and eps, E|Z| of each noise and its ratio to the optimal (the limit)."""
    fr = [r for r in rows if r["kind"] == "frontier"]
    cols = [
        ("exact", "laplace", "Laplace"),
        ("exact", "geometric", "geometric"),
        ("exact", "staircase", "staircase"),
        ("markov-quilt-exact", "laplace", "Markov Quilt (Laplace)"),
    ]
    head = (
        "| chain | n | ε | optimal E\\|Z\\| | "
        + " | ".join(f"{name} E\\|Z\\| (× optimal)" for _, _, name in cols)
        + " | optimal's exact BDPL |"
    )
    out = [head, "|" + "---|" * (5 + len(cols))]
    keys = sorted({(r["chain"], int(r["n"]), float(r["epsilon"])) for r in fr})
    for chain, n, eps in keys:
        at = {
            (r["method"], r["noise"]): r
            for r in fr
            if (r["chain"], int(r["n"]), float(r["epsilon"])) == (chain, n, eps)
        }
        best = float(at[("optimal", "table")]["mean_abs"])
        cells = []
        for m, law, _ in cols:
            v = at.get((m, law), {}).get("mean_abs")
            cells.append(
                "n/a"
                if v in (None, "") or not math.isfinite(float(v))
                else f"{float(v):.4f} ({float(v) / best:.3f})"
            )
        out.append(
            f"| {chain} | {n} | {eps:g} | {best:.4f} | "
            + " | ".join(cells)
            + f" | {float(at[('optimal', 'table')]['bdpl']):.10f} |"
        )
    return "\n".join(out) + "\n"
