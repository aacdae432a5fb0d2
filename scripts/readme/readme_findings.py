"""README blocks for the findings, computed from committed results.

``scripts/readme/readme_numbers.py`` merges ``BLOCKS`` into its own (every number the README
quotes is regenerated from a committed file); run that script, not this one::

    python scripts/readme/readme_numbers.py --check

Sources: ``results/figures/bdpsim-{calibration,knowledge,pedigree,generations,competition}.csv``,
``results/benchmarks/{window,pedigree}.json``, the bounds of the committed chain (closed forms) and
one cost estimate of ``configs/quickstart.toml`` (no simulation).
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable

from readme_common import ROOT, f, figure, g, need, span, thousands

# ---------------------------------------------------------------------------------------------
# helpers


def _bench(name: str) -> dict:
    return json.loads(need(ROOT / "results" / "benchmarks" / f"{name}.json").read_text())


def _x(v: float) -> str:
    """A multiple of ε: 5 for 5.0, else two decimals."""
    return f"{round(v):d}" if abs(v - round(v)) < 1e-9 else f(v)


def _s(v: float, d: int = 2) -> str:
    """Seconds with d significant digits, no exponent: 0.604 -> '0.60'."""
    return f"{v:#.{d}g}".rstrip(".")


def _sci(v: float) -> str:
    """3.35e7 -> '3.4·10^7'."""
    e = int(math.floor(math.log10(v)))
    return f"{v / 10**e:.1f}·10^{e}"


def _close(a: float, b: float, rel: float = 1e-8) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b))


def _set(vals) -> str:
    return "{" + ", ".join(g(v) for v in sorted(set(vals))) + "}"


def _sentence_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# ---------------------------------------------------------------------------------------------
# issue 10: exact leakage of the activity chain, exact calibration, leakage by knowledge


def _calibration() -> dict:
    """{(n, eps, method): row} for the activity chain rows of bdpsim-calibration.csv."""
    out = {}
    for r in figure("bdpsim-calibration"):
        if str(r["chain"]).startswith("activity"):
            out[(int(r["n"]), r["epsilon"], r["method"])] = r
    if not out:
        raise ValueError("bdpsim-calibration.csv has no activity rows")
    return out


def _needs(reason: str) -> float:
    m = re.search(r"needs eps > \d ln \w+ = ([\d.]+)", reason)
    if not m:
        raise ValueError(f"no applicability threshold in {reason!r}")
    return float(m.group(1))


def b_activity_exact() -> str:
    import numpy as np

    from bdpsim.bounds import markov_bound, zhao_bound

    w = _bench("window")
    cal = _calibration()
    P = np.asarray(w["chain"], dtype=float)
    b = w["noise_scale"]
    if w["n288_bdpl"] != w["n17568_bdpl"]:
        raise ValueError("window.json: n = 288 and n = 17 568 give different BDPLs")
    ns = sorted({k[0] for k in cal})
    lo, hi = ns[0], ns[-1]
    eps_all = sorted({k[1] for k in cal})
    ex = {e: cal[(lo, e, "exact")]["scale"] for e in eps_all}
    same = all(_close(cal[(lo, e, "exact")]["scale"], cal[(hi, e, "exact")]["scale"]) for e in eps_all)
    if not same:
        raise ValueError("exact calibration differs between n = 288 and n = 17 568")
    eps1 = 1.0 / b  # the b = 1 count is the ε = 1 mechanism
    gen = {n: cal[(n, 1.0, "general")]["scale"] for n in (lo, hi)}
    mk_need = _needs(cal[(lo, 1.0, "markov")]["reason"])
    zh_need = _needs(cal[(lo, 1.0, "zhao")]["reason"])
    mk10, zh20, mk20 = cal[(lo, 10.0, "markov")], cal[(lo, 20.0, "zhao")], cal[(lo, 20.0, "markov")]
    others = ", ".join(
        f"{f(ex[e], 3) if ex[e] < 1 else f(ex[e], 2)} for ε = {g(e)}" for e in (0.5, 2.0, 10.0)
    )
    chain = "[" + ", ".join("[" + ", ".join(g(v) for v in row) + "]" for row in w["chain"]) + "]"
    return (
        f"On the activity chain (P = {chain}, count of active intervals) the ε = {g(eps1)} Laplace count "
        f"(b = {g(b)}) leaks exactly **{f(w['n288_bdpl'], 3)}** over every adversary — at n = "
        f"{lo} (one day) and "
        f"at n = {thousands(hi)} alike (the worst adversary knows everything but {w['worst_unknown_left']} "
        f"records before and {w['worst_unknown_right']} after its target) — against a Markov bound of "
        f"{f(markov_bound(eps1, P).value)}, Zhao's {f(zhao_bound(eps1, P).value, 1)} and the general bound "
        f"{g(lo * eps1)} ({thousands(hi * eps1)}). Exact calibration (`bdpsim calibrate markov`) needs "
        f"**b = {f(ex[1.0], 3)}** for 1-BDP ({others}), the same at n = {lo} and {thousands(hi)}; "
        "the general "
        f"bound prescribes {g(gen[lo])} ({thousands(gen[hi])}), {gen[lo] / ex[1.0]:.0f}× "
        f"({thousands(gen[hi] / ex[1.0])}×) more noise, and the Markov and Zhao bounds prescribe "
        "nothing below "
        f"ε = {g(mk_need)} and {g(zh_need)}; at ε = 10 Markov asks for b = {f(mk10['scale'], 3)} "
        f"({mk10['scale'] / ex[10.0]:.1f}× the exact {f(ex[10.0], 3)}), at ε = 20 Markov "
        f"{f(mk20['scale'], 3)} "
        f"and Zhao {f(zh20['scale'], 3)} vs exact {f(ex[20.0], 3)}."
    )


def b_knowledge() -> str:
    rs = figure("bdpsim-knowledge")
    inner = {
        (int(r["unknown_left"]), int(r["unknown_right"])): r["bdpl"]
        for r in rs
        if r["left_end"] == "known" and r["right_end"] == "known"
    }
    edge = [r["bdpl"] for r in rs if "chain end" in (r["left_end"], r["right_end"])]
    top = max(rs, key=lambda r: r["bdpl"])
    if "chain end" in (top["left_end"], top["right_end"]):
        raise ValueError("knowledge: the maximum is at a chain end")
    kl, kr = int(top["unknown_left"]), int(top["unknown_right"])
    big = max(k for k, _ in inner)
    n, b = int(rs[0]["n"]), rs[0]["noise_scale"]
    lead = (
        f"an adversary with {kl} unknown records on each side"
        if kl == kr
        else f"an adversary with {kl} unknown records before and {kr} after the target"
    )
    return (
        f"**Who leaks the most: {lead}.** Leakage by prior knowledge (activity chain, n = {n}, b = {g(b)}; "
        f"`bdpsim-knowledge` in the [gallery](/gallery.md)): knowing both neighbours gives the DP "
        f"value {f(inner[(0, 0)])}; one unknown neighbour on each side {f(inner[(1, 1)])}; 3 | 3 "
        "unknown (before | after) "
        f"{f(inner[(3, 3)])}; {kl} | {kr} the maximum {f(top['bdpl'], 3)}; {big} | {big} "
        f"{f(inner[(big, big)], 3)} (more ignorance hides the target again); a target near the "
        "chain's start, "
        f"knowing nothing before it, at most {f(max(edge), 3)}."
    )


def b_window_count() -> str:
    w = _bench("window")
    return f"{w['n10_windows']} windows instead of {thousands(w['n10_adversaries'])} adversaries at n = 10"


def b_exact_speed() -> str:
    w, p = _bench("window"), _bench("pedigree")
    cpu_x = w["cpu_seconds_old10"] / w["cpu_seconds_full10"]
    nuc, tri = p["nuclear_12"], p["three_generation_10"]
    return (
        "\n"
        f"Exact search over every adversary of the activity chain (`{w['command']}`, "
        f"`results/benchmarks/window.json`; wall / CPU, shared {w['cpus']}-core "
        f"machine, load {w['load_average_before']:.1f}–{w['load_average_after']:.1f}): n = 10, "
        "enumeration of "
        f"every known set {_s(w['n10_enumeration_seconds'])} s / {_s(w['cpu_seconds_old10'])} s, "
        "window search "
        f"{_s(w['n10_window_seconds'])} s / {_s(w['cpu_seconds_full10'])} s "
        f"(**{w['n10_speedup']:.0f}×** wall, "
        f"{cpu_x:.0f}× CPU; target ≥ 50×); n = 288: {_s(w['n288_seconds'])} s / "
        f"{_s(w['cpu_seconds_auto288'])} s "
        f"(target < 10 s); n = {thousands(17568)}: {_s(w['n17568_seconds'])} s / "
        f"{_s(w['cpu_seconds_auto17k'])} s "
        f"(target < 60 s). Truncating at {w['window_limit']} unknowns per side (bound "
        f"{w['truncation_tolerance']:.1e}) changes the n = 288 result by "
        f"{g(w['n288_truncation_difference'])} "
        f"against the untruncated search ({_s(w['n288_untruncated_seconds'], 3)} s); peak traced memory "
        f"{w['memory_mib_n17568']:.1f} MiB at n = {thousands(17568)} (process RSS "
        f"{w['max_rss_mib']:.0f} MiB; "
        f"target < 1 GiB). Pedigrees (`{p['command']}`, "
        f"`results/benchmarks/pedigree.json`, load "
        f"{p['load_average_before']:.1f}): every adversary of a nuclear family of {nuc['people']} "
        f"({_sci(nuc['adversaries'])} adversaries, {thousands(nuc['classes'])} classes of "
        "exchangeable children) "
        f"in {_s(nuc['seconds'])} s, of a three-generation family of {tri['people']} "
        f"({_sci(tri['adversaries'])} "
        f"adversaries, {thousands(tri['classes'])} classes) in {_s(tri['seconds'])} s (CPU "
        f"{_s(nuc['cpu_seconds'])} s / {_s(tri['cpu_seconds'])} s).\n"
    )


def b_utility_exact() -> str:
    cal = _calibration()
    lo = min(k[0] for k in cal)
    markov, zhao = (g(_needs(cal[(lo, 1.0, how)]["reason"])) for how in ("markov", "zhao"))
    return f"activity: ε ≤ {markov} / {zhao}"


# ---------------------------------------------------------------------------------------------
# issue 11: pedigrees


def b_pedigree() -> str:
    rs = figure("bdpsim-pedigree")
    tight = lambda r: abs(r["bdpl"] - r["lower_bound"]) < 1e-9
    ms = sorted({int(r["m"]) for r in rs})
    m0 = min(m for m in ms if all(tight(r) for r in rs if r["m"] >= m))
    above = [r for r in rs if not tight(r)]
    if any(r["worst_role"] != "child" or int(r["worst_known_size"]) != 0 for r in above):
        raise ValueError("pedigree: an excess over (m - 1) eps not by a no-knowledge adversary on a child")
    if not all(r["bdpl"] < r["general_bound"] for r in rs):
        raise ValueError("pedigree: the general bound is reached")
    if not all(abs(r["bdpl_thesis_sampler"] - r["lower_bound"]) < 1e-9 for r in rs):
        raise ValueError("pedigree: |K| >= 1 maximum differs from (m - 1) eps")
    founders = {
        (r["worst_known"], r["worst_x"], r["worst_x_prime"])
        for r in rs
        if tight(r) and r["worst_role"] == "founder"
    }
    if founders != {("1=BB", "BB", "bb")}:
        raise ValueError(f"pedigree: unexpected tight adversaries {founders}")
    top = max(above, key=lambda r: r["bdpl_over_eps"] - (r["m"] - 1))
    same_m = [
        r
        for r in rs
        if r["m"] == top["m"] and r["allele_b"] == top["allele_b"] and r["epsilon"] != top["epsilon"]
    ]
    other = min(same_m, key=lambda r: r["epsilon"])
    n_small = sum(1 for r in rs if r["m"] < m0)
    return (
        f"**Genomic leakage is exactly the thesis' lower bound from {m0} people on.** Laplace "
        "count of BB on a "
        f"nuclear family (2 parents, m − 2 children, m = {ms[0]}…{ms[-1]}), every adversary, exact "
        f"(`bdpsim-pedigree` in the [gallery](/gallery.md)): for m ≥ {m0}, every ε ∈ "
        f"{_set(r['epsilon'] for r in rs)} and allele frequency q ∈ "
        f"{_set(r['allele_b'] for r in rs)} the BDPL is "
        f"**(m − 1)ε exactly** (thesis Cor. 5.2's adversary: knows one parent is BB, targets the other, BB "
        f"against bb); the general bound mε is never reached. For m < {m0} an adversary who knows "
        "**nothing** and "
        f"targets a child leaks more ({len(above)} of {n_small} cases), by up to "
        f"{f(top['bdpl_over_eps'] - (top['m'] - 1))}ε: {f(top['bdpl_over_eps'])}ε at "
        f"m = {int(top['m'])} (q = {g(top['allele_b'])}, ε = {g(top['epsilon'])}; "
        f"{f(other['bdpl_over_eps'])}ε at "
        f"ε = {g(other['epsilon'])}) against (m − 1)ε = {int(top['m']) - 1}ε — an adversary the "
        "thesis' sampler "
        f"(|K| ≥ 1) never draws; over |K| ≥ 1 the maximum is (m − 1)ε in every case."
    )


def b_generations() -> str:
    rs = figure("bdpsim-generations")
    below = all(r["bdpl"] < r["bdpl_nuclear_same_size"] for r in rs)
    above = all(r["bdpl"] > r["bdpl_nuclear_core_size"] for r in rs)
    if not (below and above):
        raise ValueError("generations: three-generation leakage is not between the two nuclear families")
    for r in rs:
        parents = ast.literal_eval(r["parents"])
        i = int(r["worst_i"])
        spouses = {q for kids in parents if i in kids for q in kids if q != i}
        m = re.fullmatch(r"(\d+)=BB", str(r["worst_known"]))
        if r["worst_role"] != "child+parent" or not m or int(m.group(1)) not in spouses:
            raise ValueError(f"generations: worst adversary of m = {r['m']} is not 'spouse is BB'")
    ms = sorted({int(r["m"]) for r in rs})
    ls = sorted({int(r["core_size"]) for r in rs})
    by = lambda m, key: [r[key] / r["epsilon"] for r in rs if r["m"] == m]
    lo, hi = ms[0], ms[-1]
    l_hi = max(int(r["core_size"]) for r in rs if r["m"] == hi)
    over_core = [r for r in rs if r["bdpl"] > r["core_bound"]]
    sp = lambda vals: _x(vals[0]) if span(vals, f) == f(vals[0]) else span(vals, f)
    return (
        f"**§5.3's question: a three-generation family leaks less than a core family of the same size, more "
        f"than a core family of its largest core size.** Three-generation families of m = {lo}…{hi} people "
        f"(grandparents, their children, one child's spouse and children; largest core family l = "
        f"{ls[0]}…{ls[-1]}; `bdpsim-generations` in the [gallery](/gallery.md)): exact BDPL "
        f"{sp(by(lo, 'bdpl'))}ε at m = {lo} and {sp(by(hi, 'bdpl'))}ε at m = {hi}, below the "
        "nuclear family of m "
        f"({sp(by(lo, 'bdpl_nuclear_same_size'))}ε, {sp(by(hi, 'bdpl_nuclear_same_size'))}ε) and above the "
        f"nuclear family of l ({sp(by(lo, 'bdpl_nuclear_core_size'))}ε, "
        f"{sp(by(hi, 'bdpl_nuclear_core_size'))}ε), "
        f"in all {len(rs)} cases. The worst adversary targets the middle generation's parent, who "
        "belongs to two "
        "core families, knowing the spouse is BB. Neither m nor l alone sets the leakage; lε is "
        "not an upper "
        f"bound ({len(over_core)} of {len(rs)} cases exceed it; m = {hi}: {sp(by(hi, 'bdpl'))}ε > {l_hi}ε)."
    )


# ---------------------------------------------------------------------------------------------
# issue 12: competing mechanisms

COMP_METHODS = [
    ("exact", "exact (smallest ε-BDP)"),
    ("wasserstein", "Wasserstein"),
    ("markov-quilt-exact", "MQMExact"),
    ("markov-quilt-approx", "MQMApprox"),
    ("randomized-response", "randomized response"),
    ("markov", "Markov bound"),
    ("zhao", "Zhao bound"),
    ("general", "general bound = group DP (m = T)"),
]
COMP_EPS = (1.0, 2.0, 5.0, 10.0)
COMP_TABLES = [
    ("activity", 288, "Activity chain, T = 288 (one day)"),
    ("gamma = 10", 100, "Fig. 15 chain γ = 10, T = 100"),
]


def _competition() -> dict:
    return {(r["chain"], int(r["T"]), r["epsilon"], r["method"]): r for r in figure("bdpsim-competition")}


def _cell(r: dict | None) -> str:
    if r is None or math.isnan(r["scale"]):
        return "n/a"
    bad = r["eps_bdp"] == 0
    return f"{r['scale']:.4g} / " + (f"**{r['bdpl']:.4g} ✗**" if bad else f"{r['bdpl']:.4g}")


def b_competition_table() -> str:
    c = _competition()
    out = []
    for chain, T, title in COMP_TABLES:
        lines = [
            f"**{title}**",
            "",
            "| method | " + " | ".join(f"ε = {g(e)}" for e in COMP_EPS) + " |",
            "|---" * (len(COMP_EPS) + 1) + "|",
        ]
        for key, name in COMP_METHODS:
            cells = [c.get((chain, T, e, key)) for e in COMP_EPS]
            if all(x is None for x in cells):
                continue
            if key == "general" and not all(
                _close(x["scale"], c[(chain, T, e, "group")]["scale"]) for x, e in zip(cells, COMP_EPS)
            ):
                name = "general bound"
            if key == "wasserstein":
                name += f" (W = {g(cells[0]['scale'] * COMP_EPS[0])})"
            if key == "randomized-response" and all(math.isnan(x["scale"]) for x in cells):
                name += " (chain not symmetric)"
            lines.append(f"| {name} | " + " | ".join(_cell(x) for x in cells) + " |")
        out.append("\n".join(lines))
    return "\n\n" + "\n\n".join(out) + "\n\n"


def b_competition_findings() -> str:
    rs = figure("bdpsim-competition")
    c = _competition()
    chains = list(dict.fromkeys(r["chain"] for r in rs))
    Ts = sorted({int(r["T"]) for r in rs})
    eps = sorted({r["epsilon"] for r in rs})
    ok = lambda r: not math.isnan(r["scale"])

    def ratio(method, e=1.0, col="noise_std"):
        vals = [
            c[(ch, T, e, method)][col] / c[(ch, T, e, "exact")][col]
            for ch in chains
            for T in Ts
            if (ch, T, e, method) in c and ok(c[(ch, T, e, method)])
        ]
        return vals

    was = [r for r in rs if r["method"] == "wasserstein" and ok(r)]
    was_ok = all(r["eps_bdp"] == 1 for r in was)
    sp1 = lambda v: span(v, lambda x: f"{x:.2f}" if x < 10 else f"{x:.0f}")
    sp0 = lambda v: span(v, lambda x: f"{x:.1f}" if x < 10 else f"{x:.0f}")
    act = c[("activity", Ts[-1], 1.0, "wasserstein")], c[("activity", Ts[-1], 1.0, "exact")]
    bullets = [
        "**The Wasserstein mechanism is the closest to the exact "
        f"calibration{' and was ε-BDP in every case' if was_ok else ''}**: "
        f"at ε = 1 it adds {sp1(ratio('wasserstein'))} times the exact scale (activity "
        f"{g(act[0]['scale'])} vs "
        f"{f(act[1]['scale'], 3)}). MQMExact adds {sp0(ratio('markov-quilt-exact'))} times, MQMApprox "
        f"{sp0(ratio('markov-quilt-approx'))} times, randomized response "
        f"{sp0(ratio('randomized-response'))} times "
        f"(in standard deviation), general bound / group DP {sp0(ratio('general'))} times (growing with T)."
    ]
    # MQMExact not eps-BDP: one entry per distinct (chain, eps) (T does not change it)
    bad = {}
    for r in rs:
        if r["method"] == "markov-quilt-exact" and ok(r) and r["eps_bdp"] == 0:
            bad.setdefault((r["chain"], r["epsilon"]), r)
    if bad:
        items = sorted(bad.values(), key=lambda r: (-r["epsilon"], chains.index(r["chain"])))
        desc = "; ".join(
            f"{f(r['bdpl'])} at ε = {g(r['epsilon'])} ({r['chain'].replace('gamma', 'γ')})" for r in items
        )
        nok = ", ".join(f(r["bdpl_no_knowledge"]) for r in items)
        bullets.append(
            f"**Pufferfish noise is not always ε-BDP.** MQMExact leaks {desc}. Against the "
            "adversary who knows no "
            f"record — Pufferfish's adversary — the same noise leaks {nok} (column `bdpl_no_knowledge`)"
            + (
                ", each ≤ ε: the authors' mechanism keeps its own promise"
                if all(r["bdpl_no_knowledge"] <= r["epsilon"] + 1e-9 for r in items)
                else ""
            )
            + "; the extra leakage comes from adversaries who know records near the target."
        )
    rr = {}
    for r in rs:
        if r["method"] == "randomized-response" and ok(r):
            rr.setdefault((r["chain"], r["epsilon"]), r)
    rr_bad = sorted((r for r in rr.values() if r["eps_bdp"] == 0), key=lambda r: (r["chain"], r["epsilon"]))
    if rr_bad:
        e_min = min(r["epsilon"] for r in rr_bad)
        low = rr.get(("gamma = 10", 1.0))
        desc = "; ".join(
            f"{f(r['bdpl'])} at ε = {g(r['epsilon'])} ({r['chain'].replace('gamma', 'γ')})" for r in rr_bad
        )
        below = [r for r in rr.values() if r["epsilon"] < e_min]
        bullets.append(
            f"**Chakrabarti et al.'s randomized response is not ε-BDP at large ε**: {desc}"
            + (
                f"; below ε = {g(e_min)} it leaks less than ε ({f(low['bdpl'])} at ε = 1, γ = 10)"
                if below and all(r["bdpl"] < r["epsilon"] for r in below) and low
                else ""
            )
            + ". It applies to symmetric chains only."
        )
    mk = c[("activity", Ts[-1], 10.0, "markov")]
    mk_need = _needs(c[("activity", Ts[-1], 1.0, "markov")]["reason"])
    bullets.append(
        f"The Markov and Zhao bounds calibrate only large ε here (ε > 4 ln γ = {g(mk_need)} for the "
        f"activity chain), and then with a safe but not tight scale (activity ε = 10: b = "
        f"{f(mk['scale'], 3)}, BDPL {f(mk['bdpl'])})."
    )
    fixed = [
        name
        for key, name in (
            ("markov-quilt-exact", "MQMExact"),
            ("markov-quilt-approx", "MQMApprox"),
            ("wasserstein", "Wasserstein"),
            ("exact", "the exact calibration"),
        )
        if all(
            _close(c[(ch, Ts[0], e, key)]["scale"], c[(ch, Ts[-1], e, key)]["scale"], 1e-6)
            for ch in chains
            for e in eps
            if ok(c[(ch, Ts[0], e, key)])
        )
    ]
    linear = all(_close(c[(ch, T, e, "general")]["scale"], T / e) for ch in chains for T in Ts for e in eps)
    bullets.append(
        f"The scales of {_sentence_list(fixed)} do not depend on T between {Ts[0]} and {Ts[-1]}"
        + ("; general bound / group DP grows linearly with T." if linear else ".")
    )
    head = (
        f"All {len(rs)} rows: chains {', '.join(ch.replace('gamma', 'γ') for ch in chains)}; "
        f"T ∈ {_set(Ts)}; ε ∈ {_set(eps)}."
    )
    return "\n\n" + head + "\n\n" + "\n".join(f"- {b}" for b in bullets) + "\n\n"


def b_competition_cost() -> str:
    rs = figure("bdpsim-competition")
    rr = [
        r["seconds"]
        for r in rs
        if r["method"] == "randomized-response"
        and r["T"] == max(x["T"] for x in rs)
        and not math.isnan(r["seconds"])
    ]
    total = sum(r["seconds"] for r in rs if not math.isnan(r["seconds"]))
    return (
        f"feasible at T = {int(max(r['T'] for r in rs))} ({span(rr, lambda v: f'{v:.0f}')} s per ε). "
        f"`bdpsim figures --only bdpsim-competition` regenerates the table and figure (about "
        f"{total / 60:.0f} min of compute, the sum of the CSV's `seconds` column; `--jobs 2` runs "
        "the cases in "
        f"parallel)"
    )


# ---------------------------------------------------------------------------------------------
# issue 13: resource limits


def b_limit_example() -> str:
    """The refusal of configs/quickstart.toml with run.samples = 10^9 (a cost estimate, no run)."""
    import tomllib

    import bdpsim
    from bdpsim.pipeline.cost import Limits, check_limits

    doc = tomllib.loads(need(ROOT / "configs" / "quickstart.toml").read_text())
    doc["run"]["samples"] = 10**9
    try:
        check_limits(bdpsim.parse_config(doc), Limits())
    except bdpsim.ConfigError as exc:
        return f"`bdpsim: error: {exc}`"
    raise ValueError("quickstart with samples = 1e9 is not refused")


def fewest_bounding(q: float = 99.0, confidence: float = 0.95, own: float | None = None) -> int:
    """The fewest adversaries ``m`` whose order statistics bound the ``q``-th percentile from above
    at ``confidence`` (a finite upper end): of the values themselves (``own`` None,
    :func:`bdpsim.kernels.stats.percentile_ci`), or of the upper ends of per-adversary intervals at
    level ``own`` (:func:`~bdpsim.kernels.stats.interval_percentile_ci`, the mixture's summary)."""
    import numpy as np

    from bdpsim.kernels.stats import interval_percentile_ci, percentile_ci

    m = 1
    while True:
        v = np.arange(float(m))
        hi = (
            percentile_ci(v, q, confidence)[1]
            if own is None
            else interval_percentile_ci(v, v, q, confidence, own)[1]
        )
        if math.isfinite(hi):
            return m
        m += 1


def b_p99_upper() -> str:
    """The adversaries a finite upper end of the p99 interval needs: mixture (its upper ends' shifted
    percentile) and plain order statistics (exact, kde)."""
    from bdpsim.kernels.stats import own_level

    return (
        f"{fewest_bounding(own=own_level(99.0, 0.95))} adversaries (the plain order statistic of exact or "
        f"KDE values: {fewest_bounding()})"
    )


BLOCKS: dict[str, Callable[[], str]] = {
    "p99-upper": b_p99_upper,
    "activity-exact": b_activity_exact,
    "knowledge": b_knowledge,
    "window-count": b_window_count,
    "exact-speed": b_exact_speed,
    "utility-exact": b_utility_exact,
    "pedigree": b_pedigree,
    "generations": b_generations,
    "competition-table": b_competition_table,
    "competition-findings": b_competition_findings,
    "competition-cost": b_competition_cost,
    "limit-example": b_limit_example,
}
