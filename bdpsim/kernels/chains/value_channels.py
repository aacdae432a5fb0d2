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

**More than two values** ``w_1 < ... < w_m`` (standard coordinates: ``w_j = (v_j - mid) / sigma``,
the extremes at ``-+mu/2``, ``mu`` their distance). The ratios ``r_j(z) = phi_j / phi_1 = e^{d_j z -
d_j (w_j + w_1) / 2}`` (``d_j = w_j - w_1 > 0``) are all increasing, so on a cell ``[a, b]`` the
vector ``r(z)`` lies in the box ``prod_j [r_j(a), r_j(b)]``, and the multilinear weights
``lambda_c(z) = prod_j (t_j or 1 - t_j)``, ``t_j = (r_j(z) - r_j(a)) / (r_j(b) - r_j(a))``, are
``>= 0``, sum to 1 and give ``r(z) = sum_c lambda_c(z) c`` over the box's ``2^(m-1)`` corners ``c``:

``phi_j(z) = phi_1(z) r_j(z) = sum_c phi_1(z) lambda_c(z) c_j`` (``c_1 = 1``).

The corner channel outputs ``(cell, c)`` with value ``j``'s likelihood ``c_j int_cell phi_1
lambda_c`` (corners ``r(z_i)`` shared by neighbouring cells are one output: equal likelihood
vectors); given ``(cell, c)``, a draw of ``z`` with density ``∝ phi_1 lambda_c`` on the cell gives
back ``G_in`` whatever the value, so ``G_in`` is a garbling of it (:func:`corner_channel`). The
corner's log-ratios differ from the curve's by ``O(h)``: the added spread of the privacy loss is a
mean-preserving ``O(h)`` one, and the gap stays second order.

Any convex set holding the curve's arc works the same way. **Three values** (used there instead
of the box): the arc ``(r_2, r_3)`` is convex (``r_3 ∝ r_2^{d_3 / d_2}``, ``d_3 > d_2``), so it lies in
the triangle of its ends and of the meeting point ``T`` of its tangents at both ends
(:func:`tangent_channel`): ``2 N + 1`` outputs instead of the box's ``3 N + 1``, and ``T`` lies
``O(h^2)`` off the arc where the box's other corners lie ``O(h)`` off it (measured on the values
``0, 1, 3``: a gap 3 to 4 times narrower at the same cells). The range's outside probability
``tau_j`` now depends on the value (the middle ones are less likely outside); with ``tau = max_j
tau_j`` (the extremes') ``G_j = (1 - tau) A_j + tau B_j`` with ``A_j = phi_j 1_in / (1 - tau_j)`` and
``B_j = phi_j (1_out + rho_j 1_in) / tau``, ``rho_j = (tau - tau_j) / (1 - tau_j) >= 0``: a mixture
with a weight common to every value, so the bound ``delta_G <= delta_A + 1 - (1 - tau)^T`` holds as
for two values (``A`` is ``G_in`` above). For ``D_alpha`` the outside part ``B`` must not put mass
where another value's has none, so the mixture is taken with ``2 tau`` (every ``rho_j > 0``;
:func:`step_renyi_values`).

**Rényi.** ``D`` bounds ``D_alpha`` of ``P_in``; the outside part is bounded through the joint
convexity of ``e^{(alpha - 1) D_alpha}``: ``E_alpha(P) <= w E_alpha(P_in) + (1 - w) E_alpha(P_out)``,
and a release pattern's law is a garbling of (the other records, the target's own output), so
``D_alpha(P_out) <= D_inf(prior) + max(D_alpha(G_in), D_alpha(G_out))`` with the one-step terms in
closed form (:func:`step_renyi`) and the prior's largest ratio from the transition matrix
(:func:`prior_ratio_bound`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from ..argcheck import require

#: the values' distance in units of sigma above which the release is refused (the node channel's
#: far entries would fall under the floating-point range)
MAX_SEPARATION = 20.0
#: least spread (largest minus least value, in sigma) of three or more values: below it the upper
#: channel's tangents cancel in floating point (they failed near 3e-17)
MIN_SEPARATION = 1e-12
#: Gauss-Legendre points per cell for the node channel's weights
QUADRATURE = 12
#: the node density's floor, relative to its peak
FLOOR = 0.1
#: the most distinct values (the upper channel has ``2^(m-1) - 2`` off-curve corners per cell)
MAX_VALUES = 6
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
        return outside_over(self.outside, steps)


def outside_over(outside: float, steps: int) -> float:
    """``1 - (1 - tau)^T``: the probability that some of ``T`` steps falls outside the range."""
    return float(-math.expm1(steps * math.log1p(-outside))) if outside > 0 else 0.0


@runtime_checkable
class HasChannels(Protocol):
    """A per-step release with a bracketing pair of finite channels (``bins`` cells, ``steps``
    steps: the range is chosen so the outside probability over all steps is negligible)."""

    label: str

    def channels(self, states: int, bins: int, steps: int) -> ChannelPair: ...


def distinct_values(values) -> tuple[np.ndarray, np.ndarray]:
    """``(u, index)``: the distinct values in increasing order and each state's index into them
    (states sharing a value are one value: their rows of every channel are equal)."""
    v = np.asarray(values, dtype=float)
    u, index = np.unique(v, return_inverse=True)
    return u, index.reshape(-1)


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


def lower_channel(centres, nodes: np.ndarray) -> np.ndarray:
    """``(m, N + 2)``: each value's probabilities of the two tails and the ``N`` cells between the
    ``nodes`` (module docstring: lower channel); ``centres``: the values in standard coordinates
    (``-mu/2, mu/2`` for two)."""
    edges = np.concatenate([[-np.inf], nodes, [np.inf]])
    rows = [_mass(edges[:-1], edges[1:], float(s)) for s in centres]
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


def corner_channel(centres, nodes: np.ndarray) -> np.ndarray:
    """``(m, N + 1 + N (2^(m-1) - 2))``: the corner channel ``D`` of ``m >= 2`` values (module
    docstring: more than two values) conditioned on ``nodes[0] <= z <= nodes[-1]``, rows normalised.

    Outputs: the ``N + 1`` nodes (the corners ``r(z_i)`` shared by neighbouring cells), then the
    off-curve corners, corner by corner (``c`` in ``itertools.product`` order, ``c_j = 1``: the
    cell's right end for ``r_j``), each over the ``N`` cells. With ``d_j = w_j - w_1``,
    ``t_j = expm1(d_j u) / expm1(d_j h)`` and ``1 - t_j = e^{d_j u} expm1(d_j (h - u)) / expm1(d_j
    h)`` (``u`` the offset in a cell of width ``h``: no cancellation), a corner's weight ``int_cell
    phi_1 lambda_c`` is computed by Gauss-Legendre quadrature (:data:`QUADRATURE` points per cell:
    the integrand is entire); value ``j``'s entry is the weight times ``r_j`` at the corner's
    ``j``-th end."""
    w = np.asarray(centres, dtype=float)
    z = np.asarray(nodes, dtype=float)
    h = np.diff(z)
    d = (w[1:] - w[0])[:, None, None]
    x, gw = np.polynomial.legendre.leggauss(QUADRATURE)
    u = ((x[None, :] + 1) / 2 * h[:, None])[None]  # offsets in each cell
    base = np.exp(-((z[:-1, None] + u[0] - w[0]) ** 2) / 2) / math.sqrt(2 * math.pi)
    base = base * gw[None, :] * h[:, None] / 2
    span = np.expm1(d * h[None, :, None])
    up = np.expm1(d * u) / span  # t_j
    down = np.exp(d * u) * np.expm1(d * (h[None, :, None] - u)) / span  # 1 - t_j
    log_r = (w[1:] - w[0])[:, None] * (z[None, :] - (w[1:, None] + w[0]) / 2)  # ln r_j at the nodes
    cells = np.arange(h.size)
    nodes_weight = np.zeros(z.size)
    off = []
    for corner in itertools.product((0, 1), repeat=w.size - 1):
        lam = np.prod([up[j] if c else down[j] for j, c in enumerate(corner)], axis=0)
        W = np.sum(base * lam, axis=1)
        if not any(corner):
            nodes_weight[:-1] += W
        elif all(corner):
            nodes_weight[1:] += W
        else:
            ends = np.array([log_r[j, cells + c] for j, c in enumerate(corner)])
            off.append(np.vstack([W, W * np.exp(ends)]))
    node_rows = np.vstack([nodes_weight, nodes_weight * np.exp(log_r)])
    D = np.hstack([node_rows, *off])
    return D / D.sum(axis=1, keepdims=True)


def _expm1_excess(d: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``(e^{d t} - 1 - d t) / d`` without cancellation (a series below ``|d t| = 0.5``)."""
    y = d * t
    small = np.abs(y) < 0.5
    ys = np.where(small, y, 0.0)
    series = np.zeros_like(ys)
    term = ys.copy()
    for k in range(2, 20):
        term = term * ys / k
        series = series + term
    return np.where(small, series, np.expm1(y) - y) / d


def tangent_channel(centres, nodes: np.ndarray) -> np.ndarray:
    """``(3, 2 N + 1)``: the tangent channel of three values (module docstring: three values)
    conditioned on ``nodes[0] <= z <= nodes[-1]``, rows normalised. Outputs: the ``N + 1`` nodes,
    then each cell's tangent vertex ``T``.

    In a cell ``[a, a + h]`` with ``x_j(u) = r_j(a + u) / r_j(a) - 1 = expm1(d_j u)`` the curve
    runs from ``0`` to ``B = x(h)``; the tangents at its ends meet at ``T = s_A (d_2, d_3)`` with
    ``s_B = (E_3 - E_2) / (e^{d_3 h} - e^{d_2 h})``, ``s_A = E_2 - s_B e^{d_2 h}``, ``E_j = expm1(d_j
    h) / d_j``. The barycentric weights of ``x(u)`` are ``lambda_B = (g_3(u) - g_2(u)) / (g_3(h) -
    g_2(h))`` (``g_j(t) = (e^{d_j t} - 1 - d_j t) / d_j``, no cancellation), ``lambda_T = (B_2 x_3 -
    B_3 x_2) / (s_A d_2 d_3 (g_2(h) - g_3(h)))`` and ``lambda_A = 1 - lambda_B - lambda_T``; their
    integrals against ``phi_1`` by Gauss-Legendre quadrature (:data:`QUADRATURE` points per cell)."""
    w = np.asarray(centres, dtype=float)
    z = np.asarray(nodes, dtype=float)
    h = np.diff(z)
    d2, d3 = float(w[1] - w[0]), float(w[2] - w[0])
    x, gw = np.polynomial.legendre.leggauss(QUADRATURE)
    u = (x[None, :] + 1) / 2 * h[:, None]
    base = np.exp(-((z[:-1, None] + u - w[0]) ** 2) / 2) / math.sqrt(2 * math.pi)
    base = base * gw[None, :] * h[:, None] / 2
    gh = _expm1_excess(np.array(d3), h) - _expm1_excess(np.array(d2), h)  # > 0
    s_b = gh / (np.exp(d2 * h) * np.expm1((d3 - d2) * h))  # (E_3 - E_2) / (e_3 - e_2)
    s_a = np.expm1(d2 * h) / d2 - s_b * np.exp(d2 * h)
    lam_b = (_expm1_excess(np.array(d3), u) - _expm1_excess(np.array(d2), u)) / gh[:, None]
    cross = np.expm1(d2 * h)[:, None] * np.expm1(d3 * u) - np.expm1(d3 * h)[:, None] * np.expm1(d2 * u)
    lam_t = np.maximum(-cross / (s_a * d2 * d3 * gh)[:, None], 0.0)
    lam_a = np.maximum(1.0 - lam_b - lam_t, 0.0)
    WA, WB, WT = (np.sum(base * lam, axis=1) for lam in (lam_a, lam_b, lam_t))
    log_r = (w[1:] - w[0])[:, None] * (z[None, :] - (w[1:, None] + w[0]) / 2)  # ln r_j at the nodes
    node_weight = np.zeros(z.size)
    node_weight[:-1] += WA
    node_weight[1:] += WB
    ratio_t = np.exp(log_r[:, :-1]) * (1 + s_a[None, :] * np.array([[d2], [d3]]))
    D = np.vstack(
        [
            np.concatenate([node_weight, WT]),
            *(np.concatenate([node_weight * np.exp(log_r[j]), WT * ratio_t[j]]) for j in range(2)),
        ]
    )
    return D / D.sum(axis=1, keepdims=True)


def nodes_for(mu: float, Z: float, bins: int, centres=None) -> np.ndarray:
    """``bins + 1`` nodes on ``[-Z, Z]``, denser where the outputs are likely: equal masses of the
    density ``g ∝ (phi_0 + phi_1)^{1/3}`` (approximated by the mixture of ``N(-+mu/2, 3)``, or of
    ``N(c, 3)`` over the ``centres`` given) plus a floor (:data:`FLOOR` of its peak). A cell's
    share of the bracket's gap is about its mass times ``(mu h)^2``, which this spacing (the
    classical optimal quantiser's) makes small for a given number of cells."""
    grid = np.linspace(-Z, Z, 64 * int(bins) + 1)
    s = math.sqrt(3.0)
    if centres is None:
        g = np.exp(-(((grid + mu / 2) / s) ** 2) / 2) + np.exp(-(((grid - mu / 2) / s) ** 2) / 2)
    else:
        g = np.sum([np.exp(-(((grid - c) / s) ** 2) / 2) for c in centres], axis=0)
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
        ``v[x]`` per state (at most :data:`MAX_VALUES` distinct values).
    sigma : float
        The noise's standard deviation (``> 0``).
    bins : int
        Cells of the range (``>= 2``).
    steps : int
        The number of releases ``T`` (the range grows like ``sqrt(2 ln T)``).

    Returns
    -------
    ChannelPair
        Lower (``bins + 2`` outputs) and upper (``bins + 1`` outputs for two distinct values,
        ``bins + 1 + bins (2^(m-1) - 2)`` for ``m``) channels, ``M[x, r]``.
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
    u, index = distinct_values(values)
    k = index.size
    if u.size == 1:  # no output carries information: one output
        one = np.ones((k, 1))
        return ChannelPair(one, one, 0.0, 0.0)
    require(
        u.size <= MAX_VALUES,
        "state_values",
        np.asarray(values, dtype=float).tolist(),
        f"at most {MAX_VALUES} distinct values (the upper channel has 2^(m-1) outputs per cell)",
    )
    mu = (u[-1] - u[0]) / sigma
    require(
        math.isfinite(mu) and mu <= MAX_SEPARATION,
        "sigma",
        sigma,
        f"the values {u[0]:g} and {u[-1]:g} are {mu:.3g} sigma apart, above {MAX_SEPARATION:g}: "
        "the release all but reveals the state (delta(eps) near 1 - e^eps * 0)",
    )
    Z = range_for(mu, steps)
    w = standard_values(u, sigma)
    if u.size == 2:
        nodes = nodes_for(mu, Z, bins)
        lower, upper = lower_channel(w, nodes), upper_channel(mu, nodes)
    else:
        nodes = nodes_for(mu, Z, bins, centres=w)
        split = tangent_channel if u.size == 3 else corner_channel
        lower, upper = lower_channel(w, nodes), split(w, nodes)
    return ChannelPair(lower[index], upper[index], outside_probability(mu, Z), Z)


def standard_values(u, sigma: float) -> np.ndarray:
    """The distinct values ``u`` (increasing) in standard coordinates: ``w_j = (u_j - u_1) / sigma
    - mu / 2``, so the extremes are ``-+mu/2`` (exactly, for two values)."""
    u = np.asarray(u, dtype=float)
    mu = (u[-1] - u[0]) / sigma
    return (u - u[0]) / sigma - mu / 2


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


def step_renyi_values(centres, Z: float, alpha: float) -> tuple[float, np.ndarray]:
    """``(tau', B)``: ``B[a, b]`` bounds one step's ``D_alpha`` of value ``a`` against ``b`` in both
    parts of the mixture ``G = (1 - tau') A + tau' B`` with a weight ``1 - tau'`` common to every value
    (module docstring: more than two values). Two values: ``tau' = tau`` and :func:`step_renyi`.

    With ``tau_j`` value ``j``'s outside probability, ``tau' = 2 max_j tau_j`` and ``rho_j = (tau' -
    tau_j) / (1 - tau_j) > 0``, ``A_j = p_j 1_in / (1 - tau_j)`` and ``B_j = p_j (1_out + rho_j 1_in) /
    tau'``; with ``I_S = int_S p_a^alpha p_b^{1 - alpha} = e^{alpha (alpha - 1) (w_a - w_b)^2 / 2}
    P(N(c, 1) in S)``, ``c = alpha w_a + (1 - alpha) w_b``: ``E_alpha(A) = I_in / ((1 - tau_a)^alpha
    (1 - tau_b)^{1 - alpha})``, ``E_alpha(B) = (I_out + rho_a^alpha rho_b^{1 - alpha} I_in) / tau'``."""
    w = np.asarray(centres, dtype=float)
    m = w.size
    out = np.zeros((m, m))
    if m == 2:
        mu = float(w[1] - w[0])
        out[0, 1] = out[1, 0] = step_renyi(mu, Z, alpha)
        return outside_probability(mu, Z), out
    tau = ndtr(-Z - w) + ndtr(-Z + w)
    tau_r = 2.0 * float(np.max(tau))
    log_rho = np.log(tau_r - tau) - np.log1p(-tau)
    for a in range(m):
        for b in range(m):
            if a == b:
                continue
            c = alpha * w[a] + (1 - alpha) * w[b]
            base = alpha * (alpha - 1) * (w[a] - w[b]) ** 2 / 2
            with np.errstate(divide="ignore"):
                log_in = base + float(np.log(_mass(np.array(-Z), np.array(Z), float(c))))
            log_out = base + float(np.logaddexp(log_ndtr(-Z - c), log_ndtr(c - Z)))
            d_in = (log_in - alpha * math.log1p(-tau[a]) - (1 - alpha) * math.log1p(-tau[b])) / (alpha - 1)
            mixed = np.logaddexp(log_out, alpha * log_rho[a] + (1 - alpha) * log_rho[b] + log_in)
            d_out = (float(mixed) - math.log(tau_r)) / (alpha - 1)
            out[a, b] = max(d_in, d_out, 0.0)
    return tau_r, out


def _occurring(P: np.ndarray, initial: np.ndarray) -> np.ndarray:
    """The states of positive probability at some record: those reachable from the initial
    law's support (a superset of each record's support: the bound below may use it)."""
    seen = np.asarray(initial, dtype=float) > 0
    while True:
        more = seen | (P[seen] > 0).any(axis=0)
        if (more == seen).all():
            return seen
        seen = more


def _factor_ratio(col_a: np.ndarray, col_b: np.ndarray) -> float:
    """``ln max r + ln max 1/r`` with ``r = col_a / col_b`` over the entries where either is
    positive (``+inf`` where one is 0 and the other not)."""
    both = (col_a > 0) | (col_b > 0)
    with np.errstate(divide="ignore"):
        r = col_a[both] / col_b[both]
        return float(np.log(np.max(r))) + float(np.log(np.max(1 / r)))


def prior_ratio_bound(transition, initial) -> np.ndarray:
    """``B[a, b] >= sup_{t, K, x_{-t}} ln C_a(x_{-t}) / C_b(x_{-t})`` plus its reverse, where
    ``C_a`` is the law of the other records given ``x_t = a`` and the known ``x_K``: only the
    neighbours' factors ``P[c, a] P[a, d]`` depend on the target's value, and the normaliser is a
    mixture of them, so ``ln max_{c,d} r + ln max_{c,d} 1/r`` with ``r = P[c,a] P[a,d] / (P[c,b]
    P[b,d])`` bounds it (``+inf`` where a path possible under one value is impossible under the
    other).

    The supremum is over the adversaries for whom both values have positive probability and over
    the paths of positive probability: a predecessor ``c`` is a state that occurs (reachable from
    ``initial``'s support); a value no record takes (never entered from a state that occurs, and
    not in ``initial``'s support) gives ``-inf`` with every other value (the supremum over an
    empty set: no adversary); a value taken at the first record only (``initial`` gives it, no
    state that occurs leads to it) gives the successor's factor alone. The first record's factor
    ``pi(a)`` cancels in ``C_a``."""
    P = np.asarray(transition, dtype=float)
    k = P.shape[0]
    occurs = _occurring(P, np.asarray(initial, dtype=float))
    entered = (P[occurs] > 0).any(axis=0)  # possible at some record after the first
    out = np.zeros((k, k))
    for a in range(k):
        for b in range(k):
            if a == b:
                continue
            if not (occurs[a] and occurs[b]):
                out[a, b] = -math.inf
                continue
            total = _factor_ratio(P[a, :], P[b, :])  # the successor's (rows: never all 0)
            if entered[a] and entered[b]:  # the predecessor's, over the states that occur
                total += _factor_ratio(P[occurs, a], P[occurs, b])
            out[a, b] = total
    return out


__all__ = [
    "MAX_SEPARATION",
    "MAX_VALUES",
    "OUTSIDE",
    "ChannelPair",
    "HasChannels",
    "corner_channel",
    "distinct_values",
    "gaussian_channels",
    "lower_channel",
    "nodes_for",
    "outside_over",
    "outside_probability",
    "prior_ratio_bound",
    "range_for",
    "standard_values",
    "step_renyi",
    "step_renyi_values",
    "tangent_channel",
    "upper_channel",
]
