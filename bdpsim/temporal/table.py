"""``bdpsim.temporal_leakage``: the exact and Cao et al.'s temporal leakage as one table.

One row per step ``t = 1..T`` with the columns of ``bdpsim temporal --json`` (:data:`COLUMNS`):
``t``, ``epsilon``, the exact ``bpl``, ``fpl``, ``tpl`` (``None`` at a known step, and where the
exact value is only known to lie in an interval: then ``*_low`` and ``*_high`` hold it), the pair
``a``, ``b`` attaining ``TPL_t``, and Cao et al.'s ``cao_bpl``, ``cao_fpl``, ``cao_tpl`` (``None``
with a known set, which their TPL cannot express, or with ``method = "exact"``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..kernels.argcheck import require

#: the methods: the exact engine, Cao et al.'s recursion, or both (default)
METHODS = ("exact", "cao", "both")
#: the columns of a table, in order (``*_low``/``*_high`` added where an exact value is an interval)
COLUMNS = ("t", "epsilon", "bpl", "fpl", "tpl", "a", "b", "cao_bpl", "cao_fpl", "cao_tpl")


@dataclass(frozen=True)
class TemporalTable:
    """The per-step table and what produced it: ``rows`` (dicts with :data:`COLUMNS`), ``exact``
    (False where some value is an interval; None with ``method = "cao"``), ``points`` (largest propagated
    hull), the
    exact engine's result (``None`` with ``method = "cao"``) for witnesses, and the chain as it
    was checked (:class:`~bdpsim.temporal.exact.TemporalChain`: a budget search reuses it)."""

    rows: list[dict]
    exact: bool | None
    points: int
    result: Any
    chain: Any = None

    @property
    def per_step(self) -> bool:
        """Whether the chain has one transition matrix per step."""
        return self.chain is not None and self.chain.transition.ndim == 3


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def temporal_table(
    transition,
    epsilon,
    steps: int,
    mechanism: str = "any",
    *,
    initial="stationary",
    known: Sequence[int] = (),
    values=None,
    method: str = "both",
    max_points: int | None = None,
) -> TemporalTable:
    """The table (module docstring); arguments as :func:`bdpsim.temporal.exact.temporal_exact`."""
    from .exact import MAX_POINTS, TemporalChain, temporal_exact

    require(method in METHODS, "method", method, f"must be one of {', '.join(METHODS)}")
    chain = TemporalChain.of(transition, steps, initial)  # checked once, for both methods
    res = None
    if method != "cao":  # exact or both
        res = temporal_exact(
            chain,
            epsilon,
            steps,
            mechanism,
            known=known,
            values=values,
            max_points=MAX_POINTS if max_points is None else max_points,
        )
    cao = None
    if method in ("cao", "both") and not known:
        from .cao import cao_leakage

        cao = cao_leakage(
            chain.transition, epsilon, steps, initial=None if chain.stationary else chain.initial
        )
    elif method == "cao":
        from ..core.errors import ConfigError

        raise ConfigError("known", list(known), "Cao et al.'s TPL has no known set: use method exact or both")
    T = int(steps)
    interval = res is not None and not bool(
        np.allclose(np.nan_to_num(res.tpl_high - res.tpl), 0.0, atol=1e-12)
        and np.allclose(np.nan_to_num(res.bpl_high - res.bpl), 0.0, atol=1e-12)
        and np.allclose(np.nan_to_num(res.fpl_high - res.fpl), 0.0, atol=1e-12)
    )
    rows = []
    eps = res.epsilon if res is not None else cao.epsilon  # type: ignore[union-attr]
    ends = (
        {}
        if res is None
        else {"bpl": (res.bpl, res.bpl_high), "fpl": (res.fpl, res.fpl_high), "tpl": (res.tpl, res.tpl_high)}
    )
    cao_cols = {} if cao is None else {"bpl": cao.bpl, "fpl": cao.fpl, "tpl": cao.tpl}
    for i in range(T):
        row: dict[str, Any] = {"t": i + 1, "epsilon": float(eps[i])}
        for key in ("bpl", "fpl", "tpl"):
            if res is None:
                row[key] = None
                continue
            low, high = _num(ends[key][0][i]), _num(ends[key][1][i])
            row[key] = low if low is not None and high is not None and high - low <= 1e-12 else None
            if interval:
                row[key + "_low"], row[key + "_high"] = low, high
        row["a"] = int(res.pair[i, 0]) if res is not None and res.pair[i, 0] >= 0 else None
        row["b"] = int(res.pair[i, 1]) if res is not None and res.pair[i, 1] >= 0 else None
        for key in ("bpl", "fpl", "tpl"):
            row["cao_" + key] = float(cao_cols[key][i]) if cao_cols else None
        rows.append(row)
    return TemporalTable(
        rows, res.exact if res is not None else None, res.points if res is not None else 0, res, chain
    )


def temporal_leakage(
    transition,
    epsilon,
    steps: int,
    mechanism: str = "any",
    *,
    initial="stationary",
    known: Sequence[int] = (),
    values=None,
    method: str = "both",
    as_frame: bool = True,
):
    """Exact temporal leakage of a continual release beside Cao et al.'s TPL, per step.

    ``TPL_t = sup ln P(r_1..r_T | x_t = a) / P(r_1..r_T | x_t = b)`` over the outputs and the value
    pairs (and ``BPL_t``, ``FPL_t`` with the releases up to / from ``t``), computed exactly by
    :func:`bdpsim.temporal.exact.temporal_exact`; Cao et al.'s recursion by
    :func:`bdpsim.temporal.cao.cao_leakage`.

    Parameters
    ----------
    transition : array_like
        A ``(k, k)`` transition matrix, or ``steps - 1`` of them.
    epsilon : float or sequence of float
        Per-step DP level: one value or one per step.
    steps : int
        ``T``.
    mechanism : str
        ``krr``, ``laplace``, ``geometric``, ``staircase`` or ``any`` (every eps-DP step).
    initial : "stationary" or array_like
        The law of ``x_1``.
    known : sequence of int
        Steps whose values the adversary knows (exact only).
    values : sequence of float, optional
        Per-state values: noise on ``v_{x_t}`` instead of the one-hot histogram.
    method : {"both", "exact", "cao"}
    as_frame : bool
        A pandas ``DataFrame`` when pandas is installed (as :func:`bdpsim.run`), else a list of dicts.

    Returns
    -------
    DataFrame or list of dict
        One row per step with the columns ``t``, ``epsilon``, ``bpl``, ``fpl``, ``tpl``, ``a``,
        ``b``, ``cao_bpl``, ``cao_fpl``, ``cao_tpl`` (and ``*_low``/``*_high`` where an interval).

    Examples
    --------
    >>> rows = temporal_leakage([[0.9, 0.1], [0.2, 0.8]], 1.0, 3, "krr", as_frame=False)
    >>> [round(r["tpl"], 6) for r in rows] == [round(r["cao_tpl"], 6) for r in rows]
    True
    """
    table = temporal_table(
        transition, epsilon, steps, mechanism, initial=initial, known=known, values=values, method=method
    )
    if not as_frame:
        return table.rows
    try:  # as bdpsim.run: a DataFrame when pandas is installed (pandas is optional)
        import pandas as pd
    except ImportError:
        return table.rows
    return pd.DataFrame(table.rows)
