"""bdpsim: Bayesian differential privacy leakage (BDPL) of DP mechanisms on correlated data.

Monte Carlo estimation as in Lange's thesis (§3.1.2), exact computation where the model allows
it, and the theoretical bounds of the literature (paper §4–§6). Quick start::

    import bdpsim
    chain = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(5.0), n=6)
    bdpsim.exact_bdpl(chain, bdpsim.LaplaceCount(epsilon=1.0)).bdpl      # 3.0753...
    table = bdpsim.run({"run": {"adversaries": 50, "estimator": "mixture"},
                        "model": {"kind": "markov", "n": 6, "gamma": 5.0},
                        "mechanism": {"kind": "count", "epsilon": 1.0}})

Names: data models (:class:`MarkovChainModel`, :class:`GaussianModel`, :class:`PedigreeModel`),
mechanisms (:class:`LaplaceCount`, :class:`LaplaceStateSum`, :class:`LaplaceSum`,
:class:`ClippedSum`, :class:`CustomMechanism`), exact leakage (:func:`exact_bdpl`,
:func:`adversary_bdpl`) and worst-case searches (:func:`worst_case_markov`,
:func:`worst_case_gaussian`), estimators, bounds (:func:`general_bound`, :func:`gaussian_bound`,
:func:`markov_bound`, :func:`zhao_bound`), calibration (:func:`calibrate`), and runs
(:func:`run`, :func:`load_results`, :func:`parse_config`, :func:`load_config`).
"""

from importlib.metadata import PackageNotFoundError, version

from . import bounds
from .adversary import Adversary
from .api import ExactResult, exact_bdpl, load_results, run, worst_case_gaussian, worst_case_markov
from .calibration import Calibration, calibrate
from .quilt import mqm_approx, mqm_exact
from .randomized_response import randomized_response_bdpl
from .wasserstein import w_infinity, wasserstein_scale
from .bounds import (applicable_bounds, gaussian_bound, general_bound, markov_bound, yang_bound,
                     zhao_bound)
from .config import ExperimentConfig, load_config, parse_config
from .errors import BdpsimError, ConfigError, NotAvailable
from .estimators import ExactEstimator, KdeEstimator, MixtureEstimator, adversary_bdpl
from .mechanisms import ClippedSum, CustomMechanism, LaplaceCount, LaplaceStateSum, LaplaceSum
from .models import (GaussianModel, MarkovChainModel, PedigreeModel, gamma_of, limited_covariance, omega_of,
                     symmetric_chain)
from .worstcase import GaussianWorstCase, MarkovWorstCase
from .settings import RunSettings

try:
    __version__ = version("bdpsim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"

__all__ = ["Calibration", "calibrate", "mqm_approx", "mqm_exact", "randomized_response_bdpl",
           "w_infinity", "wasserstein_scale", "Adversary", "BdpsimError", "ClippedSum", "ConfigError", "CustomMechanism", "ExactEstimator",
           "ExactResult", "ExperimentConfig", "GaussianModel", "GaussianWorstCase", "KdeEstimator", "LaplaceCount",
           "LaplaceStateSum", "LaplaceSum", "MarkovChainModel", "MarkovWorstCase", "MixtureEstimator",
           "NotAvailable", "PedigreeModel", "RunSettings", "__version__",
           "adversary_bdpl", "applicable_bounds", "bounds", "exact_bdpl", "gamma_of", "gaussian_bound",
           "general_bound", "limited_covariance", "load_config", "load_results", "markov_bound", "omega_of",
           "parse_config", "run", "symmetric_chain", "worst_case_gaussian", "worst_case_markov", "yang_bound",
           "zhao_bound"]
