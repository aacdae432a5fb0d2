"""README blocks on any mechanism (noise laws, the black-box audit) and on Bayesian networks.

Computed from committed results.

``scripts/readme/readme_numbers.py`` merges ``BLOCKS`` into its own; run that script, not this one::

    python scripts/readme/readme_numbers.py --check

Sources: ``results/benchmarks/{audit,audit_coverage,bayesnet}.json``,
``results/benchmarks/estimators_side_by_side.csv`` and ``results/bayesnet_mqm/summary.csv``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from readme_common import ROOT, f, need, rows


def _bench(name: str) -> dict:
    return json.loads(need(ROOT / "results" / "benchmarks" / f"{name}.json").read_text())


def _calls(v: float) -> str:
    e = int(round(math.log10(v)))
    return f"10^{e}" if abs(v - 10**e) < 1e-9 * v else f"{v:.2g}"


# ---------------------------------------------------------------------------------------------
# issue 17: the audit


def b_audit_budget() -> str:
    """Certified lower bound vs budget on the activity chain (scripts/benchmarks/benchmark_audit.py)."""
    d = _bench("audit")
    head = (
        f"Activity chain, n = {d['n']}, Laplace count b = {d['noise_scale']:g} run as a black box "
        f"(exact BDPL {d['exact_bdpl']:.4f}), {d['adversaries']} adversaries, α = {d['alpha']:g}; every call "
        "of the adversary search counts against the budget; one row per seed "
        f"(`{d['command']}`, peak memory {d['peak_rss_mib']:.0f} MiB).\n\n"
        "| adversary family | budget (calls in all) | certified 95 % lower bound, seeds 1, 2, 3 | "
        "estimate ± se (seed 1) | calls used (max) |\n|---|---|---|---|---|\n"
    )
    out = []
    for fam in dict.fromkeys(r["family"] for r in d["runs"]):
        for b in sorted({r["budget"] for r in d["runs"] if r["family"] == fam}):
            rs = sorted(
                (r for r in d["runs"] if r["family"] == fam and r["budget"] == b), key=lambda r: r["seed"]
            )
            lows = ", ".join(
                f"**{r['bdpl_lower']:.3f}**" if r["bdpl_lower"] >= 3.3 else f"{r['bdpl_lower']:.3f}"
                for r in rs
            )
            out.append(
                f"| {fam} | {_calls(b)} | {lows} | {rs[0]['bdpl_audit']:.3f} ± "
                f"{rs[0]['bdpl_audit_se']:.3f} | "
                f"{max(r['audit_calls'] for r in rs):.3g} |"
            )
    return head + "\n".join(out)


def b_audit_coverage() -> str:
    """Coverage over independent repeats (scripts/findings/audit_coverage.py)."""
    d = _bench("audit_coverage")
    s0 = d["summaries"][0]
    head = (
        f"{s0['repeats']} independent repeats per case, `audit_budget = {s0['budget']}`, {s0['adversaries']} "
        f"random adversaries, α = {s0['alpha']:g}, chain γ = {d['chain']['gamma']:g}, n = "
        f"{d['chain']['n']}:\n\n"
        "| case | exact BDPL (all adversaries) | certified bound above the configuration's exact | "
        "allowed (99.9 % binomial) | estimate within 2 se | mean certified bound "
        "|\n|---|---|---|---|---|---|\n"
    )
    out = [
        f"| {s['case']} | {s['configuration_exact']:.4f} | {s['over_configuration']}/{s['repeats']} | "
        f"≤ {s['allowed_over']} | {s['within_2se']}/{s['with_se']} ({100 * s['within_2se_rate']:.1f} %) | "
        f"{s['mean_lower']:.3f} |"
        for s in d["summaries"]
    ]
    return head + "\n".join(out)


def b_side_by_side() -> str:
    """kde, mixture, audit and exact at one budget (scripts/findings/compare_estimators.py)."""
    path = need(ROOT / "results" / "benchmarks" / "estimators_side_by_side.md")
    table = [ln for ln in path.read_text().splitlines() if ln.startswith("|")]
    lead = path.read_text().split("\n\n", 1)[0].strip()
    return lead + "\n\n" + "\n".join(table)


# ---------------------------------------------------------------------------------------------
# issue 18: Bayesian networks


def b_bayesnet_speed() -> str:
    m = _bench("bayesnet")["measurements"]
    net, hmm, q = m["network"], m["hmm"], m["mqm_chain_288"]
    same = (
        "the same σ" if abs(q["sigma"] - q["sigma_chain_mqm_exact"]) <= 1e-9 * q["sigma"] else "a different σ"
    )
    return (
        f"one adversary's exact BDPL (|K| = {net['known']}) on a random network of {net['nodes']} "
        "binary nodes "
        f"(induced width {net['width']}) in {net['seconds']:.2f} s, on an HMM with "
        f"{hmm['hidden_states']} hidden "
        f"states and n = {hmm['n']} observations in {hmm['seconds']:.2f} s; 10^4 exact conditional draws in "
        f"{m['network_sampling_1e4']:.2f} s (network) and {m['hmm_sampling_1e4']:.2f} s (HMM); "
        "the general Markov "
        f"Quilt mechanism on the activity chain as a network (T = 288) gives {same} as the chain's MQMExact "
        f"({q['sigma']:.6f}) in {q['seconds']:.1f} s"
    )


def b_bayesnet_mqm() -> str:
    rs = rows(need(ROOT / "results" / "bayesnet_mqm" / "summary.csv"))
    names = ["diamond network", "HMM (n = 6)", "activity chain (n = 8)"]
    by_eps: dict[float, list[dict]] = {}
    for r in rs:
        by_eps.setdefault(r["target_epsilon"], []).append(r)
    head = (
        "| ε (Pufferfish target) | "
        + " | ".join(f"{n}: σ / exact BDPL" for n in names)
        + " |\n|"
        + "---|" * (1 + len(names))
        + "\n"
    )
    out = []
    for e in sorted(by_eps):
        cells = []
        for r in by_eps[e]:
            v = r["bdpl_exact"]
            cells.append(
                f"{r['noise_scale']:.4g} / " + (f"**{v:.3f}**" if v > e * (1 + 1e-9) else f"{v:.3f}")
            )
        out.append(f"| {f(e, 1)} | " + " | ".join(cells) + " |")
    over = [
        (names[i], r["target_epsilon"], r["bdpl_exact"])
        for e in by_eps
        for i, r in enumerate(by_eps[e])
        if r["bdpl_exact"] > r["target_epsilon"] * (1 + 1e-9)
    ]
    tail = (
        "\n\nNot ε-BDP (bold): " + "; ".join(f"{n} at ε = {e:g}: {v:.3f}" for n, e, v in over)
        if over
        else "\n\nEvery release is ε-BDP on these networks."
    )
    return head + "\n".join(out) + tail


def b_pf2_audit() -> str:
    """Panel (e) of pufferfish-fig2: the MQM release at T = 5000, certified lower bound vs ε."""
    rs = [r for r in rows(need(ROOT / "results" / "figures" / "pufferfish-fig2.csv")) if r["panel"] == "e"]
    big = max(r["T"] for r in rs)
    top = max((r for r in rs if r["T"] == big), key=lambda r: r["epsilon"])
    nz = sorted(r["epsilon"] for r in rs if r["T"] == big and r["bdpl_lower"] > 0)
    low = [r for r in rs if r["T"] == big and r["epsilon"] < nz[0]]
    ratio = max(r["bdpl_exact_windows"] / r["epsilon"] for r in low)
    return (
        f"at T = {big:.0f} the audit certifies a BDPL of at least {top['bdpl_lower']:.2f} at ε = "
        f"{top['epsilon']:g} "
        f"(exact over short windows {top['bdpl_exact_windows']:.2f}); with "
        f"{top['audit_budget']:.0f} calls per ε it "
        f"certifies nothing below ε = {nz[0]:g}, where the exact BDPL over short windows is at most "
        f"{ratio:.2f} ε"
    )


def _own_lines(fn: Callable[[], str]) -> Callable[[], str]:
    """A block whose markers stand on their own lines: its text starts and ends with a newline."""
    return lambda: "\n" + fn() + "\n"


BLOCKS: dict[str, Callable[[], str]] = {
    "audit-budget": _own_lines(b_audit_budget),
    "audit-coverage": _own_lines(b_audit_coverage),
    "audit-side-by-side": _own_lines(b_side_by_side),
    "bayesnet-speed": b_bayesnet_speed,
    "bayesnet-mqm": _own_lines(b_bayesnet_mqm),
    "pf2-audit": b_pf2_audit,
}
