"""The console table ``bdpsim run`` prints after a run: one line per configuration, the headline
columns of ``summary.csv`` only (the CSV holds them all).

A column is shown when it tells the rows apart or holds a headline number: ``mechanism`` (with its
noise law and calibration method) whenever the rows use more than one, ``target_epsilon`` (the
eps a calibrated mechanism aims at; ``epsilon`` is then headed ``dp_epsilon``, the noise's DP
parameter), the estimators' own headline columns (an audit's certified ``bdpl_lower``, the privacy
profile's ``bdp_delta``, the attack's ``advantage_max`` and ``tpr_at_<fpr>_max``) when any row
holds a value. A row without a column (an exact row of a
config that also audits) shows an empty cell.
"""

from __future__ import annotations

import math
from collections.abc import Collection

from ..estimators.all_adversaries import ALL_ADVERSARIES
from ..estimators.exact import ATTACK_SUMMARY
from ..pipeline.rows import mechanism_label

#: a continual release's column of Cao et al.'s bound (:mod:`bdpsim.mechanisms.continual`)
CAO = "cao_tpl_max"
#: rows printed at most; the rest are only in summary.csv
MAX_ROWS = 50
WIDTH = 12

#: the columns of estimators and noise laws that have their own headline number (the attack's:
#: ``[run] attack = true``)
OWN = ("bdpl_lower", "bdpl_audit", "bdp_delta", *(c.name for c in ATTACK_SUMMARY))


def _has(v) -> bool:
    return v is not None and v != "" and not (isinstance(v, float) and math.isnan(v))


def exact_heading(rows: list[dict], sampled: Collection[str]) -> str:
    """The console heading of ``bdpl_exact``: ``exact_max_sampled`` when every row holding a value
    sampled its adversaries (the max of their exact values, a lower bound on the BDPL),
    ``exact_max_examined`` when only some did, ``bdpl_exact`` when none did (every adversary
    examined: the BDPL itself)."""
    held = [r.get("point_id") in sampled for r in rows if _has(r.get("bdpl_exact"))]
    if held and all(held):
        return "exact_max_sampled"
    return "exact_max_examined" if any(held) else "bdpl_exact"


def console_table(rows: list[dict], label: str, sampled: Collection[str] = ()) -> list[str]:
    """The lines of the table (header first) for summary ``rows`` whose percentile is ``label``;
    ``sampled`` holds the ids of the points whose adversaries were sampled (:func:`exact_heading`)."""
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
    cols += [(c, c) for c in ("rho", "gamma", f"bdpl_{label}", "noise_floor")]
    cols.append(("bdpl_exact", exact_heading(rows, sampled)))
    if any(_has(r.get(ALL_ADVERSARIES)) for r in rows):
        cols.append((ALL_ADVERSARIES, ALL_ADVERSARIES))
    cols += [(c, c) for c in ("bound_general", "bound_model")]
    if any(_has(r.get(CAO)) for r in rows):  # a continual release: Cao et al.'s bound beside
        cols.append((CAO, CAO))
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


def table_notes(rows: list[dict], sampled: Collection[str] = ()) -> list[str]:
    """What the table's numbers are, under it: the sampled exact maximum against the BDPL over every
    adversary, and the mixture adversaries whose value came from the exact conditional law."""
    out = []
    heading = exact_heading(rows, sampled)
    if heading != "bdpl_exact":
        out.append(
            f"{heading}: the largest exact BDPL among the {heading.rsplit('_', 1)[1]} adversaries "
            "(summary.csv: bdpl_exact), a lower bound on the BDPL"
        )
    if any(_has(r.get(ALL_ADVERSARIES)) for r in rows):
        out.append(f"{ALL_ADVERSARIES}: the exact BDPL over every adversary (the chain's window search)")
    out += _continual_notes(rows)
    for r in rows:
        k, m = r.get("exact_law_n"), r.get("n_adversaries")
        if isinstance(k, (int, float)) and _has(k) and k > 0 and isinstance(m, (int, float)) and m > 0:
            where = ", ".join(
                f"{c} = {r[c]:g}"
                for c in ("n", "epsilon", "rho", "gamma")
                if isinstance(r.get(c), (int, float)) and _has(r[c])
            )
            out.append(
                f"mixture ({where}): {int(k)} of {int(m)} adversaries ({k / m:.1%}) took the exact "
                "conditional law of the query (mixture_exact_law), not samples: their values are exact"
            )
    return out


def _continual_notes(rows: list[dict]) -> list[str]:
    """What a continual release's columns are: ``gamma`` (its chain's), Cao et al.'s bound and the
    adversaries it bounds (those who know no step), against those ``bdpl_max`` covers."""
    cont = [r for r in rows if _has(r.get(CAO))]
    if not cont:
        return []
    out = [
        "gamma: the chain's max P / min P (bound_model = eps + 4 ln gamma, the Markov bound)",
        f"{CAO}: Cao et al.'s bound on max_t TPL_t, the leakage to an adversary who knows no step",
    ]
    knowing = sorted({str(r.get("known_sizes")) for r in cont if str(r.get("known_sizes", "0")) != "0"})
    if knowing:
        out.append(
            f"{CAO} bounds only the adversary who knows no step; bdpl_max here also covers those who "
            f"know steps (known_sizes = {', '.join(knowing)}), who may learn more than Cao's bound: "
            "compare it with a run of known_sizes = [0]"
        )
    return out


def configurations(count: int) -> str:
    """``1 configuration``, ``2 configurations``."""
    return f"{count} configuration{'' if count == 1 else 's'}"
