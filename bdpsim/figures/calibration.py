"""Laplace scale needed for eps-BDP per calibration method
(:func:`bdpsim.studies.chains.calibration_rows`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

STYLE = {
    "exact": ("k", "o", "-"),
    "general": ("tab:blue", "s", "--"),
    "markov": ("tab:red", "^", "-."),
    "zhao": ("tab:green", "v", ":"),
}
LABEL = {
    "exact": "exact calibration (smallest ε-BDP scale)",
    "general": "general bound (m = n)",
    "markov": "Markov bound",
    "zhao": "Zhao et al. bound",
}


def plot_calibration(rows: Sequence[dict], axes):
    """One panel per chain: scale vs eps (log y) per method; red rings where the method's
    mechanism is not eps-BDP (its exact BDPL exceeds eps); one legend for all panels. Returns the
    axes."""
    from .style import legend, proxy

    chains = list(dict.fromkeys(r["chain"] for r in rows))
    axes = list(np.atleast_1d(axes))
    handles: dict = {}
    bad_any = False
    for k, (ax, chain) in enumerate(zip(axes, chains)):
        rs = [r for r in rows if r["chain"] == chain]
        for method in dict.fromkeys(r["method"] for r in rs):
            pts = sorted((r["epsilon"], r["scale"], r["bdpl"]) for r in rs if r["method"] == method)
            e, s, b = (np.array(v, dtype=float) for v in zip(*pts))
            color, marker, ls = STYLE.get(method, ("tab:purple", "D", "-"))
            ok = np.isfinite(s)
            if not ok.any():
                continue
            (h,) = ax.plot(
                e[ok], s[ok], color=color, marker=marker, linestyle=ls, label=LABEL.get(method, method)
            )
            handles.setdefault(h.get_label(), h)
            bad = ok & (b > e * (1 + 1e-9))
            if bad.any():
                bad_any = True
                ax.plot(
                    e[bad],
                    s[bad],
                    linestyle="none",
                    marker="o",
                    markersize=11,
                    markerfacecolor="none",
                    markeredgecolor="red",
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("target ε (BDPL)")
        ax.set_ylabel("Laplace scale b")
        ax.set_title(f"({chr(97 + k)}) {chain.replace('gamma', 'γ')}", fontsize=9)
        ax.grid(alpha=0.3, which="both")
    extra = [proxy("not ε-BDP", color="red", marker="o", mfc="none", ms=9)] if bad_any else []
    extra.append(proxy("missing point: the bound gives no scale (ε ≤ 4 ln γ or 6 ln ω)"))
    try:  # right of the top row's last panel
        cols = axes[0].get_subplotspec().get_gridspec().ncols
    except AttributeError:
        cols = len(axes)
    legend(
        axes[min(cols, len(axes)) - 1],
        list(handles.values()) + extra,
        list(handles) + [str(h.get_label()).replace(" (ε", "\n(ε") for h in extra],
    )
    axes[0].figure.suptitle(
        "Laplace scale b that makes the count of state 1 ε-BDP on a Markov chain:\nexact "
        "calibration (every adversary) vs the general, Markov and Zhao bounds",
        fontsize=10,
    )
    return axes
