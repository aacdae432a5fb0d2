"""Schematic figures drawn from their rows (thesis Figs. 4, 6, 12, 14).

The Markov chain diagrams are drawn from the transition rows of the chain *models*
(:func:`bdpsim.figures.data.chain_rows`): one circle per state, one arrow per transition with its
probability (self-loops above the states), so the drawing cannot disagree with the chain used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Rectangle

STATE_NAMES = {2: ("state 0", "state 1")}
R = 0.42  # state radius (data units)


def _xy(p: np.ndarray) -> tuple[float, float]:
    """A point as the ``(x, y)`` tuple matplotlib's patches take."""
    return float(p[0]), float(p[1])


def _arrow(ax, a: np.ndarray, b: np.ndarray, rad: float) -> None:
    """A transition's arrow from ``a`` to ``b``, bent by ``rad`` (matplotlib's ``arc3``)."""
    ax.add_patch(
        FancyArrowPatch(
            _xy(a),
            _xy(b),
            connectionstyle=f"arc3,rad={rad:g}",
            arrowstyle="-|>",
            mutation_scale=14,
            lw=1.3,
            color="k",
            zorder=2,
        )
    )


def draw_chain(ax, rows: Sequence[dict], names: Sequence[str] | None = None, fontsize: float = 10):
    """A state diagram of one chain from its transition rows (``from``, ``to``, ``label``)."""
    s = 1 + max(max(r["from"], r["to"]) for r in rows)
    names = list(names or [f"{k}" for k in range(s)])
    if s == 2:
        pos = {0: np.array([0.0, 0.0]), 1: np.array([2.6, 0.0])}
    else:
        ang = np.pi / 2 + 2 * np.pi * np.arange(s) / s
        pos = {k: 1.6 * np.array([np.cos(a), np.sin(a)]) for k, a in enumerate(ang)}
    for k, p in pos.items():
        ax.add_patch(Circle(_xy(p), R, facecolor="white", edgecolor="k", lw=1.5, zorder=3))
        ax.text(*p, names[k], ha="center", va="center", fontsize=fontsize + 1, zorder=4)
    for r in rows:
        x, y, lab = r["from"], r["to"], r["label"]
        if x == y:  # self-loop over the state, label above it
            p = pos[x]
            a, b = p + R * np.array([-0.55, 0.84]), p + R * np.array([0.55, 0.84])
            _arrow(ax, a, b, -1.9)
            ax.text(p[0], p[1] + R + 0.62, lab, ha="center", va="bottom", fontsize=fontsize)
            continue
        p, q = pos[x], pos[y]
        d = (q - p) / np.linalg.norm(q - p)
        nrm = np.array([-d[1], d[0]])
        a, b = p + R * (d * 0.8 + nrm * 0.6), q + R * (-d * 0.8 + nrm * 0.6)
        _arrow(ax, a, b, -0.3)
        mid = (p + q) / 2 + nrm * (0.3 * np.linalg.norm(q - p) / 2 + 0.32)
        ax.text(
            *mid,
            lab,
            ha="center",
            va="center",
            fontsize=fontsize,
            bbox=dict(boxstyle="round,pad=0.12", fc="white", ec="none"),
        )
    xs = np.array([p[0] for p in pos.values()])
    ys = np.array([p[1] for p in pos.values()])
    ax.set_xlim(xs.min() - 1.1, xs.max() + 1.1)
    ax.set_ylim(ys.min() - 1.2, ys.max() + 1.9)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def _by_chain(rows):
    out: dict = {}
    for r in rows:
        out.setdefault(r["chain"], []).append(r)
    return out


def plot_thesis_fig12(rows, axes):
    """Two example chains with the same gamma and different omega: which bound is smaller."""
    axes = list(np.atleast_1d(axes))
    for ax, (side, rs) in zip(axes, _by_chain(rows).items()):
        draw_chain(ax, rs, STATE_NAMES.get(2))
        r0 = rs[0]
        better = "Zhao's bound smaller" if r0["zhao_offset"] < r0["markov_offset"] else "Markov bound smaller"
        ax.set_title(
            f"Thesis Fig. 12 ({side}): γ = max P / min P = {r0['gamma']:.3g}, ω = {r0['omega']:.3g}\n"
            f"Markov ε + 4 ln γ = ε + {r0['markov_offset']:.2f},  Zhao ε + 6 ln ω = ε + "
            f"{r0['zhao_offset']:.2f}\n→ {better}",
            fontsize=9,
        )
    return axes


def plot_thesis_fig14(rows, ax):
    """The symmetric chain of thesis Fig. 14 with symbolic probabilities, and its numbers per gamma."""
    chains = _by_chain(rows)
    first = next(iter(chains.values()))
    draw_chain(ax, first, STATE_NAMES.get(2), fontsize=11)
    lines = ["γ      P(stay)   P(switch)"]
    for rs in chains.values():
        stay = next(r["probability"] for r in rs if r["from"] == r["to"])
        switch = next(r["probability"] for r in rs if r["from"] != r["to"])
        lines.append(f"{rs[0]['gamma_parameter']:<5g}  {stay:<9.4g} {switch:.4g}")
    x0, x1 = ax.get_xlim()
    y0, _ = ax.get_ylim()
    ax.set_ylim(y0 - 2.3, ax.get_ylim()[1])
    ax.text(
        (x0 + x1) / 2,
        y0 - 0.1,
        "\n".join(lines),
        ha="center",
        va="top",
        family="monospace",
        fontsize=9,
        multialignment="left",
    )
    ax.set_title(
        "Thesis Fig. 14: the Markov chain of the Fig. 15 simulations (symmetric_chain(γ));\n"
        "max transition ratio γ for every γ ≥ 1, stationary law (1/2, 1/2)",
        fontsize=9,
    )
    return ax


def plot_thesis_fig04(rows, ax):
    """Thesis eqs. (70)–(71): the interval around f(D) lies in the complement of the one around
    f(D') whenever ``α ≤ |f(D) − f(D')|/2`` (illustrative values)."""
    r0 = rows[0]
    fd, fdp, a = r0["f_d"], r0["f_d_prime"], r0["alpha"]
    lo, hi = min(fd, fdp) - 2.2 * a, max(fd, fdp) + 2.2 * a
    ax.axhline(0, color="k", lw=1)
    for x, name in ((fd, "f(D)"), (fdp, "f(D')")):
        ax.plot([x], [0], "|", color="k", ms=14, mew=1.5)
        ax.text(x, -0.18, name, ha="center", va="top", fontsize=10)
    inner = [r for r in rows if math.isfinite(r["low"]) and math.isfinite(r["high"])][0]
    ax.add_patch(
        Rectangle((inner["low"], 0.25), inner["high"] - inner["low"], 0.22, color="tab:blue", alpha=0.6)
    )
    ax.text(
        fd, 0.55, "(f(D) − α, f(D) + α)   [eq. (71)]", ha="center", va="bottom", fontsize=9, color="tab:blue"
    )
    for r in rows:
        if r is inner:
            continue
        a0, a1 = max(r["low"], lo), min(r["high"], hi)
        ax.add_patch(Rectangle((a0, -0.62), a1 - a0, 0.18, color="tab:red", alpha=0.45))
    ax.text(
        fdp,
        -0.75,
        "ℝ \\ (f(D') − α, f(D') + α)   [eq. (70)]: everything but the gap",
        ha="center",
        va="top",
        fontsize=9,
        color="tab:red",
    )
    ax.annotate("", (fd + a, 0.12), (fd, 0.12), arrowprops=dict(arrowstyle="<->", lw=1))
    ax.text(fd + a / 2, 0.14, "α", ha="center", va="bottom", fontsize=9)
    ax.annotate("", (fdp, 0.12), (fdp - a, 0.12), arrowprops=dict(arrowstyle="<->", lw=1))
    ax.text(fdp - a / 2, 0.14, "α", ha="center", va="bottom", fontsize=9)
    ax.set_xlim(lo, hi)
    ax.set_ylim(-1.2, 1.0)
    ax.axis("off")
    ax.set_title(
        "Thesis Fig. 4 (schematic): the sets of eqs. (70)–(71); with α ≤ |f(D) − f(D')|/2 the blue\n"
        "interval lies inside the red set, so P[A(D') ∈ red] ≥ P[A(D') ∈ blue] (illustrative values)",
        fontsize=9,
    )
    return ax


def plot_thesis_fig06(rows, ax):
    """Thesis Def. 5.1: one allele per parent at the same position; the three genotypes."""
    for x, who, allele in ((1.0, "from the mother", "B"), (2.4, "from the father", "b")):
        ax.add_patch(
            FancyBboxPatch(
                (x - 0.22, 0.4),
                0.44,
                3.6,
                boxstyle="round,pad=0.02,rounding_size=0.2",
                facecolor="0.88",
                edgecolor="0.3",
                lw=1.2,
            )
        )
        ax.add_patch(Rectangle((x - 0.22, 2.5), 0.44, 0.35, facecolor="tab:orange", edgecolor="0.3", lw=1))
        ax.text(x, 2.675, allele, ha="center", va="center", fontsize=12, weight="bold")
        ax.text(x, 0.2, f"chromosome\n{who}", ha="center", va="top", fontsize=9)
    ax.annotate(
        "the same position\n(one allele each)",
        (2.62, 2.675),
        xytext=(3.1, 3.5),
        fontsize=9,
        arrowprops=dict(arrowstyle="->", lw=1),
    )
    lines = ["allele pair at this position = one record X_i:"]
    for r in rows:
        lines.append(f"  {r['genotype']}  {r['kind']:17}  {r['hardy_weinberg']:.2f}")
    lines.append(f"(Hardy–Weinberg frequencies, b-allele frequency {rows[0]['allele_b']:g};")
    lines.append(" bdpsim's PedigreeModel founder law)")
    ax.text(3.1, 2.4, "\n".join(lines), ha="left", va="top", fontsize=9, family="monospace")
    ax.set_xlim(0.3, 8.6)
    ax.set_ylim(-0.6, 4.3)
    ax.axis("off")
    ax.set_title(
        "Thesis Fig. 6 (schematic): an allele pair at one position of the genetic code (thesis Def. 5.1)",
        fontsize=9,
    )
    return ax
