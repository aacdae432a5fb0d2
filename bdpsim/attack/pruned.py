"""The worst TPR at given FPRs over every law pair of a chain's window search, by branch and bound
inside the attack's first profile search.

Every adversary ``(i, K, x_K, x, x')`` of a Markov chain is the window adversary of its nearest
known records ``l < i < r`` (every record outside ``(l, r)`` known) followed by a post-processing:
the unknown records outside the window add to the count a sum independent of ``X_i`` given ``X_l``
and ``X_r`` (the Markov property), a random shift of the same law under ``x`` and ``x'``; and the
known records a constant. A post-processing never raises a test's power (Neyman-Pearson; the
trade-off of ``(P K, Q K)`` lies above that of ``(P, Q)``), and the window adversary knows at least
as many records. So the worst ``TPR(alpha)`` over every adversary is the largest over the law pairs
of the window search (its cells, with their boundary values and pairs of target values), exact up
to the search's window truncation, as its advantage and BDPL are.

Each pair's ``TPR(alpha) = inf_t [t alpha + H(t)]`` (:mod:`bdpsim.attack.tradeoff`) is at most

    U(alpha) = min( alpha + tau,  t alpha + max(H(t), H'(t)) for a few t near t* )             (1)

(``t*``: the minimising threshold of the best pair found so far; any ``t > 0`` gives a bound;
``H, H'``: both orders of the pair, ``tau = H(1)`` its total variation), computed for every pair
of a batch from the mixtures' sides at once, each ``t`` on the pairs the previous ones left. Only
the pairs whose ``U`` exceeds the best TPR found so far are solved exactly (the golden-section
search of :func:`~bdpsim.attack.tradeoff.tpr_rows`, both orders, the pairs of a batch at once);
the others count 0.
The component's supremum and the cell attaining it are then exact, and that supremum holds for
every adversary: the certified upper bound of the worst TPR, equal to the value attained.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ..kernels.noise.laws import prepared_deltas
from ..kernels.noise.scores import PRUNE_MARGIN, BdplScore, ProfilesScore, Scored
from .tradeoff import LOG_T_MAX, golden_rows

#: absolute margin on the bound (1) (the rounding of the profile it is computed from)
BOUND_MARGIN = 1e-12
#: relative width in ``ln t`` of the pairs' golden-section searches: each point it evaluates bounds
#: the pair's TPR (so the supremum stays an upper bound), within ~1e-13 of it (the infimum may sit
#: at a kink of ``H``: first order; 6e-14 measured on the activity chain); the reported TPR is the
#: adversary's own, to the width 1e-13 (:func:`~bdpsim.attack.tradeoff.tpr_rows`)
SOLVE_TOL = 1e-10
#: pairs solved exactly first in each batch (the largest total variation in the first batch, which
#: gives the first best and t*; then the largest bounds), before the others are bounded again
LEAD_ROWS = 4
#: where bound (1) is read, in ``ln t`` from the best pair's ``ln t*`` (each probe on the pairs the
#: previous ones left; just below ``t*`` the bound is tightest for the many pairs whose likelihood
#: ratio plateaus near the best pair's, measured on the activity chain)
PROBES = (-0.05, -0.2, 0.0)


class _Best:
    """The best TPR at one FPR found so far and its threshold ``t*``."""

    __slots__ = ("value", "t")

    def __init__(self) -> None:
        self.value, self.t = -math.inf, math.nan


class TprScore:
    """The first search's score: the total variation ``delta(0)`` (and with ``bdpl`` the BDPL), the
    numbers of ``ProfilesScore([0.0], bdpl)``, then one component ``tpr(alpha)`` per FPR of
    ``alphas``: the TPR of each law pair where it may be the largest so far, else 0 (module
    docstring); the mixtures' sides of a batch computed once for all of them."""

    def __init__(self, alphas: Sequence[float], bdpl: bool = False) -> None:
        self.alphas = np.array([float(a) for a in alphas])
        self.bdpl = bool(bdpl)
        inner = ProfilesScore([0.0], bdpl=self.bdpl)
        self.names = tuple(inner.names) + tuple(f"tpr({a:.17g})" for a in self.alphas)
        self.best = [_Best() for _ in self.alphas]
        self.solved = 0

    def __call__(self, W1, W2, step: float, noise) -> Scored:
        return self._score(W1, W2, step, noise, lambda A, B: BdplScore()(A, B, step, noise))

    def scan_path(self, noise, step: float) -> Callable[[np.ndarray, np.ndarray], Scored]:
        """The BDPL by the window scan's own path (:meth:`BdplScore.scan_path`), as
        ``ProfilesScore``."""
        sup = BdplScore().scan_path(noise, step)
        return lambda W1, W2: self._score(W1, W2, step, noise, sup)

    def _score(self, W1, W2, step: float, noise, sup) -> Scored:
        W1, W2 = np.asarray(W1), np.asarray(W2)
        rows = W1.shape[0]
        at = prepared_deltas(noise, W1, W2, step)
        signed = sup(W1, W2) if self.bdpl else None
        # as ProfilesScore: a pure-DP pair is evaluated where its BDPL L > 0 - margin (every pair but
        # one whose L is not a number: 0), all at once for most rows
        f, b = np.zeros((rows, 1)), np.zeros((rows, 1))
        sub = (
            None
            if signed is None or not noise.pure_dp
            else np.flatnonzero(np.abs(signed.value[:, 0]) > -PRUNE_MARGIN)
        )
        if sub is None or sub.size > 0.6 * rows:
            f, b = at(np.array([0.0]))
        elif sub.size:
            f[sub], b[sub] = at(np.array([0.0]), sub)
        forward = f >= b
        got = Scored(np.where(forward, f, b), forward, np.full(f.shape, math.nan))  # no output
        if signed is not None:
            got = Scored.join([got, signed], axis=1)
        return Scored.join([got, self._tpr(W1, W2, step, noise, at, got.value[:, 0])], axis=1)

    # ------------------------------------------------------------------ the branch and bound
    def _solve(self, W1, W2, step, noise, todo: list[tuple[np.ndarray, int]], value, forward) -> None:
        """Exact TPR of the rows of each ``(rows, k)`` of ``todo`` at ``alphas[k]``, both orders,
        in one golden-section search (:func:`~bdpsim.attack.tradeoff.golden_rows`), into
        ``value``/``forward``; the best so far updated."""
        todo = [(r, k) for r, k in todo if r.size]
        if not todo:
            return
        rows = np.concatenate([r for r, _ in todo])
        ks = np.concatenate([np.full(r.size, k) for r, k in todo])
        A, B = W1[rows], W2[rows]
        at = prepared_deltas(noise, np.vstack([A, B]), np.vstack([B, A]), step)
        vals, ts = golden_rows(
            lambda u: at(np.clip(u, -LOG_T_MAX, LOG_T_MAX)[:, None])[0][:, 0],
            np.tile(self.alphas[ks], 2),
            SOLVE_TOL,
        )
        R = rows.size
        fwd, bwd = vals[:R], vals[R:]
        value[rows, ks] = np.maximum(fwd, bwd)
        forward[rows, ks] = fwd >= bwd
        self.solved += R
        for k in set(ks.tolist()):
            j = np.flatnonzero(np.tile(ks, 2) == k)
            j = j[int(np.argmax(vals[j]))]
            best = self.best[k]
            if vals[j] > best.value:
                best.value, best.t = float(vals[j]), float(ts[j])

    def _prune(self, at, live: np.ndarray, k: int, offset: float) -> np.ndarray:
        """The rows of ``live`` whose bound (1) at ``t = t* e^offset`` exceeds the best so far,
        the largest bound first."""
        t = self.best[k].t
        if live.size == 0 or not (math.isfinite(t) and t > 0):
            return live
        e = min(max(math.log(t) + offset, -LOG_T_MAX), LOG_T_MAX)
        f, b = at(np.array([e]), live)
        bound = math.exp(e) * self.alphas[k] + np.maximum(f[:, 0], b[:, 0]) + BOUND_MARGIN
        keep = np.flatnonzero(bound > self.best[k].value)
        return live[keep[np.argsort(-bound[keep], kind="stable")]]

    def _probe_all(self, at, tau: np.ndarray, fresh: list[int], lead: np.ndarray) -> list[np.ndarray]:
        """Per FPR the rows left by bound (1) at the first probe, every FPR in one evaluation of
        the batch's sides."""
        known = np.array([math.isfinite(b.t) and b.t > 0 for b in self.best])
        bound = np.minimum(1.0, self.alphas[None, :] + tau[:, None]) + BOUND_MARGIN
        if known.any():  # (a t* not finite: numbers past floating point, refused by the caller)
            eps = np.array([math.log(b.t) + PROBES[0] for b, ok in zip(self.best, known) if ok])
            eps = eps.clip(-LOG_T_MAX, LOG_T_MAX)
            f, b = at(eps)
            with_t = np.exp(eps)[None, :] * self.alphas[known][None, :] + np.maximum(f, b) + BOUND_MARGIN
            bound[:, known] = np.minimum(bound[:, known], with_t)
        out = []
        for k, best in enumerate(self.best):
            live = np.flatnonzero(bound[:, k] > best.value)
            out.append(np.setdiff1d(live, lead) if k in fresh else live)
        return out

    def _tpr(self, W1, W2, step, noise, at, tau: np.ndarray) -> Scored:
        """The components ``tpr(alpha)`` of a batch (``at``: its profile, ``tau``: its total
        variation)."""
        rows, m = W1.shape[0], self.alphas.size
        value, forward = np.zeros((rows, m)), np.ones((rows, m), dtype=bool)
        if rows and m:
            # the first batch: its pairs of largest total variation give the best so far and t*
            lead = np.argsort(-tau, kind="stable")[:LEAD_ROWS]
            fresh = [k for k in range(m) if not math.isfinite(self.best[k].t)]
            self._solve(W1, W2, step, noise, [(lead, k) for k in fresh], value, forward)
            todo = []
            for k, live in enumerate(self._probe_all(at, tau, fresh, lead)):
                for offset in PROBES[1:]:
                    live = self._prune(at, live, k, offset)
                todo.append((live, k))
            # the pairs of largest bound first; the others bounded again at the new best and t*
            self._solve(W1, W2, step, noise, [(r[:LEAD_ROWS], k) for r, k in todo], value, forward)
            rest = []
            for r, k in todo:
                r = r[LEAD_ROWS:]
                for offset in PROBES:
                    r = self._prune(at, r, k, offset)
                rest.append((r, k))
            self._solve(W1, W2, step, noise, rest, value, forward)
        return Scored(value, forward, np.full(value.shape, math.nan))


__all__ = ["TprScore", "BOUND_MARGIN"]
