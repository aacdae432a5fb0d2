"""Typed result rows and the column schema that drives writing *and* reading result tables.

``summary.csv`` has one :class:`SummaryRow` per configuration point, ``adversaries.csv.gz`` one
:class:`AdversaryResult` per examined adversary. Each column has a name, a dtype and a meaning.
:data:`SUMMARY_SCHEMA` and :data:`ADVERSARY_SCHEMA` hold the *core* columns, those of every point
whatever its kinds; :func:`summary_schema` places among them the columns the registered kinds own
(:class:`~bdpsim.core.columns.OwnedColumn`: the KDE's ``kde_backend``, the Gaussian model's ``rho``),
collected from the live registries, and the kinds' *extra* columns follow where used
(:func:`~bdpsim.core.columns.register_columns`). The docs' column reference is generated from them.
The percentile columns are named after the run's percentile: ``bdpl_p99`` for ``percentile =
99``, ``bdpl_p95`` for 95 — a column name never claims a percentile it is not.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, make_dataclass, replace

from ..core.columns import EXTRA_COLUMNS, Column, OwnedColumn, register_columns  # noqa: F401 (register_columns re-exported)
from ..core.errors import ConfigError


def _c(name: str, dtype: type, meaning: str) -> Column:
    return Column(name, dtype, meaning)


SUMMARY_SCHEMA: tuple[Column, ...] = (
    _c("point_id", str, "content hash of the configuration point (16 hex digits)"),
    _c("model", str, "data model kind"),
    _c("n", int, "number of records"),
    _c("epsilon", float, "DP parameter of the mechanism (empty if not eps-DP)"),
    _c("clip_low", float, "clipped sum: lower clip"),
    _c("clip_high", float, "clipped sum: upper clip"),
    _c("noise_scale", float, "Laplace scale b"),
    _c("x", float, "unclipped sum: target value x"),
    _c("x_prime", float, "unclipped sum: target value x'"),
    _c("mechanism", str, "mechanism kind"),
    _c("estimator", str, "kde | mixture | exact"),
    _c("known_sizes", str, "allowed known-set sizes"),
    _c(
        "n_adversaries",
        int,
        "adversaries examined (window search: window classes, each the worst over its "
        "targets, boundary values and x, x'; a network's search: targets or groups of "
        "targets, each the worst over its adversaries, said in bound_note)",
    ),
    _c("n_samples", int, "samples per condition per adversary (empty for exact)"),
    _c("percentile", float, "the percentile over adversaries reported in bdpl_p{q}"),
    _c(
        "bdpl_{q}",
        float,
        "empirical BDPL: the percentile of the adversaries' estimates (window search: of "
        "the window classes' worst values)",
    ),
    _c(
        "bdpl_{q}_ci_low",
        float,
        "lower end of its distribution-free (order-statistic) confidence interval "
        "over the adversary draw (-inf: unbounded); mixture: an order statistic of "
        "the adversaries' own lower bounds, so each estimate's error is accounted for",
    ),
    _c(
        "bdpl_{q}_ci_high",
        float,
        "upper end of that interval (inf: too few adversaries to bound the percentile; "
        "mixture: from the adversaries' upper bounds)",
    ),
    _c("bdpl_max", float, "largest adversary estimate"),
    _c("bdpl_median", float, "median adversary estimate"),
    _c(
        "bdpl_se_max",
        float,
        "largest standard error of an adversary estimate (mixture; 0 for exact; empty for kde: unknown)",
    ),
    _c("bdpl_se_mean", float, "mean standard error of the adversary estimates"),
    _c("samples_max", int, "largest number of samples per condition an adversary used (empty for exact)"),
    _c("noise_floor", float, "the same percentile of the null estimates (true value 0)"),
    _c("noise_floor_max", float, "largest null estimate"),
    _c("noise_floor_n", int, "null estimates computed"),
    _c("nonpositive_points", int, "KDE evaluation points dropped for a density <= 0"),
    _c("failed_adversaries", int, "adversaries without a finite estimate"),
    _c(
        "bdpl_exact",
        float,
        "the max of the examined adversaries' exact values: with sampled adversaries "
        "the max over the sample, a lower bound on the BDPL (console: exact_max_sampled; "
        "bdpl_all_adversaries beside it where cheap); the BDPL itself only with "
        "adversaries = 'all'; empty unless every examined adversary has an exact value",
    ),
    _c(
        "bdpl_exact_partial_max",
        float,
        "when only some adversaries have an exact value: the max over "
        "those exact_n (a lower bound on the BDPL, not the BDPL)",
    ),
    _c("bdpl_exact_{q}", float, "the percentile of the exact values (empty unless every adversary has one)"),
    _c("exact_n", int, "adversaries with an exact value"),
    _c("error_mean", float, "mean of estimate - exact over the adversaries with an exact value"),
    _c("error_max", float, "largest |estimate - exact| over them"),
    _c("argmax_i", int, "most leaking adversary: target"),
    _c("argmax_known", str, "its known positions (;-separated; a..b: the range a to b)"),
    _c(
        "argmax_x_known",
        str,
        "their values (window search: only the window's boundary values matter, "
        "x_l=v;x_r=v, 'chain end' where the window reaches it)",
    ),
    _c("argmax_x", str, "its x"),
    _c("argmax_x_prime", str, "its x'"),
    _c("bound_general", float, "general bound m eps"),
    _c("bound_model", float, "model bound (Gaussian or Markov)"),
    _c("bound_zhao", float, "Zhao et al.'s bound"),
    _c(
        "bound_lower",
        float,
        "lower bound on the BDPL: eps for an eps-DP mechanism (the adversary "
        "knowing every other record); (m - 1) eps for a count of BB or bb on a nuclear "
        "pedigree of m (thesis Cor. 5.2); estimates below it missed that adversary",
    ),
    _c(
        "bound_note",
        str,
        "why a bound does not apply; for an all-adversary search whose rows are worst "
        "cases (a network's), what n_adversaries counts",
    ),
    _c("seed", int, "root seed"),
    _c("seconds", float, "compute time (the only column that varies between identical runs)"),
)

ADVERSARY_SCHEMA: tuple[Column, ...] = (
    _c("point_id", str, "configuration point"),
    _c("adversary", int, "adversary index (-1 in exhaustive searches)"),
    _c("i", int, "target record"),
    _c("known", str, "known positions (;-separated)"),
    _c("x_known", str, "their values"),
    _c("x", str, "target value x"),
    _c("x_prime", str, "target value x'"),
    _c(
        "bdpl",
        float,
        "the estimator's value (kde, kde_ratio = 'signed': one-sided, for the drawn order "
        "of x, x'; otherwise two-sided)",
    ),
    _c("bdpl_se", float, "its standard error (mixture: delta method; exact: 0; kde: empty, unknown)"),
    _c(
        "samples",
        int,
        "samples per condition it used (mixture: after the adaptive doubling; empty for exact)",
    ),
    _c("null_bdpl", float, "null estimate (same condition twice; true value 0)"),
    _c("nonpositive_points", int, "KDE points dropped"),
    _c("argmax", float, "output where the supremum was found (+-inf: a tail)"),
    _c(
        "exact",
        float,
        "exact value of what the estimator estimates for this adversary (one- or "
        "two-sided as bdpl), where one exists",
    ),
)


#: the names of the core summary columns
CORE_SUMMARY = frozenset(c.name for c in SUMMARY_SCHEMA)

#: core cells an estimator fills (:meth:`bdpsim.estimators.base.Estimator.summary`), empty unless it does
ESTIMATOR_CELLS = {"n_samples": math.nan}


def empty_cell(column: Column):
    """What a column holds where nobody fills it: ``""`` for text, ``nan`` for numbers (both an
    empty CSV cell)."""
    return "" if column.dtype is str else math.nan


def owned_summary_columns() -> list[tuple[str, OwnedColumn]]:
    """``(owner, owned column)`` of every registered model kind, then estimator, in registration
    order: the ``summary_columns`` each declares (a sub-kind inheriting its parent's columns does
    not own them twice). A column two kinds declare is a :class:`TypeError`."""
    from ..estimators import ESTIMATORS
    from ..models import MODEL_KINDS

    out: list[tuple[str, OwnedColumn]] = []
    seen: dict[str, tuple[str, OwnedColumn]] = {}
    for registry in (MODEL_KINDS, ESTIMATORS):
        for name, kind in registry.items():
            for oc in kind.summary_columns:
                prev = seen.get(oc.column.name)
                if prev is not None and prev[1] is oc:
                    continue
                if prev is not None:
                    raise TypeError(
                        f"{registry.what} {name!r}: summary column {oc.column.name!r} is "
                        f"already owned by {prev[0]}"
                    )
                seen[oc.column.name] = (f"{registry.what} {name}", oc)
                out.append(seen[oc.column.name])
    return out


_SCHEMA_CACHE: dict = {}


def summary_schema() -> tuple[Column, ...]:
    """Every column ``summary.csv`` always has, in order: the core columns (:data:`SUMMARY_SCHEMA`)
    with, after each, the columns the registered kinds own placed after it
    (:class:`~bdpsim.core.columns.OwnedColumn`: by rank, then registration, then declaration), each
    with its owner. A column placed after no core column, or named as one, is a :class:`TypeError`."""
    owned = owned_summary_columns()
    key = tuple((owner, id(oc)) for owner, oc in owned)
    if key in _SCHEMA_CACHE:
        return _SCHEMA_CACHE[key]
    core = CORE_SUMMARY
    for owner, oc in owned:
        if oc.column.name in core or oc.after not in core:
            raise TypeError(
                f"{owner}: summary column {oc.column.name!r} "
                + (
                    "is a core column"
                    if oc.column.name in core
                    else f"is placed after {oc.after!r}, not a core column"
                )
            )
    ranked = sorted(owned, key=lambda pair: pair[1].rank)  # stable: registration, then declaration order
    out: list[Column] = []
    for c in SUMMARY_SCHEMA:
        out.append(c)
        out += [replace(oc.column, owner=owner) for owner, oc in ranked if oc.after == c.name]
    _SCHEMA_CACHE.clear()
    _SCHEMA_CACHE[key] = tuple(out)
    return _SCHEMA_CACHE[key]


def summary_columns(label: str = "p99", extras: Sequence[str] = ()) -> list[str]:
    """``summary.csv``'s header for percentile label ``label`` (:func:`summary_schema`), then the
    ``extras`` used."""
    return [c.header(label) for c in summary_schema()] + list(extras)


ADVERSARY_COLUMNS = [c.name for c in ADVERSARY_SCHEMA]


def mechanism_label(row: dict) -> str:
    """A summary row's mechanism with its noise law and calibration method when it has them
    (``count``, ``count/geometric``, ``calibrated/general``): what tells a config's mechanism
    variants apart in the console table and in ``bdpsim plot``."""

    def given(v) -> bool:
        return isinstance(v, str) and v != ""

    return "/".join(
        [str(row.get("mechanism", ""))] + [row[k] for k in ("noise", "calibration") if given(row.get(k))]
    )


def ordered_extras(table: str, names) -> list[str]:
    """The extra column ``names`` in registration order (a run's header is reproducible)."""
    names = set(names)
    return [n for n in EXTRA_COLUMNS[table] if n in names]


@dataclass(frozen=True)
class AdversaryResult:
    """One examined adversary: who it is (``i, known, x_known, x, x_prime`` as text) and its
    estimate, null estimate and exact value."""

    point_id: str
    adversary: int
    i: int
    known: str
    x_known: str
    x: str
    x_prime: str
    bdpl: float
    bdpl_se: float = math.nan
    samples: int = 0
    null_bdpl: float = math.nan
    nonpositive_points: int = 0
    argmax: float = math.nan
    exact: float = math.nan
    extras: dict = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, point_id: str, index: int, adversary, bdpl: float, **kw) -> AdversaryResult:
        return cls(point_id, index, **adversary.as_row(), bdpl=bdpl, **kw)

    def as_row(self) -> dict:
        row = {name: getattr(self, name) for name in ADVERSARY_COLUMNS}  # shallow: no deepcopy per row
        row.update(self.extras)
        return row

    def sort_key(self) -> tuple:
        return (self.adversary, self.i, self.known, self.x_known, self.x, self.x_prime)


_PCT = re.compile(r"^(bdpl|bdpl_exact)_p(\d+(?:\.\d+)?)(_ci_low|_ci_high)?$")


def _schema_of(header: list[str], schema: tuple[Column, ...], where: str) -> list[Column]:
    table = "summary" if schema is SUMMARY_SCHEMA else "adversaries"
    every = summary_schema() if table == "summary" else schema  # with the columns kinds own
    by_name = {**EXTRA_COLUMNS[table], **{c.name: c for c in every}}
    cols = []
    for h in header:
        m = _PCT.match(h)
        col = by_name.get(h) or (by_name.get(f"{m.group(1)}_{{q}}{m.group(3) or ''}") if m else None)
        if col is None:
            raise ConfigError(where, h, "is not a bdpsim result column (a foreign or damaged table?)")
        cols.append(col)
    return cols


def parse_cell(text: str, col: Column):
    """A CSV cell as its column's type: ``str`` stays text (``"1234e5"`` is an id, not a number),
    empty numeric cells are ``nan``."""
    if col.dtype is str:
        return text
    if text == "":
        return math.nan
    try:
        return int(text) if col.dtype is int else float(text)
    except ValueError:
        raise ConfigError(col.name, text, f"must be {col.dtype.__name__} (a damaged table?)") from None


def typed_rows(header: list[str], records, schema: tuple[Column, ...], where: str) -> list[dict]:
    """Rows of a CSV (``header`` + raw string ``records``) typed by ``schema``."""
    cols = _schema_of(header, schema, where)
    out = []
    for rec in records:
        if len(rec) != len(cols):
            raise ConfigError(where, len(rec), f"row has {len(rec)} cells, the header {len(cols)}")
        out.append({h: parse_cell(v, c) for h, v, c in zip(header, rec, cols)})
    return out


def _field(column: Column) -> str:
    return column.name.replace("{q}", "pct")


def _summary_as_row(self) -> dict:
    """The row as ``summary.csv`` writes it, with percentile-named columns, the columns kinds own
    (empty where not filled) in their places, and its extras."""
    label = f"p{self.percentile:g}"
    return {
        **{
            c.header(label): getattr(self, _field(c))
            if c.name in CORE_SUMMARY
            else self.owned.get(c.name, empty_cell(c))
            for c in summary_schema()
        },
        **self.extras,
    }


SummaryRow = make_dataclass(
    "SummaryRow",
    [(_field(c), c.dtype) for c in SUMMARY_SCHEMA]
    + [
        ("owned", dict, field(default_factory=dict)),
        ("extras", dict, field(default_factory=dict, compare=False)),
    ],
    frozen=True,
    namespace={
        "as_row": _summary_as_row,
        "__doc__": "One configuration point's summary (core fields as SUMMARY_SCHEMA, with 'pct' "
        "for the percentile label; owned: the cells of columns kinds own, "
        "summary_schema); as_row() names the columns after the percentile.",
    },
)
