"""A number of the accountant with its kind, its width and the adversary attaining it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..core.number_kinds import BRACKET, EXACT, MONTE_CARLO, UNBOUNDED  # the kinds it prints

__all__ = ["BRACKET", "EXACT", "MONTE_CARLO", "UNBOUNDED", "Value", "bracket", "exact"]


@dataclass(frozen=True)
class Value:
    """``value`` (exact, the middle of a bracket, or a Monte Carlo estimate) within ``[lower,
    upper]``: certain for the kinds ``exact`` and ``certified bracket``, with probability at least
    ``confidence`` for ``Monte Carlo``.

    ``adversary`` attains it (``None`` for a composition of several adversaries); ``note`` says
    what else the reader should know (the order of the pair, a certified bound over every
    adversary when the value is a Monte Carlo one, ...)."""

    value: float
    lower: float
    upper: float
    kind: str
    adversary: Any = None
    note: str = ""
    confidence: float = 1.0

    @property
    def width(self) -> float:
        return self.upper - self.lower if math.isfinite(self.upper) else math.inf

    def text(self, digits: int = 4) -> str:
        """``0.3051 (exact)``, ``0.3051 [0.3049, 0.3053] (certified bracket, width 4e-04)``, ..."""
        v = f"{self.value:.{digits}g}"
        if self.kind in (EXACT, UNBOUNDED):
            return f"{v} ({self.kind})"
        conf = f" {self.confidence:.0%}" if self.kind == MONTE_CARLO else ""
        return (
            f"{v} [{self.lower:.{digits}g}, {self.upper:.{digits}g}] "
            f"({self.kind}{conf}, width {self.width:.2g})"
        )

    def as_dict(self) -> dict:
        out = {
            "value": self.value,
            "lower": self.lower,
            "upper": self.upper,
            "kind": self.kind,
            "width": self.width,
        }
        if self.kind == MONTE_CARLO:
            out["confidence"] = self.confidence
        if self.note:
            out["note"] = self.note
        return out


def exact(v: float, adversary=None, note: str = "") -> Value:
    return Value(float(v), float(v), float(v), EXACT if math.isfinite(v) else UNBOUNDED, adversary, note)


def bracket(lo: float, hi: float, adversary=None, note: str = "") -> Value:
    lo, hi = float(lo), float(hi)
    if math.isfinite(hi) and hi - lo <= 1e-12 * max(1.0, abs(hi)) or lo == hi:
        return exact(hi, adversary, note)
    mid = lo if not math.isfinite(hi) else 0.5 * (lo + hi)
    return Value(mid, lo, hi, BRACKET, adversary, note)
