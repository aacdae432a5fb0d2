"""``bdpsim.temporal_leakage``: the exact and Cao et al.'s temporal leakage as one table.

One row per step with the columns of ``bdpsim temporal --json`` (:data:`COLUMNS`): ``i``, the
step's record, numbered from 0 as bdpsim numbers records everywhere (``i`` and ``known`` of
``adversaries.csv``, :class:`bdpsim.Adversary`; the paper's step ``t`` is ``i + 1``), ``epsilon``,
the exact ``bpl``, ``fpl``, ``tpl`` (``None`` at a known record; where the exact value is only
known to lie in an interval, its upper end, a safe bound, and ``*_low`` and ``*_high`` hold the
interval), the pair ``a``, ``b``
attaining ``TPL``, and Cao et al.'s ``cao_bpl``, ``cao_fpl``, ``cao_tpl`` (``None`` with a known
set, which their TPL cannot express, or with ``method = "exact"``). Leakages are in nats. Bad input
raises :class:`~bdpsim.core.errors.ConfigError` naming the argument.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.errors import ConfigError, check, naming

#: the methods: the exact engine, Cao et al.'s recursion, or both (default); the command line's
#: ``--method`` choices (this module imports NumPy only in its functions)
METHODS = ("exact", "cao", "both")
#: the columns of a table, in order (``*_low``/``*_high`` added where an exact value is an interval)
COLUMNS = ("i", "epsilon", "bpl", "fpl", "tpl", "a", "b", "cao_bpl", "cao_fpl", "cao_tpl")


@dataclass(frozen=True)
class TemporalTable:
    """The per-step table and what produced it: ``rows`` (dicts with :data:`COLUMNS`), ``exact``
    (False where some value is an interval; None with ``method = "cao"``), ``points`` (largest propagated
    hull), the
    exact engine's result (``None`` with ``method = "cao"``) for witnesses, and the chain as it
    was checked (:class:`~bdpsim.temporal.chain.ReleasedChain`: a budget search reuses it)."""

    rows: list[dict]
    exact: bool | None
    points: int
    result: Any
    chain: Any = None
    #: why Cao et al.'s columns are missing beside the exact ones (``method = "both"`` on a chain
    #: their recursion refuses, e.g. one with a transient state), else ``None``
    cao_note: str | None = None

    @property
    def per_step(self) -> bool:
        """Whether the chain has one transition matrix per step."""
        return self.chain is not None and self.chain.transition.ndim == 3


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def temporal_table(
    transition,
    epsilon=None,
    steps: int | None = None,
    mechanism: str = "any",
    *,
    initial="stationary",
    known_records: Sequence[int] = (),
    values=None,
    method: str = "both",
    max_points: int | None = None,
) -> TemporalTable:
    """The table (module docstring) of a :class:`~bdpsim.temporal.chain.ReleasedChain` (as
    ``transition``), or of the arguments of :func:`bdpsim.temporal.exact.temporal_exact`, but
    ``known_records``: the records (steps) ``0..steps-1`` whose value the adversary knows.
    A kernel's error raised inside is the :class:`~bdpsim.core.errors.ConfigError` of its argument."""
    with naming():
        from .chain import released_chain

        chain = released_chain(transition, epsilon, steps, mechanism, initial=initial, state_values=values)
        check(
            steps is None or steps == chain.steps, "steps", steps, f"must be the chain's {chain.steps} steps"
        )
        return _table(chain, known_records, method, max_points)


def _table(chain: Any, known_records: Sequence[int], method: str, max_points: int | None) -> TemporalTable:
    import numpy as np

    from .chain import records_of
    from .exact import engine_of

    check(method in METHODS, "method", method, f"must be one of {', '.join(METHODS)}")
    known = [s + 1 for s in records_of(known_records, chain.steps)]  # the engine's steps 1..T
    if method == "cao" and known:
        raise ConfigError(
            "known_records",
            list(known_records),
            "Cao et al.'s TPL has no known set: use method exact or both",
        )
    res = None
    if method != "cao":  # exact or both
        res = engine_of(chain, max_points=max_points).leakage(known)
    cao, cao_note = None, None
    if method in ("cao", "both") and not known:
        from ..core.errors import BdpsimError
        from .cao import cao_leakage

        try:
            cao = cao_leakage(
                chain.transition,
                chain.epsilons,
                chain.steps,
                initial=None if chain.stationary else chain.initial,
            )
        except BdpsimError as exc:  # beside the exact columns, a chain Cao's recursion refuses
            if method == "cao":
                raise
            # the rule broken (after "field = value: "), without the library argument no flag offers
            why = str(exc).split(": ", 1)[-1].split("; pass backward=")[0]
            cao_note = f"Cao et al.'s columns are not defined on this chain ({why})"
    T = chain.steps
    interval = res is not None and not bool(
        np.allclose(np.nan_to_num(res.tpl_high - res.tpl), 0.0, atol=1e-12)
        and np.allclose(np.nan_to_num(res.bpl_high - res.bpl), 0.0, atol=1e-12)
        and np.allclose(np.nan_to_num(res.fpl_high - res.fpl), 0.0, atol=1e-12)
    )
    rows = []
    eps = chain.epsilons
    ends = (
        {}
        if res is None
        else {"bpl": (res.bpl, res.bpl_high), "fpl": (res.fpl, res.fpl_high), "tpl": (res.tpl, res.tpl_high)}
    )
    cao_cols = {} if cao is None else {"bpl": cao.bpl, "fpl": cao.fpl, "tpl": cao.tpl}
    for i in range(T):
        row: dict[str, Any] = {"i": i, "epsilon": float(eps[i])}
        for key in ("bpl", "fpl", "tpl"):
            if res is None:
                row[key] = None
                continue
            low, high = _num(ends[key][0][i]), _num(ends[key][1][i])
            # the exact value; where only an interval is known, its upper end (a safe bound),
            # the interval beside it
            row[key] = low if low is not None and high is not None and high - low <= 1e-12 else high
            if interval:
                row[key + "_low"], row[key + "_high"] = low, high
        row["a"] = int(res.pair[i, 0]) if res is not None and res.pair[i, 0] >= 0 else None
        row["b"] = int(res.pair[i, 1]) if res is not None and res.pair[i, 1] >= 0 else None
        for key in ("bpl", "fpl", "tpl"):
            row["cao_" + key] = float(cao_cols[key][i]) if cao_cols else None
        rows.append(row)
    return TemporalTable(
        rows,
        res.exact if res is not None else None,
        res.points if res is not None else 0,
        res,
        chain,
        cao_note,
    )


def temporal_leakage(
    transition,
    epsilon,
    steps: int,
    mechanism: str = "any",
    *,
    initial="stationary",
    known_records: Sequence[int] = (),
    values=None,
    method: str = "both",
    as_frame: bool = True,
    known: Sequence[int] | None = None,
):
    """Exact temporal leakage of a continual release beside Cao et al.'s TPL, per step.

    ``TPL_t = sup ln P(r_1..r_T | x_t = a) / P(r_1..r_T | x_t = b)`` over the outputs and the value
    pairs (and ``BPL_t``, ``FPL_t`` with the releases up to / from ``t``), computed exactly by
    :func:`bdpsim.temporal.exact.temporal_exact`; Cao et al.'s recursion by
    :func:`bdpsim.temporal.cao.cao_leakage`. Records (steps) are numbered from 0, as everywhere in
    bdpsim: row ``i`` is the paper's step ``t = i + 1``.

    Parameters
    ----------
    transition : array_like
        A ``(k, k)`` transition matrix, or ``steps - 1`` of them.
    epsilon : float or sequence of float
        Per-step DP level: one value or one per step.
    steps : int
        ``n``, the number of records (steps).
    mechanism : str
        What each step releases: ``krr``, ``any`` (every eps-DP step) or a noise law
        (:func:`bdpsim.temporal.releases.release_names`).
    initial : "stationary" or array_like
        The law of the first record.
    known_records : sequence of int
        Records ``0..steps-1`` whose values the adversary knows (exact only).
    values : sequence of float, optional
        Per-state values: noise on the value of the state instead of the one-hot histogram.
    method : {"both", "exact", "cao"}
    as_frame : bool
        A pandas ``DataFrame`` when pandas is installed (as :func:`bdpsim.run`), else a list of dicts.
    known : sequence of int, optional
        The known steps numbered from 1 (``known_records`` plus one), as earlier releases took them:
        read for one more release, with a ``DeprecationWarning``.

    Returns
    -------
    DataFrame or list of dict
        One row per record with the columns ``i``, ``epsilon``, ``bpl``, ``fpl``, ``tpl`` (nats),
        ``a``, ``b``, ``cao_bpl``, ``cao_fpl``, ``cao_tpl`` (and ``*_low``/``*_high`` where an
        interval).

    Raises
    ------
    ConfigError
        A :class:`~bdpsim.core.errors.BdpsimError` naming the argument and its rule.

    Examples
    --------
    >>> rows = temporal_leakage([[0.9, 0.1], [0.2, 0.8]], 1.0, 3, "krr", as_frame=False)
    >>> [round(r["tpl"], 6) for r in rows] == [round(r["cao_tpl"], 6) for r in rows]
    True
    """
    if known is not None:
        import warnings

        check(not known_records, "known", list(known), "give known_records (numbered from 0) only")
        warnings.warn(
            "temporal_leakage(known=...) numbers steps from 1; give known_records=[s - 1 for s in known] "
            "(records numbered from 0, as everywhere in bdpsim): known goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        known_records = [int(s) - 1 for s in known]
    table = temporal_table(
        transition,
        epsilon,
        steps,
        mechanism,
        initial=initial,
        known_records=known_records,
        values=values,
        method=method,
    )
    if not as_frame:
        return table.rows
    try:  # as bdpsim.run: a DataFrame when pandas is installed (pandas is optional)
        import pandas as pd
    except ImportError:
        return table.rows
    return pd.DataFrame(table.rows)
