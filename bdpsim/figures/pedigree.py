"""Pedigree figures (thesis §5): exact BDPL vs family size, and generations vs core families.

Both take the tidy rows of :mod:`bdpsim.genomic_study` and an ``Axes``, and return the ``Axes``.
Values are shown in units of ``eps`` (``BDPL / eps``), so the bounds ``(m - 1) eps`` (thesis
Cor. 5.2) and ``m eps`` (paper Thm 4.3) are the same two lines for every ``eps``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import matplotlib
from matplotlib.lines import Line2D

ROLE_MARKERS = {"child": "o", "founder": "s", "child+parent": "D"}


def _colors() -> list:
    return matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


def _bound_lines(ax, xs: Sequence[int], offsets: dict[str, int]) -> None:
    xs = sorted(set(xs))
    for (label, off), ls in zip(offsets.items(), ("--", ":", "-.")):
        ax.plot(xs, [x + off for x in xs], ls, color="0.35", lw=1, label=label)


def plot_family_size(rows: Sequence[dict], ax):
    """Exact BDPL / eps of a nuclear family vs its size ``m``, one curve per ``(eps, allele_b)``.

    Colour = ``allele_b``, line style = ``eps``; the marker names the worst adversary's target
    (circle: a child, square: a parent), hollow when that adversary knows nothing (``K = {}``,
    never drawn by the thesis' sampler). Dashed: ``(m - 1)`` (Cor. 5.2); dotted: ``m`` (Thm 4.3).
    """
    curves: dict = defaultdict(list)
    for r in rows:
        curves[(r["epsilon"], r["allele_b"])].append(r)
    qs = sorted({q for _, q in curves})
    epss = sorted({e for e, _ in curves})
    styles = ["-", "--", "-.", ":"]
    colors = _colors()
    for (eps, q), rs in sorted(curves.items()):
        rs = sorted(rs, key=lambda r: r["m"])
        c = colors[qs.index(q) % len(colors)]
        ax.plot([r["m"] for r in rs], [r["bdpl"] / eps for r in rs], styles[epss.index(eps) % 4],
                color=c, lw=1.2, alpha=0.8, label=f"eps = {eps:g}, q = {q:g}")
        for r in rs:
            hollow = r["worst_known_size"] == 0
            ax.plot(r["m"], r["bdpl"] / eps, ROLE_MARKERS.get(r["worst_role"], "x"), color=c,
                    mfc="none" if hollow else c, ms=5)
    _bound_lines(ax, [r["m"] for r in rows], {"(m - 1) eps  [Cor. 5.2]": -1, "m eps  [Thm 4.3]": 0})
    handles, labels = ax.get_legend_handles_labels()
    for name, marker in (("worst: child target, K = {}", "o"), ("worst: parent target, |K| >= 1", "s")):
        handles.append(Line2D([], [], ls="", marker=marker, color="0.2",
                              mfc="none" if "K = {}" in name else "0.2"))
        labels.append(name)
    from . import legend

    legend(ax, handles, labels)
    ax.set_xlabel("family size m (2 parents + m - 2 children)")
    ax.set_ylabel("exact BDPL / eps (Laplace count of BB)")
    ax.set_title("Nuclear family: exact BDPL vs the genomic bounds")
    return ax


def plot_generations(rows: Sequence[dict], ax, epsilon: float | None = None,
                     allele_b: float | None = None):
    """Thesis §5.3: exact BDPL / eps of a three-generation family of ``m`` people vs a nuclear
    family of the same size and a nuclear family of its core size ``l``, at one ``(eps, allele_b)``
    (default: the first in ``rows``). References: ``m - 1``, ``m`` and ``l`` (per ``eps``)."""
    epsilon = rows[0]["epsilon"] if epsilon is None else epsilon
    allele_b = rows[0]["allele_b"] if allele_b is None else allele_b
    rs = sorted((r for r in rows if r["epsilon"] == epsilon and r["allele_b"] == allele_b),
                key=lambda r: r["m"])
    m = [r["m"] for r in rs]
    colors = _colors()
    series = (("bdpl", "three generations (size m)", "D"),
              ("bdpl_nuclear_same_size", "nuclear family of size m", "o"),
              ("bdpl_nuclear_core_size", "nuclear family of the core size l", "s"))
    for k, (key, label, marker) in enumerate(series):
        ax.plot(m, [r[key] / epsilon for r in rs], "-" + marker, color=colors[k], label=label, ms=4)
    ax.plot(m, [r["core_size"] for r in rs], ":", color=colors[2], lw=1, label="l eps (core size)")
    _bound_lines(ax, m, {"(m - 1) eps": -1, "m eps": 0})
    from . import legend

    legend(ax)
    ax.set_xlabel("family size m")
    ax.set_ylabel("exact BDPL / eps")
    ax.set_title(f"Generations vs core family (eps = {epsilon:g}, q = {allele_b:g})")
    return ax
