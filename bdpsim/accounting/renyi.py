"""The Rényi curve of a list of releases measured by Monte Carlo (e.g. ten Laplace counts), from its
privacy profile: an interval that holds, for one adversary or the supremum over every adversary of a
chain.

**From the profile to ``D_alpha``.** For ``alpha > 1``, ``E_Q[(p/q)^alpha] = 1 + alpha (alpha - 1)
int_0^inf [e^{(alpha - 1) eps} H_eps(P || Q) + e^{-alpha eps} H_eps(Q || P)] d eps`` (the
hockey-stick representation of an f-divergence,
:func:`~bdpsim.kernels.privacy.divergences.renyi_from_profile`): both profiles are non-increasing,
so upper ends of them on a grid, vanishing beyond a certified upper end of the BDPL, give an upper
end of ``D_alpha``; lower ends give a lower end. Over every adversary the supremum of the integrals
is at most the integral of the supremum, so the worst adversary's profile (both orders: the window
sweep's upper ends, :mod:`bdpsim.accounting.sweep`) bounds ``sup D_alpha`` in either order.

**The grid.** First a pass without draws: every window's certified upper end of ``delta(eps)`` (the
query laws without noise, the monotone coupling) at :data:`CAP_POINTS` values on ``[0, L]`` (``L``
the certified upper end of the BDPL); the Monte Carlo sweep then measures :data:`GRID_CELLS` + 1
values on ``[0, E]``, ``E`` the first value where the certified ends are negligible
(:data:`NEGLIGIBLE`); beyond it the certified ends serve. Where the integral is loose (large
``alpha``: the weight ``e^{(alpha - 1) eps}`` reaches the tail), ``D_alpha <= D_inf <= L`` is the
upper end.

**The lower end.** The few worst windows of the sweep (:data:`~bdpsim.accounting.sweep.LOWER_TOP`),
each adversary's own pair on fresh draws: lower ends of both orders at every grid value, integrated;
the largest is at most its adversary's ``D_alpha``, hence at most the supremum.

**Failure.** The caps pass is certified; the sweep's upper ends share ``2 STAGE_SHARE f`` of the
failure ``f`` over its windows, stages and values, the lower ends ``LOWER_SHARE f``: the interval
holds with probability at least ``1 - f``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..kernels.privacy.divergences import MAX_ORDER, renyi_from_profile
from .sweep import LOWER_DRAWS, LOWER_SHARE, STAGE1_DRAWS
from .values import MONTE_CARLO, Value

#: values of ``eps`` of the pass without draws (certified ends over every window) on ``[0, L]``
CAP_POINTS = 33
#: cells of the Monte Carlo grid on ``[0, E]``
GRID_CELLS = 48
#: cells of the lower ends' grid (per adversary: cheap on its own draws)
LOWER_CELLS = 4 * GRID_CELLS
#: sub-cells of the upper end's chords (the profile is convex in ``e^eps``)
CHORD = 16
#: a certified end of ``delta(eps)`` at or below this ends the Monte Carlo grid
NEGLIGIBLE = 1e-12


@dataclass(frozen=True)
class ProfileBounds:
    """Upper ends of the profile ``sup max(H_eps(P||Q), H_eps(Q||P))`` at ``points`` (non-increasing,
    vanishing beyond the last point, the BDPL's certified upper end ``bdpl_upper``); lower ends of
    both orders of candidate adversaries' profiles at the grid ``fine`` (``lowers[i]``, shape ``(K,
    2)``, with their estimates ``means[i]``), or a candidate's certified pair (``certified[i]``,
    whose Rényi divergence and profile are bracketed)."""

    points: np.ndarray
    upper: np.ndarray
    bdpl_upper: float
    fine: np.ndarray
    adversaries: Sequence
    lowers: Sequence
    means: Sequence
    certified: Sequence
    note: str
    confidence: float

    def renyi(self, alpha: float) -> Value:
        """The interval of ``D_alpha`` (the supremum over the adversaries the bounds cover)."""
        a = float(alpha)
        # D_alpha grows with alpha: past MAX_ORDER the lower end is that order's (the weights
        # e^{(alpha - 1) eps} would overflow), the upper end the BDPL's (D_alpha <= D_inf)
        low_a = min(a, MAX_ORDER)
        up = self.bdpl_upper
        if a <= MAX_ORDER:
            up = min(up, renyi_from_profile(a, self.points, self.upper, self.upper, "upper", chord=CHORD))
        best: tuple[float, float, object] = (-math.inf, -math.inf, None)
        for adv, low, mean, cert in zip(self.adversaries, self.lowers, self.means, self.certified):
            if cert is not None:
                v = cert.renyi(a)
                lo, est = v.lower, v.value
            else:
                lo = max(
                    renyi_from_profile(low_a, self.fine, low[:, 0], low[:, 1], "lower"),
                    renyi_from_profile(low_a, self.fine, low[:, 1], low[:, 0], "lower"),
                )
                est = max(
                    _middle(low_a, self.fine, mean[:, 0], mean[:, 1]),
                    _middle(low_a, self.fine, mean[:, 1], mean[:, 0]),
                )
            if not math.isnan(lo):
                best = _better(best, lo, est, adv)
        lower = float(min(max(best[0], 0.0), up))
        est = float(min(max(best[1], lower), up))
        return Value(est, lower, float(up), MONTE_CARLO, best[2], self.note, self.confidence)

    def tpr(self, fpr: float) -> Value:
        """The interval of the largest true-positive rate at false-positive rate ``fpr`` (either
        order as the null). Neyman-Pearson: ``TPR(a) = inf_{t > 0} [t a + H_t(P || Q)]`` with
        ``H_t`` the hockey-stick divergence at ``t = e^eps`` and, for ``t < 1``, ``H_t(P || Q) = 1 - t
        + t H_{1/t}(Q || P)``. Upper end: the infimum over the grid's ``t = e^{+-eps_i}`` of the
        upper ends (the supremum's profile bounds both orders of every adversary). Lower end: each
        candidate's own order, each cell of ``t`` bounded below by its far end's lower end of ``H``
        and its near end of ``t`` (``H`` does not increase in ``t``); the best candidate and order."""
        a = float(fpr)
        k = np.exp(self.points)
        up = min(1.0, float(np.min(k * a + self.upper)), float(np.min(1.0 - (1.0 - a - self.upper) / k)))
        up = min(up, float(k[-1] * a))  # beyond the BDPL's upper end H = 0
        best: tuple[float, float, object] = (-math.inf, -math.inf, None)
        for adv, low, mean, cert in zip(self.adversaries, self.lowers, self.means, self.certified):
            if cert is not None:
                lo = est = _pair_tpr(cert, a)
            else:
                lo = max(
                    _tpr_low(a, self.fine, low[:, 0], low[:, 1]), _tpr_low(a, self.fine, low[:, 1], low[:, 0])
                )
                est = max(
                    _tpr_est(a, self.fine, mean[:, 0], mean[:, 1]),
                    _tpr_est(a, self.fine, mean[:, 1], mean[:, 0]),
                )
            best = _better(best, lo, est, adv)
        lower = float(min(max(best[0], a), up))
        est = float(min(max(best[1], lower), up))
        note = self.note.replace(
            "D_alpha from the profile's integral representation", "TPR by Neyman-Pearson"
        )
        return Value(est, lower, float(up), MONTE_CARLO, best[2], note, self.confidence)


def _better(best: tuple[float, float, object], lo: float, est: float, adv) -> tuple[float, float, object]:
    """The running ``(lower end, estimate, adversary)`` of a supremum over candidates: the largest
    lower end (each candidate's bounds the supremum from below), the largest estimate with its
    candidate (a certified candidate, lower end = estimate, must not hide a drawn one estimated
    higher)."""
    low = max(best[0], lo)
    return (low, est, adv) if est > best[1] else (low, best[1], best[2])


def _tpr_low(a: float, grid: np.ndarray, f: np.ndarray, b: np.ndarray) -> float:
    """A lower end of ``inf_t [t a + H_t(P || Q)]`` from lower ends ``f`` of ``H(P || Q)`` and ``b``
    of ``H(Q || P)`` at ``eps`` = ``grid`` (cells of ``t = e^eps >= 1`` and of ``t = e^-eps``)."""
    t = np.exp(grid)
    high = np.min(t[:-1] * a + f[1:])  # t in [t_j, t_{j+1}]: t a >= t_j a, H_t >= f_{j+1}
    beyond = t[-1] * a  # t >= t_G: H >= 0
    # t = 1/s, s in [t_j, t_{j+1}]: 1 - t (1 - a) + t H_s(Q || P) >= 1 - (1 - a) / t_j + b_{j+1} / t_{j+1}
    low = np.min(1.0 - (1.0 - a) / t[:-1] + b[1:] / t[1:])
    below = 1.0 - (1.0 - a) / t[-1]  # t <= 1/t_G
    return float(max(0.0, min(high, beyond, low, below)))


def _tpr_est(a: float, grid: np.ndarray, f: np.ndarray, b: np.ndarray) -> float:
    """The estimate of ``inf_t [t a + H_t(P || Q)]`` from estimated profiles at the grid's ``t``."""
    t = np.exp(grid)
    return float(min(1.0, np.min(t * a + f), np.min(1.0 - (1.0 - a) / t + b / t)))


def _pair_tpr(pair, a: float) -> float:
    """A certified pair's attained TPR at ``a`` (the better order)."""
    from ..attack.tradeoff import TradeOff

    def lower_hockey(forward: bool) -> Callable[[float], float]:
        return lambda t: float(pair.hockey(math.log(t), forward)[0])

    return max(TradeOff(lower_hockey(fwd)).tpr_threshold(a)[0] for fwd in (True, False))


def _middle(alpha: float, grid: np.ndarray, f: np.ndarray, b: np.ndarray) -> float:
    """The estimate of ``D_alpha`` from estimated profiles: the mean of the two Riemann sums."""
    g = np.append(grid, grid[-1] + (grid[-1] - grid[-2]))  # the profiles vanish one cell on
    f, b = np.append(f, 0.0), np.append(b, 0.0)
    return 0.5 * (renyi_from_profile(alpha, g, f, b, "upper") + renyi_from_profile(alpha, g, f, b, "lower"))


def envelope(points: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct points, increasing, each with the least upper end given at or before it (the
    profile does not increase)."""
    at, where = np.unique(np.asarray(points, dtype=float), return_inverse=True)
    least = np.full(at.size, np.inf)
    np.minimum.at(least, where, np.asarray(upper, dtype=float))
    least = np.minimum.accumulate(least)
    # a point within rounding of the one before it adds nothing: dropped (fewer points, still ends);
    # the first (0) and the last (beyond which the profile vanishes) stay, the one before the last
    # goes where they are that close
    keep = np.concatenate([[True], np.diff(at) > 1e-12 * np.maximum(1.0, at[1:])])
    if not keep[-1]:
        keep[-1] = True
        before = np.nonzero(keep[:-1])[0][-1]
        if before > 0:
            keep[before] = False
    return at[keep], least[keep]


def grid_end(coarse: np.ndarray, caps: np.ndarray) -> float:
    """``E``: the first value of ``coarse`` (after 0) whose certified end is negligible, else the
    last."""
    small = np.nonzero(caps[1:] <= NEGLIGIBLE)[0]
    return float(coarse[1 + small[0]] if small.size else coarse[-1])


def lower_ends(sweep, laws, fine: np.ndarray, failure: float):
    """Lower ends and estimates of both orders of ``H_eps`` at ``fine`` for each pair of laws (as the
    ``sweep`` reads them; one set of :data:`LOWER_DRAWS` fresh draws, its lower ends' stream; each
    end with ``failure / (2 K pairs)``)."""
    if not laws:
        return [], []
    mean, low, _ = sweep.lower_ends(laws, sweep.lower_draws(), fine, failure / (2 * fine.size * len(laws)))
    return list(low), list(mean)


def sweep_note(
    windows: int, again: int, stage2: int, tol: float, end: float, bdpl: float, scanned: str = "windows"
) -> str:
    return (
        f"every adversary: {windows} {scanned}, each by Monte Carlo on {STAGE1_DRAWS} common draws "
        f"({again} again on {stage2} fresh ones) at {GRID_CELLS + 1} values of eps in [0, {end:.3g}] "
        f"below its certified ends, which alone serve up to the BDPL's certified upper end "
        f"{bdpl:.4g}; D_alpha from the profile's integral representation; upper ends at eps - "
        f"{tol:.1e} (the window truncation); the lower end: the worst of the best windows, each on "
        f"{LOWER_DRAWS} fresh draws, {LOWER_SHARE:.0%} of the failure"
    )


__all__ = ["CAP_POINTS", "GRID_CELLS", "NEGLIGIBLE", "ProfileBounds", "envelope", "grid_end", "lower_ends"]
