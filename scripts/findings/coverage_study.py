"""Coverage of the mixture estimator's per-adversary confidence intervals.

For each cell of a grid — Markov chains with 2–4 states (n from 6 to 100) and a Bayesian network,
eps in {0.5, 1, 2, 3, 5}, a count and a sum of per-state values, random and window adversaries —
run the mixture estimator on ``--adversaries`` adversaries *from the samples alone*
(``mixture_exact_law = "never"``: the exact-law fallback would cover trivially) and record the
fraction of adversaries whose interval ``[bdpl_ci_low, bdpl_ci_high]`` covers the exact value,
the median width, and whether the summary's p99 interval contains the exact p99. A cell passes
when its coverage is at least ``confidence - 3 sd`` (binomial sd of the cell's adversary count).

``--kde`` runs the thesis' KDE (faithful defaults, 100 adversaries × 10^5 samples) on four chains
and counts its estimates above and below the exact values of the same adversaries.

``--issue`` runs issue 25's two hard cases (3-state chain, n = 50, eps = 2; 4-state chain,
n = 40, eps = 3; 200 adversaries) with the default settings (exact-law fallback) and from the
samples alone.

Output: ``results/coverage/coverage.csv`` (``issue.csv`` for ``--issue``) and the markdown table
``results/coverage/coverage.md`` generated from them (``--table`` regenerates it from the CSVs;
``tests/estimators/test_intervals.py`` checks it is current). Writing into a directory that holds committed
files (the default ``--out``) needs ``--overwrite``.

    python scripts/findings/coverage_study.py             # the committed grid (47 min of wall time in two
                                                          # processes on a shared 2-core machine at load ~16)
    python scripts/findings/coverage_study.py --issue     # the issue's two cases (~1 min)
    python scripts/findings/coverage_study.py --kde       # the KDE against exact values (~3 min)
    python scripts/findings/coverage_study.py --networks  # random networks, mixed state counts (networks.csv)
    python scripts/findings/coverage_study.py --gauss     # Gaussian clipped sums vs a long run (gauss.csv)
    python scripts/findings/coverage_study.py --table     # rewrite coverage.md from the CSVs
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import tempfile
import time
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # script_out.py, shared by every folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from script_out import add_overwrite, refuse_committed  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "results" / "coverage"

CHAINS = {
    "sym2": [[0.75, 0.25], [0.25, 0.75]],  # thesis Fig. 14 chain, gamma = 3
    "issue3": [[0.7, 0.2, 0.1], [0.15, 0.7, 0.15], [0.1, 0.3, 0.6]],  # issue 25's 3-state chain
    "four4": [[0.6, 0.2, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1], [0.1, 0.1, 0.6, 0.2], [0.2, 0.1, 0.1, 0.6]],
}
STATE_VALUES = {2: [0.0, 2.0], 3: [0.0, 1.0, 3.0], 4: [0.0, 1.0, 2.0, 4.0]}
NETWORK = {
    "kind": "bayesnet",
    "states": 2,
    "parents": [[], [0], [0], [1, 2], [3]],
    "cpt": [
        [0.6, 0.4],
        [[0.8, 0.2], [0.3, 0.7]],
        [[0.9, 0.1], [0.25, 0.75]],
        [[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]],
        [[0.85, 0.15], [0.2, 0.8]],
    ],
}
EPSILONS = (0.5, 1.0, 2.0, 3.0, 5.0)
GRID_N = {"sym2": (6, 20, 100), "issue3": (10, 50), "four4": (8, 40)}
ISSUE = (("issue3", 50, 2.0), ("four4", 40, 3.0))
KDE_CASES = (
    ("sym2-gamma3", CHAINS["sym2"], 6, 1.0),
    ("sym2-gamma8", [[8 / 9, 1 / 9], [1 / 9, 8 / 9]], 6, 1.0),
    ("issue3", CHAINS["issue3"], 50, 2.0),
    ("four4", CHAINS["four4"], 40, 3.0),
)
KDE_FIELDS = [
    "case",
    "n",
    "epsilon",
    "adversaries",
    "samples",
    "kde_p99",
    "exact_p99",
    "error_mean",
    "above_n",
    "below_n",
    "error_min",
    "error_max",
    "seconds",
]
#: random Bayesian networks with mixed cardinalities (2-4 states per node, up to 2 parents each)
NET_CASES = (("net6-mixed", 6, 11), ("net9-mixed", 9, 12), ("net12-mixed", 12, 13))
NET_EPSILONS = EPSILONS
#: Gaussian records, clipped sum [0, 10] (no exact engine): a short run's DKW interval against a long
#: reference run of the same adversaries (same population: the sample size is not part of its key)
GAUSS_CASES = (("gauss-n3", 3, 0.3), ("gauss-n5", 5, 0.2))
GAUSS_SHORT, GAUSS_REFERENCE, GAUSS_ADVERSARIES = 20_000, 1_000_000, 100
GAUSS_FIELDS = [
    "case",
    "n",
    "rho",
    "epsilon",
    "adversaries",
    "samples",
    "reference_samples",
    "confidence",
    "coverage",
    "coverage_required",
    "passes",
    "width_median",
    "reference_width_median",
    "error_max",
    "reference_p99",
    "seconds",
]
FIELDS = [
    "cell",
    "model",
    "states",
    "n",
    "epsilon",
    "query",
    "family",
    "mode",
    "adversaries",
    "confidence",
    "coverage",
    "coverage_required",
    "passes",
    "width_median",
    "width_max",
    "width_target_missed",
    "exact_law_n",
    "bdpl_p99",
    "bdpl_exact_p99",
    "bdpl_p99_ci_low",
    "bdpl_p99_ci_high",
    "p99_contained",
    "samples_max",
    "seconds",
]


def config(
    model: dict,
    query: str,
    states: int,
    eps: float,
    family: str,
    adversaries: int,
    mode: str,
    seed: int,
    max_samples: int,
) -> dict:
    mech = (
        {"kind": "count", "epsilon": eps, "counted_states": [1]}
        if query == "count"
        else {"kind": "sum", "epsilon": eps, "state_values": STATE_VALUES[states]}
    )
    return {
        "run": {
            "seed": seed,
            "adversaries": adversaries,
            "samples": 20_000,
            "estimator": "mixture",
            "known_sizes": "all",
            "noise_floor_adversaries": 0,
            "adversary_family": family,
            "mixture_exact_law": mode,
            "mixture_max_samples": max_samples,
        },
        "model": model,
        "mechanism": mech,
    }


def run_cell(
    name: str,
    model: dict,
    states: int,
    n: int,
    eps: float,
    query: str,
    family: str,
    mode: str,
    adversaries: int,
    seed: int,
    max_samples: int,
) -> dict:
    import bdpsim

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        doc = config(model, query, states, eps, family, adversaries, mode, seed, max_samples)
        summ = bdpsim.run(doc, tmp).iloc[0]
        adv = bdpsim.load_adversaries(tmp)
    conf = 0.95
    tol = 1e-9
    covered = (adv.bdpl_ci_low <= adv.exact + tol) & (adv.exact <= adv.bdpl_ci_high + tol)
    width = adv.bdpl_ci_high - adv.bdpl_ci_low
    A = len(adv)
    need = conf - 3 * math.sqrt(conf * (1 - conf) / A)
    ex, lo, hi = (
        float(summ["bdpl_exact_p99"]),
        float(summ["bdpl_p99_ci_low"]),
        float(summ["bdpl_p99_ci_high"]),
    )
    return {
        "cell": name,
        "model": "bayesnet" if model["kind"] == "bayesnet" else "markov",
        "states": states,
        "n": n,
        "epsilon": eps,
        "query": query,
        "family": family,
        "mode": mode,
        "adversaries": A,
        "confidence": conf,
        "coverage": round(float(covered.mean()), 4),
        "coverage_required": round(need, 4),
        "passes": bool(covered.mean() >= need),
        "width_median": round(float(width.median()), 4),
        "width_max": round(float(width.max()), 4),
        "width_target_missed": int(summ["width_target_missed"]),
        "exact_law_n": int(summ["exact_law_n"]),
        "bdpl_p99": round(float(summ["bdpl_p99"]), 4),
        "bdpl_exact_p99": round(ex, 4),
        "bdpl_p99_ci_low": round(lo, 4),
        "bdpl_p99_ci_high": round(hi, 4) if math.isfinite(hi) else "inf",
        "p99_contained": bool(lo - tol <= ex <= hi + tol),
        "samples_max": int(summ["samples_max"]),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def run_kde(name: str, T, n: int, eps: float, adversaries: int, samples: int) -> dict:
    """The thesis' KDE estimator (faithful defaults) against the exact one-sided values of the same
    adversaries: how often, and by how much, it lies above and below them."""
    import bdpsim

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        doc = {
            "run": {
                "seed": 1,
                "adversaries": adversaries,
                "samples": samples,
                "estimator": "kde",
                "noise_floor_adversaries": 0,
            },
            "model": {"kind": "markov", "n": n, "transition": T},
            "mechanism": {"kind": "count", "epsilon": eps, "counted_states": [1]},
        }
        summ = bdpsim.run(doc, tmp).iloc[0]
        adv = bdpsim.load_adversaries(tmp)
    err = adv.bdpl - adv.exact
    return {
        "case": name,
        "n": n,
        "epsilon": eps,
        "adversaries": len(adv),
        "samples": samples,
        "kde_p99": round(float(summ["bdpl_p99"]), 3),
        "exact_p99": round(float(summ["bdpl_exact_p99"]), 3),
        "error_mean": round(float(err.mean()), 3),
        "above_n": int(summ["kde_above_n"]),
        "below_n": int(summ["kde_below_n"]),
        "error_min": round(float(err.min()), 3),
        "error_max": round(float(err.max()), 3),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def random_network(nodes: int, seed: int) -> dict:
    """A random Bayesian network: node ``j`` has 2-4 states and up to two parents among the earlier
    nodes; each conditional law is Dirichlet(1) (fixed ``seed``: the committed cells are reproducible)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    states = [int(c) for c in rng.integers(2, 5, size=nodes)]
    parents, cpt = [], []
    for j in range(nodes):
        ps = (
            sorted(int(p) for p in rng.choice(j, size=min(j, int(rng.integers(0, 3))), replace=False))
            if j
            else []
        )
        laws = rng.dirichlet(np.ones(states[j]), size=[states[p] for p in ps] or None)
        parents.append(ps)
        cpt.append(np.round(laws / laws.sum(axis=-1, keepdims=True), 12).tolist())
    return {"kind": "bayesnet", "states": states, "parents": parents, "cpt": cpt}


def network_cells():
    for name, nodes, seed in NET_CASES:
        for e in NET_EPSILONS:
            yield (name, random_network(nodes, seed), 4, nodes, e, "count", "random")


def run_gauss(name: str, n: int, rho: float, eps: float = 1.0) -> dict:
    """Coverage of a long mixture reference run's values by the short run's DKW intervals of the same
    adversaries (Gaussian records, no exact engine)."""
    import bdpsim

    t0 = time.perf_counter()
    vals = {}
    for samples in (GAUSS_SHORT, GAUSS_REFERENCE):
        with tempfile.TemporaryDirectory() as tmp:
            doc = {
                "run": {
                    "seed": 25,
                    "adversaries": GAUSS_ADVERSARIES,
                    "samples": samples,
                    "estimator": "mixture",
                    "noise_floor_adversaries": 0,
                    "mixture_target_se": 0,
                    "mixture_target_width": 0,
                    "mixture_exact_law": "never",
                    "targets": "uniform",
                },
                "model": {"kind": "gaussian", "n": n, "rho": rho, "sigma": 1.0, "cov_draw": "uniform"},
                "mechanism": {"kind": "clipped_sum", "epsilon": eps, "clip": [0.0, 10.0]},
            }
            bdpsim.run(doc, tmp)
            vals[samples] = bdpsim.load_adversaries(tmp).set_index("adversary").sort_index()
    short, ref = vals[GAUSS_SHORT], vals[GAUSS_REFERENCE]
    tol, conf = 1e-9, 0.95
    covered = (short.bdpl_ci_low <= ref.bdpl + tol) & (ref.bdpl <= short.bdpl_ci_high + tol)
    A = len(short)
    need = conf - 3 * math.sqrt(conf * (1 - conf) / A)
    return {
        "case": name,
        "n": n,
        "rho": rho,
        "epsilon": eps,
        "adversaries": A,
        "samples": GAUSS_SHORT,
        "reference_samples": GAUSS_REFERENCE,
        "confidence": conf,
        "coverage": round(float(covered.mean()), 4),
        "coverage_required": round(need, 4),
        "passes": bool(covered.mean() >= need),
        "width_median": round(float((short.bdpl_ci_high - short.bdpl_ci_low).median()), 4),
        "reference_width_median": round(float((ref.bdpl_ci_high - ref.bdpl_ci_low).median()), 4),
        "error_max": round(float((short.bdpl - ref.bdpl).abs().max()), 4),
        "reference_p99": round(float(ref.bdpl.quantile(0.99)), 4),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def grid_cells(quick: bool):
    ns = {k: v[:1] for k, v in GRID_N.items()} if quick else GRID_N
    eps = EPSILONS[1:3] if quick else EPSILONS
    for chain, sizes in ns.items():
        T = CHAINS[chain]
        for n in sizes:
            for e in eps:
                for query in ("count", "state_sum"):
                    for family in ("random", "windows"):
                        yield (
                            f"{chain}-n{n}",
                            {"kind": "markov", "n": n, "transition": T},
                            len(T),
                            n,
                            e,
                            query,
                            family,
                        )
    for e in eps:
        for query in ("count", "state_sum"):
            yield ("network5", NETWORK, 2, 5, e, query, "random")


def _key(r: dict) -> tuple:
    return (r["cell"], float(r["epsilon"]), r["query"], r["family"])


def write_csv(path: Path, rows: list[dict], fields=FIELDS) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    tmp.replace(path)


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _f(v: str, d: int = 2) -> str:
    return v if v in ("inf", "") else f"{float(v):.{d}f}"


def load_grid(out: Path) -> list[dict]:
    """The grid's rows: ``coverage.csv``, or the cells finished so far (``coverage.partial.csv``)
    in grid order."""
    if (out / "coverage.csv").is_file():
        return read_csv(out / "coverage.csv")
    if not (out / "coverage.partial.csv").is_file():
        return []
    done = {_key(r): r for r in read_csv(out / "coverage.partial.csv")}
    order = [_key({"cell": c[0], "epsilon": c[4], "query": c[5], "family": c[6]}) for c in grid_cells(False)]
    return [done[k] for k in order if k in done]


def markdown(
    grid: list[dict], issue: list[dict], kde: list[dict] = (), nets: list[dict] = (), gauss: list[dict] = ()
) -> str:
    """The markdown table of the committed CSVs (generated; never edit by hand)."""
    out = ["<!-- generated by scripts/findings/coverage_study.py --table from results/coverage/*.csv -->", ""]
    if nets:
        out += [
            f"### Random Bayesian networks, 2–4 states per node, count of state 1 ({nets[0]['adversaries']} "
            "adversaries, intervals from the samples alone)",
            "",
            "| network | nodes | eps | coverage | required | median width | p99 exact | p99 "
            "interval | contains |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in nets:
            out.append(
                f"| {r['cell']} | {r['n']} | {_f(r['epsilon'], 1)} | {_f(r['coverage'], 3)} | "
                f"{_f(r['coverage_required'], 3)} | {_f(r['width_median'], 3)} | {_f(r['bdpl_exact_p99'])} | "
                f"[{_f(r['bdpl_p99_ci_low'])}, {_f(r['bdpl_p99_ci_high'])}] | {r['p99_contained']} |"
            )
        out.append("")
    if gauss:
        out += [
            "### Gaussian records, clipped sum [0, 10] (no exact engine): short runs against a "
            "long reference run",
            "",
            "| case | rho | eps | adversaries | short / reference samples | coverage of the reference | "
            "required | median width (short / reference) | largest error |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in gauss:
            out.append(
                f"| {r['case']} | {_f(r['rho'])} | {_f(r['epsilon'], 1)} | {r['adversaries']} | "
                f"{r['samples']} / {r['reference_samples']} | {_f(r['coverage'], 3)} | "
                f"{_f(r['coverage_required'], 3)} | {_f(r['width_median'], 3)} / "
                f"{_f(r['reference_width_median'], 3)} | {_f(r['error_max'], 3)} |"
            )
        out.append("")
    if kde:
        out += [
            "### The thesis' KDE against the exact values of the same adversaries (count of state 1)",
            "",
            "| chain | n | eps | adversaries × samples | KDE p99 | exact p99 | mean error | above / below "
            "| error range |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in kde:
            out.append(
                f"| {r['case']} | {r['n']} | {_f(r['epsilon'], 1)} | {r['adversaries']} × {r['samples']} | "
                f"{_f(r['kde_p99'])} | {_f(r['exact_p99'])} | {float(r['error_mean']):+.2f} | "
                f"{r['above_n']} / {r['below_n']} | {float(r['error_min']):+.2f} to "
                f"{float(r['error_max']):+.2f} |"
            )
        out.append("")
    if issue:
        out += [
            "### Issue 25's hard cases (200 adversaries, level 0.95)",
            "",
            "| case | mode | coverage | median width | p99 exact | p99 interval | contains | from exact law "
            "| width target missed |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in issue:
            out.append(
                f"| {r['cell']} eps = {_f(r['epsilon'], 1)} | {r['mode']} | {_f(r['coverage'], 3)} | "
                f"{_f(r['width_median'], 3)} | {_f(r['bdpl_exact_p99'])} | [{_f(r['bdpl_p99_ci_low'])}, "
                f"{_f(r['bdpl_p99_ci_high'])}] | {r['p99_contained']} | {r['exact_law_n']} | "
                f"{r['width_target_missed']} |"
            )
        out.append("")
    if grid:
        cells = len(grid)
        passed = sum(r["passes"] == "True" for r in grid)
        contained = sum(r["p99_contained"] == "True" for r in grid)
        A = grid[0]["adversaries"]
        total = len(list(grid_cells(False)))
        part = "" if cells == total else f" (partial: {cells} of the {total} cells of the grid finished)"
        out += [
            f"### Grid: {cells} cells × {A} adversaries, intervals from the samples alone "
            f'(`mixture_exact_law = "never"`){part}',
            "",
            f"{passed} of {cells} cells reach coverage ≥ 0.95 − 3 sd "
            f"({_f(grid[0]['coverage_required'], 3)}); "
            f"the lowest coverage is {min(float(r['coverage']) for r in grid):.3f}; the p99 "
            "interval contains "
            f"the exact p99 in {contained} of {cells}. Median width per cell (nats), by model and eps "
            "(min–max over query, family):",
            "",
        ]
        eps = sorted({float(r["epsilon"]) for r in grid})
        out += [
            "| model | coverage (min) | " + " | ".join(f"eps = {e:g}" for e in eps) + " |",
            "|---|---|" + "---|" * len(eps),
        ]
        for cell in dict.fromkeys(r["cell"] for r in grid):
            rows = [r for r in grid if r["cell"] == cell]
            cov = min(float(r["coverage"]) for r in rows)
            parts = []
            for e in eps:
                w = [float(r["width_median"]) for r in rows if float(r["epsilon"]) == e]
                parts.append(f"{min(w):.2f}–{max(w):.2f}" if w else "")
            out.append(f"| {cell} | {cov:.3f} | " + " | ".join(parts) + " |")
        out.append("")
    return "\n".join(out)


def _run_issue(out: Path) -> None:
    """Issue 25's two hard cases, with and without the fallback: ``issue.csv``."""
    rows = []
    for chain, n, eps in ISSUE:
        T = CHAINS[chain]
        for mode in ("fallback", "never"):
            r = run_cell(
                chain,
                {"kind": "markov", "n": n, "transition": T},
                len(T),
                n,
                eps,
                "count",
                "random",
                mode,
                200,
                1,
                1_600_000,
            )
            print(r, flush=True)
            rows.append(r)
    write_csv(out / "issue.csv", rows)


def _run_grid(args, out: Path) -> None:
    """The coverage grid: each finished cell kept in ``coverage.partial.csv`` (a rerun resumes, other
    processes' cells are merged), then ``coverage.csv`` in grid order once every cell is done."""
    part = out / "coverage.partial.csv"
    done = {_key(r): r for r in read_csv(part)} if part.is_file() else {}
    cells = list(grid_cells(args.quick))
    for k, (name, model, states, n, eps, query, family) in enumerate(cells):
        if (args.only and name not in args.only) or _key(
            {"cell": name, "epsilon": eps, "query": query, "family": family}
        ) in done:
            continue
        r = run_cell(
            name, model, states, n, eps, query, family, "never", args.adversaries, 100 + k, args.max_samples
        )
        print(
            f"{r['cell']} eps={eps} {query} {family}: coverage {r['coverage']} (need "
            f"{r['coverage_required']}), median width {r['width_median']}, {r['seconds']} s",
            flush=True,
        )
        done = {_key(x): x for x in read_csv(part)} if part.is_file() else {}  # other processes' cells
        done[_key(r)] = {k: str(v) for k, v in r.items()}
        write_csv(part, list(done.values()))
    order = [_key({"cell": c[0], "epsilon": c[4], "query": c[5], "family": c[6]}) for c in cells]
    if all(key in done for key in order):
        write_csv(out / "coverage.csv", [done[key] for key in order])
        part.unlink()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--issue", action="store_true", help="run issue 25's two hard cases")
    ap.add_argument("--kde", action="store_true", help="the KDE against exact values (both directions)")
    ap.add_argument("--networks", action="store_true", help="random networks with mixed cardinalities")
    ap.add_argument("--gauss", action="store_true", help="Gaussian clipped sums against a long reference run")
    ap.add_argument("--table", action="store_true", help="only rewrite coverage.md from the CSVs")
    ap.add_argument("--quick", action="store_true", help="a small grid (smoke test)")
    ap.add_argument("--adversaries", type=int, default=100)
    ap.add_argument("--only", nargs="+", metavar="CELL", help="only these cells (e.g. sym2-n100 network5)")
    ap.add_argument("--max-samples", type=int, default=320_000)
    ap.add_argument("--out", type=Path, default=OUT)
    add_overwrite(ap)
    args = ap.parse_args(argv)
    if not args.table:  # --table only rewrites the generated coverage.md from the CSVs
        refuse_committed(ap, args.overwrite, args.out)
    out: Path = args.out
    if args.kde:
        rows = []
        for name, T, n, eps in KDE_CASES:
            rows.append(run_kde(name, T, n, eps, 100, 100_000))
            print(rows[-1], flush=True)
        write_csv(out / "kde.csv", rows, KDE_FIELDS)
    elif args.issue:
        _run_issue(out)
    elif args.networks:
        rows = []
        for k, (name, model, states, n, eps, query, family) in enumerate(network_cells()):
            rows.append(
                run_cell(
                    name,
                    model,
                    states,
                    n,
                    eps,
                    query,
                    family,
                    "never",
                    args.adversaries,
                    500 + k,
                    args.max_samples,
                )
            )
            print(rows[-1], flush=True)
        write_csv(out / "networks.csv", rows)
    elif args.gauss:
        rows = []
        for name, n, rho in GAUSS_CASES:
            rows.append(run_gauss(name, n, rho))
            print(rows[-1], flush=True)
        write_csv(out / "gauss.csv", rows, GAUSS_FIELDS)
    elif not args.table:  # each finished cell is kept (a rerun resumes), then the table in grid order
        _run_grid(args, out)
    grid = load_grid(out)
    issue = read_csv(out / "issue.csv") if (out / "issue.csv").is_file() else []
    kde, nets, gauss = (
        read_csv(out / f) if (out / f).is_file() else [] for f in ("kde.csv", "networks.csv", "gauss.csv")
    )
    (out / "coverage.md").write_text(markdown(grid, issue, kde, nets, gauss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
