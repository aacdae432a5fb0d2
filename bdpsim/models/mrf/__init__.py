"""``[model] kind = "mrf"``: pairwise Markov random fields (Potts models) on a graph, exact
through the factor/elimination machinery shared with Bayesian networks.
:class:`MRFModel` is the model, :mod:`.kind` its config keys and engines, :mod:`.check` the
validation."""

from .kind import KIND, MRFKind, build
from .model import MRFModel

__all__ = ["KIND", "MRFKind", "MRFModel", "build"]
