"""The attack figure (issue 35): ROC-style curves of the worst adversary's optimal attack against
the pure-eps curve of the exact BDPL and against independent records, on linear and log axes
(data: :func:`bdpsim.attack.roc.roc_data`)."""

from __future__ import annotations

from pathlib import Path

from .style import colors, legend, subplots


def plot_attack_roc(data, title: str = ""):
    """Two panels (linear axes; log axes for low FPR) of TPR against FPR. Returns the Figure."""
    c = colors()
    fig, (ax, bx) = subplots(1, 2, figsize=(10.0, 4.2))
    for axis in (ax, bx):
        axis.plot(data.fpr, data.worst, color=c[0], label=f"adversary of largest advantage ({data.advantage:.3g})")
        axis.plot(data.fpr, data.pure, color=c[1], linestyle="--", label=f"pure-eps curve, BDPL {data.bdpl:.3g}")
        if data.independent is not None:
            axis.plot(data.fpr, data.independent, color=c[2], linestyle=":",
                      label=f"independent records (advantage {data.independent_advantage:.3g})")
        axis.plot(data.fpr, data.fpr, color="0.6", linewidth=0.8, label="no information (TPR = FPR)")
        axis.set_xlabel("false-positive rate")
        axis.set_ylabel("true-positive rate")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlim(data.fpr.min(), 1)
    ax.set_title("linear axes")
    bx.set_title("log axes (low FPR)")
    legend(bx)
    if title:
        fig.suptitle(title)
    return fig


def save_attack_roc(data, path, title: str = "") -> Path:
    """Draw :func:`plot_attack_roc` into ``path`` (PNG or PDF by its suffix)."""
    out = Path(path)
    plot_attack_roc(data, title).savefig(out, dpi=150)
    return out


__all__ = ["plot_attack_roc", "save_attack_roc"]
