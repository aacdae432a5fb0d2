"""Simulated figures: empirical and exact BDPL against the bounds (thesis Figs. 9, 10, 15).

Colour = the grouping parameter (n or ε), marker = the estimator; the legend says each once.
"""

from __future__ import annotations

import math

import numpy as np

from ..estimators import ESTIMATORS
from .style import colors, count_text, legend, proxy

KEEP = [
    "estimator",
    "bdpl_p99",
    "bdpl_p99_ci_low",
    "bdpl_p99_ci_high",
    "bdpl_max",
    "noise_floor",
    "bdpl_exact",
    "bdpl_exact_p99",
    "bound_general",
    "bound_model",
    "bound_zhao",
    "n_adversaries",
    "n_samples",
    # which estimator variant made the numbers, and its own diagnostics
    "kde_ratio",
    "kde_positive_shift",
    "nonpositive_points",
    "failed_adversaries",
    "bdpl_se_max",
    "se_target_missed",
    "samples_max",
]

SYMBOLS = {"epsilon": "ε", "rho": "ρ", "gamma": "γ"}
DEFAULT_STYLES = {
    "kde": {"marker": "x", "label": "KDE estimate, p99 over adversaries (95 % CI)"},
    "mixture": {"marker": "+", "label": "mixture estimate, p99 (95 % CI)"},
    "exact": {"marker": "o", "mfc": "none", "label": "exact, max over the examined adversaries"},
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


def _plot_estimates(ax, rs, x: str, styles: dict, c, seen: list, tops: list) -> bool:
    """One group's rows ``rs`` of :func:`plot_simulated`, per estimator in colour ``c``: exact values
    as markers, estimates as their percentile with its CI; appends to ``seen`` (estimators drawn) and
    ``tops`` (their highest values). Returns whether an interval is unbounded above."""
    unbounded = False
    for est in dict.fromkeys(r["estimator"] for r in rs):
        st = styles.get(est, {"marker": "x", "label": est})
        e = sorted((r for r in rs if r["estimator"] == est), key=lambda r: r[x])
        xs = _arr(e, x)
        if est not in seen:
            seen.append(est)
        mk = dict(marker=st["marker"], mfc=st.get("mfc", c), ms=st.get("ms", 6), color=c, linestyle="none")
        if _is_exact(est):
            ax.plot(xs, _arr(e, "bdpl_max"), **mk)
            tops.append(np.nanmax(_arr(e, "bdpl_max")))
            continue
        p, lo, hi = _arr(e, "bdpl_p99"), _arr(e, "bdpl_p99_ci_low"), _arr(e, "bdpl_p99_ci_high")
        open_hi = ~np.isfinite(hi)  # too few adversaries to bound the percentile from above
        yerr = np.vstack([np.clip(p - lo, 0, None), np.clip(np.where(open_hi, p, hi) - p, 0, None)])
        ax.errorbar(xs, p, yerr=np.nan_to_num(yerr), capsize=2, elinewidth=0.8, **mk)
        tops.append(np.nanmax(np.where(open_hi, p, hi)))
        if open_hi.any():
            ax.plot(xs[open_hi], p[open_hi], marker="^", color=c, linestyle="none", ms=4)
            unbounded = True
    return unbounded


def plot_simulated(
    rows,
    ax,
    x: str,
    group: str,
    bound_label: str,
    styles: dict | None = None,
    *,
    only=None,
    bound_curve=None,
    fit_y: bool = False,
    show_legend: bool = True,
):
    """Empirical estimates (percentile with its CI), exact values and the bound, per ``group``.

    ``styles`` maps an estimator name to its marker (``marker``, optional ``mfc``, ``ms``) and its
    legend ``label``; the bound is min(general, model bound), a solid line: through the grid rows,
    or ``bound_curve(group value, rows) -> (x, y)`` (a dense analytic curve). ``only``: draw that
    group value alone (one panel per group; colours stay those of the whole figure). ``fit_y``:
    scale the y-axis to the estimates (the bound may leave the plot; where it does is written on it).
    """
    styles = {**DEFAULT_STYLES, **(styles or {})}
    cyc = colors()
    groups = sorted(dict.fromkeys(r[group] for r in rows))
    seen: list[str] = []
    unbounded = False
    tops: list[float] = []
    for k, g in enumerate(groups):
        if only is not None and g != only:
            continue
        c = cyc[k % len(cyc)]
        rs = [r for r in rows if r[group] == g]
        unbounded = _plot_estimates(ax, rs, x, styles, c, seen, tops) or unbounded
        b = sorted((r for r in rs if r["estimator"] in ESTIMATORS), key=lambda r: r[x])
        if bound_curve is not None:
            xs, bound = (np.asarray(v, dtype=float) for v in bound_curve(g, b))
        else:
            xs = _arr(b, x)
            with np.errstate(all="ignore"):
                bound = np.nanmin(
                    np.array([[r["bound_general"], r["bound_model"]] for r in b], dtype=float), axis=1
                )
        ok = np.isfinite(bound)
        ax.plot(xs[ok], bound[ok], "-", color=c, lw=1.2)
        if bound_curve is not None and only is not None:
            ax.set_xlim(0.0, float(xs[-1]) * 1.02)
        if fit_y and tops:
            top = 1.15 * max(tops)
            ax.set_ylim(0.0, top)
            out = ok & (bound > top)
            if out.any():  # said in the panel title (see _panels)
                ax._bdpsim_bound_leaves = float(xs[int(np.flatnonzero(out)[0])])
    name = SYMBOLS.get(group, group)
    handles = [
        proxy(f"{name} = {g:g}", color=cyc[k % len(cyc)], linestyle="-")
        for k, g in enumerate(groups)
        if only is None
    ]
    for est in seen:
        st = styles.get(est, {"marker": "x", "label": est})
        handles.append(proxy(st["label"], marker=st["marker"], mfc=st.get("mfc", "k"), ms=st.get("ms", 6)))
    handles.append(proxy(bound_label, linestyle="-"))
    if unbounded:
        handles.append(proxy("interval unbounded above (too few adversaries)", marker="^", ms=4))
    if show_legend:
        legend(ax, handles)
    ax.set_ylabel("BDPL (nats)")
    ax.grid(alpha=0.3)
    return ax


def _gaussian_curve(general: bool):
    """min(general, Gaussian) (``general``) or the Gaussian bound alone, over a dense ρ grid in
    (0, 1/(n − 2)): the Gaussian factor ``n²/(4(1/ρ − n + 2)) + 1`` (paper Thm 5.5) times the
    rows' own scale (ε for the clipped sum, ε'·|x − x'| target-dependent), read off a grid row."""
    from ..bounds import gaussian_factor

    def curve(n, rs):
        n = int(n)
        r0 = next(r for r in rs if np.isfinite(float(r["bound_model"])))
        scale = float(r0["bound_model"]) / gaussian_factor(float(r0["rho"]), n)
        top = 1.0 / (n - 2) if n > 2 else 1.0
        rho = np.linspace(top * 1e-3, top * (1 - 1e-4) if n > 2 else top, 600)
        y = np.array([gaussian_factor(v, n) for v in rho]) * scale
        if general and np.isfinite(float(r0["bound_general"])):
            y = np.minimum(y, float(r0["bound_general"]))
        return rho, y

    return curve


def _markov_curve(eps, rs):
    """min(Markov ε + 4 ln γ, general n ε) over a dense γ grid (thesis Fig. 15's bound)."""
    r0 = rs[0]
    g = np.linspace(min(r["gamma"] for r in rs), max(r["gamma"] for r in rs), 400)
    general = float(r0["bound_general"]) if np.isfinite(float(r0["bound_general"])) else np.inf
    return g, np.minimum(float(eps) + 4.0 * np.log(g), general)


def _panels(rows, axes, x, group, bound_label, styles, bound_curve, fit_y, title):
    groups = sorted(dict.fromkeys(r[group] for r in rows))
    axes = list(np.atleast_1d(axes))
    for k, (ax, g) in enumerate(zip(axes, groups)):
        plot_simulated(
            rows,
            ax,
            x,
            group,
            bound_label,
            styles,
            only=g,
            bound_curve=bound_curve,
            fit_y=fit_y,
            show_legend=False,
        )
        leaves = getattr(ax, "_bdpsim_bound_leaves", None)
        note = "" if leaves is None else f"\nbound above the plot for {SYMBOLS.get(x, x)} > {leaves:.2g}"
        ax.set_title(f"({chr(97 + k)}) {SYMBOLS.get(group, group)} = {g:g}{note}", fontsize=9)
        if k:
            ax.set_ylabel("")
    # the legend (estimators and the bound) once, right of the last panel
    _legend_only(axes[-1], rows, bound_label, styles)
    axes[0].figure.suptitle(title, fontsize=10)
    return axes


def _legend_only(ax, rows, bound_label, styles):
    styles = {**DEFAULT_STYLES, **(styles or {})}
    handles = []
    for est in dict.fromkeys(r["estimator"] for r in rows):
        st = styles.get(est, {"marker": "x", "label": est})
        handles.append(proxy(st["label"], marker=st["marker"], mfc=st.get("mfc", "k"), ms=st.get("ms", 6)))
    handles.append(proxy(bound_label, linestyle="-"))
    legend(ax, handles)


def plot_thesis_fig09(rows, axes):
    """One panel per n (the thesis draws the three in one): the 10 ρ values of each n apart."""
    axes = _panels(
        rows,
        axes,
        "rho",
        "n",
        "min(general, Gaussian bound)",
        None,
        _gaussian_curve(True),
        False,
        "Thesis Fig. 9: empirical BDPL of the ε = 1 clipped sum [0, 10] on Gaussian data "
        f"({count_text(rows, 'n_adversaries')} random μ, Σ_ρ per point) vs min(general, Gaussian bound)",
    )
    for ax in axes:
        ax.set_xlabel("max. Pearson correlation ρ")
    return axes


FIG10_STYLES = {
    "kde": {"marker": "o", "ms": 4, "label": "unclipped sum: KDE p99 (dots)"},
    "exact": {
        "marker": "s",
        "mfc": "none",
        "ms": 7,
        "label": "unclipped sum: exact, max over the sampled adversaries",
    },
    "kde-clipped": {"marker": "x", "ms": 6, "label": "clipped sum [0, 10]: KDE p99 (crosses)"},
}


def plot_thesis_fig10(rows, axes):
    """One panel per n, the y-axis scaled to the estimates (the bound runs far above them)."""
    axes = _panels(
        rows,
        axes,
        "rho",
        "n",
        "Gaussian bound (Thm 5.5)",
        FIG10_STYLES,
        _gaussian_curve(False),
        True,
        "Thesis Fig. 10: target-dependent BDPL (x = 0, x' = 10) of the unclipped sum + Lap(10) on "
        "Gaussian data vs the Gaussian bound; crosses: Fig. 9's clipped sum",
    )
    for k, ax in enumerate(axes):
        ax.set_xlabel("max. Pearson correlation ρ")
        ax.set_ylabel("target-dependent BDPL (nats)" if k == 0 else "")
    return axes


def plot_thesis_fig15(rows, ax):
    plot_simulated(
        rows,
        ax,
        "gamma",
        "epsilon",
        "min(Markov, general bound)",
        {"exact": {"marker": "o", "mfc": "none", "label": "exact, max over all adversaries"}},
        bound_curve=_markov_curve,
    )
    ax.set_xlabel("transition ratio γ")
    ax.set_title(
        "Thesis Fig. 15: KDE vs exact BDPL of the ε-DP count,\nMarkov chain of thesis Fig. 14 "
        "(symmetric, ratio γ), n = 10",
        fontsize=9,
    )
    return ax
