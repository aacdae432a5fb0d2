"""Heat map of the exact leakage by prior knowledge
(:func:`bdpsim.studies.knowledge.leakage_by_knowledge`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..studies.knowledge import knowledge_matrix


def plot_knowledge_heatmap(
    rows: Sequence[dict], ax, left_end: str = "known", right_end: str = "known", annotate: bool = True
):
    """Worst BDPL per (unknown records left, unknown records right) of the target.

    Parameters
    ----------
    rows : sequence of dict
        :func:`~bdpsim.studies.knowledge.leakage_by_knowledge` rows (or the CSV read back).
    ax : matplotlib.axes.Axes
    left_end, right_end : {"known", "chain end"}
        Which window ends to show: a known record bounds that side, or the chain ends there.
    annotate : bool
        Mark the worst cell and write its value.

    Returns
    -------
    matplotlib.axes.Axes
    """
    M = knowledge_matrix(rows, left_end, right_end)
    im = ax.imshow(
        np.ma.masked_invalid(M), origin="lower", aspect="auto", cmap="viridis", interpolation="nearest"
    )
    ax.figure.colorbar(im, ax=ax, label="worst BDPL")
    ax.set_xlabel(f"unknown records right of the target (then: {right_end})")
    ax.set_ylabel(f"unknown records left of the target (then: {left_end})")
    if annotate and np.isfinite(M).any():
        L, R = np.unravel_index(int(np.nanargmax(M)), M.shape)
        ax.plot([R], [L], marker="*", color="white", ms=12, mec="black")
        # inside the axes whatever the cell (top row / right column: label below / left of it),
        # dark on a light box: readable on the bright end of viridis
        dx = -6 if R >= M.shape[1] - 2 else 6
        dy = -6 if L >= M.shape[0] - 2 else 6
        ax.annotate(
            f"{M[L, R]:.4g}",
            (R, L),
            xytext=(dx, dy),
            textcoords="offset points",
            ha="right" if dx < 0 else "left",
            va="top" if dy < 0 else "bottom",
            color="black",
            bbox=dict(boxstyle="round,pad=0.15", fc="white", alpha=0.8, lw=0),
        )
    return ax


def plot_knowledge_panels(rows: Sequence[dict], axes):
    """Two heat maps: windows bounded by known records on both sides, and by the chain's start
    on the left (the target near the first record)."""
    axes = list(np.atleast_1d(axes))
    titles = {
        ("known", "known"): "(a) unknown records between two known ones",
        ("chain end", "known"): "(b) unknown records reaching back to the chain's start",
    }
    for ax, (le, re) in zip(axes, (("known", "known"), ("chain end", "known"))):
        plot_knowledge_heatmap(rows, ax, left_end=le, right_end=re)
        ax.set_title(titles[(le, re)], fontsize=9)
    from ..kernels.chains.transition import ACTIVITY

    r0 = rows[0] if rows else {}
    n, b = r0.get("n", "?"), r0.get("noise_scale", "?")
    P = ", ".join("[" + ", ".join(f"{v:g}" for v in row) + "]" for row in ACTIVITY)
    axes[0].figure.suptitle(
        f"Worst exact BDPL by prior knowledge: activity chain P = [{P}], count of "
        f"active records + Lap({b:g}) (1-DP), n = {n};\nthe adversary knows every record except "
        "the unknown ones "
        f"left and right of its target",
        fontsize=10,
    )
    return axes
