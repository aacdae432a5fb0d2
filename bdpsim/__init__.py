"""bdpsim: Bayesian differential privacy leakage (BDPL) of DP mechanisms on correlated data.

Monte Carlo estimation as in Lange's thesis (§3.1.2), exact computation where the model allows
it, and the theoretical bounds of the literature (paper §4–§6). Quick start::

    import bdpsim
    chain = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(5.0), n=6)
    bdpsim.exact_bdpl(chain, bdpsim.LaplaceCount(epsilon=1.0)).bdpl      # 3.0753...
    table = bdpsim.run({"run": {"adversaries": 50, "estimator": "mixture"},
                        "model": {"kind": "markov", "n": 6, "gamma": 5.0},
                        "mechanism": {"kind": "count", "epsilon": 1.0}})
"""

from importlib.metadata import PackageNotFoundError, version

from . import bounds
from .adversary import Adversary
from .api import ExactResult, exact_bdpl, load_results, run
from .calibration import Calibration, calibrate
from .bounds import (applicable_bounds, gaussian_bound, general_bound, markov_bound, yang_bound,
                     zhao_bound)
from .config import ExperimentConfig, load_config, parse_config
from .errors import BdpsimError, ConfigError, NotAvailable
from .estimators import ExactEstimator, KdeEstimator, MixtureEstimator, adversary_bdpl
from .mechanisms import ClippedSum, CustomMechanism, LaplaceCount, LaplaceSum
from .models import (GaussianModel, MarkovChainModel, gamma_of, limited_covariance, omega_of,
                     symmetric_chain)
from .settings import RunSettings

try:
    __version__ = version("bdpsim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"

__all__ = ["Calibration", "calibrate", "Adversary", "BdpsimError", "ClippedSum", "ConfigError", "CustomMechanism", "ExactEstimator",
           "ExactResult", "ExperimentConfig", "GaussianModel", "KdeEstimator", "LaplaceCount", "LaplaceSum",
           "MarkovChainModel", "MixtureEstimator", "NotAvailable", "RunSettings", "__version__",
           "adversary_bdpl", "applicable_bounds", "bounds", "exact_bdpl", "gamma_of", "gaussian_bound",
           "general_bound", "limited_covariance", "load_config", "load_results", "markov_bound", "omega_of",
           "parse_config", "run", "symmetric_chain", "yang_bound", "zhao_bound"]
