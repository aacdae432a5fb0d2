"""Figures (the only package that imports matplotlib).

Figures are built on :class:`matplotlib.figure.Figure` directly — no ``pyplot``, no backend
selection — so importing this package never changes a notebook's or a script's backend, and
saving works headless (``Figure.savefig`` picks the Agg/PDF canvas for the file format).

Every plotting function takes the figure's rows and a matplotlib ``Axes`` (or a sequence of them
for multi-panel figures) and returns it; :func:`subplots` makes the figure, :func:`legend` puts
a readable legend (>= :data:`LEGEND_PT` pt) outside the data area and :func:`save` writes PNG + PDF.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

LEGEND_PT = 8
"""Smallest font size (pt) of any legend text."""


def colors() -> list[str]:
    """The colour cycle of the current matplotlib style."""
    return matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


def subplots(nrows: int = 1, ncols: int = 1, figsize: tuple[float, float] = (6.4, 4.6),
             layout: str | None = "constrained", **kwargs):
    """``(Figure, axes)`` like ``pyplot.subplots`` but without pyplot (no backend is touched); the
    constrained layout keeps legends placed outside the axes inside the figure."""
    fig = Figure(figsize=figsize, layout=layout)
    return fig, fig.subplots(nrows, ncols, **kwargs)


def legend(ax, handles: Sequence | None = None, labels: Sequence[str] | None = None, *,
           ncol: int = 1, title: str | None = None, fontsize: float = LEGEND_PT):
    """A legend to the right of ``ax``, outside its data area, in ``fontsize`` >= 8 pt."""
    kw = dict(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, ncol=ncol, title=title,
              fontsize=max(fontsize, LEGEND_PT), title_fontsize=max(fontsize, LEGEND_PT), frameon=False)
    if handles is None:
        return ax.legend(**kw)
    return ax.legend(handles, labels if labels is not None else [h.get_label() for h in handles], **kw)


def proxy(label: str, color: str = "k", marker: str = "", linestyle: str = "", **kw) -> Line2D:
    """A legend entry that stands for a marker or line style (not drawn on the axes)."""
    return Line2D([], [], color=color, marker=marker, linestyle=linestyle or "none", label=label, **kw)


def stamp(fig, text: str, color: str = "crimson") -> None:
    """Write ``text`` across the top of the figure (e.g. that it is a ``--quick`` preview)."""
    fig.text(0.5, 1.0, text, ha="center", va="bottom", color=color, fontsize=9, weight="bold")


def save(fig, stem: Path) -> list[Path]:
    """Write ``stem.png`` (150 dpi) and ``stem.pdf``, cropped to the figure's content (legends
    outside the axes included); return the paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    return paths


from .analytic import (  # noqa: E402  (re-exported; these modules use the helpers above)
    plot_paper_fig1,
    plot_paper_fig2,
    plot_paper_fig3,
    plot_thesis_fig03,
    plot_thesis_fig05,
    plot_thesis_fig07,
    plot_thesis_fig08,
    plot_thesis_fig11,
    plot_thesis_fig13,
    plot_thesis_fig16,
)
from .simulated import (  # noqa: E402
    sim_rows,
    plot_simulated,
    plot_thesis_fig09,
    plot_thesis_fig10,
    plot_thesis_fig15,
)
from .summary import choose_axes, plot_results, plot_summary  # noqa: E402
from .utility import (  # noqa: E402
    plot_paper_fig4,
    plot_paper_fig5,
    plot_thesis_fig17,
    plot_thesis_fig18,
    plot_thesis_fig19,
    plot_utility,
    utility_panels,
)

__all__ = [
    "LEGEND_PT", "colors", "subplots", "legend", "proxy", "stamp", "save",
    "plot_summary", "choose_axes", "plot_results", "plot_simulated", "plot_utility", "utility_panels",
    "plot_thesis_fig03", "plot_thesis_fig05", "plot_thesis_fig07", "plot_thesis_fig08", "plot_thesis_fig09",
    "plot_thesis_fig10", "plot_thesis_fig11", "plot_thesis_fig13", "plot_thesis_fig15", "plot_thesis_fig16",
    "plot_thesis_fig17", "plot_thesis_fig18", "plot_thesis_fig19",
    "plot_paper_fig1", "plot_paper_fig2", "plot_paper_fig3", "plot_paper_fig4", "plot_paper_fig5",
]
