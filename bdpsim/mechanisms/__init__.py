"""Mechanisms: a noiseless query plus noise, or any user function (thesis §3, paper Def. 5.6).

Query + noise is one family (:class:`QueryNoiseMechanism`, :mod:`.noisy`) for every noise law;
the Laplace mechanisms (:mod:`.laplace`) are constructors that build it with Laplace noise.

:data:`MECHANISM_KINDS` is the registry the config loader reads; a new mechanism kind is one
module with a :class:`MechanismKind` and one :func:`register_mechanism_kind` call.
"""

from . import continual as _continual  # noqa: F401, I001
from . import histogram as _histogram  # noqa: F401, I001
from . import kinds as _kinds  # noqa: F401  (registers the built-in kinds)
from .base import MECHANISM_KINDS, Mechanism, MechanismKind, register_mechanism_kind
from .custom import CONFIG_DIR, CustomMechanism, import_function
from .histogram import HistogramMechanism
from .kinds import state_codes
from .laplace import ClippedSum, LaplaceCount, LaplaceStateSum, LaplaceSum
from .local import LocalRelease
from .noisy import NoisyQueryMechanism, QueryNoiseMechanism
from .randomized_response import mechanism as _rr  # noqa: F401, I001
from .randomized_response.mechanism import RandomizedResponse, randomized_response_bdpl

__all__ = [
    "CONFIG_DIR",
    "MECHANISM_KINDS",
    "ClippedSum",
    "CustomMechanism",
    "HistogramMechanism",
    "LaplaceCount",
    "LaplaceStateSum",
    "LaplaceSum",
    "LocalRelease",
    "Mechanism",
    "MechanismKind",
    "NoisyQueryMechanism",
    "QueryNoiseMechanism",
    "RandomizedResponse",
    "randomized_response_bdpl",
    "import_function",
    "register_mechanism_kind",
    "state_codes",
]
