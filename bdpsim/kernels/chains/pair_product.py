"""Pairs of product laws: the hockey-stick divergence, Rényi divergence and largest privacy loss of
independent releases composed, and a bracket of two such pairs.

A release made of independent parts ``o = (o_1, ..., o_n)`` has, under two hypotheses ``a`` and
``b``, the product laws ``P = p_1 x ... x p_n`` and ``Q = q_1 x ... x q_n`` (each part a
:class:`PairFactor`: its outcome masses under ``a`` and under ``b``). Its privacy loss is the sum
``L(o) = sum_i ln p_i(o_i) / q_i(o_i)`` of independent terms, and

* the hockey-stick divergence (the privacy profile) is
  ``delta(eps) = sum_o (P(o) - e^eps Q(o))^+ = E_P[(1 - e^{eps - L})^+]``;
* the Rényi divergence of order ``alpha > 1`` adds over the parts:
  ``D_alpha(P || Q) = sum_i 1/(alpha - 1) ln sum_o p_i(o)^alpha q_i(o)^{1 - alpha}``, and
  ``D_inf = sup_o L(o) = sum_i max_o ln p_i(o) / q_i(o)``.

:func:`hockey_stick` computes ``delta`` exactly from the parts without forming the whole product:
the parts but the largest are multiplied out into one list of outcomes ``J`` with masses
``(g_J, h_J)`` and losses ``m_J = ln g_J / h_J``, sorted; for an outcome ``i`` of the largest part
the outcomes ``J`` with ``p_i g_J > e^eps q_i h_J`` are those with ``m_J > eps - ln p_i / q_i``, a
tail of the sorted list, so ``delta(eps) = sum_i p_i A(eps - l_i) - e^eps q_i B(eps - l_i)`` with
the tail sums ``A(s) = sum_{m_J > s} g_J`` and ``B(s) = sum_{m_J > s} h_J`` (one binary search
per outcome and ``eps``).

A :class:`PairBracket` holds two pairs, ``lower`` and ``upper``, with
``delta_lower(eps) <= delta(eps) <= delta_upper(eps)`` for every ``eps`` (and the same order for
every Rényi divergence): in :mod:`bdpsim.kernels.chains.local_profile` the lower pair is a
garbling (a deterministic merge of outcomes) of the true pair, and the true pair a garbling of
the upper one, so the data-processing inequality orders every f-divergence and Rényi divergence,
for the pair and for its composition with any independent release.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..argcheck import require
from ..roots import monotone_root

#: most outcomes of the parts multiplied out before the binary searches (refused beyond)
MAX_PRODUCT = 20_000_000


@dataclass(frozen=True)
class Bounds:
    """A bracket ``low <= value <= high`` (numbers or arrays of the same shape)."""

    low: np.ndarray
    high: np.ndarray

    @property
    def width(self) -> np.ndarray:
        """``high - low``."""
        return np.asarray(self.high) - np.asarray(self.low)


def epsilon_values(epsilon, name: str = "epsilon") -> np.ndarray:
    """``epsilon`` (a number or a 1-D sequence) as a float array of finite numbers ``>= 0``
    (:class:`~bdpsim.kernels.argcheck.ParameterError` naming ``name`` otherwise)."""
    bad = isinstance(epsilon, str)
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float)) if not bad else np.array([np.nan])
    require(
        eps.ndim == 1 and eps.size >= 1 and bool(np.all(np.isfinite(eps))) and bool(np.all(eps >= 0)),
        name,
        epsilon if bad else np.asarray(epsilon).tolist(),
        "must be finite numbers >= 0",
    )
    return eps


def alpha_value(alpha, name: str = "alpha") -> float:
    """A Rényi order: a number ``> 1`` (``inf`` for the largest loss)."""
    require(
        isinstance(alpha, (int, float, np.integer, np.floating))
        and not isinstance(alpha, bool)
        and float(alpha) > 1,
        name,
        alpha,
        "must be a number > 1 (inf for the largest loss)",
    )
    return float(alpha)


def fpr_value(fpr, name: str = "fprs") -> float:
    """A false-positive rate: a number in ``(0, 1)``."""
    require(
        isinstance(fpr, (int, float, np.integer, np.floating))
        and not isinstance(fpr, bool)
        and 0 < float(fpr) < 1,
        name,
        fpr,
        "must be a number in (0, 1)",
    )
    return float(fpr)


def delta_values(delta, name: str = "delta") -> np.ndarray:
    """``delta`` (a number or a 1-D sequence) as a float array of numbers in ``[0, 1)``."""
    d = np.atleast_1d(np.asarray(delta, dtype=float))
    require(
        d.ndim == 1 and bool(np.all((d >= 0) & (d < 1))),
        name,
        np.asarray(delta).tolist(),
        "must be numbers in [0, 1)",
    )
    return d


@dataclass(frozen=True)
class PairFactor:
    """One independent part of a release: the masses ``p`` of its outcomes under hypothesis ``a``
    and ``q`` under ``b`` (both ``>= 0``; outcomes of mass 0 under both are dropped).

    Parameters
    ----------
    p, q : numpy.ndarray
        ``(n,)`` masses of the same ``n`` outcomes (each summing to at most 1).
    """

    p: np.ndarray
    q: np.ndarray

    def __post_init__(self) -> None:
        p = np.atleast_1d(np.asarray(self.p, dtype=float))
        q = np.atleast_1d(np.asarray(self.q, dtype=float))
        require(p.ndim == 1 and p.shape == q.shape, "q", q.shape, f"must have the shape of p {p.shape}")
        require(
            bool(np.all(np.isfinite(p) & (p >= 0))) and bool(np.all(np.isfinite(q) & (q >= 0))),
            "p",
            p[:8].tolist(),
            "masses must be finite and >= 0",
        )
        keep = (p > 0) | (q > 0)
        if not bool(np.all(keep)):
            p, q = p[keep], q[keep]
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "q", q)

    @staticmethod
    def checked(p: np.ndarray, q: np.ndarray) -> PairFactor:
        """A part from masses already known to be valid (``(n,)`` float arrays, finite, ``>= 0``,
        no outcome of mass 0 under both): no check, no copy."""
        out = object.__new__(PairFactor)
        object.__setattr__(out, "p", p)
        object.__setattr__(out, "q", q)
        return out

    @property
    def size(self) -> int:
        return int(self.p.size)

    def loss(self) -> np.ndarray:
        """``ln p / q`` per outcome (``+inf`` where ``q = 0``, ``-inf`` where ``p = 0``)."""
        return self._loss

    @cached_property
    def _loss(self) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.p) - np.log(self.q)

    def reversed(self) -> PairFactor:
        """The same part with the hypotheses swapped."""
        return self._reversed

    @cached_property
    def _reversed(self) -> PairFactor:
        out = PairFactor.checked(self.q, self.p)
        object.__setattr__(out, "_reversed", self)
        return out

    def max_loss(self) -> float:
        """``max ln p / q`` over the outcomes with ``p > 0``."""
        return self._max_loss

    @cached_property
    def _max_loss(self) -> float:
        lo = self.loss()
        return float(lo[self.p > 0].max()) if bool(np.any(self.p > 0)) else -math.inf

    def log_moment(self, alpha: float) -> float:
        """``ln sum_o p(o)^alpha q(o)^(1 - alpha)`` (``+inf`` where some ``q = 0 < p``)."""
        m = self.p > 0
        if bool(np.any(m & (self.q == 0))):
            return math.inf
        p, q = self.p[m], self.q[m]
        x = alpha * np.log(p) + (1.0 - alpha) * np.log(q)
        top = float(x.max())
        return top + math.log(float(np.exp(x - top).sum()))


def outer(first: PairFactor, second: PairFactor) -> PairFactor:
    """The two parts as one: every pair of outcomes, masses multiplied."""
    require(
        first.size * second.size <= MAX_PRODUCT,
        "factors",
        (first.size, second.size),
        f"multiplying out {first.size} x {second.size} outcomes exceeds {MAX_PRODUCT}",
    )
    p, q = np.outer(first.p, second.p).ravel(), np.outer(first.q, second.q).ravel()
    keep = (p > 0) | (q > 0)
    return PairFactor.checked(p, q) if bool(keep.all()) else PairFactor.checked(p[keep], q[keep])


def _positive_sum(gain: np.ndarray, e: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """``sum_i (gain_i - e^eps cost_i)^+`` per row (``e`` a column of ``eps``); ``e^eps`` in logs
    past the float range."""
    if float(e.max()) < 700:
        return np.maximum(gain - np.exp(e) * cost, 0.0).sum(axis=1)
    with np.errstate(divide="ignore"):
        big = np.where(cost > 0, np.exp(np.minimum(e + np.log(np.where(cost > 0, cost, 1.0)), 709.0)), 0.0)
    return np.maximum(gain - big, 0.0).sum(axis=1)


def _split(factors: Sequence[PairFactor], n_eps: int) -> tuple[PairFactor, PairFactor]:
    """The parts as two: the one searched with (``rest``, one part alone) and the one sorted
    (``big``, the others multiplied out), chosen to make ``(|rest| n_eps + |big|) log|big|`` least."""
    require(len(factors) >= 1, "factors", len(factors), "need at least one part")
    one = PairFactor.checked(np.ones(1), np.ones(1))
    best = None
    for i, f in enumerate(factors):
        n_big = math.prod(g.size for j, g in enumerate(factors) if j != i)
        cost = (f.size * n_eps + n_big) * math.log2(n_big + 2)
        if best is None or cost < best[0]:
            best = (cost, i)
    assert best is not None
    i = best[1]
    big = one
    for j, g in enumerate(factors):
        if j != i:
            big = outer(big, g)
    return factors[i], big


def hockey_stick_both(factors: Sequence[PairFactor], epsilon) -> tuple[np.ndarray, np.ndarray]:
    """``delta(eps)`` of the product of ``factors`` for both orders: ``sum_o (P(o) - e^eps Q(o))^+``
    and ``sum_o (Q(o) - e^eps P(o))^+`` (module docstring: the parts but the largest multiplied out,
    then one binary search per outcome and ``eps``; the second order reads the same sorted list
    from the other end, ``Q g > e^eps P h`` where ``m_J < -eps - l_i``).

    Parameters
    ----------
    factors : sequence of PairFactor
        The independent parts (at least one).
    epsilon : float or sequence of float
        Finite values ``>= 0``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``delta`` of ``(P, Q)`` and of ``(Q, P)`` at each ``epsilon``.
    """
    eps = epsilon_values(epsilon)
    rest, big = _split(factors, eps.size)
    m = big.loss()
    order = np.argsort(m, kind="stable")
    m = m[order]
    g, h = big.p[order], big.q[order]
    zero = np.zeros(1)
    A = np.concatenate([np.cumsum(g[::-1])[::-1], zero])  # tail sums: m_J > s
    B = np.concatenate([np.cumsum(h[::-1])[::-1], zero])
    Ah = np.concatenate([zero, np.cumsum(g)])  # head sums: m_J < s
    Bh = np.concatenate([zero, np.cumsum(h)])
    lr = rest.loss()
    down = np.argsort(-lr, kind="stable")  # the keys e - lr then increase: faster searches
    lr = lr[down]
    rest = PairFactor.checked(rest.p[down], rest.q[down])
    fwd = np.empty(eps.size)
    bwd = np.empty(eps.size)
    step = max(1, 2_000_000 // max(lr.size, 1))
    for i0 in range(0, eps.size, step):
        e = eps[i0 : i0 + step, None]
        j = np.searchsorted(m, e - lr[None, :], side="right")
        fwd[i0 : i0 + step] = _positive_sum(rest.p * A[j], e, rest.q * B[j])
        j = np.searchsorted(m, -e - lr[None, :], side="left")
        bwd[i0 : i0 + step] = _positive_sum(rest.q * Bh[j], e, rest.p * Ah[j])
    return fwd, bwd


#: points of each round of the threshold search of :func:`tpr_both`, its width in the loss, and the
#: width of the TPR's bracket at which a search stops
TPR_POINTS, TPR_ATOL, TPR_WIDTH = 17, 1e-11, 1e-13


def _tests(rest: PairFactor, m, A, B, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(P(L > c), Q(L > c))`` of the tests ``L > c`` (``c`` an array of thresholds; ``L = l_i +
    m_J``, ``m`` the sorted losses of the part multiplied out, ``A``, ``B`` its tail sums)."""
    shape = c.shape
    c = c.reshape(-1)
    tp, fp = np.empty(c.size), np.empty(c.size)
    step = max(1, 2_000_000 // max(rest.size, 1))
    for i0 in range(0, c.size, step):
        j = np.searchsorted(m, c[i0 : i0 + step, None] - rest.loss()[None, :], side="right")
        tp[i0 : i0 + step] = A[j] @ rest.p
        fp[i0 : i0 + step] = B[j] @ rest.q
    return tp.reshape(shape), fp.reshape(shape)


def _tpr_one(rest: PairFactor, m, A, B, alphas: np.ndarray, span, high: np.ndarray, floor: np.ndarray):
    """The most powerful test of ``P`` against ``Q`` at each FPR of ``alphas``, bracketed
    (:func:`tpr_both`, one order): ``(low, high)``, ``high`` starting from the bounds given; an FPR
    whose ``high`` is at most ``floor`` is not searched further."""
    n = alphas.size
    rows = np.arange(n)
    lo, hi = np.full(n, span[0]), np.full(n, span[1])
    low = alphas.copy()  # the trivial test (guess at random) is attained
    high = np.maximum(np.minimum(high, 1.0), low)
    live = high > np.maximum(floor, low + TPR_WIDTH)
    grid = np.linspace(0.0, 1.0, TPR_POINTS)
    secant = np.full(n, np.nan)  # the threshold of the last chord's slope: exact on one atom
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        while bool(live.any()):
            c = lo[:, None] + (hi - lo)[:, None] * grid[None, :]
            c = np.concatenate([c, np.where(np.isfinite(secant), secant, lo)[:, None]], axis=1)
            c.sort(axis=1)
            tp, fp = _tests(rest, m, A, B, c)
            a = alphas[:, None]
            # upper: sum (P - e^c Q)^+ = tp - e^c fp, and P(S) <= that + e^c Q(S), at every c
            tangent = tp + np.exp(c) * (a - fp)
            high = np.where(live, np.minimum(high, np.nanmin(tangent, axis=1)), high)
            # lower: i the last threshold whose test passes alpha; its mixture with the next one
            above = fp > a
            npts = c.shape[1]
            i = np.where(above.any(axis=1), npts - 1 - np.argmax(above[:, ::-1], axis=1), -1)
            k = np.clip(i + 1, 0, npts - 1)
            i0 = np.maximum(i, 0)
            t0, f0, t1, f1 = tp[rows, i0], fp[rows, i0], tp[rows, k], fp[rows, k]
            inside = (i >= 0) & (i < npts - 1)
            w = np.where(inside, (alphas - f1) / np.where(inside, f0 - f1, 1.0), 0.0)
            mixed = t1 + np.clip(w, 0.0, 1.0) * (t0 - t1)
            cand = np.where(inside, mixed, np.where(i < 0, tp[:, 0], 0.0))
            low = np.where(live, np.maximum(low, cand), low)
            slope = np.where(inside & (f0 > f1), (t0 - t1) / np.where(f0 > f1, f0 - f1, 1.0), np.nan)
            nlo, nhi = c[rows, i0], c[rows, k]
            secant = np.where(slope > 0, np.log(slope), np.nan)
            secant = np.where((secant > nlo) & (secant < nhi), secant, np.nan)
            live &= inside & (nhi - nlo > TPR_ATOL) & (high - low > TPR_WIDTH) & (high > floor)
            lo, hi = np.where(live, nlo, lo), np.where(live, nhi, hi)
    low = np.minimum(low, 1.0)
    return low, np.maximum(np.minimum(high, 1.0), low)


def tpr_both(
    factors: Sequence[PairFactor], alphas, *, floor=None, high=None
) -> tuple[np.ndarray, np.ndarray]:
    """The most powerful test's TPR at each FPR ``alpha`` of the product of ``factors``, for both
    orders (``P`` against ``Q``, then ``Q`` against ``P``), bracketed: ``(low, high)``, each
    ``(2, len(alphas))``.

    Neyman-Pearson: ``TPR(alpha) = max {P(S) : Q(S) <= alpha}`` over randomised tests ``S``, attained
    by the tests ``L > c`` mixed at the threshold. The threshold is searched in the loss (rounds of
    ``TPR_POINTS`` points to ``TPR_ATOL``), with the tests' masses ``P(L > c) = sum_i p_i
    A(c - l_i)`` and ``Q(L > c) = sum_i q_i B(c - l_i)`` read as in :func:`hockey_stick_both`.

    * ``low``: the mixture of the two tests around the FPR ``alpha`` (the test of largest threshold
      whose FPR exceeds ``alpha`` and the next one): a test of this pair with FPR ``alpha`` and this
      TPR (attained).
    * ``high``: ``min_c [P(L > c) + e^c (alpha - Q(L > c))] = min_c [e^c alpha + delta(c)]`` over
      every ``c`` tried (``delta`` the hockey-stick at ``c``, of either sign): for every test,
      ``P(S) <= delta(c) + e^c Q(S)``.

    Each round also tries the threshold ``ln`` of the last mixture's slope, where the two meet
    exactly when one level of the loss lies between the two tests. A search stops when the bracket
    is ``TPR_WIDTH`` wide, the threshold's interval ``TPR_ATOL`` wide, or (branch and
    bound) ``high`` is at most ``floor`` (per FPR: the best TPR already attained elsewhere; this
    pair cannot beat it). ``high`` starts from the closed forms of the pair's largest losses and
    total variation: ``TPR <= min(alpha + TV, e^{D_inf(P||Q)} alpha, 1 - e^{-D_inf(Q||P)} (1 -
    alpha))``, and from ``high`` (``(2, len(alphas))``) where the caller knows upper bounds.
    """
    a = np.atleast_1d(np.asarray(alphas, dtype=float))
    fl = (
        np.full(a.size, -np.inf)
        if floor is None
        else np.broadcast_to(np.asarray(floor, dtype=float), a.shape)
    )
    pair = ProductPair(tuple(factors))
    tv = float(hockey_stick_both(factors, [0.0])[0][0]) if high is None else 1.0
    d_fwd, d_bwd = pair.max_loss(), pair.reversed().max_loss()
    with np.errstate(over="ignore"):
        closed = [
            np.minimum.reduce([a + tv, np.exp(d_fwd) * a, 1.0 - np.exp(-d_bwd) * (1.0 - a)]),
            np.minimum.reduce([a + tv, np.exp(d_bwd) * a, 1.0 - np.exp(-d_fwd) * (1.0 - a)]),
        ]
    if high is not None:
        closed = [np.minimum(closed[0], high[0]), np.minimum(closed[1], high[1])]
    if not any(bool(np.any(h > np.maximum(fl, a))) for h in closed):  # this pair cannot beat the floor
        return np.stack([a, a]), np.maximum(np.stack(closed), a)
    rest, big = _split(factors, TPR_POINTS * a.size)
    m = big.loss()
    order = np.argsort(m, kind="stable")
    m = m[order]
    out_low, out_high = np.empty((2, a.size)), np.empty((2, a.size))
    for side in range(2):
        g, h = (big.p[order], big.q[order]) if side == 0 else (big.q[order][::-1], big.p[order][::-1])
        ms = m if side == 0 else -m[::-1]
        r = rest if side == 0 else rest.reversed()
        zero = np.zeros(1)
        A = np.concatenate([np.cumsum(g[::-1])[::-1], zero])
        B = np.concatenate([np.cumsum(h[::-1])[::-1], zero])
        lr = r.loss()
        fin_m, fin_r = ms[np.isfinite(ms)], lr[np.isfinite(lr)]
        top = (float(fin_m.max()) if fin_m.size else 0.0) + (float(fin_r.max()) if fin_r.size else 0.0)
        bot = (float(fin_m.min()) if fin_m.size else 0.0) + (float(fin_r.min()) if fin_r.size else 0.0)
        out_low[side], out_high[side] = _tpr_one(r, ms, A, B, a, (bot - 1.0, top + 1.0), closed[side], fl)
    return out_low, out_high


def hockey_stick(factors: Sequence[PairFactor], epsilon) -> np.ndarray:
    """``delta(eps) = sum_o (P(o) - e^eps Q(o))^+`` for the product of ``factors``
    (:func:`hockey_stick_both`, first order)."""
    return hockey_stick_both(factors, epsilon)[0]


@dataclass(frozen=True)
class ProductPair:
    """The laws ``P = x_i p_i`` and ``Q = x_i q_i`` of a release made of independent parts."""

    factors: tuple[PairFactor, ...]

    def reversed(self) -> ProductPair:
        """The pair with the hypotheses swapped (``Q`` against ``P``)."""
        return ProductPair(tuple(f.reversed() for f in self.factors))

    def delta(self, epsilon) -> np.ndarray:
        """The hockey-stick divergence ``delta(eps)`` (:func:`hockey_stick`)."""
        return hockey_stick(self.factors, epsilon)

    def delta_both(self, epsilon) -> tuple[np.ndarray, np.ndarray]:
        """``delta(eps)`` of ``(P, Q)`` and of ``(Q, P)`` (:func:`hockey_stick_both`)."""
        return hockey_stick_both(self.factors, epsilon)

    def max_loss(self) -> float:
        """``D_inf(P || Q) = sup_o ln P(o) / Q(o)``: the sum of the parts' largest losses."""
        return float(sum(f.max_loss() for f in self.factors))

    def renyi(self, alpha: float) -> float:
        """``D_alpha(P || Q)`` for ``alpha > 1`` (``inf`` gives :meth:`max_loss`): the sum over the
        parts of ``1/(alpha - 1) ln sum_o p^alpha q^(1 - alpha)``."""
        if math.isinf(alpha):
            return self.max_loss()
        return float(sum(f.log_moment(alpha) for f in self.factors)) / (alpha - 1.0)


@dataclass(frozen=True)
class PairBracket:
    """Two pairs bracketing a release pair for both orders of its hypotheses: for every ``eps``
    ``lower.delta(eps) <= delta(eps) <= upper.delta(eps)`` and the same for ``reversed()``; every
    method returns :class:`Bounds` of the larger of the two orders (``sup`` over ``(a, b)`` and
    ``(b, a)``).

    Parameters
    ----------
    lower, upper : ProductPair
        The pairs for the order ``(a, b)``; the order ``(b, a)`` is their :meth:`~ProductPair.reversed`.
    """

    lower: ProductPair
    upper: ProductPair

    def delta(self, epsilon) -> Bounds:
        """``max`` over both orders of ``delta(eps)``, bracketed (arrays shaped like ``epsilon``)."""
        lo = np.maximum(*self.lower.delta_both(epsilon))
        hi = np.maximum(*self.upper.delta_both(epsilon))
        return Bounds(_like(epsilon, lo), _like(epsilon, hi))

    def tpr(self, fprs, *, both: bool = True) -> Bounds:
        """The most powerful test's TPR at each FPR of ``fprs``, bracketed (:func:`tpr_both`): the
        lower end attained by a test of the lower pair (a garbling of the release), the upper end
        from the upper pair; ``max`` over both orders (``both = False``: the order ``(a, b)``,
        positives ``a``). Arrays shaped like ``fprs``."""
        f = np.array([fpr_value(x) for x in np.atleast_1d(np.asarray(fprs, dtype=float))])
        lo, hi = tpr_both(self.lower.factors, f)[0], tpr_both(self.upper.factors, f)[1]
        lo, hi = (lo.max(axis=0), hi.max(axis=0)) if both else (lo[0], hi[0])
        return Bounds(_like(fprs, lo), _like(fprs, hi))

    def bdpl(self) -> Bounds:
        """The ``delta = 0`` limit: ``max`` over both orders of the largest privacy loss."""
        return Bounds(
            np.asarray(max(self.lower.max_loss(), self.lower.reversed().max_loss())),
            np.asarray(max(self.upper.max_loss(), self.upper.reversed().max_loss())),
        )

    def renyi(self, alpha) -> Bounds:
        """``max`` over both orders of ``D_alpha`` (``alpha > 1``; ``inf`` is :meth:`bdpl`)."""
        a = alpha_value(alpha)
        return Bounds(
            np.asarray(max(self.lower.renyi(a), self.lower.reversed().renyi(a))),
            np.asarray(max(self.upper.renyi(a), self.upper.reversed().renyi(a))),
        )

    def epsilon(self, delta, *, tol: float = 1e-9) -> Bounds:
        """``eps(delta) = inf {eps >= 0 : delta(eps) <= delta}`` for the larger of both orders,
        bracketed: the lower end from the lower pair, the upper from the upper pair, each found by
        bisection to ``tol`` and rounded outwards (``delta = 0`` gives :meth:`bdpl`; arrays shaped
        like ``delta``)."""
        d = delta_values(delta)
        b = self.bdpl()
        pairs = ((self.lower, float(b.low), -1), (self.upper, float(b.high), +1))
        out = []
        for pair, top, side in pairs:
            out.append(_invert(_both_orders(pair), d, max(top, 0.0), tol, side))
        return Bounds(_like(delta, out[0]), _like(delta, out[1]))


def _like(arg, values: np.ndarray) -> np.ndarray:
    """``values`` as a 0-d array where ``arg`` is a number."""
    return values.reshape(()) if np.ndim(arg) == 0 else values


def _both_orders(pair: ProductPair):
    """``eps -> max(delta_(a,b)(eps), delta_(b,a)(eps))``."""
    return lambda e: np.maximum(*pair.delta_both(e))


def _invert(f, d: np.ndarray, top: float, tol: float, side: int) -> np.ndarray:
    """``inf {eps in [0, top] : f(eps) <= d}`` for a non-increasing ``f`` with ``f(top) = 0``, by
    bisection to ``tol`` (:func:`~bdpsim.kernels.roots.monotone_root`): the last point with
    ``f > d`` (``side = -1``) or the first with ``f <= d`` (``side = +1``)."""
    res = np.empty(d.size)
    for n, level in enumerate(d):
        if level <= 0 or top <= 0:
            res[n] = top
            continue
        if float(f(0.0)[0]) <= level:
            res[n] = 0.0
            continue

        def excess(e: float, v: float = float(level)) -> float:
            return float(f(e)[0]) - v

        root = monotone_root(excess, top, 0.0, rtol=0.0, atol=tol, log=False, expand=False)
        res[n] = root.unsafe if side < 0 else root.safe
    return res


__all__ = [
    "Bounds",
    "PairBracket",
    "alpha_value",
    "delta_values",
    "epsilon_values",
    "fpr_value",
    "PairFactor",
    "ProductPair",
    "hockey_stick",
    "hockey_stick_both",
    "outer",
    "tpr_both",
]
