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
:class:`ClippedSum`, :class:`CustomMechanism`, :class:`RandomizedResponse`,
:class:`HistogramMechanism`), exact leakage
(:func:`exact_bdpl`, :func:`adversary_bdpl`) and worst-case searches (:func:`worst_case_markov`,
:func:`worst_case_gaussian`), estimators, bounds (:func:`general_bound`, :func:`gaussian_bound`,
:func:`markov_bound`, :func:`zhao_bound`), calibration (:func:`calibrate`), and runs
(:func:`run`, :func:`load_results`, :func:`parse_config`, :func:`load_config`).

The names are loaded on first use (``import bdpsim`` itself imports nothing heavy).
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version

from .core import moved as _moved

_moved.install()  # old import paths of moved modules keep working for one release (core/moved.py)

try:
    __version__ = version("bdpsim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"

#: public name -> module that defines it
_EXPORTS = {
    "Adversary": "adversary",
    "Estimate": "adversary",
    "ExactResult": "estimators.supremum",
    "exact_bdpl": "estimators.supremum",
    "load_adversaries": "api",
    "load_results": "api",
    "run": "api",
    "worst_case_gaussian": "api",
    "worst_case_markov": "api",
    "Calibration": "calibration",
    "calibrate": "calibration",
    "mqm_approx": "calibration",
    "mqm_exact": "calibration",
    "w_infinity": "calibration",
    "wasserstein_scale": "calibration",
    "applicable_bounds": "bounds",
    "gaussian_bound": "bounds",
    "general_bound": "bounds",
    "markov_bound": "bounds",
    "yang_bound": "bounds",
    "zhao_bound": "bounds",
    "ExperimentConfig": "pipeline.config",
    "load_config": "pipeline.config",
    "parse_config": "pipeline.config",
    "BdpsimError": "core.errors",
    "ConfigError": "core.errors",
    "NotAvailable": "core.errors",
    "AuditEstimator": "estimators",
    "ExactEstimator": "estimators",
    "KdeEstimator": "estimators",
    "MixtureEstimator": "estimators",
    "adversary_bdpl": "estimators",
    "ClippedSum": "mechanisms",
    "CustomMechanism": "mechanisms",
    "HistogramMechanism": "mechanisms",
    "LaplaceCount": "mechanisms",
    "LaplaceStateSum": "mechanisms",
    "LaplaceSum": "mechanisms",
    "LocalRelease": "mechanisms.local",  # the local release of every record
    "ValueNoise": "mechanisms.value_noise",  # Gaussian noise on each record's value
    "RandomizedResponse": "mechanisms",
    "randomized_response_bdpl": "mechanisms",
    "BayesNetModel": "models",
    "GaussianModel": "models",
    "MarkovChainModel": "models",
    "PedigreeModel": "models",
    "gamma_of": "models",
    "limited_covariance": "models",
    "omega_of": "models",
    "symmetric_chain": "models",
    "fit_chain": "models.markov.fit",  # a chain fitted to a user's time series
    "GaussianWorstCase": "studies.worstcase",
    "MarkovWorstCase": "studies.worstcase",
    "RunSettings": "pipeline.settings",
    "from_bif": "models.bayesnet.build",
    "from_pgmpy": "models.bayesnet.build",  # Bayesian networks
    "MRFModel": "models.mrf",  # pairwise Markov random fields
    "temporal_leakage": "temporal.table",  # continual release
    "AttackRisk": "attack",
    "attack_risk": "attack",  # the optimal attack
    "calibrate_attack": "attack.calibrate",  # the least noise meeting an attack target
    "risk_roc_data": "studies.attack_roc",  # the curves behind an attack's table and figure
    "describe_adversary": "models.base",  # an adversary in the model's own words
    "allocate": "temporal.allocate",  # per-step budgets of a continual release
    "Account": "accounting",
    "account": "accounting",  # the privacy accountant of many releases
}
_MODULES = ("bounds",)

__all__ = sorted([*_EXPORTS, *_MODULES, "__version__"])


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _MODULES:
        value = import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'bdpsim' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return __all__
