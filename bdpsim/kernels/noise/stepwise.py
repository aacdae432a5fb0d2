"""Geometric and staircase noise laws (see :mod:`bdpsim.kernels.noise.laws` for the protocol and the
monotonicity study)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import ClassVar, cast

import numpy as np

from ...core.schema import Key
from ..argcheck import ParameterError, require
from . import exp_kernels as ek
from . import staircase as sc
from .checks import (
    MAX_DP_EPSILON,
    AtomKernelLaw,
    NoiseParams,
    check_sensitivity,
    lattice,
    positive,
    profile_epsilons,
    rows,
)
from .traits import GEOMETRIC, STAIRCASE, LawTraits

# ----------------------------------------------------------------------------- geometric


@dataclass(frozen=True)
class GeometricNoise(AtomKernelLaw):
    """Two-sided geometric noise on ``step * Z``: ``P(step k) = (1-q)/(1+q) q^{|k|}``, ``q = e^{-epsilon}``.

    ``query + noise`` is ``epsilon * Delta/step``-DP when the sensitivity ``Delta`` is a multiple of
    ``step`` (and not DP at all otherwise: the two output supports are disjoint shifts).

    Exact functions. Atoms whose positions differ by a multiple of ``step`` form a class; outputs of
    different classes never coincide, so both mixtures split over classes
    (:func:`bdpsim.kernels.noise.exp_kernels.geometric_classes`; ``step`` and ``delta`` need not be
    commensurate — an
    incommensurate pair just gives more classes). Within a class the pmf at integer ``k`` is
    ``C sum_i w_i q^{|k - k_i|}``: between two atoms of either mixture both are
    ``A q^k + B q^{-k}``, the ratio is monotone, and beyond the extreme atoms it is constant; so
    ``sup ln p1/p2`` is a max over the atoms (``+inf`` where one mixture has no mass in a class the
    other has), and ``delta`` is a sum over atoms plus closed-form geometric series over the gaps
    and tails (:func:`bdpsim.kernels.noise.exp_kernels.geometric_delta`). Calibration parameter:
    ``epsilon`` (more noise as
    it decreases; BDPL and ``delta`` non-increasing then; proof in :mod:`bdpsim.kernels.noise.laws`).
    """

    epsilon: float
    step: float = 1.0
    name: str = field(default=GEOMETRIC.name, init=False)
    discrete: bool = field(default=True, init=False)
    parameter_name: str = field(default=GEOMETRIC.amount, init=False)
    noise_grows_with_parameter: bool = field(default=GEOMETRIC.grows, init=False)
    traits: ClassVar[LawTraits] = GEOMETRIC
    calibratable: ClassVar[bool] = GEOMETRIC.calibratable
    pure_dp: ClassVar[bool] = GEOMETRIC.pure_dp
    keys: ClassVar[Mapping[str, Key]] = {}  # its amount is epsilon

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive("epsilon", self.epsilon))
        object.__setattr__(self, "step", positive("step", self.step))

    def mean_abs(self) -> float:
        """``E|Z| = step 2q/(1 - q^2)``, ``q = e^{-epsilon}``."""
        q = math.exp(-self.epsilon)
        return float(self.step) * 2.0 * q / (1.0 - q * q)

    @classmethod
    def from_params(cls, params: NoiseParams) -> GeometricNoise:
        """``epsilon`` for a query of this ``sensitivity`` (a multiple of ``step``): the per-step
        rate is ``epsilon * step / sensitivity``."""
        sens = params.only(GEOMETRIC.name, ("epsilon",))
        require(params.epsilon is not None, "epsilon", params.epsilon, "is required for geometric noise")
        st = positive("step", params.step)
        m = sens / st
        require(
            abs(m - round(m)) <= 1e-9 * max(1.0, m) and round(m) >= 1,
            "sensitivity",
            params.sensitivity,
            f"must be a positive multiple of step = {st} for geometric noise",
        )
        return cls(positive("epsilon", params.epsilon) / round(m), st)

    @property
    def q(self) -> float:
        return math.exp(-self.epsilon)

    @property
    def parameter(self) -> float:
        return self.epsilon

    def with_parameter(self, value: float) -> GeometricNoise:
        return replace(self, epsilon=value)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        p = -math.expm1(-self.epsilon)
        k = rng.geometric(p, size) - rng.geometric(p, size)
        return k.astype(float) * self.step

    def _k(self, y) -> tuple[np.ndarray, np.ndarray]:
        u = np.asarray(y, dtype=float) / self.step
        k = np.rint(u)
        return k, np.abs(u - k) <= 1e-9 * np.maximum(1.0, np.abs(u))

    def log_density(self, y) -> np.ndarray:
        """``ln P(Y = y)`` on the lattice ``step * Z`` (``-inf`` off it)."""
        k, on = self._k(y)
        lc = math.log(-math.expm1(-self.epsilon)) - math.log1p(self.q)
        return np.where(on, lc - self.epsilon * np.abs(k), -np.inf)

    def cdf(self, y) -> np.ndarray:
        k = np.floor(np.asarray(y, dtype=float) / self.step + 1e-9)
        q = self.q
        return np.where(
            k < 0,
            np.exp(self.epsilon * np.minimum(k, 0.0)) / (1 + q),
            1.0 - np.exp(-self.epsilon * (np.maximum(k, 0.0) + 1)) / (1 + q),
        )

    def dp_epsilon(self, sensitivity: float) -> float:
        d = check_sensitivity(sensitivity) / self.step
        m = round(d)
        if abs(d - m) > 1e-9 * max(1.0, d):
            return math.inf
        return self.epsilon * m

    def _sup(self, A, B, c):
        B_ = A.shape[0]
        fwd, bwd = np.full(B_, -np.inf), np.full(B_, -np.inf)
        af, ab = np.zeros(B_), np.zeros(B_)
        for idx, k in ek.geometric_classes(c, self.step):
            f, jf, b, jb = ek.atom_sup(A[:, idx], B[:, idx], self.epsilon * k.astype(float))
            up, dn = f > fwd, b > bwd
            fwd, af = np.where(up, f, fwd), np.where(up, c[idx][jf], af)
            bwd, ab = np.where(dn, b, bwd), np.where(dn, c[idx][jb], ab)
        return fwd, bwd, af, ab

    def _delta(self, A, B, c, eps):
        total = np.zeros(A.shape[0])
        for idx, k in ek.geometric_classes(c, self.step):
            total += ek.geometric_delta(A[:, idx], B[:, idx], k, self.epsilon, eps)
        return np.minimum(total, 1.0)

    def prepare_deltas(self, W1, W2, delta: float):
        """``(epsilons, subset=None) -> (forward, backward)``: both directions of the privacy profile
        of these rows (or the rows ``subset`` of them) at several ``eps`` (shape ``(m,)``, or
        ``(rows, m)``: one per row), each ``(rows, m)``, each class's sides computed once
        (:func:`~bdpsim.kernels.noise.exp_kernels.geometric_prepared`)."""
        A, B = rows(W1, W2)
        c = lattice(delta, A.shape[1])
        parts = [
            ek.geometric_prepared(A[:, idx], B[:, idx], k, self.epsilon)
            for idx, k in ek.geometric_classes(c, self.step)
        ]

        def at(epsilons, subset=None) -> tuple[np.ndarray, np.ndarray]:
            ee = np.exp(profile_epsilons(epsilons))
            n = A.shape[0] if subset is None else np.arange(A.shape[0])[subset].size
            fwd = np.zeros((n, ee.shape[-1]))
            bwd = np.zeros_like(fwd)
            for part in parts:
                f, b = part(ee, subset)
                fwd += f
                bwd += b
            return np.minimum(fwd, 1.0), np.minimum(bwd, 1.0)

        def bound() -> np.ndarray:  # each row's BDPL: the largest over its classes
            return np.max(np.stack([part.bdpl_bound() for part in parts]), axis=0)

        at.bdpl_bound = bound  # type: ignore[attr-defined]
        return at


# ----------------------------------------------------------------------------- staircase


@dataclass(frozen=True)
class StaircaseNoise(AtomKernelLaw):
    """Geng & Viswanath's staircase noise (density in :mod:`bdpsim.kernels.noise.staircase`),
    ``epsilon``-DP for a query
    of sensitivity ``Delta = sensitivity``; ``gamma = None`` means ``gamma* = 1/(1 + e^{epsilon/2})``.

    Sampling (Geng & Viswanath, Algorithm 1): sign ``S = ±1``, ``G ~ Geom(1 - b)`` on ``{0, 1, ..}``,
    ``B ~ Bernoulli(1 - gamma/(gamma + (1 - gamma) b))``, ``U ~ U(0, 1)``;
    ``X = S Delta [(1 - B)(G + gamma U) + B (G + gamma + (1 - gamma) U)]``.

    Exact functions: piecewise-constant ratio with breakpoints ``c_j ± (k + gamma) Delta``, periodic
    with period ``Delta`` beyond the extreme atoms — one period past each end covers the tails
    (:mod:`bdpsim.kernels.noise.staircase`). Calibration parameter: ``epsilon`` (more noise as it
    decreases; monotonicity
    of the BDPL checked numerically only, see :mod:`bdpsim.kernels.noise.laws`).
    """

    epsilon: float
    gamma: float | None = None
    sensitivity: float = 1.0
    name: str = field(default=STAIRCASE.name, init=False)
    discrete: bool = field(default=False, init=False)
    parameter_name: str = field(default=STAIRCASE.amount, init=False)
    noise_grows_with_parameter: bool = field(default=STAIRCASE.grows, init=False)
    traits: ClassVar[LawTraits] = STAIRCASE
    calibratable: ClassVar[bool] = STAIRCASE.calibratable
    pure_dp: ClassVar[bool] = STAIRCASE.pure_dp
    keys: ClassVar[Mapping[str, Key]] = {
        "staircase_gamma": Key(
            "float", hashed=False, doc="staircase noise: its gamma (absent: gamma*)", rule="in [0, 1]"
        )
    }

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive("epsilon", self.epsilon))
        require(
            self.epsilon <= MAX_DP_EPSILON,
            "epsilon",
            self.epsilon,
            f"must be at most {MAX_DP_EPSILON:g} (e^eps overflows double precision past ~709.8: "
            "staircase noise that sharp leaves no noise)",
        )
        object.__setattr__(self, "sensitivity", positive("sensitivity", self.sensitivity))
        if self.gamma is not None:
            g = self.gamma
            ok = isinstance(g, (int, float, np.integer, np.floating)) and not isinstance(g, bool)
            require(
                ok and math.isfinite(float(g)) and 0.0 <= float(g) <= 1.0,
                "gamma",
                g,
                "must be a number in [0, 1]",
            )
            object.__setattr__(self, "gamma", float(g))

    @classmethod
    def from_params(cls, params: NoiseParams) -> StaircaseNoise:
        """``epsilon``, ``staircase_gamma`` (default ``gamma*``) and ``sensitivity``."""
        sens = params.only(STAIRCASE.name, ("epsilon", "staircase_gamma"))
        require(params.epsilon is not None, "epsilon", params.epsilon, "is required for staircase noise")
        try:
            return cls(cast(float, params.epsilon), params.staircase_gamma, sens)  # checked in __post_init__
        except ParameterError as exc:  # this class's ``gamma`` is the parameters' ``staircase_gamma``
            if exc.param != "gamma":
                raise
            raise ParameterError("staircase_gamma", exc.value, exc.rule) from None

    @property
    def g(self) -> float:
        """The ``gamma`` in use."""
        return sc.default_gamma(self.epsilon) if self.gamma is None else self.gamma

    def mean_abs(self) -> float:
        """``E|Z| = 2 sum_k a e^{-eps k} [((k+g)^2 - k^2) + e^{-eps} ((k+1)^2 - (k+g)^2)] Delta^2 / 2``
        (the density ``a e^{-eps k}`` on ``[k, k+g) Delta`` and ``a e^{-eps(k+1)}`` on
        ``[k+g, k+1) Delta``), summed until the terms are below ``1e-300``."""
        eps, g, D = self.epsilon, self.g, self.sensitivity
        k = np.arange(int(700.0 / eps) + 2, dtype=float)
        inner = ((k + g) ** 2 - k**2) + math.exp(-eps) * ((k + 1) ** 2 - (k + g) ** 2)
        return float(math.exp(sc.log_a(eps, g, D)) * D * D * np.sum(np.exp(-eps * k) * inner))

    @property
    def parameter(self) -> float:
        return self.epsilon

    def with_parameter(self, value: float) -> StaircaseNoise:
        return replace(self, epsilon=value)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        b, g, D = math.exp(-self.epsilon), self.g, self.sensitivity
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        G = rng.geometric(-math.expm1(-self.epsilon), size) - 1.0
        U = rng.random(size)
        upper = rng.random(size) >= g / (g + (1.0 - g) * b)
        x = np.where(upper, G + g + (1.0 - g) * U, G + g * U)
        return sign * D * x

    def log_density(self, y) -> np.ndarray:
        L = sc.levels(np.asarray(y, dtype=float), self.g, self.sensitivity)
        return sc.log_a(self.epsilon, self.g, self.sensitivity) - self.epsilon * L

    def cdf(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        t = np.abs(y)
        D, g, eps = self.sensitivity, self.g, self.epsilon
        a = math.exp(sc.log_a(eps, g, D))
        k = np.floor(t / D)
        r = t - k * D
        bk = np.exp(-eps * k)
        half = 0.5 * (1.0 - bk) + bk * a * (
            np.minimum(r, g * D) + math.exp(-eps) * np.maximum(r - g * D, 0.0)
        )
        return np.where(y >= 0, 0.5 + half, 0.5 - half)

    def dp_epsilon(self, sensitivity: float) -> float:
        d = check_sensitivity(sensitivity) / self.sensitivity
        return self.epsilon * math.ceil(d - 1e-12) if d > 0 else 0.0

    def _sup(self, A, B, c):
        return sc.stair_sup(A, B, c, self.epsilon, self.g, self.sensitivity)

    def _delta(self, A, B, c, eps):
        return sc.stair_delta(A, B, c, self.epsilon, self.g, self.sensitivity, eps)
