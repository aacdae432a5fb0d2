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

**Certified weights.** The upper channel's weights are integrals ``int_cell phi(z - c) lambda(z)
dz`` computed by Gauss-Legendre quadrature, and the upper end must hold, not merely be accurate
(closed forms exist, ``phi`` times exponentials, but they cancel catastrophically as ``mu h -> 0``).
Each weight ``W'`` is computed with an absolute error at most ``E``: the quadrature remainder's
bound (:func:`quadrature_remainder`: the integrand is entire, bounded on a Bernstein ellipse by
``|phi|``'s bound there times ``|lambda|``'s, both in closed form; the rule is applied on as many
equal pieces of each cell as bring the remainder's share under :data:`REMAINDER`,
cell by cell: the tails' wide cells and a large ``mu h`` need them) plus a running-error estimate
of the floating-point rounding (each operation off by at most ``u = 2^-53`` of the magnitudes it
combines, the library's ``exp`` and ``expm1`` within an ulp, times :data:`ROUNDING_MARGIN`: an
estimate, not a proof). So every entry of the computed channel ``D'`` is within ``e^{+-e}`` of
the exact ``D`` (:class:`SplitChannel`; ``e = 2 max_r -ln(1 - E_r / W'_r)`` plus the node
factors' and the normalisation's rounding), and the rounding of the values' standard coordinates
adds :func:`coordinates_error`. Then ``D >= e^{-e} D'`` entrywise and ``D = e^{-e} D' + (1 -
e^{-e}) R`` with ``R`` a channel: a mixture with a weight common to every state, exactly like the
range's (the garbling that gives ``G_in`` from ``D`` gives, from ``D'``, a garbling of ``D'``), so
``delta_G(eps) <= delta_{D'}(eps) + 1 - ((1 - tau) e^{-e})^T``
(:meth:`ChannelPair.slack`). For ``D_alpha`` the joint laws of the two hypotheses are within
``e^{+-L}``, ``L = T e``, of ``D'``'s, so ``E_alpha = sum P^alpha Q^{1 - alpha}`` grows at most by
``e^{(2 alpha - 1) L}`` (:meth:`ChannelPair.log_ratio`). Other releases of the step multiply each
entry by an exact factor and keep the bound. The widening is about ``T e`` (``e`` measured ``1e-12``
to ``3e-10`` at 64 to 4096 cells); where the cells are too coarse for the quadrature, ``e`` is large
and the upper end says so (up to ``delta <= 1``).
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
#: Gauss-Legendre points per cell (or piece of a cell) for the upper channel's weights
QUADRATURE = 20
#: the Bernstein ellipses (sums of semi-axes, in units of the half cell) over which the quadrature
#: remainder's bound is minimised (:func:`quadrature_remainder`)
ELLIPSES = (1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0)
#: float64's unit roundoff
ROUNDOFF = float(np.finfo(float).eps) / 2
#: the quadrature remainder's share of the upper channel's error aimed at (the rule is applied on
#: more pieces of a cell until it is below)
REMAINDER = 1e-13
#: the most pieces of a cell the rule is applied on
MAX_PARTS = 256
#: the factor on the running-error estimates of the upper channel's floating-point rounding
ROUNDING_MARGIN = 8.0
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
    error : float
        ``e``: per step, the release conditioned on its range and the upper channel as computed
        are within ``e^{+-e}`` of a release and a channel of which it is a garbling (module
        docstring: certified weights): the upper channel's quadrature remainder and rounding, and
        the rounding of the values' standard coordinates.
    """

    lower: np.ndarray
    upper: np.ndarray
    outside: float
    range: float
    error: float = 0.0

    def slack(self, steps: int) -> float:
        """``1 - ((1 - tau) e^{-e})^T``: added to the upper channel's ``delta`` over ``T`` steps
        (module docstring: certified weights)."""
        if self.outside <= 0 and self.error <= 0:
            return 0.0
        return float(-math.expm1(steps * (math.log1p(-self.outside) - self.error)))

    def log_ratio(self, steps: int) -> float:
        """``L = T e``: the joint law's log-ratio bound over ``T`` steps; the upper channel's
        ``D_alpha`` takes ``(2 alpha - 1) L / (alpha - 1)`` more (module docstring: certified
        weights)."""
        return steps * self.error


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


def _log_expm1(y: np.ndarray) -> np.ndarray:
    """``ln(e^y - 1)`` for ``y > 0`` without overflow."""
    y = np.asarray(y, dtype=float)
    return y + np.log(-np.expm1(-y))


def _taylor_tail(y: np.ndarray, weight, terms: int) -> np.ndarray:
    """``sum_{k = 2}^{terms - 1} weight(k) y^k / k!`` (for ``|y| < 0.5``, where it has converged)."""
    series = np.zeros_like(y)
    term = y.copy()
    for k in range(2, terms):
        term = term * y / k
        series = series + weight(k) * term
    return series


def _psi(y: np.ndarray) -> np.ndarray:
    """``psi(y) = y e^y - expm1(y) = sum_{k >= 2} (k - 1) y^k / k!`` (a series below ``|y| = 0.5``)."""
    y = np.asarray(y, dtype=float)
    small = np.abs(y) < 0.5
    series = _taylor_tail(np.where(small, y, 0.0), lambda k: k - 1, 24)
    with np.errstate(over="ignore"):
        direct = y * np.exp(y) - np.expm1(y)
    return np.where(small, series, direct)


def _log_psi(y: np.ndarray) -> np.ndarray:
    """``ln psi(y)`` for ``y > 0`` without overflow (``psi(y) = e^y (y - 1 + e^{-y})``)."""
    y = np.asarray(y, dtype=float)
    big = y >= 0.5
    with np.errstate(divide="ignore"):
        small = np.log(_psi(np.where(big, 0.25, y)))
    return np.where(big, y + np.log(np.where(big, y, 1.0) - 1 + np.exp(-np.where(big, y, 1.0))), small)


def quadrature_remainder(
    left: np.ndarray, h: np.ndarray, centre: float, log_weight, parts: int = 1
) -> np.ndarray:
    """A bound on the Gauss-Legendre remainder of ``int_cell phi(z - centre) lambda(z) dz`` on each
    cell ``[left, left + h]``, the rule applied on ``parts`` equal pieces of it (module docstring:
    certified weights).

    On a piece mapped onto ``[-1, 1]`` the integrand is entire; on the Bernstein ellipse of
    parameter ``rho`` (foci the piece's ends, semi-axes ``h' (rho +- 1/rho) / 4`` for a piece of
    width ``h'``) its modulus is at most ``M = e^{b^2 / 2} phi(g) L``, ``b`` the semi-minor axis,
    ``g`` the least distance from ``centre`` to the ellipse's shadow on the real line
    (``|e^{-(z - c)^2 / 2}| = e^{-((x - c)^2 - y^2) / 2}``) and ``L = exp(log_weight(R_a, R_b))`` the
    bound on ``|lambda|`` at the complex points within ``R_a`` of the cell's left end and ``R_b`` of
    its right end (the piece's centre's distances plus the semi-major axis). With ``n`` points
    (:data:`QUADRATURE`), ``|E| <= (h' / 2) (64 / 15) M rho^{-2n} / (1 - rho^{-2})`` (Trefethen,
    *Approximation Theory and Approximation Practice*, Theorem 19.3), minimised over
    :data:`ELLIPSES` and summed over the pieces.

    Parameters
    ----------
    left, h : numpy.ndarray
        ``(cells,)``: each cell's left end and width.
    centre : float
        The Gaussian factor's centre.
    log_weight : callable
        ``(R_a, R_b) (rhos, cells) -> (rhos, cells)``: the log of a bound on ``|lambda|``.
    parts : int
        The pieces of each cell the rule is applied on.
    """
    rho = np.asarray(ELLIPSES, dtype=float)[:, None]
    h = np.asarray(h, dtype=float)[None, :]
    half = h / (2 * parts)
    major, minor = (rho + 1 / rho) / 2, (rho - 1 / rho) / 2
    total = np.zeros(h.shape[1])
    for k in range(parts):
        offset = (2 * k + 1) * half  # the piece's centre, from the cell's left end
        gap = np.maximum(np.abs(np.asarray(left, dtype=float)[None, :] + offset - centre) - half * major, 0.0)
        log_m = -(gap**2) / 2 + (half * minor) ** 2 / 2 - 0.5 * math.log(2 * math.pi)
        log_m = log_m + log_weight(offset + half * major, h - offset + half * major)
        log_e = np.log(half) + math.log(64 / 15) + log_m - 2 * QUADRATURE * np.log(rho) - np.log1p(-(rho**-2))
        total = total + np.exp(np.min(log_e, axis=0))
    return total


def _points(h: np.ndarray, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """``(u, g)``, ``(cells, parts n)``: the offsets in each cell of the ``n``-point Gauss-Legendre
    rule (:data:`QUADRATURE`) on ``parts`` equal pieces of it, and their weights."""
    x, gw = np.polynomial.legendre.leggauss(QUADRATURE)
    k = np.arange(parts)[:, None]
    at = ((k + (x[None, :] + 1) / 2) / parts).ravel()
    return at[None, :] * h[:, None], np.tile(gw, parts)[None, :] * h[:, None] / (2 * parts)


def _base_rounding(zz: np.ndarray, centre: float, h: np.ndarray) -> np.ndarray:
    """A running-error estimate of the relative rounding of ``phi(zz - centre) w_k h / 2`` at the
    quadrature points ``zz = z_i + u_k`` (module docstring: certified weights): ``zz`` off by ``u (|zz|
    + 4 h)``, the exponent ``(zz - c)^2 / 2`` by ``|zz - c|`` times that plus its own rounding."""
    s = np.abs(zz - centre)
    return ROUNDOFF * (8 + s * (np.abs(zz) + 4 * h[:, None] + 1.5 * s))


def _weights(base: np.ndarray, rel_base: np.ndarray, lam: np.ndarray, err_lam: np.ndarray) -> tuple:
    """``(W, R)``: each cell's weight ``sum_k base_k lambda_k`` and a bound on its rounding: the
    terms' own (``base_k (rel_base_k lambda_k + err_lam_k)``, ``err_lam`` absolute) and the
    summation's (``n u W`` for ``n`` positive terms), times :data:`ROUNDING_MARGIN`."""
    W = np.sum(base * lam, axis=1)
    R = np.sum(base * (rel_base * np.abs(lam) + err_lam), axis=1) + base.shape[1] * ROUNDOFF * W
    return W, ROUNDING_MARGIN * R


def _log_error(W: np.ndarray, bound: np.ndarray) -> float:
    """``max ln(W' / W)``-type bound ``-ln(1 - E / W')`` over weights ``W'`` computed with absolute
    error at most ``E`` (``inf`` where ``E >= W'``)."""
    ratio = np.asarray(bound, dtype=float) / np.asarray(W, dtype=float)
    if ratio.size == 0:
        return 0.0
    worst = float(np.max(ratio))
    return -math.log1p(-worst) if worst < 1 else math.inf


def _split(
    weights: np.ndarray, factors: np.ndarray, weight_error: np.ndarray, factor_error: np.ndarray, remainder
):
    """``SplitChannel`` of entries ``weights[r] * factors[s, r]`` normalised per row ``s``: each
    weight's log error ``weight_error[r]``, each factor's ``factor_error[s, r]``; the row sum adds at
    most the largest entry's error and its own rounding (``n u`` for ``n`` positive terms), the
    division ``u``."""
    D = weights[None, :] * factors
    entry = weight_error[None, :] + factor_error
    worst = float(np.max(entry))
    n = D.shape[1]
    error = 2 * worst + ROUNDING_MARGIN * (n + 2) * ROUNDOFF
    return SplitChannel(D / D.sum(axis=1, keepdims=True), error, remainder)


def _node_factor_error(log_r: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Log error of ``exp(log_r)`` with ``log_r = d (z - m)`` (``scale = |d| (|z| + |m|)`` bounds the
    exponent's rounding)."""
    return ROUNDING_MARGIN * ROUNDOFF * (2 + 3 * scale + np.abs(log_r))


@dataclass(frozen=True)
class SplitChannel:
    """An upper channel's rows as computed and a bound on their error.

    Attributes
    ----------
    matrix : numpy.ndarray
        ``D'[s, r]``, rows normalised to 1.
    error : float
        ``e`` with ``|ln(D[s, r] / D'[s, r])| <= e`` for every entry, ``D`` the channel the module
        docstring defines (its weights the exact integrals): the quadrature's remainder
        (:func:`quadrature_remainder`) and the floating-point rounding.
    remainder : float
        The quadrature remainder's share of ``error`` (``-ln(1 - Q / W')`` at the worst weight).
    """

    matrix: np.ndarray
    error: float
    remainder: float = 0.0


def _refined(cells_of, left: np.ndarray, h: np.ndarray, parts: int | None) -> dict:
    """Each cell's weights ``{name: (W, E, Q)}`` (the weights, bounds on their errors, the bounds'
    quadrature share) from ``cells_of(left, h, parts)``, the rule on ``parts`` pieces of each cell;
    ``parts = None``: on the fewest pieces (1, 2, 4, ... :data:`MAX_PARTS`, cell by cell) that bring
    every weight's remainder under :data:`REMAINDER` of it (the tails' wide cells, a large ``mu h``)."""
    if parts is not None:
        return cells_of(left, h, parts)
    out = cells_of(left, h, 1)
    todo, k = _coarse(out), 1
    while todo.any() and k < MAX_PARTS:
        k *= 2
        sub = cells_of(left[todo], h[todo], k)
        for name, arrays in sub.items():
            for full, part in zip(out[name], arrays):
                full[todo] = part
        todo[todo] = _coarse(sub)
    return out


def _coarse(cells: dict) -> np.ndarray:
    """The cells some of whose weights have a remainder bound above :data:`REMAINDER` of them."""
    return np.any([Q > REMAINDER * W for W, _, Q in cells.values()], axis=0)


def _node_cells(mu: float, left: np.ndarray, h: np.ndarray, parts: int) -> dict:
    """``{"right", "left"}``: each cell's weights ``int phi_0 (1 - beta)`` (to its left node) and
    ``int phi_0 beta`` (to its right node) with their error bounds (:func:`upper_channel`)."""
    u, gq = _points(h, parts)  # offsets in each cell
    zz = left[:, None] + u
    phi0 = np.exp(-((zz + mu / 2) ** 2) / 2) / math.sqrt(2 * math.pi)
    if mu > 0:
        beta = np.expm1(mu * u) / np.expm1(mu * h)[:, None]
        log_up = lambda Ra, Rb: _log_expm1(mu * Ra) - _log_expm1(mu * h)  # noqa: E731
        log_down = lambda Ra, Rb: _log_expm1(mu * Rb) - np.log(-np.expm1(-mu * h))  # noqa: E731
    else:
        beta = u / h[:, None]
        log_up = lambda Ra, Rb: np.log(Ra / h)  # noqa: E731
        log_down = lambda Ra, Rb: np.log(Rb / h)  # noqa: E731
    base = phi0 * gq
    rel_base = _base_rounding(zz, -mu / 2, h)
    err_beta = beta * ROUNDOFF * (6 + 6 * (1 + mu * h[:, None]))
    right, r_round = _weights(base, rel_base, 1 - beta, ROUNDOFF * (1 + beta) + err_beta)
    to_right, l_round = _weights(base, rel_base, beta, err_beta)
    r_quad = quadrature_remainder(left, h, -mu / 2, log_down, parts)
    l_quad = quadrature_remainder(left, h, -mu / 2, log_up, parts)
    return {"right": (right, r_round + r_quad, r_quad), "left": (to_right, l_round + l_quad, l_quad)}


def upper_channel(mu: float, nodes: np.ndarray, parts: int | None = None) -> SplitChannel:
    """``(2, N + 1)``: the node channel ``D`` of the release conditioned on ``nodes[0] <= z <=
    nodes[-1]`` (module docstring: upper channel), rows normalised to 1, with its error bound.

    ``A_j``'s two cell integrals ``int phi_0 (1 - beta)`` and ``int phi_0 beta`` are computed by
    Gauss-Legendre quadrature (:data:`QUADRATURE` points on each of ``parts`` pieces of a cell;
    ``None``: as many as the remainder needs, cell by cell), their remainders bounded by
    :func:`quadrature_remainder` with ``|beta| <= expm1(mu R_a) / expm1(mu h)`` and ``|1 - beta| =
    |expm1(-mu (h - u)) / expm1(-mu h)| <= expm1(mu R_b) / (1 - e^{-mu h})`` (the series of
    ``expm1`` has positive coefficients); node ``j``'s high-state entry is ``e^{mu z_j}`` times its
    low-state entry."""
    z = np.asarray(nodes, dtype=float)
    cells = _refined(lambda a, h, k: _node_cells(mu, a, h, k), z[:-1], np.diff(z), parts)
    A, E, Q = (np.zeros(z.size) for _ in range(3))
    for out, ends in ((A, 0), (E, 1), (Q, 2)):
        out[:-1] += cells["right"][ends]
        out[1:] += cells["left"][ends]
    log_r = mu * z
    factors = np.vstack([np.ones(z.size), np.exp(log_r)])
    f_err = np.vstack([np.zeros(z.size), _node_factor_error(log_r, mu * np.abs(z))])
    return _split(A, factors, np.full(z.size, _log_error(A, E)), f_err, _log_error(A, Q))


def _corner_cells(w: np.ndarray, left: np.ndarray, h: np.ndarray, parts: int) -> dict:
    """``{corner: (W, E, Q)}``: each cell's weight ``int phi_1 lambda_c`` of every corner ``c`` with
    its error bound (:func:`corner_channel`)."""
    d = (w[1:] - w[0])[:, None, None]
    u0, gq = _points(h, parts)  # offsets in each cell
    u = u0[None]
    zz = left[:, None] + u0
    base = np.exp(-((zz - w[0]) ** 2) / 2) / math.sqrt(2 * math.pi) * gq
    rel_base = _base_rounding(zz, float(w[0]), h)
    span = np.expm1(d * h[None, :, None])
    up = np.expm1(d * u) / span  # t_j
    v = h[None, :, None] - u
    down = np.exp(d * u) * np.expm1(d * v) / span  # 1 - t_j
    rel_up = ROUNDOFF * (6 + 6 * (1 + d * h[None, :, None])) + 0 * u
    rel_down = ROUNDOFF * (10 + 5 * d * u + (1 + d * v) * (2 + 4 * u / v))
    log_t = [lambda Ra, Rb, dj=float(dj): _log_expm1(dj * Ra) - _log_expm1(dj * h) for dj in d[:, 0, 0]]
    log_s = [
        lambda Ra, Rb, dj=float(dj): _log_expm1(dj * Rb) - np.log(-np.expm1(-dj * h)) for dj in d[:, 0, 0]
    ]
    out = {}
    for corner in itertools.product((0, 1), repeat=w.size - 1):
        lam = np.prod([up[j] if c else down[j] for j, c in enumerate(corner)], axis=0)
        rel = np.sum([rel_up[j] if c else rel_down[j] for j, c in enumerate(corner)], axis=0)
        W, rounding = _weights(base, rel_base, lam, lam * (rel + w.size * ROUNDOFF))
        logs = [log_t[j] if c else log_s[j] for j, c in enumerate(corner)]
        quad = quadrature_remainder(
            left, h, float(w[0]), lambda Ra, Rb, logs=logs: np.sum([f(Ra, Rb) for f in logs], axis=0), parts
        )
        out[corner] = (W, rounding + quad, quad)
    return out


def corner_channel(centres, nodes: np.ndarray, parts: int | None = None) -> SplitChannel:
    """``(m, N + 1 + N (2^(m-1) - 2))``: the corner channel ``D`` of ``m >= 2`` values (module
    docstring: more than two values) conditioned on ``nodes[0] <= z <= nodes[-1]``, rows normalised,
    with its error bound.

    Outputs: the ``N + 1`` nodes (the corners ``r(z_i)`` shared by neighbouring cells), then the
    off-curve corners, corner by corner (``c`` in ``itertools.product`` order, ``c_j = 1``: the
    cell's right end for ``r_j``), each over the ``N`` cells. With ``d_j = w_j - w_1``,
    ``t_j = expm1(d_j u) / expm1(d_j h)`` and ``1 - t_j = e^{d_j u} expm1(d_j (h - u)) / expm1(d_j
    h)`` (``u`` the offset in a cell of width ``h``: no cancellation), a corner's weight ``int_cell
    phi_1 lambda_c`` is computed by Gauss-Legendre quadrature (:data:`QUADRATURE` points on each of
    ``parts`` pieces of a cell; ``None``: as many as the remainder needs, cell by cell), its
    remainder bounded by :func:`quadrature_remainder` with the product of ``|t_j| <= expm1(d_j R_a)
    / expm1(d_j h)`` and ``|1 - t_j| <= expm1(d_j R_b) / (1 - e^{-d_j h})``; value ``j``'s entry is
    the weight times ``r_j`` at the corner's ``j``-th end."""
    w = np.asarray(centres, dtype=float)
    z = np.asarray(nodes, dtype=float)
    N = z.size - 1
    cells = _refined(lambda a, h, k: _corner_cells(w, a, h, k), z[:-1], np.diff(z), parts)
    log_r = (w[1:] - w[0])[:, None] * (z[None, :] - (w[1:, None] + w[0]) / 2)  # ln r_j at the nodes
    scale = np.abs(w[1:] - w[0])[:, None] * (np.abs(z[None, :]) + np.abs(w[1:, None] + w[0]) / 2)
    r_err = _node_factor_error(log_r, scale)
    at = np.arange(N)
    node = [np.zeros(z.size) for _ in range(3)]  # weights, bounds, quadrature shares
    off: list = [[], [], []]
    factors, f_err = [np.vstack([np.ones(z.size), np.exp(log_r)])], [np.vstack([np.zeros(z.size), r_err])]
    for corner, arrays in cells.items():
        if not any(corner) or all(corner):
            for total, x in zip(node, arrays):
                total[(slice(None, -1) if not any(corner) else slice(1, None))] += x
            continue
        for part, x in zip(off, arrays):
            part.append(x)
        factors.append(np.vstack([np.ones(N), np.exp([log_r[j, at + c] for j, c in enumerate(corner)])]))
        f_err.append(np.vstack([np.zeros(N), [r_err[j, at + c] for j, c in enumerate(corner)]]))
    weights, bounds, quads = (np.concatenate([n, *o]) for n, o in zip(node, off))
    error = np.full(weights.size, _log_error(weights, bounds))
    return _split(weights, np.hstack(factors), error, np.hstack(f_err), _log_error(weights, quads))


def _expm1_excess(d: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``(e^{d t} - 1 - d t) / d`` without cancellation (a series below ``|d t| = 0.5``)."""
    y = d * t
    small = np.abs(y) < 0.5
    series = _taylor_tail(np.where(small, y, 0.0), lambda k: 1, 20)
    return np.where(small, series, np.expm1(y) - y) / d


def _tangent_vertex(d2: float, d3: float, h: np.ndarray) -> tuple:
    """``(g3h, g2h, s_b, s_a, e_gh, e_sa)``: per cell ``g_j(h)``, the tangents' parameters
    (:func:`tangent_channel`) and running-error estimates of ``g_3(h) - g_2(h)`` and ``s_A``."""
    uu = ROUNDOFF
    g3h, g2h = _expm1_excess(np.array(d3), h), _expm1_excess(np.array(d2), h)
    gh = g3h - g2h  # > 0
    s_b = gh / (np.exp(d2 * h) * np.expm1((d3 - d2) * h))  # (E_3 - E_2) / (e_3 - e_2)
    s_a = np.expm1(d2 * h) / d2 - s_b * np.exp(d2 * h)
    e_gh = uu * (g3h + g2h) + uu * (40 + 5 * d3 * h) * g3h + uu * (40 + 5 * d2 * h) * g2h
    r_sb = e_gh / gh + uu * (6 + (1 + (d3 - d2) * h) * (2 + (d3 + d2) / (d3 - d2)))
    e_sa = uu * 5 * np.expm1(d2 * h) / d2 + s_b * np.exp(d2 * h) * (r_sb + 3 * uu + 2 * d2 * h * uu)
    return g3h, g2h, s_b, s_a, e_gh, e_sa


def _tangent_cells(w: np.ndarray, left: np.ndarray, h: np.ndarray, parts: int) -> dict:
    """``{"A", "B", "T"}``: each cell's weights of its left node, right node and tangent vertex
    with their error bounds (:func:`tangent_channel`)."""
    d2, d3 = float(w[1] - w[0]), float(w[2] - w[0])
    u, gq = _points(h, parts)
    zz = left[:, None] + u
    base = np.exp(-((zz - w[0]) ** 2) / 2) / math.sqrt(2 * math.pi) * gq
    g3h, g2h, s_b, s_a, e_gh, e_sa = _tangent_vertex(d2, d3, h)
    gh = g3h - g2h
    g3u, g2u = _expm1_excess(np.array(d3), u), _expm1_excess(np.array(d2), u)
    lam_b = (g3u - g2u) / gh[:, None]
    e2h, e3h, e2u, e3u = np.expm1(d2 * h), np.expm1(d3 * h), np.expm1(d2 * u), np.expm1(d3 * u)
    cross = e2h[:, None] * e3u - e3h[:, None] * e2u
    lam_t = np.maximum(-cross / (s_a * d2 * d3 * gh)[:, None], 0.0)
    lam_a = np.maximum(1.0 - lam_b - lam_t, 0.0)
    # running-error estimates (module docstring: certified weights), absolute for each lambda
    uu = ROUNDOFF
    r_g = lambda d, t: uu * (40 + 5 * d * t)  # noqa: E731
    e_b = (uu * (g3u + g2u) + r_g(d3, u) * g3u + r_g(d2, u) * g2u + lam_b * e_gh[:, None]) / gh[:, None]
    e_b = e_b + uu * lam_b
    r_e = lambda d, t: uu * (3 + 5 * (1 + d * t))  # noqa: E731
    e_cross = e2h[:, None] * e3u * (r_e(d2, h)[:, None] + r_e(d3, u) + uu)
    e_cross = e_cross + e3h[:, None] * e2u * (r_e(d3, h)[:, None] + r_e(d2, u) + uu)
    den = s_a * d2 * d3 * gh
    r_den = e_sa / s_a + e_gh / gh + 4 * uu
    e_t = np.abs(e_cross) / den[:, None] + lam_t * (r_den[:, None] + uu)
    e_a = 2 * uu * (1 + lam_b + lam_t) + e_b + e_t
    rel_base = _base_rounding(zz, float(w[0]), h)
    log_b = lambda Ra, Rb: _log_psi(d3 * Ra) - _log_psi(d3 * h)  # noqa: E731
    log_a = lambda Ra, Rb: _log_psi(d3 * Rb) - np.log(_psi(-d3 * h))  # noqa: E731
    log_t = lambda Ra, Rb: np.logaddexp(0.0, np.logaddexp(log_a(Ra, Rb), log_b(Ra, Rb)))  # noqa: E731
    out = {}
    for name, lam, err, log_lam in (
        ("A", lam_a, e_a, log_a),
        ("B", lam_b, e_b, log_b),
        ("T", lam_t, e_t, log_t),
    ):
        W, rounding = _weights(base, rel_base, lam, err)
        quad = quadrature_remainder(left, h, float(w[0]), log_lam, parts)
        out[name] = (W, rounding + quad, quad)
    return out


def tangent_channel(centres, nodes: np.ndarray, parts: int | None = None) -> SplitChannel:
    """``(3, 2 N + 1)``: the tangent channel of three values (module docstring: three values)
    conditioned on ``nodes[0] <= z <= nodes[-1]``, rows normalised, with its error bound. Outputs:
    the ``N + 1`` nodes, then each cell's tangent vertex ``T``.

    In a cell ``[a, a + h]`` with ``x_j(u) = r_j(a + u) / r_j(a) - 1 = expm1(d_j u)`` the curve
    runs from ``0`` to ``B = x(h)``; the tangents at its ends meet at ``T = s_A (d_2, d_3)`` with
    ``s_B = (E_3 - E_2) / (e^{d_3 h} - e^{d_2 h})``, ``s_A = E_2 - s_B e^{d_2 h}``, ``E_j = expm1(d_j
    h) / d_j``. The barycentric weights of ``x(u)`` are ``lambda_B = (g_3(u) - g_2(u)) / (g_3(h) -
    g_2(h))`` (``g_j(t) = (e^{d_j t} - 1 - d_j t) / d_j``, no cancellation), ``lambda_T = (B_2 x_3 -
    B_3 x_2) / (s_A d_2 d_3 (g_2(h) - g_3(h)))`` and ``lambda_A = 1 - lambda_B - lambda_T``; their
    integrals against ``phi_1`` by Gauss-Legendre quadrature (:data:`QUADRATURE` points on each of
    ``parts`` pieces of a cell; ``None``: as many as the remainder needs, cell by cell).

    The remainders (:func:`quadrature_remainder`): ``g_3 - g_2 = int_{d_2}^{d_3} psi(d t) / d^2 dd``
    with ``psi(y) = y e^y - expm1(y)`` (positive coefficients), so ``|lambda_B| <= sup_d psi(d R_a)
    / psi(d h) = psi(d_3 R_a) / psi(d_3 h)`` (the ratio grows with ``d``); the same weight seen from
    the cell's other end (``d -> -d``, ``u -> h - u``) is ``lambda_A``, whose denominator is
    ``int psi(-d h) / d^2 dd``, so ``|lambda_A| <= psi(d_3 R_b) / psi(-d_3 h)``; ``|lambda_T| <= 1 +
    |lambda_A| + |lambda_B|``."""
    w = np.asarray(centres, dtype=float)
    z = np.asarray(nodes, dtype=float)
    h = np.diff(z)
    d2, d3 = float(w[1] - w[0]), float(w[2] - w[0])
    cells = _refined(lambda a, hh, k: _tangent_cells(w, a, hh, k), z[:-1], h, parts)
    _, _, _, s_a, _, e_sa = _tangent_vertex(d2, d3, h)
    log_r = (w[1:] - w[0])[:, None] * (z[None, :] - (w[1:, None] + w[0]) / 2)  # ln r_j at the nodes
    scale = np.abs(w[1:] - w[0])[:, None] * (np.abs(z[None, :]) + np.abs(w[1:, None] + w[0]) / 2)
    r_err = _node_factor_error(log_r, scale)
    node = [np.zeros(z.size) for _ in range(3)]  # weights, bounds, quadrature shares
    for total, a, b in zip(node, cells["A"], cells["B"]):
        total[:-1] += a
        total[1:] += b
    dd = np.array([[d2], [d3]])
    tip = 1 + s_a[None, :] * dd
    ratio_t = np.exp(log_r[:, :-1]) * tip
    t_err = r_err[:, :-1] + ROUNDING_MARGIN * (e_sa[None, :] * dd + 3 * ROUNDOFF * tip) / tip
    weights, bounds, quads = (np.concatenate([n, t]) for n, t in zip(node, cells["T"]))
    factors = np.vstack([np.ones(weights.size), np.hstack([np.exp(log_r), ratio_t])])
    f_err = np.vstack([np.zeros(weights.size), np.hstack([r_err, t_err])])
    error = np.full(weights.size, _log_error(weights, bounds))
    return _split(weights, factors, error, f_err, _log_error(weights, quads))


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
    tau = outside_probability(mu, Z)
    error = upper.error + coordinates_error(mu, Z, tau)
    return ChannelPair(lower[index], upper.matrix[index], tau, Z, error)


def coordinates_error(mu: float, Z: float, tau: float) -> float:
    """The per-step log-ratio bound added by the rounding of the standard coordinates (module
    docstring: certified weights): each ``w_j`` is within ``Delta = 4.5 u mu`` of the exact
    ``(v_j - v_1) / sigma - mu / 2``, so every density on the range is within ``e^{+-k}``, ``k = (Z +
    mu / 2) Delta + Delta^2 / 2``, of the exact one and every conditioned density within
    ``e^{+-2 k}``; ``tau`` (``ndtr``, within ``r = 16 u + (Z + mu) Delta`` relative) costs ``2 tau r``
    more in the common weight ``1 - tau``."""
    delta = 4.5 * ROUNDOFF * mu
    k = (Z + mu / 2) * delta + delta**2 / 2
    r = 16 * ROUNDOFF + (Z + mu) * delta
    return ROUNDING_MARGIN * (2 * k + 2 * tau * r)


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
    "ELLIPSES",
    "MAX_PARTS",
    "QUADRATURE",
    "REMAINDER",
    "ROUNDING_MARGIN",
    "ROUNDOFF",
    "ChannelPair",
    "HasChannels",
    "SplitChannel",
    "coordinates_error",
    "corner_channel",
    "distinct_values",
    "gaussian_channels",
    "lower_channel",
    "nodes_for",
    "outside_over",
    "outside_probability",
    "prior_ratio_bound",
    "quadrature_remainder",
    "range_for",
    "standard_values",
    "step_renyi",
    "step_renyi_values",
    "tangent_channel",
    "upper_channel",
]
