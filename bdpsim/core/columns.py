"""Result-table columns: a column's name, type and meaning, and the two ways a kind declares its own.

The core columns of ``summary.csv`` and ``adversaries.csv.gz`` are :mod:`bdpsim.pipeline.rows`'. A kind
that fills more declares them with the types here — this module is at the bottom of the package,
so models, mechanisms and estimators can:

* an *extra* column (:func:`register_columns`) is in a table only when one of its points uses the
  kind (an estimator's certified bound, a noise law's parameter); new kinds declare these;
* an *owned* column (:func:`owned_columns`, a kind's ``summary_columns``) is in every
  ``summary.csv``, empty where the kind is not used, at the place the kind declares: the columns
  bdpsim's first tables had for one kind (the KDE's ``kde_backend``, the Gaussian model's ``rho``)
  and keep, so that those tables stay byte-identical. :func:`bdpsim.pipeline.rows.summary_schema` collects
  them from the live registries.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Column:
    """One column: ``name`` (``{q}`` stands for the percentile label), ``dtype`` (``str``, ``int``
    or ``float``) and its meaning for a reader of the table."""

    name: str
    dtype: type
    meaning: str
    owner: str = ""  # the kind that declares it ("": a core column), for the column reference

    def header(self, label: str) -> str:
        return self.name.replace("{q}", label)


#: columns a kind adds to a table only where it is used (e.g. an estimator's certified bound, a
#: noise law's parameter): ``"summary"`` / ``"adversaries"`` -> name -> Column
EXTRA_COLUMNS: dict[str, dict[str, Column]] = {"summary": {}, "adversaries": {}}


def register_columns(table: str, *columns: Column, owner: str = "") -> tuple[Column, ...]:
    """Declare extra columns of ``table`` (``"summary"`` or ``"adversaries"``) a kind may fill;
    a table written by a run has them only when one of its points uses the kind (so tables of
    configs that do not are unchanged), and every reader types them. ``owner`` names the kind
    (``"estimator kde"``) in the column reference. Returns ``columns`` (with their owner)."""
    if table not in EXTRA_COLUMNS:
        raise TypeError(f"table {table!r}: must be 'summary' or 'adversaries'")
    columns = tuple(replace(c, owner=owner) if owner else c for c in columns)
    for c in columns:
        EXTRA_COLUMNS[table][c.name] = c
    return columns


@dataclass(frozen=True)
class OwnedColumn:
    """A ``summary.csv`` column a kind owns and every table has (empty where the kind is not used):
    the ``column``, placed right after the core column ``after``; columns placed after the same
    core column are ordered by ``rank``, then by their owners' registration order, then as
    declared. The kind fills it (a model kind's ``summary_cells``, an estimator's ``summary``)."""

    column: Column
    after: str
    rank: int = 0


def owned_columns(after: str, *columns: Column, rank: int = 0) -> tuple[OwnedColumn, ...]:
    """A kind's ``summary_columns``: ``columns`` (in this order) placed after the core column
    ``after`` with ``rank`` (see :class:`OwnedColumn`; checked against the core schema by
    :func:`bdpsim.pipeline.rows.summary_schema` and the contract tests)."""
    if not all(isinstance(c, Column) for c in columns):
        raise TypeError("owned_columns: every column must be a Column")
    return tuple(OwnedColumn(c, after, rank) for c in columns)


def owned_problem(summary_columns) -> str | None:
    """``None`` if a kind's ``summary_columns`` is a tuple of :class:`OwnedColumn`, else the
    reason (a registry's check at registration)."""
    if isinstance(summary_columns, tuple) and all(isinstance(c, OwnedColumn) for c in summary_columns):
        return None
    return "summary_columns must be a tuple of OwnedColumn (bdpsim.core.columns.owned_columns)"
