"""The README's generated column list (from the schemas and every registered extra column)."""

from __future__ import annotations

from ..rows import ADVERSARY_SCHEMA, EXTRA_COLUMNS, SUMMARY_SCHEMA
from . import tables as _tables  # noqa: F401  (the kinds register their extra columns)


def markdown_columns() -> str:
    """The README's column list, generated from the schemas and every registered kind's extra columns
    (a test keeps the README in sync)."""
    lines = ["| file | column | type | meaning |", "|---|---|---|---|"]
    for fname, schema, table in (("summary.csv", SUMMARY_SCHEMA, "summary"),
                                 ("adversaries.csv.gz", ADVERSARY_SCHEMA, "adversaries")):
        for c in schema:
            lines.append(f"| {fname} | `{c.header('p99')}` | {c.dtype.__name__} | {c.meaning} |")
        for c in sorted(EXTRA_COLUMNS[table].values(), key=lambda c: c.name):  # not import order
            lines.append(f"| {fname} | `{c.name}` | {c.dtype.__name__} | (only when used) {c.meaning} |")
    return "\n".join(lines)
