"""Figures (the only module that imports matplotlib).

Every plotting function takes and returns a matplotlib ``Axes``; :func:`save` writes PNG + PDF.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _varying(rows: Sequence[dict], keys: Sequence[str]) -> list[str]:
    out = []
    for k in keys:
        vals = {r.get(k) for r in rows if isinstance(r.get(k), float) and math.isfinite(r.get(k))}
        if len(vals) > 1:
            out.append(k)
    return out


def choose_axes(rows: Sequence[dict]) -> tuple[str, str | None]:
    """Pick the x-axis (first varying of gamma, rho, epsilon, n) and the grouping key."""
    var = _varying(rows, ["gamma", "rho", "epsilon", "n", "noise_scale"])
    if not var:
        return ("n", None)
    x = var[0]
    rest = [k for k in var[1:] if k != x]
    return x, (rest[0] if rest else None)


def plot_summary(rows: Sequence[dict], ax, x: str | None = None, group: str | None = None):
    """Empirical BDPL (percentile with bootstrap CI), exact BDPL where known, and the bounds.

    Parameters
    ----------
    rows : sequence of dict
        ``summary.csv`` rows (:func:`bdpsim.results.read_summary`).
    ax : matplotlib.axes.Axes
    x, group : str, optional
        Column for the x-axis and for separate curves (chosen automatically when omitted).
    """
    auto_x, auto_g = choose_axes(rows)
    x = x or auto_x
    group = group if group is not None else (auto_g if x == auto_x else None)
    groups: dict = defaultdict(list)
    for r in rows:
        groups[r.get(group) if group else None].append(r)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    markers = {"kde": "x", "mixture": "+", "exact": "s"}
    for gi, (g, rs_all) in enumerate(sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0]))):
        c = colors[gi % len(colors)]
        label = f"{group} = {g:g}" if group else ""
        by_est: dict = defaultdict(list)
        for r in rs_all:
            by_est[r.get("estimator", "")].append(r)
        for ei, (est, rs) in enumerate(sorted(by_est.items())):
            ce = c if group else colors[(ei + 1) % len(colors)]
            rs = sorted(rs, key=lambda r: r[x])
            xs = np.array([r[x] for r in rs])
            p = np.array([r["bdpl_p99"] for r in rs], dtype=float)
            lo = np.array([r.get("bdpl_p99_ci_low", np.nan) for r in rs], dtype=float)
            hi = np.array([r.get("bdpl_p99_ci_high", np.nan) for r in rs], dtype=float)
            pc = rs[0].get("percentile", 99)
            yerr = np.vstack([np.clip(p - lo, 0, None), np.clip(hi - p, 0, None)])
            yerr = np.where(np.isfinite(yerr), yerr, 0)
            what = "max" if est == "exact" else f"p{pc:g}"
            ax.errorbar(xs, p if est != "exact" else np.array([r["bdpl_max"] for r in rs], dtype=float),
                        yerr=None if est == "exact" else yerr, fmt=markers.get(est, "x"), color=ce,
                        capsize=3, ms=7, label=f"{est} {what} {label}".strip())
            nf = np.array([r.get("noise_floor", np.nan) for r in rs], dtype=float)
            if est != "exact" and np.isfinite(nf).any() and np.nanmax(nf) > 0:
                ax.plot(xs, nf, ":", color=ce, lw=1, label=f"{est} noise floor {label}".strip())
        rs = sorted(rs_all, key=lambda r: r[x])
        xs = np.array([r[x] for r in rs])
        ex = np.array([r.get("bdpl_exact", np.nan) for r in rs], dtype=float)
        if np.isfinite(ex).any() and not all(r.get("estimator") == "exact" for r in rs):
            ax.plot(xs, ex, "o", mfc="none", color=c, label=f"exact (same adversaries) {label}".strip())
        bounds = np.vstack([[r.get(k, np.nan) for r in rs] for k in ("bound_general", "bound_model")]).astype(float)
        with np.errstate(all="ignore"):
            tight = np.nanmin(np.where(np.isfinite(bounds), bounds, np.nan), axis=0)
        if np.isfinite(tight).any():
            ok = np.isfinite(tight)
            ax.plot(xs[ok], tight[ok], "-", color=c, lw=1.5, label=f"min(general, model bound) {label}".strip())
    ax.set_xlabel({"gamma": "transition ratio γ", "rho": "max. Pearson correlation ρ",
                   "epsilon": "DP parameter ε", "n": "records n"}.get(x, x))
    ax.set_ylabel("BDPL (nats)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return ax


def subplots(*args, **kwargs):
    """``plt.subplots`` for modules that must not import matplotlib themselves."""
    return plt.subplots(*args, **kwargs)


def save(fig, stem: Path) -> list[Path]:
    """Write ``stem.png`` and ``stem.pdf``; return the paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    plt.close(fig)
    return paths


def plot_results(results_dir: Path, x: str | None = None, group: str | None = None,
                 title: str | None = None) -> list[Path]:
    """``bdpsim plot``: ``bdpl.png``/``.pdf`` next to ``summary.csv``."""
    from ..results import read_summary

    rows = read_summary(results_dir)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    plot_summary(rows, ax, x, group)
    if title is None:
        import json

        meta = Path(results_dir) / "metadata.json"
        title = json.loads(meta.read_text()).get("title", "") if meta.is_file() else ""
    if title:
        ax.set_title(title, fontsize=8)
    return save(fig, Path(results_dir) / "bdpl")


# =============================================================================== figure registry
# Each figure: compute(ctx) -> list of row dicts (the CSV), plot(rows, ax) -> ax.


def _lines(ax, rows, x, y, key, fmt="{}", style="-", **kw):
    for val in dict.fromkeys(r[key] for r in rows):
        rs = [r for r in rows if r[key] == val]
        ax.plot([r[x] for r in rs], [r[y] for r in rs], style, label=fmt.format(val), **kw)
    return ax


def plot_thesis_fig07(rows, ax):
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    combos = list(dict.fromkeys((r["epsilon"], r["m"]) for r in rows))
    for k, (e, m) in enumerate(combos):
        rs = [r for r in rows if r["epsilon"] == e and r["m"] == m]
        c = colors[k % len(colors)]
        ax.plot([r["beta"] for r in rs], [r["alpha_laplace"] for r in rs], "-", color=c, label=f"Laplace, ε={e:g}, m={m}")
        ax.plot([r["beta"] for r in rs], [r["alpha_lower_bound"] for r in rs], "--", color=c, label=f"lower bound, ε={e:g}, m={m}")
    ax.set_xlabel("β")
    ax.set_ylabel("error α (records)")
    ax.set_title("Genomic data: accuracy of an ε-BDP count vs the lower bound", fontsize=9)
    ax.legend(fontsize=6)
    return ax


def plot_thesis_fig08(rows, ax):
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, n in enumerate(dict.fromkeys(r["n"] for r in rows)):
        rs = [r for r in rows if r["n"] == n]
        ax.plot([r["rho"] for r in rs], [r["gaussian_bound"] for r in rs], "-", color=colors[k], label=f"Gaussian, n={n}")
        ax.plot([r["rho"] for r in rs], [r["general_bound"] for r in rs], "--", color=colors[k], label=f"general, n={n}")
    ax.set_xlabel("max. Pearson correlation ρ")
    ax.set_ylabel("BDPL bound (1-DP)")
    ax.set_yscale("log")
    ax.set_title("General vs Gaussian bound", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def _region(rows, ax, x, y, key, feasible=None):
    xs = np.array(sorted(dict.fromkeys(r[x] for r in rows)))
    ys = np.array(sorted(dict.fromkeys(r[y] for r in rows)))
    Z = np.full((ys.size, xs.size), np.nan)
    xi = {v: i for i, v in enumerate(xs)}
    yi = {v: i for i, v in enumerate(ys)}
    for r in rows:
        ok = r.get(feasible, 1) if feasible else 1
        Z[yi[r[y]], xi[r[x]]] = r[key] if ok else np.nan
    ax.contourf(xs, ys, Z, levels=[0.5, 1.5], colors=["tab:blue"], alpha=0.35)
    ax.contour(xs, ys, np.nan_to_num(Z, nan=0.0), levels=[0.5], colors="tab:blue", linewidths=1)
    return ax


def plot_thesis_fig11(rows, ax):
    _region(rows, ax, "omega", "gamma", "markov_better", "feasible")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ω")
    ax.set_ylabel("γ")
    ax.set_title("Markov bound beats Zhao's bound (shaded; γ ≥ ω always)", fontsize=9)
    return ax


def plot_thesis_fig13(rows, ax):
    _region(rows, ax, "n", "gamma", "markov_better")
    ax.set_yscale("log")
    ax.set_xlabel("records n")
    ax.set_ylabel("γ")
    ax.set_title("Markov bound beats the general bound (shaded), ε = 0.5", fontsize=9)
    return ax


def _line_figure(x: str, y: str, key: str | None, fmt: str, xlabel: str, ylabel: str, title: str, *,
                 xlog: bool = False, ylog: bool = True):
    """A figure function ``(rows, ax) -> ax``: one line of ``y`` vs ``x`` per value of ``key``
    (a single line when ``key`` is None)."""

    def plot(rows, ax):
        if key is None:
            ax.plot([r[x] for r in rows], [r[y] for r in rows], "-")
        else:
            _lines(ax, rows, x, y, key, fmt)
        if ylog:
            ax.set_yscale("log")
        if xlog:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=9)
        if key is not None:
            ax.legend(fontsize=7)
        return ax

    return plot


plot_thesis_fig03 = _line_figure("epsilon", "beta", None, "", "BDPL ε", "β = P(error > n/2)",
                                 "ε-BDP Laplace count (general bound): probability of an error > n/2", ylog=False)
plot_thesis_fig05 = _line_figure("epsilon", "beta_min", None, "", "ε (free-lunch privacy)", "minimum β",
                                 "Minimum β of an (α, β)-accurate ε-free-lunch-private algorithm", ylog=False)
plot_thesis_fig16 = _line_figure("h", "gamma_max", "epsilon", "ε = {:g}", "relative error factor h", "max. γ",
                                 "Max. transition ratio γ for an ε-BDP error ≤ h × the ε-DP error")


plot_paper_fig1 = _line_figure("rho", "h", "m", "m = {}", "max. Pearson correlation ρ", "relative accuracy h",
                               "Relative accuracy of ε-BDP vs ε-DP, multivariate Gaussian")


def plot_paper_fig2(rows, ax):
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, p in enumerate(dict.fromkeys(r["p_ss"] for r in rows)):
        rs = [r for r in rows if r["p_ss"] == p]
        ax.plot([r["epsilon"] for r in rs], [r["alpha_markov_laplace"] for r in rs], "-", color=colors[k], label=f"ours (Markov bound), P_ss={p}")
        ax.plot([r["epsilon"] for r in rs], [r["alpha_randomized_response"] for r in rs], "--", color=colors[k], label=f"Chakrabarti et al. RR, P_ss={p}")
    ax.set_yscale("symlog", linthresh=0.1)
    ax.set_xlabel("BDPL ε")
    ax.set_ylabel("α at β = 5 % (records)")
    ax.set_title("Markov-bound Laplace count vs randomized response, n = 700", fontsize=9)
    ax.legend(fontsize=6)
    return ax


plot_paper_fig3 = _line_figure("gamma", "h", "epsilon", "ε = {:g}", "γ", "relative accuracy h",
                               "Relative accuracy of ε-BDP vs ε-DP, Markov chain", xlog=True)


def _sim_rows(summary: list[dict], x: str, group: str, extra=()) -> list[dict]:
    keep = [group, x, "estimator", "bdpl_p99", "bdpl_p99_ci_low", "bdpl_p99_ci_high", "bdpl_max",
            "noise_floor", "bdpl_exact", "bound_general", "bound_model", "bound_zhao", "n_adversaries",
            "n_samples", *extra]
    return [{k: r.get(k, math.nan) for k in keep} for r in summary]


def plot_simulated(rows, ax, x: str, group: str, bound_label: str, exact_label: str = "exact (all adversaries)"):
    """Empirical estimates (p99 with bootstrap CI), exact values and bounds per group."""
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    marks = {"kde": "x", "mixture": "+", "exact": "o", "kde-clipped": "x"}
    for k, g in enumerate(sorted(dict.fromkeys(r[group] for r in rows))):
        c = colors[k % len(colors)]
        rs = [r for r in rows if r[group] == g]
        for est in dict.fromkeys(r["estimator"] for r in rs):
            e = sorted((r for r in rs if r["estimator"] == est), key=lambda r: r[x])
            xs = np.array([r[x] for r in e])
            if est == "exact":
                ax.plot(xs, [r["bdpl_max"] for r in e], "o", mfc="none", color=c, label=f"{exact_label}, {group}={g:g}")
                continue
            p = np.array([r["bdpl_p99"] for r in e], dtype=float)
            lo = np.array([r["bdpl_p99_ci_low"] for r in e], dtype=float)
            hi = np.array([r["bdpl_p99_ci_high"] for r in e], dtype=float)
            yerr = np.nan_to_num(np.vstack([np.clip(p - lo, 0, None), np.clip(hi - p, 0, None)]))
            ax.errorbar(xs, p, yerr=yerr, fmt=marks.get(est, "x"), color=c, capsize=2, ms=6,
                        alpha=0.6 if est == "kde-clipped" else 1.0, label=f"{est} p99, {group}={g:g}")
        b = sorted((r for r in rs if r["estimator"] != "kde-clipped"), key=lambda r: r[x])
        xs = np.array([r[x] for r in b])
        with np.errstate(all="ignore"):
            bound = np.nanmin(np.array([[r["bound_general"], r["bound_model"]] for r in b], dtype=float), axis=1)
        ok = np.isfinite(bound)
        ax.plot(xs[ok], bound[ok], "-", color=c, lw=1.2, label=f"{bound_label}, {group}={g:g}")
    ax.set_ylabel("BDPL (nats)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=5, ncol=2)
    return ax


def plot_thesis_fig09(rows, ax):
    plot_simulated(rows, ax, "rho", "n", "min(general, Gaussian bound)", "exact")
    ax.set_xlabel("max. Pearson correlation ρ")
    ax.set_title("Empirical BDPL, Gaussian data, clipped sum [0, 10], ε = 1", fontsize=9)
    return ax


def plot_thesis_fig10(rows, ax):
    plot_simulated(rows, ax, "rho", "n", "Gaussian bound (Thm 6.2)", "exact max over adversaries")
    ax.set_xlabel("max. Pearson correlation ρ")
    ax.set_ylabel("target-dependent BDPL, x = 0, x' = 10")
    ax.set_title("Unclipped sum (dots/circles) vs clipped (faint crosses), Gaussian data", fontsize=9)
    return ax


def plot_thesis_fig15(rows, ax):
    plot_simulated(rows, ax, "gamma", "epsilon", "min(Markov, general bound)")
    ax.set_xlabel("transition ratio γ")
    ax.set_title("Empirical vs exact BDPL, Markov chain n = 10, ε-DP count", fontsize=9)
    return ax


# ------------------------------------------------------------------------------ utility figures
_MECH_STYLE = {"dp": ":", "general": "--", "gaussian": "-", "markov": "-", "zhao": "-."}
_MECH_MARK = {"dp": "^", "general": "s", "gaussian": "o", "markov": "o", "zhao": "d"}


def plot_utility(rows, ax, metric: str = "alpha", group: str = "variant"):
    """Theory lines and empirical markers per (dataset variant, mechanism), log y.

    ``metric = "alpha"``: alpha at beta = 5 % (theory ``ln 20 b``) and the empirical 95 % quantile;
    ``metric = "mse"``: MSE (theory ``2 b^2``) and the empirical MSE.
    """
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    theory, emp = ("alpha_theory", "alpha_empirical") if metric == "alpha" else ("mse_theory", "mse")
    keys = list(dict.fromkeys((r["dataset"], r[group]) for r in rows))
    for k, (ds, var) in enumerate(keys):
        c = colors[k % len(colors)]
        for mech in dict.fromkeys(r["mechanism"] for r in rows):
            rs = [r for r in rows if r["dataset"] == ds and r[group] == var and r["mechanism"] == mech]
            rs = [r for r in rs if isinstance(r[theory], float) and math.isfinite(r[theory])]
            if not rs:
                continue
            x = [r["epsilon"] for r in rs]
            lab = f"{ds} {var}: {mech}" if len(keys) > 1 else mech
            ax.plot(x, [r[theory] for r in rs], _MECH_STYLE.get(mech, "-"), color=c, lw=1.2, label=lab)
            ax.plot(x, [r[emp] for r in rs], _MECH_MARK.get(mech, "o"), color=c, ms=3.5, mfc="none")
    ax.set_yscale("log")
    ax.set_xlabel("BDPL ε")
    ax.set_ylabel("α at β = 5 % (lines: theory, markers: empirical 95 %)" if metric == "alpha" else "MSE (lines: 2b², markers: empirical)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=5, ncol=2)
    return ax


def _utility_figure(metric: str, title: str):
    """A figure function ``(rows, ax) -> ax`` for :func:`plot_utility` with a fixed title."""

    def plot(rows, ax):
        plot_utility(rows, ax, metric)
        present = ", ".join(dict.fromkeys(f"{r['dataset']}" for r in rows))
        ax.set_title(title.format(datasets=present), fontsize=9)
        return ax

    return plot


plot_paper_fig4 = _utility_figure("alpha", "Gaussian data: {datasets} (sum query)")
plot_paper_fig5 = _utility_figure("alpha", "Markov data: {datasets} (count query)")
plot_thesis_fig17 = _utility_figure("mse", "MSE of the ε-BDP count on genomic data (synthetic pedigrees)")
plot_thesis_fig18 = _utility_figure("mse", "MSE of the ε-BDP sum on Galton height data")
plot_thesis_fig19 = _utility_figure("mse", "MSE of the ε-BDP count on activity data: single days and complete data")
