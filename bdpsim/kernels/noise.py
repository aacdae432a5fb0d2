"""Noise laws of an additive mechanism ``query + noise``, exact where the model allows.

Every law is a frozen dataclass satisfying :class:`NoiseLaw`. Besides sampling and the density,
each gives the exact quantities the exact engines need for two output laws that are mixtures of the
noise kernel over the SAME atoms ``c_j = j * delta`` (``j = 0..J-1``; rows ``W1, W2`` of shape
``(B, J)``, non-negative, normalised here)::

    p_k(y) = sum_j w_kj kernel(y - c_j)

* :meth:`NoiseLaw.grid_sup` — per row, the signed log-ratio of largest magnitude among
  ``sup_y ln p1/p2`` (positive) and ``sup_y ln p2/p1`` (negative) and where it is attained (an
  atom index as float, or ``±inf`` for a tail), the contract of
  :func:`bdpsim.kernels.window_scan.grid_sup`;
* :meth:`NoiseLaw.grid_delta` — per row, the hockey-stick divergence
  ``delta(eps) = ∫ max(0, p1(y) - e^eps p2(y)) dy`` (a sum for discrete noise), the privacy profile
  of SCIENCE.md §5.4;
* :meth:`NoiseLaw.sup_log_ratio` / :meth:`NoiseLaw.hockey_stick` — the same for two arbitrary atom
  sets (one pair, not batched).

How each law computes them is in its class docstring and in :mod:`.exp_kernels`,
:mod:`.staircase` and :mod:`.gaussian_mixture`.

**Monotonicity in the noise parameter** (used by calibration by bisection). If noise ``N2`` is
``N1 + W`` with ``W`` independent, both output laws given the adversary's knowledge become mixtures
of shifted copies with common weights, so ``sup ln p1/p2`` cannot grow (a ratio of mixtures with
common weights is at most the largest ratio of its parts) and neither can ``delta(eps)`` (the
hockey-stick divergence is an f-divergence: data processing). Per law:

* Laplace: ``Lap(b2) = Lap(b1) + W`` for ``b2 > b1`` (SCIENCE.md §5.2): BDPL and ``delta``
  non-increasing in ``scale``.
* Gaussian: ``N(0, s2^2) = N(0, s1^2) + N(0, s2^2 - s1^2)``: ``delta`` non-increasing in ``sigma``.
* Geometric: proved here. The two-sided geometric law with ``q = e^{-epsilon}`` is ``G - G'``
  with ``G, G'`` i.i.d. one-sided geometric, ``P(G = k) = (1 - q) q^k``, whose generating function is
  ``(1 - q)/(1 - q z)``. For ``q2 > q1``, ``(1-q2)/(1-q2 z) / ((1-q1)/(1-q1 z)) =
  (1-q2)/(1-q1) * [1 + sum_{k>=1} (q2 - q1) q2^{k-1} z^k]`` has non-negative coefficients summing to
  1: it is the law of a ``W >= 0``. So ``Geom(q2) = Geom(q1) + W - W'`` (``W, W'`` i.i.d.), and the
  BDPL and ``delta`` are non-increasing as ``epsilon`` decreases (checked numerically too).
* Staircase: no such decomposition is known to us (the density has jumps at ``(k + gamma) Delta``
  that move with ``gamma``); the tests check monotonicity in ``epsilon`` numerically on random
  mixtures, for fixed ``gamma`` and for ``gamma*(epsilon)`` (see ``tests/test_noise_kernels.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import ConfigError, check
from . import exp_kernels as ek
from . import gaussian_mixture as gm
from . import staircase as sc
from .laplace_mixture import MixtureSup, mixture_sup


@runtime_checkable
class NoiseLaw(Protocol):
    """What an additive noise law provides (see the module docstring)."""

    name: str
    discrete: bool
    parameter_name: str
    noise_grows_with_parameter: bool

    @property
    def parameter(self) -> float: ...

    def with_parameter(self, value: float) -> "NoiseLaw": ...

    def sample(self, size, rng: np.random.Generator) -> np.ndarray: ...

    def log_density(self, y) -> np.ndarray: ...

    def cdf(self, y) -> np.ndarray: ...

    def dp_epsilon(self, sensitivity: float) -> float: ...

    def grid_sup(self, W1, W2, delta: float) -> tuple[np.ndarray, np.ndarray]: ...

    def grid_delta(self, W1, W2, delta: float, epsilon: float) -> np.ndarray: ...

    def sup_log_ratio(self, atoms1, w1, atoms2, w2) -> MixtureSup: ...

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon: float) -> float: ...


# ----------------------------------------------------------------------------- input checks

def _positive(field_name: str, value) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    check(ok and math.isfinite(float(value)) and float(value) > 0, field_name, value,
          "must be a finite number > 0")
    return float(value)


def _rows(W1, W2) -> tuple[np.ndarray, np.ndarray]:
    """Validated, row-normalised float copies of ``W1, W2`` (1-D input is one row)."""
    out = []
    for name, W in (("W1", W1), ("W2", W2)):
        a = np.array(W, dtype=float)
        if a.ndim == 1:
            a = a[None, :]
        check(a.ndim == 2 and a.shape[1] >= 1, name, a.shape, "must have shape (B, J), J >= 1")
        check(bool(np.all(np.isfinite(a))) and bool(np.all(a >= 0)), name, "...",
              "weights must be finite and >= 0")
        s = a.sum(axis=1)
        check(bool(np.all(s > 0)), name, "...", "every row needs a positive total weight")
        out.append(a / s[:, None])
    check(out[0].shape == out[1].shape, "W2", out[1].shape, f"must have the shape of W1 {out[0].shape}")
    return out[0], out[1]


def _lattice(delta: float, J: int) -> np.ndarray:
    return np.arange(J, dtype=float) * _positive("delta", delta)


def _profile_eps(epsilon) -> float:
    ok = isinstance(epsilon, (int, float, np.integer, np.floating)) and not isinstance(epsilon, bool)
    check(ok and math.isfinite(float(epsilon)), "epsilon_profile", epsilon, "must be a finite number")
    return float(epsilon)


def _pair(atoms1, w1, atoms2, w2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Union of two atom sets with the weights of each mixture on it (one row each)."""
    a1, a2 = np.asarray(atoms1, dtype=float).ravel(), np.asarray(atoms2, dtype=float).ravel()
    v1, v2 = np.asarray(w1, dtype=float).ravel(), np.asarray(w2, dtype=float).ravel()
    check(a1.shape == v1.shape and a1.size > 0, "atoms1", a1.size, "atoms and weights must match, non-empty")
    check(a2.shape == v2.shape and a2.size > 0, "atoms2", a2.size, "atoms and weights must match, non-empty")
    check(bool(np.all(np.isfinite(np.concatenate([a1, a2])))), "atoms", "...", "must be finite")
    c, inv = np.unique(np.concatenate([a1, a2]), return_inverse=True)
    W = np.zeros((2, c.size))
    np.add.at(W[0], inv[:a1.size], v1)
    np.add.at(W[1], inv[a1.size:], v2)
    W1, W2 = _rows(W[:1], W[1:])
    return c, W1, W2


def _sup_result(fwd: float, bwd: float, wf: float, wb: float) -> MixtureSup:
    return MixtureSup(max(fwd, bwd), fwd, bwd, wf if fwd >= bwd else wb)


def _signed(fwd, bwd, af, ab) -> tuple[np.ndarray, np.ndarray]:
    val, fw = ek.signed_sup(np.asarray(fwd, dtype=float), np.asarray(bwd, dtype=float))
    return val, np.where(fw, af, ab).astype(float)


# ----------------------------------------------------------------------------- Laplace

@dataclass(frozen=True)
class LaplaceNoise:
    """``Lap(b)``: density ``e^{-|y|/b} / 2b``; ``query + Lap(b)`` is ``(Delta/b)``-DP.

    Exact functions: :meth:`grid_sup` delegates to :func:`bdpsim.kernels.window_scan.grid_sup`
    (atoms in lattice units, ``b / delta``); :meth:`grid_delta` integrates the positive part of
    ``p1 - e^eps p2`` in closed form per gap (:func:`.exp_kernels.laplace_delta`). Calibration
    parameter: ``scale`` (more noise as it grows; BDPL and ``delta`` non-increasing, §5.2).
    """

    scale: float
    name: str = field(default="laplace", init=False)
    discrete: bool = field(default=False, init=False)
    parameter_name: str = field(default="scale", init=False)
    noise_grows_with_parameter: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", _positive("mechanism.scale", self.scale))

    @property
    def parameter(self) -> float:
        return self.scale

    def with_parameter(self, value: float) -> "LaplaceNoise":
        return replace(self, scale=value)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return rng.laplace(0.0, self.scale, size)

    def log_density(self, y) -> np.ndarray:
        return -np.abs(np.asarray(y, dtype=float)) / self.scale - math.log(2.0 * self.scale)

    def cdf(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        return np.where(y < 0, 0.5 * np.exp(np.minimum(y, 0.0) / self.scale),
                        1.0 - 0.5 * np.exp(-np.maximum(y, 0.0) / self.scale))

    def dp_epsilon(self, sensitivity: float) -> float:
        d = _sensitivity(sensitivity)
        return d / self.scale

    def grid_sup(self, W1, W2, delta: float):
        from .window_scan import grid_sup

        A, B = _rows(W1, W2)
        return grid_sup(A, B, self.scale / _positive("delta", delta))

    def grid_delta(self, W1, W2, delta: float, epsilon: float) -> np.ndarray:
        A, B = _rows(W1, W2)
        z = _lattice(delta, A.shape[1]) / self.scale
        return ek.laplace_delta(A, B, z, _profile_eps(epsilon))

    def sup_log_ratio(self, atoms1, w1, atoms2, w2) -> MixtureSup:
        _pair(atoms1, w1, atoms2, w2)  # same validation as the other laws
        return mixture_sup(atoms1, w1, atoms2, w2, self.scale)

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon: float) -> float:
        c, A, B = _pair(atoms1, w1, atoms2, w2)
        return float(ek.laplace_delta(A, B, c / self.scale, _profile_eps(epsilon))[0])


def _sensitivity(sensitivity) -> float:
    ok = isinstance(sensitivity, (int, float, np.integer, np.floating)) and not isinstance(sensitivity, bool)
    check(ok and math.isfinite(float(sensitivity)) and float(sensitivity) >= 0, "mechanism.sensitivity",
          sensitivity, "must be a finite number >= 0")
    return float(sensitivity)


# ----------------------------------------------------------------------------- geometric

@dataclass(frozen=True)
class GeometricNoise:
    """Two-sided geometric noise on ``step * Z``: ``P(step k) = (1-q)/(1+q) q^{|k|}``, ``q = e^{-epsilon}``.

    ``query + noise`` is ``epsilon * Delta/step``-DP when the sensitivity ``Delta`` is a multiple of
    ``step`` (and not DP at all otherwise: the two output supports are disjoint shifts).

    Exact functions. Atoms whose positions differ by a multiple of ``step`` form a class; outputs of
    different classes never coincide, so both mixtures split over classes
    (:func:`.exp_kernels.geometric_classes`; ``step`` and ``delta`` need not be commensurate — an
    incommensurate pair just gives more classes). Within a class the pmf at integer ``k`` is
    ``C sum_i w_i q^{|k - k_i|}``: between two atoms of either mixture both are
    ``A q^k + B q^{-k}``, the ratio is monotone, and beyond the extreme atoms it is constant; so
    ``sup ln p1/p2`` is a max over the atoms (``+inf`` where one mixture has no mass in a class the
    other has), and ``delta`` is a sum over atoms plus closed-form geometric series over the gaps
    and tails (:func:`.exp_kernels.geometric_delta`). Calibration parameter: ``epsilon`` (more noise as
    it decreases; BDPL and ``delta`` non-increasing then, proved in the module docstring).
    """

    epsilon: float
    step: float = 1.0
    name: str = field(default="geometric", init=False)
    discrete: bool = field(default=True, init=False)
    parameter_name: str = field(default="epsilon", init=False)
    noise_grows_with_parameter: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _positive("mechanism.epsilon", self.epsilon))
        object.__setattr__(self, "step", _positive("mechanism.step", self.step))

    @property
    def q(self) -> float:
        return math.exp(-self.epsilon)

    @property
    def parameter(self) -> float:
        return self.epsilon

    def with_parameter(self, value: float) -> "GeometricNoise":
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
        return np.where(k < 0, np.exp(self.epsilon * np.minimum(k, 0.0)) / (1 + q),
                        1.0 - np.exp(-self.epsilon * (np.maximum(k, 0.0) + 1)) / (1 + q))

    def dp_epsilon(self, sensitivity: float) -> float:
        d = _sensitivity(sensitivity) / self.step
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

    def grid_sup(self, W1, W2, delta: float):
        A, B = _rows(W1, W2)
        c = _lattice(delta, A.shape[1])
        fwd, bwd, af, ab = self._sup(A, B, c)
        return _signed(fwd, bwd, af / float(delta), ab / float(delta))

    def grid_delta(self, W1, W2, delta: float, epsilon: float) -> np.ndarray:
        A, B = _rows(W1, W2)
        return self._delta(A, B, _lattice(delta, A.shape[1]), _profile_eps(epsilon))

    def sup_log_ratio(self, atoms1, w1, atoms2, w2) -> MixtureSup:
        c, A, B = _pair(atoms1, w1, atoms2, w2)
        fwd, bwd, af, ab = self._sup(A, B, c)
        return _sup_result(float(fwd[0]), float(bwd[0]), float(af[0]), float(ab[0]))

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon: float) -> float:
        c, A, B = _pair(atoms1, w1, atoms2, w2)
        return float(self._delta(A, B, c, _profile_eps(epsilon))[0])


# ----------------------------------------------------------------------------- staircase

@dataclass(frozen=True)
class StaircaseNoise:
    """Geng & Viswanath's staircase noise (density in :mod:`.staircase`), ``epsilon``-DP for a query
    of sensitivity ``Delta = sensitivity``; ``gamma = None`` means ``gamma* = 1/(1 + e^{epsilon/2})``.

    Sampling (Geng & Viswanath, Algorithm 1): sign ``S = ±1``, ``G ~ Geom(1 - b)`` on ``{0, 1, ..}``,
    ``B ~ Bernoulli(1 - gamma/(gamma + (1 - gamma) b))``, ``U ~ U(0, 1)``;
    ``X = S Delta [(1 - B)(G + gamma U) + B (G + gamma + (1 - gamma) U)]``.

    Exact functions: piecewise-constant ratio with breakpoints ``c_j ± (k + gamma) Delta``, periodic
    with period ``Delta`` beyond the extreme atoms — one period past each end covers the tails
    (:mod:`.staircase`). Calibration parameter: ``epsilon`` (more noise as it decreases; monotonicity
    of the BDPL checked numerically only, see the module docstring).
    """

    epsilon: float
    gamma: float | None = None
    sensitivity: float = 1.0
    name: str = field(default="staircase", init=False)
    discrete: bool = field(default=False, init=False)
    parameter_name: str = field(default="epsilon", init=False)
    noise_grows_with_parameter: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _positive("mechanism.epsilon", self.epsilon))
        object.__setattr__(self, "sensitivity", _positive("mechanism.sensitivity", self.sensitivity))
        if self.gamma is not None:
            g = self.gamma
            ok = isinstance(g, (int, float, np.integer, np.floating)) and not isinstance(g, bool)
            check(ok and math.isfinite(float(g)) and 0.0 <= float(g) <= 1.0, "mechanism.staircase_gamma",
                  g, "must be a number in [0, 1]")
            object.__setattr__(self, "gamma", float(g))

    @property
    def g(self) -> float:
        """The ``gamma`` in use."""
        return sc.default_gamma(self.epsilon) if self.gamma is None else self.gamma

    @property
    def parameter(self) -> float:
        return self.epsilon

    def with_parameter(self, value: float) -> "StaircaseNoise":
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
        half = 0.5 * (1.0 - bk) + bk * a * (np.minimum(r, g * D) + math.exp(-eps) * np.maximum(r - g * D, 0.0))
        return np.where(y >= 0, 0.5 + half, 0.5 - half)

    def dp_epsilon(self, sensitivity: float) -> float:
        d = _sensitivity(sensitivity) / self.sensitivity
        return self.epsilon * math.ceil(d - 1e-12) if d > 0 else 0.0

    def _sup(self, A, B, c):
        return sc.stair_sup(A, B, c, self.epsilon, self.g, self.sensitivity)

    def grid_sup(self, W1, W2, delta: float):
        A, B = _rows(W1, W2)
        fwd, bwd, wf, wb = self._sup(A, B, _lattice(delta, A.shape[1]))
        return _signed(fwd, bwd, wf / float(delta), wb / float(delta))

    def grid_delta(self, W1, W2, delta: float, epsilon: float) -> np.ndarray:
        A, B = _rows(W1, W2)
        return sc.stair_delta(A, B, _lattice(delta, A.shape[1]), self.epsilon, self.g, self.sensitivity,
                              _profile_eps(epsilon))

    def sup_log_ratio(self, atoms1, w1, atoms2, w2) -> MixtureSup:
        c, A, B = _pair(atoms1, w1, atoms2, w2)
        fwd, bwd, wf, wb = self._sup(A, B, c)
        return _sup_result(float(fwd[0]), float(bwd[0]), float(wf[0]), float(wb[0]))

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon: float) -> float:
        c, A, B = _pair(atoms1, w1, atoms2, w2)
        return float(sc.stair_delta(A, B, c, self.epsilon, self.g, self.sensitivity, _profile_eps(epsilon))[0])


# ----------------------------------------------------------------------------- Gaussian

@dataclass(frozen=True)
class GaussianNoise:
    """``N(0, sigma^2)``. Not pure DP for any ``sigma`` (``dp_epsilon = inf`` for a sensitivity > 0).

    Exact functions (:mod:`.gaussian_mixture`): the pure sup is ``+inf`` unless the two mixtures
    have the same lowest and highest atom with positive weight (the normal tails make the ratio
    diverge otherwise); when they do, it is finite and found by a grid plus Brent's method.
    ``delta(eps)`` uses ``brentq`` for the crossings of ``ln p1/p2 = eps`` and normal CDFs between
    them. Calibration parameter: ``sigma`` (more noise as it grows; ``delta`` non-increasing).
    """

    sigma: float
    name: str = field(default="gaussian", init=False)
    discrete: bool = field(default=False, init=False)
    parameter_name: str = field(default="sigma", init=False)
    noise_grows_with_parameter: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", _positive("mechanism.sigma", self.sigma))

    @property
    def parameter(self) -> float:
        return self.sigma

    def with_parameter(self, value: float) -> "GaussianNoise":
        return replace(self, sigma=value)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return rng.normal(0.0, self.sigma, size)

    def log_density(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        return -0.5 * (y / self.sigma) ** 2 - math.log(self.sigma * math.sqrt(2.0 * math.pi))

    def cdf(self, y) -> np.ndarray:
        from scipy.special import ndtr

        return ndtr(np.asarray(y, dtype=float) / self.sigma)

    def dp_epsilon(self, sensitivity: float) -> float:
        return math.inf if _sensitivity(sensitivity) > 0 else 0.0

    def _sup(self, A, B, c):
        res = [gm.gauss_sup_row(A[i], B[i], c, self.sigma) for i in range(A.shape[0])]
        return tuple(np.array(v, dtype=float) for v in zip(*res))

    def grid_sup(self, W1, W2, delta: float):
        A, B = _rows(W1, W2)
        fwd, bwd, wf, wb = self._sup(A, B, _lattice(delta, A.shape[1]))
        return _signed(fwd, bwd, wf / float(delta), wb / float(delta))

    def grid_delta(self, W1, W2, delta: float, epsilon: float) -> np.ndarray:
        A, B = _rows(W1, W2)
        c, e = _lattice(delta, A.shape[1]), _profile_eps(epsilon)
        return np.array([gm.gauss_delta_row(A[i], B[i], c, self.sigma, e) for i in range(A.shape[0])])

    def sup_log_ratio(self, atoms1, w1, atoms2, w2) -> MixtureSup:
        c, A, B = _pair(atoms1, w1, atoms2, w2)
        fwd, bwd, wf, wb = gm.gauss_sup_row(A[0], B[0], c, self.sigma)
        return _sup_result(fwd, bwd, wf, wb)

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon: float) -> float:
        c, A, B = _pair(atoms1, w1, atoms2, w2)
        return gm.gauss_delta_row(A[0], B[0], c, self.sigma, _profile_eps(epsilon))


# ----------------------------------------------------------------------------- registry

NOISE_LAWS: dict[str, type] = {"laplace": LaplaceNoise, "geometric": GeometricNoise,
                               "staircase": StaircaseNoise, "gaussian": GaussianNoise}


def noise_from_params(name: str, epsilon=None, sensitivity=1.0, scale=None, sigma=None,
                      staircase_gamma=None, step=1.0) -> NoiseLaw:
    """Build a noise law from config-style parameters (errors name the ``mechanism.*`` field).

    * ``laplace``: ``scale``, or ``epsilon`` with ``scale = sensitivity / epsilon``;
    * ``geometric``: ``epsilon`` for a query of this ``sensitivity`` (a multiple of ``step``): the
      per-step rate is ``epsilon * step / sensitivity``;
    * ``staircase``: ``epsilon``, ``staircase_gamma`` (default ``gamma*``), ``sensitivity``;
    * ``gaussian``: ``sigma``.
    """
    check(name in NOISE_LAWS, "mechanism.noise", name, f"must be one of {sorted(NOISE_LAWS)}")
    sens = _positive("mechanism.sensitivity", sensitivity)
    unused = {"laplace": ("sigma", "staircase_gamma"), "geometric": ("scale", "sigma", "staircase_gamma"),
              "staircase": ("scale", "sigma"), "gaussian": ("epsilon", "scale", "staircase_gamma")}[name]
    given = {"epsilon": epsilon, "scale": scale, "sigma": sigma, "staircase_gamma": staircase_gamma}
    for key in unused:
        check(given[key] is None, f"mechanism.{key}", given[key], f"is not a parameter of {name} noise")
    if name == "laplace":
        check((scale is None) != (epsilon is None), "mechanism.scale", scale,
              "give exactly one of mechanism.scale and mechanism.epsilon for laplace noise")
        if scale is not None:
            return LaplaceNoise(scale)
        return LaplaceNoise(sens / _positive("mechanism.epsilon", epsilon))
    if name == "geometric":
        check(epsilon is not None, "mechanism.epsilon", epsilon, "is required for geometric noise")
        st = _positive("mechanism.step", step)
        m = sens / st
        check(abs(m - round(m)) <= 1e-9 * max(1.0, m) and round(m) >= 1, "mechanism.sensitivity", sensitivity,
              f"must be a positive multiple of mechanism.step = {st} for geometric noise")
        return GeometricNoise(_positive("mechanism.epsilon", epsilon) / round(m), st)
    if name == "staircase":
        check(epsilon is not None, "mechanism.epsilon", epsilon, "is required for staircase noise")
        return StaircaseNoise(epsilon, staircase_gamma, sens)
    check(sigma is not None, "mechanism.sigma", sigma, "is required for gaussian noise")
    return GaussianNoise(sigma)


__all__ = ["NoiseLaw", "LaplaceNoise", "GeometricNoise", "StaircaseNoise", "GaussianNoise",
           "NOISE_LAWS", "noise_from_params", "ConfigError", "MixtureSup"]
