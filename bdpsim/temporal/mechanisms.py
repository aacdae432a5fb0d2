"""Per-step release laws of a continual release, reduced to their extreme likelihood vectors.

A step's mechanism releases ``r_t ~ M_t(x_t)``; what matters for every leakage of the stream is the
likelihood vector ``l(r) = (P(r | x = 1), ..., P(r | x = k))`` of each output, up to scale. Every
leakage of :mod:`bdpsim.temporal.exact` is a supremum over the outputs of a ratio of two linear
forms in ``l(r_t)`` (the other steps fixed), and a ratio of linear forms is quasi-linear: its
supremum over the convex cone spanned by a set of vectors is attained at an extreme ray of that
cone. So a step is described exactly by the extreme rays of the cone spanned by its likelihood
vectors (:class:`StepRelease`), even when it has a continuum of outputs:

* **k-RR** (``krr``): ``P(r = x) = e^eps / (e^eps + k - 1)``, the other states ``1 / (e^eps + k -
  1)`` each: ``k`` outputs, all extreme.
* **any eps-DP step** (``any``): every likelihood vector of an eps-DP step lies in the cone
  ``{l > 0 : l_a <= e^eps l_b}``, whose extreme rays are the vertices of the box ``[1, e^eps]^k``
  with both values present (``2^k - 2`` of them); each is the direction of an output of some
  eps-DP mechanism (give it a small enough probability ``s`` and complete the rows with the output
  ``1 - s l``, whose ratios tend to 1). The supremum over all eps-DP steps is thus attained at
  these vertices: the tight form of Cao et al.'s bound, whose LP ranges over the same box.
* **noise on the one-hot histogram** (``laplace``, ``geometric``, ``staircase``): the release is
  ``e_x + Z`` with ``k`` independent noise coordinates of the law calibrated to ``eps / 2`` at
  sensitivity 1 (changing ``x`` moves two coordinates by 1; for Laplace this is scale ``2 / eps``).
  ``l(r)_x = prod_j f(r_j) * g(r_x)`` with
  ``g(y) = f(y - 1) / f(y)``, so the direction is ``(g(r_1), ..., g(r_k))``: a point of the box
  ``[e^{-eps/2}, e^{eps/2}]^k`` whose every vertex is attained (``g = e^{-eps/2}`` for ``y <= 0``
  and ``e^{eps/2}`` for ``y >= 1`` for all three laws). The cone is the same as ``any``'s.
* **noise on a per-state value** (``laplace``, ``geometric``; ``values`` given): ``r = v_x + Z``
  calibrated to ``eps`` at sensitivity ``max v - min v``. Between two consecutive values
  ``v_j <= r <= v_{j+1}`` the Laplace likelihood is ``e^{-r/b} u + e^{r/b} w`` with fixed ``u``
  (the states with ``v <= v_j``) and ``w`` (the others), an arc of the 2-D cone spanned by ``u``
  and ``w`` whose ends are ``l(v_j)`` and ``l(v_{j+1})``; beyond the smallest or largest value the
  direction is constant. The extreme rays are ``l(v_1), ..., l(v_k)``: the outputs at the values.
  Geometric noise on integer values (multiples of ``step``) likewise.
* Gaussian noise is not pure DP: the likelihood ratio is unbounded and every leakage is ``+inf``
  (refused with :class:`~bdpsim.kernels.argcheck.ParameterError`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..kernels.argcheck import ParameterError, require
from ..kernels.noise.traits import one_of
from .releases import histogram_laws, release_names, value_laws


@dataclass(frozen=True)
class StepRelease:
    """One step's mechanism as the extreme rays of its likelihood cone.

    Attributes
    ----------
    name : str
        ``krr``, ``any``, ``laplace``, ``geometric``, ``staircase`` (histogram) or ``laplace-value``,
        ``geometric-value``.
    epsilon : float
        The step's DP level ``eps_t`` (``sup_{r,a,b} ln l(r)_a / l(r)_b``).
    likelihoods : numpy.ndarray
        ``(m, k)``, row ``j`` the likelihood vector (up to scale) of output ``j``; entries > 0.
    labels : tuple of str
        How output ``j`` is shown in a witness sequence.
    """

    name: str
    epsilon: float
    likelihoods: np.ndarray
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        L = np.asarray(self.likelihoods, dtype=float)
        require(
            L.ndim == 2 and L.shape[1] >= 2 and L.shape[0] >= 1,
            "likelihoods",
            L.shape,
            "must be an (outputs, states) array with >= 2 states",
        )
        require(
            bool(np.all(np.isfinite(L))) and bool(np.all(L > 0)),
            "likelihoods",
            L.tolist(),
            "entries must be finite and > 0 (a DP step gives every output to every state)",
        )
        require(len(self.labels) == L.shape[0], "labels", len(self.labels), f"must be {L.shape[0]} labels")
        L = L / L.max(axis=1, keepdims=True)
        L.setflags(write=False)
        object.__setattr__(self, "likelihoods", L)

    @property
    def states(self) -> int:
        return int(self.likelihoods.shape[1])

    def pair_epsilon(self) -> np.ndarray:
        """``eps_t(a, b) = max_r ln l(r)_a / l(r)_b`` as a ``(k, k)`` array (0 on the diagonal)."""
        logL = np.log(self.likelihoods)
        return np.max(logL[:, :, None] - logL[:, None, :], axis=0)

    def pair_argmax(self) -> np.ndarray:
        """The output attaining :meth:`pair_epsilon` for each pair ``(a, b)``."""
        logL = np.log(self.likelihoods)
        return np.argmax(logL[:, :, None] - logL[:, None, :], axis=0)


def _epsilon(epsilon) -> float:
    require(
        isinstance(epsilon, (int, float, np.integer, np.floating))
        and not isinstance(epsilon, bool)
        and math.isfinite(float(epsilon))
        and float(epsilon) > 0,
        "epsilon",
        epsilon,
        "must be a finite number > 0",
    )
    return float(epsilon)


def krr(states: int, epsilon: float) -> StepRelease:
    """k-ary randomized response: ``P(r = x) = e^eps / (e^eps + k - 1)``, else ``1 / (e^eps + k - 1)``."""
    eps = _epsilon(epsilon)
    L = np.ones((states, states)) + np.eye(states) * math.expm1(eps)
    return StepRelease("krr", eps, L, tuple(f"r={j}" for j in range(states)))


def any_dp(states: int, epsilon: float) -> StepRelease:
    """Every eps-DP step at once: the ``2^k - 2`` vertices of ``[1, e^eps]^k`` with both values
    present (the extreme rays of ``{l > 0 : l_a <= e^eps l_b}``)."""
    eps = _epsilon(epsilon)
    require(states <= 16, "states", states, "'any' enumerates 2^k - 2 box vertices: at most 16 states")
    rows, labels = [], []
    for bits in itertools.product((0, 1), repeat=states):
        if 0 < sum(bits) < states:
            rows.append([math.exp(eps) if b else 1.0 for b in bits])
            labels.append("high{" + ",".join(str(j) for j, b in enumerate(bits) if b) + "}")
    return StepRelease("any", eps, np.array(rows), tuple(labels))


def histogram_noise(law: str, states: int, epsilon: float) -> StepRelease:
    """Noise of ``law`` (one of :func:`~.releases.histogram_laws`: laplace, geometric, staircase)
    on the one-hot histogram, each coordinate
    ``eps/2``-DP at sensitivity 1 (so the step is eps-DP).

    The likelihood cone is ``any``'s (module docstring); the per-coordinate ratio range
    ``[e^{-eps/2}, e^{eps/2}]`` is read from the law's own density (``ln f(y - 1) - ln f(y)`` at
    ``y = 0`` and ``y = 1``), so a law whose extremes are not attained there is refused, not assumed.
    """
    from ..kernels.noise.laws import noise_from_params

    eps = _epsilon(epsilon)
    require(
        law in histogram_laws(),
        "mechanism",
        law,
        f"histogram noise must be {one_of(histogram_laws())} (a pure DP law with an amount; gaussian "
        "is not pure DP: its leakage is infinite)",
    )
    noise = noise_from_params(law, epsilon=eps / 2, sensitivity=1.0)  # per coordinate: moved by 1
    y = np.array([0.0, 1.0])
    g = np.asarray(noise.log_density(y - 1.0)) - np.asarray(noise.log_density(y))
    half = noise.dp_epsilon(1.0)
    if not (abs(g[0] + half) < 1e-9 and abs(g[1] - half) < 1e-9 and abs(2 * half - eps) < 1e-9):
        raise ParameterError(
            "mechanism",
            law,
            f"the {law} law's coordinate ratio does not reach "
            f"e^(+-eps/2) at y = 0, 1 (got {np.round(g, 6).tolist()})",
        )
    rel = any_dp(states, eps)
    return StepRelease(law, eps, rel.likelihoods, rel.labels)


def value_noise(law: str, values, epsilon: float) -> StepRelease:
    """Noise of ``law`` (one of :func:`~.releases.value_laws`: laplace, geometric) on a per-state
    value ``v_x``, eps-DP at sensitivity
    ``max v - min v``: the outputs ``r = v_j`` are the extreme rays (module docstring)."""
    from ..kernels.noise.laws import NOISE_LAWS, noise_from_params

    eps = _epsilon(epsilon)
    require(
        law in value_laws(),
        "mechanism",
        law,
        f"noise on per-state values must be {one_of(value_laws())} (a law with an exponential kernel)",
    )
    v = np.asarray(values, dtype=float)
    require(
        v.ndim == 1 and v.size >= 2 and bool(np.all(np.isfinite(v))),
        "values",
        values,
        "must be >= 2 finite numbers, one per state",
    )
    spread = float(v.max() - v.min())
    require(spread > 0, "values", v.tolist(), "must not all be equal (nothing is released)")
    if NOISE_LAWS[law].discrete is True:  # a lattice law (geometric) on the integers
        require(
            bool(np.all(np.abs(v - np.round(v)) < 1e-12)),
            "values",
            v.tolist(),
            f"{law} noise needs integer values (outputs of other classes never coincide)",
        )
    noise = noise_from_params(law, epsilon=eps, sensitivity=spread)
    L = np.exp(np.asarray(noise.log_density(v[:, None] - v[None, :]), dtype=float))  # row j: r = v_j
    return StepRelease(f"{law}-value", eps, L, tuple(f"r={x:g}" for x in v))


def step_release(mechanism: str, states: int, epsilon: float, values=None) -> StepRelease:
    """The :class:`StepRelease` of ``mechanism`` (one of :func:`~.releases.release_names`) for
    ``states`` states; ``values`` (one per state) puts noise of a law of
    :func:`~.releases.value_laws` on a per-state value instead of the one-hot histogram."""
    require(
        mechanism in release_names(), "mechanism", mechanism, f"must be one of {', '.join(release_names())}"
    )
    if values is not None:
        require(len(values) == states, "values", list(values), f"must be {states} numbers, one per state")
        return value_noise(mechanism, values, epsilon)
    if mechanism == "krr":
        return krr(states, epsilon)
    if mechanism == "any":
        return any_dp(states, epsilon)
    return histogram_noise(mechanism, states, epsilon)
