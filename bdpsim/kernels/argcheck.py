"""The kernels' own input error: a ``ValueError`` naming the function's parameter.

A kernel knows its parameters, not the configuration that fed them: its message reads
``param = value: rule`` with the parameter's name (``epsilon = -1: must be a finite number >
0``). The layer that knows the config (a model or mechanism kind, the settings, the CLI) turns it
into a :class:`bdpsim.core.errors.ConfigError` naming the field (``mechanism.epsilon = -1: ...``) with
:func:`bdpsim.core.errors.naming`, which reads the ``param``, ``value`` and ``rule`` attributes kept here.
Kernels never import :mod:`bdpsim.core.errors` (``tests/architecture/test_layers.py`` checks it).
"""

from __future__ import annotations

from typing import Any

from ..core.shown import shown  # noqa: F401  (re-exported: how an error line shows a value)


class ParameterError(ValueError):
    """A kernel's argument breaks its rule: ``param = value: rule``.

    Parameters
    ----------
    param : str
        The parameter's name in the kernel's signature (``"epsilon"``, ``"W1"``, ``"values"``).
    value : Any
        The offending value.
    rule : str
        The rule it breaks, phrased for a user.
    """

    def __init__(self, param: str, value: Any, rule: str) -> None:
        super().__init__(param, value, rule)  # the arguments rebuild it when unpickled
        self.param, self.value, self.rule = param, value, rule

    def __str__(self) -> str:
        return f"{self.param} = {shown(self.value)}: {self.rule}"


class TooExpensive(ParameterError):
    """A computation refused up front because its estimated cost exceeds a limit (the value
    describes the input's size, the rule the estimate and the limit)."""


def require(condition: bool, param: str, value: Any, rule: str) -> None:
    """Raise :class:`ParameterError` unless ``condition`` holds (never ``assert``)."""
    if not condition:
        raise ParameterError(param, value, rule)


def count_as_float(n: int | float) -> float:
    """A count (an exact Python integer: cells, known sets, ...) as a float, ``inf`` past the float
    range instead of ``OverflowError``, so that cost estimates compare and print (``{:.3g}``)."""
    try:
        return float(n)
    except OverflowError:
        return float("inf")
