"""The privacy accountant (bdpsim.accounting) against brute force over every record tuple and every
output sequence, the exhaustive search over every known set, and the closed forms."""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest

import bdpsim
from bdpsim.accounting import HistogramRelease, LocalRelease, Release, account
from bdpsim.core.errors import ConfigError, NotAvailable
from bdpsim.kernels.noise.laws import GaussianNoise, GeometricNoise, LaplaceNoise
from bdpsim.kernels.privacy import divergences as D
from bdpsim.kernels.privacy import gaussian as G
from bdpsim.queries import AdditiveQuery, CountQuery, StateSumQuery, SumQuery


def chain_tuples(model):
    """Every record tuple of a chain and its probability."""
    P, w, n, s = model.transition, model.initial, model.n, model.states
    xs = np.array(list(itertools.product(range(s), repeat=n)))
    pr = w[xs[:, 0]] * np.prod(P[xs[:, :-1], xs[:, 1:]], axis=1)
    return xs, pr


def brute_joint(model, releases, adv, reach=24):
    """``p(y | x_K, x)`` and ``p(y | x_K, x')`` on every output tuple of lattice noises within
    ``reach`` of the query's range (tail mass below 1e-14 for the noises used)."""
    xs, pr = chain_tuples(model)
    out = []
    for v in (adv.x, adv.x_prime):
        cond = adv.condition(v)
        keep = np.all([xs[:, k] == val for k, val in cond.items()], axis=0)
        X, w = xs[keep], pr[keep] / pr[keep].sum()
        vals = [r.query_function.per_state(model.states)[X].sum(axis=1) for r in releases]
        out.append((vals, w))
    grids = [np.arange(-reach, model.n * 2 + reach + 1) for _ in releases]
    # explicit loops, small sizes: the joint pmf as a tensor
    laws = []
    for vals, w in out:
        T = w.copy()
        for r, (rel, g) in enumerate(zip(releases, grids)):
            K = np.exp(rel.noise.log_density(g[:, None] - vals[r][None, :]))  # (G, tuples)
            T = T[..., None, :] * K
        laws.append(T.sum(axis=-1).ravel())
    return laws


def two_sided(p, q, eps):
    return max(D.hockey_stick(p, q, eps), D.hockey_stick(q, p, eps))


CHAIN2 = bdpsim.MarkovChainModel([[0.8, 0.2], [0.35, 0.65]], n=4, initial=[0.5, 0.5])
CHAIN3 = bdpsim.MarkovChainModel([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]], n=3)


@pytest.mark.parametrize(
    "model,releases,adv",
    [
        (
            CHAIN2,
            [Release(CountQuery((1,)), GeometricNoise(e)) for e in (1.2, 1.2, 1.6)],
            bdpsim.Adversary(2, (0,), (1,), 1, 0),
        ),
        (
            CHAIN2,
            [Release(CountQuery((1,)), GeometricNoise(1.4))] * 2,
            bdpsim.Adversary(1, (), (), 0, 1),
        ),
        (
            CHAIN3,
            [
                Release(CountQuery((2,)), GeometricNoise(1.3)),
                Release(StateSumQuery((0.0, 1.0, 2.0)), GeometricNoise(1.5)),
            ],
            bdpsim.Adversary(0, (2,), (1,), 0, 2),
        ),
    ],
)
def test_one_adversary_equals_brute_force_over_every_output_sequence(model, releases, adv):
    p, q = brute_joint(model, releases, adv)
    acc = account(model, releases, adversary=adv)
    for eps in (0.0, 0.5, 1.5):
        v = acc.delta(eps)
        assert v.kind == "exact" and v.adversary == adv
        assert v.value == pytest.approx(two_sided(p, q, eps), abs=1e-12)
    sup = max(D.max_log_ratio(p, q), D.max_log_ratio(q, p))
    assert acc.bdpl.value == pytest.approx(sup, abs=1e-12)
    r = acc.renyi(2.0)
    exact = max(D.renyi(p, q, 2.0), D.renyi(q, p, 2.0))
    assert r.lower - 1e-12 <= exact <= r.upper + 1e-12 and r.width < 1e-10


@pytest.mark.parametrize(
    "model,releases",
    [
        (CHAIN2, [Release(CountQuery((1,)), GeometricNoise(1.2))] * 2),
        (
            bdpsim.MarkovChainModel([[0.7, 0.3], [0.1, 0.9]], n=4),
            [Release(CountQuery((1,)), GaussianNoise(s)) for s in (1.0, 2.0)],
        ),
        (
            CHAIN3,
            [Release(CountQuery((2,)), LaplaceNoise(1.0)), Release(CountQuery((2,)), GaussianNoise(1.5))][:1]
            * 1,
        ),
        (
            CHAIN3,
            [
                Release(CountQuery((2,)), GeometricNoise(1.3)),
                Release(StateSumQuery((0.0, 1.0, 2.0)), GeometricNoise(1.5)),
            ],
        ),
    ],
)
def test_window_search_equals_exhaustive_search_over_every_known_set(model, releases):
    """The reduction: the worst window adversary is the worst adversary (every K, x_K, x, x')."""
    acc = account(model, releases)
    for what, number in ((("delta", 0.7), acc.delta(0.7)), (("bdpl",), acc.bdpl)):
        every = acc._exhaustive(what, 1)[0]
        assert number.value == pytest.approx(every.score, abs=1e-12)


def test_coupling_bound_holds_and_is_the_coupled_sum():
    """The monotone coupling's bound: the coupled sum by hand on a small pair; never below the
    noisy pair's two-sided profile (random lattice laws, Gaussian and Laplace noise)."""
    from bdpsim.accounting.search import coupling_bound
    from bdpsim.kernels.noise.laws import grid_delta_pair

    A, B = np.array([[0.5, 0.5, 0.0]]), np.array([[0.0, 0.5, 0.5]])
    h = np.array([0.0, 0.3, 0.7])
    assert coupling_bound(A, B, h)[0] == pytest.approx(0.3, abs=1e-15)  # mass 1/2 + 1/2 one step apart
    rng = np.random.default_rng(3)
    for noise in (GaussianNoise(0.8), LaplaceNoise(1.0)):
        W1, W2 = rng.dirichlet(np.ones(7), 40), rng.dirichlet(np.ones(7), 40)
        for eps in (0.0, 0.6):
            one = np.zeros((7, 7))
            one[:, 0] = 1.0
            f, b = grid_delta_pair(noise, one, np.eye(7), 0.5, eps)
            got = coupling_bound(W1, W2, np.maximum(f, b))
            f, b = grid_delta_pair(noise, W1, W2, 0.5, eps)
            assert np.all(got >= np.maximum(f, b) - 1e-12)


def _exact_reach(a, b):
    """The monotone coupling's largest distance of two lattice laws, in exact rational arithmetic
    (the floats' own values as fractions): atoms of positive mass whose quantile intervals overlap
    with positive length."""
    from fractions import Fraction

    fa, fb = [Fraction(float(x)) for x in a], [Fraction(float(x)) for x in b]
    ta, tb = sum(fa), sum(fb)
    reach, ca = 0, Fraction(0)
    for j, x in enumerate(fa):
        lo_a, ca = ca, ca + x / ta
        cb = Fraction(0)
        for k, y in enumerate(fb):
            lo_b, cb = cb, cb + y / tb
            if x > 0 and y > 0 and max(lo_a, lo_b) < min(ca, cb):
                reach = max(reach, abs(j - k))
    return reach


def test_coupling_reach_never_under_estimates_the_infinity_wasserstein_distance():
    """The reach (the BDPL's certified upper end for Laplace releases is their rate times it) is the
    exact W_inf of random laws, and never below it where masses are too small for the cumulative
    sums: a tiny mass in the middle or at a tail (the first version lost the middle one and gave 0
    where the true supremum of the log-ratio was 10.9); zero-mass atoms padding a row are no atoms."""
    from bdpsim.accounting.search import coupling_reach

    rng = np.random.default_rng(5)
    for _ in range(40):
        A, B = rng.dirichlet(np.ones(7), 1), rng.dirichlet(np.ones(7), 1)
        A[0, rng.integers(7)] = 0.0
        A /= A.sum()
        assert coupling_reach(A, B)[0] == _exact_reach(A[0], B[0])
    m = 50
    A, B = np.zeros((1, 2 * m + 5)), np.zeros((1, 2 * m + 5))
    A[0, [0, m, 2 * m]] = [0.5, 1e-17, 0.5]
    B[0, [0, 2 * m]] = [0.5, 0.5]
    assert _exact_reach(A[0], B[0]) == m and coupling_reach(A, B)[0] >= m
    top = np.array([[1.0 - 1e-20, 0, 0, 1e-20, 0], [1.0, 0, 0, 0, 0]])
    assert coupling_reach(top[:1], top[1:])[0] >= 3 == _exact_reach(top[0], top[1])
    pad = np.array([[0.25, 0.75, 0.0, 0.0]]), np.array([[0.75, 0.25, 0.0, 0.0]])
    assert coupling_reach(*pad)[0] == 1


def test_the_window_sweep_of_several_eps_is_the_sweep_of_each():
    """Several ``eps`` on one set of draws (the Rényi curve's sweep) give each ``eps``'s sums as the
    sweep of that ``eps`` alone (sorted prefix sums against the direct sums: to 1e-9 relative), and
    the certified caps per ``eps`` are those of each ``eps`` alone."""
    from bdpsim.accounting import sweep as SW

    acc = account(CHAIN2, [Release(CountQuery((1,)), LaplaceNoise(s)) for s in (2.5, 2.0)])
    eps = np.array([0.0, 0.3, 1.2])
    W1, W2 = (
        w[None, :] for w in acc._packed_laws(bdpsim.Adversary(i=1, known=(), x_known=(), x=1, x_prime=0))
    )
    many = SW.WindowSweep(acc.plan, acc.comps, eps, seed=3)
    many(W1, W2)
    for g, e in enumerate(eps):
        one = SW.WindowSweep(acc.plan, acc.comps, float(e), seed=3)
        one(W1, W2)
        assert np.allclose(many.sums[0][g], one.sums[0][0], rtol=1e-9, atol=1e-9)
        assert many.capped[0][g] == one.capped[0][0]


def test_the_pruned_profile_search_finds_the_full_search_worst():
    """One release (after the sufficient statistic): the worst window of delta(eps) by branch and
    bound is the full scan's (value and adversary), evaluating a small part of the window pairs."""
    from bdpsim.accounting import search as S
    from bdpsim.kernels.noise.laws import grid_delta_pair

    model = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(8.0), n=30)
    rel = [Release(CountQuery((1,)), GaussianNoise(3.0))] * 10
    acc = account(model, rel)
    for eps in (0.0, 1.0):
        score = S.row_score(("delta", eps), acc.plan, acc.comps)
        assert isinstance(score, S.PrunedDelta)
        pruned, _ = S.chain_search(model, acc.comps, score, 0, 1)
        noise, step = acc.plan.reduced[0][1], acc.comps.step[0]

        rows = []

        def full(W1, W2, noise=noise, step=step, eps=eps, rows=rows):
            rows.append(W1.shape[0])
            f, b = grid_delta_pair(noise, W1, W2, step, eps)
            return np.where(f >= b, f, -b), np.zeros(f.shape)

        every, _ = S.chain_search(model, acc.comps, full, 0, 1)
        assert pruned[0].score == every[0].score and pruned[0].adversary == every[0].adversary
        assert 0 < score.evaluated < 0.5 * sum(rows)


def test_epsilon_names_the_adversary_attaining_it():
    """``epsilon(delta)`` carries the worst adversary of ``delta`` at its upper end (lattice,
    Gaussian and Monte Carlo-free lists); where ``delta`` exceeds ``d`` at the largest eps of a
    profile (a tiny Laplace scale) it is the certified bracket ``[100, BDPL]`` with the adversary of
    ``delta(100)`` (before: the doubling asked delta(128) and the noise law refused it; then it
    was ``inf`` labelled exact beside a finite exact BDPL, though ``delta = 0`` beyond the BDPL)."""
    acc = account(CHAIN2, [Release(CountQuery((1,)), GaussianNoise(1.0))] * 2)
    v = acc.epsilon(0.05)
    assert v.adversary is not None and v.adversary == acc.delta(v.upper).adversary
    assert acc.delta(v.upper).upper <= 0.05 < acc.delta(max(v.lower - 1e-3, 0.0)).upper
    tiny = account(CHAIN2, [Release(CountQuery((1,)), LaplaceNoise(0.002))])
    w, b = tiny.epsilon(0.01), tiny.bdpl
    assert w.adversary == tiny.delta(100.0).adversary and tiny.delta(100.0).lower > 0.01
    assert b.kind == "exact" and 100.0 < b.value < math.inf
    assert w.kind == "certified bracket" and (w.lower, w.upper) == (100.0, b.upper)


def test_epsilon_over_every_adversary_is_the_largest_adversary_epsilon():
    """``epsilon(d)`` over every adversary, as the largest of the adversaries' own (a pair's
    bisection, then one search showing ``delta <= d`` over every adversary at its upper end), meets
    the bisection on the search itself (every step a search over every adversary) to the
    tolerance, with a few searches instead of one per step: two Laplace releases of one scale
    (box brackets) and lattice releases."""
    from bdpsim.accounting.accountant import _profile_root

    model = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(2.0), n=4)
    for rel, d in (
        ([Release(CountQuery((1,)), LaplaceNoise(2.0))] * 2, 0.1),
        ([Release(CountQuery((1,)), GeometricNoise(1.0))] * 2, 0.05),
    ):
        acc = account(model, rel)
        searched = []
        delta = acc.delta

        def counted(e, delta=delta, searched=searched):
            searched.append(e)
            return delta(e)

        acc.delta = counted  # type: ignore[method-assign]
        fast = acc.epsilon(d)
        assert "one search" in fast.note and len(set(searched)) <= 4
        slow = _profile_root(delta, d, 1e-4)
        assert fast.lower <= slow[1] + 1e-12 and slow[0] <= fast.upper + 1e-12
        assert fast.width <= 2e-4 and abs(fast.upper - slow[1]) <= 2e-4
        assert delta(fast.upper).upper <= d < delta(fast.lower - 1e-3).lower


def test_gaussian_records_with_gaussian_noise_equal_the_closed_form():
    """``mu^2 = d^T C^-1 d`` with the output covariance ``C = v 11^T + diag(sigma^2)`` and the mean
    shift ``d = a (x - x') 1`` (the conditional law of the sum), by plain matrix algebra."""
    cov = np.array([[1.0, 0.5, 0.2, 0.1], [0.5, 1.0, 0.5, 0.2], [0.2, 0.5, 1.0, 0.5], [0.1, 0.2, 0.5, 1.0]])
    model = bdpsim.GaussianModel(np.zeros(4), cov)
    sig = [1.0, 2.0, 0.5]
    rel = [Release(SumQuery(), GaussianNoise(s)) for s in sig]
    adv = bdpsim.Adversary(1, (3,), (0.0,), 1.0, -1.0)
    T, U = [1, 3], [0, 2]
    gain = cov[np.ix_(U, T)] @ np.linalg.inv(cov[np.ix_(T, T)])
    a = 1.0 + gain[:, 0].sum()
    v = (cov[np.ix_(U, U)] - gain @ cov[np.ix_(T, U)]).sum()
    C = v * np.ones((3, 3)) + np.diag(np.square(sig))
    mu = G.gaussian_mu(a * 2.0 * np.ones(3), C)
    acc = account(model, rel, adversary=adv)
    for eps in (0.0, 0.5, 2.0):
        assert acc.delta(eps).value == pytest.approx(G.gaussian_delta(mu, eps), abs=1e-9)
    assert acc.renyi(3.0).value == pytest.approx(1.5 * mu * mu, rel=1e-9)
    assert acc.bdpl.value == math.inf
    worst = account(model, rel, targets=(1.0, -1.0))
    assert worst.delta(1.0).value >= acc.delta(1.0).value


@pytest.mark.parametrize(
    "model,mech",
    [
        (bdpsim.MarkovChainModel(bdpsim.symmetric_chain(5.0), n=6), bdpsim.LaplaceCount(epsilon=1.0)),
        (bdpsim.MarkovChainModel([[0.7, 0.3], [0.1, 0.9]], n=7), bdpsim.LaplaceCount(epsilon=0.5)),
    ],
)
def test_one_release_bdpl_is_exact_bdpl_and_the_profile_vanishes_beyond_it(model, mech):
    acc = account(model, [mech])
    b = acc.bdpl
    assert b.kind == "exact"
    assert b.value == pytest.approx(bdpsim.exact_bdpl(model, mech).bdpl, abs=1e-12)
    assert acc.renyi(math.inf).value == b.value
    assert acc.delta(b.value + 1e-9).value == pytest.approx(0.0, abs=1e-13)
    assert acc.delta(b.value - 0.05).value > 0


def test_one_release_on_a_network_is_exact_bdpl():
    from bdpsim.models.bayesnet.model import BayesNetModel

    hmm = BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.85, 0.15], [0.25, 0.75]], 4)
    mech = bdpsim.LaplaceCount(epsilon=1.0)
    assert account(hmm, [mech]).bdpl.value == pytest.approx(bdpsim.exact_bdpl(hmm, mech).bdpl, abs=1e-12)


def test_a_release_is_a_mechanism_of_the_query_noise_family():
    """``Release(query_function, noise)`` is a :class:`QueryNoiseMechanism`: ``query(data)`` the
    noiseless answers, a call releases them with noise, and an engine takes it as it takes the
    equivalent ``LaplaceCount`` (the same exact BDPL and adversary, the same draws from one seed)."""
    from bdpsim.mechanisms.noisy import QueryNoiseMechanism

    rel = Release(CountQuery((1,)), LaplaceNoise(1.0))
    lap = bdpsim.LaplaceCount(epsilon=1.0)
    assert isinstance(rel, QueryNoiseMechanism) and isinstance(rel, bdpsim.mechanisms.Mechanism)
    data = np.array([[0, 1, 1, 0], [1, 1, 1, 1], [0, 0, 0, 0]])
    np.testing.assert_array_equal(rel.query(data), [2.0, 4.0, 0.0])
    np.testing.assert_array_equal(rel(data, np.random.default_rng(7)), lap(data, np.random.default_rng(7)))
    assert (
        (rel.kind, rel.epsilon, rel.sensitivity)
        == (lap.kind, lap.epsilon, lap.sensitivity)
        == ("count", 1.0, 1.0)
    )
    np.testing.assert_equal(rel.columns(), lap.columns())
    model = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(5.0), n=6)
    got, want = bdpsim.exact_bdpl(model, rel), bdpsim.exact_bdpl(model, lap)
    assert (got.bdpl, got.adversary) == (want.bdpl, want.adversary)
    assert Release(SumQuery(), GaussianNoise(1.0), "weekly sum").kind == "sum"
    assert Release(CountQuery((1,)), LaplaceNoise(1.0), "weekly count").label == "weekly count"
    assert Release(query_function=CountQuery((1,)), noise=LaplaceNoise(1.0)) == rel
    with pytest.raises(TypeError, match=r"^Release\(query=\.\.\.\): the query is the field query_function"):
        Release(query=CountQuery((1,)), noise=LaplaceNoise(1.0))  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match=r"^release.query_function = 'str': must be an additive query"):
        Release("count", LaplaceNoise(1.0))
    with pytest.raises(ConfigError, match=r"^release.noise = 'float': must be a noise law"):
        Release(CountQuery((1,)), 1.0)


@pytest.mark.parametrize(
    "noise,times", [(GeometricNoise(1.2), 2), (GaussianNoise(1.5), 3), (LaplaceNoise(2.0), 1)]
)
def test_account_of_releases_equals_account_of_the_equivalent_mechanisms(noise, times):
    """``account`` of ``Release`` s and of the equivalent ``NoisyQueryMechanism`` s: the same
    releases, labels, method and every number to the last digit."""
    from bdpsim.mechanisms.noisy import NoisyQueryMechanism

    a = account(CHAIN2, [Release(CountQuery((1,)), noise)] * times)
    b = account(CHAIN2, [NoisyQueryMechanism(CountQuery((1,)), noise)] * times)
    assert a.releases == b.releases and a.method == b.method
    assert [r.label for r in b.releases] == [
        f"count of 1 + {noise.name}({noise.parameter_name} = {noise.parameter:g})"
    ] * times
    for get in (lambda x: x.delta(0.5), lambda x: x.delta(0.0), lambda x: x.bdpl, lambda x: x.epsilon(1e-3)):
        u, v = get(a), get(b)
        assert (u.value, u.lower, u.upper, u.kind, u.adversary) == (
            v.value,
            v.lower,
            v.upper,
            v.kind,
            v.adversary,
        )
    assert a.delta(0.5).kind == "exact"


def test_histogram_and_repeated_gaussian_releases():
    """A histogram is one noisy count per state; four Gaussian releases of sd 2 are one of sd 1."""
    m = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(3.0), n=5)
    one = account(m, [Release(CountQuery((1,)), GaussianNoise(1.0))])
    four = account(m, [Release(CountQuery((1,)), GaussianNoise(2.0))] * 4)
    assert four.delta(0.5).value == pytest.approx(one.delta(0.5).value, abs=1e-12)
    adv = bdpsim.Adversary(2, (0, 4), (0, 1), 0, 1)
    h = account(m, [HistogramRelease(GeometricNoise(2.0))], adversary=adv)
    p, q = brute_joint(m, [Release(CountQuery((s,)), GeometricNoise(2.0)) for s in (0, 1)], adv, reach=18)
    assert h.delta(0.3).value == pytest.approx(two_sided(p, q, 0.3), abs=1e-12)


def test_bad_arguments_are_refused_in_one_line():
    acc = account(CHAIN2, [bdpsim.LaplaceCount(epsilon=1.0)])
    with pytest.raises(ConfigError, match=r"^epsilon = -1"):
        acc.delta(-1)
    with pytest.raises(ConfigError, match=r"^delta = 1"):
        acc.epsilon(1.0)
    with pytest.raises(ConfigError, match=r"^alpha = 1"):
        acc.renyi(1.0)
    with pytest.raises(ConfigError, match=r"^release.mechanism = 'object': must be 'krr'"):
        LocalRelease(object())
    with pytest.raises(NotAvailable, match="Gaussian records .*sum with Gaussian noise"):
        account(
            bdpsim.GaussianModel(np.zeros(2), np.eye(2)),
            [Release(SumQuery(), LaplaceNoise(1.0))],
            targets=(0, 1),
        )
    big = account(
        bdpsim.MarkovChainModel(bdpsim.symmetric_chain(2.0), n=40),
        [Release(CountQuery((1,)), GeometricNoise(0.2))] * 4,
    )
    with pytest.raises(NotAvailable, match=r"needs about .* cells x atoms per adversary"):
        big.delta(1.0)


def _laplace_2d_laws(A, B, b, h=0.05, reach=30.0):
    """The two joint laws of two releases ``S + Z_1``, ``S + Z_2`` (Laplace scales ``b = (b_1,
    b_2)``) of a count of law ``A`` / ``B`` on ``0..len-1``, as masses of the cells of a square grid
    (the midpoint rule; the mass beyond ``reach`` is below 1e-5 for scales ``<= 2.5``)."""
    y = np.arange(-reach, len(A) + reach, h) + h / 2
    K1, K2 = (np.exp(-np.abs(y[:, None] - np.arange(len(A))[None, :]) / s) * (h / (2 * s)) for s in b)
    return (K1 * A) @ K2.T, (K1 * B) @ K2.T


def _laplace_2d_delta(A, B, b, eps, h=0.05, reach=30.0):
    """``max(H_eps(P||Q), H_eps(Q||P))`` of :func:`_laplace_2d_laws`, for one ``eps`` or a tuple."""
    P, Q = _laplace_2d_laws(A, B, b, h, reach)
    out = []
    for e in np.atleast_1d(eps):
        k = math.exp(e)
        out.append(max(np.maximum(P - k * Q, 0).sum(), np.maximum(Q - k * P, 0).sum()))
    return out[0] if np.ndim(eps) == 0 else out


_BRUTE: dict = {}


def _distinct_pairs(model):
    """The distinct pairs of laws of the count of state 1 over every adversary of a two-state chain
    (every target, known set and known values)."""
    xs, pr = chain_tuples(model)
    seen = set()
    for i in range(model.n):
        others = [k for k in range(model.n) if k != i]
        for size in range(len(others) + 1):
            for K in itertools.combinations(others, size):
                for xk in itertools.product(range(2), repeat=size):
                    laws = []
                    for v in (0, 1):
                        keep = np.all([xs[:, k] == val for k, val in zip((*K, i), (*xk, v))], axis=0)
                        w = np.bincount(xs[keep].sum(axis=1), pr[keep], minlength=model.n + 1)
                        laws.append(tuple(np.round(w / w.sum(), 14)))
                    if tuple(laws) in seen:
                        continue
                    seen.add(tuple(laws))
                    yield np.array(laws[0]), np.array(laws[1])


def _brute_supremum(model, b, eps):
    """The supremum over every adversary of ``delta(eps)`` (one ``eps`` or a tuple) of two Laplace
    releases of the count of state 1 (scales ``b``): each distinct pair (:func:`_distinct_pairs`)
    integrated on a grid (:func:`_laplace_2d_delta`, error below 1e-4)."""
    key = (id(model), tuple(b), tuple(np.atleast_1d(eps)))
    if key in _BRUTE:
        return _BRUTE[key]
    worst = np.zeros(np.atleast_1d(eps).size)
    for A, B in _distinct_pairs(model):
        worst = np.maximum(worst, _laplace_2d_delta(A, B, b, tuple(np.atleast_1d(eps))))
    _BRUTE[key] = float(worst[0]) if np.ndim(eps) == 0 else [float(w) for w in worst]
    return _BRUTE[key]


def test_monte_carlo_list_interval_holds_for_the_supremum_over_every_adversary():
    """Two Laplace releases of one count, of two scales (no sufficient statistic, no box bracket:
    Monte Carlo): the interval printed for the supremum over every adversary — every window on
    common draws (bdpsim.accounting.sweep) — holds: it contains the brute-force supremum (every
    target, known set and known values of the chain, each pair integrated on a grid), and its
    adversary is one attaining it."""
    eps, b = 0.3, (2.5, 2.0)
    worst = _brute_supremum(CHAIN2, b, eps)
    assert worst == pytest.approx(0.30877, abs=1e-4)
    got = account(CHAIN2, [Release(CountQuery((1,)), LaplaceNoise(s)) for s in b]).delta(eps)
    assert got.kind == "Monte Carlo" and got.confidence == 0.95
    assert {type(x) for x in (got.value, got.lower, got.upper)} == {float}  # a CSV writes repr()
    assert "windows, each by Monte Carlo on 40000 common draws" in got.note
    assert got.lower - 1e-4 <= worst <= got.upper + 1e-4  # the grid's error is below 1e-4
    assert got.width < 0.003
    pair = account(CHAIN2, [Release(CountQuery((1,)), LaplaceNoise(s)) for s in b], adversary=got.adversary)
    assert pair.delta(eps).value == pytest.approx(worst, abs=0.003)  # the adversary attains it
    # pinned (seed 0): the interval of the supremum
    assert (got.lower, got.upper) == pytest.approx((0.307738, 0.309422), abs=1e-6)


def test_monte_carlo_list_on_a_network_holds_for_the_supremum_over_every_adversary():
    """A hidden Markov network (every known set closed: the region search scores every adversary's
    region): two Laplace counts of two scales, Monte Carlo; the sweep over every region gives an
    interval containing the brute-force supremum (every target, known set and known values, each
    distinct pair integrated on a grid), where it was the worst proxy region's value."""
    from bdpsim.models.bayesnet.model import BayesNetModel

    hmm = BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.85, 0.15], [0.25, 0.75]], 4)
    b, eps = (2.5, 2.0), 0.3
    acc = account(hmm, [Release(CountQuery((1,)), LaplaceNoise(s)) for s in b])
    got = acc.delta(eps)
    assert got.kind == "Monte Carlo" and "regions, each by Monte Carlo" in got.note
    seen, worst = set(), 0.0
    for i in range(hmm.n):
        others = [k for k in range(hmm.n) if k != i]
        for size in range(hmm.n):
            for K in itertools.combinations(others, size):
                for xk in itertools.product(range(2), repeat=size):
                    A, B = (w / w.sum() for w in acc._packed_laws(bdpsim.Adversary(i, K, xk, 0, 1)))
                    key = (tuple(np.round(A, 14)), tuple(np.round(B, 14)))
                    if key not in seen:
                        seen.add(key)
                        worst = max(worst, _laplace_2d_delta(A, B, b, eps))
    assert got.lower - 1e-4 <= worst <= got.upper + 1e-4 and got.width < 0.005, (worst, got.text())


def test_epsilon_of_a_monte_carlo_list_brackets_the_supremum_s_epsilon():
    """``epsilon(delta)`` of a Monte Carlo list on a chain: its upper end is the supremum's (the
    window sweep shows ``delta <= d`` there over every adversary), its lower end one adversary's;
    the brute-force supremum of ``delta`` (every adversary, grid integrals) is ``<= d`` at the
    upper end and ``>= d`` at the lower end."""
    b, d = (2.5, 2.0), 0.1
    got = account(CHAIN2, [Release(CountQuery((1,)), LaplaceNoise(s)) for s in b]).epsilon(d)
    assert got.kind == "Monte Carlo" and got.confidence == 0.95
    assert "every adversary: delta(" in got.note and "(window sweep, try" in got.note
    at_upper, at_lower = _brute_supremum(CHAIN2, b, (got.upper, got.lower))
    assert at_upper <= d + 1e-4 and at_lower >= d - 1e-4
    assert got.width <= 0.05 + 1e-12


def test_epsilon_of_a_monte_carlo_list_is_at_most_the_joint_bdpl_and_eps_is_bounded():
    """``delta = 0`` beyond the joint BDPL, so its certified upper end caps ``epsilon(d)`` where
    draws cannot show ``delta <= d`` (a tiny ``d``: the interval was ``[lo, inf]``); an ``eps``
    beyond the largest of a profile is refused in one line (was an ``OverflowError`` at 800)."""
    rel = [Release(CountQuery((1,)), LaplaceNoise(s)) for s in (2.0, 2.5)]
    acc = account(bdpsim.MarkovChainModel([[0.8, 0.2], [0.3, 0.7]], n=6), rel)
    got, b = acc.epsilon(1e-300), acc.bdpl
    assert b.kind == "certified bracket" and math.isfinite(got.upper)
    assert got.upper == pytest.approx(b.upper, abs=1e-12) and got.lower <= b.upper
    assert "joint BDPL's certified upper end" in got.note
    for bad in (800.0, 1e308, float("nan"), -1.0):
        with pytest.raises(ConfigError, match=r"^epsilon = .*: must be a finite number in \[0, 100\]$"):
            acc.delta(bad)


def test_window_sweep_intervals_cover_the_supremum(monkeypatch):
    """Coverage: with few draws (wide intervals, so that a biased estimate would miss) the
    interval of the supremum over every adversary holds for every one of 30 seeds (nominal 95 %;
    the Bonferroni split and the empirical Bernstein ends are conservative), and the estimates
    scatter around the brute-force supremum."""
    from bdpsim.accounting import sweep

    monkeypatch.setattr(sweep, "STAGE1_DRAWS", 1_000)
    monkeypatch.setattr(sweep, "STAGE2_DRAWS", 4_000)
    monkeypatch.setattr(sweep, "LOWER_DRAWS", 4_000)
    eps, b = 0.3, (2.5, 2.0)
    worst = _brute_supremum(CHAIN2, b, eps)
    rel = [Release(CountQuery((1,)), LaplaceNoise(s)) for s in b]
    got = [account(CHAIN2, rel, seed=seed).delta(eps) for seed in range(30)]
    held = sum(v.lower - 1e-4 <= worst <= v.upper + 1e-4 for v in got)
    assert held >= 29
    est = np.array([v.value for v in got])
    assert abs(est.mean() - worst) < 4 * est.std() / math.sqrt(est.size) + 1e-4
    assert 0.005 < np.mean([v.width for v in got]) < 0.05  # wide enough to test, narrow enough to mean


def _brute_renyi(model, b, alphas, adversary_laws=None):
    """Per order in ``alphas``: the supremum over every adversary (or of the one pair
    ``adversary_laws``) of ``max(D_alpha(P || Q), D_alpha(Q || P))`` of two Laplace releases of the
    count of state 1 (scales ``b``), each pair's laws as masses of the cells of a grid of step 0.2
    (:func:`_laplace_2d_laws`; within 1e-3 of the grid of step 0.05 at ``alpha = 5``)."""
    key = ("renyi", id(model), tuple(b), tuple(alphas), adversary_laws is None)
    if adversary_laws is None and key in _BRUTE:
        return _BRUTE[key]
    pairs = [adversary_laws] if adversary_laws is not None else _distinct_pairs(model)
    worst = np.zeros(len(alphas))
    for A, B in pairs:
        P, Q = (x.ravel() for x in _laplace_2d_laws(A, B, b, h=0.2))
        worst = np.maximum(worst, [max(D.renyi(P, Q, a), D.renyi(Q, P, a)) for a in alphas])
    if adversary_laws is None:
        _BRUTE[key] = list(worst)
    return list(worst)


@functools.cache
def _two_laplace_account():
    """The account of two Laplace counts of scales 2.5 and 2 on ``CHAIN2`` (Monte Carlo), shared by
    the tests of its profile's bounds (built once per process)."""
    return account(CHAIN2, [Release(CountQuery((1,)), LaplaceNoise(s)) for s in (2.5, 2.0)])


def _np_tpr(X, Y, fprs):
    """The Neyman-Pearson test's TPR at each of ``fprs`` of ``X`` against the null ``Y`` (finite
    laws)."""
    o = np.argsort(-(X / np.maximum(Y, 1e-300)))
    cy, cx = np.cumsum(Y[o]), np.cumsum(X[o])
    k = np.searchsorted(cy, fprs)
    before_y, before_x = np.where(k > 0, cy[k - 1], 0.0), np.where(k > 0, cx[k - 1], 0.0)
    return before_x + (np.asarray(fprs) - before_y) / Y[o][k] * X[o][k]


def test_tpr_of_a_monte_carlo_list_holds_for_the_supremum_over_every_adversary():
    """``tpr_at(fpr)`` (and ``beta``) of a Monte Carlo list — refused before — from the profile's
    bounds (Neyman-Pearson on the sweep's upper ends; the worst windows' own lower ends): the
    interval contains the brute-force supremum over every adversary and both orders (each pair on
    a grid of step 0.2, within 2e-3 of step 0.1), at small and large FPRs."""
    b = (2.5, 2.0)
    acc = _two_laplace_account()
    fprs = (0.01, 0.1, 0.5)
    brute = np.zeros(3)
    for A, B in _distinct_pairs(CHAIN2):
        P, Q = (x.ravel() for x in _laplace_2d_laws(A, B, b, h=0.2))
        brute = np.maximum(brute, np.maximum(_np_tpr(P, Q, fprs), _np_tpr(Q, P, fprs)))
    for fpr, worst in zip(fprs, brute):
        got = acc.tpr_at(fpr)
        assert got.kind == "Monte Carlo" and got.lower - 2e-3 <= worst <= got.upper + 2e-3, (fpr, worst)
        assert got.width < 0.01 and "Neyman-Pearson" in got.note
        beta = acc.beta(fpr)
        assert (beta.lower, beta.upper) == pytest.approx((1 - got.upper, 1 - got.lower), abs=1e-15)
    # pinned (seed 0)
    assert (got.lower, got.upper) == pytest.approx((0.848702, 0.855716), abs=1e-6)


def test_renyi_of_a_monte_carlo_list_holds_for_the_supremum_over_every_adversary():
    """Two Laplace releases of one count, of two scales (no exact joint law: Monte Carlo): the
    interval of ``renyi(alpha)`` over every adversary — the worst adversary's profile at 49 values
    of ``eps`` by the window sweep, integrated (bdpsim.accounting.renyi) — contains the brute-force
    supremum (every adversary, each pair on a grid), and the adversary it names has its own
    interval containing its own value. Refused before (``NotAvailable``)."""
    b, alphas = (2.5, 2.0), (2.0, 5.0)
    rel = [Release(CountQuery((1,)), LaplaceNoise(s)) for s in b]
    acc = _two_laplace_account()
    brute = _brute_renyi(CHAIN2, b, alphas)
    for alpha, worst, width in zip(alphas, brute, (0.03, 0.1)):
        got = acc.renyi(alpha)
        assert got.kind == "Monte Carlo" and got.confidence == 0.95
        assert got.lower - 2e-3 <= worst <= got.upper + 2e-3, (alpha, worst, got.text())
        assert got.width < width, got.text()
        assert "integral representation" in got.note and "windows" in got.note
    assert acc.renyi(2.0).upper <= acc.renyi(5.0).upper <= acc.bdpl.upper  # D_alpha grows to D_inf
    huge = acc.renyi(
        1e308
    )  # no overflow: the lower end of the largest order integrated, the BDPL's upper end
    assert acc.renyi(5.0).lower <= huge.lower <= huge.upper == acc.bdpl.upper
    one = account(CHAIN2, rel, adversary=got.adversary)
    laws = [w / w.sum() for w in one._packed_laws(got.adversary)]
    own, theirs = one.renyi(5.0), _brute_renyi(CHAIN2, b, (5.0,), laws)[0]
    assert own.kind == "Monte Carlo" and own.lower - 2e-3 <= theirs <= own.upper + 2e-3
    assert theirs == pytest.approx(brute[1], abs=got.width)  # it attains it
    # pinned (seed 0)
    assert (got.lower, got.upper) == pytest.approx((1.443133, 1.467468), abs=1e-6)
    two = acc.renyi(2.0)
    assert (two.lower, two.upper) == pytest.approx((0.921246, 0.945403), abs=1e-6)


def test_renyi_of_one_adversary_by_draws_covers_its_value(monkeypatch):
    """Coverage: with few draws (wide intervals) the interval of one adversary's ``renyi(2)`` holds
    for every one of 30 seeds (nominal 95 %), and the estimates scatter around the grid value; two
    Laplace releases of ONE scale (box brackets give no Rényi divergence) take the same path."""
    from bdpsim.accounting import sweep

    monkeypatch.setattr(sweep, "LOWER_DRAWS", 4_000)
    monkeypatch.setattr("bdpsim.accounting.accountant.LOWER_DRAWS", 4_000)
    b = (2.0, 2.0)
    rel = [Release(CountQuery((1,)), LaplaceNoise(s)) for s in b]
    adv = bdpsim.Adversary(i=1, known=(0,), x_known=(0,), x=1, x_prime=0)
    first = account(CHAIN2, rel, adversary=adv)
    assert first.method == "boxes"
    truth = _brute_renyi(CHAIN2, b, (2.0,), [w / w.sum() for w in first._packed_laws(adv)])[0]
    got = [account(CHAIN2, rel, adversary=adv, seed=seed).renyi(2.0) for seed in range(30)]
    held = sum(v.lower - 2e-3 <= truth <= v.upper + 2e-3 for v in got)
    assert held >= 29
    est = np.array([v.value for v in got])
    assert abs(est.mean() - truth) < 4 * est.std() / math.sqrt(est.size) + 0.01
    assert 0.01 < np.mean([v.width for v in got]) < 0.5  # wide enough to test, narrow enough to mean
    # two scales (no box bracket): one adversary's TPR from its own profile's bounds
    two = account(CHAIN2, [Release(CountQuery((1,)), LaplaceNoise(s)) for s in (2.5, 2.0)], adversary=adv)
    P, Q = (
        x.ravel() for x in _laplace_2d_laws(*[w / w.sum() for w in two._packed_laws(adv)], (2.5, 2.0), h=0.2)
    )
    tpr, own = two.tpr_at(0.1), max(_np_tpr(P, Q, [0.1])[0], _np_tpr(Q, P, [0.1])[0])
    assert tpr.kind == "Monte Carlo" and tpr.lower - 2e-3 <= own <= tpr.upper + 2e-3


def test_window_sweep_agrees_with_the_certified_box_brackets(monkeypatch):
    """Two Laplace releases of ONE scale have certified box brackets over every adversary
    (bdpsim.accounting.boxes); the window sweep on the same list (boxes switched off) gives an
    interval meeting that bracket, and the two name adversaries of the same value."""
    from dataclasses import replace

    from bdpsim.accounting import sweep

    monkeypatch.setattr(sweep, "STAGE2_DRAWS", 200_000)
    monkeypatch.setattr(sweep, "LOWER_DRAWS", 200_000)

    model = bdpsim.MarkovChainModel([[0.7, 0.3], [0.2, 0.8]], n=5)
    rel = [Release(CountQuery((1,)), LaplaceNoise(1.5))] * 2
    boxes = account(model, rel)
    assert boxes.method == "boxes"
    mc = account(model, rel)
    mc._plan = replace(mc.plan, boxes=False)
    assert mc.method == "monte carlo"
    for eps in (0.0, 0.5):
        cert, got = boxes.delta(eps), mc.delta(eps)
        assert got.kind == "Monte Carlo" and cert.kind != "Monte Carlo"
        assert got.lower <= cert.upper + 1e-12 and cert.lower <= got.upper + 1e-12
        assert got.value == pytest.approx(cert.value, abs=max(got.width, 1e-3))


def test_monte_carlo_list_falls_back_to_the_coupling_bound_where_ratios_overflow(monkeypatch):
    """Where the likelihood ratios between lattice values overflow (here: the limit lowered below
    every ratio) the sweep does not apply; the supremum's interval runs from the worst proxy
    window's Monte Carlo lower end to the certified coupling bound, which holds (pinned: the
    coupled sum of this list)."""
    from bdpsim.accounting import sweep

    monkeypatch.setattr(sweep, "MAX_LOG_RATIO", -1.0)
    eps, b = 0.3, (2.5, 2.0)
    got = account(CHAIN2, [Release(CountQuery((1,)), LaplaceNoise(s)) for s in b]).delta(eps)
    assert got.kind == "Monte Carlo"
    assert "monotone coupling" in got.note and "certified" in got.note
    assert "windows, each by Monte Carlo" not in got.note
    assert got.lower <= _brute_supremum(CHAIN2, b, eps) + 1e-4 < got.upper
    assert got.upper == pytest.approx(0.3675852, abs=1e-6)  # pinned: the coupling bound


def test_two_state_histogram_is_two_releases_of_the_count_of_state_1():
    """On two states ``n - y_0`` has the law of the count of state 1 plus the same symmetric noise:
    a Gaussian histogram is one Gaussian release of that count with ``sigma / sqrt 2`` (exact), and
    the histogram mechanism is accepted as its release (Laplace ``2 / epsilon`` per cell)."""
    m = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(2.0), n=6)
    h = account(m, [HistogramRelease(GaussianNoise(2.0))])
    one = account(m, [Release(CountQuery((1,)), GaussianNoise(2.0 / np.sqrt(2.0)))])
    assert h.method == "one release"
    for e in (0.0, 0.5, 2.0):
        assert h.delta(e).kind == "exact"
        assert h.delta(e).value == pytest.approx(one.delta(e).value, abs=1e-12)
    mech = bdpsim.HistogramMechanism(1.0, 2)
    rel = bdpsim.accounting.releases.as_release(mech)
    assert rel == HistogramRelease(LaplaceNoise(2.0), states=2)
    with pytest.raises(ConfigError, match=r"^release.states = 3: the histogram has 3 cells"):
        account(m, [bdpsim.HistogramMechanism(1.0, 3)])
    with pytest.raises(ConfigError, match=r"^release.states = 1: must be an integer >= 2"):
        HistogramRelease(LaplaceNoise(2.0), states=1)


def histogram_pair(model, adv):
    """The count vectors ``(N_0, N_1)`` of the chain given ``(x_K, x)`` and ``(x_K, x')``, by
    enumeration of every record tuple: atoms and the two weight vectors."""
    xs, pr = chain_tuples(model)
    laws = []
    for v in (adv.x, adv.x_prime):
        keep = np.all([xs[:, k] == val for k, val in adv.condition(v).items()], axis=0)
        N1 = xs[keep].sum(axis=1)
        laws.append(np.bincount(N1, weights=pr[keep], minlength=model.n + 1))
    N = np.arange(model.n + 1)
    return np.stack([model.n - N, N], axis=1), laws[0], laws[1]


HIST_CHAIN = bdpsim.MarkovChainModel([[0.8, 0.2], [0.35, 0.65]], n=3, initial=[0.5, 0.5])


def every_histogram_adversary(i):
    others = [k for k in range(HIST_CHAIN.n) if k != i]
    for size in range(HIST_CHAIN.n):
        for K in itertools.combinations(others, size):
            for xk in itertools.product(range(2), repeat=size):
                yield bdpsim.Adversary(i, K, xk, 0, 1)


@pytest.mark.parametrize("i", [0, 1, 2])
def test_laplace_histogram_of_two_states_brackets_the_plane_integral_for_every_adversary(i):
    """Every adversary of a 3-record chain, both orders: the accountant's two-sided delta of the
    Laplace histogram (the box bracket of the two releases of the count of state 1) holds the
    plane integral of the histogram's own output densities over R^2 (quadrature error ~1e-12;
    bracket width <= 1e-6 per order)."""
    from ..helpers import laplace_plane_hockey

    mech = bdpsim.HistogramMechanism(1.0, 2)
    b, e = mech.noise_scale, 0.3
    for adv in every_histogram_adversary(i):
        atoms, p, q = histogram_pair(HIST_CHAIN, adv)
        want = max(laplace_plane_hockey(atoms, p, q, b, e), laplace_plane_hockey(atoms, q, p, b, e))
        got = account(HIST_CHAIN, [mech], adversary=adv).delta(e)
        assert got.lower - 1e-10 <= want <= got.upper + 1e-10
        assert got.width <= 2e-6


def test_laplace_histogram_of_two_states_worst_adversary_and_bdpl():
    """The worst over every adversary (window search) is the largest of every adversary's bracket
    (the exhaustive list of the test above), named; the BDPL is exact_bdpl's to 1e-12."""
    mech = bdpsim.HistogramMechanism(1.0, 2)
    each = [
        account(HIST_CHAIN, [mech], adversary=a).delta(0.3)
        for i in range(3)
        for a in every_histogram_adversary(i)
    ]
    top = max(each, key=lambda v: v.upper)
    every = account(HIST_CHAIN, [mech]).delta(0.3)
    assert every.kind == "certified bracket"
    assert every.lower <= top.upper + 1e-12 and top.lower <= every.upper + 1e-12
    assert every.upper >= max(v.lower for v in each) - 1e-12
    assert isinstance(every.adversary, bdpsim.Adversary)
    big = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(2.0), n=8)
    bdpl = account(big, [mech]).bdpl
    assert bdpl.kind == "exact"
    assert bdpl.value == pytest.approx(bdpsim.exact_bdpl(big, mech).bdpl, abs=1e-12)


THREE_STATES = [[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]]


def test_laplace_histogram_of_three_states_over_every_adversary_beyond_the_boxes_is_swept():
    """Over every adversary the three noisy counts take the box search up to
    n = THREE_STATE_EVERY_MAX_N records and the window sweep of several queries beyond (Monte
    Carlo); where the sweep does not apply (known-set sizes that are not every size from some size
    on) they are refused before any work in one line naming the release, the records, the limit,
    the estimated cost and what to use; one adversary takes the boxes of R^3 up to
    n = THREE_STATE_MAX_N records, Monte Carlo beyond."""
    from bdpsim.mechanisms.histogram import THREE_STATE_EVERY_MAX_N, THREE_STATE_MAX_N

    mech = bdpsim.HistogramMechanism(1.0, 3)
    small = bdpsim.MarkovChainModel(THREE_STATES, n=THREE_STATE_EVERY_MAX_N)
    assert account(small, [mech]).method == "boxes"
    n = THREE_STATE_EVERY_MAX_N + 1
    three = bdpsim.MarkovChainModel(THREE_STATES, n=n)
    assert account(three, [mech]).method == "monte carlo"
    with pytest.raises(
        NotAvailable,
        match=rf"^release 'histogram \+ laplace\(scale = 2\)': the histogram of 3 states over every "
        rf"adversary is searched by box brackets of R\^3 up to n = {THREE_STATE_EVERY_MAX_N} records, "
        rf"not n = {n} \(it would bracket about {4 * n * n} windows .*\); give adversary= \(certified "
        rf"box brackets up to n = {THREE_STATE_MAX_N}, Monte Carlo beyond\)",
    ) as err:
        account(three, [mech], sizes=[0, 1])
    assert "\n" not in str(err.value)
    adv = bdpsim.Adversary(1, (0,), (0,), 0, 1)
    assert account(three, [mech], adversary=adv).method == "boxes"
    longer = bdpsim.MarkovChainModel(THREE_STATES, n=THREE_STATE_MAX_N + 1)
    assert account(longer, [mech], adversary=adv).method == "monte carlo"


def test_several_query_sweep_meets_the_certified_box_search_of_three_states(monkeypatch):
    """The histogram of three states on 3 records: the window sweep of several queries (the three
    noisy counts' joint laws on common draws, boxes switched off) gives an interval of ``delta``
    over every adversary meeting the certified box search's bracket; its lower end's adversary has
    its own certified bracket within the interval's width."""
    from dataclasses import replace

    from bdpsim.accounting import sweep

    monkeypatch.setattr(sweep, "STAGE2_DRAWS", 200_000)
    monkeypatch.setattr(sweep, "LOWER_DRAWS", 200_000)
    model = bdpsim.MarkovChainModel(THREE_STATES, n=3)
    mech = bdpsim.HistogramMechanism(1.0, 3)
    boxes = account(model, [mech])
    mc = account(model, [mech])
    mc._plan = replace(mc.plan, boxes=False)
    assert boxes.method == "boxes" and mc.method == "monte carlo"
    eps = 0.3
    cert, got = boxes.delta(eps), mc.delta(eps)
    assert got.kind == "Monte Carlo" and "windows, each by Monte Carlo" in got.note
    assert got.lower <= cert.upper + 1e-12 and cert.lower <= got.upper + 1e-12, (cert, got)
    assert got.width < 0.01
    own = account(model, [mech], adversary=got.adversary).delta(eps)
    assert own.value == pytest.approx(cert.value, abs=got.width + own.width)


def test_several_query_lists_have_an_exact_bdpl_and_a_profile_s_attack(monkeypatch):
    """The histogram of three states on 3 records by the several-query sweep (boxes switched off;
    a coarser grid and fewer draws: wider intervals, still holding): the BDPL is exact at the
    vertices of the count grid (as exact_bdpl); ``tpr_at`` from the profile's bounds meets the box
    search's certified TPR; ``renyi(2)`` lies between 0 and the BDPL."""
    from dataclasses import replace

    from bdpsim.accounting import renyi, sweep

    for name, value in (("STAGE1_DRAWS", 10_000), ("STAGE2_DRAWS", 50_000), ("LOWER_DRAWS", 50_000)):
        monkeypatch.setattr(sweep, name, value)
    monkeypatch.setattr(renyi, "GRID_CELLS", 16)
    monkeypatch.setattr(renyi, "LOWER_CELLS", 32)
    model = bdpsim.MarkovChainModel(THREE_STATES, n=3)
    mech = bdpsim.HistogramMechanism(1.0, 3)
    mc = account(model, [mech])
    mc._plan = replace(mc.plan, boxes=False)
    bdpl = mc.bdpl
    assert bdpl.kind == "exact" and bdpl.value == pytest.approx(
        bdpsim.exact_bdpl(model, mech).bdpl, abs=1e-12
    )
    tpr, cert = mc.tpr_at(0.05), account(model, [mech]).tpr_at(0.05)
    assert tpr.kind == "Monte Carlo" and tpr.lower <= cert.upper + 1e-12 and cert.lower <= tpr.upper + 1e-12
    assert tpr.width < 0.05
    two = mc.renyi(2.0)
    assert two.kind == "Monte Carlo" and 0 < two.lower <= two.upper <= bdpl.value


def stage_one_laws(monkeypatch):
    """Record the laws the several-query sweep measures on its stage-1 draws (few draws: the
    counts, not the numbers, are under test)."""
    from bdpsim.accounting import several, sweep

    for name, value in (("STAGE1_DRAWS", 2_000), ("STAGE2_DRAWS", 5_000), ("LOWER_DRAWS", 3_000)):
        monkeypatch.setattr(sweep, name, value)
    seen: list = []
    measure = several.several_sums

    def recorded(laws, draws, ks):
        if draws.n == sweep.STAGE1_DRAWS:
            seen.extend(laws)
        return measure(laws, draws, ks)

    monkeypatch.setattr(several, "several_sums", recorded)
    return seen


@pytest.mark.parametrize(
    "transition,releases,equal",
    [
        (THREE_STATES, [bdpsim.HistogramMechanism(1.0, 3)], True),
        # a transition of probability zero: pairs of probability zero are counted (an upper end)
        ([[0.5, 0.5, 0.0], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]], [bdpsim.HistogramMechanism(1.0, 3)], False),
        # a count beside a sum of state values: the sums of states 1 and 3 and of 2 and 2 coincide
        (
            [[0.4 if i == j else 0.2 for j in range(4)] for i in range(4)],
            [
                Release(CountQuery((0,)), LaplaceNoise(1.0)),
                Release(StateSumQuery((0.0, 1.0, 2.0, 3.0)), LaplaceNoise(1.5)),
            ],
            False,
        ),
    ],
)
def test_several_query_sweep_cost_counts_the_pairs_and_atoms_the_sweep_measures(
    monkeypatch, transition, releases, equal
):
    """The up-front cost of the several-query sweep (counted before any law is built: the pairs
    the engine's window scan will score, each window's atoms bounded by the query vectors its
    records reach) against the laws the sweep's stage 1 measures on a 4-record chain: the same
    pairs and atoms for a histogram of a chain with every transition possible, at least as many
    otherwise; its work is draws x atoms x releases."""
    from dataclasses import replace

    from bdpsim.accounting.several import sweep_cost

    seen = stage_one_laws(monkeypatch)
    model = bdpsim.MarkovChainModel(transition, n=4)
    mc = account(model, releases)
    mc._plan = replace(mc.plan, boxes=False)
    assert mc.method == "monte carlo"
    cost = sweep_cost(mc.plan, mc.comps, mc._sweep_engine().scan_rows(0), 4)
    mc.delta(0.3)
    atoms = [X.shape[0] for X, _, _ in seen]
    assert len(atoms) > 0 and cost.draws == 2_000 and cost.releases == len(mc.plan.reduced)
    assert cost.work == 2_000 * cost.atoms * cost.releases
    if equal:
        assert (cost.windows, cost.atoms, cost.widest) == (len(atoms), sum(atoms), max(atoms))
    else:
        assert cost.windows >= len(atoms) and cost.atoms >= sum(atoms) and cost.widest >= max(atoms)
        assert cost.atoms <= 3 * sum(atoms)  # an upper end, not a wild one


@pytest.mark.parametrize("states", [3, 4, 5])
def test_window_atoms_count_the_query_vectors_a_window_reaches(states):
    """Per window of ``m`` unknown records beside the target, the atoms of a histogram's pair of
    laws are the count vectors of ``m + 1`` records of which the target is ``x`` or ``x'``
    (enumerated here for every pair ``x, x'``); for a count beside a sum of state values the
    bound is at least the distinct packed sums enumerated."""
    from bdpsim.accounting.pairs import components
    from bdpsim.accounting.several import window_atoms

    n = 12
    hist = components([np.eye(states)[c] for c in range(states)], n)
    mixed = components([np.eye(states)[1], np.arange(states, dtype=float) ** 2], n)
    m = np.arange(6)
    for comps, exact in ((hist, True), (mixed, False)):
        packed = np.asarray(comps.packed, dtype=np.int64)
        want = []
        for k in m:
            counts = []
            for x, xp in itertools.combinations(range(states), 2):
                sums = {
                    int(packed[list(rest) + [t]].sum())
                    for t in (x, xp)
                    for rest in itertools.combinations_with_replacement(range(states), int(k))
                }
                counts.append(len(sums))
            want.append(max(counts))
        got = window_atoms(comps, m)
        if exact:
            assert got.tolist() == want
        else:
            assert np.all(got >= want) and got[0] == want[0] == 2


def test_several_query_sweep_too_large_is_refused_before_any_work(monkeypatch):
    """The histogram of 5 states on 30 records over every adversary (a sweep of about 2e14 draw x
    atom x release products: days) is refused by ``account`` itself, in well under a second of this
    process's CPU, in one line naming the release, the records and states, the estimated time and
    work, the limit and what to do instead; one adversary is not refused. The limit is the
    estimate: a list just above it is refused, one at it is not."""
    import time

    from bdpsim.accounting import several
    from bdpsim.accounting.several import sweep_cost

    five = [[0.6 if i == j else 0.1 for j in range(5)] for i in range(5)]
    model = bdpsim.MarkovChainModel(five, n=30)
    mech = bdpsim.HistogramMechanism(1.0, 5)
    start = time.process_time()
    with pytest.raises(
        NotAvailable,
        match=r"^release 'histogram \+ laplace\(scale = 2\)': the Monte Carlo sweep over every adversary "
        r"of n = 30 records \(5 states\) needs about .* days per delta\(eps\) \(limit 300 s\): 2e\+14 "
        r"draw x atom x release products \(104360 windows of up to 45880 atoms, 40000 draws, 5 noises\), "
        r".* cells of their laws, .* steps of the best windows' exact laws; use fewer records, give "
        r"adversary= \(one adversary\), or use bdpsim run with estimator = 'audit'$",
    ) as err:
        account(model, [mech])
    assert time.process_time() - start < 0.5
    assert "\n" not in str(err.value)
    assert account(model, [mech], adversary=bdpsim.Adversary(1, (0,), (0,), 0, 1)).method == "monte carlo"
    nine = bdpsim.MarkovChainModel(THREE_STATES, n=9)
    three = bdpsim.HistogramMechanism(1.0, 3)
    acc = account(nine, [three])
    seconds = sweep_cost(acc.plan, acc.comps, acc._sweep_engine().scan_rows(0), 9).seconds
    monkeypatch.setattr(several, "MAX_SWEEP_SECONDS", seconds)
    assert account(nine, [three]).method == "monte carlo"
    monkeypatch.setattr(several, "MAX_SWEEP_SECONDS", seconds * (1 - 1e-9))
    with pytest.raises(NotAvailable, match=r"n = 9 records \(3 states\) needs about 21 s per delta\(eps\)"):
        account(nine, [three])


def test_several_query_sweep_cost_counts_the_laws_cells_and_steps():
    """The laws' terms of the sweep's cost on a 3-state histogram of 9 records: each window pair's
    laws span ``(m + 1) D + 1`` packed sums (``D = 100``: the packed values 1, 10, 100), and the
    best windows' adversaries (3, each's two laws twice) get their exact laws over the whole chain,
    ``n (n 100 + 1)`` steps each."""
    from bdpsim.accounting.several import sweep_cost

    acc = account(bdpsim.MarkovChainModel(THREE_STATES, n=9), [bdpsim.HistogramMechanism(1.0, 3)])
    rows = acc._sweep_engine().scan_rows(0)
    assert acc.comps.packed.tolist() == [1, 10, 100]
    cost = sweep_cost(acc.plan, acc.comps, rows, 9)
    assert cost.cells == sum(r * ((m + 1) * 99 + 1) for m, r in enumerate(rows))
    assert cost.law_steps == 12 * 9 * (9 * 100 + 1)


def window_adversaries(model):
    """Every adversary the window search covers on a chain: target ``i``, known records
    ``K = [0, l] + [r, n)`` outside a window ``l < i < r``, every value of them, every pair of
    target values."""
    n, s = model.n, model.states
    for i in range(n):
        for l in range(-1, i):
            for r in range(i + 1, n + 1):
                K = (*range(0, l + 1), *range(r, n))
                for xk in itertools.product(range(s), repeat=len(K)):
                    for x, xp in itertools.combinations(range(s), 2):
                        yield bdpsim.Adversary(i, K, xk, x, xp)


def one_adversary_brackets(model, mech, eps, adversaries):
    out = {}
    for adv in adversaries:
        try:
            out[adv] = account(model, [mech], adversary=adv).delta(eps)
        except NotAvailable:  # a known value of probability zero
            continue
    return out


@pytest.mark.parametrize("n", [3, pytest.param(4, marks=pytest.mark.slow)])
def test_laplace_histogram_of_three_states_over_every_adversary_is_the_largest_one_adversary_bracket(
    monkeypatch, n
):
    """Every adversary the window search covers on a 3-record (slow: 4-record) three-state chain,
    each bracketed alone (box brackets of R^3, a small work budget: wider, still certified): the
    bracket over every adversary starts at the best of their lower ends (the same kept brackets: no
    slack) and ends above every lower end, of every adversary (known sets of any shape); it names a
    window adversary whose own bracket it is."""
    import bdpsim.kernels.privacy.boxes as boxes

    monkeypatch.setattr(boxes, "MAX_WORK", 2e5)
    model = bdpsim.MarkovChainModel(THREE_STATES, n=n)
    mech = bdpsim.HistogramMechanism(1.0, 3)
    every = account(model, [mech]).delta(0.3)
    windows = one_adversary_brackets(model, mech, 0.3, window_adversaries(model))
    others = one_adversary_brackets(
        model,
        mech,
        0.3,
        [
            bdpsim.Adversary(1, (), (), 0, 2),
            bdpsim.Adversary(0, (2,), (1,), 1, 2),
            bdpsim.Adversary(2, (0,), (2,), 0, 1),
        ],
    )
    assert every.kind == "certified bracket" and every.width <= 5e-3
    assert every.lower >= max(v.lower for v in windows.values())
    assert every.upper >= max(v.lower for v in [*windows.values(), *others.values()])
    a = every.adversary
    named = bdpsim.Adversary(a.i, a.known, a.x_known, min(a.x, a.x_prime), max(a.x, a.x_prime))
    assert named in windows  # delta is two-sided: the pair in either order
    own = windows[named]
    assert (own.lower, own.upper) == (every.lower, every.upper)


def test_box_search_of_three_states_scores_every_window_by_an_upper_end(monkeypatch):
    """The window scan's scores of three Laplace releases (:class:`BoxDelta`): every window's score
    is at least its two-sided bracket's upper end at the full tolerance (the pruned ones score a
    coarser upper end, which the refinement only lowers), and the largest score is the upper end of
    a window bracketed to the full tolerance (so the search names a window bracketed finely)."""
    import bdpsim.kernels.privacy.boxes as boxes
    from bdpsim.accounting import boxes as AB

    monkeypatch.setattr(boxes, "MAX_WORK", 2e5)
    seen = []
    score = AB.BoxDelta.__call__

    def recorded(self, W1, W2):
        got = score(self, W1, W2)
        seen.append((self, W1.copy(), W2.copy(), np.abs(got[0])))
        return got

    monkeypatch.setattr(AB.BoxDelta, "__call__", recorded)
    model = bdpsim.MarkovChainModel(THREE_STATES, n=3)
    account(model, [bdpsim.HistogramMechanism(1.0, 3)]).delta(0.3)
    best, best_fine = -1.0, None
    for delta, W1, W2, got in seen:
        atoms = delta.comps.decode(W1.shape[1])[:, delta.cols]
        for r in range(W1.shape[0]):
            if not (W1[r].sum() > 0 and W2[r].sum() > 0):
                continue
            use = (W1[r] > 0) | (W2[r] > 0)
            fine = max(
                boxes.laplace_boxes_hockey(atoms[use], u[use], v[use], 2.0, 0.3).upper
                for u, v in ((W1[r], W2[r]), (W2[r], W1[r]))
            )
            assert got[r] >= fine - 1e-12
            if got[r] > best:
                best, best_fine = got[r], fine
    assert delta.evaluated >= 1 and best == pytest.approx(best_fine, abs=1e-12)


def test_laplace_histogram_of_three_states_advantage_over_every_adversary_holds_the_space_integral(
    monkeypatch,
):
    """The advantage (delta(0)) over every adversary of a 3-record three-state chain holds the
    brute-force maximum: the space integral of the total variation (asked to 1e-3, plus its error
    estimate and 1e-6 for the inner quadratures) of every adversary whose own bracket reaches the
    bracket's lower end (the others are below it: certified)."""
    import bdpsim.kernels.privacy.boxes as boxes

    from ..helpers import laplace_space_hockey

    monkeypatch.setattr(boxes, "MAX_WORK", 2e5)
    model = bdpsim.MarkovChainModel(THREE_STATES, n=3)
    mech = bdpsim.HistogramMechanism(1.0, 3)
    every = account(model, [mech]).advantage
    each = one_adversary_brackets(model, mech, 0.0, window_adversaries(model))
    near = [adv for adv, v in each.items() if v.upper >= every.lower]
    brute, slack, seen = -1.0, 0.0, set()
    for adv in near:
        atoms, p, q = histogram3_pair(model, adv)
        keep = (p > 0) | (q > 0)
        key = (atoms[keep] - atoms[keep].min(axis=0)).tobytes() + np.round(p[keep], 12).tobytes()
        if key in seen:
            continue
        seen.add(key)
        v, err = laplace_space_hockey(atoms[keep], p[keep], q[keep], mech.noise_scale, 0.0, tol=1e-3)
        brute, slack = max(brute, v), max(slack, err + 1e-6)
    assert every.lower - slack <= brute <= every.upper + slack
    assert every.lower >= max(v.lower for v in each.values())


def histogram3_pair(model, adv):
    """The count vectors ``(N_0, N_1, N_2)`` of a three-state chain given ``(x_K, x)`` and
    ``(x_K, x')``, by enumeration of every record tuple: atoms and the two weight vectors."""
    xs, pr = chain_tuples(model)
    n = model.n
    atoms = np.array([(a, c, n - a - c) for a in range(n + 1) for c in range(n + 1 - a)], dtype=float)
    laws = []
    for v in (adv.x, adv.x_prime):
        keep = np.all([xs[:, k] == val for k, val in adv.condition(v).items()], axis=0)
        counts = np.stack([(xs[keep] == s).sum(axis=1) for s in range(3)], axis=1)
        w = np.array([pr[keep][np.all(counts == a, axis=1)].sum() for a in atoms])
        laws.append(w / w.sum())
    return atoms, laws[0], laws[1]


def test_laplace_histogram_of_three_states_one_adversary_brackets_the_space_integral(monkeypatch):
    """One adversary of a 2-record three-state chain: the accountant's joint laws are the count
    vectors enumerated from every record tuple (to 1e-15), its box bracket of R^3 (a small work
    budget: wider, still certified) holds the space integral of the histogram's own output
    densities (asked to 1e-5: its outer error estimate plus 1e-6 for the inner ones, asked to 1e-7
    each; measured: asking 1e-6 moves it by 5e-8), the advantage is delta(0), and the BDPL is
    exact_bdpl's for this adversary to 1e-12."""
    import bdpsim.kernels.privacy.boxes as boxes

    from ..helpers import laplace_space_hockey

    monkeypatch.setattr(boxes, "MAX_WORK", 1e6)
    model = bdpsim.MarkovChainModel(THREE_STATES, n=2)
    mech = bdpsim.HistogramMechanism(1.0, 3)
    adv = bdpsim.Adversary(0, (), (), 0, 2)
    acc = account(model, [mech], adversary=adv)
    assert acc.method == "boxes"
    atoms, p, q = histogram3_pair(model, adv)
    pair = acc.pair(adv)
    got = {tuple(a): (u, v) for a, u, v in zip(pair.atoms, pair.w1, pair.w2)}
    for a, u, v in zip(atoms, p, q):
        assert got.get(tuple(a), (0.0, 0.0)) == pytest.approx((u, v), abs=1e-15)
    keep = (p > 0) | (q > 0)
    want, err = laplace_space_hockey(atoms[keep], p[keep], q[keep], mech.noise_scale, 1.0, tol=1e-5)
    lo, hi = pair.hockey(1.0, True)
    assert lo - err - 1e-6 <= want <= hi + err + 1e-6
    assert hi - lo <= 1e-3
    d = acc.delta(1.0)
    assert d.kind == "certified bracket" and d.upper >= want - err - 1e-6
    assert acc.advantage.lower == acc.delta(0.0).lower and acc.advantage.upper == acc.delta(0.0).upper
    assert acc.bdpl.kind == "exact"
    assert acc.bdpl.value == pytest.approx(bdpsim.exact_bdpl(model, mech, adversary=adv).bdpl, abs=1e-12)


def test_box_bracket_too_large_for_one_adversary_refused_with_its_cost():
    """One adversary of the two-state histogram on 400 records: the first box bracket alone needs
    ~3.9e8 kernel evaluations (401 atoms, 402^2 cells, 6 per atom; limit 4e7): refused in one line naming that
    estimate before any array of that size is made (it allocated gigabytes before)."""
    m = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(2.0), n=400)
    acc = account(m, [bdpsim.HistogramMechanism(1.0, 2)], adversary=bdpsim.Adversary(200, (), (), 0, 1))
    with pytest.raises(
        NotAvailable, match=r"^boxes = '2 Laplace releases of 401 atoms \(161604 cells\)'.*~3\.89e\+08"
    ) as err:
        acc.delta(0.5)
    assert "\n" not in str(err.value)


def test_box_search_of_a_long_chain_is_monte_carlo():
    """Above n = 18 (ATTACK_MAX_N) the accountant searches two Laplace releases over every adversary
    by Monte Carlo (as before the box brackets; with adversary=: the boxes); at n = 18 the boxes.
    (The attack follows the account: tests/attack, the histogram beyond the box brackets.)"""
    edge = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(2.0), n=18)
    assert account(edge, [bdpsim.HistogramMechanism(1.0, 2)]).method == "boxes"
    long = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(2.0), n=19)
    assert account(long, [bdpsim.HistogramMechanism(1.0, 2)]).method == "monte carlo"
    adv = bdpsim.Adversary(9, (0, 18), (0, 0), 0, 1)
    assert account(long, [bdpsim.HistogramMechanism(1.0, 2)], adversary=adv).method == "boxes"


# ----------------------------------------------------------------------------- per-record releases


@dataclass(frozen=True, eq=False)
class RecordValues(AdditiveQuery):
    """``sum_t v[t, X_t]``: an additive query whose values differ by record (an ``(n, states)``
    table; cells past a record's states are never read)."""

    table: tuple
    sensitivity = 2.0

    def per_state(self, states):
        return np.array(self.table, dtype=float)


def _weather(counted=("yes",)):
    """The weather network (Rain, Wind, Cloud, Umbrella: 2, 3, 3, 2 states) and the count of the
    state named ``counted`` as ``bdpsim run`` builds them from a config (Laplace, epsilon 1)."""
    pytest.importorskip("pgmpy")
    from bdpsim.pipeline.config import parse_config

    from ..conftest import TEST_DATA

    doc = {
        "run": {"adversaries": 2, "estimator": "exact", "known_sizes": "all"},
        "model": {"kind": "bayesnet", "bif": str(TEST_DATA / "weather.bif")},
        "mechanism": {"kind": "count", "epsilon": 1.0, "counted_states": list(counted)},
    }
    with pytest.warns(UserWarning, match="not counted"):
        p = parse_config(doc).points[0]
    return p.model.fixed, p.mechanism


def _every_adversary(xs, pr, tables):
    """Every adversary ``(i, K, x_K, x, x')`` of the records ``xs`` (probabilities ``pr``), each with
    the query values of every record tuple (one column per table) and its two laws over the tuples."""
    n = xs.shape[1]
    cards = xs.max(axis=0) + 1
    vals = np.stack([np.asarray(t)[np.arange(n), xs].sum(axis=1) for t in tables], axis=1)
    for i in range(n):
        others = [k for k in range(n) if k != i]
        for size in range(n):
            for K in itertools.combinations(others, size):
                for xk in itertools.product(*[range(cards[k]) for k in K]):
                    keep = np.all(xs[:, list(K)] == xk, axis=1) if K else np.ones(len(xs), bool)
                    for x, xp in itertools.combinations(range(cards[i]), 2):
                        w = [pr * keep * (xs[:, i] == v) for v in (x, xp)]
                        if min(a.sum() for a in w) > 0:
                            adv = bdpsim.Adversary(i, K, tuple(int(v) for v in xk), x, xp)
                            yield adv, vals, w[0] / w[0].sum(), w[1] / w[1].sum()


def _lattice_outputs(vals, w, noises, reach=30):
    """The joint output law of integer query values ``vals`` (tuples x queries) with independent
    lattice noises, on every output within ``reach`` of the values' range."""
    (lo, hi) = vals.min(), vals.max()
    y = np.arange(lo - reach, hi + reach + 1)
    K = [np.exp(z.log_density(y[:, None] - vals[None, :, c])) for c, z in enumerate(noises)]
    return ((K[0] * w) @ K[1].T).ravel()


def _np_tpr_max(p, q, fpr):
    """The most powerful test's TPR at ``fpr`` between two discrete laws, either way round."""
    best = 0.0
    for P, Q in ((p, q), (q, p)):  # false positives under P, true positives under Q
        with np.errstate(divide="ignore", invalid="ignore"):
            order = np.argsort(-np.where(P > 0, Q / P, np.inf), kind="stable")
        cp, cq = np.cumsum(P[order]), np.cumsum(Q[order])
        k = int(np.searchsorted(cp, fpr))
        before_p, before_q = (cp[k - 1], cq[k - 1]) if k else (0.0, 0.0)
        frac = (fpr - before_p) / P[order][k] if P[order][k] > 0 else 0.0
        best = max(best, before_q + frac * Q[order][k])
    return best


@functools.cache
def _weather_two():
    """The count of the state named "yes" (Rain and Umbrella; Wind and Cloud have none: a per-record
    count) and a sum of values given per record and state, each with geometric noise, on the
    four-node weather network: the network, the releases, their account over every adversary, and
    the brute force's adversaries with their joint output laws (every record tuple, every output)."""
    from ..models.test_networks import bn_joint

    net, mech = _weather()
    table = ((0, 2, 0), (0, 1, 2), (1, 0, 0), (0, 1, 0))
    noises = (GeometricNoise(1.2), GeometricNoise(1.5))
    rel = [Release(mech.query_function, noises[0]), Release(RecordValues(table), noises[1])]
    xs, pr = bn_joint(net)
    tables = [r.query_function.per_state(net.states) for r in rel]
    pairs = [
        (adv, _lattice_outputs(v, w1, noises), _lattice_outputs(v, w2, noises))
        for adv, v, w1, w2 in _every_adversary(xs, pr, tables)
    ]
    return net, rel, account(net, rel), pairs


def _sup(pairs, f, known=None):
    return max(f(p, q) for adv, p, q in pairs if known is None or len(adv.known) in known)


def _bdpl(p, q):
    return max(D.max_log_ratio(p, q), D.max_log_ratio(q, p))


def test_two_per_record_releases_on_a_network_equal_brute_force_over_every_adversary():
    """Two per-record releases (:func:`_weather_two`): ``delta(eps)`` and the BDPL over every
    adversary (the region search) equal the brute force's supremum, attained by the adversary named."""
    net, rel, acc, pairs = _weather_two()
    assert len(pairs) == 312 and acc.method == "enumeration"
    for eps in (0.0, 1.0):
        got = acc.delta(eps)
        assert got.value == pytest.approx(_sup(pairs, lambda p, q, e=eps: two_sided(p, q, e)), abs=1e-9)
        p, q = next((p, q) for adv, p, q in pairs if adv == got.adversary)
        assert two_sided(p, q, eps) == pytest.approx(got.value, abs=1e-9)  # it attains it
    bdpl = _sup(pairs, _bdpl)
    assert acc.bdpl.value == pytest.approx(bdpl, abs=1e-9)
    assert bdpl == pytest.approx(6.4788506, abs=1e-6)  # pinned (independent records: 1.2 + 2 * 1.5)


def test_two_per_record_releases_renyi_and_attack_bracket_brute_force_over_every_adversary():
    """Two per-record releases (:func:`_weather_two`): ``renyi(2)`` and ``tpr_at(0.05)`` over every
    adversary bracket the brute force's supremum (the most powerful test of every adversary)."""
    net, rel, acc, pairs = _weather_two()
    r2 = _sup(pairs, lambda p, q: max(D.renyi(p, q, 2.0), D.renyi(q, p, 2.0)))
    got = acc.renyi(2.0)
    assert got.lower - 1e-9 <= r2 <= got.upper + 1e-9
    tpr = _sup(pairs, lambda p, q: _np_tpr_max(p, q, 0.05))
    got = acc.tpr_at(0.05)
    assert got.lower - 1e-9 <= tpr <= got.upper + 1e-9 and got.width < 0.01


def test_two_per_record_releases_epsilon_one_adversary_and_known_set_sizes_equal_brute_force():
    """Two per-record releases (:func:`_weather_two`): ``epsilon(1e-3)`` over every adversary brackets
    the brute force's (bisection on its supremum of ``delta``); known sets of one record (the
    exhaustive search) and one adversary equal the brute force."""
    net, rel, acc, pairs = _weather_two()
    lo, hi = 0.0, _sup(pairs, _bdpl)
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _sup(pairs, lambda p, q, e=mid: two_sided(p, q, e)) > 1e-3 else (lo, mid)
    e = acc.epsilon(1e-3)
    assert e.lower - 1e-6 <= hi <= e.upper + 1e-6
    one = account(net, rel, sizes=[1])
    assert one.delta(0.5).value == pytest.approx(
        _sup(pairs, lambda p, q: two_sided(p, q, 0.5), {1}), abs=1e-9
    )
    adv, p, q = pairs[100]
    mine = account(net, rel, adversary=adv)
    assert mine.delta(0.5).value == pytest.approx(two_sided(p, q, 0.5), abs=1e-9)
    assert mine.bdpl.value == pytest.approx(_bdpl(p, q), abs=1e-9)


def test_a_per_record_count_on_a_network_is_the_engine_s_exact_bdpl_and_profile():
    """One Laplace count of a state name at different indices (the config's mechanism, as
    ``bdpsim run`` builds it): the accountant's BDPL over every adversary is ``exact_bdpl``'s and
    its ``delta(eps)`` the engine's own profile search; with an ordinary count beside it (two
    Laplace releases of one scale: box brackets) every ask answers."""
    from bdpsim.kernels.noise.scores import ProfileScore
    from bdpsim.models.bayesnet.states import RecordCountQuery
    from bdpsim.models.engines import engine_for

    net, mech = _weather()
    assert isinstance(mech.query_function, RecordCountQuery)
    acc = account(net, [mech])
    assert acc.flat[0].label == "per-record count of 1 + laplace(scale = 1)"
    b = acc.bdpl
    assert b.kind == "exact" and b.value == pytest.approx(bdpsim.exact_bdpl(net, mech).bdpl, abs=1e-12)
    assert b.value == pytest.approx(1.7073059307, abs=1e-9)  # pinned
    engine = engine_for(net, mech)
    for eps in (0.0, 0.5, 1.0):
        assert acc.delta(eps).value == pytest.approx(
            float(engine.search(ProfileScore(eps)).value[0]), abs=1e-12
        )
    one = bdpsim.Adversary(0, (3,), (1,), 0, 1)
    assert account(net, [mech], adversary=one).bdpl.value == pytest.approx(
        bdpsim.exact_bdpl(net, mech, one).bdpl, abs=1e-12
    )


def test_a_per_record_count_on_a_random_field_equals_brute_force_over_every_adversary():
    """A Potts random field of 2, 3, 4 and 2 states counting a different state on each record: the
    accountant's BDPL over every adversary is the brute force's (every joint state, known set and
    target pair), and its profile the engine's."""
    from bdpsim.kernels.noise.scores import ProfileScore
    from bdpsim.models.bayesnet.states import RecordCountQuery
    from bdpsim.models.engines import engine_for
    from bdpsim.models.mrf import MRFModel

    from ..models.test_networks import MRFS, _field_rows, brute_all_adversaries, potts_joint

    spec = MRFS[2]
    mrf = MRFModel(**spec)
    query = RecordCountQuery((0, 1, 2, 3), ((1,), (2,), (3,), (0,)))
    rel = Release(query, LaplaceNoise(1.0))
    cards = spec["states"]
    xs, pr = potts_joint(cards, spec["edges"], spec["coupling"], _field_rows(spec, cards))
    g = [np.eye(s, dtype=int)[c] for s, c in zip(cards, (1, 2, 3, 0))]
    acc = account(mrf, [rel])
    assert acc.bdpl.value == pytest.approx(brute_all_adversaries(xs, pr, g, 1.0), abs=1e-9)
    engine = engine_for(mrf, rel)
    assert acc.delta(0.5).value == pytest.approx(float(engine.search(ProfileScore(0.5)).value[0]), abs=1e-12)


def test_a_per_record_query_on_a_chain_is_refused_naming_the_release():
    """A Markov chain's laws take one value per state: a per-record table is refused in one line
    naming the release and the models that take it (was: a traceback)."""
    from bdpsim.models.bayesnet.states import RecordCountQuery

    rel = Release(RecordCountQuery((1,), ((1,), (), (1,), ())), LaplaceNoise(1.0))
    with pytest.raises(
        NotAvailable, match=r"release 'per-record count of 1 \+ laplace\(scale = 1\)'.*bayesnet"
    ):
        account(CHAIN2, [rel])


def test_a_per_record_table_of_the_wrong_shape_is_refused_naming_the_release():
    """A table of 3 rows on a random field of 4 records: one line naming the release and the shapes
    the accountant takes (not an error deep in the model's laws)."""
    from bdpsim.models.mrf import MRFModel

    from ..models.test_networks import MRFS

    rel = Release(RecordValues(((0, 1, 0, 0),) * 3), LaplaceNoise(1.0))
    with pytest.raises(NotAvailable, match=r"release 'sum of RecordValues .*shape \(3, 4\).*\(4, 4\)"):
        account(MRFModel(**MRFS[2]), [rel])


def test_a_monte_carlo_list_with_known_set_sizes_the_search_does_not_take_is_refused():
    """Two Laplace counts of two scales (Monte Carlo) over every adversary with sizes = [1]: one line
    naming the releases and what to give (was: ValueError ('proxy', 0.5) and, for the BDPL, 'needs a
    chain or a network' on a network)."""
    from bdpsim.models.bayesnet.model import BayesNetModel

    hmm = BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.85, 0.15], [0.25, 0.75]], 3)
    acc = account(hmm, [Release(CountQuery((1,)), LaplaceNoise(s)) for s in (1.0, 2.0)], sizes=[1])
    for ask in (lambda: acc.delta(0.5), lambda: acc.bdpl, lambda: acc.tpr_at(0.05)):
        with pytest.raises(
            NotAvailable,
            match=r"releases count of 1 \+ laplace.*known-set sizes \[1\]; give sizes = 'all' or adversary=",
        ):
            ask()
