"""How an error line shows the offending value: as the user wrote it, in Python's words.

A value that passed through NumPy (``np.float64(0.5)``, an array) is shown as the plain numbers
and lists it holds (``0.5``, ``[0.5, 0.6]``), never as NumPy's ``repr`` (``[np.float64(0.5),
...]``, ``array([...])``); long values are cut. Both error types of the package use it
(:class:`bdpsim.core.errors.ConfigError` and the kernels'
:class:`bdpsim.kernels.argcheck.ParameterError`). NumPy is never imported here.
"""

from __future__ import annotations

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


__all__ = ["plain", "shown"]
