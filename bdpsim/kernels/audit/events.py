"""Output events for the black-box audit : candidates, counts and selection.

An event is ``S = {y : lo <= s(y) <= hi}`` for a score ``s`` — the output itself for scalar outputs,
a fitted linear log-likelihood-ratio score for vector outputs — and a direction: ``+1`` bounds
``ln P(S | x) / P(S | x')``, ``-1`` the reverse. Candidates:

* scalar outputs: thresholds ``{y >= t}``, ``{y <= t}`` at order statistics of either selection
  sample (every one of the 50 extreme ranks at each end, then geometrically spaced ranks and 200
  quantiles), and intervals ``[t_a, t_b]`` between 21 quantiles of each sample (interior suprema);
* discrete outputs (few distinct values): every single output ``{y = v}``, every threshold at a
  distinct value, and intervals between up to 60 distinct values;
* vector outputs ``(N, d)``: a logistic regression of the label (``x`` vs ``x'``) on the
  standardised outputs, fitted by Newton's method with a small ridge, gives the score
  ``s(y) = beta^T y`` (the log-likelihood-ratio when the two laws are an exponential family in
  ``y``, e.g. Gaussian noise with a common covariance; a monotone proxy otherwise), fitted on at
  most 200 000 selection points per side; its values are then thresholded like a scalar output.

Selection rule (all on the SELECTION sample only, so that certification on fresh samples stays
valid). ``rule="predicted"`` (default): replace the selection counts by conservative probabilities
``p_c = CP_lower(k, n, level)``, ``q_c = CP_upper(k', n, level)`` (``level = 1e-3``) and score each
candidate by the bound it would certify with ``N`` fresh samples per side, counts ``p_c N`` and
``q_c N``: ``ln CP_lower(p_c N, N, alpha/2) / CP_upper(q_c N, N, alpha/2)``. ``rule="conservative"``
scores by ``ln p_c / q_c`` alone, ``rule="plugin"`` by ``ln (k + 1/2)/(k' + 1/2)``. The plug-in
overfits (it picks thresholds where the ``x'`` count came out low); see
:mod:`bdpsim.kernels.audit.certificates` for the measured comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..argcheck import ParameterError, require
from .binomial import clopper_pearson_lower, clopper_pearson_upper, predicted_bound

_EXTREME_RANKS = 50
_GEOM_RANKS = 150
_QUANTILES = 200
_INTERVAL_GRID = 41
_DISCRETE_MAX = 60
_FIT_MAX = 200_000


@dataclass(frozen=True, eq=False)
class Event:
    """``S = {y : lo <= s(y) <= hi}``; ``direction = +1`` bounds ``ln P(S|x)/P(S|x')``, ``-1`` the reverse.

    ``coef``/``center``/``scale`` define the score of a vector output,
    ``s(y) = sum_k coef_k (y_k - center_k) / scale_k``; ``None`` for scalar outputs (``s(y) = y``).
    """

    lo: float
    hi: float
    direction: int
    coef: np.ndarray | None = None
    center: np.ndarray | None = None
    scale: np.ndarray | None = None

    def score(self, y: np.ndarray) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        if self.coef is None:
            return y.reshape(y.shape[0]) if y.ndim == 2 else y
        return ((y - self.center) / self.scale) @ self.coef

    def contains(self, y: np.ndarray) -> np.ndarray:
        s = self.score(y)
        return (s >= self.lo) & (s <= self.hi)

    def describe(self) -> str:
        what = "y" if self.coef is None else "score(y)"
        side = "P(S|x)/P(S|x')" if self.direction > 0 else "P(S|x')/P(S|x)"
        if self.lo == -math.inf:
            s = f"{what} <= {self.hi:.6g}"
        elif self.hi == math.inf:
            s = f"{what} >= {self.lo:.6g}"
        elif self.lo == self.hi:
            s = f"{what} = {self.lo:.6g}"
        else:
            s = f"{self.lo:.6g} <= {what} <= {self.hi:.6g}"
        return f"S = {{{s}}}, {side}"


def check_outputs(y, size: int | None = None, name: str = "y") -> np.ndarray:
    """Mechanism outputs as a float array of shape ``(N,)`` or ``(N, d)``; NaN/inf is an error
    (naming ``name``: the caller's name of ``y``)."""
    a = np.asarray(y, dtype=float)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    require(a.ndim in (1, 2) and a.shape[0] >= 1, name, a.shape, "must be an array of shape (N,) or (N, d)")
    if size is not None:
        require(
            a.shape[0] == size, name, a.shape, f"a sampler asked for {size} outputs returned {a.shape[0]}"
        )
    bad = ~np.isfinite(a)
    if bad.any():
        row = int(np.flatnonzero(bad.reshape(a.shape[0], -1).any(axis=1))[0])
        value = a.reshape(a.shape[0], -1)[row]
        raise ParameterError(
            name,
            value.tolist() if value.size > 1 else float(value[0]),
            f"must be finite numbers (row {row} of {a.shape[0]} is not)",
        )
    return a


def _distinct_sorted(s: np.ndarray) -> np.ndarray:
    return s[np.concatenate([[True], s[1:] != s[:-1]])] if s.size else s


def output_kind(y_x: np.ndarray, y_xp: np.ndarray) -> str:
    """``"vector"`` for ``d > 1``; ``"discrete"`` when the pooled sample has at most half as many
    distinct values as points (and at most 10 000); else ``"continuous"``."""
    if y_x.ndim == 2:
        return "vector"
    return _kind_sorted(np.sort(y_x), np.sort(y_xp))


def _kind_sorted(sx: np.ndarray, sxp: np.ndarray) -> str:
    distinct = np.union1d(_distinct_sorted(sx), _distinct_sorted(sxp)).size
    return "discrete" if distinct <= min(10_000, max(1, (sx.size + sxp.size) // 2)) else "continuous"


def fit_score(y_x: np.ndarray, y_xp: np.ndarray, ridge: float = 1e-6, steps: int = 25):
    """Logistic regression of the label (1 for ``x``) on standardised vector outputs by Newton's
    method; returns ``(coef, center, scale)`` of the linear score (intercept dropped: it does not
    change threshold events)."""
    X = np.vstack([y_x, y_xp])
    center = X.mean(axis=0)
    scale = X.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    Z = np.hstack([np.ones((X.shape[0], 1)), (X - center) / scale])
    t = np.concatenate([np.ones(y_x.shape[0]), np.zeros(y_xp.shape[0])])
    beta = np.zeros(Z.shape[1])
    lam = ridge * Z.shape[0]
    for _ in range(steps):
        eta = np.clip(Z @ beta, -30, 30)
        p = 1.0 / (1.0 + np.exp(-eta))
        grad = Z.T @ (t - p) - lam * np.r_[0.0, beta[1:]]
        H = (Z * (p * (1 - p))[:, None]).T @ Z + lam * np.diag(np.r_[0.0, np.ones(Z.shape[1] - 1)])
        stepv = np.linalg.solve(H + 1e-12 * np.eye(H.shape[0]), grad)
        beta = beta + stepv
        if np.max(np.abs(stepv)) < 1e-10:
            break
    coef = beta[1:]
    if not np.any(coef != 0):
        coef = np.ones_like(coef)
    return coef, center, scale


def _rank_grid(n: int) -> np.ndarray:
    """0-based ranks of a sorted sample of size ``n`` used as thresholds."""
    ends = np.arange(min(_EXTREME_RANKS, n))
    geo = np.unique(np.geomspace(max(_EXTREME_RANKS, 1), max(n, 2), _GEOM_RANKS).astype(np.int64))
    lo = np.concatenate([ends, geo[geo < n]])
    mid = np.linspace(0, n - 1, _QUANTILES).astype(np.int64)
    return np.unique(np.concatenate([lo, n - 1 - lo, mid]))


def candidates(sx: np.ndarray, sxp: np.ndarray, discrete: bool):
    """Candidate intervals ``(lo, hi)`` and their counts ``(k_x, k_xp)``, from the two SORTED
    selection samples (no pooled copy: thresholds are order statistics of either sample)."""
    inf = np.inf
    if discrete:
        vals = np.union1d(_distinct_sorted(sx), _distinct_sorted(sxp))
        pick = (
            vals
            if vals.size <= _DISCRETE_MAX
            else vals[np.unique(np.linspace(0, vals.size - 1, _DISCRETE_MAX).astype(np.int64))]
        )
        a, b = np.triu_indices(pick.size)
        lo = np.concatenate([vals, vals, np.full(vals.size, -inf), pick[a]])
        hi = np.concatenate([vals, np.full(vals.size, inf), vals, pick[b]])
    else:
        t = np.union1d(sx[_rank_grid(sx.size)], sxp[_rank_grid(sxp.size)])
        grid = np.linspace(0, 1, (_INTERVAL_GRID + 1) // 2)
        q = np.union1d(
            sx[(grid * (sx.size - 1)).astype(np.int64)], sxp[(grid * (sxp.size - 1)).astype(np.int64)]
        )
        a, b = np.triu_indices(q.size, 1)
        lo = np.concatenate([t, np.full(t.size, -inf), q[a]])
        hi = np.concatenate([np.full(t.size, inf), t, q[b]])

    def count(s):
        return np.searchsorted(s, hi, side="right") - np.searchsorted(s, lo, side="left")

    return lo, hi, count(sx), count(sxp)


def _pareto(k_num: np.ndarray, k_den: np.ndarray) -> np.ndarray:
    """Indices of the candidates not dominated by another with ``k_num >=`` and ``k_den <=`` (one
    representative per distinct pair)."""
    order = np.lexsort((-k_num, k_den))  # by k_den ascending, then k_num descending
    best = np.maximum.accumulate(k_num[order])
    prev = np.concatenate([[-1], best[:-1]])
    return order[k_num[order] > prev]


@dataclass(frozen=True, eq=False)
class Selection:
    """The event chosen on a selection sample, with its selection counts (in the event's
    orientation: ``k_num`` out of ``n_num`` on the side in the numerator) and the bound it is
    predicted to certify with ``n_cert`` fresh samples per side."""

    event: Event
    k_num: int
    n_num: int
    k_den: int
    n_den: int
    predicted: float
    n_cert: int
    kind: str


def select_event(
    y_x, y_xp, n_cert: int, alpha: float, rule: str = "predicted", level: float = 1e-3, kind: str = "auto"
) -> Selection:
    """Choose the event (and direction) to certify from selection samples ``y_x``, ``y_xp``.

    See the module docstring for candidates and rules. ``n_cert`` (fresh samples per side planned
    for certification) enters ``rule="predicted"`` and the reported ``predicted`` bound.
    """
    require(
        rule in ("predicted", "conservative", "plugin"),
        "rule",
        rule,
        "must be 'predicted', 'conservative' or 'plugin'",
    )
    require(
        kind in ("auto", "continuous", "discrete", "vector"),
        "kind",
        kind,
        "must be auto, continuous, discrete or vector",
    )
    yx, yxp = check_outputs(y_x, name="y_x"), check_outputs(y_xp, name="y_xp")
    require(
        yx.ndim == yxp.ndim and yx.shape[1:] == yxp.shape[1:],
        "y_xp",
        yxp.shape,
        f"both samples need the same output shape (got {yx.shape} and {yxp.shape})",
    )
    coef = center = scale = None
    if kind == "vector" or yx.ndim == 2:
        kind = "vector"
        m = _FIT_MAX  # the fit needs a direction, not all points: the first m of each i.i.d. sample
        coef, center, scale = fit_score(yx[:m], yxp[:m])
        sx, sxp = np.sort(((yx - center) / scale) @ coef), np.sort(((yxp - center) / scale) @ coef)
    else:
        sx, sxp = np.sort(yx), np.sort(yxp)
        kind = _kind_sorted(sx, sxp) if kind == "auto" else kind
    lo, hi, kx, kxp = candidates(sx, sxp, discrete=(kind == "discrete"))
    nx, nxp = sx.size, sxp.size
    # both directions
    lo2, hi2 = np.concatenate([lo, lo]), np.concatenate([hi, hi])
    knum = np.concatenate([kx, kxp])
    kden = np.concatenate([kxp, kx])
    nnum = np.concatenate([np.full(kx.size, nx), np.full(kx.size, nxp)])
    nden = np.concatenate([np.full(kx.size, nxp), np.full(kx.size, nx)])
    direction = np.concatenate([np.ones(kx.size, dtype=int), -np.ones(kx.size, dtype=int)])
    # every rule's score grows with k_num and falls with k_den at fixed (n_num, n_den): only the
    # Pareto front of (k_num, k_den) within each direction can win (exact pruning, for speed)
    keep = np.concatenate(
        [np.flatnonzero(direction == d)[_pareto(knum[direction == d], kden[direction == d])] for d in (1, -1)]
    )
    lo2, hi2, knum, kden, nnum, nden, direction = (
        a[keep] for a in (lo2, hi2, knum, kden, nnum, nden, direction)
    )
    if rule == "plugin":
        score = np.log((knum + 0.5) / nnum) - np.log((kden + 0.5) / nden)
    else:
        pc = clopper_pearson_lower(knum, nnum, level)
        qc = clopper_pearson_upper(kden, nden, level)
        with np.errstate(divide="ignore"):
            score = np.log(pc) - np.log(qc)
        if rule == "predicted":
            score = predicted_bound(pc, qc, n_cert, alpha)
    j = int(np.argmax(score))
    pc = float(clopper_pearson_lower(knum[j], nnum[j], level))
    qc = float(clopper_pearson_upper(kden[j], nden[j], level))
    ev = Event(float(lo2[j]), float(hi2[j]), int(direction[j]), coef, center, scale)
    return Selection(
        ev,
        int(knum[j]),
        int(nnum[j]),
        int(kden[j]),
        int(nden[j]),
        float(predicted_bound(pc, qc, n_cert, alpha)),
        int(n_cert),
        kind,
    )
