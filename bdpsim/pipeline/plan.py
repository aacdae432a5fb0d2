"""What a config will do, before it runs: its points, what is swept, which engine and bounds apply.

``bdpsim validate`` prints :func:`describe`; it reads the same registries as the run itself
(estimators, exact-engine table, bounds), so what it says is what will happen.
"""

from __future__ import annotations

import math
from typing import Any

from ..core.errors import NotAvailable
from ..mechanisms.protocols import HasEpsilonSchedule, HasTargetEpsilon
from ..models.engines import ExactEngine, HasWindowPlan
from ..queries import laplace_noisy
from .config import ExperimentConfig
from .cost import config_seconds, estimate_config, fmt_bytes, fmt_range


def swept_keys(cfg: ExperimentConfig) -> dict[str, list[Any]]:
    """``section.key -> distinct values`` for every key that differs between points."""
    out: dict[str, list[Any]] = {}
    for sec in ("run", "model", "mechanism"):
        keys = {k for p in cfg.points for k in p.params[sec]}
        for k in sorted(keys):
            vals = []
            for p in cfg.points:
                v = p.params[sec].get(k)
                if v not in vals:
                    vals.append(v)
            if len(vals) > 1:
                out[f"{sec}.{k}"] = vals
    return out


#: characters of a value ``bdpsim validate`` prints in full; a longer one (a CPT, a transition
#: matrix) is cut, and in the point lines named by its place in the sweep (``cpt=#2``)
LONG_VALUE = 40


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _short(v: Any) -> str:
    text = _fmt(v)
    return text if len(text) <= LONG_VALUE else text[: LONG_VALUE - 3] + "..."


def _swept_cells(p, sw: dict, long: set) -> list[str]:
    """``key=value`` of point ``p`` for the swept keys ``sw`` not already on its line of
    :func:`describe` (a value in ``long`` as ``key=#j``, its place in the sweep line)."""
    cells: list[str] = []
    for k in sw:
        sec, key = k.split(".", 1)
        if key not in ("estimator", "epsilon", "n", "adversaries", "noise_scale"):
            v = p.params[sec].get(key)
            if k in long:  # its place in the sweep line
                cells.append(f"{key}=#{next((j for j, w in enumerate(sw[k], 1) if w == v), '?')}")
            else:
                cells.append(f"{key}={_fmt(v)}")
    return cells


def describe(cfg: ExperimentConfig, limit: int = 50) -> list[str]:
    """Lines for ``bdpsim validate``: a header, the swept keys, one line per point (``limit``)."""
    sw = swept_keys(cfg)
    n_pts = len(cfg.points)
    lines = [f"{cfg.source or 'config'}: valid, {n_pts} configuration point{'s' * (n_pts != 1)}"]
    peak, work, ests = estimate_config(cfg)
    lo, hi = config_seconds(ests)
    n_ex = sum(1 for e in ests if not math.isfinite(e.seconds[0]))
    when = f"~{fmt_range(lo, hi)} of one core (calibrated on measured runs)" if lo or hi or not n_ex else ""
    if n_ex:
        when += (" + " if when else "") + (
            f"{n_ex} exhaustive point{'s' * (n_ex != 1)} timed by its exact engine "
            "(refused up front if too large)"
        )
    # exhaustive points have no sampling estimate: no "~0 B, ~0 units" for them
    parts = [f"peak memory ~{fmt_bytes(peak)} with --jobs 1 (each job adds a task's)"] if peak > 0 else []
    parts += [f"work ~{work:.2g} units"] if work > 0 else []
    lines.append("  estimate: " + ", ".join([*parts, when] if when else parts or ["nothing to sample"]))
    long = {k for k, vals in sw.items() if any(len(_fmt(v)) > LONG_VALUE for v in vals)}
    for k, vals in sw.items():
        if k in long:
            lines.append(
                f"  sweep {k} = {len(vals)} values: "
                + ", ".join(f"#{j} {_short(v)}" for j, v in enumerate(vals, 1))
            )
        else:
            lines.append(f"  sweep {k} = [{', '.join(_fmt(v) for v in vals)}]")
    for p in cfg.points[:limit]:
        st = p.settings
        cells = [f"model={p.model.kind}", f"n={p.model.n}", f"mechanism={p.mechanism.kind}"]
        target = p.mechanism.target_epsilon if isinstance(p.mechanism, HasTargetEpsilon) else None
        if target is not None:
            cells.append(f"target_epsilon={target:g}")
        sched = p.mechanism.epsilon_schedule if isinstance(p.mechanism, HasEpsilonSchedule) else None
        if sched is not None:  # one budget per step: the schedule, not only its largest
            cells.append(f"eps=schedule of {len(sched)} ({min(sched):g}..{max(sched):g})")
        elif math.isfinite(p.epsilon):
            cells.append(f"{'dp_' if target is not None else ''}eps={p.epsilon:g}")
        elif (qn := laplace_noisy(p.mechanism)) is not None:  # query + Lap(b), not eps-DP
            cells.append(f"noise_scale={qn[1].scale:g}")
        cells += [f"estimator={st.estimator}", f"adversaries={st.adversaries}"]
        cells += _swept_cells(p, sw, long)
        try:
            eng: ExactEngine | None = p.exact_engine
        except NotAvailable:
            eng = None
        cells.append("exact=" + ("yes" if eng is not None else "no"))
        lines.append(f"  {p.id}  " + " ".join(cells))
        if (
            st.exhaustive and isinstance(eng, HasWindowPlan) and p.exhaustive_method == "window"
        ):  # the engine's own up-front estimate
            lines.append(f"    {eng.window_estimate(p.sizes[0])}")
    if n_pts > limit:
        lines.append(f"  ... {n_pts - limit} more points")
    return lines
