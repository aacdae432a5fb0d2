"""Utility figures (paper Figs. 4, 5; thesis Figs. 17–19): calibrated Laplace mechanisms on data.

Lines are the theory (alpha = ln(1/beta) b, or MSE = 2 b^2), markers the empirical value over the
runs; one panel per dataset variant, as the sources draw them.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
from matplotlib.typing import LineStyleType

from .style import colors, count_text, legend, proxy

MECHANISMS = {
    "dp": "DP Laplace, τ = ε (not BDP)",
    "general": "general bound",
    "gaussian": "Gaussian bound",
    "markov": "Markov bound",
    "zhao": "Zhao et al. bound",
    "exact": "exact calibration (smallest ε-BDP scale; bdpsim's addition)",
    "optimal": "optimal integer noise (least E|Z| that is ε-BDP; bdpsim's addition)",
}
_STYLE: dict[str, LineStyleType] = {
    "dp": ":",
    "general": "--",
    "gaussian": "-",
    "markov": "-",
    "zhao": "-.",
    "exact": "-",
    "optimal": "-",
}
_MARK = {"dp": "^", "general": "s", "gaussian": "o", "markov": "o", "zhao": "d", "exact": "*", "optimal": "x"}
_METRIC = {"alpha": ("alpha_theory", "alpha_empirical", "α at β = 5 %"), "mse": ("mse_theory", "mse", "MSE")}
_DATASET = {
    "galton": "Galton",
    "kid_iq": "FamilyIQ",
    "synthetic_iq": "SyntheticIQ",
    "activity": "Activity",
    "electricity": "Electricity",
    "genomic": "genomic (synthetic)",
}


def _mech_color(mech: str) -> str:
    cyc = colors()
    return cyc[list(MECHANISMS).index(mech) % len(cyc)] if mech in MECHANISMS else "k"


def _finite(rows, key):
    return [r for r in rows if isinstance(r[key], float) and math.isfinite(r[key])]


def plot_utility(rows, ax, metric: str = "alpha", color_by: str = "mechanism"):
    """Theory lines and empirical markers of each mechanism (and variant), log y.

    ``color_by = "mechanism"``: one colour per mechanism (a single dataset variant per panel);
    ``color_by = "variant"``: one colour per dataset variant, line style per mechanism.
    Returns the legend handles (the caller places the legend).
    """
    theory, emp, ylabel = _METRIC[metric]
    cyc = colors()
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    handles = []
    for vi, var in enumerate(variants):
        for mech in dict.fromkeys(r["mechanism"] for r in rows):
            rs = _finite([r for r in rows if r["variant"] == var and r["mechanism"] == mech], theory)
            if not rs:
                continue
            c = _mech_color(mech) if color_by == "mechanism" else cyc[vi % len(cyc)]
            x = [r["epsilon"] for r in rs]
            ax.plot(x, [r[theory] for r in rs], _STYLE.get(mech, "-"), color=c, lw=1.3)
            ax.plot(x, [r[emp] for r in rs], _MARK.get(mech, "o"), color=c, ms=4, mfc="none")
    mechs = list(dict.fromkeys(r["mechanism"] for r in rows))
    if color_by == "mechanism":
        handles = [
            proxy(
                MECHANISMS.get(m, m),
                color=_mech_color(m),
                linestyle=_STYLE.get(m, "-"),
                marker=_MARK.get(m, "o"),
                mfc="none",
            )
            for m in mechs
        ]
    else:
        handles = [proxy(v, color=cyc[i % len(cyc)], linestyle="-") for i, v in enumerate(variants)]
        handles += [
            proxy(MECHANISMS.get(m, m), linestyle=_STYLE.get(m, "-"), marker=_MARK.get(m, "o"), mfc="none")
            for m in mechs
        ]
    handles.append(
        proxy(f"lines: theory; markers: empirical {'95 % quantile' if metric == 'alpha' else 'MSE'}")
    )
    ax.set_yscale("log")
    ax.yaxis.set_minor_formatter(NullFormatter())
    _log_ticks(ax)
    ax.set_xlabel("BDPL ε")
    ax.set_ylabel(ylabel)
    ax.set_xticks(range(2, 21, 2))
    ax.grid(alpha=0.3, which="both")
    return handles


def _log_ticks(ax) -> None:
    """A log axis spanning less than ~2.5 decades gets labelled ticks at 1, 2 and 5 × 10^k (one
    labelled tick per decade leaves a short axis with a single number)."""
    lo, hi = ax.get_ylim()
    if lo > 0 and hi / lo < 10**2.5:
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def utility_panels(rows) -> list[tuple[str, str]]:
    """The (dataset, variant) pairs of ``rows`` in first-seen order: one panel each."""
    return list(dict.fromkeys((r["dataset"], r["variant"]) for r in rows)) or [("", "")]


def _panels(rows, axes, metric, titles=None):
    axes = np.atleast_1d(axes)
    handles = []
    for k, (ax, (ds, var)) in enumerate(zip(axes, utility_panels(rows), strict=False)):
        rs = [r for r in rows if r["dataset"] == ds and r["variant"] == var]
        handles = plot_utility(rs, ax, metric) or handles
        label = titles[k] if titles else f"{_DATASET.get(ds, ds)}: {var}"
        n = rs[0]["n"] if rs else math.nan
        size = f", n = {int(n)}" if isinstance(n, (int, float)) and math.isfinite(n) else ""
        ax.set_title(f"({chr(97 + k)}) {label}{size}", fontsize=9)
    return axes, handles


def plot_paper_fig4(rows, axes):
    axes, handles = _panels(rows, axes, "alpha")
    legend(axes[-1], handles)
    axes[0].figure.suptitle(
        "Paper Fig. 4: error α at β = 5 % of ε-BDP Laplace sums on Gaussian data, "
        f"calibrated by each bound ({count_text(rows, 'runs')} runs per ε)",
        fontsize=10,
    )
    return axes


def plot_paper_fig5(rows, axes):
    axes, handles = _panels(rows, axes, "alpha")
    missing = not any(r["dataset"] == "electricity" for r in rows)
    if missing:
        handles.append(proxy("Electricity 70/80/90 kWh: not drawn, data file not supplied", color="crimson"))
    title = (
        "Paper Fig. 5: error α at β = 5 % of ε-BDP Laplace counts on Markov data, "
        f"calibrated by each bound ({count_text(rows, 'runs')} runs per ε)"
    )
    if len(axes) == 1:  # one narrow panel: the legend below it, in two columns, the title over two lines
        axes[0].legend(
            handles,
            [h.get_label() for h in handles],
            loc="upper center",
            bbox_to_anchor=(0.5, -0.16),
            ncol=2,
            fontsize=8,
            frameon=False,
            borderaxespad=0.0,
        )
        title = title.replace(", calibrated", ",\ncalibrated")
    else:
        legend(axes[-1], handles)
    axes[0].figure.suptitle(title, fontsize=10)
    return axes


def plot_thesis_fig17(rows, ax):
    """One colour per family size m (general bound, Laplace scale m/ε); the DP baseline (scale 1/ε,
    the same for every m) once, in black."""
    cyc = colors()
    handles = []
    dp = [r for r in rows if r["mechanism"] == "dp"]
    dp = [r for r in dp if r["variant"] == dp[0]["variant"]] if dp else []
    bdp = [r for r in rows if r["mechanism"] != "dp"]
    for k, var in enumerate(dict.fromkeys(r["variant"] for r in bdp)):
        rs = _finite([r for r in bdp if r["variant"] == var], "mse_theory")
        c = cyc[k % len(cyc)]
        x = [r["epsilon"] for r in rs]
        ax.plot(x, [r["mse_theory"] for r in rs], "--", color=c, lw=1.3)
        ax.plot(x, [r["mse"] for r in rs], "s", color=c, ms=4, mfc="none")
        handles.append(proxy(f"general bound, {var}", color=c, linestyle="--", marker="s", mfc="none"))
    if dp:
        rs = _finite(dp, "mse_theory")
        x = [r["epsilon"] for r in rs]
        ax.plot(x, [r["mse_theory"] for r in rs], ":", color="k", lw=1.3)
        ax.plot(x, [r["mse"] for r in rs], "^", color="k", ms=4, mfc="none")
        handles.append(proxy(MECHANISMS["dp"] + ", any m", color="k", linestyle=":", marker="^", mfc="none"))
    handles.append(proxy("lines: theory 2b²; markers: empirical MSE"))
    ax.set_yscale("log")
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("BDPL ε")
    ax.set_ylabel("MSE")
    ax.set_xticks(range(2, 21, 2))
    ax.grid(alpha=0.3, which="both")
    legend(ax, handles)
    r0 = next((r for r in rows if r["mechanism"] != "dp"), rows[0] if rows else {})
    sets = r0.get("databases", math.nan)
    truths = sorted({round(r["true_value"], 2) for r in bdp})
    mean = f"{truths[0]:.2f}" + (f"–{truths[-1]:.2f}" if len(truths) > 1 else "")
    setting = (
        f"{int(sets)} data sets × {int(r0['n'])} people each, mean true count {mean} (thesis: 40.29)"
        if isinstance(sets, (int, float)) and math.isfinite(sets) and sets > 1
        else "synthetic pedigrees"
    )
    ax.set_title(
        f"Thesis Fig. 17: MSE of the ε-BDP count of BB on genomic data (general bound, families of ≤ m),\n"
        f"one run per data set; synthetic Mendelian populations: {setting}",
        fontsize=9,
    )
    return ax


def plot_thesis_fig18(rows, ax):
    handles = plot_utility(rows, ax, "mse")
    bias = [r.get("clip_bias_mse", math.nan) for r in rows]
    bias = [b for b in bias if isinstance(b, float) and math.isfinite(b)]
    if bias and max(bias) > 0:
        ax.axhline(max(bias), color="0.4", lw=1, ls=(0, (1, 2)))
        handles.append(
            proxy(
                f"clipping bias² {max(bias):.3g} (in the authors' MSE only)",
                color="0.4",
                linestyle=(0, (1, 2)),
            )
        )
    legend(ax, handles)
    r0 = rows[0] if rows else {}
    n_sets = r0.get("databases", math.nan)
    sets = f"{int(n_sets)} " if isinstance(n_sets, (int, float)) and math.isfinite(n_sets) else ""
    ax.set_title(
        f"Thesis Fig. 18: MSE of the ε-BDP sum of heights, Galton {r0.get('variant', 'trios')}\n"
        f"({sets}data sets of n = 3: child, father, mother; {count_text(rows, 'runs')} runs per ε)",
        fontsize=9,
    )
    return ax


def plot_utility_optimal(rows, axes):
    """MSE of the optimal integer noise (theory E Z²) and of the exactly calibrated Laplace noise
    (theory 2b²), both ε-BDP over every adversary of the fitted chain, one panel per variant."""
    order = {"single days": 0, "complete data": 1}
    rows = sorted(rows, key=lambda r: (r["dataset"] != "activity", order.get(r["variant"], 2)))
    axes, handles = _panels(rows, axes, "mse")
    if not any(r["dataset"] == "electricity" for r in rows):
        handles.append(proxy("Electricity 70/80/90 kWh: not drawn, data file not supplied", color="crimson"))
    legend(axes[-1], handles)
    eps = [
        r["epsilon"] for r in rows if isinstance(r["epsilon"], (int, float)) and math.isfinite(r["epsilon"])
    ]
    if eps:  # the eps of the rows, not the paper figures' 1..20
        for ax in axes:
            ax.set_xticks(range(math.floor(min(eps)), math.ceil(max(eps)) + 1))
            ax.set_xlim(min(eps) - 0.5, max(eps) + 0.5)
    axes[0].figure.suptitle(
        "MSE of ε-BDP counts: the optimal integer noise (least E|Z|) vs the exactly calibrated "
        f"Laplace noise ({count_text(rows, 'runs')} runs per ε)",
        fontsize=10,
    )
    return axes


def plot_thesis_fig19(rows, axes):
    order = {"single days": 0, "complete data": 1}
    rows = sorted(rows, key=lambda r: order.get(r["variant"], 2))
    axes, handles = _panels(rows, axes, "mse", titles=["single days", "complete data"])
    legend(axes[-1], handles)
    axes[0].figure.suptitle(
        "Thesis Fig. 19: MSE of ε-BDP Laplace counts of active 5-min intervals (activity data), "
        "calibrated by each bound",
        fontsize=10,
    )
    return axes
