"""Leakage by prior knowledge: which knowledge hurts most (prior differential privacy, Li et al.).

By the window reduction (:mod:`bdpsim.models.markov.window`) the worst adversary of an additive query on a
Markov chain knows everything outside a window around its target. Its prior knowledge is then
described by four things: how many records left/right of the target it does not know, and
whether each side of the window ends at a known record or at the chain's end (nothing known
beyond). :func:`leakage_by_knowledge` tabulates the exact worst ``BDPL_(K,i)`` per such cell
(maximised over the target position, the boundary values and ``x, x'``) — Li et al.'s leakage for
a given prior-knowledge set, computed exactly.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..core.errors import check
from ..kernels.chains import window_scan as wk
from ..models import MarkovChainModel
from ..models.markov import window_cells

KNOWLEDGE_COLUMNS = (
    "unknown_left",
    "unknown_right",
    "left_end",
    "right_end",
    "bdpl",
    "left_value",
    "right_value",
    "x",
    "x_prime",
)
_END_NAMES = {wk.KNOWN: "known", wk.END: "chain end"}


def leakage_by_knowledge(
    model: MarkovChainModel,
    values: np.ndarray,
    noise_scale: float,
    *,
    max_unknown: int = 10,
    min_known: int = 0,
    targets: Sequence[int] | None = None,
) -> list[dict]:
    """Worst exact leakage per (unknown left, unknown right, left end, right end) cell.

    Parameters
    ----------
    model : MarkovChainModel
    values : ndarray, shape (s,)
        Query value per state (:func:`bdpsim.kernels.chains.lattice.query_values`).
    noise_scale : float
        Laplace scale ``b`` of ``Y = sum_t values[X_t] + Lap(b)``.
    max_unknown : int
        Largest number of unknown records per side tabulated.
    min_known, targets
        As in :func:`bdpsim.models.markov.window.window_search`.

    Returns
    -------
    list of dict
        One row per cell that some adversary realises, with :data:`KNOWLEDGE_COLUMNS`:
        ``left_end``/``right_end`` are ``"known"`` (a known record bounds the window; its worst
        value in ``left_value``/``right_value``) or ``"chain end"`` (value ``""``); ``x, x_prime``
        the worst target values (``ln p(y | x)/p(y | x')`` positive at the worst output).
    """
    check(
        isinstance(max_unknown, (int, np.integer)) and max_unknown >= 0,
        "max_unknown",
        max_unknown,
        "must be an integer >= 0",
    )
    cells, _ = window_cells(
        model, values, noise_scale, min_known=min_known, targets=targets, window_limit=int(max_unknown)
    )
    rows = []
    v = cells["value"]
    for kl, L, kr, R in zip(*np.nonzero(np.isfinite(v))):
        idx = (kl, L, kr, R)
        rows.append(
            {
                "unknown_left": int(L),
                "unknown_right": int(R),
                "left_end": _END_NAMES[int(kl)],
                "right_end": _END_NAMES[int(kr)],
                "bdpl": float(v[idx]),
                "left_value": int(cells["a"][idx]) if kl == wk.KNOWN else "",
                "right_value": int(cells["c"][idx]) if kr == wk.KNOWN else "",
                "x": int(cells["x"][idx]),
                "x_prime": int(cells["x_prime"][idx]),
            }
        )
    rows.sort(key=lambda r: (r["left_end"], r["right_end"], r["unknown_left"], r["unknown_right"]))
    return rows


def write_knowledge_csv(rows: Sequence[dict], path: str | Path) -> Path:
    """Write :func:`leakage_by_knowledge` rows as CSV (columns :data:`KNOWLEDGE_COLUMNS`)."""
    path = Path(path)
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=KNOWLEDGE_COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{r[k]:.12g}" if k == "bdpl" else r[k]) for k in KNOWLEDGE_COLUMNS})
    return path


def knowledge_matrix(rows: Sequence[dict], left_end: str = "known", right_end: str = "known") -> np.ndarray:
    """``M[L, R]`` = worst BDPL of the cell (``nan`` where no adversary realises it)."""
    sel = [r for r in rows if r["left_end"] == left_end and r["right_end"] == right_end]
    check(bool(sel), "rows", f"{left_end}/{right_end}", "no rows for these window ends")
    M = np.full(
        (max(int(r["unknown_left"]) for r in sel) + 1, max(int(r["unknown_right"]) for r in sel) + 1), np.nan
    )
    for r in sel:
        M[int(r["unknown_left"]), int(r["unknown_right"])] = float(r["bdpl"])
    return M
