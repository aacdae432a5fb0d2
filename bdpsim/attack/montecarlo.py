"""A simulated attack with a band that holds, for mechanisms without an exact output law
(black-box mechanisms, clipped sums of real records).

The adversary ``(i, K, x_K, x, x')`` draws ``samples`` data sets given ``X_K = x_K, X_i = x``
(positives) and as many given ``X_i = x'`` (negatives), runs the mechanism on each and attacks
with the threshold tests ``y > c`` (and ``y < c``) on the one-dimensional output. With the
empirical CDFs of the two output samples, the Dvoretzky-Kiefer-Wolfowitz inequality (Massart's
constant) gives ``sup_c |F_hat(c) - F(c)| <= e = sqrt(ln(4 / (1 - conf)) / (2 samples))`` for both
samples at once with probability ``>= conf``; so, simultaneously for every threshold ``c`` and
every ``fpr``,

* ``tpr_lower(fpr) = max {TPR_hat(c) - e : FPR_hat(c) + e <= fpr}`` is attained by a threshold
  test of false-positive rate ``<= fpr``: a lower bound of the optimal attack's ``TPR(fpr)``;
* ``tpr_upper(fpr) = max {TPR_hat(c) + e : FPR_hat(c) - e <= fpr}`` bounds the best threshold
  test (the optimal attack when the likelihood ratio is monotone in ``y``, e.g. a shift of a
  log-concave law);
* ``advantage_lower = max_c (TPR_hat(c) - FPR_hat(c)) - 2 e``.

Never a bare estimate: every number comes with the side of the band it is. The DKW margin is
additive, so at an FPR below ``e`` (about 0.03 for 2000 samples at 95 %) the lower end is the
trivial ``TPR = FPR``: low-FPR questions need ``samples`` of order ``1 / FPR^2``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..adversary import Adversary
from ..core.errors import ConfigError
from .tradeoff import check_fpr


@dataclass(frozen=True)
class SimulatedAttack:
    """Threshold attacks on simulated outputs with a DKW band of confidence ``confidence``."""

    positives: np.ndarray
    negatives: np.ndarray
    confidence: float

    def __post_init__(self) -> None:
        for name, arr in (("positives", self.positives), ("negatives", self.negatives)):
            a = np.sort(np.asarray(arr, dtype=float).ravel())
            if a.size == 0 or not np.all(np.isfinite(a)):
                raise ConfigError(name, a.size, "must be a non-empty sample of finite outputs")
            object.__setattr__(self, name, a)
        if not 0.0 < self.confidence < 1.0:
            raise ConfigError("confidence", self.confidence, "must be in the open interval (0, 1)")

    @property
    def margin(self) -> float:
        """``e``: the half-width of both CDF bands (DKW with Massart's constant, union of two)."""
        n = min(self.positives.size, self.negatives.size)
        return math.sqrt(math.log(4.0 / (1.0 - self.confidence)) / (2.0 * n))

    def _roc(self) -> tuple[np.ndarray, np.ndarray]:
        """Empirical (FPR, TPR) of ``y > c`` and of ``y < c`` for every threshold between samples."""
        c = np.concatenate([[-np.inf], np.unique(np.concatenate([self.positives, self.negatives]))])
        up_t = 1.0 - np.searchsorted(self.positives, c, side="right") / self.positives.size
        up_f = 1.0 - np.searchsorted(self.negatives, c, side="right") / self.negatives.size
        return np.concatenate([up_f, 1.0 - up_f]), np.concatenate([up_t, 1.0 - up_t])

    def tpr_lower(self, fpr):
        """A lower bound (simultaneous, ``confidence``) of the optimal attack's TPR at ``fpr``."""
        return self._bound(fpr, lower=True)

    def tpr_upper(self, fpr):
        """An upper bound (simultaneous) of the best threshold attack's TPR at ``fpr``."""
        return self._bound(fpr, lower=False)

    def _bound(self, fpr, lower: bool):
        a = check_fpr("fpr", fpr)
        f, t = self._roc()
        e = self.margin
        out = np.empty(a.size)
        for k, v in enumerate(a.ravel()):
            ok = (f + e <= v) if lower else (f - e <= v)  # the threshold at +inf (FPR 0) is always there
            best = float(np.max(t[ok])) if ok.any() else -np.inf
            # the test rejecting at random with probability fpr has TPR = fpr: the floor of both
            out[k] = max(v, best - e) if lower else min(1.0, max(v, best + e))
        res = out.reshape(a.shape)
        return float(res) if np.ndim(fpr) == 0 else res

    @property
    def advantage_lower(self) -> float:
        """``max_c |TPR_hat - FPR_hat| - 2 e`` (floored at 0): a lower bound of ``TV(P, Q)``."""
        f, t = self._roc()
        return max(0.0, float(np.max(t - f)) - 2.0 * self.margin)


def simulated_attack(
    model, mechanism, adversary: Adversary, samples: int, *, seed: int = 0, confidence: float = 0.95
) -> SimulatedAttack:
    """Simulate the adversary's attack: ``samples`` outputs under ``x`` and under ``x'``
    (:meth:`DataModel.sample_conditional`, then ``mechanism(data, rng)``); see the module docstring.

    Raises ``ConfigError`` (field ``samples``) unless ``samples`` is an integer >= 100.
    """
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 100:
        raise ConfigError(
            "samples", samples, "must be an integer >= 100 (the Monte Carlo budget per hypothesis)"
        )
    if not isinstance(adversary, Adversary):
        raise TypeError(f"adversary = {adversary!r}: must be a bdpsim.Adversary")
    rng = np.random.default_rng(seed)
    outs = []
    for v in (adversary.x, adversary.x_prime):
        data = model.sample_conditional(adversary.condition(v), int(samples), rng)
        y = np.asarray(mechanism(data, rng), dtype=float)
        if y.ndim != 1:
            raise ConfigError(
                "mechanism",
                type(mechanism).__name__,
                "must have one-dimensional outputs for a simulated threshold attack",
            )
        outs.append(y)
    return SimulatedAttack(outs[0], outs[1], confidence)


__all__ = ["SimulatedAttack", "simulated_attack"]
