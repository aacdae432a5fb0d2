"""Exact BDPL of randomized response on a binary Markov chain by the window search (Chakrabarti et
al.; paper §6.2).

Chakrabarti et al.'s mechanism: every record ``X_t in {0, 1}`` is flipped independently with
probability ``rho`` (their :func:`rr_flip_probability` for a lazy symmetric chain with switch
probability ``t`` and target ``eps``), and the analyst releases the debiased count
``(Z - T rho) / (1 - 2 rho)``, ``Z = sum_t Z_t`` the count of ones after flipping. The
debiasing is a bijection, so the BDPL is that of ``Z``: the supremum over adversaries
``(i, K, x_K, x, x')`` and outputs ``z`` of ``ln P(Z = z | x_K, x) / P(Z = z | x_K, x')``. The
flips of *known* records are still random (the adversary knows data, not coins).

**Exact BDPL over all adversaries: the window reduction holds, with one more parameter.** Take
``(K, i)`` and its nearest known records ``l < i < r``. Given ``x_K`` the records outside
``[l, r]`` are independent of those inside, and every flip is independent of everything else, so
``Z = Z_in + Z_out`` (``Z_in``: flips of the records strictly inside ``(l, r)``, target
included) with ``Z_out`` independent of ``Z_in`` and of ``x_i``. Writing the law of ``Z_out``
given ``x_K`` as a mixture over the unknown outside values, the output law of ``(K, i)`` is a
common-weight mixture of the output laws of ``K* = K ∪ ([n] \\ [l, r])`` for each completion,
so ``BDPL_(K,i) <= BDPL_(K*,i)`` exactly as for Laplace noise (:mod:`bdpsim.models.markov.window`). For
``K*``,
``Z_out ~ Bin(m1, 1 - rho) + Bin(m - m1, rho)`` where ``m = T - L - R - 1`` is the number of
outside records (boundaries included) and ``m1`` the number of ones among them. Unlike a Laplace
mechanism, the window's value depends on ``m1`` (the known records' flips are noise, and how
much depends on their values), so the search runs over ``(L, R, boundary kinds and values, m1)``.

It is pruned without loss: with ``q_x`` the law of ``Z_in`` given the window and ``x``, the
output law ``q_x * B_m1`` is a common-weight mixture of shifted ``q_x``, so
``max_z ln (q_x * B)(z)/(q_x' * B)(z) <= max_j ln q_x(j)/q_x'(j)`` (the window's *upper* value),
while at the extreme outputs ``z = 0`` and ``z = T`` the factor of ``B`` cancels, so every ``m1``
attains ``max(ln q_x(0)/q_x'(0), ln q_x(n_in)/q_x'(n_in))`` (its *lower* value). The search
takes the best lower value ``V`` and evaluates exactly (every ``m1``, log-space convolutions) only
the windows whose upper value exceeds ``V``, most promising first, stopping as soon as no
remaining upper value exceeds the current best. Cost: ``O(T^3)`` for all inside laws plus the
few exact evaluations (``T = 288`` takes seconds).

Requires every transition probability and every start probability > 0 (so every outside
composition ``m1`` and every window is feasible); otherwise use
:func:`bdpsim.mechanisms.randomized_response.direct.rr_bdpl_bruteforce`
(exhaustive over every data tuple and every known set, ``T <= 12``). Laws are computed in
floating point with per-step rescaling; a probability that underflows to 0 raises an error
rather than giving a wrong supremum.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from ...adversary import Adversary
from ...core.errors import NotAvailable
from ...models.markov.model import MarkovChainModel
from .core import END, START, RRAdversary, RRResult, check_rr

# ---------------------------------------------------------------------------------- window search


def _step(f: np.ndarray, P: np.ndarray, e: np.ndarray) -> np.ndarray:
    """One record more: ``g(y', k) = sum_{y, z} f(y, k - z) e[y, z] P[y, y']`` on a batch
    ``f (B, 2, K)``, rescaled per batch element."""
    g = np.zeros_like(f)
    for y in range(2):
        for z in range(2):
            part = f[:, y, : f.shape[2] - z] * e[y, z]
            g[:, :, z:] += part[:, None, :] * P[y][None, :, None]
    return g / g.sum(axis=(1, 2), keepdims=True)


def target_step(f: np.ndarray, x: int, e: np.ndarray) -> np.ndarray:
    """Clamp the current record to ``x`` and count its flip: ``h(x, k) = sum_z f(x, k-z) e[x, z]``."""
    h = np.zeros_like(f)
    for z in range(2):
        h[:, x, z:] += f[:, x, : f.shape[2] - z] * e[x, z]
    return h


def advance_step(h: np.ndarray, P: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``h'(y', k) = sum_y sum_z h(y, k - z) P[y, y'] e[y', z]`` (move on and count the new flip)."""
    g = np.zeros_like(h)
    for y2 in range(2):
        base = np.einsum("byk,y->bk", h, P[:, y2])
        for z in range(2):
            g[:, y2, z:] += base[:, : h.shape[2] - z] * e[y2, z]
    return g / g.sum(axis=(1, 2), keepdims=True)


def left_laws(model: MarkovChainModel, e: np.ndarray, kind) -> np.ndarray:
    """``F[L](y, k) ∝ P(X_{l+L+1} = y, flips of the L records after l sum to k | left boundary)``
    for ``L = 0..T-1``; ``kind`` a known value ``a`` or :data:`START`."""
    T, P = model.n, model.transition
    f = np.zeros((1, 2, T + 1))
    f[0, :, 0] = model.initial if kind == START else P[kind]
    out = np.empty((T, 2, T + 1))
    for L in range(T):
        out[L] = f[0] / f[0].sum()
        if L < T - 1:
            f = _step(f, P, e)
    return out


def _ratios(q0: np.ndarray, q1: np.ndarray, n_in: np.ndarray):
    """Per batch row: lower (extreme outputs) and upper (pointwise max) of ``|ln q0/q1|`` over
    ``j = 0..n_in``."""
    K = q0.shape[1]
    valid = np.arange(K)[None, :] <= n_in[:, None]
    if np.any(valid & ((q0 <= 0) | (q1 <= 0))):
        raise NotAvailable("a window probability underflowed to 0: T is too long for this chain and rho")
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(valid, np.abs(np.log(q0) - np.log(q1)), -np.inf)
    rows = np.arange(q0.shape[0])
    lower = np.maximum(r[:, 0], r[rows, n_in])
    return lower, r.max(axis=1)


def _outside_log_laws(m: int, lo: int, hi: int, rho: float) -> np.ndarray:
    """``log P(Z_out = z)`` for ``m1 = lo..hi`` ones among ``m`` outside records, shape ``(M1, m+1)``."""
    from scipy.special import logsumexp  # lazy: scipy is heavy to import
    from scipy.stats import binom  # lazy: scipy is heavy to import

    out = np.full((hi - lo + 1, m + 1), -np.inf)
    for r, m1 in enumerate(range(lo, hi + 1)):
        a = binom.logpmf(np.arange(m1 + 1), m1, 1 - rho)
        b = binom.logpmf(np.arange(m - m1 + 1), m - m1, rho)
        out[r] = logsumexp(a[:, None] + _shift_matrix(b, m1 + 1, m + 1), axis=0)
    return out


def _shift_matrix(b: np.ndarray, rows: int, width: int) -> np.ndarray:
    """``M[j, z] = b[z - j]`` (``-inf`` outside), shape ``(rows, width)``."""
    M = np.full((rows, width), -np.inf)
    for j in range(rows):
        M[j, j : j + b.size] = b[: width - j]
    return M


def _exact_window(lq0: np.ndarray, lq1: np.ndarray, m: int, lo: int, hi: int, rho: float):
    """``max over m1 in lo..hi, z, direction`` of ``ln (q_x * B_m1)(z) / (q_x' * B_m1)(z)``:
    ``(value, m1, z, x)``."""
    lb = _outside_log_laws(m, lo, hi, rho)  # (M1, m+1)
    n = lq0.size
    p = []
    for lq in (lq0, lq1):
        acc = np.full((lb.shape[0], n + m), -np.inf)
        for j in range(n):
            acc[:, j : j + m + 1] = np.logaddexp(acc[:, j : j + m + 1], lq[j] + lb)
        p.append(acc)
    best = (-math.inf, lo, 0, 0)
    for x, (num, den) in enumerate(((p[0], p[1]), (p[1], p[0]))):
        r = num - den
        at = np.unravel_index(int(np.argmax(r)), r.shape)
        if r[at] > best[0]:
            best = (float(r[at]), lo + int(at[0]), int(at[1]), x)
    return best


def _candidates(model: MarkovChainModel, e: np.ndarray) -> tuple[list[tuple], list[float]]:
    """Every window ``(kl, L, kr, R)`` of :func:`rr_bdpl` with its upper and lower BDPL values
    (``_ratios``): the candidates ``(upper, lower, kl, L, kr, R)`` and the lower values."""
    T, P = model.n, model.transition
    cand = []  # (upper, lower, kl, L, kr, R, a, c)
    lowers = []
    for kl in (0, 1, START):
        F = left_laws(model, e, kl)  # (T, 2, T+1)
        Ls = np.arange(T)
        if kl == START:
            Ls = Ls[Ls <= T - 1]  # target i = L
        else:
            Ls = Ls[Ls <= T - 2]  # l = i - L - 1 >= 0
        H = [target_step(F[Ls], x, e) for x in (0, 1)]
        for R in range(T):
            used = Ls + R + (1 if kl == START else 2)  # records from l (or 0) to i + R
            for kr in (0, 1, END):
                need = used + (1 if kr != END else 0)
                sel = (need <= T) if kr != END else (need == T)
                if not sel.any():
                    continue
                if kr == END:
                    q = [h[sel].sum(axis=1) for h in H]
                else:
                    q = [np.einsum("byk,y->bk", h[sel], P[:, cast(int, kr)]) for h in H]  # a state here
                q = [v / v.sum(axis=1, keepdims=True) for v in q]
                n_in = Ls[sel] + R + 1
                lo, up = _ratios(q[0], q[1], n_in)
                for L, lw, u in zip(Ls[sel], lo, up):
                    lowers.append(lw)
                    cand.append((float(u), float(lw), kl, int(L), kr, R))
            if R < T - 1:
                H = [advance_step(h, P, e) for h in H]
    return cand, lowers


def rr_bdpl(model: MarkovChainModel, rho: float) -> RRResult:
    """Exact BDPL over all adversaries of randomized response with flip probability ``rho`` on a
    binary chain with ``P > 0`` and a positive start law (window search, module docstring)."""
    check_rr(model, rho)
    T, P = model.n, model.transition
    if P.min() <= 0 or model.initial.min() <= 0:
        raise NotAvailable(
            "the window search for randomized response needs every transition and "
            "start probability > 0; use rr_bdpl_bruteforce (T <= 12)"
        )
    e = np.array([[1 - rho, rho], [rho, 1 - rho]])
    cand, lowers = _candidates(model, e)
    V = max(lowers)
    arg = max(cand, key=lambda c: c[1])
    best = (V, arg, None, None, None)
    cand.sort(key=lambda c: -c[0])
    evaluations = 0
    for u, lw, kl, L, kr, R in cand:
        if u <= best[0] * (1 + 1e-12):
            break
        evaluations += 1
        val, m1, z, x = _evaluate(model, e, rho, kl, L, kr, R)
        if val > best[0]:
            best = (val, (u, lw, kl, L, kr, R), m1, z, x)
    value, (_, _, kl, L, kr, R), m1, z, x = best
    if m1 is None:  # the best lower value: an extreme output
        val, m1, z, x = _evaluate(model, e, rho, kl, L, kr, R, extreme_only=True)
    adv = realise_window(model, kl, L, kr, R, m1, x, z)
    return RRResult(float(value), float(rho), T, adv, "window search", len(cand), evaluations, m1)


def _window_laws(model, e, kl, L, kr, R) -> tuple[np.ndarray, np.ndarray]:
    """Inside laws ``q_0, q_1`` of one window (one recursion)."""
    P, T = model.transition, model.n
    f = np.zeros((1, 2, T + 1))
    f[0, :, 0] = model.initial if kl == START else P[kl]
    for _ in range(L):
        f = _step(f, P, e)
    out = []
    for x in (0, 1):
        h = target_step(f, x, e)
        for _ in range(R):
            h = advance_step(h, P, e)
        q = h[0].sum(axis=0) if kr == END else np.einsum("yk,y->k", h[0], P[:, kr])
        out.append(q / q.sum())
    return out[0], out[1]


def _composition_range(T, kl, L, kr, R):
    m = T - L - R - 1
    ones = (kl == 1) + (kr == 1)
    zeros = (kl == 0) + (kr == 0)
    return m, ones, m - zeros


def _evaluate(model, e, rho, kl, L, kr, R, extreme_only=False):
    q0, q1 = _window_laws(model, e, kl, L, kr, R)
    n_in = L + R + 1
    lq0, lq1 = np.log(q0[: n_in + 1]), np.log(q1[: n_in + 1])
    m, lo, hi = _composition_range(model.n, kl, L, kr, R)
    if extreme_only:
        best = (-math.inf, lo, 0, 0)
        for x, (a, b) in enumerate(((lq0, lq1), (lq1, lq0))):
            for j, zz in ((0, 0), (n_in, model.n)):
                if a[j] - b[j] > best[0]:
                    best = (float(a[j] - b[j]), lo, zz, x)
        return best
    return _exact_window(lq0, lq1, m, lo, hi, rho)


def realise_window(model, kl, L, kr, R, m1, x, z) -> RRAdversary:
    """A concrete adversary of the window class: target as far left as the class allows, outside
    values with ``m1`` ones (boundary values first)."""
    T = model.n
    i = L if kl == START else L + 1
    if kr == END:
        i = T - 1 - R
    l, r = i - L - 1, i + R + 1
    known = list(range(0, l + 1)) + list(range(r, T))
    vals = {}
    if kl != START:
        vals[l] = kl
    if kr != END:
        vals[r] = kr
    free = [p for p in known if p not in vals]
    extra = (m1 or 0) - sum(vals.values())
    for j, p in enumerate(free):
        vals[p] = 1 if j < extra else 0
    return RRAdversary(i, tuple(known), tuple(vals[p] for p in known), x, 1 - x, int(z))


def rr_laws(
    model: MarkovChainModel, rho: float, adversary: RRAdversary | Adversary
) -> tuple[np.ndarray, np.ndarray]:
    """``P(Z = z | x_K, x)`` and ``P(Z = z | x_K, x')``, ``z = 0..T``: the forward recursion over
    (position, state, flipped count) with the known records clamped (raises
    :class:`~bdpsim.core.errors.NotAvailable` for a condition of probability zero)."""
    check_rr(model, rho)
    T, P = model.n, model.transition
    e = np.array([[1 - rho, rho], [rho, 1 - rho]])
    laws = []
    for x in (adversary.x, adversary.x_prime):
        allowed = np.ones((T, 2))
        for p, v in zip(adversary.known, adversary.x_known):
            allowed[p] = 0
            allowed[p, int(v)] = 1
        allowed[adversary.i] = 0
        allowed[adversary.i, int(x)] = 1
        f = np.zeros((2, T + 1))
        for y in range(2):
            for zz in range(2):
                f[y, zz] += model.initial[y] * allowed[0, y] * e[y, zz]
        for t in range(1, T):
            if not f.sum() > 0:
                break
            g = np.zeros_like(f)
            base = P.T @ f  # base[y', k] = sum_y P[y, y'] f[y, k]
            for y2 in range(2):
                for zz in range(2):
                    g[y2, zz:] += base[y2, : T + 1 - zz] * e[y2, zz] * allowed[t, y2]
            f = g / g.sum() if g.sum() > 0 else g
        if not f.sum() > 0:
            raise NotAvailable(f"adversary {adversary}: a conditioning event has probability zero")
        laws.append(f.sum(axis=0) / f.sum())
    return laws[0], laws[1]


def rr_adversary_bdpl(model: MarkovChainModel, rho: float, adversary: RRAdversary | Adversary) -> float:
    """``max_z ln P(Z = z | x_K, x) / P(Z = z | x_K, x')`` of one adversary (the laws of
    :func:`rr_laws`)."""
    laws = rr_laws(model, rho, adversary)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(laws[0] > 0, np.log(laws[0]) - np.log(laws[1]), -np.inf)
    return float(r.max())
