"""Simulated figures: empirical and exact BDPL against the bounds (thesis Figs. 9, 10, 15).

Colour = the grouping parameter (n or ε), marker = the estimator; the legend says each once.
"""

from __future__ import annotations

import math

import numpy as np

from ..estimators import ESTIMATORS
from . import colors, legend, proxy

KEEP = ["estimator", "bdpl_p99", "bdpl_p99_ci_low", "bdpl_p99_ci_high", "bdpl_max", "noise_floor",
        "bdpl_exact", "bdpl_exact_p99", "bound_general", "bound_model", "bound_zhao", "n_adversaries", "n_samples",
        # which estimator variant made the numbers, and its own diagnostics
        "kde_ratio", "kde_positive_shift", "nonpositive_points", "failed_adversaries",
        "bdpl_se_max", "se_target_missed", "samples_max"]

SYMBOLS = {"epsilon": "ε", "rho": "ρ", "gamma": "γ"}
DEFAULT_STYLES = {
    "kde": {"marker": "x", "label": "KDE estimate, p99 over adversaries (95 % CI)"},
    "mixture": {"marker": "+", "label": "mixture estimate, p99 (95 % CI)"},
    "exact": {"marker": "o", "mfc": "none", "label": "exact, max over adversaries"},
}


def _is_exact(estimator: str) -> bool:
    """Whether the rows of ``estimator`` are exact values (drawn as their max, without a percentile)."""
    return estimator in ESTIMATORS and ESTIMATORS[estimator].exact


def sim_rows(summary: list[dict], x: str, group: str, extra=()) -> list[dict]:
    """The columns of ``summary.csv`` rows that a simulated figure plots (its CSV)."""
    keep = [group, x, *KEEP, *extra]
    return [{k: r.get(k, math.nan) for k in keep} for r in summary]


def _arr(rows, key) -> np.ndarray:
    return np.array([r[key] for r in rows], dtype=float)


def plot_simulated(rows, ax, x: str, group: str, bound_label: str, styles: dict | None = None):
    """Empirical estimates (percentile with its CI), exact values and the bound, per ``group``.

    ``styles`` maps an estimator name to its marker (``marker``, optional ``mfc``, ``ms``) and its
    legend ``label``; the bound is min(general, model bound) per row, a solid line.
    """
    styles = {**DEFAULT_STYLES, **(styles or {})}
    cyc = colors()
    groups = sorted(dict.fromkeys(r[group] for r in rows))
    seen = []
    unbounded = False
    for k, g in enumerate(groups):
        c = cyc[k % len(cyc)]
        rs = [r for r in rows if r[group] == g]
        for est in dict.fromkeys(r["estimator"] for r in rs):
            st = styles.get(est, {"marker": "x", "label": est})
            e = sorted((r for r in rs if r["estimator"] == est), key=lambda r: r[x])
            xs = _arr(e, x)
            if est not in seen:
                seen.append(est)
            mk = dict(marker=st["marker"], mfc=st.get("mfc", c), ms=st.get("ms", 6), color=c, linestyle="none")
            if _is_exact(est):
                ax.plot(xs, _arr(e, "bdpl_max"), **mk)
                continue
            p, lo, hi = _arr(e, "bdpl_p99"), _arr(e, "bdpl_p99_ci_low"), _arr(e, "bdpl_p99_ci_high")
            open_hi = ~np.isfinite(hi)  # too few adversaries to bound the percentile from above
            yerr = np.vstack([np.clip(p - lo, 0, None), np.clip(np.where(open_hi, p, hi) - p, 0, None)])
            ax.errorbar(xs, p, yerr=np.nan_to_num(yerr), capsize=2, elinewidth=0.8, **mk)
            if open_hi.any():
                ax.plot(xs[open_hi], p[open_hi], marker="^", color=c, linestyle="none", ms=4)
                unbounded = True
        b = sorted((r for r in rs if r["estimator"] in ESTIMATORS), key=lambda r: r[x])
        xs = _arr(b, x)
        with np.errstate(all="ignore"):
            bound = np.nanmin(np.array([[r["bound_general"], r["bound_model"]] for r in b], dtype=float), axis=1)
        ok = np.isfinite(bound)
        ax.plot(xs[ok], bound[ok], "-", color=c, lw=1.2)
    name = SYMBOLS.get(group, group)
    handles = [proxy(f"{name} = {g:g}", color=cyc[k % len(cyc)], linestyle="-") for k, g in enumerate(groups)]
    for est in seen:
        st = styles.get(est, {"marker": "x", "label": est})
        handles.append(proxy(st["label"], marker=st["marker"], mfc=st.get("mfc", "k"), ms=st.get("ms", 6)))
    handles.append(proxy(bound_label, linestyle="-"))
    if unbounded:
        handles.append(proxy("interval unbounded above (too few adversaries)", marker="^", ms=4))
    legend(ax, handles)
    ax.set_ylabel("BDPL (nats)")
    ax.grid(alpha=0.3)
    return ax


def plot_thesis_fig09(rows, ax):
    plot_simulated(rows, ax, "rho", "n", "min(general, Gaussian bound)")
    ax.set_xlabel("max. Pearson correlation ρ")
    ax.set_title("Empirical BDPL, Gaussian data, clipped sum [0, 10], ε = 1", fontsize=9)
    return ax


FIG10_STYLES = {
    "kde": {"marker": "o", "ms": 4, "label": "unclipped sum: KDE p99 (dots)"},
    "exact": {"marker": "s", "mfc": "none", "ms": 7, "label": "unclipped sum: exact max over adversaries"},
    "kde-clipped": {"marker": "x", "ms": 6, "label": "clipped sum [0, 10]: KDE p99 (crosses)"},
}


def plot_thesis_fig10(rows, ax):
    plot_simulated(rows, ax, "rho", "n", "Gaussian bound (Thm 5.5)", FIG10_STYLES)
    ax.set_xlabel("max. Pearson correlation ρ")
    ax.set_ylabel("target-dependent BDPL, x = 0, x' = 10")
    ax.set_title("Unclipped sum (dots) vs clipped sum (crosses), Gaussian data", fontsize=9)
    return ax


def plot_thesis_fig15(rows, ax):
    plot_simulated(rows, ax, "gamma", "epsilon", "min(Markov, general bound)",
                   {"exact": {"marker": "o", "mfc": "none", "label": "exact, max over all adversaries"}})
    ax.set_xlabel("transition ratio γ")
    ax.set_title("Empirical vs exact BDPL, Markov chain n = 10, ε-DP count", fontsize=9)
    return ax
