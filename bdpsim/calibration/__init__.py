"""One calibration layer: the noise each method prescribes for a target eps, and what it leaks.

:data:`CALIBRATION_METHODS` is the one calibration registry (``bdpsim calibrate markov``, the
utility experiment, the competition table and the calibrated mechanism kinds all read it;
:func:`calibrate` (:mod:`.entry`) is its entry point for every model: a chain
(:func:`.methods.calibrate_chain`), and by :func:`.graphs.calibrate_graph` a pedigree, Bayesian
network or Markov random field;
:mod:`.target` names the query a calibration certifies and the target eps it takes): ``exact`` (the
smallest eps-BDP scale, by the
exact engine), the bounds (``general``, ``markov``, ``zhao``, ``gaussian`` — on equicorrelated
Gaussian groups, :mod:`.groups`), the DP baseline ``dp``, ``optimal`` (the least-E|Z| integer
noise), the competing mechanisms (``markov-quilt-approx``, ``markov-quilt-exact`` —
:mod:`bdpsim.calibration.quilt.chain`; ``wasserstein`` — :mod:`.wasserstein`; ``group``). :mod:`.kinds`
registers them as
mechanism kinds of a config.
"""

from ..models.base import DataModel
from . import kinds as _kinds  # noqa: F401  (registers the calibrated mechanism kinds)
from .entry import calibrate
from .kinds import CalibratedLaplace
from .methods import (
    CALIBRATION_METHODS,
    Calibration,
    CalibrationProblem,
    Method,
    calibrate_chain,
    exact_scale,
    register_calibration_method,
    supported_methods,
)
from .optimal import calibrate_optimal, optimal_noise
from .quilt.chain import mqm_approx, mqm_exact
from .wasserstein import w_infinity, wasserstein_scale

register_calibration_method(
    Method(
        "optimal",
        calibrate_optimal,  # the least noise of any integer shape
        "the least E|Z| (or E Z^2) integer noise that is eps-BDP (an LP)",
        models=(DataModel,),  # any model whose exact engine searches every adversary
    )
)

__all__ = [
    "CALIBRATION_METHODS",
    "CalibratedLaplace",
    "Calibration",
    "CalibrationProblem",
    "Method",
    "calibrate",
    "calibrate_chain",
    "register_calibration_method",
    "supported_methods",
    "calibrate_optimal",
    "optimal_noise",
    "exact_scale",
    "mqm_approx",
    "mqm_exact",
    "w_infinity",
    "wasserstein_scale",
]
