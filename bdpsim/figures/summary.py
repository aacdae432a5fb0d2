"""``bdpsim plot``: the BDPL of a finished run (``summary.csv``) against its bounds."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from . import colors, legend, save, subplots

AXIS_LABELS = {"gamma": "transition ratio γ", "rho": "max. Pearson correlation ρ",
               "epsilon": "DP parameter ε", "n": "records n"}


def _varying(rows: Sequence[dict], keys: Sequence[str]) -> list[str]:
    out = []
    for k in keys:
        vals = {r.get(k) for r in rows if isinstance(r.get(k), float) and math.isfinite(r.get(k))}
        if len(vals) > 1:
            out.append(k)
    return out


def choose_axes(rows: Sequence[dict]) -> tuple[str, str | None]:
    """Pick the x-axis (first varying of gamma, rho, epsilon, n) and the grouping key."""
    var = _varying(rows, ["gamma", "rho", "epsilon", "n", "noise_scale"])
    if not var:
        return ("n", None)
    x = var[0]
    rest = [k for k in var[1:] if k != x]
    return x, (rest[0] if rest else None)


def plot_summary(rows: Sequence[dict], ax, x: str | None = None, group: str | None = None):
    """Empirical BDPL (percentile with its confidence interval), exact BDPL where known, and the
    tighter of the general and the model bound.

    Parameters
    ----------
    rows : sequence of dict
        ``summary.csv`` rows (:func:`bdpsim.results.read_summary`).
    ax : matplotlib.axes.Axes
    x, group : str, optional
        Column for the x-axis and for separate curves (chosen automatically when omitted).
    """
    auto_x, auto_g = choose_axes(rows)
    x = x or auto_x
    group = group if group is not None else (auto_g if x == auto_x else None)
    groups: dict = defaultdict(list)
    for r in rows:
        groups[r.get(group) if group else None].append(r)
    cyc = colors()
    markers = {"kde": "x", "mixture": "+", "exact": "s"}
    for gi, (g, rs_all) in enumerate(sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0]))):
        c = cyc[gi % len(cyc)]
        label = f"{group} = {g:g}" if group else ""
        by_est: dict = defaultdict(list)
        for r in rs_all:
            by_est[r.get("estimator", "")].append(r)
        for ei, (est, rs) in enumerate(sorted(by_est.items())):
            ce = c if group else cyc[(ei + 1) % len(cyc)]
            rs = sorted(rs, key=lambda r: r[x])
            xs = np.array([r[x] for r in rs])
            p = np.array([r["bdpl_p99"] for r in rs], dtype=float)
            lo = np.array([r.get("bdpl_p99_ci_low", np.nan) for r in rs], dtype=float)
            hi = np.array([r.get("bdpl_p99_ci_high", np.nan) for r in rs], dtype=float)
            pc = rs[0].get("percentile", 99)
            yerr = np.vstack([np.clip(p - lo, 0, None), np.clip(hi - p, 0, None)])
            yerr = np.where(np.isfinite(yerr), yerr, 0)
            what = "max" if est == "exact" else f"p{pc:g}"
            ax.errorbar(xs, p if est != "exact" else np.array([r["bdpl_max"] for r in rs], dtype=float),
                        yerr=None if est == "exact" else yerr, fmt=markers.get(est, "x"), color=ce,
                        capsize=3, ms=7, label=f"{est} {what} {label}".strip())
            nf = np.array([r.get("noise_floor", np.nan) for r in rs], dtype=float)
            if est != "exact" and np.isfinite(nf).any() and np.nanmax(nf) > 0:
                ax.plot(xs, nf, ":", color=ce, lw=1, label=f"{est} noise floor {label}".strip())
        rs = sorted(rs_all, key=lambda r: r[x])
        xs = np.array([r[x] for r in rs])
        ex = np.array([r.get("bdpl_exact", np.nan) for r in rs], dtype=float)
        if np.isfinite(ex).any() and not all(r.get("estimator") == "exact" for r in rs):
            ax.plot(xs, ex, "o", mfc="none", color=c, label=f"exact (same adversaries) {label}".strip())
        bounds = np.vstack([[r.get(k, np.nan) for r in rs] for k in ("bound_general", "bound_model")]).astype(float)
        with np.errstate(all="ignore"):
            tight = np.nanmin(np.where(np.isfinite(bounds), bounds, np.nan), axis=0)
        if np.isfinite(tight).any():
            ok = np.isfinite(tight)
            ax.plot(xs[ok], tight[ok], "-", color=c, lw=1.5, label=f"min(general, model bound) {label}".strip())
    ax.set_xlabel(AXIS_LABELS.get(x, x))
    ax.set_ylabel("BDPL (nats)")
    ax.grid(alpha=0.3)
    legend(ax)
    return ax


def plot_results(results_dir: Path, x: str | None = None, group: str | None = None,
                 title: str | None = None) -> list[Path]:
    """``bdpsim plot``: ``bdpl.png``/``.pdf`` next to ``summary.csv``."""
    from ..results import read_summary

    rows = read_summary(results_dir)
    fig, ax = subplots(figsize=(6.4, 4.4))
    plot_summary(rows, ax, x, group)
    if title is None:
        meta = Path(results_dir) / "metadata.json"
        title = json.loads(meta.read_text()).get("title", "") if meta.is_file() else ""
    if title:
        ax.set_title(title, fontsize=8)
    return save(fig, Path(results_dir) / "bdpl")
