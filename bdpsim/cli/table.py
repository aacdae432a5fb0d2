"""The console table ``bdpsim run`` prints after a run: one line per configuration, the headline
columns of ``summary.csv`` only (the CSV holds them all).

A column is shown when it tells the rows apart or holds a headline number: ``mechanism`` (with its
noise law and calibration method) whenever the rows use more than one, ``target_epsilon`` (the
eps a calibrated mechanism aims at; ``epsilon`` is then headed ``dp_epsilon``, the noise's DP
parameter), the estimators' own headline columns (an audit's certified ``bdpl_lower``, the privacy
profile's ``bdp_delta``) when any row holds a value. A row without a column (an exact row of a
config that also audits) shows an empty cell.
"""

from __future__ import annotations

import math

from ..pipeline.rows import mechanism_label

#: rows printed at most; the rest are only in summary.csv
MAX_ROWS = 50
WIDTH = 12

#: the columns of estimators and noise laws that have their own headline number
OWN = ("bdpl_lower", "bdpl_audit", "bdp_delta")


def _has(v) -> bool:
    return v is not None and v != "" and not (isinstance(v, float) and math.isnan(v))


def console_table(rows: list[dict], label: str) -> list[str]:
    """The lines of the table (header first) for summary ``rows`` whose percentile is ``label``."""
    rows = [dict(r, mechanism=mechanism_label(r)) for r in rows]
    calibrated = any(_has(r.get("target_epsilon")) for r in rows)
    cols: list[tuple[str, str]] = [("estimator", "estimator")]  # (key, heading)
    if len({r["mechanism"] for r in rows}) > 1:
        cols.append(("mechanism", "mechanism"))
    cols.append(("n", "n"))
    if calibrated:
        cols += [("target_epsilon", "target_epsilon"), ("epsilon", "dp_epsilon")]
    else:
        cols.append(("epsilon", "epsilon"))
    cols += [(c, c) for c in ("rho", "gamma", f"bdpl_{label}", "noise_floor", "bdpl_exact",
                              "bound_general", "bound_model")]
    cols += [(c, c) for c in OWN if any(isinstance(r.get(c), (int, float)) and _has(r[c]) for r in rows)]

    def cell(v) -> str:
        if not _has(v):
            return ""
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return str(v)
        return f"{v:.4g}"

    cells = [[cell(r.get(k)) for k, _ in cols] for r in rows[:MAX_ROWS]]
    widths = [max([WIDTH, len(h)] + [len(c[j]) for c in cells]) for j, (_, h) in enumerate(cols)]
    lines = ["  ".join(f"{h:>{w}}" for (_, h), w in zip(cols, widths, strict=True))]
    lines += ["  ".join(f"{c:>{w}}" for c, w in zip(line, widths, strict=True)) for line in cells]
    return [line.rstrip() for line in lines]


def configurations(count: int) -> str:
    """``1 configuration``, ``2 configurations``."""
    return f"{count} configuration{'' if count == 1 else 's'}"
