"""Continual-release figures: exact temporal leakage beside Cao et al.'s TPL
over time (rows: :mod:`bdpsim.studies.temporal_curves`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .style import colors, legend, proxy

#: Cao's series in tools/plotTPL.m's order and markers: budget, BPL, FPL, TPL
_SERIES = (
    ("epsilon", "budget ε_t", "*"),
    ("bpl", "BPL_t", "o"),
    ("fpl", "FPL_t", "s"),
    ("tpl", "TPL_t", "^"),
)


def _f(v) -> float:
    return float("nan") if v in (None, "") else float(v)


def plot_tkde_budget(rows: Sequence[dict], axes):
    """One panel per allocation (``panel``): the budget and Cao's BPL/FPL/TPL (dashed, open
    markers, as ``plotTPL.m``) beside the exact BPL/FPL/TPL (solid, filled) against ``t``."""
    axes = list(np.atleast_1d(axes))
    c = colors()
    col = {"epsilon": "k", "bpl": c[0], "fpl": c[4 % len(c)], "tpl": c[3 % len(c)]}
    panels = list(dict.fromkeys(r["panel"] for r in rows))
    top = max([_f(r["cao_tpl"]) for r in rows] + [0.0])
    for j, (ax, name) in enumerate(zip(axes, panels)):
        pr = sorted((r for r in rows if r["panel"] == name), key=lambda r: int(r["t"]))
        t = [int(r["t"]) for r in pr]
        for key, _, m in _SERIES:
            if key == "epsilon":
                ax.plot(t, [_f(r[key]) for r in pr], color="k", marker=m, ms=4, lw=1)
                continue
            ax.plot(
                t,
                [_f(r["cao_" + key]) for r in pr],
                color=col[key],
                marker=m,
                ms=5,
                mfc="none",
                ls="--",
                lw=1,
            )
            ax.plot(t, [_f(r[key]) for r in pr], color=col[key], marker=m, ms=3, ls="-", lw=1.3)
        ax.set_ylim(0, top + 0.1)
        ax.set_xlabel("time t")
        ax.set_ylabel("privacy loss (nats)")
        ax.set_title(f"({'ab'[j % 2]}) budget by {name}", fontsize=9)
        ax.grid(alpha=0.3)
    handles = [proxy("budget ε_t", "k", "*", "-")]
    for key, label, m in _SERIES[1:]:
        handles += [
            proxy(f"{label}, Cao et al.", col[key], m, "--", mfc="none"),
            proxy(f"{label}, exact", col[key], m, "-"),
        ]
    legend(axes[-1], handles)
    axes[0].figure.suptitle(
        "TKDE budget allocations (testPlotBudgetAlloc.m: α = 1, T = 30) on the TKDE Fig. 4 "
        "chain;\nCao et al.'s recursion vs the exact leakage of any ε_t-DP step",
        fontsize=10,
    )
    return axes


def day_panels(rows: Sequence[dict]) -> int:
    """One panel per chain."""
    return len(dict.fromkeys(r["chain"] for r in rows))


def plot_temporal_day(rows: Sequence[dict], axes):
    """Per chain: the exact ``TPL_t``, Cao's ``TPL_t``, the Markov bound and group privacy ``Tε``
    against ``t`` (log y)."""
    axes = list(np.atleast_1d(axes))
    c = colors()
    chains = list(dict.fromkeys(r["chain"] for r in rows))
    for j, (ax, name) in enumerate(zip(axes, chains)):
        pr = sorted((r for r in rows if r["chain"] == name), key=lambda r: int(r["t"]))
        t = [int(r["t"]) for r in pr]
        ax.plot(t, [_f(r["tpl"]) for r in pr], color=c[0], ls="-", lw=2.2)
        ax.plot(
            t, [_f(r["cao_tpl"]) for r in pr], color=c[1], ls="--", lw=1.4
        )  # on top: equal on 2-state chains
        ax.axhline(_f(pr[0]["markov"]), color=c[2], ls=":", lw=1.6)
        ax.axhline(_f(pr[0]["group"]), color=c[3], ls="-.", lw=1.2)
        ax.set_yscale("log")
        ax.set_xlabel("step t")
        ax.set_ylabel("leakage about x_t (nats)")
        P = "], [".join(
            ", ".join(f"{float(v):.3g}" for v in row.split(",")) for row in pr[0]["transition"].split(";")
        )
        ax.set_title(f"({'abcdefghij'[j % 10]}) {name}, T = {int(pr[0]['steps'])}\nP = [[{P}]]", fontsize=8)
        ax.grid(alpha=0.3, which="both")
    for ax in axes[len(chains) :]:
        ax.axis("off")
    eps = _f(rows[0]["epsilon"]) if rows else float("nan")
    legend(
        axes[min(2, len(axes) - 1)],
        [
            proxy("TPL_t, exact", c[0], "", "-"),
            proxy("TPL_t, Cao et al.", c[1], "", "--"),
            proxy("Markov bound ε + 4 ln γ", c[2], "", ":"),
            proxy("group privacy Tε", c[3], "", "-."),
        ],
    )
    axes[0].figure.suptitle(
        f"Event-level releases, every step ε = {eps:g}-DP (any ε-DP step): exact temporal "
        f"leakage vs Cao et al.'s TPL, the paper's Markov bound and group privacy",
        fontsize=10,
    )
    return axes
