"""Result-table columns: a column's name, type and meaning, and the registry of *extra* columns.

The base columns of ``summary.csv`` and ``adversaries.csv.gz`` are :mod:`bdpsim.rows`'. A kind
that fills more (an estimator's certified bound, a noise law's parameter) registers them here —
this module is at the bottom of the package, so models, mechanisms and estimators can.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    """One column: ``name`` (``{q}`` stands for the percentile label), ``dtype`` (``str``, ``int``
    or ``float``) and its meaning for a reader of the table."""

    name: str
    dtype: type
    meaning: str

    def header(self, label: str) -> str:
        return self.name.replace("{q}", label)


#: columns a kind adds to a table only where it is used (e.g. an estimator's certified bound, a
#: noise law's parameter): ``"summary"`` / ``"adversaries"`` -> name -> Column
EXTRA_COLUMNS: dict[str, dict[str, Column]] = {"summary": {}, "adversaries": {}}


def register_columns(table: str, *columns: Column) -> tuple[Column, ...]:
    """Declare extra columns of ``table`` (``"summary"`` or ``"adversaries"``) a kind may fill;
    a table written by a run has them only when one of its points uses the kind (so tables of
    configs that do not are unchanged), and every reader types them. Returns ``columns``."""
    if table not in EXTRA_COLUMNS:
        raise TypeError(f"table {table!r}: must be 'summary' or 'adversaries'")
    for c in columns:
        EXTRA_COLUMNS[table][c.name] = c
    return columns
