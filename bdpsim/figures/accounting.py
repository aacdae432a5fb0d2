"""The accountant's figure: the joint privacy profile ``delta(eps)`` of a list of releases beside the
naive composition and one release, and the trade-off curves they imply (data:
:func:`bdpsim.accounting.curves.profile_curves`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core.errors import ConfigError
from .style import colors, legend, save, subplots

FORMATS = (".png", ".pdf", ".svg")


def check_plot_path(path) -> Path:
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise ConfigError("--plot", str(path), f"must end in one of {', '.join(FORMATS)}")
    return p


def plot_profile(curves, title: str = ""):
    """Two panels: ``delta(eps)`` (log scale) and the implied trade-off ``beta(alpha)``."""
    from ..accounting.curves import implied_tradeoff

    c = colors()
    fig, (ax, bx) = subplots(1, 2, figsize=(10.0, 4.2))
    k = curves.releases
    ax.fill_between(curves.eps, curves.joint_lower, curves.joint_upper, color=c[0], alpha=0.25, linewidth=0)
    ax.plot(curves.eps, curves.joint, color=c[0], label=f"joint, {k} releases (this model)")
    if np.isfinite(curves.naive).any():
        ax.plot(curves.eps, curves.naive, color=c[1], linestyle="--", label="composed as if independent")
    if np.isfinite(curves.single).any():
        ax.plot(curves.eps, curves.single, color=c[2], linestyle=":", label="one release")
    ax.set_yscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    alpha = np.linspace(1e-4, 1.0, 300)
    bx.plot(alpha, implied_tradeoff(curves.eps, curves.joint_upper, alpha), color=c[0], label="joint")
    if np.isfinite(curves.naive).any():
        bx.plot(
            alpha,
            implied_tradeoff(curves.eps, curves.naive, alpha),
            color=c[1],
            linestyle="--",
            label="composed as if independent",
        )
    if np.isfinite(curves.single).any():
        bx.plot(
            alpha,
            implied_tradeoff(curves.eps, curves.single, alpha),
            color=c[2],
            linestyle=":",
            label="one release",
        )
    bx.plot(alpha, 1 - alpha, color="0.6", linewidth=0.8, label="no information")
    bx.set_xlabel("type I error (false-positive rate)")
    bx.set_ylabel("type II error beta")
    legend(ax)
    legend(bx)
    fig.suptitle(title or "Bayesian DP leakage on this model (not a DP guarantee)")
    return fig


def plot_account(acc, path, title: str = "", eps=None) -> Path:
    """Write the figure of ``acc`` to ``path`` (``.png``, ``.pdf`` or ``.svg``)."""
    import matplotlib.pyplot as plt

    from ..accounting.curves import profile_curves

    p = check_plot_path(path)
    grid = np.linspace(0.0, 4.0, 17) if eps is None else np.asarray(eps, dtype=float)
    fig = plot_profile(profile_curves(acc, grid), title)
    try:
        (out,) = save(fig, p.with_suffix(""), (p.suffix[1:].lower(),))
    finally:
        plt.close(fig)
    return out


def plot_accountant_gallery(rows, axes):
    """Gallery figure ``bdpsim-accountant`` (rows: :func:`bdpsim.studies.accountant.accountant_rows`):
    the joint ``delta(1)`` of ``k`` releases over every adversary (solid, with its interval) against
    the per-release profiles composed as if independent (dashed), per chain ``gamma`` (colour):
    (a) Laplace counts (1-DP each), (b) Gaussian counts (sd 2), (c) Gaussian counts on a hidden
    Markov network. One legend, right of the last panel. Returns the axes."""
    from .style import proxy

    ax, bx, cx = list(np.atleast_1d(axes))[:3]
    c = colors()
    chains = sorted({float(r["gamma"]) for r in rows if str(r["model"]).startswith("symmetric")})
    for axis, noise in ((ax, "laplace"), (bx, "gaussian")):
        for j, g in enumerate(chains):
            sel = [
                r
                for r in rows
                if float(r["gamma"]) == g and r["noise"] == noise and str(r["model"]).startswith("symmetric")
            ]
            if not sel:
                continue
            k = np.array([float(r["releases"]) for r in sel])
            col = c[j % len(c)]
            lo = [float(r["delta_joint_lower"]) for r in sel]
            hi = [float(r["delta_joint_upper"]) for r in sel]
            axis.fill_between(k, lo, hi, color=col, alpha=0.25, linewidth=0)
            axis.plot(k, [float(r["delta_joint"]) for r in sel], color=col)
            axis.plot(k, [float(r["delta_composed"]) for r in sel], color=col, linestyle="--")
        axis.set_title(f"{noise} count, symmetric chain")
    net = [r for r in rows if not str(r["model"]).startswith("symmetric")]
    if net:
        k = np.array([float(r["releases"]) for r in net])
        cx.plot(k, [float(r["delta_joint"]) for r in net], color="k")
        cx.plot(k, [float(r["delta_composed"]) for r in net], color="k", linestyle="--")
        cx.set_title(str(net[0]["model"]))
    for axis in (ax, bx, cx):
        axis.set_xscale("log")
        axis.set_xlabel("releases of the count")
        axis.set_ylabel("δ(ε = 1), worst adversary")
    handles = [proxy(f"chain γ = {g:g}", c[j % len(c)], linestyle="-") for j, g in enumerate(chains)]
    handles += [
        proxy("hidden Markov network", "k", linestyle="-"),
        proxy("joint (this model)", "0.4", linestyle="-"),
        proxy("composed as if independent", "0.4", linestyle="--"),
    ]
    legend(cx, handles)
    return [ax, bx, cx]
