"""The Markov Quilt mechanism's set-up, as the authors' MATLAB code computes it (``shs037/pufferfish``):
the start law and eigengap of ``run_*.m``, the search length of ``run_realData.m``, the node
marginals of ``computeProbability.m`` and the exact influence ratios of
``exactRatioBinaryGenerate.m`` / ``k_findBest_2dir_exact_multi.m`` (:mod:`bdpsim.calibration.quilt.chain`
searches with them).
"""

from __future__ import annotations

import math

import numpy as np

from ...core.errors import ConfigError
from ...kernels.chains.transition import transition_matrix

AUTHORS_POWER = 100  # pi = M^100; pi = pi(1, :)   (run_synthetic.m, run_realData.m)
REVERSAL_POWER = 4096  # pi = p^4096                 (reversibleChain_reverse.m)


def authors_stationary(P) -> np.ndarray:
    """First row of ``P^100``: the authors' (approximate) stationary law."""
    P = transition_matrix(P)
    return np.linalg.matrix_power(P, AUTHORS_POWER)[0].copy()


def time_reversal(P) -> np.ndarray:
    """``reversibleChain_reverse.m``: ``P*_ij = pi_j P_ji / pi_i`` with ``pi`` = first row of ``P^4096``."""
    P = transition_matrix(P)
    pi = np.linalg.matrix_power(P, REVERSAL_POWER)[0]
    return (pi[:, None] * P / pi[None, :]).T


def _second_modulus(M: np.ndarray) -> float:
    ev = np.sort(np.abs(np.linalg.eigvals(M)))[::-1]
    return float(ev[1])


def authors_eigengap(P, kind: str = "auto") -> float:
    """Eigengap as the authors' scripts compute it.

    ``"chain"`` (``run_synthetic.m``): ``1 - |lambda_2(P)|``; ``"reversal"`` (``run_realData.m``):
    ``(1 - |lambda_2(P P*)|)/2`` with :func:`time_reversal`; ``"auto"``: ``chain`` for 2 states,
    ``reversal`` otherwise (as the two scripts are used).
    """
    P = transition_matrix(P)
    if kind == "auto":
        kind = "chain" if P.shape[0] == 2 else "reversal"
    if kind == "chain":
        return 1.0 - _second_modulus(P)
    if kind == "reversal":
        return (1.0 - _second_modulus(P @ time_reversal(P))) / 2.0
    raise ConfigError("eigengap", kind, "must be 'auto', 'chain' or 'reversal'")


def authors_search_length(pi_min: float, eig_gap: float, epsilon: float) -> int:
    """``run_realData.m``'s quilt search range ``l`` (passed there as the chain length ``T``)."""
    e6 = math.exp(epsilon / 6)
    return int(2 * 2 * 2 * math.ceil(math.log((e6 + 1) / (e6 - 1) / pi_min) / (2 * eig_gap)))


def node_probabilities(T: int, P, initial) -> np.ndarray:
    """``computeProbability.m``: ``c[t] = P(X_{t+1} = .)`` for a chain started at ``initial``,
    shape ``(T, s)`` (the MATLAB returns the columns ``c0, c1``)."""
    P = transition_matrix(P)
    c = np.zeros((T, P.shape[0]))
    c[0] = np.asarray(initial, dtype=float)
    for t in range(1, T):
        c[t] = c[t - 1] @ P
    return c


def _powers(P: np.ndarray, T: int) -> np.ndarray:
    """``Mpower(:,:,k) = M^k`` for ``k = 1..T-1`` as an array ``(T-1, s, s)`` (index ``k-1``)."""
    out = np.zeros((max(T - 1, 0),) + P.shape)
    for k in range(T - 1):
        out[k] = P if k == 0 else P @ out[k - 1]
    return out


def exact_ratios_binary(P, T: int, c0=None, c1=None):
    """``exactRatioBinaryGenerate.m``: ``(downstream, upstream1, upstream2)``.

    ``downstream[b-1] = [max_x, min_x] (P^b)[0, x] / (P^b)[1, x]``,
    ``upstream1[a-1] = [max_x, min_x] (P^a)[x, 0] / (P^a)[x, 1]`` (``b, a = 1..T-1``);
    ``upstream2[i-1, :] = P(X_i = 1)/P(X_i = 0)`` given the node marginals ``c0, c1`` (length
    ``T``), or without them (the MATLAB's ``nargin == 2``) the worst case
    ``[1/upstream1[i-2, 1], 1/upstream1[i-2, 0]]`` with a ``nan`` first row.
    """
    P = transition_matrix(P)
    if P.shape[0] != 2:
        raise ConfigError("transition", P.tolist(), "this handles 2 by 2 transition matrix only")
    Mp = _powers(P, T)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = Mp[:, 0, :] / Mp[:, 1, :]
        u = Mp[:, :, 0] / Mp[:, :, 1]
    downstream = np.stack([d.max(axis=1), d.min(axis=1)], axis=1)
    upstream1 = np.stack([u.max(axis=1), u.min(axis=1)], axis=1)
    if c0 is not None and c1 is not None:
        r = np.asarray(c1, dtype=float) / np.asarray(c0, dtype=float)
        upstream2 = np.stack([r, r], axis=1)
    elif c0 is None and c1 is None:
        upstream2 = np.vstack(
            [[np.nan, np.nan], np.stack([1 / upstream1[:, 1], 1 / upstream1[:, 0]], axis=1)]
        )
    else:
        raise ConfigError("c0, c1", None, "exactRatioBinaryGenerate input formate error")
    return downstream, upstream1, upstream2


def exact_ratios_multi(P, T: int):
    """``exactRatioMultiGenerate.m`` with two arguments (as ``run_realData.m`` calls it).

    Columns ``j = s*k + t`` (0-indexed ``s, t``) hold, for ``b, a = 1..T-1``:
    ``downstream[b-1, j] = max_x (P^b)[s, x] / (P^b)[t, x]``,
    ``upstream1[a-1, j] = max_x (P^a)[x, s] / (P^a)[x, t]`` (1 on the diagonal ``s = t``) and
    ``upstream2[i-1, j] = max_x (P^{i-1})[x, t] / (P^{i-1})[x, s]`` (first row ``nan``): the
    worst case over start laws of ``P(X_i = t)/P(X_i = s)``.
    """
    P = transition_matrix(P)
    k = P.shape[0]
    Mp = _powers(P, T)
    n = Mp.shape[0]
    downstream = np.ones((n, k * k))
    upstream1 = np.ones((n, k * k))
    upstream2 = np.ones((n, k * k))
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in range(k):
            upstream1[:, s * k + s] = 1.0
            for t in range(s + 1, k):
                d = Mp[:, s, :] / Mp[:, t, :]
                downstream[:, s * k + t] = d.max(axis=1)
                downstream[:, t * k + s] = 1 / d.min(axis=1)
                u = Mp[:, :, s] / Mp[:, :, t]
                upstream1[:, s * k + t] = u.max(axis=1)
                upstream1[:, t * k + s] = 1 / u.min(axis=1)
                upstream2[:, s * k + t] = upstream1[:, t * k + s]
                upstream2[:, t * k + s] = upstream1[:, s * k + t]
    upstream2 = np.vstack([np.full((1, k * k), np.nan), upstream2])
    return downstream, upstream1, upstream2


# ---------------------------------------------------------------------------------- searches
