"""Shared look of every figure: colours, figure creation without pyplot, legends outside the data
area (>= :data:`LEGEND_PT` pt), legend proxies, the ``--quick`` stamp and PNG + PDF saving."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.typing import LineStyleType

LEGEND_PT = 8
"""Smallest font size (pt) of any legend text."""


def colors() -> list[str]:
    """The colour cycle of the current matplotlib style."""
    return matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


def subplots(
    nrows: int = 1,
    ncols: int = 1,
    figsize: tuple[float, float] = (6.4, 4.6),
    layout: Literal["constrained", "compressed", "tight"] | None = "constrained",
    **kwargs,
):
    """``(Figure, axes)`` like ``pyplot.subplots`` but without pyplot (no backend is touched); the
    constrained layout keeps legends placed outside the axes inside the figure."""
    fig = Figure(figsize=figsize, layout=layout)
    return fig, fig.subplots(nrows, ncols, **kwargs)


def legend(
    ax,
    handles: Sequence | None = None,
    labels: Sequence[str] | None = None,
    *,
    ncol: int = 1,
    title: str | None = None,
    fontsize: float = LEGEND_PT,
    handler_map: dict | None = None,
    below: bool = False,
):
    """A legend to the right of ``ax``, outside its data area, in ``fontsize`` >= 8 pt
    (``handler_map``: matplotlib's, e.g. one entry for a tuple of handles). ``below``: under the
    axes' x label instead, centred in ``ncol`` columns, so that a single axes keeps the figure's
    width (a legend of long labels to its right took half of it)."""
    from matplotlib.transforms import offset_copy

    where: dict = dict(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    if below:  # 3.5 lines of text below the axes: the tick labels and the x label stay clear
        shift = offset_copy(ax.transAxes, ax.figure, y=-3.5 * LEGEND_PT * 1.25, units="points")
        where = dict(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=shift)
    kw = dict(
        **where,
        borderaxespad=0.0,
        ncol=ncol,
        title=title,
        fontsize=max(fontsize, LEGEND_PT),
        title_fontsize=max(fontsize, LEGEND_PT),
        frameon=False,
    )
    if handler_map is not None:
        kw["handler_map"] = handler_map
    if handles is None:
        return ax.legend(**kw)
    return ax.legend(handles, labels if labels is not None else [h.get_label() for h in handles], **kw)


def proxy(label: str, color: str = "k", marker: str = "", linestyle: LineStyleType = "", **kw) -> Line2D:
    """A legend entry that stands for a marker or line style (not drawn on the axes)."""
    return Line2D([], [], color=color, marker=marker, linestyle=linestyle or "none", label=label, **kw)


def stamp(fig, text: str, color: str = "crimson") -> None:
    """Write ``text`` across the top of the figure (e.g. that it is a ``--quick`` preview)."""
    fig.text(0.5, 1.0, text, ha="center", va="bottom", color=color, fontsize=9, weight="bold")


def save(fig, stem: Path, formats: Sequence[str] = ("png", "pdf")) -> list[Path]:
    """Write ``stem.png`` (150 dpi) and ``stem.pdf`` (or the given ``formats``), cropped to the
    figure's content (legends outside the axes included); return the paths."""
    import os

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(f".{f}") for f in formats]
    dpis = [150 if f == "png" else "figure" for f in formats]
    for path, dpi in zip(paths, dpis, strict=True):  # via a temporary name: a full disk leaves no half file
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp{path.suffix}")
        try:
            fig.savefig(tmp, dpi=dpi, bbox_inches="tight", format=path.suffix[1:])
            os.replace(tmp, path)
        finally:
            if tmp.exists():
                tmp.unlink()
    return paths


def count_text(rows, key: str) -> str:
    """The count ``key`` (``n_adversaries``, ``runs``) the rows were made with, as a title says it:
    ``"1 000"``, ``"100"``; ``"20-100"`` when the rows differ; ``"?"`` without the column. Titles
    take it from the rows: a quick preview of 100 adversaries must not say the thesis' 1 000."""
    found = set()
    for r in rows:
        try:
            v = float(r.get(key, math.nan))
        except (TypeError, ValueError):
            continue
        if math.isfinite(v):
            found.add(int(v))
    vals = sorted(found)
    if not vals:
        return "?"
    lo, hi = (f"{v:,}".replace(",", " ") for v in (vals[0], vals[-1]))
    return lo if lo == hi else f"{lo}-{hi}"
