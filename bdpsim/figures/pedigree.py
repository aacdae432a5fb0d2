"""Pedigree figures (thesis §5): exact BDPL vs family size, and generations vs core families.

Both take the tidy rows of :mod:`bdpsim.studies.genomic_study` and an ``Axes``, and return the ``Axes``.
Values are shown in units of ``eps`` (``BDPL / eps``), so the bounds ``(m - 1) eps`` (thesis
Cor. 5.2) and ``m eps`` (paper Thm 4.3) are the same two lines for every ``eps``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import matplotlib
import numpy as np
from matplotlib.lines import Line2D

ROLE_MARKERS = {"child": "o", "founder": "s", "child+parent": "D"}


def _colors() -> list:
    return matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


def _bound_lines(ax, xs: Sequence[int], offsets: dict[str, int]) -> None:
    xs = sorted(set(xs))
    for (label, off), ls in zip(offsets.items(), ("--", ":", "-.")):
        ax.plot(xs, [x + off for x in xs], ls, color="0.35", lw=1, label=label)


EPS_MARKERS = ["o", "s", "^", "D"]


def _dodge(k: int, total: int, width: float = 0.5) -> float:
    """x offset of the ``k``-th of ``total`` series drawn side by side around an integer x."""
    return 0.0 if total <= 1 else (k / (total - 1) - 0.5) * width


def plot_family_size(rows: Sequence[dict], axes):
    """Two panels: (a) exact BDPL / eps of a nuclear family vs its size ``m`` with the bounds
    ``(m - 1)`` (Cor. 5.2, dashed) and ``m`` (Thm 4.3, dotted); (b) the excess over ``(m - 1)``.
    Every ``(eps, allele_b)`` case is drawn, its points side by side around each ``m`` (colour =
    ``allele_b``, marker = ``eps``) so cases with equal values stay visible; hollow where the worst
    adversary knows nothing (``K = {}``, never drawn by the thesis' sampler)."""
    from .style import legend

    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    curves: dict = defaultdict(list)
    for r in rows:
        curves[(r["epsilon"], r["allele_b"])].append(r)
    qs = sorted({q for _, q in curves})
    epss = sorted({e for e, _ in curves})
    colors = _colors()
    cases = sorted(curves)
    for j, ((eps, q), rs) in enumerate(sorted(curves.items())):
        rs = sorted(rs, key=lambda r: r["m"])
        c = colors[qs.index(q) % len(colors)]
        mk = EPS_MARKERS[epss.index(eps) % len(EPS_MARKERS)]
        dx = _dodge(j, len(cases))
        m = np.array([r["m"] for r in rs], dtype=float) + dx
        y = np.array([r["bdpl"] / eps for r in rs])
        excess = y - (m - dx - 1)
        hollow = np.array([r["worst_known_size"] == 0 for r in rs])
        for ax, yy in zip(axes, (y, excess)):
            ax.plot(m, yy, "-", color=c, lw=0.7, alpha=0.6)
            ax.plot(m[~hollow], yy[~hollow], mk, color=c, ms=4, linestyle="none")
            ax.plot(m[hollow], yy[hollow], mk, color=c, mfc="none", ms=5, linestyle="none")
    xs = sorted({r["m"] for r in rows})
    _bound_lines(axes[0], xs, {"(m − 1) ε  [thesis Cor. 5.2]": -1, "m ε  [general bound, Thm 4.3]": 0})
    axes[0].set_ylabel("exact BDPL / ε (Laplace count of BB)")
    axes[0].set_title("(a) exact BDPL / ε and the bounds", fontsize=9)
    if len(axes) > 1:
        axes[1].axhline(0.0, color="0.35", ls="--", lw=1)
        axes[1].set_ylabel("exact BDPL / ε − (m − 1)")
        exc: defaultdict[int, float] = defaultdict(float)
        for r in rows:
            exc[r["m"]] = max(exc[r["m"]], r["bdpl"] / r["epsilon"] - (r["m"] - 1))
        zero = [m for m in xs if all(exc[k] <= 1e-9 for k in xs if k >= m)]
        note = f": zero for every case from m = {zero[0]}" if zero else ""
        axes[1].set_title(f"(b) excess over the lower bound (m − 1) ε{note}", fontsize=9)
    for ax in axes:
        ax.set_xlabel("family size m (2 parents + m − 2 children)")
        ax.set_xticks(xs)
        ax.grid(alpha=0.3)
    handles = [Line2D([], [], color=colors[i % len(colors)], lw=2) for i in range(len(qs))]
    labels = [f"allele-b frequency q = {q:g}" for q in qs]
    handles += [
        Line2D([], [], ls="", marker=EPS_MARKERS[i % len(EPS_MARKERS)], color="0.2") for i in range(len(epss))
    ]
    labels += [f"ε = {e:g}" for e in epss]
    handles += [Line2D([], [], ls="", marker="o", color="0.2", mfc="none")]
    labels += ["hollow: the worst adversary knows nothing (K = ∅)"]
    h0, l0 = axes[0].get_legend_handles_labels()
    legend(axes[-1], handles + h0, labels + l0)
    axes[0].figure.suptitle(
        "Exact BDPL of the ε-DP Laplace count of BB on one nuclear family (2 parents + m − 2 "
        "children,\nHardy–Weinberg founders), every adversary; each (ε, q) drawn side by side",
        fontsize=10,
    )
    return axes


def plot_generations(rows: Sequence[dict], axes):
    """Thesis §5.3, all rows: one panel per allele frequency; exact BDPL / eps of a three-generation
    family of ``m`` people (blue), a nuclear family of the same size (orange) and a nuclear family
    of its core size ``l`` (green); marker = eps, the eps side by side around each ``m``.
    References: ``m - 1`` (dashed), ``m`` (dotted) and ``l`` (green dotted)."""
    from .style import legend

    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    qs = sorted({r["allele_b"] for r in rows})
    epss = sorted({r["epsilon"] for r in rows})
    colors = _colors()
    series = (
        ("bdpl", "three-generation family of m people"),
        ("bdpl_nuclear_same_size", "nuclear family of m people"),
        ("bdpl_nuclear_core_size", "nuclear family of its core size l"),
    )
    for ax, q in zip(axes, qs):
        rq = [r for r in rows if r["allele_b"] == q]
        ms_ = sorted({r["m"] for r in rq})
        for j, eps in enumerate(epss):
            rs = sorted((r for r in rq if r["epsilon"] == eps), key=lambda r: r["m"])
            x = np.array([r["m"] for r in rs], dtype=float) + _dodge(j, len(epss), 0.36)
            for k, (key, _) in enumerate(series):
                ax.plot(
                    x,
                    [r[key] / eps for r in rs],
                    "-" + EPS_MARKERS[j % len(EPS_MARKERS)],
                    color=colors[k],
                    ms=4,
                    lw=0.8,
                    alpha=0.9,
                )
        core = {r["m"]: r["core_size"] for r in rq}
        ax.plot(ms_, [core[m] for m in ms_], ":", color=colors[2], lw=1.2)
        _bound_lines(ax, ms_, {"(m − 1) ε": -1, "m ε": 0})
        ax.set_title(f"allele-b frequency q = {q:g}", fontsize=9)
        ax.set_xlabel("family size m")
        ax.set_xticks(ms_)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("exact BDPL / ε")
    handles = [Line2D([], [], color=colors[k], lw=2) for k in range(len(series))]
    labels = [lab for _, lab in series]
    handles += [
        Line2D([], [], ls="", marker=EPS_MARKERS[j % len(EPS_MARKERS)], color="0.2") for j in range(len(epss))
    ]
    labels += [f"ε = {e:g} (side by side)" for e in epss]
    handles += [
        Line2D([], [], color=colors[2], ls=":"),
        Line2D([], [], color="0.35", ls="--"),
        Line2D([], [], color="0.35", ls=":"),
    ]
    labels += ["l ε (core size l)", "(m − 1) ε", "m ε"]
    legend(axes[-1], handles, labels)
    axes[0].figure.suptitle(
        "Thesis §5.3: exact BDPL of the ε-DP Laplace count of BB, three-generation family vs "
        "nuclear families (every adversary; all 54 (m, ε, q) cases)",
        fontsize=10,
    )
    return axes
