"""bdpsim: Bayesian differential privacy leakage (BDPL) of DP mechanisms on correlated data.

Monte Carlo estimation as in Lange's thesis (§3.1.2), exact computation where the model allows
it (SCIENCE.md §5), and the theoretical bounds of the literature (§6).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bdpsim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"
