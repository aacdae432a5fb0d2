"""The ``bdpsim-audit`` figure: the black-box audit's certified lower bound and point estimate vs
budget, converging to the exact BDPL, with the thesis' KDE estimator beside it (rows:
:func:`bdpsim.studies.audit_study.budget_rows`)."""

from __future__ import annotations

import math

from ..estimators import AuditEstimator, KdeEstimator
from .style import colors, legend, proxy

TITLE = (
    "black-box audit vs budget: activity chain, Laplace count b = 1, n = {n}\n"
    "{adversaries} window adversaries, 95 % certified lower bound (search included in the budget)"
)


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)


def plot_audit(rows: list[dict], ax):
    """Certified lower bound (filled circles) and point estimate ± 1.96 se (open squares) of the
    audit at each budget (mechanism calls in all, log scale), the KDE estimator's 99th percentile
    over the same adversaries at the calls it used (crosses; a triangle with its value when it is
    above the axis, which ends 1 nat above the exact BDPL), and the exact BDPL (dashed); returns
    ``ax``."""
    c = colors()
    n = next((int(r["n"]) for r in rows if _finite(r.get("n"))), 288)
    adversaries = next((int(r["adversaries"]) for r in rows if _finite(r.get("adversaries"))), 40)
    audit = sorted((r for r in rows if r["estimator"] == AuditEstimator.name), key=lambda r: r["calls"])
    kde = sorted((r for r in rows if r["estimator"] == KdeEstimator.name), key=lambda r: r["calls"])
    exact = next((r["bdpl_exact"] for r in rows if _finite(r.get("bdpl_exact"))), math.nan)
    xs = [r["calls"] for r in audit]
    ax.plot(xs, [r["lower"] for r in audit], "o-", color=c[0], lw=1.5, ms=6)
    est = [r for r in audit if _finite(r["estimate"])]
    ax.errorbar(
        [r["calls"] for r in est],
        [r["estimate"] for r in est],
        yerr=[1.96 * r["se"] if _finite(r["se"]) else 0.0 for r in est],
        fmt="s",
        mfc="none",
        color=c[1],
        ms=6,
        capsize=3,
        lw=1,
    )
    lows = [r["lower"] for r in audit if _finite(r["lower"])]
    top = (exact if _finite(exact) else max(lows + [1.0])) + 1.0
    ax.set_ylim(min(lows + [top - 1.5]) - 0.2, top)
    for r in kde:  # the KDE's values are far above the truth: off-scale ones are marked at the top
        y = r["estimate"]
        if y <= top:
            ax.plot([r["calls"]], [y], "x", color=c[3], ms=9, mew=2)
        else:
            ax.plot([r["calls"]], [top - 0.08], "^", color=c[3], ms=9)
            ax.annotate(
                f"kde {y:.2f}",
                (r["calls"], top - 0.08),
                xytext=(0, -14),
                textcoords="offset points",
                ha="center",
                va="top",
                color=c[3],
                fontsize=8,
            )
    if _finite(exact):
        ax.axhline(exact, color="k", ls="--", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("mechanism calls (audit: in all, adversary search included)")
    ax.set_ylabel("BDPL (nats)")
    ax.set_title(TITLE.format(n=n, adversaries=adversaries), fontsize=9)
    ax.grid(alpha=0.3, which="both")
    handles = [
        proxy("audit: certified 95 % lower bound", c[0], "o", "-"),
        proxy("audit: point estimate ± 1.96 se\n(certified event's log-ratio)", c[1], "s", mfc="none"),
        proxy("kde (thesis): 99th percentile\n(▲: above the axis, value written)", c[3], "x", mew=2),
        proxy(f"exact BDPL {exact:.4f}" if _finite(exact) else "exact BDPL", "k", "", "--"),
    ]
    legend(ax, handles)
    return ax
