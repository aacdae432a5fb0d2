"""The privacy accountant (bdpsim.accounting) against brute force over every record tuple and every
output sequence, the exhaustive search over every known set, and the closed forms."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import bdpsim
from bdpsim.accounting import HistogramRelease, LocalRelease, Release, account
from bdpsim.core.errors import ConfigError, NotAvailable
from bdpsim.kernels.noise.laws import GaussianNoise, GeometricNoise, LaplaceNoise
from bdpsim.kernels.privacy import divergences as D
from bdpsim.kernels.privacy import gaussian as G
from bdpsim.queries import CountQuery, StateSumQuery, SumQuery


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
        vals = [r.query.per_state(model.states)[X].sum(axis=1) for r in releases]
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
    Gaussian and Monte Carlo-free lists); with no finite eps (a tiny Laplace scale) it is ``inf`` with
    the adversary still past the largest eps of a profile (before: the doubling asked delta(128) and
    the noise law refused it)."""
    acc = account(CHAIN2, [Release(CountQuery((1,)), GaussianNoise(1.0))] * 2)
    v = acc.epsilon(0.05)
    assert v.adversary is not None and v.adversary == acc.delta(v.upper).adversary
    assert acc.delta(v.upper).upper <= 0.05 < acc.delta(max(v.lower - 1e-3, 0.0)).upper
    tiny = account(CHAIN2, [Release(CountQuery((1,)), LaplaceNoise(0.002))])
    w = tiny.epsilon(0.01)
    assert math.isinf(w.value) and w.adversary == tiny.delta(100.0).adversary
    assert tiny.delta(100.0).value > 0.01


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


def _laplace_2d_delta(A, B, b, eps, h=0.05, reach=30.0):
    """``max(H_eps(P||Q), H_eps(Q||P))`` of two releases ``S + Z_1``, ``S + Z_2`` (Laplace scales
    ``b = (b_1, b_2)``) of a count of law ``A`` / ``B`` on ``0..len-1``, by the midpoint rule on a
    square grid (the mass beyond ``reach`` is below 1e-5 for scales ``<= 2.5``), for one ``eps`` or
    a tuple of them."""
    y = np.arange(-reach, len(A) + reach, h) + h / 2
    K1, K2 = (np.exp(-np.abs(y[:, None] - np.arange(len(A))[None, :]) / s) * (h / (2 * s)) for s in b)
    P, Q = (K1 * A) @ K2.T, (K1 * B) @ K2.T
    out = []
    for e in np.atleast_1d(eps):
        k = math.exp(e)
        out.append(max(np.maximum(P - k * Q, 0).sum(), np.maximum(Q - k * P, 0).sum()))
    return out[0] if np.ndim(eps) == 0 else out


_BRUTE: dict = {}


def _brute_supremum(model, b, eps):
    """The supremum over every adversary of ``delta(eps)`` (one ``eps`` or a tuple) of two Laplace
    releases of the count of state 1 (scales ``b``): every target, known set and known values of
    the chain, each distinct pair integrated on a grid (:func:`_laplace_2d_delta`, error below
    1e-4)."""
    key = (id(model), tuple(b), tuple(np.atleast_1d(eps)))
    if key in _BRUTE:
        return _BRUTE[key]
    xs, pr = chain_tuples(model)
    worst = np.zeros(np.atleast_1d(eps).size)
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
                    got = _laplace_2d_delta(
                        np.array(laws[0]), np.array(laws[1]), b, tuple(np.atleast_1d(eps))
                    )
                    worst = np.maximum(worst, got)
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


def test_laplace_histogram_of_three_states_over_every_adversary_is_refused_naming_what_to_use():
    """Over every adversary the three noisy counts are refused before any work, naming the records,
    the estimated cost of a box search and what to use; one adversary takes the boxes of R^3 up to
    n = THREE_STATE_MAX_N records, Monte Carlo beyond."""
    from bdpsim.mechanisms.histogram import THREE_STATE_MAX_N

    three = bdpsim.MarkovChainModel(THREE_STATES, n=4)
    with pytest.raises(
        NotAvailable,
        match=r"^release 'histogram \+ laplace\(scale = 2\)': the histogram of 3 states has no joint "
        r"law over every adversary here on n = 4 records .*about 64 windows, each two box brackets of "
        r"R\^3 .*give adversary= \(certified box brackets up to n = 10, Monte Carlo beyond\)",
    ):
        account(three, [bdpsim.HistogramMechanism(1.0, 3)])
    adv = bdpsim.Adversary(1, (0,), (0,), 0, 1)
    assert account(three, [bdpsim.HistogramMechanism(1.0, 3)], adversary=adv).method == "boxes"
    longer = bdpsim.MarkovChainModel(THREE_STATES, n=THREE_STATE_MAX_N + 1)
    assert account(longer, [bdpsim.HistogramMechanism(1.0, 3)], adversary=adv).method == "monte carlo"


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


def test_box_search_of_a_long_chain_is_monte_carlo_and_its_attack_refused_with_its_cost():
    """Above n = 18 (ATTACK_MAX_N) the accountant searches two Laplace releases over every adversary
    by Monte Carlo (as before the box brackets; with adversary=: the boxes), and the attack over
    every adversary is refused before any work with its estimated cost; at n = 18 the boxes."""
    edge = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(2.0), n=18)
    assert account(edge, [bdpsim.HistogramMechanism(1.0, 2)]).method == "boxes"
    long = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(2.0), n=19)
    assert account(long, [bdpsim.HistogramMechanism(1.0, 2)]).method == "monte carlo"
    adv = bdpsim.Adversary(9, (0, 18), (0, 0), 0, 1)
    assert account(long, [bdpsim.HistogramMechanism(1.0, 2)], adversary=adv).method == "boxes"
    with pytest.raises(NotAvailable, match=r"on n = 19 records: .*about 1444 windows.*limit n <= 18"):
        bdpsim.attack_risk(long, bdpsim.HistogramMechanism(1.0, 2))
