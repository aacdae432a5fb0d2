"""Laplace scale needed for eps-BDP per calibration method (:func:`bdpsim.studies.calibration_rows`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

STYLE = {"exact": ("k", "o", "-"), "general": ("tab:blue", "s", "--"), "markov": ("tab:red", "^", "-."),
         "zhao": ("tab:green", "v", ":")}


def plot_calibration(rows: Sequence[dict], axes):
    """One panel per chain: scale vs eps (log y) per method; hollow markers where the method's
    mechanism is not eps-BDP (its exact BDPL exceeds eps). Returns the axes."""
    from . import legend

    chains = list(dict.fromkeys(r["chain"] for r in rows))
    axes = list(np.atleast_1d(axes))
    for ax, chain in zip(axes, chains):
        rs = [r for r in rows if r["chain"] == chain]
        for method in dict.fromkeys(r["method"] for r in rs):
            pts = sorted((r["epsilon"], r["scale"], r["bdpl"]) for r in rs if r["method"] == method)
            e, s, b = (np.array(v, dtype=float) for v in zip(*pts))
            color, marker, ls = STYLE.get(method, ("tab:purple", "D", "-"))
            ok = np.isfinite(s)
            if not ok.any():
                continue
            ax.plot(e[ok], s[ok], color=color, marker=marker, linestyle=ls, label=method)
            bad = ok & (b > e * (1 + 1e-9))
            if bad.any():
                ax.plot(e[bad], s[bad], linestyle="none", marker="o", markersize=11, markerfacecolor="none",
                        markeredgecolor="red", label="not ε-BDP")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("target ε (BDPL)")
        ax.set_ylabel("Laplace scale b")
        ax.set_title(chain, fontsize=9)
        ax.grid(alpha=0.3, which="both")
        handles, labels = ax.get_legend_handles_labels()
        uniq = dict(zip(labels, handles))
        legend(ax, list(uniq.values()), list(uniq))
    return axes
