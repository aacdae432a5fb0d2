"""Gaussian noise on a per-state value, bracketed by two finite channels in the Blackwell order.

**Setting.** Each step of a chain releases ``y = v[x] + N(0, sigma^2)``: Gaussian noise on the value
``v[x]`` of the step's state. The release has unbounded privacy loss (its BDPL is ``+inf``) but a
finite privacy profile ``delta(eps)`` and Rényi curve ``D_alpha``. The chain kernels
(:mod:`bdpsim.kernels.chains.local_profile`) take finitely many outputs per step, so the continuous
channel ``G`` is held between two finite channels.

**Standard coordinates.** With two distinct values ``u_0 < u_1`` (several states may share one),
``mu = (u_1 - u_0) / sigma`` and ``z = (y - (u_0 + u_1)/2) / sigma``, a low state's density is
``phi_0(z) = phi(z + mu/2)`` and a high state's ``phi_1(z) = phi(z - mu/2)``; their ratio is
``phi_1 / phi_0 = e^{mu z}``, increasing in ``z``.

**Lower channel (a garbling of G).** ``z`` quantised into the cells ``[z_i, z_{i+1}]`` of nodes
``-Z = z_0 < ... < z_N = Z`` and the two tails: ``Q[s, i] = Phi(z_{i+1} -+ mu/2) - Phi(z_i -+ mu/2)``.
A function of the output is a garbling: every divergence of the joint law of the whole release can
only shrink (data processing, and a garbling of each step is a garbling of the tuple).

**Upper channel (G is a garbling of it).** The range ``|z| <= Z`` has the same probability
``tau = Phi(-Z - mu/2) + Phi(-Z + mu/2)`` outside it under every state, so the pattern of steps whose
output falls outside is independent of the records and the joint law under each hypothesis is the
mixture ``w P_in + (1 - w) P_out`` with the same ``w = (1 - tau)^T``; by the joint convexity of the
hockey-stick divergence ``delta_G(eps) <= w delta_in(eps) + (1 - w) <= delta_in(eps) + (1 - w)``,
where ``delta_in`` is the profile of the release whose every step is ``G`` conditioned on the range
(``G_in``). ``G_in`` is a garbling of the node channel ``D``: on a cell, the likelihood vector is a
non-negative combination of those at its ends (two distinct values: the direction ``e^{mu z}`` is
monotone),

``(phi_0(z), phi_1(z)) = phi_0(z) [(1 - beta(z)) (1, e^{mu z_i}) + beta(z) (1, e^{mu z_{i+1}})]``,
``beta(z) = expm1(mu (z - z_i)) / expm1(mu h_i)``,

so ``D`` outputs node ``j`` with ``D[s, j] = e^{s mu z_j} A_j / (1 - tau)`` where
``A_j = int phi_0 (1 - beta)`` over the cell right of ``j`` plus ``int phi_0 beta`` over the cell
left of it; from node ``j`` a draw of ``z`` with density ``∝`` those weights gives back ``G_in``.
Both channels have positive entries and finitely many outputs; the gap is a second-order effect
of the cell width (``~ (mu h)^2``).

**Rényi.** ``D`` bounds ``D_alpha`` of ``P_in``; the outside part is bounded through the joint
convexity of ``e^{(alpha - 1) D_alpha}``: ``E_alpha(P) <= w E_alpha(P_in) + (1 - w) E_alpha(P_out)``,
and a release pattern's law is a garbling of (the other records, the target's own output), so
``D_alpha(P_out) <= D_inf(prior) + max(D_alpha(G_in), D_alpha(G_out))`` with the one-step terms in
closed form (:func:`step_renyi`) and the prior's largest ratio from the transition matrix
(:func:`prior_ratio_bound`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from ..argcheck import require

#: the values' distance in units of sigma above which the release is refused (the node channel's
#: far entries would fall under the floating-point range)
MAX_SEPARATION = 20.0
#: Gauss-Legendre points per cell for the node channel's weights
QUADRATURE = 12
#: the node density's floor, relative to its peak
FLOOR = 0.1
#: the outside probability over all steps, ``1 - (1 - tau)^T``, aimed at
OUTSIDE = 1e-10


@dataclass(frozen=True)
class ChannelPair:
    """A finite lower and upper channel of a continuous per-step release (module docstring).

    Attributes
    ----------
    lower : numpy.ndarray
        ``M[x, r]`` (rows = states, summing to 1, entries > 0): a garbling of the release.
    upper : numpy.ndarray
        ``M[x, r]``: the release conditioned on its range is a garbling of it.
    outside : float
        ``tau``: the probability that one step's output falls outside the range, the same under
        every state.
    range : float
        ``Z``, the half-width of the range in units of sigma around the values' midpoint.
    """

    lower: np.ndarray
    upper: np.ndarray
    outside: float
    range: float

    def slack(self, steps: int) -> float:
        """``1 - (1 - tau)^T``: added to the upper channel's ``delta`` over ``T`` steps."""
        return float(-math.expm1(steps * math.log1p(-self.outside))) if self.outside > 0 else 0.0


@runtime_checkable
class HasChannels(Protocol):
    """A per-step release with a bracketing pair of finite channels (``bins`` cells, ``steps``
    steps: the range is chosen so the outside probability over all steps is negligible)."""

    label: str

    def channels(self, states: int, bins: int, steps: int) -> ChannelPair: ...


def two_values(values) -> tuple[float, float, np.ndarray]:
    """``(u_0, u_1, high)``: the two distinct values and which states have the larger (a state
    mask); ``u_0 = u_1`` where all values are equal. More than two distinct values are refused."""
    v = np.asarray(values, dtype=float)
    distinct = np.unique(v)
    require(
        distinct.size <= 2,
        "state_values",
        v.tolist(),
        "at most two distinct values (the bracket holds the release between two finite channels "
        "when its likelihood ratio is monotone)",
    )
    return float(distinct[0]), float(distinct[-1]), v == distinct[-1]


def range_for(mu: float, steps: int, outside: float = OUTSIDE) -> float:
    """The half-width ``Z`` whose outside probability ``tau`` keeps ``1 - (1 - tau)^T <= outside``:
    ``tau <= 2 Phi(-(Z - mu/2))``, solved for ``Z`` (at least 6 beyond the far value)."""
    per_step = outside / max(int(steps), 1) / 2
    t = -float(ndtri(per_step))
    return mu / 2 + max(t, 6.0)


def _mass(lo: np.ndarray, hi: np.ndarray, shift: float) -> np.ndarray:
    """``Phi(hi - shift) - Phi(lo - shift)``, accurate in both tails."""
    a, b = lo - shift, hi - shift
    right = a > 0
    out = np.where(right, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))
    return np.asarray(out, dtype=float)


def outside_probability(mu: float, Z: float) -> float:
    """``tau = Phi(-Z - mu/2) + Phi(-Z + mu/2)``: one step's output outside ``|z| <= Z`` (any state)."""
    return float(ndtr(-Z - mu / 2) + ndtr(-Z + mu / 2))


def lower_channel(mu: float, nodes: np.ndarray) -> np.ndarray:
    """``(2, N + 2)``: the low and high state's probabilities of the two tails and the ``N`` cells
    between the ``nodes`` (module docstring: lower channel)."""
    edges = np.concatenate([[-np.inf], nodes, [np.inf]])
    rows = [_mass(edges[:-1], edges[1:], s) for s in (-mu / 2, mu / 2)]
    return np.vstack(rows)


def upper_channel(mu: float, nodes: np.ndarray) -> np.ndarray:
    """``(2, N + 1)``: the node channel ``D`` of the release conditioned on ``nodes[0] <= z <=
    nodes[-1]`` (module docstring: upper channel), rows normalised to 1.

    ``A_j``'s two cell integrals ``int phi_0 (1 - beta)`` and ``int phi_0 beta`` are computed by
    Gauss-Legendre quadrature (:data:`QUADRATURE` points per cell: the integrand is entire, the
    error is at the level of floating-point rounding); node ``j``'s high-state entry is
    ``e^{mu z_j}`` times its low-state entry."""
    z = np.asarray(nodes, dtype=float)
    h = np.diff(z)
    x, w = np.polynomial.legendre.leggauss(QUADRATURE)
    u = (x[None, :] + 1) / 2 * h[:, None]  # offsets in each cell
    zz = z[:-1, None] + u
    phi0 = np.exp(-((zz + mu / 2) ** 2) / 2) / math.sqrt(2 * math.pi)
    if mu > 0:
        beta = np.expm1(mu * u) / np.expm1(mu * h)[:, None]
    else:
        beta = u / h[:, None]
    weights = w[None, :] * h[:, None] / 2
    right = np.sum(phi0 * (1 - beta) * weights, axis=1)  # to the cell's left node
    left = np.sum(phi0 * beta * weights, axis=1)  # to the cell's right node
    A = np.zeros(z.size)
    A[:-1] += right
    A[1:] += left
    low = A
    high = A * np.exp(mu * z)
    D = np.vstack([low, high])
    return D / D.sum(axis=1, keepdims=True)


def nodes_for(mu: float, Z: float, bins: int) -> np.ndarray:
    """``bins + 1`` nodes on ``[-Z, Z]``, denser where the outputs are likely: equal masses of the
    density ``g ∝ (phi_0 + phi_1)^{1/3}`` (approximated by the mixture of ``N(-+mu/2, 3)``) plus a
    floor (:data:`FLOOR` of its peak). A cell's share of the bracket's gap is about its mass
    times ``(mu h)^2``, which this spacing (the classical optimal quantiser's) makes small for a
    given number of cells."""
    grid = np.linspace(-Z, Z, 64 * int(bins) + 1)
    s = math.sqrt(3.0)
    g = np.exp(-(((grid + mu / 2) / s) ** 2) / 2) + np.exp(-(((grid - mu / 2) / s) ** 2) / 2)
    g = g / g.max() + FLOOR
    G = np.concatenate([[0.0], np.cumsum((g[1:] + g[:-1]) / 2 * np.diff(grid))])
    nodes = np.interp(np.linspace(0.0, G[-1], int(bins) + 1), G, grid)
    nodes[0], nodes[-1] = -Z, Z
    return nodes


def gaussian_channels(values, sigma: float, bins: int, steps: int) -> ChannelPair:
    """The bracketing pair of Gaussian noise on per-state ``values`` (module docstring): ``bins``
    cells on the range ``|z| <= Z`` (:func:`range_for` for ``steps`` steps), rows per state.

    Parameters
    ----------
    values : sequence of float
        ``v[x]`` per state (at most two distinct values).
    sigma : float
        The noise's standard deviation (``> 0``).
    bins : int
        Cells of the range (``>= 2``).
    steps : int
        The number of releases ``T`` (the range grows like ``sqrt(2 ln T)``).

    Returns
    -------
    ChannelPair
        Lower (``bins + 2`` outputs) and upper (``bins + 1`` outputs) channels, ``M[x, r]``.
    """
    require(
        isinstance(sigma, (int, float, np.floating)) and math.isfinite(sigma) and sigma > 0,
        "sigma",
        sigma,
        "must be a finite number > 0",
    )
    require(
        isinstance(bins, (int, np.integer)) and not isinstance(bins, bool) and bins >= 2,
        "bins",
        bins,
        "must be an integer >= 2",
    )
    u0, u1, high = two_values(values)
    k = high.size
    if u1 == u0:  # no output carries information: one output
        one = np.ones((k, 1))
        return ChannelPair(one, one, 0.0, 0.0)
    mu = (u1 - u0) / sigma
    require(
        math.isfinite(mu) and mu <= MAX_SEPARATION,
        "sigma",
        sigma,
        f"the values {u0:g} and {u1:g} are {mu:.3g} sigma apart, above {MAX_SEPARATION:g}: the "
        "release all but reveals the state (delta(eps) near 1 - e^eps * 0)",
    )
    Z = range_for(mu, steps)
    nodes = nodes_for(mu, Z, bins)
    lo2, up2 = lower_channel(mu, nodes), upper_channel(mu, nodes)
    rows = np.where(high, 1, 0)
    return ChannelPair(lo2[rows], up2[rows], outside_probability(mu, Z), Z)


def step_renyi(mu: float, Z: float, alpha: float) -> float:
    """The larger of one step's ``D_alpha`` conditioned inside and outside ``|z| <= Z`` (both
    orders agree by symmetry): with ``c = mu (alpha - 1/2)``,
    ``phi_1^alpha phi_0^{1 - alpha} = e^{alpha (alpha - 1) mu^2 / 2} phi(z - c)``, so
    ``E_alpha(S) = e^{alpha (alpha - 1) mu^2 / 2} P(N(c, 1) in S) / P_state(S)``."""
    if mu == 0:
        return 0.0
    c = mu * (alpha - 0.5)
    base = alpha * (alpha - 1) * mu**2 / 2
    tau = outside_probability(mu, Z)
    log_in = math.log(max(float(ndtr(Z - c) - ndtr(-Z - c)), 1e-300))
    log_out = float(np.logaddexp(log_ndtr(-Z - c), log_ndtr(c - Z)))
    d_in = (base + log_in - math.log1p(-tau)) / (alpha - 1)
    d_out = (base + log_out - math.log(tau)) / (alpha - 1) if tau > 0 else -math.inf
    return max(d_in, d_out, 0.0)


def prior_ratio_bound(transition, initial) -> np.ndarray:
    """``B[a, b] >= sup_{t, K, x_{-t}} ln C_a(x_{-t}) / C_b(x_{-t})`` plus its reverse, where
    ``C_a`` is the law of the other records given ``x_t = a`` and the known ``x_K``: only the
    neighbours' factors ``P[c, a] P[a, d]`` depend on the target's value, and the normaliser is a
    mixture of them, so ``ln max_{c,d} r + ln max_{c,d} 1/r`` with ``r = P[c,a] P[a,d] / (P[c,b]
    P[b,d])`` bounds it (``+inf`` where a path possible under one value is impossible under the
    other). ``initial`` is unused beyond its shape: the first step's factor ``pi(a)`` cancels."""
    P = np.asarray(transition, dtype=float)
    k = P.shape[0]
    out = np.zeros((k, k))
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(k):
            for b in range(k):
                if a == b:
                    continue
                total = 0.0
                for col_a, col_b in ((P[:, a], P[:, b]), (P[a, :], P[b, :])):
                    both = (col_a > 0) | (col_b > 0)
                    r = col_a[both] / col_b[both]
                    total += float(np.log(np.max(r))) + float(np.log(np.max(1 / r)))
                out[a, b] = total
    return out


__all__ = [
    "MAX_SEPARATION",
    "OUTSIDE",
    "ChannelPair",
    "HasChannels",
    "gaussian_channels",
    "lower_channel",
    "nodes_for",
    "outside_probability",
    "prior_ratio_bound",
    "range_for",
    "step_renyi",
    "two_values",
    "upper_channel",
]
