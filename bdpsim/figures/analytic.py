"""Analytic figures: bounds, accuracy and regions (thesis Figs. 3, 5, 7, 8, 11, 13, 16; paper
Figs. 1–3). Axis ranges follow the authors' ``plots_for_paper.py`` where they published it."""

from __future__ import annotations

import numpy as np

from . import data as D
from .style import colors, legend, proxy


def _by(rows, key):
    """``{value: rows with that value}`` in first-seen order."""
    out: dict = {}
    for r in rows:
        out.setdefault(r[key], []).append(r)
    return out


def _col(rows, key) -> np.ndarray:
    return np.array([r[key] for r in rows], dtype=float)


def _finish(ax, xlabel, ylabel, title, *, xlim=None, ylim=None, xlog=False, ylog=False):
    if xlog:
        ax.set_xscale("log")
    if ylog:
        ax.set_yscale("log")
    if xlim:
        ax.set_xlim(*xlim)
    if ylim:
        ax.set_ylim(*ylim)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, which="both" if (xlog or ylog) else "major")
    return ax


def _curves(ax, rows, x, y, key, fmt, styles=("-",)):
    """One line of ``y`` vs ``x`` per value of ``key`` (colour and line style cycle)."""
    cyc = colors()
    for k, (val, rs) in enumerate(_by(rows, key).items()):
        ax.plot(
            _col(rs, x),
            _col(rs, y),
            styles[k % len(styles)],
            color=cyc[k % len(cyc)],
            lw=1.6,
            label=fmt.format(val),
        )
    return ax


def plot_thesis_fig03(rows, ax):
    ax.plot(_col(rows, "epsilon"), _col(rows, "beta"), "-", color=colors()[0], lw=1.8)
    return _finish(
        ax,
        "BDPL ε",
        "β = P(error > n/2)",
        "Thesis Fig. 3: ε-BDP Laplace count of n correlated records (general bound, scale n/ε):\n"
        "probability β of an error > n/2, β = e^(−ε/2)",
        xlim=(0, 5),
        ylim=(0, 1),
    )


def plot_thesis_fig05(rows, ax):
    ax.plot(_col(rows, "epsilon"), _col(rows, "beta_min"), "-", color=colors()[0], lw=1.8)
    return _finish(
        ax,
        "ε (free-lunch privacy)",
        "minimum β",
        "Thesis Fig. 5: minimum β = 1/(e^ε + 1) of an (α, β)-accurate ε-free-lunch-private algorithm",
        xlim=(0, 5),
        ylim=(1e-3, 1),
        ylog=True,
    )


def plot_thesis_fig07(rows, ax):
    """Solid: the Laplace count's α (one colour per (ε, m)). Dashed grey: the lower bound (m − 1)/2,
    one line per m — it does not depend on ε, only the β up to which it holds, β < 1/(e^ε + 1),
    does: a tick in the colour of the (ε, m) curve marks that end."""
    from matplotlib.legend_handler import HandlerTuple

    cyc = colors()
    groups = _by([{**r, "_k": (r["epsilon"], r["m"])} for r in rows], "_k")
    ends = []
    for k, ((e, m), rs) in enumerate(groups.items()):
        c = cyc[k % len(cyc)]
        ax.plot(
            _col(rs, "beta"), _col(rs, "alpha_laplace"), "-", color=c, lw=1.6, label=f"ε = {e:g}, m = {m}"
        )
        ends.append((e, m, c))
    lows = {}
    for m, rs in _by(rows, "m").items():
        ok = [r for r in rs if np.isfinite(r["alpha_lower_bound"])]
        beta = np.array(sorted({r["beta"] for r in ok}))  # one line per m: the widest β range of any ε
        ax.plot(beta, np.full(beta.size, (m - 1) / 2), "--", color="0.35", lw=1.4)
        lows[m] = (m - 1) / 2
    ticks = []
    for e, m, c in ends:
        (t,) = ax.plot(
            [1 / (np.exp(e) + 1)], [(m - 1) / 2], marker="|", ms=14, mew=2.2, color=c, linestyle="none"
        )
        ticks.append(t)
    handles = ax.get_legend_handles_labels()[0] + [
        proxy("Laplace mechanism, α = ln(1/β) m/ε", linestyle="-"),
        proxy(
            "lower bound (m − 1)/2 of any ε-BDP count,\nthe same for every ε: "
            + ", ".join(f"{v:g} (m = {m})" for m, v in lows.items()),
            color="0.35",
            linestyle="--",
        ),
        tuple(ticks),
    ]
    labels = [h.get_label() for h in handles[:-1]] + [
        "the lower bound holds for β < 1/(e^ε + 1):\nits end, in the colour of the (ε, m) curve"
    ]
    legend(ax, handles, labels, handler_map={tuple: HandlerTuple(ndivide=None)})
    return _finish(
        ax,
        "β",
        "error α (records)",
        "Thesis Fig. 7: genomic data (m correlated records), ε-BDP Laplace count (general bound)\n"
        "vs the lower bound on α of any ε-BDP count (thesis Cor. 5.3)",
    )


def plot_thesis_fig08(rows, ax):
    cyc = colors()
    for k, (n, rs) in enumerate(_by(rows, "n").items()):
        c = cyc[k % len(cyc)]
        rho = _col(rs, "rho")
        ax.plot(rho, _col(rs, "gaussian_bound"), "-", color=c, lw=1.8, label=f"Gaussian bound; n = {n}")
        ax.plot([0, 1], [rs[0]["general_bound"]] * 2, "--", color=c, lw=1.8, label=f"general bound; n = {n}")
    legend(ax)
    return _finish(
        ax,
        "max. Pearson correlation ρ",
        "BDPL bound (1-DP)",
        "Thesis Fig. 8: BDPL bounds of a 1-DP clipped sum on Gaussian data, n records:\n"
        "Gaussian bound (solid, ρ < 1/(n − 2)) vs general bound nε (dashed)",
        xlim=(0, 1),
        ylim=(0, 10),
    )


def plot_thesis_fig11(rows, ax):
    """The region where the Markov bound ε + 4 ln γ beats Zhao's ε + 6 ln ω, drawn from its
    analytic boundaries: ω ≤ γ (every chain) and γ < ω^(3/2) (4 ln γ < 6 ln ω); dotted, as the
    thesis says. The CSV keeps the grid the condition was checked on. Thesis Fig. 12's two example
    chains are marked."""
    w_all = _col(rows, "omega")
    w = np.logspace(np.log10(w_all.min()), np.log10(w_all.max()), 400)
    g_top = _col(rows, "gamma").max()
    ax.fill_between(
        w,
        w,
        np.minimum(w**1.5, g_top),
        facecolor="tab:blue",
        alpha=0.18,
        edgecolor="tab:blue",
        hatch="..",
        linewidth=0,
        label="Markov bound smaller: ω ≤ γ < ω^(3/2)",
    )
    ax.plot(w, np.minimum(w**1.5, g_top), "-", color="tab:blue", lw=1.4, label="γ = ω^(3/2) (bounds equal)")
    ax.plot(w, w, "-", color="0.3", lw=1.2, label="γ = ω (no chain has γ < ω)")
    ax.fill_between(w, 1.0, w, facecolor="0.85", edgecolor="none", label="impossible (γ < ω)")
    for (om, ga), txt in (
        ((2.0, 9.0), "Fig. 12 left\n(ω = 2, γ = 9)"),
        ((8.0, 9.0), "Fig. 12 right\n(ω = 8, γ = 9)"),
    ):
        ax.plot([om], [ga], "o", color="k", ms=5)
        ax.annotate(
            txt,
            (om, ga),
            xytext=(6, -4),
            textcoords="offset points",
            ha="left",
            va="top",
            fontsize=8,
            bbox=dict(boxstyle="round,pad=0.15", fc="white", alpha=0.85, lw=0),
        )
    legend(ax)
    return _finish(
        ax,
        "ω = max P_yx / P_y'x (same target state x)",
        "γ = max P / min P",
        "Thesis Fig. 11: where the Markov bound ε + 4 ln γ beats Zhao's bound ε + 6 ln ω (dotted)",
        xlim=(w.min(), w.max()),
        ylim=(1, g_top),
        xlog=True,
        ylog=True,
    )


def plot_thesis_fig13(rows, ax):
    """The regions γ < exp((n − 1) ε/4) are nested (larger ε, larger region): each ε's boundary is a
    solid line and each region a light translucent fill, so the shade darkens where the Markov
    bound is the smaller one for more of the ε."""
    from matplotlib.patches import Patch

    cyc = colors()
    top = 1e4
    a = 0.2
    groups = list(_by(rows, "epsilon").items())
    for k, (e, rs) in enumerate(groups):
        n = _col(rs, "n")
        g = np.clip(_col(rs, "gamma_max"), 1.0, 10 * top)
        c = cyc[k % len(cyc)]
        ax.fill_between(n, 1.0, g, facecolor="tab:blue", alpha=a, edgecolor="none")
        ax.plot(n, g, "-", color=c, lw=1.8)
        j = int(np.searchsorted(g, top * 0.25))
        if j < n.size:
            ax.annotate(
                f"ε = {e:g}",
                (n[j], g[j]),
                xytext=(-5, 0),
                textcoords="offset points",
                ha="right",
                va="center",
                fontsize=9,
                color=c,
            )
    handles = [
        proxy(f"boundary γ = exp((n − 1) ε/4), ε = {e:g}", color=cyc[k % len(cyc)], linestyle="-")
        for k, (e, _) in enumerate(groups)
    ]
    handles += [
        Patch(
            facecolor="tab:blue",
            alpha=1 - (1 - a) ** j,
            label=f"Markov bound smaller for {j} of the {len(groups)} ε",
        )
        for j in range(1, len(groups) + 1)
    ]
    legend(ax, handles)
    return _finish(
        ax,
        "records n",
        "γ",
        "Thesis Fig. 13: where the Markov bound ε + 4 ln γ beats the general bound nε\n"
        "(shaded; darker = for more of the ε)",
        xlim=(0, 100),
        ylim=(1, top),
        ylog=True,
    )


def plot_thesis_fig16(rows, ax):
    _curves(ax, rows, "h", "gamma_max", "epsilon", "ε = {:g}", styles=("-", ":", "--", "-."))
    legend(ax)
    return _finish(
        ax,
        "relative error factor h",
        "max. γ",
        "Thesis Fig. 16: max. transition ratio γ of a Markov chain for which an ε-BDP Laplace\n"
        "mechanism (Markov bound) has at most h times the error of the ε-DP one",
        xlim=(1, 10),
        ylim=(1, 100),
        ylog=True,
    )


def plot_paper_fig1(rows, ax):
    from matplotlib.legend_handler import HandlerTuple

    cyc = colors()
    styles = ["-", ":", "--", "-."]
    bands, dots = [], []
    for k, (m, rs) in enumerate(_by(rows, "m").items()):
        c, ls = cyc[k % len(cyc)], styles[k % len(styles)]
        rho, h, worse = _col(rs, "rho"), _col(rs, "h"), _col(rs, "general_better") > 0
        cross = rs[0]["rho_general_better"]
        ax.plot(rho, h, ls, color=c, lw=1.8, label=f"m = {m}")
        if worse.any():
            band = worse | (rho == cross)
            (b,) = ax.plot(rho[band], h[band], "-", color=c, lw=6, alpha=0.25, solid_capstyle="butt")
            (d,) = ax.plot([cross], [m], "o", color=c, ms=6)
            bands.append(b)
            dots.append(d)
    handles = ax.get_legend_handles_labels()[0]
    labels = [h.get_label() for h in handles]
    if bands:  # the swatches in the colours of the curves they mark
        handles += [tuple(bands), tuple(dots)]
        labels += ["general bound better (h > m),\nband in the curve's colour", "h = m (paper eq. 4)"]
    legend(ax, handles, labels, handler_map={tuple: HandlerTuple(ndivide=None)})
    return _finish(
        ax,
        "max. Pearson correlation ρ",
        "relative accuracy h",
        "Paper Fig. 1: relative error h of the ε-BDP (Gaussian bound) vs the ε-DP Laplace mechanism,\n"
        "multivariate Gaussian data, m correlated records",
        xlim=(0, 1),
        ylim=(1, 10),
    )


def plot_paper_fig3(rows, ax):
    _curves(ax, rows, "gamma", "h", "epsilon", "ε = {:g}", styles=("-", ":", "--", "-."))
    legend(ax)
    return _finish(
        ax,
        "γ",
        "relative accuracy h",
        "Paper Fig. 3: relative error h = ε/(ε − 4 ln γ) of the ε-BDP (Markov bound) vs the ε-DP\n"
        "Laplace mechanism, Markov chain with transition ratio γ",
        xlim=(1, 100),
        ylim=(1, 10),
        xlog=True,
    )


def _paper_fig2a(rows, ax):
    cyc = colors()
    for k, (p, rs) in enumerate(_by(rows, "p_ss").items()):
        c = cyc[k % len(cyc)]
        e = _col(rs, "epsilon")
        ours, rr = _col(rs, "alpha_markov_laplace"), _col(rs, "alpha_randomized_response")
        pts = _col(rs, "authors_point") > 0
        ax.plot(e, ours, "-", color=c, lw=1.6, label=f"P_ss = {p:g}")
        ax.plot(e, np.where(rr > 0, rr, np.nan), "--", color=c, lw=1.4)
        ax.plot(e[pts], ours[pts], "o", color=c, ms=5)
        ax.plot(e[pts], rr[pts], "x", color=c, ms=6)
    handles = ax.get_legend_handles_labels()[0] + [
        proxy("ours: Markov-bound Laplace", linestyle="-"),
        proxy("Chakrabarti et al. RR", linestyle="--"),
        proxy("ours at the ε of the authors' mle_accu.py", marker="o"),
        proxy("RR at the ε of the authors' mle_accu.py", marker="x", ms=6),
    ]
    legend(ax, handles)
    return _finish(
        ax,
        "BDPL ε",
        "α at β = 5 % (records)",
        "(a) paper Fig. 2: count of n = 700 records (350 ones) on a symmetric chain with\n"
        "self-transition P_ss; α at β = 5 %",
        xlim=(0, 10),
        ylog=True,
    )


def _paper_fig2b(rows, ax):
    cyc = colors()
    lap = [r for r in rows if r["curve"] == "markov_laplace"]
    rr = [r for r in rows if r["curve"] == D.RR_CURVE]
    for k, (th, rs) in enumerate(_by(rr, "theta").items()):
        ax.plot(
            _col(rs, "alpha"),
            _col(rs, "beta"),
            "-",
            color=cyc[(k + 3) % len(cyc)],
            lw=1.6,
            label=f"BDP RR, θ = {th:g}",
        )
    ax.plot(_col(lap, "alpha"), _col(lap, "beta"), "-", color="k", lw=2, label="ours: Markov-bound Laplace")
    r0 = rows[0]
    legend(ax)
    return _finish(
        ax,
        "α (error of the mean)",
        "β",
        f"(b) authors' BDP_RR variant: n = {r0['n']}, ε = {r0['epsilon']:g}, switch prob. {r0['switch']:g}",
        xlim=(0, 0.2),
        ylim=(0, 1),
    )


def plot_paper_fig2(rows, axes):
    """Two panels: (a) the paper's Fig. 2, (b) the authors' ``BDP_RR/BDP_accuracy.py`` variant."""
    _paper_fig2a([r for r in rows if r["panel"] == "a"], axes[0])
    _paper_fig2b([r for r in rows if r["panel"] == "b"], axes[1])
    return axes
