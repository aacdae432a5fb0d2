"""Calibration of a local release of every record (:class:`~bdpsim.mechanisms.local.LocalRelease`):
the largest per-step epsilon — or, for a per-step schedule, the largest factor on the whole
schedule — whose exact BDPL on a chain model meets a target.

The BDPL is the exact one of :func:`bdpsim.exact_bdpl` through the release's engine (the temporal
engine; with ``sizes = (0,)``, the default, the adversary who knows no step: ``max_t TPL_t``). It
grows with every step's budget (a step at a smaller epsilon is a garbling of the same step at a
larger one), so the factor ``c`` on the budgets with ``BDPL(c) <= target`` is an interval
``(0, c*]``, found by :func:`bdpsim.kernels.roots.monotone_root` in ``ln c`` to relative
:data:`RTOL`, its safe end kept (``BDPL <= target`` computed there) and rounded down to
:data:`DIGITS` significant digits (:func:`round_down`: less budget is safe, as the attack
calibration's amounts are rounded toward more noise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..core.errors import ConfigError, check
from ..kernels.roots import monotone_root
from ..temporal.chain import MAX_EPSILON, MIN_EPSILON

#: relative width of the factor's bracket at which the search stops
RTOL = 1e-8
#: significant digits of the calibrated budget (rounded down: toward less leakage)
DIGITS = 6


@dataclass(frozen=True)
class LocalCalibration:
    """A calibrated local release.

    Attributes
    ----------
    release : LocalRelease
        The release at the calibrated budget (a schedule scaled by :attr:`factor`).
    target : float
        The BDPL asked.
    bdpl : float
        The exact BDPL of :attr:`release` (``<= target``).
    factor : float
        The factor applied to the given budget(s) (rounded so that the budget has :data:`DIGITS`
        significant digits, downward).
    sizes : tuple of int
        The known-set sizes of the adversaries the BDPL is the supremum over.
    reason : str
        How it was found.
    """

    release: Any
    target: float
    bdpl: float
    factor: float
    sizes: tuple[int, ...]
    reason: str

    @property
    def epsilon(self) -> float:
        """The calibrated per-step epsilon (a schedule's largest)."""
        return float(self.release.epsilon)


def round_down(x: float, digits: int = DIGITS) -> float:
    """``x > 0`` to ``digits`` significant digits, never above ``x`` (the budget a reader copies
    leaks no more than the one calibrated)."""
    unit = 10.0 ** (math.floor(math.log10(x)) - (digits - 1))
    out = float(f"{math.floor(x / unit + 1e-9) * unit:.{digits}g}")
    return out if out <= x else float(f"{out - unit:.{digits}g}")


def calibrate_local(model, target: float, release, *, sizes: Any = (0,)) -> LocalCalibration:
    """The largest budget of ``release`` (one epsilon, or a factor on its schedule) whose exact
    BDPL over the adversaries with ``|K|`` in ``sizes`` on ``model`` is at most ``target``
    (module docstring); ``ConfigError`` naming the argument, ``NotAvailable`` where the release has
    no exact leakage on the model."""
    from ..estimators.supremum import exact_bdpl

    ok = isinstance(target, (int, float)) and not isinstance(target, bool) and math.isfinite(target)
    check(ok and target > 0, "epsilon", target, "the target BDPL must be a finite number > 0")
    check(
        release.named,
        "mechanism",
        release.label,
        "calibrating a local release sets its epsilon: give a named release (krr, any, a noise law), "
        "not a matrix or randomized response",
    )
    ks = tuple(sizes) if not isinstance(sizes, str) else sizes
    budgets = release.epsilon_schedule or (float(release.epsilon),)
    top, low = max(budgets), min(budgets)
    hi_factor, lo_factor = MAX_EPSILON / top, MIN_EPSILON / low

    def bdpl(c: float) -> float:
        return float(exact_bdpl(model, release.scaled(c), sizes=ks).bdpl)

    def excess(c: float) -> float:
        if c >= hi_factor:
            return math.inf
        if c <= lo_factor:
            return -math.inf
        return bdpl(c) - float(target)

    root = monotone_root(excess, 0.5, 2.0, rtol=RTOL)
    c = math.nan if root.safe is None else float(root.safe)
    eps = round_down(c * top) if c > 0 else math.nan
    factor = min(c, eps / top)
    if not factor * low >= MIN_EPSILON:  # the root is the floor of the budgets (or none): unmet
        raise ConfigError(
            "epsilon",
            target,
            f"no budget of the release meets it (even each step at {MIN_EPSILON:g} leaks more)",
        )
    out = release.scaled(factor) if release.epsilon_schedule is not None else release.with_epsilon(eps)
    value = float(exact_bdpl(model, out, sizes=ks).bdpl)
    if value > target:  # the rounding is downward and the BDPL monotone: a guard, never hit
        raise ConfigError("epsilon", target, f"the rounded budget leaks {value:.6g} above it")
    what = "every step's epsilon" if release.epsilon_schedule is None else "the factor on the schedule"
    if factor * top >= MAX_EPSILON * (1 - 1e-5):
        what += f" (capped: a step's epsilon is at most {MAX_EPSILON:g}, where the target is not reached)"
    return LocalCalibration(
        out,
        float(target),
        value,
        float(factor),
        ks if isinstance(ks, tuple) else (),
        f"the largest {what} with exact BDPL <= target (bisection in ln of the factor to relative "
        f"{RTOL:g}, rounded down to {DIGITS} significant digits)",
    )


__all__ = ["DIGITS", "LocalCalibration", "RTOL", "calibrate_local", "round_down"]
