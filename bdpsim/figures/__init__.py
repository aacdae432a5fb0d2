"""Figures (the only package that imports matplotlib).

Figures are built on :class:`matplotlib.figure.Figure` directly — no ``pyplot``, no backend
selection — so importing this package never changes a notebook's or a script's backend, and
saving works headless (``Figure.savefig`` picks the Agg/PDF canvas for the file format).

Every plotting function takes the figure's rows and a matplotlib ``Axes`` (or a sequence of them
for multi-panel figures) and returns it; :func:`subplots` makes the figure, :func:`legend` puts
a readable legend (>= :data:`LEGEND_PT` pt) outside the data area and :func:`save` writes PNG + PDF.
"""

from __future__ import annotations

from .analytic import (  # re-exported
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
from .simulated import (
    plot_simulated,
    plot_thesis_fig09,
    plot_thesis_fig10,
    plot_thesis_fig15,
)
from .simulated import (
    sim_rows as sim_rows,
)
from .style import LEGEND_PT, colors, legend, proxy, save, stamp, subplots  # noqa: F401
from .summary import choose_axes, plot_results, plot_summary
from .utility import (
    plot_paper_fig4,
    plot_paper_fig5,
    plot_thesis_fig17,
    plot_thesis_fig18,
    plot_thesis_fig19,
    plot_utility,
    plot_utility_optimal,
    utility_panels,
)

__all__ = [
    "LEGEND_PT",
    "colors",
    "subplots",
    "legend",
    "proxy",
    "stamp",
    "save",
    "plot_summary",
    "choose_axes",
    "plot_results",
    "plot_simulated",
    "plot_utility",
    "utility_panels",
    "plot_thesis_fig03",
    "plot_thesis_fig05",
    "plot_thesis_fig07",
    "plot_thesis_fig08",
    "plot_thesis_fig09",
    "plot_thesis_fig10",
    "plot_thesis_fig11",
    "plot_thesis_fig13",
    "plot_thesis_fig15",
    "plot_thesis_fig16",
    "plot_thesis_fig17",
    "plot_thesis_fig18",
    "plot_thesis_fig19",
    "plot_utility_optimal",
    "plot_paper_fig1",
    "plot_paper_fig2",
    "plot_paper_fig3",
    "plot_paper_fig4",
    "plot_paper_fig5",
]
