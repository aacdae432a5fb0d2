"""Continual-release figures: exact temporal leakage beside Cao et al.'s TPL
over time (rows: :mod:`bdpsim.studies.temporal_curves`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .style import colors, legend, proxy, subplots

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


def _day_rows(rows, transition=None, name: str = "") -> list[dict]:
    """The rows of :func:`plot_temporal_day`: the gallery study's as they are; the result of
    :func:`bdpsim.temporal_leakage` (a DataFrame or its list of dicts: no ``chain``) as one chain's,
    step ``t = i + 1``, group privacy the sum of the steps' eps, and with ``transition`` (one
    matrix, a stationary start) the Markov bound of the largest step eps and the matrix in the title."""
    if hasattr(rows, "to_dict"):
        rows = rows.to_dict("records")
    rows = list(rows)
    if not rows or "chain" in rows[0]:
        return rows
    from ..bounds import markov_bound

    eps = [_f(r["epsilon"]) for r in rows]
    P = np.asarray([] if transition is None else transition, dtype=float)
    one = P.ndim == 2  # one matrix (not steps - 1 of them, nor none)
    markov = markov_bound(max(eps), P).value if one else float("nan")
    text = ";".join(",".join(f"{v:.3g}" for v in row) for row in P) if one else ""
    out = []
    for r in rows:
        tpl = r.get("tpl")
        if tpl is None or tpl != tpl:  # an interval: its upper end (the safe side)
            tpl = r.get("tpl_high")
        cao = r.get("cao_tpl")
        if cao is None or cao != cao:
            cao = r.get("cao_tpl_high")
        out.append(
            dict(
                chain=name or "the chain",
                t=int(r["i"]) + 1,
                tpl=tpl,
                cao_tpl=cao,
                markov=markov,
                group=sum(eps),
                transition=text,
                steps=len(rows),
                epsilon=r["epsilon"],
            )
        )
    return out


def plot_temporal_day(rows, axes=None, *, transition=None, name: str = ""):
    """Per chain: the exact ``TPL_t``, Cao's ``TPL_t``, the Markov bound and group privacy ``Tε``
    against ``t`` (log y).

    Parameters
    ----------
    rows : sequence of dict or DataFrame
        The gallery study's rows (:func:`bdpsim.studies.temporal_curves.day_rows`, one panel per
        ``chain``), or one chain's :func:`bdpsim.temporal_leakage` result as it is returned.
    axes : matplotlib Axes or sequence of Axes, optional
        One per chain (a new figure's, without pyplot, when not given).
    transition : array_like, optional
        With a :func:`bdpsim.temporal_leakage` result: its transition matrix (one, the chain
        started from its stationary law): the Markov bound ``ε + 4 ln γ`` of the largest step ε is
        drawn and the matrix shown in the title (else neither).
    name : str
        With a :func:`bdpsim.temporal_leakage` result: the chain's name in the title.

    Returns
    -------
    list of matplotlib Axes
        The axes drawn on.
    """
    study = not hasattr(rows, "to_dict") and bool(rows) and "chain" in list(rows)[0]
    rows = _day_rows(rows, transition, name)
    chains = list(dict.fromkeys(r["chain"] for r in rows))
    if axes is None:
        _, axes = subplots(1, len(chains), figsize=(7.4 + 4.0 * (len(chains) - 1), 4.2))
    axes = list(np.atleast_1d(axes))
    c = colors()
    for j, (ax, chain) in enumerate(zip(axes, chains)):
        pr = sorted((r for r in rows if r["chain"] == chain), key=lambda r: int(r["t"]))
        t = [int(r["t"]) for r in pr]
        ax.plot(t, [_f(r["tpl"]) for r in pr], color=c[0], ls="-", lw=2.2)
        ax.plot(
            t, [_f(r["cao_tpl"]) for r in pr], color=c[1], ls="--", lw=1.4
        )  # on top: equal on 2-state chains
        if math.isfinite(_f(pr[0]["markov"])):
            ax.axhline(_f(pr[0]["markov"]), color=c[2], ls=":", lw=1.6)
        ax.axhline(_f(pr[0]["group"]), color=c[3], ls="-.", lw=1.2)
        ax.set_yscale("log")
        ax.set_xlabel("step t")
        ax.set_ylabel("leakage about x_t (nats)")
        letter = f"({'abcdefghij'[j % 10]}) " if study or len(chains) > 1 else ""
        head = f"{letter}{chain}, T = {int(pr[0]['steps'])}"
        if pr[0]["transition"]:
            P = "], [".join(
                ", ".join(f"{float(v):.3g}" for v in row.split(",")) for row in pr[0]["transition"].split(";")
            )
            head += f"\nP = [[{P}]]"
        ax.set_title(head, fontsize=8)
        ax.grid(alpha=0.3, which="both")
    for ax in axes[len(chains) :]:
        ax.axis("off")
    handles = [proxy("TPL_t, exact", c[0], "", "-"), proxy("TPL_t, Cao et al.", c[1], "", "--")]
    if any(math.isfinite(_f(r["markov"])) for r in rows):
        handles.append(proxy("Markov bound ε + 4 ln γ", c[2], "", ":"))
    handles.append(proxy("group privacy Tε" if study else "group privacy Σ ε_t", c[3], "", "-."))
    legend(axes[min(2, len(axes) - 1)], handles)
    if study:
        eps = _f(rows[0]["epsilon"])
        axes[0].figure.suptitle(
            f"Event-level releases, every step ε = {eps:g}-DP (any ε-DP step): exact temporal "
            f"leakage vs Cao et al.'s TPL, the paper's Markov bound and group privacy",
            fontsize=10,
        )
    return axes
