"""Error lines show the user's values in Python's words (bdpsim.core.shown): a value that passed
through NumPy never shows as ``np.float64(0.5)`` or ``array(...)``."""

from __future__ import annotations

import numpy as np
import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.core.shown import plain, shown
from bdpsim.kernels.argcheck import ParameterError


@pytest.mark.parametrize(
    "value, text",
    [
        ([np.float64(0.5), np.float64(0.6)], "[0.5, 0.6]"),
        (np.array([[0.5, 0.6], [0.1, 0.9]]), "[[0.5, 0.6], [0.1, 0.9]]"),
        ((np.int64(2), np.bool_(True)), "(2, True)"),
        ({"a": [np.float32(0.25)]}, "{'a': [0.25]}"),
        ("text", "'text'"),
        (1.5, "1.5"),
    ],
)
def test_errors_show_plain_values(value, text):
    assert shown(value) == text
    assert str(ConfigError("model.initial", value, "rule")) == f"model.initial = {text}: rule"
    assert str(ParameterError("initial", value, "rule")) == f"initial = {text}: rule"
    assert "np." not in str(ConfigError("f", value, "r")) and "array(" not in str(
        ConfigError("f", value, "r")
    )


def test_plain_keeps_types_and_cuts_long_values():
    assert plain([np.float64(1.0)]) == [1.0] and type(plain([np.float64(1.0)])[0]) is float
    assert shown(list(np.arange(100.0)), limit=20) == "[0.0, 1.0, 2.0, 3..."
    assert plain(np.dtype(float)) == np.dtype(float)  # not a number: shown as it is


def test_a_library_error_of_a_numpy_value_is_one_plain_line():
    """The transition check of a chain built from NumPy numbers names them as numbers."""
    import bdpsim

    with pytest.raises(ValueError) as err:
        bdpsim.MarkovChainModel(np.array([[0.5, 0.6], [0.5, 0.5]]), 3)
    assert "np.float64" not in str(err.value) and "[[0.5, 0.6], [0.5, 0.5]]" in str(err.value)
