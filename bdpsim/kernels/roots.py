"""One bracketing search for where a monotone test changes sign: the least amount of noise that
meets a target, the largest budget that keeps a leakage below one.

:func:`monotone_root` serves the exact calibrations of every model
(:func:`bdpsim.calibration.methods.exact_scale`), the calibration to an attack target
(:func:`bdpsim.attack.calibrate.calibrate_attack`), the per-step budgets of a continual release
(:func:`bdpsim.temporal.allocate.allocate`) and Cao et al.'s allocations
(:mod:`bdpsim.temporal.cao`), and the inverses of privacy profiles (``eps(delta)``:
:func:`bdpsim.kernels.privacy.divergences.invert_profile`,
:func:`bdpsim.kernels.privacy.gaussian.gaussian_epsilon`, the accountant's ``epsilon``, the pair
product's ``epsilon_values``); each keeps its own tolerance and says which side is safe.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .argcheck import require

#: how often an end on the wrong side may move outward (by a factor 2) before the search gives up
MAX_EXPANSIONS = 60
#: the most steps inside the bracket
MAX_STEPS = 200


@dataclass(frozen=True)
class Root:
    """The outcome of :func:`monotone_root`.

    Attributes
    ----------
    safe : float or None
        The bracket's end on the safe side: ``excess(safe) <= 0`` was computed (or, with ``ftol``,
        ``|excess(safe)| < ftol``; with ``expand=False`` the given end when no evaluated point
        replaced it). ``None``: no safe point within :data:`MAX_EXPANSIONS` doublings.
    unsafe : float or None
        The other end (``excess > 0``); ``None``: every point tried was safe.
    safe_excess : float or None
        ``excess(safe)``, where it was computed.
    evaluations : int
        Calls of ``excess``.
    """

    safe: float | None
    unsafe: float | None
    safe_excess: float | None
    evaluations: int


def _bracket(
    f: Callable[[float], float], safe: tuple[float, float], unsafe: tuple[float, float]
) -> tuple[tuple[float, float, float], tuple[float, float, float]] | Root:
    """Step 1 of :func:`monotone_root` in ``t = ln x``: the ends ``(t, x)`` computed and a wrong
    one moved outward (the old one becoming the other end), as ``((t, x, f) safe, (t, x, f)
    unsafe)``; a :class:`Root` with ``None`` on the side not found."""
    (ts, xs), (tu, xu) = safe, unsafe
    out = math.log(2.0) if ts > tu else -math.log(2.0)  # from the unsafe end towards the safe side
    fs, fu, moves = f(xs), math.nan, 0
    while fs > 0:
        if moves == MAX_EXPANSIONS:
            return Root(None, xs, None, 0)
        tu, xu, fu = ts, xs, fs  # the safe guess is unsafe: the nearer unsafe end
        ts += out
        xs, moves = math.exp(ts), moves + 1
        fs = f(xs)
    if math.isnan(fu):
        fu = f(xu)
    moves = 0
    while fu <= 0:
        if moves == MAX_EXPANSIONS:
            return Root(xu, None, fu, 0)  # every point tried is safe
        ts, xs, fs = tu, xu, fu  # the unsafe guess is safe: the nearer safe end
        tu -= out
        xu, moves = math.exp(tu), moves + 1
        fu = f(xu)
    return (ts, xs, fs), (tu, xu, fu)


def monotone_root(
    excess: Callable[[float], float],
    safe: float,
    unsafe: float,
    *,
    rtol: float,
    log: bool = True,
    step: Literal["bisect", "illinois"] = "bisect",
    expand: bool = True,
    ftol: float | None = None,
    atol: float = 0.0,
) -> Root:
    """Bracket the point where ``excess`` turns positive and return the bracket's safe end.

    ``excess(x)`` is monotone: ``<= 0`` on the safe side of a point ``x*`` (e.g. enough noise:
    the leakage minus its target) and ``> 0`` beyond it; the safe side is the side of ``safe``
    as seen from ``unsafe``. The search runs in ``t = ln x`` (``log``, ``x > 0``) or in ``x``.

    1. *Bracket* (``expand=True``): ``excess`` is computed at both ends; an end on the wrong side
       becomes the other end (a tighter bracket) and moves outward by a factor 2 (in ``ln x``),
       at most :data:`MAX_EXPANSIONS` times. ``expand=False``: the caller vouches for the ends
       (``excess(safe) <= 0 < excess(unsafe)``), none is computed (they may lie outside the
       function's domain, as Cao et al.'s bisection's do).
    2. *Shrink* until the ends are within relative ``rtol`` (``ln(hi/lo) <= ln(1 + rtol)`` with
       ``log``, else ``hi - lo <= rtol max(|lo|, |hi|)``) or after :data:`MAX_STEPS` steps: at the
       midpoint (``bisect``), or where the secant of the ends' excesses crosses zero (``illinois``:
       regula falsi with the Illinois halving of a stale end, kept half a tolerance inside the
       bracket; fewer steps on a smooth ``excess``). With ``ftol``, a point whose ``|excess|`` is
       below it ends the search as the root.

    **Invariant.** The returned ``safe`` is an end at which ``excess`` was computed ``<= 0`` (with
    ``ftol``: below ``ftol``), or the caller's own safe end; ``unsafe`` one where it was computed
    ``> 0`` (or the caller's); every point between them that the search computed is on its side.
    So with a monotone ``excess`` the root lies between them, and the safe end errs to the safe
    side by at most the tolerance.

    Parameters
    ----------
    excess : callable
        ``x -> float``, monotone as above.
    safe, unsafe : float
        The bracket's first ends (distinct; ``> 0`` with ``log``).
    rtol : float
        Relative width at which the bracket is narrow enough (``>= 0``; 0: only ``ftol`` or
        :data:`MAX_STEPS` stop it).
    log : bool
        Search in ``ln x`` (default) or in ``x``; outward moves need ``log``.
    step : {"bisect", "illinois"}
        The point tried inside the bracket.
    expand : bool
        Compute the ends and move a wrong one outward (default), or trust them.
    ftol : float, optional
        A computed ``|excess|`` below this ends the search at that point.
    atol : float
        Without ``log``: the bracket is also narrow enough once ``hi - lo <= atol`` (default 0;
        ``rtol = atol = tol`` stops at ``hi - lo <= tol max(1, |lo|, |hi|)``).

    Returns
    -------
    Root
        ``safe`` / ``unsafe`` ``None`` when no point of that side was found within the expansions.
    """
    require(safe != unsafe, "unsafe", unsafe, f"must differ from safe = {safe!r}")
    require(not log or (safe > 0 and unsafe > 0), "safe", (safe, unsafe), "must be > 0 in log space")
    require(log or not expand, "expand", expand, "moves an end by a factor 2: needs log space")
    require(step in ("bisect", "illinois"), "step", step, "must be 'bisect' or 'illinois'")
    require(expand or step == "bisect", "step", step, "a secant step needs the ends' values: expand=True")
    require(rtol >= 0, "rtol", rtol, "must be >= 0")
    require(atol >= 0 and (atol == 0 or not log), "atol", atol, "must be >= 0, and 0 in log space")
    to_t: Callable[[float], float] = math.log if log else float
    to_x: Callable[[float], float] = math.exp if log else float
    calls = [0]

    def f(x: float) -> float:
        calls[0] += 1
        return float(excess(x))

    # ends (t, x, excess): the caller's x is kept exactly (e.g. a cached one)
    ts, xs, fs = to_t(safe), float(safe), -math.inf
    tu, xu, fu = to_t(unsafe), float(unsafe), math.inf
    vs: float | None = None  # the safe end's computed excess (the Illinois step halves ``fs``)
    if expand:
        ends = _bracket(f, (ts, xs), (tu, xu))
        if isinstance(ends, Root):
            return Root(ends.safe, ends.unsafe, ends.safe_excess, calls[0])
        (ts, xs, fs), (tu, xu, fu) = ends
        vs = fs
    width = math.log1p(rtol) if log else rtol
    side = 0
    for _ in range(MAX_STEPS):
        lo, hi = min(ts, tu), max(ts, tu)
        if (hi - lo <= width) if log else (hi - lo <= max(width * max(abs(lo), abs(hi)), atol)):
            break
        if step == "illinois":
            t = ts - fs * (ts - tu) / (fs - fu)
            t = min(max(t, lo + width / 2), hi - width / 2)  # the bracket shrinks every step
        else:
            t = 0.5 * (ts + tu)
        x = to_x(t)
        v = f(x)
        if ftol is not None and abs(v) < ftol:
            return Root(x, xu, v, calls[0])
        if v > 0:
            tu, xu, fu = t, x, v
            fs, side = (fs / 2, -1) if side == -1 else (fs, -1)
        else:
            ts, xs, fs, vs = t, x, v, v
            fu, side = (fu / 2, 1) if side == 1 else (fu, 1)
    return Root(xs, xu, vs, calls[0])


__all__ = ["MAX_EXPANSIONS", "MAX_STEPS", "Root", "monotone_root"]
