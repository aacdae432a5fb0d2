"""Input checks and small helpers shared by the noise laws of :mod:`bdpsim.kernels.noise.laws`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..argcheck import require
from . import exp_kernels as ek
from .laplace_mixture import MixtureSup


def positive(param: str, value) -> float:
    """``value`` as a float, or a :class:`~bdpsim.kernels.argcheck.ParameterError` naming ``param``
    unless finite and > 0."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    require(
        ok and math.isfinite(float(value)) and float(value) > 0, param, value, "must be a finite number > 0"
    )
    return float(value)


def rows(W1, W2) -> tuple[np.ndarray, np.ndarray]:
    """Validated, row-normalised float copies of ``W1, W2`` (1-D input is one row)."""
    out = []
    for name, W in (("W1", W1), ("W2", W2)):
        a = np.array(W, dtype=float)
        if a.ndim == 1:
            a = a[None, :]
        require(a.ndim == 2 and a.shape[1] >= 1, name, a.shape, "must have shape (B, J), J >= 1")
        require(
            bool(np.all(np.isfinite(a))) and bool(np.all(a >= 0)),
            name,
            "...",
            "weights must be finite and >= 0",
        )
        s = a.sum(axis=1)
        require(bool(np.all(s > 0)), name, "...", "every row needs a positive total weight")
        out.append(a / s[:, None])
    require(out[0].shape == out[1].shape, "W2", out[1].shape, f"must have the shape of W1 {out[0].shape}")
    return out[0], out[1]


def lattice(delta: float, J: int) -> np.ndarray:
    """Atoms ``j * delta``, ``j = 0..J-1``."""
    return np.arange(J, dtype=float) * positive("delta", delta)


#: largest ``|eps|`` of a privacy profile: ``e^eps`` stays far from overflow, and ``delta(eps)`` of
#: any mechanism worth asking about is 0 to double precision long before
MAX_PROFILE_EPSILON = 100.0

#: largest DP epsilon of a pure-DP noise law the exact computations take: ``e^eps`` overflows
#: double precision past ~709.8 (a law that sharp leaves no noise: the records are released)
MAX_DP_EPSILON = 700.0


def profile_eps(epsilon) -> float:
    """The ``eps`` of a privacy profile ``delta(eps)``: a finite number with
    ``|eps| <= MAX_PROFILE_EPSILON``."""
    ok = isinstance(epsilon, (int, float, np.integer, np.floating)) and not isinstance(epsilon, bool)
    require(
        ok and math.isfinite(float(epsilon)) and abs(float(epsilon)) <= MAX_PROFILE_EPSILON,
        "epsilon",
        epsilon,
        f"must be a finite number in [-{MAX_PROFILE_EPSILON:g}, {MAX_PROFILE_EPSILON:g}]",
    )
    return float(epsilon)


def profile_epsilons(epsilons) -> np.ndarray:
    """Several ``eps`` of a privacy profile (:func:`profile_eps` each) as a float array of shape
    ``(m,)`` or ``(rows, m)``."""
    e = np.asarray(epsilons, dtype=float)
    require(
        e.ndim in (1, 2) and e.size > 0 and bool(np.all(np.abs(e) <= MAX_PROFILE_EPSILON)),
        "epsilons",
        e.tolist() if e.size <= 5 else "...",
        f"must be finite numbers in [-{MAX_PROFILE_EPSILON:g}, {MAX_PROFILE_EPSILON:g}], shape (m,) or "
        "(rows, m)",
    )
    return e


def pair(atoms1, w1, atoms2, w2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Union of two atom sets with the weights of each mixture on it (one row each)."""
    a1, a2 = np.asarray(atoms1, dtype=float).ravel(), np.asarray(atoms2, dtype=float).ravel()
    v1, v2 = np.asarray(w1, dtype=float).ravel(), np.asarray(w2, dtype=float).ravel()
    require(
        a1.shape == v1.shape and a1.size > 0, "atoms1", a1.size, "atoms and weights must match, non-empty"
    )
    require(
        a2.shape == v2.shape and a2.size > 0, "atoms2", a2.size, "atoms and weights must match, non-empty"
    )
    require(bool(np.all(np.isfinite(np.concatenate([a1, a2])))), "atoms", "...", "must be finite")
    c, inv = np.unique(np.concatenate([a1, a2]), return_inverse=True)
    W = np.zeros((2, c.size))
    np.add.at(W[0], inv[: a1.size], v1)
    np.add.at(W[1], inv[a1.size :], v2)
    W1, W2 = rows(W[:1], W[1:])
    return c, W1, W2


def sup_result(fwd: float, bwd: float, wf: float, wb: float) -> MixtureSup:
    """Pack forward/backward sups and their places as a :class:`MixtureSup`."""
    return MixtureSup(max(fwd, bwd), fwd, bwd, wf if fwd >= bwd else wb)


def signed(fwd, bwd, af, ab) -> tuple[np.ndarray, np.ndarray]:
    """Signed value of largest magnitude per row and the place of the winning direction."""
    val, fw = ek.signed_sup(np.asarray(fwd, dtype=float), np.asarray(bwd, dtype=float))
    return val, np.where(fw, af, ab).astype(float)


def check_sensitivity(sensitivity) -> float:
    ok = isinstance(sensitivity, (int, float, np.integer, np.floating)) and not isinstance(sensitivity, bool)
    require(
        ok and math.isfinite(float(sensitivity)) and float(sensitivity) >= 0,
        "sensitivity",
        sensitivity,
        "must be a finite number >= 0",
    )
    return float(sensitivity)


class AtomKernelLaw:
    """The four exact functions of a noise law (:class:`~bdpsim.kernels.noise.laws.NoiseLaw`)
    from two kernels over rows of mixture weights ``A, B`` on atoms ``c``: ``_sup(A, B, c) ->
    (fwd, bwd, where_fwd, where_bwd)`` (the suprema of ``ln p1/p2`` and ``ln p2/p1`` per row and
    the outputs attaining them) and ``_delta(A, B, c, eps) -> delta`` (the hockey-stick divergence
    per row). The geometric, staircase and table laws share it."""

    def _sup(self, A, B, c):
        raise NotImplementedError

    def _delta(self, A, B, c, eps):
        raise NotImplementedError

    def grid_sup(self, W1, W2, delta: float):
        A, B = rows(W1, W2)
        fwd, bwd, wf, wb = self._sup(A, B, lattice(delta, A.shape[1]))
        return signed(fwd, bwd, wf / float(delta), wb / float(delta))

    def grid_delta(self, W1, W2, delta: float, epsilon: float) -> np.ndarray:
        A, B = rows(W1, W2)
        return self._delta(A, B, lattice(delta, A.shape[1]), profile_eps(epsilon))

    def sup_log_ratio(self, atoms1, w1, atoms2, w2) -> MixtureSup:
        c, A, B = pair(atoms1, w1, atoms2, w2)
        fwd, bwd, wf, wb = self._sup(A, B, c)
        return sup_result(float(fwd[0]), float(bwd[0]), float(wf[0]), float(wb[0]))

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon: float) -> float:
        c, A, B = pair(atoms1, w1, atoms2, w2)
        return float(self._delta(A, B, c, profile_eps(epsilon))[0])


@dataclass(frozen=True)
class NoiseParams:
    """Config-style parameters of a noise law: each law's ``from_params`` reads the ones it takes
    (:func:`bdpsim.kernels.noise.laws.noise_from_params`); errors name the parameter.

    ``epsilon``, ``scale``, ``sensitivity`` and ``step`` are common to every law (the query's
    sensitivity and lattice step; an amount of noise in DP terms or as a scale); ``options`` holds
    the law's own keys, by the names the law declares in its ``keys`` (``sigma``,
    ``staircase_gamma``, ``noise_pmf``, ...; the set of names is the union of the registered laws'
    keys); ``config_dir`` resolves a relative file name a law reads (``noise_table``).
    """

    epsilon: float | None = None
    sensitivity: float = 1.0
    scale: float | None = None
    step: float = 1.0
    options: Mapping[str, Any] = field(default_factory=dict)
    config_dir: str | None = None

    def option(self, key: str) -> Any:
        """The value of the law's own key ``key`` (``None`` when not given)."""
        return self.options.get(key)

    @property
    def sigma(self) -> Any:
        return self.option("sigma")

    @property
    def staircase_gamma(self) -> Any:
        return self.option("staircase_gamma")

    @property
    def table(self) -> Any:
        return self.option("table")

    def only(self, law: str, takes: tuple[str, ...]) -> float:
        """The checked ``sensitivity``, after refusing any amount or option given that ``law`` does
        not take (of ``epsilon``, ``scale`` and the options)."""
        sens = positive("sensitivity", self.sensitivity)
        given = {"epsilon": self.epsilon, "scale": self.scale, **self.options}
        for key, value in given.items():
            if key not in takes:
                require(value is None, key, value, f"is not a parameter of {law} noise")
        return sens
