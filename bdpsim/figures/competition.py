"""Competing mechanisms under BDP (:func:`bdpsim.competition.competition_rows`): the noise each
method prescribes for a count on a chain and the exact BDPL of what it prescribes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

STYLE = {
    "exact": ("k", "o", "-"),
    "general": ("tab:blue", "s", "--"),
    "group": ("tab:cyan", "x", ":"),
    "markov": ("tab:red", "^", "-."),
    "zhao": ("tab:green", "v", ":"),
    "markov-quilt-approx": ("tab:orange", "<", "-"),
    "markov-quilt-exact": ("tab:brown", ">", "-"),
    "wasserstein": ("tab:purple", "D", "-"),
    "randomized-response": ("tab:pink", "P", "--"),
}
LABEL = {"randomized-response": "randomized response (std-equivalent scale)",
         "group": "group DP (m = T; = general)"}


def competition_panels(rows: Sequence[dict]) -> int:
    """Two panels (scale, exact BDPL) per (chain, T)."""
    return 2 * len({(r["chain"], r["T"]) for r in rows})


def plot_competition(rows: Sequence[dict], axes):
    """Per chain (columns) and length T: a row of Laplace scale vs eps and a row of exact BDPL vs
    eps (log-log, the diagonal BDPL = eps dotted); red rings mark noise that is not eps-BDP.
    Expects ``2 * len(T values)`` rows of ``len(chains)`` axes, row-major."""
    from . import legend, proxy

    chains = list(dict.fromkeys(r["chain"] for r in rows))
    lengths = list(dict.fromkeys(r["T"] for r in rows))
    axes = list(np.atleast_1d(axes))
    try:  # columns of the grid the axes were laid out on (one per chain)
        k = axes[0].get_subplotspec().get_gridspec().ncols
    except AttributeError:
        k = len(chains)
    handles = {}
    for ti, T in enumerate(lengths):
        for ci, chain in enumerate(chains):
            ax_s, ax_b = axes[(2 * ti) * k + ci], axes[(2 * ti + 1) * k + ci]
            rs = [r for r in rows if r["chain"] == chain and r["T"] == T]
            eps_all = sorted({r["epsilon"] for r in rs})
            for method in dict.fromkeys(r["method"] for r in rs):
                pts = sorted((r["epsilon"], r["scale"], r["bdpl"]) for r in rs if r["method"] == method)
                e, s, b = (np.array(v, dtype=float) for v in zip(*pts))
                ok = np.isfinite(s) & np.isfinite(b)
                if not ok.any():
                    continue
                color, marker, ls = STYLE.get(method, ("tab:gray", "*", "-"))
                label = LABEL.get(method, method)
                (h,) = ax_s.plot(e[ok], s[ok], color=color, marker=marker, linestyle=ls, label=label, markersize=5)
                ax_b.plot(e[ok], b[ok], color=color, marker=marker, linestyle=ls, markersize=5)
                handles.setdefault(label, h)
                bad = ok & (b > e * (1 + 1e-9))
                for ax, y in ((ax_s, s), (ax_b, b)):
                    if bad.any():
                        ax.plot(e[bad], y[bad], linestyle="none", marker="o", markersize=11,
                                markerfacecolor="none", markeredgecolor="red")
            ax_b.plot(eps_all, eps_all, color="0.5", linestyle=":", linewidth=1)
            for ax, what in ((ax_s, "noise scale b"), (ax_b, "exact BDPL")):
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_xlabel("target ε")
                ax.set_ylabel(what)
                ax.set_title(f"{chain}, T = {T}: {what}", fontsize=9)
                ax.grid(alpha=0.3, which="both")
    extra = [proxy("not ε-BDP (exact BDPL > ε)", color="red", marker="o", markerfacecolor="none", markersize=9),
             proxy("BDPL = ε", color="0.5", linestyle=":")]
    legend(axes[k - 1], list(handles.values()) + extra, list(handles) + [h.get_label() for h in extra])
    return axes
