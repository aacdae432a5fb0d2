"""The plug-in contract, for plug-in authors and bdpsim's own tests (as scikit-learn ships
``check_estimator``): :func:`check_model_kind`, :func:`check_mechanism_kind`,
:func:`check_noise_law`, :func:`check_estimator`, :func:`check_calibration_method`, each raising
:class:`AssertionError` with what a plug-in breaks, and :func:`parametrize_with_checks`, a pytest
parametrization of every check over the live registries. Importing this package does not import
pytest (only :func:`parametrize_with_checks` does)."""

from .checks import (
    all_checks,
    check_calibration_method,
    check_estimator,
    check_keys,
    check_mechanism_kind,
    check_model_kind,
    check_noise_law,
)
from .parametrize import parametrize_with_checks

__all__ = [
    "all_checks",
    "check_calibration_method",
    "check_estimator",
    "check_keys",
    "check_mechanism_kind",
    "check_model_kind",
    "check_noise_law",
    "parametrize_with_checks",
]
