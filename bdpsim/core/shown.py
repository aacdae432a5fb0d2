"""How an error line shows the offending value: as the user wrote it, in Python's words.

A value that passed through NumPy (``np.float64(0.5)``, an array) is shown as the plain numbers
and lists it holds (``0.5``, ``[0.5, 0.6]``), never as NumPy's ``repr`` (``[np.float64(0.5),
...]``, ``array([...])``); long values are cut. Both error types of the package use it
(:class:`bdpsim.core.errors.ConfigError` and the kernels'
:class:`bdpsim.kernels.argcheck.ParameterError`). An estimated time in a refusal is shown in the
unit a reader reads (:func:`duration`). NumPy is never imported here.
"""

from __future__ import annotations

import math
from typing import Any


def plain(value: Any) -> Any:
    """``value`` with every NumPy scalar and array (at any depth of a list, tuple, set or dict)
    replaced by the Python numbers and lists it holds (its ``tolist()``)."""
    if type(value).__module__ == "numpy":  # a scalar or an array: its Python numbers
        try:
            return value.tolist()
        except AttributeError:  # another NumPy object (a dtype): shown as it is
            return value
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    return value


def shown(value: Any, limit: int = 80) -> str:
    """``repr`` of :func:`plain` ``(value)``, cut to ``limit`` characters."""
    text = repr(plain(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def magnitude(value: float, log10: float | None = None) -> str:
    """A count or size in an error line, as ``f"{value:.3g}"`` (``5e+07``), past the float range
    too (``1.15e+310``, never ``inf``): from an exact integer ``value``, or from ``log10`` beside
    an infinite one."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1e300:
        log10 = math.log10(value)
    elif not (math.isinf(value) and log10 is not None and math.isfinite(log10)):
        return f"{value:.3g}"
    e = math.floor(log10)
    m = 10.0 ** (log10 - e)
    if float(f"{m:.3g}") >= 10.0:  # 9.999 rounds up to the next power
        m, e = m / 10.0, e + 1
    return f"{m:.3g}e+{e}"


def duration(seconds: float) -> str:
    """An estimated time for a reader (a refusal's estimate, its limit): ``"40 s"``, ``"12 min"``,
    ``"3.5 h"``, ``"20 days"``."""
    if seconds < 600:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


__all__ = ["duration", "magnitude", "plain", "shown"]
