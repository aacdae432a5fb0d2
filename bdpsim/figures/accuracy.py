"""The accuracy report's figure: per-estimator RMSE against the exact value vs samples."""

from __future__ import annotations

from pathlib import Path

from ..estimators import KdeEstimator, MixtureEstimator
from .style import legend, save, subplots

TITLES = {
    KdeEstimator.name: "kde: error vs exact one-sided BDPL",
    MixtureEstimator.name: "mixture: error vs exact BDPL (*: adaptive, se target)",
}


def plot_accuracy(rows: list[dict], axes, estimators: tuple[str, ...] = tuple(TITLES)):
    """RMSE vs samples (log-log), one panel per estimator (adaptive mixture: stars at its mean
    sample size); returns the axes."""
    for ax, est in zip(axes, estimators):
        for k, case in enumerate(dict.fromkeys(r["case"] for r in rows)):
            colour = f"C{k % 10}"
            rs = sorted(
                (r for r in rows if r["case"] == case and r["estimator"] == est and not r["target_se"]),
                key=lambda r: r["samples"],
            )
            ax.loglog(
                [r["samples"] for r in rs], [max(r["rmse"], 1e-6) for r in rs], "o-", color=colour, label=case
            )
            for r in rows:
                if r["case"] == case and r["estimator"] == est and r["target_se"]:
                    ax.loglog([r["mean_samples"]], [max(r["rmse"], 1e-6)], "*", ms=11, color=colour)
        ax.set_title(TITLES.get(est, est), fontsize=9)
        ax.set_xlabel("samples per condition")
        ax.set_ylabel("RMSE of per-adversary estimate (nats)")
        ax.grid(alpha=0.3, which="both")
    legend(axes[-1])
    return axes


def save_accuracy(rows: list[dict], out: Path) -> list[Path]:
    """``accuracy.png`` and ``accuracy.pdf`` in ``out`` (:func:`plot_accuracy`)."""
    fig, axes = subplots(1, 2, figsize=(15, 4.6))
    plot_accuracy(rows, axes)
    return save(fig, Path(out) / "accuracy")
