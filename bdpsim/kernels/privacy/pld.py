"""Privacy-loss distributions on a grid, rounded pessimistically or optimistically, and their
composition: a certified bracket of every monotone functional of the privacy loss.

For two output laws ``P, Q`` the *privacy loss* is ``L = ln p(Y)/q(Y)`` with ``Y ~ P`` (``+inf``
where ``q = 0 < p``). The hockey-stick divergence and the Rényi divergence are expectations of
non-decreasing functions of ``L``::

    delta(eps) = E_P[(1 - e^{eps - L})^+],      e^{(alpha - 1) D_alpha} = E_P[e^{(alpha - 1) L}],

so moving every bit of mass to a larger loss gives upper bounds, to a smaller loss lower bounds.
:class:`PrivacyLoss` keeps the law of ``L`` on the grid ``h Z`` (plus a mass at ``+inf``) with each
loss rounded *up* (``pessimistic``) or *down* (optimistic), as ``dp_accounting``'s PLD does
(Meiser and Mohammadi 2018; Koskela et al. 2020; Doroshenko et al. 2022). The rounding is a
coupling, and so survives composition: if ``L1' >= L1`` and ``L2' >= L2`` pointwise then
``L1' + L2' >= L1 + L2``; the composition of independent pairs (``P1 x P2`` against ``Q1 x Q2``)
has the privacy loss ``L1 + L2``, whose law is the convolution (:meth:`PrivacyLoss.compose`). So
the pessimistic and optimistic compositions bracket the true values; the bracket's width shrinks
with ``h``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.signal import fftconvolve
from scipy.special import logsumexp

from ..argcheck import require
from .divergences import invert_profile

#: masses below this at either end of a composed pmf are moved (pessimistic: up, or to +inf at the top;
#: optimistic: down, or dropped at the bottom): still a valid bound, far fewer cells
TRIM = 1e-30
#: direct convolution below this many products, FFT above (rounding ~1e-16 of the largest mass)
DIRECT = 4_000_000


@dataclass(frozen=True)
class PrivacyLoss:
    """The law of the privacy loss ``L`` under ``P`` on ``h Z``: ``pmf[k]`` at ``(offset + k) h``
    and ``inf_mass`` at ``+inf``; ``pessimistic``: every loss rounded up (an upper bound of every
    non-decreasing functional), else down (a lower bound)."""

    h: float
    offset: int
    pmf: np.ndarray
    inf_mass: float
    pessimistic: bool

    def __post_init__(self) -> None:
        require(math.isfinite(self.h) and self.h > 0, "h", self.h, "must be a finite number > 0")
        pmf = np.asarray(self.pmf, dtype=float).ravel()
        require(
            bool(np.all(np.isfinite(pmf)) and np.all(pmf >= 0)), "pmf", "entries", "must be finite and >= 0"
        )
        require(0.0 <= self.inf_mass <= 1.0 + 1e-9, "inf_mass", self.inf_mass, "must be in [0, 1]")
        object.__setattr__(self, "pmf", pmf)

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_losses(cls, losses, masses, h: float, pessimistic: bool, inf_mass: float = 0.0) -> PrivacyLoss:
        """From finite losses ``losses`` with masses ``masses`` under ``P`` (``+inf`` losses go to
        ``inf_mass``; ``-inf`` losses, where ``p = 0``, carry no mass)."""
        L = np.asarray(losses, dtype=float).ravel()
        m = np.asarray(masses, dtype=float).ravel()
        require(L.shape == m.shape, "masses", m.shape, f"must have the shape of losses {L.shape}")
        inf = float(inf_mass) + float(m[np.isposinf(L)].sum())
        use = np.isfinite(L) & (m > 0)
        if not use.any():
            return cls(float(h), 0, np.zeros(1), min(inf, 1.0), pessimistic)
        k = np.ceil(L[use] / h - 1e-12) if pessimistic else np.floor(L[use] / h + 1e-12)
        k = k.astype(np.int64)
        lo = int(k.min())
        pmf = np.bincount(k - lo, weights=m[use])
        return cls(float(h), lo, pmf, min(inf, 1.0), pessimistic)._trimmed()

    @classmethod
    def from_cells(
        cls, masses, lower, upper, h: float, pessimistic: bool, inf_mass: float = 0.0
    ) -> PrivacyLoss:
        """From cells of ``P``-mass ``masses`` on which the loss lies in ``[lower, upper]``: the
        pessimistic law puts each cell at ``upper`` (rounded up), the optimistic at ``lower``."""
        return cls.from_losses(upper if pessimistic else lower, masses, h, pessimistic, inf_mass)

    def _trimmed(self) -> PrivacyLoss:
        pmf = self.pmf
        nz = np.flatnonzero(pmf > TRIM * max(float(pmf.max(initial=0.0)), 1e-300))
        if nz.size == 0:
            return PrivacyLoss(self.h, 0, np.zeros(1), self.inf_mass, self.pessimistic)
        a, b = int(nz[0]), int(nz[-1])
        low, high = float(pmf[:a].sum()), float(pmf[b + 1 :].sum())
        out = pmf[a : b + 1].copy()
        inf = self.inf_mass
        if self.pessimistic:
            out[0] += low  # up to the lowest kept loss
            inf += high  # the top: to +inf
        else:
            out[-1] += high  # down to the highest kept loss; the bottom's mass is dropped
        return PrivacyLoss(self.h, self.offset + a, out, min(inf, 1.0), self.pessimistic)

    # ----------------------------------------------------------------- composition
    def compose(self, other: PrivacyLoss) -> PrivacyLoss:
        """The privacy loss of the two pairs side by side (independent outputs): the convolution."""
        require(other.h == self.h, "other.h", other.h, f"must equal h = {self.h}")
        require(other.pessimistic == self.pessimistic, "other.pessimistic", other.pessimistic, "must match")
        a, b = self.pmf, other.pmf
        if a.size * b.size <= DIRECT:
            pmf = np.convolve(a, b)
        else:
            pmf = np.maximum(fftconvolve(a, b), 0.0)
        fin = (1.0 - self.inf_mass) * (1.0 - other.inf_mass)
        return PrivacyLoss(self.h, self.offset + other.offset, pmf, 1.0 - fin, self.pessimistic)._trimmed()

    def self_compose(self, k: int) -> PrivacyLoss:
        """``k`` independent copies side by side (binary powering)."""
        require(isinstance(k, (int, np.integer)) and k >= 1, "k", k, "must be an integer >= 1")
        out: PrivacyLoss | None = None
        base: PrivacyLoss = self
        k = int(k)
        while k:
            if k & 1:
                out = base if out is None else out.compose(base)
            k >>= 1
            if k:
                base = base.compose(base)
        assert out is not None  # k >= 1
        return out

    # ----------------------------------------------------------------- functionals
    @property
    def losses(self) -> np.ndarray:
        return (self.offset + np.arange(self.pmf.size)) * self.h

    def delta(self, epsilon):
        """``delta(eps) = inf_mass + sum pmf (1 - e^{eps - L})^+`` (float or array)."""
        e = np.atleast_1d(np.asarray(epsilon, dtype=float))
        L = self.losses
        out = np.array(
            [self.inf_mass + float(np.sum(self.pmf * np.maximum(-np.expm1(v - L), 0.0))) for v in e]
        )
        out = np.clip(out, 0.0, 1.0)
        return float(out[0]) if np.ndim(epsilon) == 0 else out

    @property
    def bdpl(self) -> float:
        """The largest loss of positive mass (``+inf`` with an infinite mass)."""
        if self.inf_mass > 0:
            return math.inf
        nz = np.flatnonzero(self.pmf > 0)
        return float(self.losses[nz[-1]]) if nz.size else 0.0

    def epsilon(self, delta: float) -> float:
        """The least ``eps >= 0`` with ``delta(eps) <= delta`` (``+inf`` if ``inf_mass > delta``)."""
        if self.inf_mass > float(delta):
            return math.inf
        top = max(self.bdpl, 0.0)
        return invert_profile(lambda e: self.delta(e), delta, top + self.h)

    def renyi(self, alpha: float) -> float:
        """``ln E_P[e^{(alpha - 1) L}] / (alpha - 1)``; ``alpha = inf``: :attr:`bdpl`."""
        a = float(alpha)
        require(a > 1.0, "alpha", alpha, "must be > 1")
        if math.isinf(a):
            return self.bdpl
        if self.inf_mass > 0:
            return math.inf
        use = self.pmf > 0
        return float(logsumexp((a - 1.0) * self.losses[use], b=self.pmf[use]) / (a - 1.0))


@dataclass(frozen=True)
class LossBracket:
    """A pessimistic and an optimistic :class:`PrivacyLoss` of the same pair: every functional as
    ``(lower, upper)``."""

    lower: PrivacyLoss
    upper: PrivacyLoss

    def compose(self, other: LossBracket) -> LossBracket:
        return LossBracket(self.lower.compose(other.lower), self.upper.compose(other.upper))

    def self_compose(self, k: int) -> LossBracket:
        return LossBracket(self.lower.self_compose(k), self.upper.self_compose(k))

    def delta(self, epsilon) -> tuple[float, float]:
        return self.lower.delta(epsilon), self.upper.delta(epsilon)

    def epsilon(self, delta: float) -> tuple[float, float]:
        return self.lower.epsilon(delta), self.upper.epsilon(delta)

    def renyi(self, alpha: float) -> tuple[float, float]:
        return self.lower.renyi(alpha), self.upper.renyi(alpha)

    @classmethod
    def from_losses(cls, losses, masses, h: float, inf_mass: float = 0.0) -> LossBracket:
        return cls(
            PrivacyLoss.from_losses(losses, masses, h, False, inf_mass),
            PrivacyLoss.from_losses(losses, masses, h, True, inf_mass),
        )

    @classmethod
    def from_cells(cls, masses, lower, upper, h: float, inf_mass: float = 0.0) -> LossBracket:
        return cls(
            PrivacyLoss.from_cells(masses, lower, upper, h, False, inf_mass),
            PrivacyLoss.from_cells(masses, lower, upper, h, True, inf_mass),
        )
