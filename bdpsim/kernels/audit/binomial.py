"""Exact binomial confidence bounds (Clopper–Pearson) and the certified log-ratio of two binomial
proportions: the numerics under the black-box audit (:mod:`bdpsim.kernels.audit.certificates`,
:mod:`bdpsim.kernels.audit.events`)."""

from __future__ import annotations

import numpy as np

from ..argcheck import require


def check_alpha(a, name: str = "alpha") -> np.ndarray:
    arr = np.asarray(a, dtype=float)
    require(bool(np.all(np.isfinite(arr) & (arr > 0) & (arr < 1))), name, a, "must be in (0, 1)")
    return arr


def _counts(k, n):
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    require(
        bool(np.all((n >= 1) & (k >= 0) & (k <= n))),
        "k",
        (k.tolist() if k.size < 5 else "..."),
        "need 0 <= k <= n and n >= 1",
    )
    return k, n


def clopper_pearson_lower(k, n, a):
    """Exact one-sided lower bound ``p_low`` with ``P(Bin(n, p_low) >= k) = a``:
    ``Beta.ppf(a; k, n - k + 1)`` (``scipy.special.betaincinv``, the function behind
    ``scipy.stats.beta.ppf``), and 0 for ``k = 0``. Vectorised; real-valued ``k`` allowed (the
    continuous extension, used for predictions)."""
    from scipy.special import betaincinv

    k, n = _counts(k, n)
    a = check_alpha(a, "a")
    with np.errstate(invalid="ignore"):
        out = np.where(k > 0, betaincinv(np.maximum(k, 1e-300), n - k + 1, a), 0.0)
    return out if out.ndim else float(out)


def clopper_pearson_upper(k, n, a):
    """Exact one-sided upper bound ``q_high`` with ``P(Bin(n, q_high) <= k) = a``:
    ``Beta.ppf(1 - a; k + 1, n - k)`` (computed as ``Beta.isf(a)`` with
    ``scipy.special.betainccinv``, exact also for tiny ``a``), and 1 for ``k = n``."""
    from scipy.special import betainccinv

    k, n = _counts(k, n)
    a = check_alpha(a, "a")
    with np.errstate(invalid="ignore"):
        out = np.where(k < n, betainccinv(k + 1, np.maximum(n - k, 1e-300), a), 1.0)
    return out if out.ndim else float(out)


def certified_log_ratio(k1, n1, k2, n2, alpha):
    """``max(0, ln CP_lower(k1, n1, alpha/2) / CP_upper(k2, n2, alpha/2))``: a lower bound on
    ``ln p1/p2`` at level ``1 - alpha`` for counts ``k1 ~ Bin(n1, p1)``, ``k2 ~ Bin(n2, p2)``."""
    al = check_alpha(alpha) / 2.0
    p = clopper_pearson_lower(k1, n1, al)
    q = clopper_pearson_upper(k2, n2, al)
    with np.errstate(divide="ignore"):
        out = np.maximum(0.0, np.log(p) - np.log(q))
    return out if np.ndim(out) else float(out)


def predicted_bound(p, q, n, alpha):
    """The bound :func:`certified_log_ratio` would give with ``n`` samples per side if the counts
    came out at their expectations ``p n`` and ``q n`` (real-valued Clopper–Pearson)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if np.ndim(n) == 0 and n < 1:
        return np.zeros(np.broadcast(p, q).shape) if np.ndim(p) or np.ndim(q) else 0.0
    n = np.asarray(n, dtype=float)
    return certified_log_ratio(np.clip(p, 0, 1) * n, n, np.clip(q, 0, 1) * n, n, alpha)
