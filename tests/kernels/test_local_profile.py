"""The bracketed privacy profile of a chain's local release (bdpsim/kernels/chains/local_profile.py).

Oracles: every output sequence enumerated (two independent implementations agree), the exact
temporal leakage of bdpsim.temporal.exact (the delta = 0 limit), and an exhaustive search over
every known set and its values (the supremum over adversaries)."""

import itertools
import math

import numpy as np
import pytest

from bdpsim.kernels.argcheck import ParameterError, TooExpensive
from bdpsim.kernels.chains.local_profile import (
    enumerate_local_release,
    known_sizes,
    local_release,
    local_release_profile,
    release_profile,
    window_allowed,
)
from bdpsim.kernels.chains.local_worst import release_worst_profile, worst_local_release_profile
from bdpsim.kernels.chains.pair_product import PairFactor, hockey_stick_both
from bdpsim.temporal.exact import temporal_exact

TOL = 1e-12  # floating-point slack of "contains"


def krr(k, eps):
    L = np.ones((k, k)) + np.eye(k) * math.expm1(eps)
    return L / L.sum(axis=0)


def both(factor, eps):
    return np.maximum(*hockey_stick_both([factor], eps))


def plain_loop(P, pi, L, T, t, a, b, known):
    """P(r | x_t = x, x_K) for x = a, b by a loop over every path and output sequence."""
    k, m = len(pi), L.shape[0]
    laws = []
    for x in (a, b):
        total, law = 0.0, {}
        for path in itertools.product(range(k), repeat=T):
            if path[t - 1] != x or any(path[s - 1] != v for s, v in known.items()):
                continue
            prior = pi[path[0]]
            for s in range(T - 1):
                prior *= P[path[s]][path[s + 1]]
            total += prior
            for r in itertools.product(range(m), repeat=T):
                lik = prior
                for s in range(T):
                    lik *= L[r[s]][path[s]]
                law[r] = law.get(r, 0.0) + lik
        laws.append({r: v / total for r, v in law.items()})
    keys = sorted(laws[0])
    return PairFactor(np.array([laws[0][r] for r in keys]), np.array([laws[1][r] for r in keys]))


P2 = np.array([[0.8, 0.2], [0.3, 0.7]])
PI2 = np.array([0.6, 0.4])
P3 = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]])
PI3 = np.array([0.5, 0.3, 0.2])
PIN_EPS = [0.0, 0.5, 1.0, 2.0]
#: (P, pi, L, T, target, pair, known) -> max over both orders of delta at PIN_EPS, and the largest loss
PINNED = [
    (
        (P2, PI2, krr(2, 1.0), 5, 3, (0, 1), {}),
        [0.4797606199996836, 0.3478056024446186, 0.20817293283930416, 0.02704863435134851],
        2.407999735597722,
    ),
    (
        (P2, PI2, krr(2, 1.0), 5, 3, (0, 1), {1: 0, 5: 1}),
        [0.46211715726000985, 0.3253396865372108, 0.14332381727450239, 0.0],
        1.7911534025380318,
    ),
    (
        (P3, PI3, krr(3, 0.8), 4, 2, (0, 2), {4: 1}),
        [0.33943556685044274, 0.18696925560463126, 0.06654799652761764, 0.0],
        1.6579755052651306,
    ),
    (
        (P3, PI3, krr(3, 0.8), 4, 2, (0, 2), {}),
        [0.35995823673598115, 0.20850022259334738, 0.09242097388033624, 0.00252790073759678],
        2.057293696278016,
    ),
]


@pytest.mark.parametrize("case", range(len(PINNED)))
def test_two_enumerations_agree_with_the_pinned_profiles(case):
    (P, pi, L, T, t, pair, known), pinned, bdpl = PINNED[case]
    rel = local_release(P, pi, L, steps=T)
    exact = enumerate_local_release(rel, target=t, pair=pair, known=known)
    loop = plain_loop(P, pi, L, T, t, pair[0], pair[1], known)
    np.testing.assert_allclose(both(exact, PIN_EPS), both(loop, PIN_EPS), atol=1e-15)
    np.testing.assert_allclose(both(exact, PIN_EPS), pinned, atol=1e-15)
    assert max(exact.max_loss(), exact.reversed().max_loss()) == pytest.approx(bdpl, abs=1e-13)


@pytest.mark.parametrize("case", range(len(PINNED)))
def test_the_bracket_holds_the_pinned_profile_and_closes_on_it(case):
    (P, pi, L, T, t, pair, known), pinned, bdpl = PINNED[case]
    widths = []
    for grid in (2, 3, 5, 9, 4096):
        br = local_release_profile(P, pi, L, steps=T, target=t, pair=pair, known=known, grid=grid, bins=3)
        d = br.delta(PIN_EPS)
        assert np.all(d.low <= np.array(pinned) + TOL) and np.all(np.array(pinned) <= d.high + TOL)
        b = br.bdpl()
        assert float(b.low) <= bdpl + TOL <= float(b.high) + 2 * TOL
        widths.append(float(np.max(d.width)))
    br = local_release_profile(P, pi, L, steps=T, target=t, pair=pair, known=known, grid=4096, bins=10**6)
    np.testing.assert_allclose(br.delta(PIN_EPS).low, pinned, atol=1e-14)
    np.testing.assert_allclose(br.delta(PIN_EPS).high, pinned, atol=1e-14)


def test_brackets_hold_the_enumeration_on_random_chains():
    rng = np.random.default_rng(20)
    eps = np.linspace(0.0, 4.0, 17)
    checked, widths = 0, []
    for trial in range(24):
        k = 2 if trial % 3 else 3
        T = int(rng.integers(3, 8 if k == 2 else 6))
        P = rng.dirichlet(np.ones(k) * 0.7, size=k)
        pi = rng.dirichlet(np.ones(k))
        L = krr(k, rng.uniform(0.3, 2.0)) if trial % 2 else rng.dirichlet(np.ones(k + 1), size=k).T
        rel = local_release(P, pi, L, steps=T)
        t = int(rng.integers(1, T + 1))
        a, b = (int(x) for x in rng.choice(k, 2, replace=False))
        known = {s: int(rng.integers(k)) for s in range(1, T + 1) if s != t and rng.random() < 0.3}
        try:
            exact = enumerate_local_release(rel, target=t, pair=(a, b), known=known)
        except ParameterError:  # known values impossible together
            continue
        true = both(exact, eps)
        top = max(exact.max_loss(), exact.reversed().max_loss())
        for grid, bins in ((2, 2), (3, 1000), (6, 3)):
            br = release_profile(rel, target=t, pair=(a, b), known=known, grid=grid, bins=bins)
            d = br.delta(eps)
            assert np.all(d.low <= true + TOL) and np.all(true <= d.high + TOL)
            bd = br.bdpl()
            assert float(bd.low) <= top + TOL and top <= float(bd.high) + TOL
            for alpha in (1.5, 4.0):
                r = br.renyi(alpha)
                moment = max(exact.log_moment(alpha), exact.reversed().log_moment(alpha)) / (alpha - 1)
                assert float(r.low) <= moment + 1e-10 and moment <= float(r.high) + 1e-10
            for delta in (1e-3, 0.1):
                e = br.epsilon(delta)  # inf {eps : delta(eps) <= delta} lies in [low, high]
                assert float(e.low) == 0 or both(exact, [float(e.low)])[0] > delta - TOL
                assert both(exact, [float(e.high)])[0] <= delta + TOL
            widths.append(float(np.max(d.width)))
        checked += 1
    assert checked >= 18
    assert np.mean(np.array(widths) > 1e-6) > 0.3  # the coarse grids do bracket, not enumerate


def test_the_bracket_narrows_like_the_square_of_the_cell():
    rel = local_release(P2, "stationary", krr(2, 1.0), steps=40)
    eps = np.linspace(0.0, 3.0, 13)
    widths = [
        float(np.max(release_profile(rel, target=20, pair=(0, 1), grid=g).delta(eps).width))
        for g in (8, 16, 32, 64)
    ]
    for coarse, fine in zip(widths, widths[1:]):
        assert fine <= coarse / 2.5
    assert widths[-1] < 1e-4


def test_only_the_nearest_known_steps_matter():
    rel = local_release(P3, PI3, krr(3, 1.0), steps=5)
    eps = [0.0, 0.7, 1.5]
    near = both(enumerate_local_release(rel, target=3, pair=(0, 1), known={2: 1, 4: 2}), eps)
    for outer in ({1: 0, 5: 0}, {1: 2}, {5: 1}):
        got = both(enumerate_local_release(rel, target=3, pair=(0, 1), known={2: 1, 4: 2, **outer}), eps)
        np.testing.assert_allclose(got, near, atol=1e-15)
    br = release_profile(rel, target=3, pair=(0, 1), known={1: 0, 2: 1, 4: 2, 5: 0}, grid=64)
    np.testing.assert_allclose(br.delta(eps).low, near, atol=1e-14)


def test_window_sizes():
    # T = 6, target 3: boundaries at 2 and 5 hold 2 steps and may add steps 1 and 6
    assert [window_allowed(3, 2, 5, 6, [s]) for s in range(6)] == [False, False, True, True, True, False]
    assert window_allowed(3, 0, 7, 6, [0]) and not window_allowed(3, 0, 7, 6, [1])
    assert window_allowed(3, 1, 7, 6, [1]) and not window_allowed(3, 2, 7, 6, [3])
    assert known_sizes("all", 4) == (0, 1, 2, 3) and known_sizes([2, 0, 2], 4) == (0, 2)


def test_the_delta_zero_limit_is_the_exact_temporal_leakage():
    rng = np.random.default_rng(7)
    for k, T in ((2, 30), (3, 12)):
        P = rng.dirichlet(np.ones(k), size=k)
        pi = rng.dirichlet(np.ones(k))
        rel = local_release(P, pi, krr(k, 0.9), steps=T)
        te = temporal_exact(P, 0.9, T, "krr", initial=pi)
        w = release_worst_profile(rel, epsilons=[1.0], sizes=[0], tolerance=None, grid=64)
        assert float(w.bdpl.low) <= float(np.nanmax(te.tpl)) + 1e-9 <= float(w.bdpl.high) + 2e-9
        for t in (1, T // 2, T):
            tops = [
                release_profile(rel, target=t, pair=pair, grid=64).bdpl()
                for pair in itertools.combinations(range(k), 2)
            ]
            low, high = max(float(b.low) for b in tops), max(float(b.high) for b in tops)
            assert low <= te.tpl[t - 1] + 1e-9 <= high + 2e-9
            if k == 2:  # the hull is two points: both ends exact
                assert low == pytest.approx(te.tpl[t - 1], abs=1e-9) and high == pytest.approx(
                    te.tpl[t - 1], abs=1e-9
                )
        # a known step: temporal_exact maximises over its value
        s, t = T // 2 + 2, T // 2
        te_k = temporal_exact(P, 0.9, T, "krr", initial=pi, known=[s])
        tops = [
            release_profile(rel, target=t, pair=pair, known={s: c}, grid=64).bdpl()
            for pair in itertools.combinations(range(k), 2)
            for c in range(k)
        ]
        assert (
            max(float(b.low) for b in tops)
            <= te_k.tpl[t - 1] + 1e-9
            <= max(float(b.high) for b in tops) + 2e-9
        )


def test_time_varying_chains_and_releases():
    rng = np.random.default_rng(9)
    T = 5
    Ps = [rng.dirichlet(np.ones(2), size=2) for _ in range(T - 1)]
    Ls = [krr(2, e) for e in rng.uniform(0.3, 1.5, T)]
    Ls[2] = rng.dirichlet(np.ones(3), size=2).T  # three outputs at step 3
    rel = local_release(Ps, PI2, Ls)
    assert not rel.homogeneous and rel.steps == T
    eps = [0.0, 0.5, 1.5]
    for known in ({}, {2: 1}, {4: 0, 1: 1}):
        exact = both(enumerate_local_release(rel, target=3, pair=(1, 0), known=known), eps)
        d = release_profile(rel, target=3, pair=(1, 0), known=known, grid=2, bins=3).delta(eps)
        assert np.all(d.low <= exact + TOL) and np.all(exact <= d.high + TOL)
    w = release_worst_profile(rel, epsilons=eps, sizes="all", tolerance=1e-12)
    assert w.width <= 1e-12


def test_bad_input_is_refused_in_one_line():
    cases = [
        (
            lambda: local_release([[0.5, 0.6], [0.3, 0.7]], PI2, krr(2, 1), steps=3),
            r"^transitions = .*each row must sum to 1",
        ),
        (
            lambda: local_release(P2, [0.5, 0.2, 0.3], krr(2, 1), steps=3),
            r"^initial = \[0\.5, 0\.2, 0\.3\]: must be 2 probabilities",
        ),
        (
            lambda: local_release(P2, PI2, np.array([[1.0, 0.0], [0.0, 1.0]]), steps=3),
            r"^likelihoods = .*entries must be finite and > 0",
        ),
        (
            lambda: local_release(P2, PI2, np.array([[0.5, 0.4], [0.6, 0.5]]), steps=3),
            r"^likelihoods = .*each column",
        ),
        (lambda: local_release(P2, PI2, krr(2, 1)), r"^steps = None: give steps = T"),
        (
            lambda: local_release([P2, P2], PI2, krr(2, 1), steps=4),
            r"^steps = 4: the per-step lists give T = 3$",
        ),
        (
            lambda: local_release([P2] * 3, PI2, [krr(2, 1)] * 3),
            r"^transitions = '3 matrices': a per-step list needs T - 1 = 2",
        ),
        (
            lambda: local_release_profile(P2, PI2, krr(2, 1), steps=3, target=4, pair=(0, 1)),
            r"^target = 4: must be a step in 1\.\.3$",
        ),
        (
            lambda: local_release_profile(P2, PI2, krr(2, 1), steps=3, target=2, pair=(1, 1)),
            r"^pair = \(1, 1\): must be two different states",
        ),
        (
            lambda: local_release_profile(P2, PI2, krr(2, 1), steps=3, target=2, pair=(0, 1), known={2: 0}),
            r"^known = \[2\]: must not contain the target 2$",
        ),
        (
            lambda: local_release_profile(P2, PI2, krr(2, 1), steps=3, target=2, pair=(0, 1), known={1: 2}),
            r"^known = \{1: 2\}: values must be states in 0\.\.1$",
        ),
        (
            lambda: local_release_profile(
                [[1.0, 0.0], [0.0, 1.0]], [1.0, 0.0], krr(2, 1), steps=3, target=2, pair=(0, 1), known={1: 1}
            ),
            r"^known = \{1: 1\}: these values have probability 0 together$",
        ),
        (
            lambda: local_release_profile(P2, PI2, krr(2, 1), steps=3, target=2, pair=(0, 1), grid=1),
            r"^grid = 1: must be an integer in 2\.\.1000000",
        ),
        (
            lambda: worst_local_release_profile(P2, PI2, krr(2, 1), steps=3, epsilons=[-1.0]),
            r"^epsilons = \[-1\.0\]: must be finite numbers >= 0$",
        ),
        (
            lambda: worst_local_release_profile(P2, PI2, krr(2, 1), steps=3, epsilons=[1.0], sizes=[3]),
            r"^sizes = \[3\]: must be 'all' or a non-empty list of integers in 0\.\.2$",
        ),
        (
            lambda: worst_local_release_profile(P2, PI2, krr(2, 1), steps=3, epsilons=[1.0], alphas=[1.0]),
            r"^alphas = 1\.0: must be a number > 1",
        ),
        (
            lambda: worst_local_release_profile(P2, PI2, krr(2, 1), steps=3, epsilons=[1.0], deltas=[1.0]),
            r"^deltas = \[1\.0\]: must be numbers in \[0, 1\)$",
        ),
        (
            lambda: worst_local_release_profile(P2, PI2, krr(2, 1), steps=3, epsilons=[1.0], tolerance=0),
            r"^tolerance = 0: must be a number > 0 or None$",
        ),
    ]
    for call, pattern in cases:
        with pytest.raises(ParameterError, match=pattern) as info:
            call()
        assert "\n" not in str(info.value)
    with pytest.raises(TypeError):
        local_release_profile(P2, PI2, krr(2, 1), steps=3, target=2)  # the pair is required


def test_too_large_a_computation_is_refused_up_front_with_its_cost():
    """Refused before any work: this process's CPU time stays small (wall time is the machine's:
    it failed under CI's doubled load at 5.6 s)."""
    import time

    start = time.process_time()
    with pytest.raises(
        TooExpensive, match=r"^steps = 2000: the bracket may take ~[0-9.e+]+ operations .* above the limit"
    ):
        worst_local_release_profile(P2, "stationary", krr(2, 1), steps=2000, epsilons=[1.0], sizes="all")
    with pytest.raises(TooExpensive, match=r"^steps = 12: enumerating 531441 output sequences"):
        enumerate_local_release(local_release(P3, PI3, krr(3, 1), steps=12), target=2, pair=(0, 1))
    assert time.process_time() - start < 5.0


def test_the_cost_estimate_of_many_outputs_over_many_steps_is_a_number():
    """``m^s`` atoms before the grid caps them: with 2000 outputs (a quantised Gaussian release)
    ``2000.0 ** 600`` overflowed (OverflowError out of the cost estimate); it is the cap there."""
    from bdpsim.kernels.chains.local_profile import estimate_work, local_release

    L = np.full((2000, 2), 1 / 2000)
    rel = local_release([[0.8, 0.2], [0.3, 0.7]], [0.6, 0.4], L, steps=700)
    work = estimate_work(rel, 64, 4.0, 1.0, 1024, 1, 1e30)
    held = 1 + 2000 + 2000**2 + 65.0 * (700 - 3)  # m^s until the cap of 65 atoms per step
    assert work >= 4.0 * min(held, 65.0 * 700) * 2000 * 2 * 2
    assert math.isfinite(work)
