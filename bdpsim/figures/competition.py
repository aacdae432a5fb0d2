"""Competing mechanisms under BDP (:func:`bdpsim.studies.competition.competition_rows`): the noise each
method prescribes for a count on a chain and the exact BDPL of what it prescribes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.artist import Artist

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
#: the rows' method labels of the general bound and of group DP, which prescribe the same scale
_SAME_SCALE = ("general", "group")

LABEL = {
    "exact": "exact calibration (smallest ε-BDP scale)",
    "general": "general bound (m = T)",
    "group": "group DP (one group of T records)",
    "markov": "Markov bound",
    "zhao": "Zhao et al. bound",
    "markov-quilt-approx": "Markov Quilt (MQMApprox)",
    "markov-quilt-exact": "Markov Quilt (MQMExact)",
    "wasserstein": "Wasserstein mechanism",
    "randomized-response": "randomized response (Laplace scale of equal std)",
}


def competition_panels(rows: Sequence[dict]) -> int:
    """Two panels (noise scale, exact BDPL / ε) per chain."""
    return 2 * len({r["chain"] for r in rows})


def _series(rows, method):
    pts = sorted((r["epsilon"], r["scale"], r["bdpl"]) for r in rows if r["method"] == method)
    return (np.array(v, dtype=float) for v in zip(*pts)) if pts else (np.array([]),) * 3


def plot_competition(rows: Sequence[dict], axes):
    """One column per chain: the Laplace scale each method prescribes (top) and the exact BDPL of
    that noise over all adversaries in units of ε (bottom; above 1 = not ε-BDP, shaded), at the
    largest T (one day, T = 288). Only the general bound (= group DP, the same scale) and randomized
    response change with T; their values at the smaller T are drawn as thin lines without markers.
    Expects 2 rows of ``len(chains)`` axes, row-major."""
    from .style import legend, proxy

    chains = list(dict.fromkeys(r["chain"] for r in rows))
    lengths = sorted({r["T"] for r in rows})
    T, others = lengths[-1], lengths[:-1]
    axes = list(np.atleast_1d(axes))
    k = len(chains)
    handles: dict[str, Artist] = {}  # legend label -> its first line
    for ci, chain in enumerate(chains):
        ax_s, ax_b = axes[ci], axes[k + ci]
        rs = [r for r in rows if r["chain"] == chain and r["T"] == T]
        methods = list(dict.fromkeys(r["method"] for r in rs))
        # group DP (m = T) prescribes the general bound's scale: one curve, one legend entry
        general, group = _SAME_SCALE
        e_g, s_g, _ = _series(rs, general)
        e_q, s_q, _ = _series(rs, group)
        merged = {general, group} <= set(methods) and s_g.size == s_q.size and np.allclose(s_g, s_q)
        for method in methods:
            if merged and method == group:
                continue
            e, s, b = _series(rs, method)
            ok = np.isfinite(s) & np.isfinite(b)
            if not ok.any():
                continue
            color, marker, ls = STYLE.get(method, ("tab:gray", "*", "-"))
            label = (
                "general bound = group DP (m = T)"
                if (merged and method == general)
                else LABEL.get(method, method)
            )
            (h,) = ax_s.plot(
                e[ok], s[ok], color=color, marker=marker, linestyle=ls, label=label, markersize=5
            )
            ax_b.plot(e[ok], b[ok] / e[ok], color=color, marker=marker, linestyle=ls, markersize=5)
            handles.setdefault(label, h)
            for T2 in others:
                if method not in ("general", "randomized-response"):
                    continue
                e2, s2, b2 = _series([r for r in rows if r["chain"] == chain and r["T"] == T2], method)
                ok2 = np.isfinite(s2) & np.isfinite(b2)
                ax_s.plot(e2[ok2], s2[ok2], color=color, linestyle=ls, lw=0.8, alpha=0.7)
                ax_b.plot(e2[ok2], b2[ok2] / e2[ok2], color=color, linestyle=ls, lw=0.8, alpha=0.7)
        ratios = np.concatenate([ln.get_ydata() for ln in ax_b.get_lines()] or [np.ones(1)])
        ratios = ratios[np.isfinite(ratios) & (ratios > 0)]
        lo, hi = ratios.min() / 1.6, max(1.6, ratios.max() * 1.3)
        ax_b.axhspan(1.0, hi, color="red", alpha=0.08, lw=0)
        ax_b.axhline(1.0, color="0.3", lw=1)
        ax_b.set_yscale("log")
        ax_b.set_ylim(lo, hi)
        for ax, what in ((ax_s, "Laplace scale b"), (ax_b, "exact BDPL / ε")):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("target ε")
            ax.set_ylabel(what)
            ax.grid(alpha=0.3, which="both")
        name = chain.replace("gamma =", "Fig. 15 chain, γ =") + (" chain" if chain == "activity" else "")
        ax_s.set_title(f"({chr(97 + ci)}) {name}, T = {T}: noise scale", fontsize=9)
        ax_b.set_title(f"({chr(97 + k + ci)}) {name}, T = {T}: exact BDPL of that noise", fontsize=9)
    extra = [proxy("exact BDPL = ε; shaded: not ε-BDP", color="0.3", linestyle="-")]
    if others:
        extra.append(
            proxy(
                f"thin line: the same at T = {', '.join(str(t) for t in others)}",
                color="0.3",
                linestyle="-",
                lw=0.8,
            )
        )
    legend(axes[k - 1], list(handles.values()) + extra, list(handles) + [str(h.get_label()) for h in extra])
    axes[0].figure.suptitle(
        "Competing mechanisms for the count of state 1 on a Markov chain, every adversary "
        "(exact window search): the noise each prescribes for a target ε and its real leakage",
        fontsize=10,
    )
    return axes
