"""Analytic figures: bounds, accuracy and regions (thesis Figs. 3, 5, 7, 8, 11, 13, 16; paper
Figs. 1–3). Axis ranges follow the authors' ``plots_for_paper.py`` where they published it."""

from __future__ import annotations

import numpy as np

from .. import figdata as D
from . import colors, legend, proxy

HATCHES = ["||", "//", "--", "\\\\"]


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
        ax.plot(_col(rs, x), _col(rs, y), styles[k % len(styles)], color=cyc[k % len(cyc)], lw=1.6,
                label=fmt.format(val))
    return ax


def plot_thesis_fig03(rows, ax):
    ax.plot(_col(rows, "epsilon"), _col(rows, "beta"), "-", color=colors()[0], lw=1.8)
    return _finish(ax, "BDPL ε", "β = P(error > n/2)",
                   "ε-BDP Laplace count (general bound): probability of an error > n/2", xlim=(0, 5), ylim=(0, 1))


def plot_thesis_fig05(rows, ax):
    ax.plot(_col(rows, "epsilon"), _col(rows, "beta_min"), "-", color=colors()[0], lw=1.8)
    return _finish(ax, "ε (free-lunch privacy)", "minimum β",
                   "Minimum β of an (α, β)-accurate ε-free-lunch-private algorithm",
                   xlim=(0, 5), ylim=(1e-3, 1), ylog=True)


def plot_thesis_fig07(rows, ax):
    cyc = colors()
    groups = _by([{**r, "_k": (r["epsilon"], r["m"])} for r in rows], "_k")
    for k, ((e, m), rs) in enumerate(groups.items()):
        c = cyc[k % len(cyc)]
        ax.plot(_col(rs, "beta"), _col(rs, "alpha_laplace"), "-", color=c, label=f"ε = {e:g}, m = {m}")
        ax.plot(_col(rs, "beta"), _col(rs, "alpha_lower_bound"), "--", color=c)
    handles = ax.get_legend_handles_labels()[0] + [proxy("Laplace mechanism", linestyle="-"),
                                                     proxy("lower bound (m − 1)/2", linestyle="--")]
    legend(ax, handles)
    return _finish(ax, "β", "error α (records)", "Genomic data: accuracy of an ε-BDP count vs the lower bound")


def plot_thesis_fig08(rows, ax):
    cyc = colors()
    for k, (n, rs) in enumerate(_by(rows, "n").items()):
        c = cyc[k % len(cyc)]
        rho = _col(rs, "rho")
        ax.plot(rho, _col(rs, "gaussian_bound"), "-", color=c, lw=1.8, label=f"Gaussian bound; n = {n}")
        ax.plot([0, 1], [rs[0]["general_bound"]] * 2, ":", color=c, lw=1.8, label=f"general bound; n = {n}")
    legend(ax)
    return _finish(ax, "max. Pearson correlation ρ", "BDPL bound (1-DP)", "General vs Gaussian bound",
                   xlim=(0, 1), ylim=(0, 10))


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
    return _finish(ax, "ω", "γ", "Markov bound beats Zhao's bound (shaded; γ ≥ ω always)", xlog=True, ylog=True)


def plot_thesis_fig13(rows, ax):
    cyc = colors()
    top = 1e4
    for k, (e, rs) in enumerate(_by(rows, "epsilon").items()):
        n = _col(rs, "n")
        g = np.minimum(_col(rs, "gamma_max"), 10 * top)
        ax.fill_between(n, 1.0, g, where=g > 1, facecolor="none", hatch=HATCHES[k % len(HATCHES)],
                        edgecolor=cyc[k % len(cyc)], linewidth=1.2, label=f"ε = {e:g}")
    legend(ax, title="Markov bound better")
    return _finish(ax, "records n", "γ", "Markov bound beats the general bound (hatched): γ < exp((n − 1) ε / 4)",
                   xlim=(0, 100), ylim=(1, top), ylog=True)


def plot_thesis_fig16(rows, ax):
    _curves(ax, rows, "h", "gamma_max", "epsilon", "ε = {:g}", styles=("-", ":", "--", "-."))
    legend(ax)
    return _finish(ax, "relative error factor h", "max. γ",
                   "Max. transition ratio γ for an ε-BDP error ≤ h × the ε-DP error",
                   xlim=(1, 10), ylim=(1, 100), ylog=True)


def plot_paper_fig1(rows, ax):
    cyc = colors()
    styles = ["-", ":", "--", "-."]
    for k, (m, rs) in enumerate(_by(rows, "m").items()):
        c, ls = cyc[k % len(cyc)], styles[k % len(styles)]
        rho, h, worse = _col(rs, "rho"), _col(rs, "h"), _col(rs, "general_better") > 0
        cross = rs[0]["rho_general_better"]
        ax.plot(rho, h, ls, color=c, lw=1.8, label=f"m = {m}")
        if worse.any():
            band = worse | (rho == cross)
            ax.plot(rho[band], h[band], "-", color=c, lw=6, alpha=0.25, solid_capstyle="butt")
            ax.plot([cross], [m], "o", color=c, ms=6)
    handles = ax.get_legend_handles_labels()[0] + [
        proxy("general bound better (h > m)", color="0.5", linestyle="-", lw=6, alpha=0.25),
        proxy("h = m (paper eq. 4)", color="0.3", marker="o")]
    legend(ax, handles)
    return _finish(ax, "max. Pearson correlation ρ", "relative accuracy h",
                   "Relative accuracy of ε-BDP vs ε-DP, multivariate Gaussian", xlim=(0, 1), ylim=(1, 10))


def plot_paper_fig3(rows, ax):
    _curves(ax, rows, "gamma", "h", "epsilon", "ε = {:g}", styles=("-", ":", "--", "-."))
    legend(ax)
    return _finish(ax, "γ", "relative accuracy h", "Relative accuracy of ε-BDP vs ε-DP, Markov chain",
                   xlim=(1, 100), ylim=(1, 10), xlog=True)


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
        proxy("ours: Markov-bound Laplace", linestyle="-"), proxy("Chakrabarti et al. RR", linestyle="--"),
        proxy("ε evaluated by the authors' mle_accu.py", marker="o")]
    legend(ax, handles)
    return _finish(ax, "BDPL ε", "α at β = 5 % (records)",
                   "(a) paper Fig. 2: n = 700, 350 ones", xlim=(0, 10), ylog=True)


def _paper_fig2b(rows, ax):
    cyc = colors()
    lap = [r for r in rows if r["curve"] == "markov_laplace"]
    rr = [r for r in rows if r["curve"] == D.RR_CURVE]
    for k, (th, rs) in enumerate(_by(rr, "theta").items()):
        ax.plot(_col(rs, "alpha"), _col(rs, "beta"), "-", color=cyc[(k + 3) % len(cyc)], lw=1.6,
                label=f"BDP RR, θ = {th:g}")
    ax.plot(_col(lap, "alpha"), _col(lap, "beta"), "-", color="k", lw=2, label="ours: Markov-bound Laplace")
    r0 = rows[0]
    legend(ax)
    return _finish(ax, "α (error of the mean)", "β",
                   f"(b) authors' BDP_RR variant: n = {r0['n']}, ε = {r0['epsilon']:g}, "
                   f"switch prob. {r0['switch']:g}", xlim=(0, 0.2), ylim=(0, 1))


def plot_paper_fig2(rows, axes):
    """Two panels: (a) the paper's Fig. 2, (b) the authors' ``BDP_RR/BDP_accuracy.py`` variant."""
    _paper_fig2a([r for r in rows if r["panel"] == "a"], axes[0])
    _paper_fig2b([r for r in rows if r["panel"] == "b"], axes[1])
    return axes

