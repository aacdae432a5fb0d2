"""The optimal attack's trade-off between false and true positives for two output laws.

An adversary ``(i, K, x_K, x, x')`` sees the output ``y`` of the mechanism and tests
``H0: X_i = x'`` (law ``Q``, the "negatives") against ``H1: X_i = x`` (law ``P``, the
"positives"). For a test ``phi`` its false-positive rate is ``E_Q phi`` and its true-positive
rate ``E_P phi``. The Neyman-Pearson lemma makes the likelihood-ratio tests optimal, and gives
(Dong, Roth and Su 2022, Prop. 2.12)::

    TPR(alpha) = 1 - beta(alpha) = inf_{t > 0} [ t alpha + H(t) ],   H(t) = ∫ (p(y) - t q(y))^+ dy,

where ``beta(alpha)`` is the least type-II error at type-I error ``alpha`` (the trade-off function
``T(Q, P)``) and ``H(t)`` the hockey-stick divergence ``delta_{P||Q}(ln t)`` of the noise law
(:meth:`bdpsim.kernels.noise.laws.NoiseLaw.hockey_stick`, exact for every law). From the same
function:

* the advantage ``max_phi (TPR - FPR) = H(1) = TV(P, Q)``;
* the Bayes-optimal success of guessing ``x`` (prior ``pi``) vs ``x'`` (``1 - pi``):
  ``sum_y max(pi p, (1 - pi) q) = (1 - pi) + pi H((1 - pi)/pi)``.

``t alpha + H(t)`` is convex in ``t`` (``H`` is a supremum of affine functions of ``t``), so its
infimum is found by golden-section search in ``u = ln t`` (unimodal there); the infimum is flat to
first order, so ``tpr_at`` is exact up to floating point and the search's relative width ``1e-13``
in ``t`` (tested against the closed forms to ``1e-9``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, ndtr, ndtri

from ..core.errors import ConfigError
from ..models.pairs import HasClosedTradeOff

#: the largest ``|ln t|`` searched (the noise laws' profile accepts ``|eps| <= 100``)
LOG_T_MAX = 100.0
#: largest eps whose e^eps is computed directly (``math.exp`` overflows past ~709.78): beyond, log space
EXP_MAX = 700.0
_GOLD = (math.sqrt(5.0) - 1.0) / 2.0


def check_fpr(name: str, value) -> np.ndarray:
    """``value`` as a float array, every entry in the open interval (0, 1); else ``ConfigError``."""
    arr = np.asarray(value, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0.0) or np.any(arr >= 1.0):
        shown = float(arr) if arr.ndim == 0 else [float(v) for v in np.ravel(arr)]
        if isinstance(shown, list) and len(shown) == 1:
            shown = shown[0]
        raise ConfigError(name, shown, "must be in the open interval (0, 1)")
    return arr


def argmin_log_t(
    fn: Callable[[float], float], lo: float = -LOG_T_MAX, hi: float = LOG_T_MAX, tol: float = 1e-13
) -> tuple[float, float]:
    """Golden-section search of a unimodal ``fn(u)`` on ``[lo, hi]``: ``(u*, fn(u*))``, the best
    value seen (every evaluated point is a valid upper bound of the infimum)."""
    a, b = lo, hi
    c, d = b - _GOLD * (b - a), a + _GOLD * (b - a)
    fc, fd = fn(c), fn(d)
    best = min((fc, c), (fd, d))
    while b - a > tol * max(1.0, abs(a), abs(b)):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - _GOLD * (b - a)
            fc = fn(c)
        else:
            a, c, fc = c, d, fd
            d = a + _GOLD * (b - a)
            fd = fn(d)
        best = min(best, (fc, c), (fd, d))
    return best[1], best[0]


@dataclass(frozen=True)
class TradeOff:
    """The optimal attack of one pair of output laws, from its hockey-stick function.

    Parameters
    ----------
    hockey : callable
        ``t -> H(t) = ∫ (p - t q)^+`` for ``t > 0`` (``p``: the law under ``x``, the positives;
        ``q``: under ``x'``). Exact for every noise law of bdpsim.
    closed_tpr : callable, optional
        ``alpha -> TPR(alpha)`` in closed form (the Gaussian and pure-eps curves); the search
        over ``t`` otherwise.
    label : str
        How the curve was obtained (shown by the CLI).
    """

    hockey: Callable[[float], float]
    closed_tpr: Callable[[np.ndarray], np.ndarray] | None = None
    label: str = "exact"

    def __post_init__(self) -> None:
        if not callable(self.hockey):
            raise TypeError(f"hockey = {self.hockey!r}: must be callable (t -> ∫ (p - t q)^+)")

    def _h(self, t: float) -> float:
        u = math.log(t)
        if u > LOG_T_MAX:
            return 0.0
        return min(1.0, max(0.0, float(self.hockey(math.exp(max(u, -LOG_T_MAX))))))

    @property
    def advantage(self) -> float:
        """``TV(P, Q) = max_phi (TPR - FPR) = H(1)``."""
        return self._h(1.0)

    def tpr_threshold(self, alpha: float) -> tuple[float, float]:
        """``(TPR(alpha), t*)``: the value and the likelihood-ratio threshold ``t*`` minimising
        ``t alpha + H(t)`` (``1.0`` for a closed form)."""
        if self.closed_tpr is not None:
            return float(self.tpr_at(alpha)), 1.0

        def fn(u: float) -> float:
            t = math.exp(u)
            return t * alpha + self._h(t)

        u, v = argmin_log_t(fn)
        return float(min(1.0, max(alpha, v))), math.exp(u)

    def _tpr_one(self, alpha: float) -> float:
        return self.tpr_threshold(alpha)[0]

    def tpr_at(self, fpr):
        """``1 - beta(fpr)``: the largest true-positive rate at false-positive rate ``fpr``
        (``inf_t [t fpr + H(t)]``); a float for a number, an array for an array.

        Raises ``ConfigError`` (field ``fpr``) unless every ``fpr`` is in (0, 1).
        """
        a = check_fpr("fpr", fpr)
        if self.closed_tpr is not None:
            out = np.clip(np.asarray(self.closed_tpr(a), dtype=float), a, 1.0)
        else:
            out = np.array([self._tpr_one(float(v)) for v in a.ravel()]).reshape(a.shape)
        return float(out) if np.ndim(fpr) == 0 else out

    def beta(self, alpha):
        """The trade-off function ``beta(alpha) = 1 - TPR(alpha)``: the least type-II error at
        type-I error ``alpha`` (Neyman-Pearson), for ``alpha`` in (0, 1)."""
        a = check_fpr("alpha", alpha)
        b = 1.0 - np.asarray(self.tpr_at(a), dtype=float)
        return float(b) if np.ndim(alpha) == 0 else b

    def bayes_success(self, prior: float = 0.5) -> float:
        """Bayes-optimal probability of guessing ``X_i`` right when ``P(X_i = x) = prior``:
        ``sum_y max(pi p, (1 - pi) q) = (1 - pi) + pi H((1 - pi)/pi)``."""
        pi = float(check_fpr("prior", prior))
        return float((1.0 - pi) + pi * self._h((1.0 - pi) / pi))


def mixture_tradeoff(noise, atoms_p, w_p, atoms_q, w_q) -> TradeOff:
    """The trade-off of ``P = sum_j w_p[j] noise(. - atoms_p[j])`` against ``Q`` likewise, by the
    noise law's exact hockey-stick divergence ``H(t) = delta_{P||Q}(ln t)``."""
    ap, wp = np.asarray(atoms_p, dtype=float), np.asarray(w_p, dtype=float)
    aq, wq = np.asarray(atoms_q, dtype=float), np.asarray(w_q, dtype=float)
    return TradeOff(
        lambda t: noise.hockey_stick(ap, wp, aq, wq, math.log(t)), label=f"exact ({noise.name} mixtures)"
    )


def drawn_tradeoff(losses, label: str = "") -> TradeOff:
    """The trade-off estimated from privacy losses ``L = ln p(Y)/q(Y)`` drawn with ``Y ~ p``:
    ``H(t) = E_p[(1 - t e^{-L})^+]``, the mean over the draws (convex and decreasing in ``t``, as
    the exact ``H``, so the curve is a trade-off curve; a Monte Carlo estimate, without an
    interval: the intervals come from :meth:`bdpsim.accounting.Account.tpr_at`)."""
    L = np.sort(np.asarray(losses, dtype=float).ravel())
    if L.size < 2 or not np.all(np.isfinite(L)):
        raise ConfigError("losses", L.size, "must be at least 2 finite privacy losses")

    def hockey(t: float) -> float:
        u = math.log(t)
        tail = L[np.searchsorted(L, u, side="right") :]  # (1 - t e^{-L})^+ > 0 exactly where L > ln t
        return float(-np.expm1(u - tail).sum() / L.size)

    return TradeOff(hockey, label=label or f"Monte Carlo estimate ({L.size} draws)")


def pair_tradeoff(pair) -> TradeOff:
    """The trade-off of an adversary's two output laws (an
    :class:`~bdpsim.models.pairs.OutputPair` of its exact engine: ``H(t)`` the pair's forward
    hockey-stick divergence at ``eps = ln t``; the closed form where the pair has one)."""
    closed = None
    if isinstance(pair, HasClosedTradeOff):

        def closed(a: np.ndarray) -> np.ndarray:
            return np.array([pair.closed_tpr(float(v))[0] for v in np.ravel(a)]).reshape(np.shape(a))

    return TradeOff(lambda t: float(pair.deltas([math.log(t)])[0][0]), closed_tpr=closed, label=pair.label)


def tpr_rows(pairs, alphas, tol: float = 1e-13) -> tuple[np.ndarray, np.ndarray]:
    """``(TPR, t*)`` of each pair ``pairs[r]`` (an :class:`~bdpsim.models.pairs.OutputPair`, ``x``:
    the positives) at its FPR ``alphas[r]``: ``inf_t [t alpha + H(t)]`` by one golden-section
    search in ``u = ln t`` over ``[-LOG_T_MAX, LOG_T_MAX]`` per row, all rows evaluated together
    (:func:`~bdpsim.models.pairs.pair_deltas`), to the relative width ``tol`` of
    :meth:`TradeOff.tpr_threshold` (the same search, row by row); a pair with a closed form
    (:class:`~bdpsim.models.pairs.HasClosedTradeOff`, a normal shift) by it."""
    from ..models.pairs import pair_deltas

    alpha = np.asarray(alphas, dtype=float).ravel()
    R = len(pairs)
    value, where = np.zeros(R), np.ones(R)
    closed = np.array([isinstance(p, HasClosedTradeOff) for p in pairs], dtype=bool)
    for r in np.flatnonzero(closed):
        value[r], where[r] = pairs[r].closed_tpr(float(alpha[r]))
    rest = np.flatnonzero(~closed)
    if rest.size == 0:
        return value, where
    value[rest], where[rest] = golden_rows(pair_deltas([pairs[r] for r in rest]), alpha[rest], tol)
    return value, where


def golden_rows(
    H: Callable[[np.ndarray], np.ndarray], alphas, tol: float = 1e-13
) -> tuple[np.ndarray, np.ndarray]:
    """``(TPR, t*)`` of rows whose hockey-stick function is ``H`` (``u -> H_r(e^{u_r})`` per row
    ``r``, each at its own ``u_r``) at FPR ``alphas[r]``: the golden-section search of
    :func:`tpr_rows` in ``u = ln t`` over ``[-LOG_T_MAX, LOG_T_MAX]``, every row at once."""
    al = np.asarray(alphas, dtype=float).ravel()

    def fn(u: np.ndarray) -> np.ndarray:
        return np.exp(u) * al + np.clip(H(u), 0.0, 1.0)

    a, b = np.full(al.size, -LOG_T_MAX), np.full(al.size, LOG_T_MAX)
    c, d = b - _GOLD * (b - a), a + _GOLD * (b - a)
    fc, fd = fn(c), fn(d)
    best_v, best_u = np.where(fd < fc, fd, fc), np.where(fd < fc, d, c)
    active = b - a > tol * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    while active.any():
        left = active & (fc <= fd)
        right = active & ~(fc <= fd)
        b, d, fd = np.where(left, d, b), np.where(left, c, d), np.where(left, fc, fd)
        a, c, fc = np.where(right, c, a), np.where(right, d, c), np.where(right, fd, fc)
        new = np.where(left, b - _GOLD * (b - a), a + _GOLD * (b - a))
        fnew = fn(np.where(active, new, c))
        c, fc = np.where(left, new, c), np.where(left, fnew, fc)
        d, fd = np.where(right, new, d), np.where(right, fnew, fd)
        for fv, uv in ((fc, c), (fd, d)):
            better = active & (fv < best_v)
            best_v, best_u = np.where(better, fv, best_v), np.where(better, uv, best_u)
        active = active & (b - a > tol * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b))))
    return np.minimum(1.0, np.maximum(al, best_v)), np.exp(best_u)


def gaussian_tradeoff(mu: float) -> TradeOff:
    """``mu``-GDP: ``P = N(mu, 1)`` against ``Q = N(0, 1)``;
    ``TPR(alpha) = Phi(Phi^{-1}(alpha) + mu)`` and
    ``H(t) = Phi(mu/2 - ln t / mu) - t Phi(-mu/2 - ln t / mu)`` (Dong, Roth and Su 2022, Cor. 2.13)."""
    m = abs(float(mu))
    if not math.isfinite(m):
        raise ConfigError("mu", mu, "must be finite")

    def hockey(t: float) -> float:
        if m == 0.0:
            return max(0.0, 1.0 - t)
        u = math.log(t)
        return float(ndtr(m / 2 - u / m) - t * ndtr(-m / 2 - u / m))

    return TradeOff(hockey, closed_tpr=lambda a: ndtr(ndtri(a) + m), label=f"closed form ({m:.6g}-GDP)")


def pure_dp_tradeoff(epsilon: float) -> TradeOff:
    """The curve of pure ``eps``-DP, ``f_eps(alpha) = max(0, 1 - e^eps alpha, e^-eps (1 - alpha))``:
    ``TPR(alpha) = min(1, e^eps alpha, 1 - e^-eps (1 - alpha))``, advantage ``tanh(eps/2)``. The
    curve of the randomised response with ``P = (e^eps, 1)/(1 + e^eps)`` against ``Q`` reversed."""
    e = float(epsilon)
    if not (e >= 0.0):
        raise ConfigError("epsilon", epsilon, "must be >= 0")
    if math.isinf(e):
        return TradeOff(
            lambda t: 1.0, closed_tpr=lambda a: np.ones_like(a), label="pure inf-DP (no guarantee)"
        )
    if e > EXP_MAX:  # e^eps overflows: the same curve in log space
        p1, q1 = float(expit(e)), float(expit(-e))
        p, q = np.array([p1, q1]), np.array([q1, p1])

        def tpr(a):
            with np.errstate(divide="ignore"):
                ka = np.exp(np.minimum(e + np.log(a), 0.0))
            return np.minimum(ka, 1.0 - math.exp(-e) * (1.0 - a))

    else:
        k = math.exp(e)
        p, q = np.array([k, 1.0]) / (1 + k), np.array([1.0, k]) / (1 + k)

        def tpr(a):
            return np.minimum.reduce([np.ones_like(a), k * a, 1.0 - (1.0 - a) / k])

    def hockey(t: float) -> float:
        return float(np.maximum(p - t * q, 0.0).sum())

    return TradeOff(hockey, closed_tpr=tpr, label=f"pure {e:.6g}-DP")


def pure_dp_tpr(epsilon: float, fpr: float) -> float:
    """``min(1, e^eps fpr)``: the largest TPR at ``fpr`` that the pure ``eps`` bound allows of a
    test's first direction (what the attack tables print beside each TPR); ``1`` for an infinite
    ``eps``, in log space past :data:`EXP_MAX` (no overflow at ``eps = 800`` or ``1e308``)."""
    e, f = float(epsilon), float(fpr)
    if not math.isfinite(e):
        return 1.0
    if e > EXP_MAX:
        return math.exp(min(e + math.log(f), 0.0)) if f > 0 else 0.0
    return min(1.0, math.exp(e) * f)


def discrete_tradeoff(p, q) -> TradeOff:
    """``P`` against ``Q`` for two probability vectors on the same finite outcomes (brute-force
    references): ``H(t) = sum (p - t q)^+``."""
    P, Q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if P.shape != Q.shape or P.ndim != 1:
        raise ConfigError("q", Q.shape, f"must have the shape of p {P.shape}")
    return TradeOff(lambda t: float(np.maximum(P - t * Q, 0.0).sum()), label="exact (finite outcomes)")


__all__ = [
    "TradeOff",
    "pair_tradeoff",
    "tpr_rows",
    "mixture_tradeoff",
    "gaussian_tradeoff",
    "pure_dp_tradeoff",
    "pure_dp_tpr",
    "discrete_tradeoff",
    "check_fpr",
    "argmin_log_t",
    "LOG_T_MAX",
]
