"""Randomized response on a binary chain, computed directly (checks and baselines for
:mod:`bdpsim.mechanisms.randomized_response.window`): the exact BDPL by brute force over every data tuple
and every
known set (``T <= 12``), and the output laws of the adversary who knows no record — Pufferfish's
adversary for the secrets ``X_i = x`` (Chakrabarti et al.; paper §6.2)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...core.errors import NotAvailable
from ...models.markov.model import MarkovChainModel
from .core import BRUTE_FORCE_MAX_T, RRAdversary, RRResult, check_rr


def flipped_count_laws(T: int, rho: float) -> np.ndarray:
    """``L[m1, z] = P(Z = z)`` for a data tuple with ``m1`` ones: ``Bin(m1, 1-rho) * Bin(T-m1, rho)``."""
    from scipy.stats import binom  # lazy: scipy is heavy to import

    out = np.zeros((T + 1, T + 1))
    for m1 in range(T + 1):
        out[m1] = np.convolve(
            binom.pmf(np.arange(m1 + 1), m1, 1 - rho), binom.pmf(np.arange(T - m1 + 1), T - m1, rho)
        )
    return out


def rr_bdpl_bruteforce(model: MarkovChainModel, rho: float) -> RRResult:
    """Exact BDPL by brute force: every data tuple (``2^T``), every target, every known set, every
    known-value assignment (``T <= 12``)."""
    check_rr(model, rho)
    T, P, w = model.n, model.transition, model.initial
    if T > BRUTE_FORCE_MAX_T:
        raise NotAvailable(
            f"the brute force enumerates 2^T tuples and every known set: T <= {BRUTE_FORCE_MAX_T}"
        )
    xs = np.array(list(itertools.product([0, 1], repeat=T)), dtype=np.int64)
    p = w[xs[:, 0]].copy()
    for t in range(1, T):
        p *= P[xs[:, t - 1], xs[:, t]]
    joint = p[:, None] * flipped_count_laws(T, rho)[xs.sum(axis=1)]  # P(X = x, Z = z)
    best, arg = -math.inf, None
    for i in range(T):
        others = [j for j in range(T) if j != i]
        for size in range(T):
            for combo in itertools.combinations(others, size):
                K = list(combo)
                key = (xs[:, K] @ (2 ** np.arange(len(K)))) * 2 + xs[:, i]
                acc = np.zeros((2 ** (len(K) + 1), T + 1))
                np.add.at(acc, key, joint)
                z = acc.sum(axis=1)
                ok = (z[0::2] > 0) & (z[1::2] > 0)
                if not ok.any():
                    continue
                l0 = acc[0::2][ok] / z[0::2][ok, None]
                l1 = acc[1::2][ok] / z[1::2][ok, None]
                with np.errstate(divide="ignore", invalid="ignore"):
                    for x, num, den in ((0, l0, l1), (1, l1, l0)):
                        r = np.where(num > 0, np.log(num) - np.log(den), -np.inf)
                        j = np.unravel_index(int(np.argmax(r)), r.shape)
                        if r[j] > best:
                            code = int(np.flatnonzero(ok)[j[0]])
                            vals = tuple(int((code >> b) & 1) for b in range(len(K)))
                            best, arg = float(r[j]), RRAdversary(i, tuple(K), vals, x, 1 - x, int(j[1]))
    if arg is None:  # every target has one possible value: no adversary to compare
        raise NotAvailable(
            "no record can take both values 0 and 1 given the chain (its start law and "
            "transitions have zeros): randomized response has no adversary to evaluate"
        )
    return RRResult(best, float(rho), T, arg, "brute force")


def rr_target_laws(model: MarkovChainModel, rho: float) -> dict:
    """``{(i, x): P(Z = . | X_i = x)}`` for every record and value of positive probability: the
    output laws seen by an adversary who knows no record (left part from the start law, right part
    given ``X_i = x``, convolved; positive terms only)."""
    check_rr(model, rho)
    T, P, w = model.n, model.transition, model.initial
    e = np.array([[1 - rho, rho], [rho, 1 - rho]])
    K = T + 1
    left = np.zeros((T, 2, K))  # left[i](x, k) ∝ P(X_i = x, flips of 0..i-1 = k)
    a = np.zeros((2, K))
    a[:, 0] = w
    for t in range(T):
        left[t] = a / a.sum()
        nxt = np.zeros_like(a)
        for y in range(2):
            for z in range(2):
                nxt[:, z:] += np.outer(P[y], a[y, : K - z] * e[y, z])
        a = nxt
    right = np.zeros((T, 2, K))  # right[j](x, k) = P(flips of the next j records = k | X_i = x)
    b = np.zeros((2, K))
    b[:, 0] = 1.0
    for j in range(T):
        right[j] = b
        own = np.zeros_like(b)  # the next record's own flip: own[y, k] = sum_z e[y, z] b[y, k - z]
        for y in range(2):
            for z in range(2):
                own[y, z:] += e[y, z] * b[y, : K - z]
        b = P @ own
    out = {}
    for i in range(T):
        for x in range(2):
            lx = left[i, x]
            if lx.sum() <= 0:
                continue
            law = np.convolve(np.convolve(lx / lx.sum(), e[x]), right[T - 1 - i, x])[:K]
            out[i, x] = law / law.sum()
    return out


def rr_no_knowledge_bdpl(model: MarkovChainModel, rho: float) -> float:
    """Leakage to the adversaries who know no record (``K = {}``; Pufferfish's adversary for the
    secrets ``X_i = x``): ``max_{i, x, x', z} ln P(Z = z | X_i = x) / P(Z = z | X_i = x')``."""
    laws = rr_target_laws(model, rho)
    best = -math.inf
    for i in range(model.n):
        if (i, 0) in laws and (i, 1) in laws:
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.abs(np.log(laws[i, 0]) - np.log(laws[i, 1]))
            best = max(best, float(np.nanmax(r)))
    return best
