"""The attack figure: ROC-style curves of the worst adversary's optimal attack against
the pure-eps curve of the exact BDPL and against independent records, on linear and log axes
(data: :func:`bdpsim.studies.attack_roc.roc_data`)."""

from __future__ import annotations

from pathlib import Path

from .style import colors, legend, subplots


def plot_attack_roc(
    data, ax=None, *, log: bool = False, marks=(), title: str | None = None, show_legend=True
):
    """TPR against FPR on one axes: the worst TPR over every adversary (attained; the bound for
    every adversary where it is higher, shaded between) — the curve behind the table of ``bdpsim
    attack``, its points marked — against the pure-eps curve of the exact BDPL.

    Parameters
    ----------
    data : RocData or AttackRisk
        :func:`bdpsim.risk_roc_data`'s curves, or a worst-case :func:`bdpsim.attack_risk` result
        (asked with ``bdpl=True`` for the pure-eps curve), whose curves are computed here with
        ``marks``.
    ax : matplotlib Axes, optional
        Where to draw (a new figure's, without pyplot, when not given).
    log : bool
        Log axes (the low FPRs), else linear axes on [0, 1].
    marks : sequence of float
        With an ``AttackRisk``: the FPRs whose worst TPR is marked (a table's).
    title : str, optional
        The axes' title (default: which axes they are).
    show_legend : bool
        Draw the legend to the right of the axes.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    if hasattr(data, "bound_curve"):  # an AttackRisk: its curves on the figures' FPR grid
        from ..studies.attack_roc import risk_roc_data

        data = risk_roc_data(data, marks=marks)
    if ax is None:
        _, ax = subplots(figsize=(7.4 if show_legend else 5.0, 4.2))
    c = colors()
    gap = bool((data.upper > data.worst + 1e-9).any())
    conf = getattr(data, "confidence", None)  # Monte Carlo: the two ends of each interval
    low, high = (
        (f"worst TPR, attained (advantage {data.advantage:.3g})", "bound for every adversary")
        if conf is None
        else (
            f"worst TPR, {conf:.0%} interval's lower end (Monte Carlo; advantage {data.advantage:.3g})",
            f"its upper end ({conf:.0%})",
        )
    )
    ax.plot(data.fpr, data.worst, color=c[0], label=low)
    if gap:
        ax.fill_between(data.fpr, data.worst, data.upper, color=c[0], alpha=0.2, linewidth=0)
        ax.plot(data.fpr, data.upper, color=c[0], linewidth=0.8, linestyle="-.", label=high)
    if data.marks:
        f, t = zip(*data.marks)
        ax.plot(f, t, linestyle="none", marker="o", color=c[0], markersize=4, label="the table's FPRs")
    pure = (
        f"pure-eps curve, BDPL {data.bdpl:.3g}" if data.bdpl == data.bdpl else "pure-eps curve (no pure DP)"
    )
    ax.plot(data.fpr, data.pure, color=c[1], linestyle="--", label=pure)
    if data.independent is not None:
        ax.plot(
            data.fpr,
            data.independent,
            color=c[2],
            linestyle=":",
            label=f"independent records (advantage {data.independent_advantage:.3g})",
        )
    ax.plot(data.fpr, data.fpr, color="0.6", linewidth=0.8, label="no information (TPR = FPR)")
    ax.set_xlabel("false-positive rate")
    ax.set_ylabel("true-positive rate")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(data.fpr.min(), 1)
    else:
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.01)
    ax.set_title(("log axes (low FPR)" if log else "linear axes") if title is None else title)
    if show_legend:
        legend(ax)
    return ax


def plot_attack_vs_bdpl(rows, axes):
    """Gallery figure ``bdpsim-attack`` (rows: :func:`bdpsim.studies.attack_chains.attack_rows`):
    (a) the worst adversary's advantage ``max_a TV(P_a, Q_a)`` against the exact BDPL over every
    adversary, one point per eps, with the advantage ``tanh(BDPL / 2)`` the pure-eps curve allows;
    (b) the same advantages against the DP eps of the Laplace count. Solid: the chain; dotted:
    independent records of the same marginal. Returns the axes."""
    import numpy as np

    ax, bx = list(np.atleast_1d(axes))[:2]
    c = colors()
    chains = list(dict.fromkeys(r["chain"] for r in rows))
    top = max(r["bdpl"] for r in rows)
    grid = np.linspace(0.0, top * 1.02, 400)
    ax.plot(
        grid,
        np.tanh(grid / 2),
        color="0.5",
        linestyle="--",
        linewidth=1.0,
        label="pure-eps curve: tanh(BDPL / 2)",
    )
    for k, chain in enumerate(chains):
        for records, ls, mk in (("correlated", "-", "o"), ("independent", ":", "s")):
            rs = sorted(
                (r for r in rows if r["chain"] == chain and r["records"] == records),
                key=lambda r: r["epsilon"],
            )
            if not rs:
                continue
            e = [r["epsilon"] for r in rs]
            b = [r["bdpl"] for r in rs]
            a = [r["advantage"] for r in rs]
            lab = f"{chain}" if records == "correlated" else f"{chain}, independent records"
            ax.plot(b, a, color=c[k % len(c)], linestyle=ls, marker=mk, markersize=4, label=lab)
            bx.plot(e, a, color=c[k % len(c)], linestyle=ls, marker=mk, markersize=4, label=lab)
    ax.set_xlabel("exact BDPL over every adversary")
    ax.set_ylabel("worst attack advantage max(TPR - FPR)")
    ax.set_ylim(0, 1.02)
    ax.set_title("(a) advantage vs BDPL")
    bx.set_xscale("log", base=2)
    bx.set_xlabel("DP epsilon of the Laplace count (scale 1/eps)")
    bx.set_ylabel("worst attack advantage max(TPR - FPR)")
    bx.set_ylim(0, 1.02)
    bx.set_title("(b) advantage vs eps")
    legend(bx)
    return axes


def save_attack_roc(data, path, title: str = "") -> Path:
    """Two panels of :func:`plot_attack_roc` (linear axes; log axes for low FPR, with the legend)
    titled ``title``, saved to ``path`` (PNG, PDF or SVG by its suffix): ``bdpsim attack --plot``."""
    fig, (ax, bx) = subplots(1, 2, figsize=(10.0, 4.2))
    plot_attack_roc(data, ax, show_legend=False)
    plot_attack_roc(data, bx, log=True)
    if title:
        fig.suptitle(title)
    out = Path(path)
    fig.savefig(out, dpi=150)
    return out


__all__ = ["plot_attack_roc", "plot_attack_vs_bdpl", "save_attack_roc"]
