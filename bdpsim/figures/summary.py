"""``bdpsim plot``: the BDPL of a finished run (``summary.csv``) against its bounds."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..estimators import ESTIMATORS
from ..pipeline.rows import mechanism_label
from .style import colors, legend, save, subplots

AXIS_LABELS = {
    "gamma": "transition ratio γ",
    "rho": "max. Pearson correlation ρ",
    "epsilon": "DP parameter ε",
    "n": "records n",
    "noise_scale": "noise scale β (sensitivity / ε)",
    "mechanism": "mechanism (noise law)",
}
#: the x "column" of a run whose points differ only by mechanism: one tick per mechanism variant
MECHANISM_AXIS = "mechanism"
AXIS_CANDIDATES = ("gamma", "rho", "epsilon", "n", "noise_scale")
"""Columns :func:`choose_axes` considers, in order of preference, for the x-axis and the groups."""


def _is_exact(estimator: str) -> bool:
    """Whether rows of ``estimator`` are exact values (drawn as their max, without a percentile)."""
    return estimator in ESTIMATORS and ESTIMATORS[estimator].exact


def _number(v) -> float | None:
    """``v`` as a finite float, or None (strings, booleans, missing and non-finite values)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None


def _key(v):
    """A group's value: a finite number, a non-empty string, or None (missing / NaN)."""
    num = _number(v)
    if num is not None:
        return num
    return v if isinstance(v, str) and v != "" else None


def _varying(rows: Sequence[dict], keys: Sequence[str]) -> list[str]:
    out = []
    for k in keys:
        vals = {_number(r.get(k)) for r in rows} - {None}
        if len(vals) > 1:
            out.append(k)
    return out


def _function_of(rows: Sequence[dict], g: str, x: str) -> bool:
    """Whether column ``g`` takes one value per value of ``x`` (e.g. ``noise_scale = 1/epsilon``
    in a sweep of ``epsilon``): grouping by it would draw one-point series."""
    seen: dict = {}
    for r in rows:
        xv = _number(r.get(x))
        if xv is None:
            continue
        if seen.setdefault(xv, _key(r.get(g))) != _key(r.get(g)):
            return False
    return True


def choose_axes(rows: Sequence[dict]) -> tuple[str, str | None]:
    """Pick the x-axis and the grouping column of a run's summary rows.

    The x-axis is the first of :data:`AXIS_CANDIDATES` that varies; the group is the next one
    that varies and is not a function of the x-axis (a derived column such as ``noise_scale``,
    ``sensitivity / epsilon``, in an ``epsilon`` sweep is never a group).

    Parameters
    ----------
    rows : sequence of dict
        ``summary.csv`` rows (:func:`bdpsim.pipeline.results.read_summary`).

    Returns
    -------
    x : str
        Column for the x-axis (``"n"`` when nothing varies).
    group : str or None
        Column that separates curves, or None.
    """
    var = _varying(rows, AXIS_CANDIDATES)
    if not var:
        return ("n", None)
    x = var[0]
    rest = [k for k in var[1:] if not _function_of(rows, k, x)]
    return x, (rest[0] if rest else None)


def check_axes(rows: Sequence[dict], x: str | None, group: str | None) -> None:
    """Raise :class:`~bdpsim.core.errors.ConfigError` unless ``x`` is a numeric column of ``rows``
    (with at least one finite value) and ``group`` a column of ``rows`` (None: chosen
    automatically).

    Parameters
    ----------
    rows : sequence of dict
        ``summary.csv`` rows.
    x, group : str or None
        The requested x-axis and grouping columns.
    """
    from ..core.errors import ConfigError

    columns = list(dict.fromkeys(k for r in rows for k in r))
    numeric = [k for k in columns if any(_number(r.get(k)) is not None for r in rows)]
    if x is not None and x not in numeric:
        what = "not a numeric column" if x in columns else "not a column"
        raise ConfigError("x", x, f"{what} of summary.csv; numeric columns: {', '.join(numeric)}")
    if group is not None and group not in columns:
        raise ConfigError("group", group, f"not a column of summary.csv; columns: {', '.join(columns)}")


def _empty(v) -> bool:
    """A missing cell: ``None``, ``""`` or NaN (``inf`` is a value)."""
    return v is None or v == "" or (isinstance(v, float) and math.isnan(v))


def every_adversary(row: dict) -> bool:
    """Whether a summary row examined every adversary (``adversaries = "all"``): its percentile has no
    sampling interval (``bdpl_p99_ci_low``/``_high`` empty) and it has no all-adversary value
    beside a sampled one (``bdpl_all_adversaries``)."""
    return (
        _empty(row.get("bdpl_p99_ci_low"))
        and _empty(row.get("bdpl_p99_ci_high"))
        and _empty(row.get("bdpl_all_adversaries"))
    )


def _sampled_text(rows: Sequence[dict]) -> str:
    """``3 sampled adversaries`` (or ``the sampled adversaries`` when the count differs by row)."""
    counts = {_number(r.get("n_adversaries")) for r in rows}
    if len(counts) == 1 and None not in counts:
        m = int(counts.pop() or 0)
        return f"{m} sampled adversar{'y' if m == 1 else 'ies'}"
    return "the sampled adversaries"


def _label(group: str | None, g) -> str:
    if not group:
        return ""
    return f"{group} = {g:g}" if isinstance(g, float) else f"{group} = {g if g is not None else 'n/a'}"


def _plot_estimator(ax, est: str, rs: list, x: str, ce, label: str, single: bool) -> None:
    """One estimator's rows ``rs`` of one curve of :func:`plot_summary`, in colour ``ce``: an audit's
    certified lower bound and estimate, else the exact values or the percentile with its
    confidence interval, and the noise floor where there is one."""
    markers = {"kde": "x", "mixture": "+", "exact": "s"}
    rs = sorted(rs, key=lambda r: r[x])
    xs = np.array([r[x] for r in rs], dtype=float)
    p = np.array([r["bdpl_p99"] for r in rs], dtype=float)
    lo = np.array([r.get("bdpl_p99_ci_low", np.nan) for r in rs], dtype=float)
    hi = np.array([r.get("bdpl_p99_ci_high", np.nan) for r in rs], dtype=float)
    pc = rs[0].get("percentile", 99)
    with np.errstate(invalid="ignore"):
        yerr = np.vstack([np.clip(p - lo, 0, None), np.clip(hi - p, 0, None)])
    yerr = np.where(np.isfinite(yerr), yerr, 0)
    exact = _is_exact(est)
    lower = np.array([_number(r.get("bdpl_lower")) or np.nan for r in rs], dtype=float)
    if np.isfinite(lower).any():  # a black-box audit: its certified bound and its estimate
        alpha = _number(rs[0].get("audit_alpha")) or 0.05
        ax.plot(
            xs,
            lower,
            "^",
            color=ce,
            ms=7,
            label=f"{est} certified lower bound ({100 * (1 - alpha):g} %) {label}".strip(),
        )
        est_v = np.array([_number(r.get("bdpl_audit")) or np.nan for r in rs], dtype=float)
        if np.isfinite(est_v).any():
            ax.plot(xs, est_v, "d", mfc="none", color=ce, ms=6, label=f"{est} estimate {label}".strip())
        return
    if exact:  # the max of exact values: the BDPL only when every adversary was examined
        what = (
            "exact BDPL, every adversary"
            if all(every_adversary(r) for r in rs)
            else f"exact, max over {_sampled_text(rs)}"
        )
    else:
        what = f"{est} p{pc:g}"
    y = p if not exact else np.array([r["bdpl_max"] for r in rs], dtype=float)
    if not np.isfinite(y).any():
        return  # nothing to draw: no legend entry either
    ax.errorbar(
        xs,
        y,
        yerr=None if exact else yerr,
        fmt=markers.get(est, "x"),
        color=ce,
        capsize=3,
        ms=7,
        label=f"{what} {label}".strip(),
    )
    nf = np.array([r.get("noise_floor", np.nan) for r in rs], dtype=float)
    if not exact and np.isfinite(nf).any() and np.max(nf[np.isfinite(nf)]) > 0:
        ax.plot(
            xs, nf, "_" if single else ":", color=ce, lw=1, ms=14, label=f"{est} noise floor {label}".strip()
        )


def _plot_references(ax, rs_all: list, x: str, c, label: str, categories: bool, single: bool) -> None:
    """One curve's references of :func:`plot_summary`, in colour ``c``: the exact max over the same
    adversaries (where no exact estimator ran), the exact BDPL over every adversary, a continual
    release's ``cao_tpl_max`` (Cao et al.'s bound for the adversary who knows no step) and
    ``min(general, model bound)`` (a marker where no line is drawn: ``categories``, ``single``)."""
    rs = sorted(rs_all, key=lambda r: r[x])
    xs = np.array([r[x] for r in rs], dtype=float)
    ex = np.array([r.get("bdpl_exact", np.nan) for r in rs], dtype=float)
    if np.isfinite(ex).any() and not any(_is_exact(r.get("estimator", "")) for r in rs):
        # the exact estimator's own marker shows the same max (same adversary draw) where it ran
        ax.plot(
            xs,
            ex,
            "o",
            mfc="none",
            color=c,
            label=f"exact, max over the same {_sampled_text(rs).removeprefix('the ')} {label}".strip(),
        )
    every = np.array([r.get("bdpl_all_adversaries", np.nan) for r in rs], dtype=float)
    if np.isfinite(every).any():
        ax.plot(xs, every, "*", color=c, ms=9, label=f"exact BDPL, every adversary {label}".strip())
    cao = np.array([_number(r.get("cao_tpl_max")) for r in rs], dtype=float)  # None: nan
    if np.isfinite(cao).any():  # a continual release: Cao et al.'s bound of max_t TPL_t
        ax.plot(
            xs,
            cao,
            "s" if categories or single else "s--",
            mfc="none",
            color=c,
            lw=1,
            label=f"Cao et al.'s bound on max_t TPL_t (no step known) {label}".strip(),
        )
    bounds = np.vstack([[r.get(k, np.nan) for r in rs] for k in ("bound_general", "bound_model")]).astype(
        float
    )
    tight = np.min(np.where(np.isfinite(bounds), bounds, np.inf), axis=0)  # no All-NaN warning
    ok = np.isfinite(tight)
    if ok.any():
        ax.plot(
            xs[ok],
            tight[ok],
            "_" if categories or single else "-",
            color=c,
            lw=1.5,
            ms=30 if categories else 16,  # a marker where no line is drawn: categories, one x
            label=f"min(general, model bound) {label}".strip(),
        )


def plot_summary(rows: Sequence[dict], ax, x: str | None = None, group: str | None = None):
    """Empirical BDPL (percentile with its confidence interval), exact BDPL where known, and the
    tighter of the general and the model bound.

    Per point the y-value is the empirical ``p``-th percentile of the adversaries' BDPL estimates
    ``BDPL_(K,i)(x, x') = sup_s ln p(s | x_K, x) / p(s | x_K, x')`` (thesis §3.1.2; ``bdpl_max``
    for the exact estimator), and the bound line is ``min(m eps, model bound)`` (paper Thm 4.3,
    Thm 5.5/5.8 or Thm 6.2).

    Parameters
    ----------
    rows : sequence of dict
        ``summary.csv`` rows (:func:`bdpsim.pipeline.results.read_summary`).
    ax : matplotlib.axes.Axes
        Where to draw.
    x, group : str, optional
        Column for the x-axis (numeric) and for separate curves (any column); chosen by
        :func:`choose_axes` when omitted. Rows without a finite ``x`` are not drawn.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.
    """
    check_axes(rows, x, group)
    auto_x, auto_g = choose_axes(rows)
    # mechanism variants (another noise law, a histogram, a calibration method) are told apart: by
    # the x-axis when nothing else is swept (one tick each; a geometric count has no noise_scale and
    # would not be drawn at all), else as curves
    labels = list(dict.fromkeys(mechanism_label(r) for r in rows))
    ticks = None
    if x is None and len(labels) > 1 and _per_mechanism(rows, auto_x):
        ticks = labels
        rows = [dict(r, **{MECHANISM_AXIS: float(labels.index(mechanism_label(r)))}) for r in rows]
        x, auto_x, auto_g = MECHANISM_AXIS, MECHANISM_AXIS, None
    elif len(labels) > 1 and group is None:
        rows = [dict(r, **{MECHANISM_AXIS: mechanism_label(r)}) for r in rows]
        group = MECHANISM_AXIS
    x = x or auto_x
    if group is None:
        group = (
            auto_g
            if x == auto_x
            else next(
                (k for k in _varying(rows, AXIS_CANDIDATES) if k != x and not _function_of(rows, k, x)), None
            )
        )
    rows = [r for r in rows if _number(r.get(x)) is not None]
    xs_all = sorted({float(r[x]) for r in rows})
    single = len(xs_all) == 1 and ticks is None  # one x: a line of one point draws nothing, a marker does
    groups: dict = defaultdict(list)
    for r in rows:
        groups[_key(r.get(group)) if group else None].append(r)
    cyc = colors()
    order = sorted(
        groups.items(),
        key=lambda kv: (kv[0] is None, isinstance(kv[0], str), kv[0] if kv[0] is not None else 0),
    )
    for gi, (g, rs_all) in enumerate(order):
        c = cyc[gi % len(cyc)]
        label = _label(group, g)
        by_est: dict = defaultdict(list)
        for r in rs_all:
            by_est[str(r.get("estimator") or "")].append(r)
        for ei, (est, rs) in enumerate(sorted(by_est.items())):
            ce = c if group else cyc[(ei + 1) % len(cyc)]
            _plot_estimator(ax, est, rs, x, ce, label, single)
        _plot_references(ax, rs_all, x, c, label, ticks is not None, single)
    ax.set_xlabel(AXIS_LABELS.get(x, x))
    if single:  # one configuration: its x, not a fractional scale around it
        ax.set_xticks(xs_all)
    if ticks is not None:
        ax.set_xticks(range(len(ticks)), ticks)
        ax.set_xlim(-0.5, len(ticks) - 0.5)
    ax.set_ylabel("BDPL (nats)")
    ax.grid(alpha=0.3)
    labels = ax.get_legend_handles_labels()[1]
    if labels:  # under the axes (the data keeps the figure's width); two columns if they fit
        legend(ax, ncol=2 if max(map(len, labels)) <= LABELS_SIDE_BY_SIDE else 1, below=True)
    return ax


def _per_mechanism(rows: Sequence[dict], x: str) -> bool:
    """Whether the x-axis ``x`` chosen for ``rows`` only follows their mechanism variants (each
    variant one value of ``x``, or none): then nothing is swept but the mechanism."""
    seen: dict = {}
    for r in rows:
        seen.setdefault(mechanism_label(r), set()).add(_number(r.get(x)))
    return all(len(v) == 1 for v in seen.values())


def _metadata_title(path: Path) -> str:
    """The run's title from ``metadata.json``; ``""`` when the file is missing or not bdpsim's
    (unreadable, not JSON, no title): the title is decoration, never a reason to fail."""
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return ""
    title = meta.get("title", "") if isinstance(meta, dict) else ""
    return title if isinstance(title, str) else ""


#: the figure formats ``bdpsim plot --format`` writes
FORMATS = ("png", "pdf", "svg")
_TITLE_PARTS = (
    ("model", "{}"),
    ("n", "n = {:g}"),
    ("mechanism", "{}"),
    ("epsilon", "ε = {:g}"),
    ("gamma", "γ = {:g}"),
    ("rho", "ρ = {:g}"),
)


def default_title(rows: Sequence[dict]) -> str:
    """A title from what the rows share (model, n, mechanism, ε, γ, ρ where one value each), for a
    run without a ``title``: e.g. ``markov, n = 8, count, ε = 1, γ = 4``."""
    parts = []
    for col, form in _TITLE_PARTS:
        vals = {_key(mechanism_label(r) if col == "mechanism" else r.get(col)) for r in rows}
        if len(vals) == 1 and (v := vals.pop()) is not None:
            parts.append(form.format(v) if not isinstance(v, str) or form == "{}" else f"{col} = {v}")
    return ", ".join(parts)


def plot_target(
    results_dir: Path, out: str | Path | None = None, formats: Sequence[str] | None = None
) -> tuple[Path, tuple[str, ...]]:
    """Where ``bdpsim plot`` writes: the stem (its suffix, if any, replaced per format) and the formats.

    ``out`` None: ``RESULTS/bdpl``; a directory (existing, written with a trailing ``/``, or a
    name without a suffix; created when missing): ``OUT/bdpl``; a file name ending in a format:
    that file (its format, unless ``formats`` is given). ``formats`` defaults to PNG and PDF.

    Raises
    ------
    ConfigError
        For a format not in :data:`FORMATS`, or a file name with another suffix.
    """
    from ..core.errors import ConfigError

    if formats is not None:
        formats = tuple(dict.fromkeys(f.strip().lower().lstrip(".") for f in formats))
        bad = [f for f in formats if f not in FORMATS]
        if bad or not formats:
            raise ConfigError(
                "--format", ",".join(formats), f"must be a comma-separated list of {', '.join(FORMATS)}"
            )
    if out is None or str(out).endswith(("/", "\\")) or Path(out).is_dir() or not Path(out).suffix:
        return Path(out if out is not None else results_dir) / "bdpl", formats or ("png", "pdf")
    path = Path(out)
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise ConfigError(
            "--out",
            str(out),
            f"must be a directory or a file name ending in {', '.join('.' + f for f in FORMATS)}",
        )
    return path, formats or (suffix,)  # the stem keeps its suffix: save() replaces it per format


def plot_results(
    results_dir: Path,
    x: str | None = None,
    group: str | None = None,
    title: str | None = None,
    out: str | Path | None = None,
    formats: Sequence[str] | None = None,
) -> list[Path]:
    """``bdpsim plot``: ``bdpl.png``/``.pdf`` next to ``summary.csv`` (see :func:`plot_summary`),
    or where ``out`` says in ``formats`` (:func:`plot_target`).

    Parameters
    ----------
    results_dir : Path
        A finished run's directory (holding ``summary.csv``).
    x, group : str, optional
        Columns for the x-axis and the curves (checked before anything is written).
    title : str, optional
        Figure title (default: the run's ``metadata.json`` title, else :func:`default_title`).
    out : str or Path, optional
        A directory or a file name (:func:`plot_target`); default ``results_dir``.
    formats : sequence of str, optional
        Of :data:`FORMATS` (default PNG and PDF; a file name's own suffix when ``out`` is one).

    Returns
    -------
    list of Path
        The files written.
    """
    from ..pipeline.results import read_summary

    rows = read_summary(results_dir)
    if not rows:
        from ..core.errors import ConfigError

        raise ConfigError(
            "results",
            str(Path(results_dir)),
            "summary.csv has no rows: nothing to plot "
            "(a run that finished no configuration; re-run 'bdpsim run' to resume it)",
        )
    check_axes(rows, x, group)
    stem, formats = plot_target(results_dir, out, formats)
    for suffix in formats:  # checked before drawing: nothing written when one cannot be
        target = stem.with_suffix(f".{suffix}")
        if target.exists() and not target.is_file():
            from ..core.errors import ConfigError

            raise ConfigError(
                "results" if out is None else "--out",
                str(Path(results_dir) if out is None else out),
                f"{target.name} exists and is not a file (the plot is written there): remove or rename it",
            )
    fig, ax = subplots(figsize=(6.4, 4.4))
    plot_summary(rows, ax, x, group)
    if title is None:
        title = _metadata_title(Path(results_dir) / "metadata.json") or default_title(rows)
    if title:
        ax.set_title(shortened(title), fontsize=8)
    return save(fig, stem, formats)


#: the longest legend labels (characters) set in two columns under a 6.4-inch summary plot; longer
#: ones (a group's name added to each) take one column, or the legend outgrows the figure
LABELS_SIDE_BY_SIDE = 50

#: the longest title drawn, in characters (a run's cell may hold a 100 000-node model's name)
TITLE_LIMIT = 160


def shortened(text: str, limit: int = TITLE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with an ellipsis: a figure's title is
    one line over the axes, and drawing a 130 000-character cell as one took the plot 40 s."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
