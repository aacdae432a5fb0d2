"""The README's generated column list (from the schemas and every registered extra column)."""

from __future__ import annotations

from ..rows import ADVERSARY_SCHEMA, EXTRA_COLUMNS, summary_schema
from . import tables as _tables  # noqa: F401  (the kinds register their extra columns)


def markdown_columns() -> str:
    """The column list of the docs' column reference, generated from the core schemas, the columns
    the registered kinds own (:func:`~bdpsim.pipeline.rows.summary_schema`) and every registered extra
    column, each with its owner (``core`` or the kind)."""
    lines = ["| file | column | type | owner | meaning |", "|---|---|---|---|---|"]
    for fname, schema, table in (("summary.csv", summary_schema(), "summary"),
                                 ("adversaries.csv.gz", ADVERSARY_SCHEMA, "adversaries")):
        for c in schema:
            lines.append(f"| {fname} | `{c.header('p99')}` | {c.dtype.__name__} | {c.owner or 'core'} | {c.meaning} |")
        for c in sorted(EXTRA_COLUMNS[table].values(), key=lambda c: c.name):  # not import order
            lines.append(f"| {fname} | `{c.name}` | {c.dtype.__name__} | {c.owner or 'core'} | "
                         f"(only when used) {c.meaning} |")
    return "\n".join(lines)
