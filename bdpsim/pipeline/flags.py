"""Suspicious results, said where they are made: one warning line per configuration point and a
``flags`` column in ``summary.csv``.

A point is flagged when

* its estimate's percentile lies above an applicable upper bound (general, model, Zhao) by more
  than four of its standard errors and 1 %: for an estimator with a bias (the thesis' KDE) an artefact,
  not a leak; for an exact or unbiased one a bug or a counterexample;
* its largest estimate ``bdpl_max`` lies below ``bound_lower`` (the DP adversary's leakage,
  ``epsilon``): no examined adversary reached it, so the worst ones were not sampled (a percentile
  below it is no finding: most adversaries leak less than the worst);
* many KDE evaluation points were dropped (a density <= 0 there; more than 1 %), or some
  adversaries have no estimate at all;
* KDE estimates lie above or below the exact values of the same adversaries (the KDE has no
  interval);
* some mixture adversaries' confidence intervals stayed wider than ``mixture_target_width`` when
  the sample budget ended;
* its exact value exceeds an applicable bound (also printed as ``!!! EXACT BDPL ... EXCEEDS``);
* every applicable upper bound is below floating-point resolution (e.g. ``epsilon = 1e-300``):
  the values, ~1e-16, are rounding noise, not leakage.

The column is registered as an *extra* summary column (:func:`bdpsim.core.columns.register_columns`)
and written only in the tables of runs with a flagged point: an unflagged run's table keeps its
bytes, and a reader finds the column exactly when there is something to read in it.
"""

from __future__ import annotations

import math

from ..core.columns import Column, register_columns
from ..estimators.protocols import HasEvalPoints

FLAGS = "flags"
register_columns(
    "summary",
    Column(
        FLAGS,
        str,
        "why the point's numbers are "
        "suspicious, '; '-separated: an estimate above an applicable bound "
        "or below bound_lower, dropped KDE points, failed adversaries, an "
        "exact value above a bound, floating-point noise",
    ),
)

#: an absolute leakage below this many nats is floating-point rounding, not a measurement
RESOLUTION = 1e-12
#: an estimate is compared with a bound up to SES of its standard errors and a relative MARGIN (the
#: percentile of sup-type estimates is biased up by about their standard error)
SES, MARGIN = 4.0, 0.01
#: share of dropped KDE evaluation points above which a point is flagged
DROPPED_SHARE = 0.01
_BOUNDS = ("bound_general", "bound_model", "bound_zhao")


def _num(v) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def _count_flags(row: dict, n_adv: float) -> list[str]:
    """The findings that count adversaries in ``row``: without an estimate, KDE estimates outside the
    exact value or the mixture's interval, intervals that stayed wider than the target."""
    out: list[str] = []
    failed = _num(row.get("failed_adversaries"))
    if failed > 0:
        out.append(f"{int(failed)} of {int(n_adv)} adversaries without an estimate")
    above, below = _num(row.get("kde_above_n")), _num(row.get("kde_below_n"))
    if above > 0 or below > 0:
        out.append(
            f"kde: {int(above)} of {int(n_adv)} estimates above the exact value of what they estimate, "
            f"{int(below)} below (the KDE carries no interval; error_mean {_num(row.get('error_mean')):+.3g})"
        )
    above, below = _num(row.get("kde_above_mixture_n")), _num(row.get("kde_below_mixture_n"))
    if above > 0 or below > 0:
        out.append(
            f"kde: {int(above)} of {int(n_adv)} estimates above the mixture's interval of the same "
            f"adversary, {int(below)} below (the KDE carries no interval)"
        )
    missed = _num(row.get("width_target_missed"))
    if missed > 0:
        out.append(
            f"{int(missed)} of {int(n_adv)} adversaries' confidence intervals stayed wider than "
            "mixture_target_width at mixture_max_samples (their values are not pinned down by the "
            "samples: read bdpl_ci_low/high)"
        )
    return out


def flags(point, row: dict) -> list[str]:
    """Why the summary ``row`` of ``point`` is suspicious (empty: nothing to say).

    Parameters
    ----------
    point : ExperimentPoint
        The configuration point (its estimator tells whether it is exact and how many points a
        KDE evaluates).
    row : dict
        Its ``summary.csv`` row (``SummaryRow.as_row`` of :mod:`bdpsim.pipeline.rows`).

    Returns
    -------
    list of str
        One short sentence per finding.
    """
    est = point.estimator()
    label = f"p{_num(row.get('percentile')):g}"
    pct = _num(row.get(f"bdpl_{label}"))
    se = _num(row.get("bdpl_se_max"))
    se = se if math.isfinite(se) else 0.0
    name = row.get("estimator", "")
    bounds = {b: _num(row.get(b)) for b in _BOUNDS}
    applicable = {b: v for b, v in bounds.items() if math.isfinite(v)}
    out: list[str] = []
    if applicable and min(applicable.values()) < RESOLUTION:
        b, v = min(applicable.items(), key=lambda kv: kv[1])
        out.append(
            f"floating-point noise: the leakage is at most {b} {v:.3g} < {RESOLUTION:g} nats, so the "
            "values (~1e-16) are rounding, not leakage"
        )
        return out  # the comparisons below would only restate it
    if math.isfinite(pct) and applicable and not est.exact:  # an exact value: checked below
        b, v = min(applicable.items(), key=lambda kv: kv[1])
        if pct > v * (1 + MARGIN) + SES * se + RESOLUTION:
            out.append(f"bdpl_{label} {pct:.4g} > {b} {v:.4g} ({name}: estimator bias or error, not a leak)")
    lower = _num(row.get("bound_lower"))
    top = _num(row.get("bdpl_max"))  # "no examined adversary reached it" is a statement about the maximum
    if math.isfinite(top) and math.isfinite(lower) and top < lower * (1 - MARGIN) - SES * se - RESOLUTION:
        out.append(
            f"bdpl_max {top:.4g} < bound_lower {lower:.4g} (no examined adversary reached the DP "
            "adversary's leakage: the worst adversaries were not sampled)"
        )
    points = _num(est.points if isinstance(est, HasEvalPoints) else math.nan)
    dropped = _num(row.get("nonpositive_points"))
    n_adv = _num(row.get("n_adversaries"))
    if math.isfinite(points) and dropped > 0 and n_adv > 0:
        share = dropped / (n_adv * points)
        if share > DROPPED_SHARE:
            out.append(
                f"{share:.1%} of the KDE evaluation points dropped ({int(dropped)} with a density <= 0)"
            )
    out.extend(_count_flags(row, n_adv))
    ex = _num(row.get("bdpl_exact"))
    for b, v in applicable.items():
        if math.isfinite(ex) and ex > v * (1 + 1e-9) + 1e-9:
            out.append(f"exact BDPL {ex:.6g} > {b} {v:.6g} (a bug or a counterexample)")
    return out


def warning_line(row: dict, found: list[str]) -> str:
    """The one warning line of a flagged point."""
    where = ", ".join(
        f"{k} = {row[k]:g}"
        for k in ("n", "epsilon", "rho", "gamma")
        if isinstance(row.get(k), (int, float)) and math.isfinite(row[k])
    )
    return f"warning: point {row.get('point_id')} ({row.get('estimator')}; {where}): " + "; ".join(found)
