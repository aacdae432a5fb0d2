"""Reading and formatting helpers shared by the README block scripts.

Shared by ``readme_numbers.py``, ``readme_findings.py`` and ``readme_any.py``: one module below all
of them, so none imports another that imports it back.
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A marker must not begin a line unless its block's text begins with a newline: a line that begins
# with "<!--" is an HTML block in Markdown, and its text would not be rendered as Markdown.
MARK = re.compile(r"<!-- numbers:(?P<name>[\w.-]+) -->(?P<body>.*?)<!-- /numbers:(?P=name) -->", re.S)


# ---------------------------------------------------------------------------------------------
# reading and formatting


def rows(path: Path) -> list[dict]:
    """A CSV as dicts; numbers parsed (empty = nan), text kept."""

    def parse(v: str):
        if v == "":
            return math.nan
        try:
            return float(v)
        except ValueError:
            return v

    with open(path, newline="") as fh:
        return [{k: parse(v) for k, v in r.items()} for r in csv.DictReader(fh)]


def f(v: float, d: int = 2) -> str:
    return f"{v:.{d}f}"


def g(v: float) -> str:
    """A parameter value: 1.0 -> '1', 0.5 -> '0.5'."""
    return f"{v:g}"


def thousands(v: float) -> str:
    return f"{int(round(v)):,}".replace(",", " ")


def signed(v: float, d: int) -> str:
    """+0.32, −0.0001 (a minus sign), 0.0000 for a value that rounds to zero."""
    s = f"{v:+.{d}f}"
    if float(s) == 0:
        return f"{0:.{d}f}"
    return s.replace("-", "−")


def pct(v: float) -> str:
    s = f"{100 * v:.1f}"
    return s[:-2] if s.endswith(".0") else s


def span(vals, fmt=f, sep="–") -> str:
    lo, hi = min(vals), max(vals)
    return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}{sep}{fmt(hi)}"


def bound(r: dict) -> float:
    """min(general, model bound) of a summary row (nan where neither applies)."""
    vals = [
        v
        for v in (r.get("bound_general"), r.get("bound_model"))
        if isinstance(v, float) and not math.isnan(v)
    ]
    return min(vals) if vals else math.nan


def need(path: Path) -> Path:
    if not path.is_file():
        raise FileNotFoundError(f"{path.relative_to(ROOT)} is missing (a README number comes from it)")
    return path


# ---------------------------------------------------------------------------------------------
# sources shared by the block modules


def figure(fig_id: str) -> list[dict]:
    return rows(need(ROOT / "results" / "figures" / f"{fig_id}.csv"))
