"""The one bracketing search (bdpsim.kernels.roots.monotone_root) against known roots: the safe end
is always a point computed on the safe side, within the tolerance of the root."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bdpsim.kernels.argcheck import ParameterError
from bdpsim.kernels.roots import MAX_EXPANSIONS, monotone_root


def leak(b: float) -> float:
    """``ln(1/b) - ln(0.5)``: a leakage ``1/b`` against the target 0.5; safe for ``b >= 2``."""
    return math.log(1.0 / b) - math.log(0.5)


@pytest.mark.parametrize("step", ["bisect", "illinois"])
@pytest.mark.parametrize("safe,unsafe", [(10.0, 1.0), (2.5, 1.9), (1.0, 0.5), (100.0, 50.0), (3.0, 1e-3)])
def test_least_safe_amount_within_rtol(step, safe, unsafe):
    """Whatever the first ends (both safe, both unsafe, or around the root), the safe end is >= the
    root 2 and within relative 1e-9 of it; the unsafe end is below it."""
    r = monotone_root(leak, safe, unsafe, rtol=1e-9, step=step)
    assert r.safe is not None and r.unsafe is not None
    assert 2.0 <= r.safe <= 2.0 * (1 + 1e-9) and r.unsafe < 2.0
    assert r.safe_excess == leak(r.safe) <= 0


def test_illinois_takes_fewer_steps_on_a_smooth_excess():
    bis = monotone_root(leak, 10.0, 1.0, rtol=1e-9)
    ill = monotone_root(leak, 10.0, 1.0, rtol=1e-9, step="illinois")
    assert ill.evaluations < bis.evaluations // 2


def test_safe_side_below_the_unsafe_one():
    """A budget: the larger, the more it leaks (``excess = eps^2 - 2``); the safe side is below."""
    r = monotone_root(lambda e: e * e - 2.0, 0.1, 5.0, rtol=1e-10, log=False, expand=False)
    assert r.safe is not None and r.safe <= math.sqrt(2) < r.unsafe
    assert math.sqrt(2) - r.safe <= 1e-10 * 5


def test_a_step_function_keeps_the_invariant():
    """A yes/no test as an excess (+1 / -1): the ends straddle the jump at 3.7 within rtol."""
    r = monotone_root(lambda x: 1.0 if x < 3.7 else -1.0, 1.0, 0.5, rtol=1e-6)
    assert r.unsafe < 3.7 <= r.safe and r.safe / r.unsafe <= 1 + 1e-6 + 1e-15


def test_random_monotone_excesses():
    """Random increasing piecewise-linear leakages (the safe side: large amounts): the safe end is
    on the safe side and within the tolerance of the root, for both steps."""
    rng = np.random.default_rng(42)
    for _ in range(200):
        knots = np.sort(rng.uniform(-5, 5, 6))
        vals = np.sort(rng.normal(size=6))[::-1]  # decreasing in ln x
        if not (vals[0] > 0 > vals[-1]):
            continue

        def excess(x, knots=knots, vals=vals):
            return float(np.interp(math.log(x), knots, vals))

        root = math.exp(knots[np.flatnonzero(vals <= 0)[0] - 1])  # a point on the unsafe side
        for step in ("bisect", "illinois"):
            r = monotone_root(excess, 1.0, 0.9, rtol=1e-8, step=step)
            assert excess(r.safe) <= 0 < excess(r.unsafe)
            assert r.unsafe < r.safe <= r.unsafe * (1 + 1e-8) * (1 + 1e-12)
            assert r.safe > root


def test_no_side_found():
    every_safe = monotone_root(lambda x: -1.0, 2.0, 1.0, rtol=1e-6)
    assert every_safe.unsafe is None and every_safe.safe == pytest.approx(2.0**-MAX_EXPANSIONS)
    never_safe = monotone_root(lambda x: 1.0, 2.0, 1.0, rtol=1e-6)
    assert never_safe.safe is None and never_safe.unsafe == pytest.approx(2.0 ** (1 + MAX_EXPANSIONS))


def test_trusted_ends_and_a_stop_on_the_value():
    """Cao et al.'s bisection: the ends are not computed (here they lie outside the function's
    domain) and a point whose |excess| is below ftol is the answer."""

    def f(x):
        assert 0 <= x <= 1, x  # never called at the ends
        return x**3 + x - 0.5

    r = monotone_root(f, -0.5, 1.5, rtol=0.0, log=False, expand=False, ftol=1e-14)
    assert abs(f(r.safe)) < 1e-14 and abs(r.safe - 0.42385379906978327) < 1e-14  # x^3 + x = 0.5 (mpmath)


def test_bad_arguments_are_one_line():
    for kwargs, param in (
        (dict(safe=1.0, unsafe=1.0), "unsafe"),
        (dict(safe=-1.0, unsafe=1.0), "safe"),
        (dict(safe=1.0, unsafe=2.0, log=False), "expand"),
        (dict(safe=1.0, unsafe=2.0, log=False, expand=False, step="illinois"), "step"),
        (dict(safe=1.0, unsafe=2.0, rtol=-1.0), "rtol"),
    ):
        args = {"rtol": 1e-6, **kwargs}
        with pytest.raises(ParameterError, match=rf"^{param} = "):
            monotone_root(leak, **args)


def test_an_absolute_width_stops_a_linear_search_as_the_profile_inverses_did():
    """``rtol = atol = tol`` in ``x``: the bracket stops at ``hi - lo <= tol max(1, hi)``, the
    midpoints of a plain bisection of ``[lo, hi]`` (the inverses of privacy profiles); ``atol`` in
    log space is refused."""
    from bdpsim.kernels.roots import monotone_root

    def plain(f, lo, hi, tol):
        while hi - lo > tol * max(1.0, hi):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
        return hi

    for root, hi, tol in ((0.3, 1.0, 1e-10), (3.7, 8.0, 1e-12), (1e-4, 1.0, 1e-9)):

        def f(x, r=root):
            return r - x

        got = monotone_root(f, hi, 0.0, rtol=tol, atol=tol, log=False, expand=False)
        assert got.safe == plain(f, 0.0, hi, tol) and got.safe - tol * max(1.0, hi) <= root <= got.safe
    with pytest.raises(ValueError, match="atol"):
        monotone_root(lambda x: x - 1.0, 0.5, 2.0, rtol=1e-3, atol=1e-3)
