"""The ``bdpsim-frontier`` figure: E|Z| of the optimal integer noise vs eps beside the
calibrated Laplace, geometric and staircase noises and the Markov Quilt mechanism, and the optimal
pmf's shape (rows: :func:`bdpsim.studies.frontier.frontier_rows`)."""

from __future__ import annotations

import math

from matplotlib.ticker import FuncFormatter, NullFormatter
from matplotlib.typing import LineStyleType

from .style import colors, legend, proxy

SERIES: tuple[tuple[str, str, str, str, LineStyleType], ...] = (
    ("optimal", "table", "optimal integer noise (LP, verified)", "o", "-"),
    ("exact", "laplace", "Laplace, exactly calibrated", "s", "--"),
    ("exact", "geometric", "geometric, exactly calibrated", "^", "--"),
    ("exact", "staircase", "staircase, exactly calibrated", "v", "--"),
    ("markov-quilt-exact", "laplace", "Markov Quilt (Laplace, ε-Pufferfish scale)", "D", ":"),
)


def plot_frontier(rows: list[dict], axes):
    """Panel (a): E|Z| against eps for each noise on the first chain (log axes; the optimal noise is
    the limit any additive integer noise can reach); panel (b): its optimal pmf and calibrated geometric
    pmf at the eps of the pmf rows (log y); panel (c), when given a third axis: E|Z| of the exactly
    calibrated Laplace noise over the optimal's, against eps, one line per chain. Returns ``axes``."""
    c = colors()
    ax, bx = axes[0], axes[1]
    every = [r for r in rows if r["kind"] == "frontier"]
    chain = every[0]["chain"] if every else "?"
    fr = [r for r in every if r["chain"] == chain]
    n = int(fr[0]["n"]) if fr else 0
    handles = []
    for j, (method, noise, label, marker, ls) in enumerate(SERIES):
        pts = sorted(
            (float(r["epsilon"]), float(r["mean_abs"]))
            for r in fr
            if r["method"] == method
            and r["noise"] == noise
            and r["mean_abs"] not in (None, "")
            and math.isfinite(float(r["mean_abs"]))
        )
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, ls=ls, color=c[j], ms=6, lw=1.5)
            handles.append(proxy(label, c[j], marker, ls))
    ax.set_xscale("log")
    ax.set_yscale("log")
    eps_values = sorted({float(r["epsilon"]) for r in fr})
    ax.set_xticks(eps_values)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("ε (target BDPL)")
    ax.set_ylabel("E|Z| (noise magnitude)")
    ax.set_title(f"(a) least noise for ε-BDP: {chain} chain, count, n = {n}", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    legend(ax, handles)
    pm = sorted((r for r in rows if r["kind"] == "pmf" and r["chain"] == chain), key=lambda r: int(r["k"]))
    eps = float(pm[0]["epsilon"]) if pm else math.nan
    k = [int(r["k"]) for r in pm]
    bx.step(k, [float(r["p_optimal"]) for r in pm], where="mid", color=c[0], lw=1.8)
    bx.step(k, [float(r["p_geometric"]) for r in pm], where="mid", color=c[2], lw=1.2, ls="--")
    bx.set_yscale("log")
    bx.set_xlabel("noise value k")
    bx.set_ylabel("P(Z = k)")
    bx.set_title(f"(b) the optimal pmf vs calibrated geometric, ε = {eps:g}", fontsize=9)
    bx.grid(alpha=0.3, which="both")
    legend(
        bx,
        [
            proxy("optimal integer noise", c[0], "", "-"),
            proxy("geometric, exactly calibrated", c[2], "", "--"),
        ],
    )
    if len(axes) > 2:
        cx, handles = axes[2], []
        for j, name in enumerate(dict.fromkeys(r["chain"] for r in every)):
            at = {
                (float(r["epsilon"]), r["method"], r["noise"]): float(r["mean_abs"])
                for r in every
                if r["chain"] == name
            }
            pts = sorted(
                (e, at[(e, "exact", "laplace")] / v)
                for (e, m, law), v in at.items()
                if (m, law) == ("optimal", "table") and (e, "exact", "laplace") in at
            )
            n_chain = next(int(r["n"]) for r in every if r["chain"] == name)
            cx.plot([p[0] for p in pts], [p[1] for p in pts], marker="os^vD"[j % 5], color=c[j], ms=5, lw=1.5)
            handles.append(proxy(f"{name}, n = {n_chain}", c[j], "os^vD"[j % 5], "-"))
        cx.set_xscale("log")
        cx.set_xticks(eps_values)
        cx.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        cx.xaxis.set_minor_formatter(NullFormatter())
        cx.set_xlabel("ε (target BDPL)")
        cx.set_ylabel("E|Z| Laplace / E|Z| optimal")
        cx.set_title("(c) Laplace's excess noise on the paper's chains", fontsize=9)
        cx.grid(alpha=0.3, which="both")
        legend(cx, handles)
    return axes
