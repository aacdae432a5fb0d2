"""The Pufferfish paper's Figure 2 (:mod:`bdpsim.studies.pufferfish_fig2`): L1 error of the Markov Quilt
mechanism's private histogram vs ε, the exact BDPL of the same release at small T, and its BDPL at
T = 5000: the audit's certified lower bound and the exact value over short windows."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

MQM = "markov-quilt-approx"
PANEL_TITLE = {"pi_est": "(a) vary π_est", "g_est": "(b) vary g_est", "T": "(c) vary T"}
SYMBOL = {"pi_est": "π_est", "g_est": "g_est", "T": "T"}


def _num(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _sorted(rows, key):
    return sorted(rows, key=lambda r: _num(r[key]))


def _col(rows, key) -> np.ndarray:
    return np.array([_num(r[key]) for r in rows])


def _fmt(v: float) -> str:
    return f"{int(v)}" if float(v).is_integer() and v >= 1 else f"{v:g}"


def _l1_panel(rows: Sequence[dict], ax):
    from .style import colors, legend, proxy

    cyc = colors()
    mqm = [r for r in rows if r["mechanism"] == MQM]
    par = mqm[0]["parameter"]
    values = sorted({_num(r["value"]) for r in mqm})
    for k, v in enumerate(values):
        rs = _sorted([r for r in mqm if _num(r["value"]) == v], "epsilon")
        c = cyc[k % len(cyc)]
        e = _col(rs, "epsilon")
        ax.plot(e, _col(rs, "l1_error_expected"), "-", color=c, lw=1.2, alpha=0.8)
        ax.errorbar(
            e,
            _col(rs, "l1_error_mean"),
            yerr=2 * _col(rs, "l1_error_se"),
            fmt="o",
            color=c,
            ms=4,
            capsize=2,
            lw=1,
            label=f"{SYMBOL[par]} = {_fmt(v)}",
        )
    grp = _sorted([r for r in rows if r["mechanism"] == "group-dp"], "epsilon")
    if grp:
        e = _col(grp, "epsilon")
        ax.plot(e, _col(grp, "l1_error_expected"), "--", color="0.45", lw=1.2)
        ax.errorbar(
            e,
            _col(grp, "l1_error_mean"),
            yerr=2 * _col(grp, "l1_error_se"),
            fmt="s",
            color="0.45",
            ms=3.5,
            capsize=2,
            lw=1,
            label="group DP, σ = T/ε",
        )
    r0 = mqm[0]
    fixed = {
        "pi_est": f"π_est = {_fmt(_num(r0['pi_est']))}",
        "g_est": f"g_est = {_fmt(_num(r0['g_est']))}",
        "T": f"T = {int(_num(r0['T']))}",
    }
    setting = ", ".join(t for p, t in fixed.items() if p != par)
    handles = ax.get_legend_handles_labels()[0] + [
        proxy(f"dots: mean of {int(_num(r0['runs']))} runs ± 2 SE", color="0.2", marker="o"),
        proxy("lines: expectation 2kσ/T", color="0.2", linestyle="-"),
    ]
    legend(ax, handles)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ε (log scale)")
    ax.set_ylabel("averaged L1 error of the frequencies")
    ax.set_title(f"{PANEL_TITLE[par]} ({setting})\nMQMApprox histogram, k = 5 states", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    return ax


def _bdpl_panel(rows: Sequence[dict], ax):
    from .style import colors, legend, proxy

    cyc = colors()
    Ts = sorted({int(_num(r["T"])) for r in rows})
    style = {MQM: ("-", "o"), "laplace-dp": ("--", "^")}
    for k, T in enumerate(Ts):
        c = cyc[k % len(cyc)]
        for mech, (ls, mk) in style.items():
            rs = _sorted([r for r in rows if int(_num(r["T"])) == T and r["mechanism"] == mech], "epsilon")
            if rs:
                e = _col(rs, "epsilon")
                ax.plot(
                    e,
                    _col(rs, "bdpl_exact") / e,
                    ls,
                    marker=mk,
                    color=c,
                    ms=3.5,
                    lw=1.2,
                    label=f"T = {T}" if mech == MQM else None,
                )
    ax.axhline(1.0, linestyle=":", color="0.3", lw=1.2)
    handles = ax.get_legend_handles_labels()[0] + [
        proxy("MQM release (here σ = T/ε)", color="0.2", linestyle="-", marker="o"),
        proxy("ε-DP Laplace histogram, b = 2/ε", color="0.2", linestyle="--", marker="^"),
        proxy("BDPL = ε", color="0.3", linestyle=":"),
    ]
    legend(ax, handles)
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("ε (log scale)")
    ax.set_ylabel("exact BDPL / ε (all adversaries)")
    ax.set_title(
        "(d) bdpsim: exact BDPL of the same histogram release\n"
        f"on the same chain, T = {Ts[0]}..{Ts[-1]} (π_est = 0.05, g_est = 0.1)",
        fontsize=9,
    )
    ax.grid(alpha=0.3, which="both")
    return ax


def _audit_panel(rows: Sequence[dict], ax, legend_ax=None):
    """(e): BDPL vs ε (log-log) at the large T (the audit's certified lower bound, its estimate ± 2 SE,
    the exact BDPL over short windows) and the audit's honesty check at the small T; the legend in
    ``legend_ax`` (an unused grid slot, turned into a legend box) when given, else beside ``ax``."""
    from matplotlib.ticker import NullFormatter

    from .style import colors, legend, proxy

    cyc = colors()
    Ts = sorted({int(_num(r["T"])) for r in rows})
    big, small = Ts[-1], Ts[0]
    every = [
        v
        for r in rows
        for k in ("bdpl_lower", "bdpl_exact", "bdpl_exact_windows", "epsilon")
        if (v := _num(r.get(k))) > 0
    ]
    floor = min(every) / 3 if every else 1e-3
    handles = []
    for T, c in ((big, cyc[0]), (small, cyc[1])) if small != big else ((big, cyc[0]),):
        rs = _sorted([r for r in rows if int(_num(r["T"])) == T], "epsilon")
        e = _col(rs, "epsilon")
        lo, est, se = _col(rs, "bdpl_lower"), _col(rs, "bdpl_audit"), _col(rs, "bdpl_audit_se")
        if T == big:
            w = _col(rs, "bdpl_exact_windows")
            n_w = (
                int(_num(rs[0].get("window_n", math.nan))) if np.isfinite(_num(rs[0].get("window_n"))) else 0
            )
            if np.isfinite(w).any():
                ax.plot(e, w, "-", color=c, marker="D", ms=3.5, lw=1.2)
                handles.append(
                    proxy(
                        f"T = {T}: exact BDPL over the adversaries whose unknown records\n"
                        f"form a window of ≤ {n_w - 1} records (a lower bound on the BDPL)",
                        color=c,
                        linestyle="-",
                        marker="D",
                    )
                )
        else:
            ex = _col(rs, "bdpl_exact")
            ax.plot(e, ex, "-", color=c, marker="o", ms=3.5, lw=1.2)
            handles.append(
                proxy(
                    f"T = {T}: exact BDPL over all adversaries (as in panel d)",
                    color=c,
                    linestyle="-",
                    marker="o",
                )
            )
        ok = est > 0
        ax.errorbar(
            e[ok] * 1.06,
            est[ok],
            yerr=np.minimum(2 * se[ok], 0.999 * est[ok]),
            fmt="o",
            mfc="white",
            color=c,
            ms=3.5,
            capsize=2,
            lw=0.9,
        )
        pos = lo > 0
        ax.plot(e[pos], lo[pos], "^", color=c, ms=7, mec="black", mew=0.6)
        zero = ~pos & np.isfinite(lo)
        if zero.any():
            ax.plot(
                e[zero], np.full(zero.sum(), floor), "v", color=c, ms=7, mec="black", mew=0.6, clip_on=False
            )
        handles.append(
            proxy(
                f"certified 95 % lower bound (audit, T = {T})",
                color=c,
                marker="^",
                linestyle="none",
                ms=7,
                mec="black",
                mew=0.6,
            )
        )
        handles.append(
            proxy(f"audit estimate ± 2 SE (T = {T})", color=c, marker="o", linestyle="none", mfc="white")
        )
    ax.plot(
        [min(_col(rows, "epsilon")), max(_col(rows, "epsilon"))],
        [min(_col(rows, "epsilon")), max(_col(rows, "epsilon"))],
        ":",
        color="0.3",
        lw=1.2,
    )
    handles += [
        proxy(
            "at the bottom edge: nothing certified (bound 0)",
            color="0.2",
            marker="v",
            linestyle="none",
            mec="black",
            mew=0.6,
        ),
        proxy("BDPL = ε", color="0.3", linestyle=":"),
    ]
    if legend_ax is not None:
        legend_ax.axis("off")
        legend_ax.legend(
            handles=handles,
            loc="center left",
            frameon=False,
            fontsize=8,
            title="(e): audit = bdpsim's black-box estimator (window adversaries)",
            title_fontsize=8,
        )
    else:
        legend(ax, handles)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(bottom=floor)
    ax.set_xlabel("ε (log scale)")
    ax.set_ylabel("BDPL (log scale)")
    r0 = rows[0]
    calls = f"{_num(r0['audit_budget']):.0e}".replace("e+0", "e")
    ax.set_title(
        f"(e) bdpsim: BDPL of the MQM release at T = {big} (π_est = {_fmt(_num(r0['pi_est']))}, "
        f"g_est = {_fmt(_num(r0['g_est']))})\ncertified 95 % lower bound (audit, T = {big}), "
        f"{calls} calls per ε; audit checked at T = {small}",
        fontsize=9,
    )
    ax.grid(alpha=0.3, which="both")
    return ax


def plot_pufferfish_fig2(rows: Sequence[dict], axes):
    """Panels (a)-(c): averaged L1 distance between the private and the exact frequency histogram
    vs ε (log-log) per value of π_est, g_est and T (dots: Monte Carlo mean ± 2 SE; lines: the
    expectation 2kσ/T; grey: group DP); (d), when a fourth axis and its rows are given: the exact
    BDPL (divided by ε) of the MQM release and of the ε-DP Laplace histogram for small T; (e), when
    a fifth axis and its rows are given: the MQM release's BDPL at T = 5000 (audit's certified 95 %
    lower bound, exact over short windows) with the audit checked at a small T. Axes beyond those
    drawn are hidden."""
    axes = list(np.atleast_1d(axes))
    for ax, panel in zip(axes, ("a", "b", "c")):
        _l1_panel([r for r in rows if r["panel"] == panel], ax)
    d = [r for r in rows if r["panel"] == "d"]
    if len(axes) > 3 and d:
        _bdpl_panel(d, axes[3])
    e = [r for r in rows if r["panel"] == "e"]
    used = 4 if d and len(axes) > 3 else 3
    if len(axes) > 4 and e:
        _audit_panel(e, axes[4], axes[5] if len(axes) > 5 else None)
        used = 6 if len(axes) > 5 else 5
    for ax in axes[used:]:
        ax.set_visible(False)
    return axes
