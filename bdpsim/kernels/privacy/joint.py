"""Joint laws of several releases of one lattice query with independent noises, and Monte Carlo
intervals of the joint privacy profile.

``m`` releases ``Y_r = S + Z_r`` of the same query ``S`` (atoms ``c_j``, weights ``w_j`` under one
hypothesis, ``w'_j`` under the other) with independent noises ``Z_r`` have the joint laws
``p(y) = sum_j w_j prod_r k_r(y_r - c_j)`` and ``q(y)`` likewise: one mixture over ``S`` of product
kernels, the same ``S`` in every factor (the releases are dependent given the secret). Three ways
to its divergences:

* **sufficient statistic** (:func:`effective_sigma`): Gaussian releases ``N(0, sigma_r^2)`` depend on
  ``S`` only through ``sum_r y_r / sigma_r^2``, which is ``S + N(0, sigma_eff^2)`` with
  ``sigma_eff^{-2} = sum_r sigma_r^{-2}``: the joint pair is the one-release pair with
  ``sigma_eff`` (every divergence equal: a sufficient statistic loses nothing);
* **enumeration** (:func:`lattice_joint`): lattice noises (geometric, ...) give lattice outputs;
  the product grid of the outputs that carry all but ``TAIL`` mass of every release is enumerated,
  and the mass outside it bounds the error (``delta_box <= delta <= delta_box + outside``);
* **Monte Carlo** (:func:`mc_profile`): draws ``y ~ p`` with the exact ``L(y) = ln p(y)/q(y)`` per
  draw; ``delta(eps) = E_p[(1 - e^{eps - L})^+]`` is a mean of values in ``[0, 1]``, bounded by the
  empirical Bernstein inequality (Maurer and Pontil 2009, Thm 4) — an interval that holds with the
  stated confidence for every sample size (no normal approximation).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ..argcheck import TooExpensive, require
from .mixture import lattice_steps

#: mass of each release's output law left outside the enumerated grid
TAIL = 1e-14
#: most (grid cells x atoms) an enumeration computes
MAX_ENUMERATION = 3e7


def effective_sigma(sigmas: Sequence[float]) -> float:
    """``sigma_eff = (sum_r sigma_r^{-2})^{-1/2}``: the one Gaussian release equivalent to all."""
    s = np.asarray(list(sigmas), dtype=float)
    require(
        s.size > 0 and bool(np.all(s > 0) & np.all(np.isfinite(s))),
        "sigmas",
        s.tolist(),
        "must be finite numbers > 0",
    )
    return float(1.0 / math.sqrt(float(np.sum(s**-2.0))))


@dataclass(frozen=True)
class JointLaws:
    """``p`` and ``q`` on the enumerated output grid (flattened) and the mass of each outside it."""

    p: np.ndarray
    q: np.ndarray
    outside: float
    cells: int


def _grid(noise, c: np.ndarray) -> np.ndarray:
    st = float(noise.step)
    c = np.sort(c)
    k = lattice_steps(c, st)

    def tails(r: int) -> float:  # noise mass beyond r steps on either side
        y = np.array([-r * st - 0.5 * st, r * st + 0.5 * st])
        F = noise.cdf(y)
        return float(F[0] + 1.0 - F[1])

    reach = 1
    while tails(reach) > TAIL:
        reach *= 2
    lo = reach // 2
    while lo < reach - 1 and tails(lo) > TAIL:  # the least reach keeping the tails below TAIL
        lo += 1
    reach = lo if tails(lo) <= TAIL else reach
    return c[0] + st * np.arange(-reach, int(round(k[-1])) + reach + 1)


def lattice_joint(atoms, w1, w2, noises, max_cost: float = MAX_ENUMERATION) -> JointLaws:
    """The joint laws of ``len(noises)`` releases with lattice noises on the product grid of their
    outputs (module docstring); ``atoms`` the ``(J,)`` values of one query or a ``(J, m)`` table of
    each release's value. :class:`~bdpsim.kernels.argcheck.TooExpensive` up front above ``max_cost``."""
    A = _columns(atoms, len(noises))
    a, b = np.asarray(w1, dtype=float).ravel(), np.asarray(w2, dtype=float).ravel()
    require(a.size == A.shape[0] and b.size == A.shape[0], "w1", a.shape, "must have one weight per atom")
    keep = (a > 0) | (b > 0)
    A, a, b = A[keep], a[keep] / a.sum(), b[keep] / b.sum()
    grids = [_grid(z, np.unique(A[:, r])) for r, z in enumerate(noises)]
    cost = float(np.prod([float(g.size) for g in grids])) * A.shape[0]
    if cost > max_cost:
        raise TooExpensive(
            "releases",
            f"{len(noises)} lattice releases of a query with {A.shape[0]} values",
            f"the exact joint law needs {cost:.3g} cells x atoms (limit {max_cost:.3g})",
        )
    out = []
    for w in (a, b):
        T = w.copy()  # shape (..., J): mass of each atom times the kernels so far
        for r, (z, g) in enumerate(zip(noises, grids)):
            K = np.exp(z.log_density(g[:, None] - A[None, :, r]))  # (G, J)
            T = T[..., None, :] * K
        out.append(T.sum(axis=-1).ravel())
    outside = max(0.0, 1.0 - float(out[0].sum()), 1.0 - float(out[1].sum()))
    return JointLaws(out[0], out[1], outside, int(out[0].size))


def grid_size(noise, atoms) -> int:
    """Outputs of one lattice release of a query with these values on the enumerated grid."""
    return int(_grid(noise, np.asarray(atoms, dtype=float)).size)


def _columns(atoms, m: int) -> np.ndarray:
    """``atoms`` as a ``(J, m)`` table: column ``r`` the value release ``r`` adds its noise to (one
    column repeated when all releases read the same query)."""
    A = np.asarray(atoms, dtype=float)
    return np.repeat(A[:, None], m, axis=1) if A.ndim == 1 else A


def joint_log_density(y: np.ndarray, atoms: np.ndarray, w: np.ndarray, noises) -> np.ndarray:
    """``ln sum_j w_j prod_r k_r(y_r - c_jr)`` for draws ``y`` of shape ``(N, m)`` (``atoms``: the
    ``(J,)`` values of one query, or a ``(J, m)`` table of each release's value)."""
    A = _columns(atoms, len(noises))
    acc = np.zeros((y.shape[0], A.shape[0]))
    for r, z in enumerate(noises):
        acc += z.log_density(y[:, r, None] - A[None, :, r])
    with np.errstate(divide="ignore"):
        return logsumexp(acc + np.log(w)[None, :], axis=1)


def sample_joint(atoms, w, noises, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of ``(Y_1..Y_m)``: ``S ~ w`` once per draw, an independent noise per release."""
    A = _columns(atoms, len(noises))
    j = rng.choice(A.shape[0], size=size, p=np.asarray(w, dtype=float) / np.sum(w))
    return np.stack([A[j, r] + z.sample(size, rng) for r, z in enumerate(noises)], axis=1)


def bernstein_halfwidth(values: np.ndarray, failure: float, value_range: float = 1.0) -> float:
    """One-sided empirical Bernstein deviation of a mean of ``n`` values in an interval of length
    ``value_range`` (Maurer and Pontil 2009, Thm 4): with probability ``>= 1 - failure``,
    ``mu - mean <= sqrt(2 V ln(2/failure) / n) + 7 R ln(2/failure) / (3 (n - 1))``."""
    n = values.size
    require(n >= 2, "values", n, "need at least 2 draws")
    return float(bernstein_deviation(float(np.var(values, ddof=1)), n, failure, value_range))


def bernstein_deviation(var, n: int, failure: float, value_range: float = 1.0):
    """:func:`bernstein_halfwidth` from the sample variance ``var`` (unbiased; a number or an array)
    of ``n`` values: ``sqrt(2 var ln(2/failure) / n) + 7 R ln(2/failure) / (3 (n - 1))``."""
    lg = math.log(2.0 / failure)
    return np.sqrt(2.0 * np.asarray(var, dtype=float) * lg / n) + 7.0 * value_range * lg / (3.0 * (n - 1))


@dataclass(frozen=True)
class MonteCarloProfile:
    """Monte Carlo privacy profile of a pair: per ``eps``, the estimate and an interval holding
    with probability ``>= confidence`` for both orders at once; ``loss_max`` is the largest loss
    seen (a certified lower bound of the supremum of the loss)."""

    epsilons: np.ndarray
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    draws: int
    confidence: float
    loss_max: float


def loss_draws(
    atoms, w1, w2, noises, draws: int, rng: np.random.Generator, chunk: int = 20_000
) -> np.ndarray:
    """``draws`` privacy losses ``L = ln p(Y)/q(Y)`` with ``Y ~ p``: ``p`` the joint law of the noisy
    releases when the query vector has law ``w1`` on ``atoms``, ``q`` with ``w2``
    (:func:`sample_joint`, :func:`joint_log_density`), drawn in chunks of ``chunk`` (bounded memory).
    ``H_t(p||q) = E_p[(1 - t e^{-L})^+]`` is the hockey-stick divergence they estimate."""
    out = []
    left = draws
    while left > 0:
        k = min(chunk, left)
        y = sample_joint(atoms, w1, noises, k, rng)
        out.append(joint_log_density(y, atoms, w1, noises) - joint_log_density(y, atoms, w2, noises))
        left -= k
    return np.concatenate(out)


def _profile_from(Lp, Lq, e, fail):
    est, lo, hi = [], [], []
    for v in e:
        sides = []
        for L in (Lp, Lq):
            x = np.maximum(-np.expm1(np.minimum(v - L, 700.0)), 0.0)
            m, hw = float(x.mean()), bernstein_halfwidth(x, fail)
            sides.append((m, max(0.0, m - hw), min(1.0, m + hw)))
        est.append(max(s[0] for s in sides))
        lo.append(max(s[1] for s in sides))
        hi.append(max(s[2] for s in sides))
    return np.array(est), np.array(lo), np.array(hi)


def mc_profile(
    atoms,
    w1,
    w2,
    noises,
    epsilons,
    draws: int,
    rng: np.random.Generator,
    confidence: float = 0.95,
    target_width: float | None = None,
    max_draws: int = 4_000_000,
) -> MonteCarloProfile:
    """``max(delta_{p||q}(eps), delta_{q||p}(eps))`` by ``draws`` draws under each law (module
    docstring). The interval of each order is two-sided with failure ``(1 - confidence)/4`` per
    side, so both orders hold together with probability ``>= confidence``.

    With ``target_width`` the draws double (up to ``max_draws``) until every interval is at most
    that wide; round ``k`` spends the failure ``(1 - confidence) / (k (k + 1))`` (summing to at most
    ``1 - confidence`` over all rounds), so the interval where it stops holds with the stated
    confidence whatever the stopping rule."""
    A = np.asarray(atoms, dtype=float)
    a, b = np.asarray(w1, dtype=float), np.asarray(w2, dtype=float)
    a, b = a / a.sum(), b / b.sum()
    require(0.0 < confidence < 1.0, "confidence", confidence, "must be in (0, 1)")
    require(isinstance(draws, (int, np.integer)) and draws >= 2, "draws", draws, "must be an integer >= 2")
    e = np.atleast_1d(np.asarray(epsilons, dtype=float))
    Lp = loss_draws(A, a, b, noises, draws, rng)  # ln p/q under p
    Lq = loss_draws(A, b, a, noises, draws, rng)  # ln q/p under q
    if target_width is None:
        est, lo, hi = _profile_from(Lp, Lq, e, (1.0 - confidence) / 4.0)
    else:
        k = 1
        while True:
            est, lo, hi = _profile_from(Lp, Lq, e, (1.0 - confidence) / (4.0 * k * (k + 1)))
            if float(np.max(hi - lo)) <= target_width or 2 * Lp.size > max_draws:
                break
            Lp = np.concatenate([Lp, loss_draws(A, a, b, noises, Lp.size, rng)])
            Lq = np.concatenate([Lq, loss_draws(A, b, a, noises, Lq.size, rng)])
            k += 1
    lmax = float(max(Lp.max(), Lq.max()))
    return MonteCarloProfile(e, est, lo, hi, int(Lp.size), float(confidence), lmax)


def mixture_log_ratio_bound(w1, w2) -> float:
    """``max_j |ln w_j / w'_j|`` over atoms of either law: no output of any noise kernel can give a
    larger loss (a ratio of two mixtures of the same kernels is at most the largest ratio of their
    weights); ``+inf`` when the supports differ."""
    a, b = np.asarray(w1, dtype=float), np.asarray(w2, dtype=float)
    a, b = a / a.sum(), b / b.sum()
    use = (a > 0) | (b > 0)
    if np.any((a[use] == 0) | (b[use] == 0)):
        return math.inf
    return float(np.max(np.abs(np.log(a[use]) - np.log(b[use]))))


def _multiplicities(cells: np.ndarray) -> np.ndarray:
    """``m! / prod_v count_v!``: the number of output tuples with the sorted outputs ``cells``."""
    m = cells.shape[1]
    out = np.full(cells.shape[0], float(math.factorial(m)))
    run = np.ones(cells.shape[0])
    for r in range(1, m):
        same = cells[:, r] == cells[:, r - 1]
        run = np.where(same, run + 1, 1.0)
        out /= np.where(same, run, 1.0)
    return out


def lattice_joint_rows(atoms, W1, W2, noises, epsilon: float | None, chunk: int = 400_000):
    """:func:`lattice_joint` for many pairs of laws at once (rows of ``W1, W2`` on ``atoms``):
    per row the larger of both orders of ``H_eps`` (``epsilon`` given) or of ``sup |ln p/q|``
    (``epsilon = None``), and the mass outside the grid (at most, over rows and both laws).

    The product kernel ``prod_r k_r(y_r - c_j)`` is built once, chunk by chunk of the output grid,
    and every row's ``p = K w`` is one matrix product."""
    c = np.asarray(atoms, dtype=float).ravel()
    A, B = np.atleast_2d(np.asarray(W1, dtype=float)), np.atleast_2d(np.asarray(W2, dtype=float))
    A = A / A.sum(axis=1, keepdims=True)
    B = B / B.sum(axis=1, keepdims=True)
    used = (A > 0).any(axis=0) | (B > 0).any(axis=0)
    c, A, B = c[used], A[:, used], B[:, used]
    grids = [_grid(z, c) for z in noises]
    cost = float(np.prod([float(g.size) for g in grids])) * (c.size + 2 * A.shape[0])
    if cost > MAX_ENUMERATION * 100:
        raise TooExpensive(
            "releases",
            f"{len(noises)} lattice releases x {A.shape[0]} pairs",
            f"the exact joint laws need {cost:.3g} cells x (atoms + pairs) "
            f"(limit {MAX_ENUMERATION * 100:.3g})",
        )
    kern = [np.exp(z.log_density(g[:, None] - c[None, :])) for z, g in zip(noises, grids)]
    shape = tuple(g.size for g in grids)
    same = len(noises) > 1 and all(z == noises[0] for z in noises)
    if same:  # identical noises: the joint law is symmetric, enumerate sorted outputs once
        cells = np.array(list(itertools.combinations_with_replacement(range(shape[0]), len(noises))))
        mult = _multiplicities(cells)
        total = cells.shape[0]
    else:
        total = int(np.prod(shape))
    rows = A.shape[0]
    f_acc, b_acc = np.zeros(rows), np.zeros(rows)
    f_sup, b_sup = np.full(rows, -np.inf), np.full(rows, -np.inf)
    mass_p, mass_q = np.zeros(rows), np.zeros(rows)
    k = math.exp(epsilon) if epsilon is not None else 0.0
    for start in range(0, total, chunk):
        stop = min(total, start + chunk)
        if same:
            idx = tuple(cells[start:stop, r] for r in range(len(noises)))
            wt = mult[start:stop, None]
        else:
            idx = np.unravel_index(np.arange(start, stop), shape)
            wt = np.ones((stop - start, 1))
        M = kern[0][idx[0]]
        for r in range(1, len(kern)):
            M = M * kern[r][idx[r]]
        P, Q = M @ A.T, M @ B.T  # (cells, rows)
        mass_p += (wt * P).sum(axis=0)
        mass_q += (wt * Q).sum(axis=0)
        if epsilon is not None:
            f_acc += (wt * np.maximum(P - k * Q, 0.0)).sum(axis=0)
            b_acc += (wt * np.maximum(Q - k * P, 0.0)).sum(axis=0)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                lr = np.log(P) - np.log(Q)
            lr = np.where((P > 0) & (Q > 0), lr, np.where(P > 0, np.inf, np.where(Q > 0, -np.inf, np.nan)))
            f_sup = np.maximum(f_sup, np.nanmax(np.where(np.isnan(lr), -np.inf, lr), axis=0))
            b_sup = np.maximum(b_sup, np.nanmax(np.where(np.isnan(lr), -np.inf, -lr), axis=0))
    outside = float(max(0.0, float(np.max(1.0 - mass_p)), float(np.max(1.0 - mass_q))))
    if epsilon is not None:
        return np.maximum(f_acc, b_acc), np.where(f_acc >= b_acc, 1.0, -1.0), outside
    return np.maximum(f_sup, b_sup), np.where(f_sup >= b_sup, 1.0, -1.0), outside


def laplace_log_ratio_bound(atoms, W1, W2, rate: float) -> np.ndarray:
    """Per row, an upper bound of ``sup_y |ln p(y)/q(y)|`` for releases of one query with Laplace
    noises of total rate ``B = sum_r 1/b_r``: ``K_s(y) <= e^{B |s - t|} K_t(y)`` for every ``t``,
    so ``p/q <= sum_s w_s e^{B |s - t|} / w'_t``; the least over ``t``, both orders (finite whenever
    both laws have mass; the largest ratio of the weights may be infinite)."""
    c = np.asarray(atoms, dtype=float)
    A, B = np.atleast_2d(np.asarray(W1, dtype=float)), np.atleast_2d(np.asarray(W2, dtype=float))
    A = A / A.sum(axis=1, keepdims=True)
    B = B / B.sum(axis=1, keepdims=True)
    E = rate * np.abs(c[:, None] - c[None, :])  # E[s, t]
    with np.errstate(divide="ignore"):
        out = []
        for P, Q in ((A, B), (B, A)):
            lse = logsumexp(np.log(P)[:, :, None] + E[None, :, :], axis=1)  # (rows, t)
            v = np.where(Q > 0, lse - np.log(Q), np.inf)
            out.append(v.min(axis=1))
    return np.maximum(out[0], out[1])
