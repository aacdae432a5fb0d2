"""One configuration's summary row (``summary.csv``) from its adversaries' statistics: the
percentile with its order-statistic interval, the maximum, the exact reference, the bounds, the
estimator's own cells and the flags (:mod:`bdpsim.pipeline.flags`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import NotAvailable
from ..estimators.all_adversaries import ALL_ADVERSARIES, all_adversaries_bdpl, all_adversaries_cheap
from ..kernels.stats import interval_percentile_ci, own_level, percentile_ci
from ..mechanisms.protocols import HasModelColumns
from ..models.engines import HasWindowPlan
from .config import ExperimentPoint
from .flags import FLAGS, flags
from .rows import CORE_SUMMARY, ESTIMATOR_CELLS, AdversaryResult, SummaryRow, summary_schema


def _percentile(a: np.ndarray, q: float) -> float:
    """``np.percentile`` (linear) that is ``+inf`` when it interpolates towards an infinite value."""
    if not a.size:
        return math.nan
    if not np.isposinf(a).any():
        return float(np.percentile(a, q))
    s = np.sort(a)
    pos = (s.size - 1) * q / 100.0
    lo, hi = int(math.floor(pos)), int(math.ceil(pos))
    frac = pos - lo
    if np.isinf(s[lo]) or (frac > 0 and np.isinf(s[hi])):
        return math.inf
    return float(s[lo] + frac * (s[hi] - s[lo]))


def _search_note(point: ExperimentPoint, rows: int, label: str) -> list[str]:
    """What an all-adversary search split by target examined, when its rows are worst cases (a
    network's region search: one row per target or group of targets), for ``bound_note``."""
    if not point.settings.exhaustive or point.exhaustive_method != "window":
        return []
    try:
        eng = point.exact_engine
    except NotAvailable:
        return []
    if not isinstance(eng, HasWindowPlan):
        return []
    parts = eng.window_parts()
    each = "its target" if all(len(p) == 1 for p in parts) else "its group of targets"
    return [
        f"adversaries = 'all': n_adversaries = {rows} rows, each the worst adversary (i, K, x_K, x, x') "
        f"of {each}; bdpl_{label} and bdpl_median are over these maxima, bdpl_max is the BDPL"
    ]


def summarize(
    point: ExperimentPoint,
    stats: dict,
    rows: list[AdversaryResult],
    seconds: float,
    finished: dict | None = None,
) -> Any:  # a SummaryRow (made by make_dataclass)
    """Aggregate a point's adversary statistics into its ``summary.csv`` row (thesis §3.1.2
    step 8): percentile with its distribution-free confidence interval, max, median, standard
    errors, noise floor, exact comparison, bounds.

    ``bdpl_exact`` (and its percentile) is the max of the exact values of the examined adversaries,
    only when every one of them has one; otherwise the max over those that do is reported as
    ``bdpl_exact_partial_max`` (with ``exact_n``). With sampled adversaries it is the max over the
    sample, a lower bound on the BDPL; where the chain's window search gives the BDPL over every
    adversary cheaply it is written beside as ``bdpl_all_adversaries``
    (:mod:`bdpsim.estimators.all_adversaries`).
    """
    st, mech, spec = point.settings, point.mechanism, point.model
    q = st.percentile
    v = stats["bdpl"]
    ok = ~np.isnan(v)  # +inf is a value (e.g. Gaussian noise: no pure DP), nan a failed adversary
    val = v[ok]
    null = stats["null_bdpl"][np.isfinite(stats["null_bdpl"])]
    ex = stats["exact"]
    known_ex = ~np.isnan(ex)  # an exact value may be +inf (no pure DP)
    has_ex = known_ex & ok
    every_ex = bool(v.size) and bool(known_ex.all())  # else bdpl_exact would pose as the point's
    lo, hi = (math.nan, math.nan) if st.exhaustive else percentile_ci(val, q, st.confidence)
    if not st.exhaustive and "pct_ci_low" in stats and "pct_ci_high" in stats:  # each estimate's own error
        lo, hi = interval_percentile_ci(
            stats["pct_ci_low"][ok], stats["pct_ci_high"][ok], q, st.confidence, own_level(q, st.confidence)
        )
    se, used = stats["bdpl_se"], stats["samples"]
    se_ok = se[np.isfinite(se)]
    both = has_ex & np.isfinite(v) & np.isfinite(ex)  # an estimate's error against a finite exact value
    err = v[both] - ex[both]
    finite_rows = [r for r in rows if not math.isnan(r.bdpl)]
    best = max(finite_rows, key=lambda r: r.bdpl) if finite_rows else None
    bnd = point.bounds()
    notes = sorted({b.reason for b in bnd.values() if b.reason}) + _search_note(
        point, int(v.size), st.percentile_label
    )
    pct = lambda a: _percentile(a, q)
    nan = math.nan
    who = dict(
        argmax_i=best.i if best else "",
        argmax_known=best.known if best else "",
        argmax_x_known=best.x_known if best else "",
        argmax_x=best.x if best else "",
        argmax_x_prime=best.x_prime if best else "",
    )
    who.update({k: v for k, v in (finished or {}).items() if k in who})  # e.g. the privacy profile's
    cells = {
        **spec.owner.summary_cells(spec),
        **ESTIMATOR_CELLS,
        **(mech.model_columns(spec.probe()) if isinstance(mech, HasModelColumns) else mech.columns()),
        **point.estimator().summary(stats),
        **{k: v for k, v in (finished or {}).items() if k not in who},
    }
    if all_adversaries_cheap(point):  # a sampled chain: the BDPL over every adversary beside bdpl_exact
        cells[ALL_ADVERSARIES] = all_adversaries_bdpl(point)
    if best is not None and "i_name" in best.extras:  # named nodes: the most leaking adversary's names
        cells.update(argmax_i_name=best.extras["i_name"], argmax_known_names=best.extras["known_names"])
        cells.update(
            {
                f"argmax_{k}": best.extras[k]
                for k in ("x_name", "x_prime_name", "x_known_names")
                if k in best.extras
            }
        )  # and its states by name (named states)
    owned = {c.name for c in summary_schema()} - CORE_SUMMARY  # columns kinds own (empty unless filled)
    base = {k: v for k, v in cells.items() if k in CORE_SUMMARY}
    row = SummaryRow(
        point_id=point.id,
        model=spec.kind,
        n=spec.n,
        epsilon=point.epsilon,
        mechanism=mech.kind,
        estimator=st.estimator,
        **base,
        owned={k: v for k, v in cells.items() if k in owned},
        extras={k: v for k, v in cells.items() if k not in base and k not in owned},
        known_sizes=st.known_size_text(),
        n_adversaries=int(v.size),
        percentile=q,
        bdpl_pct=pct(val),
        bdpl_pct_ci_low=lo,
        bdpl_pct_ci_high=hi,
        bdpl_max=float(val.max()) if val.size else nan,
        bdpl_median=float(np.median(val)) if val.size else nan,
        bdpl_se_max=float(se_ok.max()) if se_ok.size else nan,
        bdpl_se_mean=float(se_ok.mean()) if se_ok.size else nan,
        samples_max=int(np.nanmax(used)) if np.isfinite(used).any() else nan,
        noise_floor=pct(null),
        noise_floor_max=float(null.max()) if null.size else nan,
        noise_floor_n=int(null.size),
        nonpositive_points=int(np.nansum(stats["nonpositive_points"])),
        failed_adversaries=int((~ok).sum()),
        bdpl_exact=float(ex.max()) if every_ex else nan,
        bdpl_exact_partial_max=float(np.nanmax(ex)) if known_ex.any() and not every_ex else nan,
        bdpl_exact_pct=pct(ex) if every_ex else nan,
        exact_n=int(known_ex.sum()),
        error_mean=float(np.mean(err)) if err.size else nan,
        error_max=float(np.max(np.abs(err))) if err.size else nan,
        **who,
        bound_general=bnd["general"].value,
        bound_model=bnd["model"].value,
        bound_zhao=bnd["zhao"].value,
        bound_lower=bnd["lower"].value,
        bound_note="; ".join(notes),
        seed=point.seed,
        seconds=round(seconds, 3),
    )
    found = flags(point, row.as_row())  # suspicious numbers: the flags column and one warning line
    if found:
        row.extras[FLAGS] = "; ".join(found)
    return row


def check_bounds(row: dict, log: Callable[[str], None]) -> None:
    """Exact values above an applicable bound are a bug or a counterexample: say so loudly."""
    ex = row["bdpl_exact"]
    for name in ("bound_general", "bound_model", "bound_zhao"):
        b = row[name]  # nan for a bound that does not apply: never compared
        if isinstance(ex, float) and math.isfinite(ex) and math.isfinite(b) and ex > b * (1 + 1e-9) + 1e-9:
            log(
                f"!!! EXACT BDPL {ex:.6g} EXCEEDS {name} {b:.6g} at point {row['point_id']} "
                f"(adversary i={row['argmax_i']} K={row['argmax_known']}): a bug or a counterexample"
            )
