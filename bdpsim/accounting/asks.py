"""What an accountant is asked: the checks of its arguments, and the numbers every accountant
derives from its others (``bdpl = renyi(inf)``, ``advantage = delta(0)``, ``beta = 1 - tpr_at``)."""

from __future__ import annotations

import math

from ..core.errors import ConfigError
from ..kernels.noise.checks import MAX_PROFILE_EPSILON
from .values import Value


def check_epsilon(epsilon) -> float:
    """``epsilon`` of a profile: finite, in ``[0, MAX_PROFILE_EPSILON]`` (beyond it ``e^eps``
    overflows the noise laws' profiles; ``delta`` there is 0 for every pure-DP release)."""
    e = float(epsilon)
    if not (math.isfinite(e) and 0.0 <= e <= MAX_PROFILE_EPSILON):
        raise ConfigError("epsilon", epsilon, f"must be a finite number in [0, {MAX_PROFILE_EPSILON:g}]")
    return e


def check_delta(delta) -> float:
    d = float(delta)
    if not (0.0 < d < 1.0):
        raise ConfigError("delta", delta, "must be in the open interval (0, 1)")
    return d


def check_alpha(alpha) -> float:
    a = float(alpha)
    if not (a > 1.0):
        raise ConfigError("alpha", alpha, "must be > 1 (inf for the BDPL)")
    return a


def check_fpr(name: str, value) -> float:
    v = float(value)
    if not (0.0 < v < 1.0):
        raise ConfigError(name, value, "must be in the open interval (0, 1)")
    return v


class Derived:
    """The numbers an accountant derives from its ``delta``, ``renyi`` and ``tpr_at``."""

    def delta(self, epsilon: float) -> Value:
        raise NotImplementedError

    def renyi(self, alpha: float) -> Value:
        raise NotImplementedError

    def tpr_at(self, fpr: float) -> Value:
        raise NotImplementedError

    def prepare(self, epsilons=(), deltas=(), alphas=()) -> None:
        """Numbers asked together (a local release computes them in one pass; elsewhere each
        number is computed, and kept, when asked)."""

    def prepare_tprs(self, fprs=()) -> None:
        """``tpr_at`` at ``fprs`` computed together (a local release: in one refinement; elsewhere
        each is computed when asked)."""

    @property
    def bdpl(self) -> Value:
        """The joint BDPL: ``sup_adv sup_y |ln p(y)/q(y)|`` (``renyi(inf)``)."""
        return self.renyi(math.inf)

    @property
    def advantage(self) -> Value:
        """``sup_adv TV(p, q) = delta(0)``: the optimal attack's largest ``TPR - FPR``."""
        return self.delta(0.0)

    def beta(self, alpha: float) -> Value:
        """The trade-off ``beta(alpha) = 1 - tpr_at(alpha)`` (least type-II error at type-I error
        ``alpha``)."""
        v = self.tpr_at(check_fpr("alpha", alpha))
        return Value(1 - v.value, 1 - v.upper, 1 - v.lower, v.kind, v.adversary, v.note, v.confidence)
