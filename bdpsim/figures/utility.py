"""Utility figures (paper Figs. 4, 5; thesis Figs. 17–19): calibrated Laplace mechanisms on data.

Lines are the theory (alpha = ln(1/beta) b, or MSE = 2 b^2), markers the empirical value over the
runs; one panel per dataset variant, as the sources draw them.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.ticker import NullFormatter

from . import colors, legend, proxy

MECHANISMS = {"dp": "DP Laplace, τ = ε (not BDP)", "general": "general bound", "gaussian": "Gaussian bound",
              "markov": "Markov bound", "zhao": "Zhao et al. bound",
              "exact": "exact calibration (smallest ε-BDP scale)"}
_STYLE = {"dp": ":", "general": "--", "gaussian": "-", "markov": "-", "zhao": "-.", "exact": "-"}
_MARK = {"dp": "^", "general": "s", "gaussian": "o", "markov": "o", "zhao": "d", "exact": "*"}
_METRIC = {"alpha": ("alpha_theory", "alpha_empirical", "α at β = 5 %"),
           "mse": ("mse_theory", "mse", "MSE")}
_DATASET = {"galton": "Galton", "kid_iq": "FamilyIQ", "synthetic_iq": "SyntheticIQ", "activity": "Activity",
            "electricity": "Electricity", "genomic": "genomic (synthetic)"}


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
        handles = [proxy(MECHANISMS.get(m, m), color=_mech_color(m), linestyle=_STYLE.get(m, "-"),
                         marker=_MARK.get(m, "o"), mfc="none") for m in mechs]
    else:
        handles = [proxy(v, color=cyc[i % len(cyc)], linestyle="-") for i, v in enumerate(variants)]
        handles += [proxy(MECHANISMS.get(m, m), linestyle=_STYLE.get(m, "-"), marker=_MARK.get(m, "o"), mfc="none")
                    for m in mechs]
    handles.append(proxy(f"lines: theory; markers: empirical {'95 % quantile' if metric == 'alpha' else 'MSE'}"))
    ax.set_yscale("log")
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("BDPL ε")
    ax.set_ylabel(ylabel)
    ax.set_xticks(range(2, 21, 2))
    ax.grid(alpha=0.3, which="both")
    return handles


def utility_panels(rows) -> list[tuple[str, str]]:
    """The (dataset, variant) pairs of ``rows`` in first-seen order: one panel each."""
    return list(dict.fromkeys((r["dataset"], r["variant"]) for r in rows)) or [("", "")]


def _panels(rows, axes, metric, titles=None):
    axes = np.atleast_1d(axes)
    handles = []
    for k, (ax, (ds, var)) in enumerate(zip(axes, utility_panels(rows))):
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
    return axes


def plot_paper_fig5(rows, axes):
    axes, handles = _panels(rows, axes, "alpha")
    if not any(r["dataset"] == "electricity" for r in rows):
        handles.append(proxy("Electricity 70/80/90 kWh: not drawn, data file not supplied", color="crimson"))
    legend(axes[-1], handles)
    return axes


def plot_thesis_fig17(rows, ax):
    handles = plot_utility(rows, ax, "mse", color_by="variant")
    legend(ax, handles)
    ax.set_title("MSE of the ε-BDP count on genomic data (synthetic pedigrees)", fontsize=9)
    return ax


def plot_thesis_fig18(rows, ax):
    handles = plot_utility(rows, ax, "mse")
    bias = [r.get("clip_bias_mse", math.nan) for r in rows]
    bias = [b for b in bias if isinstance(b, float) and math.isfinite(b)]
    if bias and max(bias) > 0:
        ax.axhline(max(bias), color="0.4", lw=1, ls=(0, (1, 2)))
        handles.append(proxy(f"clipping bias² {max(bias):.3g} (in the authors' MSE only)",
                             color="0.4", linestyle=(0, (1, 2))))
    legend(ax, handles)
    r0 = rows[0] if rows else {}
    ax.set_title(f"MSE of the ε-BDP sum on Galton {r0.get('variant', 'trios')} (n = 3)", fontsize=9)
    return ax


def plot_thesis_fig19(rows, axes):
    order = {"single days": 0, "complete data": 1}
    rows = sorted(rows, key=lambda r: order.get(r["variant"], 2))
    axes, handles = _panels(rows, axes, "mse", titles=["single days", "complete data"])
    legend(axes[-1], handles)
    return axes
