"""Exact temporal leakage (bdpsim.temporal.exact) against an independent brute force.

The brute force enumerates every state path and every output sequence (of the mechanism's
extreme outputs, or of every vertex of the per-step likelihood box for ``any``) and evaluates the
defining ratios ``P(r | x_t = a, x_K) / P(r | x_t = b, x_K)`` as sums over paths: it shares no
recursion with the engine.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.kernels.argcheck import TooExpensive
from bdpsim.kernels.chains.transition import stationary_distribution
from bdpsim.temporal.exact import extreme_indices, temporal_exact
from bdpsim.temporal.mechanisms import step_release


def random_chain(k: int, rng, sticky: float = 0.0) -> np.ndarray:
    P = rng.dirichlet(np.ones(k), size=k)
    if sticky:
        P = (1 - sticky) * P + sticky * np.eye(k)
    return P


def _window_leak(paths, prob, L, window, t, known, k, m):
    """max over known values, pairs (a, b) of X_t and outputs on the steps of ``window`` of
    ln P(outputs | known, X_t = a) - ln P(outputs | known, X_t = b), by enumeration."""
    best = -math.inf
    seqs = np.array(list(itertools.product(range(m), repeat=len(window))))
    # like[path, seq] = prod over the window's steps of L[r_s, x_s]; known steps contribute 1
    like = np.ones((len(paths), len(seqs)))
    for j, s in enumerate(window):
        if s + 1 in known:
            continue
        like *= L[seqs[:, j]][:, paths[:, s]].T
    kn = [s - 1 for s in sorted(known)]
    for cvals in itertools.product(range(k), repeat=len(kn)):
        sel = np.all(paths[:, kn] == np.array(cvals, dtype=int), axis=1) if kn else np.ones(len(paths), bool)
        cond = {}
        for a in range(k):
            rows = sel & (paths[:, t] == a)
            w = prob[rows]
            if w.sum() <= 0:
                continue
            cond[a] = (w @ like[rows]) / w.sum()
        for a, b in itertools.permutations(cond, 2):
            best = max(best, float(np.max(np.log(cond[a]) - np.log(cond[b]))))
    return best


def brute(P, pi1, L, T, known=()):
    """(bpl, fpl, tpl) per t by enumeration; L: (m, k) likelihoods of every step's outputs."""
    k = P.shape[0]
    m = L.shape[0]
    paths = np.array(list(itertools.product(range(k), repeat=T)))  # (N, T)
    prob = pi1[paths[:, 0]].copy()
    for s in range(1, T):
        prob *= P[paths[:, s - 1], paths[:, s]]
    out = {"bpl": [], "fpl": [], "tpl": []}
    for t in range(T):
        if t + 1 in known:
            for key in out:
                out[key].append(math.nan)
            continue
        best = {key: -math.inf for key in out}
        for key, window in (("bpl", range(0, t + 1)), ("fpl", range(t, T)), ("tpl", range(T))):
            best[key] = _window_leak(paths, prob, L, list(window), t, known, k, m)
        for key in out:
            out[key].append(best[key])
    return {key: np.array(v) for key, v in out.items()}


CASES = [
    (k, T, eps, sticky, seed)
    for (k, T) in ((2, 6), (3, 5), (4, 4))
    for eps in (0.3, 1.0, 2.5)
    for sticky, seed in ((0.0, 1), (0.8, 2))
]


@pytest.mark.parametrize("k,T,eps,sticky,seed", CASES)
def test_krr_equals_brute_force(k, T, eps, sticky, seed):
    rng = np.random.default_rng(seed * 100 + k)
    P = random_chain(k, rng, sticky)
    pi1 = stationary_distribution(P)
    res = temporal_exact(P, eps, T, "krr")
    ref = brute(P, pi1, step_release("krr", k, eps).likelihoods, T)
    for key in ("bpl", "fpl", "tpl"):
        np.testing.assert_allclose(getattr(res, key), ref[key], rtol=0, atol=1e-10, err_msg=key)
        np.testing.assert_array_equal(getattr(res, key), getattr(res, key + "_high"))
    assert res.exact


@pytest.mark.parametrize("k,T,eps,seed", [(2, 5, 1.0, 3), (3, 4, 0.7, 4), (3, 4, 1.5, 5)])
def test_any_equals_box_vertices_brute_force(k, T, eps, seed):
    rng = np.random.default_rng(seed)
    P = random_chain(k, rng, 0.3)
    pi1 = rng.dirichlet(np.ones(k))
    verts = np.array(
        [[math.exp(eps) if b else 1.0 for b in bits] for bits in itertools.product((0, 1), repeat=k)]
    )  # all 2^k vertices
    res = temporal_exact(P, eps, T, "any", initial=pi1)
    ref = brute(P, pi1, verts, T)
    for key in ("bpl", "fpl", "tpl"):
        np.testing.assert_allclose(getattr(res, key), ref[key], atol=1e-10, err_msg=key)


@pytest.mark.parametrize("known", [(2,), (1, 4), (3,)])
def test_known_set_equals_brute_force(known):
    rng = np.random.default_rng(7)
    P = random_chain(3, rng, 0.5)
    pi1 = stationary_distribution(P)
    res = temporal_exact(P, 1.0, 5, "krr", known=known)
    ref = brute(P, pi1, step_release("krr", 3, 1.0).likelihoods, 5, known=set(known))
    for key in ("bpl", "fpl", "tpl"):
        np.testing.assert_allclose(getattr(res, key), ref[key], atol=1e-10, err_msg=key)


def test_per_step_transitions_and_epsilons_equal_brute_force():
    rng = np.random.default_rng(11)
    k, T = 3, 4
    mats = [random_chain(k, rng) for _ in range(T - 1)]
    eps = [0.5, 1.0, 2.0, 0.8]
    pi1 = rng.dirichlet(np.ones(k))
    res = temporal_exact(mats, eps, T, "krr", initial=pi1)
    # brute force with per-step matrices and epsilons: enumerate directly
    paths = np.array(list(itertools.product(range(k), repeat=T)))
    prob = pi1[paths[:, 0]].copy()
    for s in range(1, T):
        prob *= mats[s - 1][paths[:, s - 1], paths[:, s]]
    Ls = [step_release("krr", k, e).likelihoods for e in eps]
    seqs = np.array(list(itertools.product(range(k), repeat=T)))
    like = np.ones((len(paths), len(seqs)))
    for s in range(T):
        like *= Ls[s][seqs[:, s]][:, paths[:, s]].T
    for t in range(T):
        cond = [
            (prob[paths[:, t] == a] @ like[paths[:, t] == a]) / prob[paths[:, t] == a].sum() for a in range(k)
        ]
        tpl = max(
            float(np.max(np.log(cond[a]) - np.log(cond[b]))) for a, b in itertools.permutations(range(k), 2)
        )
        assert abs(res.tpl[t] - tpl) < 1e-10


def test_independent_records_leak_epsilon():
    P = np.full((3, 3), 1 / 3)
    res = temporal_exact(P, 0.9, 8, "krr")
    np.testing.assert_allclose(res.bpl, 0.9, atol=1e-12)
    np.testing.assert_allclose(res.fpl, 0.9, atol=1e-12)
    np.testing.assert_allclose(res.tpl, 0.9, atol=1e-12)


def test_leakage_is_monotone_and_below_group_privacy():
    rng = np.random.default_rng(5)
    P = random_chain(3, rng, 0.6)
    res = temporal_exact(P, 1.0, 12, "any")
    assert np.all(np.diff(res.bpl) >= -1e-12)  # more past releases never leak less
    assert np.all(res.tpl <= 12 * 1.0 + 1e-12)  # group privacy: T eps
    assert np.all(res.tpl >= 1.0 - 1e-12)


def test_witness_attains_tpl():
    rng = np.random.default_rng(9)
    k, T, eps = 3, 5, 1.0
    P = random_chain(k, rng, 0.4)
    pi1 = stationary_distribution(P)
    res = temporal_exact(P, eps, T, "krr")
    L = step_release("krr", k, eps).likelihoods
    paths = np.array(list(itertools.product(range(k), repeat=T)))
    prob = pi1[paths[:, 0]].copy()
    for s in range(1, T):
        prob *= P[paths[:, s - 1], paths[:, s]]
    for t in range(1, T + 1):
        r = [int(lab.split("=")[1]) for lab in res.witness(t)]
        a, b = res.pair[t - 1]
        like = np.prod(L[r][np.arange(T)[None, :], paths], axis=1)
        pa = prob[paths[:, t - 1] == a] @ like[paths[:, t - 1] == a] / prob[paths[:, t - 1] == a].sum()
        pb = prob[paths[:, t - 1] == b] @ like[paths[:, t - 1] == b] / prob[paths[:, t - 1] == b].sum()
        assert abs(math.log(pa / pb) - res.tpl[t - 1]) < 1e-10


def test_histogram_noise_is_the_any_cone():
    # a histogram release's likelihood directions: sampled outputs lie inside the box of ratio e^eps
    from bdpsim.kernels.noise.laws import noise_from_params

    rng = np.random.default_rng(0)
    eps, k = 1.2, 3
    for law in ("laplace", "geometric", "staircase"):
        noise = noise_from_params(law, epsilon=eps / 2, sensitivity=1.0)
        z = noise.sample((2000, k), rng)
        for x in range(k):
            r = np.eye(k)[x] + z
            logl = np.array([np.sum(noise.log_density(r - np.eye(k)[y]), axis=1) for y in range(k)]).T
            spread = logl.max(axis=1) - logl.min(axis=1)
            assert np.all(spread <= eps + 1e-9)
        res_h = temporal_exact(random_chain(k, np.random.default_rng(1)), eps, 4, law)
        res_a = temporal_exact(random_chain(k, np.random.default_rng(1)), eps, 4, "any")
        np.testing.assert_allclose(res_h.tpl, res_a.tpl, atol=1e-12)


def test_value_noise_outputs_at_values_are_extreme():
    # Laplace on a per-state value: a dense grid of outputs gives no larger leakage than r = v_j
    k, T, eps = 3, 3, 1.0
    values = [0.0, 1.0, 3.0]
    P = random_chain(k, np.random.default_rng(2), 0.3)
    pi1 = stationary_distribution(P)
    res = temporal_exact(P, eps, T, "laplace", values=values)
    b = 3.0 / eps
    grid = np.linspace(-2, 5, 15)
    Lgrid = np.exp(-np.abs(grid[:, None] - np.array(values)[None, :]) / b)
    ref = brute(P, pi1, Lgrid, T)
    assert np.all(ref["tpl"] <= res.tpl + 1e-10)
    np.testing.assert_allclose(
        res.tpl,
        brute(P, pi1, np.exp(-np.abs(np.array(values)[:, None] - np.array(values)[None, :]) / b), T)["tpl"],
        atol=1e-10,
    )


def test_extreme_indices_keep_every_vertex():
    rng = np.random.default_rng(3)
    Y = rng.dirichlet(np.ones(3), size=200)
    hull = set(extreme_indices(Y).tolist())
    # a point is extreme iff some direction maximises uniquely there; check with random directions
    for _ in range(500):
        w = rng.normal(size=3)
        assert int(np.argmax(Y @ w)) in hull


def test_interval_holds_when_the_hull_is_capped():
    rng = np.random.default_rng(4)
    P = random_chain(3, rng, 0.2)
    full = temporal_exact(P, 1.0, 8, "krr")
    capped = temporal_exact(P, 1.0, 8, "krr", max_points=3)
    assert not capped.exact
    assert np.all(capped.tpl <= full.tpl + 1e-10)
    assert np.all(capped.tpl_high >= full.tpl - 1e-10)
    assert np.all(capped.bpl_high >= full.bpl - 1e-10)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        (dict(transition=[[0.5, 0.6], [0.5, 0.5]]), "transition"),
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=-1.0), "epsilon"),
        (dict(steps=0), "steps"),
        (dict(epsilon=[1.0, 1.0]), "epsilon"),
        (dict(known=[7]), "known"),
        (dict(known=[0]), "known"),
        (dict(mechanism="gaussian"), "mechanism"),
        (dict(initial=[0.5, 0.6]), "initial"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, field):
    args = dict(transition=[[0.9, 0.1], [0.2, 0.8]], epsilon=1.0, steps=5, mechanism="krr")
    args.update(kwargs)
    with pytest.raises(ConfigError) as info:  # the chain and its releases: one value, one error type
        temporal_exact(**args)
    assert str(info.value).split(" = ")[0].endswith(field) or str(info.value).startswith(field)


def test_too_expensive_is_refused_up_front():
    with pytest.raises(TooExpensive):
        temporal_exact(np.full((5, 5), 0.2), 1.0, 100000, "any", max_work=1e6)


@pytest.mark.parametrize("k,seed", [(2, 0), (2, 1), (3, 2), (3, 3), (4, 4)])
def test_exact_never_above_cao(k, seed):
    from bdpsim.temporal import cao_leakage

    rng = np.random.default_rng(seed)
    P = random_chain(k, rng, 0.3 * (seed % 2))
    for eps in (0.4, 1.0, 2.0):
        ex = temporal_exact(P, eps, 9, "any")
        cao = cao_leakage(P, eps, 9)
        for key in ("bpl", "fpl", "tpl"):
            assert np.all(getattr(ex, key) <= getattr(cao, key) + 1e-9), key
        # any eps-DP step contains k-RR: k-RR leaks no more than 'any'
        assert np.all(temporal_exact(P, eps, 9, "krr").tpl <= ex.tpl + 1e-10)


@pytest.mark.parametrize("p,eps", [(0.9, 1.0), (0.7, 0.3), (0.55, 2.0), (0.2, 1.0)])
def test_exact_equals_cao_on_symmetric_two_state_chains(p, eps):
    from bdpsim.temporal import cao_leakage

    P = [[p, 1 - p], [1 - p, p]]
    ex = temporal_exact(P, eps, 12, "any")
    cao = cao_leakage(P, eps, 12)
    for key in ("bpl", "fpl", "tpl"):
        np.testing.assert_allclose(getattr(ex, key), getattr(cao, key), atol=1e-9, err_msg=key)


@pytest.mark.parametrize("seed", range(6))
def test_exact_equals_cao_on_positively_correlated_two_state_chains(seed):
    from bdpsim.temporal import cao_leakage

    rng = np.random.default_rng(seed)
    hi, lo = sorted(rng.uniform(0.02, 0.98, size=2), reverse=True)
    P = [[hi, 1 - hi], [lo, 1 - lo]]  # P(0 -> 0) >= P(1 -> 0): positively correlated
    for eps in (0.5, 1.5):
        ex = temporal_exact(P, eps, 10, "any")
        cao = cao_leakage(P, eps, 10)
        np.testing.assert_allclose(ex.tpl, cao.tpl, atol=1e-9)
    ex = temporal_exact([[0.882, 0.118], [0.305, 0.695]], 1.0, 30, "any")  # the paper's activity chain
    np.testing.assert_allclose(ex.tpl, cao_leakage([[0.882, 0.118], [0.305, 0.695]], 1.0, 30).tpl, atol=1e-9)


def test_cao_is_above_exact_on_a_negatively_correlated_asymmetric_two_state_chain():
    # Cao's recursion bounds the past log ratio by +-BPL_{t-1} in both directions; the reachable
    # range is [lo, hi] with lo != -hi on an asymmetric chain, and a negatively correlated chain
    # maps the low end to the next step's high end: from t = 3 on the bound is strictly above
    # (the brute force above confirms the exact value); at t = 2 the two coincide
    from bdpsim.temporal import cao_leakage

    P = [[0.3, 0.7], [0.9, 0.1]]
    ex = temporal_exact(P, 1.0, 6, "any")
    cao = cao_leakage(P, 1.0, 6)
    assert abs(ex.bpl[1] - cao.bpl[1]) < 1e-9
    assert np.all(cao.bpl[2:] > ex.bpl[2:] + 1e-3)


def test_exact_never_above_cao_with_per_step_chains_and_budgets():
    from bdpsim.temporal import cao_leakage

    rng = np.random.default_rng(12)
    mats = [random_chain(3, rng, 0.4) for _ in range(7)]
    eps = rng.uniform(0.2, 2.0, size=8)
    pi1 = rng.dirichlet(np.ones(3))
    ex = temporal_exact(mats, eps, 8, "any", initial=pi1)
    cao = cao_leakage(np.array(mats), eps, 8, initial=pi1)
    for key in ("bpl", "fpl", "tpl"):
        assert np.all(getattr(ex, key) <= getattr(cao, key) + 1e-9), key


@pytest.mark.parametrize(
    "P,pi1",
    [
        ([[1.0, 0.0], [0.4, 0.6]], [0.0, 1.0]),  # state 0 unreachable at t = 1, absorbing later
        ([[0.0, 1.0], [0.7, 0.3]], [0.5, 0.5]),
        ([[0.6, 0.4, 0.0], [0.0, 0.5, 0.5], [0.3, 0.0, 0.7]], [1.0, 0.0, 0.0]),
    ],
)
def test_chains_with_zeros_equal_brute_force(P, pi1):
    P, pi1 = np.array(P), np.array(pi1)
    k, T = P.shape[0], 5
    res = temporal_exact(P, 1.0, T, "krr", initial=pi1)
    ref = brute(P, pi1, step_release("krr", k, 1.0).likelihoods, T)
    for key in ("bpl", "fpl", "tpl"):
        got, want = getattr(res, key), ref[key]
        want = np.where(np.isinf(want), np.nan, want)  # no pair of positive probability: nan
        np.testing.assert_allclose(got, want, atol=1e-10, err_msg=key)


def test_allocation_against_the_exact_tpl():
    from bdpsim.temporal.allocate import allocate

    P = random_chain(3, np.random.default_rng(21), 0.2)
    a = allocate(1.5, P, 12, "any")
    worst = lambda e: float(np.nanmax(temporal_exact(P, e, 12, "any").tpl))
    assert worst(a.exact_constant) <= 1.5 + 1e-9 < worst(a.exact_constant * (1 + 1e-5))
    assert a.cao_constant is not None and a.cao_constant <= a.exact_constant + 1e-9  # exact <= Cao
    sched = [a.exact_end] + [a.exact_middle] * 10 + [a.exact_end]
    assert worst(sched) <= 1.5 + 1e-9 and a.exact_end >= a.exact_middle


def test_allocation_checks_the_chain_once(monkeypatch):
    """The budget search computes the exact TPL some 50 times; the chain is checked once."""
    import bdpsim.temporal.chain as C
    import bdpsim.temporal.exact as G
    from bdpsim.temporal.allocate import allocate

    calls = []
    check = C._transitions
    monkeypatch.setattr(C, "_transitions", lambda *a: calls.append(1) or check(*a))
    runs = []
    engine = G.engine_of
    monkeypatch.setattr(G, "engine_of", lambda *a, **k: runs.append(1) or engine(*a, **k))
    allocate(1.5, [[0.8, 0.2], [0.3, 0.7]], 6, "krr")
    assert len(calls) == 1 and len(runs) > 20


@pytest.mark.parametrize(
    "P,known,T",
    [
        ([[0.0, 1.0], [1.0, 0.0]], (1,), 3),  # x_1 fixes every x_t
        ([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.0]], (3,), 5),  # 0 and 1 share no successor
        ([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.0]], (2, 4), 5),
        ([[0.6, 0.4, 0.0], [0.0, 0.5, 0.5], [0.3, 0.0, 0.7]], (1, 5), 5),
    ],
)
def test_known_steps_on_chains_with_zeros_equal_brute_force(P, known, T):
    # a pair counts only where both values are possible given known values on each side: the past
    # leakage at t needs a known later value compatible with both, the future one a known earlier
    P = np.array(P)
    k = P.shape[0]
    pi1 = np.full(k, 1.0 / k)
    res = temporal_exact(P, 1.0, T, "krr", initial=pi1, known=known)
    ref = brute(P, pi1, step_release("krr", k, 1.0).likelihoods, T, known=set(known))
    for key in ("bpl", "fpl", "tpl"):
        want = np.where(np.isinf(ref[key]), np.nan, ref[key])
        np.testing.assert_allclose(getattr(res, key), want, atol=1e-10, err_msg=key)
