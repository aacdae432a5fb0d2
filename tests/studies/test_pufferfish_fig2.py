"""Pufferfish paper Fig. 2 (bdpsim.pufferfish_fig2) and the exact histogram sup kernel
(bdpsim.kernels.chains.histogram_sup)."""

import itertools
import math

import numpy as np
import pytest

from bdpsim.calibration.quilt.chain import mqm_approx_search
from bdpsim.kernels.chains.histogram_sup import (
    chain_histogram_bdpl,
    histogram_sup,
    lattice_sup,
    vertex_log_density,
    window_laws,
)
from bdpsim.kernels.noise.laplace_mixture import mixture_sup
from bdpsim.studies import pufferfish_fig2 as PF

TINY = {
    "runs": 3,
    "epsilons": [0.5, 2.0],
    "exact_T": [2, 3],
    "panels": {
        "a": {"vary": "pi_est", "values": [0.02, 0.05], "fixed": {"g_est": 0.1, "T": 300}},
        "b": {"vary": "g_est", "values": [0.05, 0.1], "fixed": {"pi_est": 0.05, "T": 300}},
        "c": {"vary": "T", "values": [200, 300], "fixed": {"pi_est": 0.05, "g_est": 0.1}},
    },
    "audit": {
        "T": 300,
        "small_T": 3,
        "epsilons": [2.0],
        "budget": 20_000,
        "small_budget": 20_000,
        "adversaries": 2,
        "window_n": 3,
    },
}


# ------------------------------------------------------------------------------ the chain


@pytest.mark.parametrize("seed", [0, 1, 2, 3, PF.SEED])
def test_generated_chain_meets_the_papers_constraints(seed):
    rng = np.random.default_rng(seed)
    P, q, tries = PF.generate_chain(rng, 5, 0.05, 0.1)
    pi = PF.stationary(P)
    assert P.shape == (5, 5) and np.allclose(P.sum(axis=1), 1) and (P > 0).all()  # irreducible
    assert (np.diag(P) > 0).all()  # aperiodic
    flow = pi[:, None] * P
    assert np.abs(flow - flow.T).max() < 1e-14  # reversible
    assert np.allclose(pi @ P, pi) and pi.min() >= 0.05 - 1e-12  # pi_min >= pi_gen
    ev = np.sort(np.abs(np.linalg.eigvals(P)))[::-1]
    assert ev[0] == pytest.approx(1) and 1 - ev[1] >= 0.1 and PF.eigengap(P) == pytest.approx(1 - ev[1])
    assert (1 - ev[1] ** 2) / 2 >= 0.1  # run_realData.m's gap
    assert q.shape == (5,) and q.min() > 0 and q.sum() == pytest.approx(1)


def test_tight_generation_constraints_and_sampling():
    rng = np.random.default_rng(5)
    P, q, _ = PF.generate_chain(rng, 5, 0.19, 0.3)
    assert PF.stationary(P).min() >= 0.19 - 1e-12 and PF.eigengap(P) >= 0.3
    x = PF.sample_chain(rng, P, q, 200_000)
    assert x.min() >= 0 and x.max() <= 4
    trans = np.zeros((5, 5))
    np.add.at(trans, (x[:-1], x[1:]), 1)
    assert np.abs(trans / trans.sum(axis=1, keepdims=True) - P).max() < 0.01
    assert np.abs(PF.frequencies(x, 5) - PF.stationary(P)).max() < 0.01
    with pytest.raises(ValueError):
        PF.generate_chain(rng, 5, 0.2, 0.1)


# ------------------------------------------------------------------------------ the mechanism


def _basic_mqm(pi, g, eps, T):
    """Algorithms 1-2 of the paper's App. B.1 with Lemma 4.7's bound, every node and quilt."""

    def infl(t):
        D = np.exp(-g * t) / pi
        return np.where(D < 1, np.log((1 + D) / np.where(D < 1, 1 - D, 1.0)), np.inf)

    best = 0.0
    for i in range(1, T + 1):
        a = np.arange(1, i + 1)  # a = i: no left quilt node
        b = np.arange(1, T - i + 2)  # b = T - i + 1: no right one
        ea = np.where(a < i, 2 * infl(a), 0.0)
        eb = np.where(b <= T - i, infl(b), 0.0)
        lam = eps - (ea[None, :] + eb[:, None])
        with np.errstate(divide="ignore"):
            score = np.where(lam > 0, (a[None, :] + b[:, None] - 1) / np.where(lam > 0, lam, 1), np.inf)
        best = max(best, score.min())
    return best


@pytest.mark.parametrize("pi,g,eps,T", [(0.05, 0.1, 1.0, 200), (0.02, 0.2, 2.0, 150), (0.05, 0.1, 5.0, 120)])
def test_sigma_is_the_chain_mqm(pi, g, eps, T):
    s = PF.mqm_sigma(pi, g, eps, T)
    assert s == mqm_approx_search(pi, g, eps, T).sigma
    assert s == pytest.approx(_basic_mqm(pi, g, eps, T), rel=1e-12)


def test_sigma_known_values():
    assert PF.mqm_sigma(0.05, 0.1, 1.0, 8) == pytest.approx(8.0)  # no quilt fits: trivial, T/eps

    # T = 5000, eps = 1: the middle node's best quilt is {X_{i-71}, X_{i+64}} (k_findBest_2dir's
    # search), score (71 + 64 - 1) / (1 - 2 ln((1+D_71)/(1-D_71)) - ln((1+D_64)/(1-D_64))),
    # D_t = e^{-0.1 t}/0.05 (the factor 2 on the left side, as in the authors' code)
    def term(t):
        D = math.exp(-0.1 * t) / 0.05
        return math.log((1 + D) / (1 - D))

    res = mqm_approx_search(0.05, 0.1, 1.0, 5000)
    assert (res.a, res.b) == (71, 64)
    assert PF.mqm_sigma(0.05, 0.1, 1.0, 5000) == pytest.approx(134 / (1 - 2 * term(71) - term(64)), rel=1e-12)
    assert PF.mqm_sigma(0.05, 0.1, 1.0, 5000) == pytest.approx(154.467065, rel=1e-8)


def test_l1_error_of_a_tiny_run_matches_a_plain_reimplementation():
    rows, chain = PF.l1_rows(TINY, seed=7)
    P, q = np.array(chain["P"]), np.array(chain["q"])
    chain_ss, runs_ss = np.random.SeedSequence(7).spawn(2)
    P2, q2, _ = PF.generate_chain(np.random.default_rng(chain_ss), 5, 0.05, 0.1)
    assert np.array_equal(P, P2) and np.array_equal(q, q2)
    Ts = sorted({r["T"] for r in rows})
    errs = {}
    for run_ss in runs_ss.spawn(3):
        data_ss, noise_ss = run_ss.spawn(2)
        freq = {}
        for T, ss in zip(Ts, data_ss.spawn(len(Ts))):
            u = np.random.default_rng(ss).uniform(size=T)
            x = [int(np.argmax(u[0] < np.cumsum(q)))]
            for t in range(1, T):
                row = np.cumsum(P[x[-1]])
                x.append(next((j for j in range(5) if u[t] < row[j]), 4))
            freq[T] = np.array([x.count(s) for s in range(5)]) / T
        for j, (r, ss) in enumerate(zip(rows, noise_ss.spawn(len(rows)))):
            noisy = freq[r["T"]] + 2 * r["sigma"] / r["T"] * np.random.default_rng(ss).laplace(size=5)
            errs.setdefault(j, []).append(np.abs(noisy - freq[r["T"]]).sum())
    for j, r in enumerate(rows):
        assert r["l1_error_mean"] == pytest.approx(np.mean(errs[j]), rel=1e-12)
        assert r["l1_error_se"] == pytest.approx(np.std(errs[j], ddof=1) / math.sqrt(3), rel=1e-9)
        assert r["l1_error_expected"] == pytest.approx(10 * r["sigma"] / r["T"])
        if r["mechanism"] == "group-dp":
            assert r["sigma"] == r["T"] / r["epsilon"]
        else:
            assert r["sigma"] == mqm_approx_search(r["pi_est"], r["g_est"], r["epsilon"], r["T"]).sigma


def test_monte_carlo_mean_agrees_with_the_expectation():
    cfg = {
        **TINY,
        "runs": 400,
        "epsilons": [1.0],
        "panels": {"c": {"vary": "T", "values": [200], "fixed": {"pi_est": 0.05, "g_est": 0.1}}},
    }
    rows, _ = PF.l1_rows(cfg, seed=3)
    for r in rows:
        assert abs(r["l1_error_mean"] - r["l1_error_expected"]) < 4 * r["l1_error_se"]


# ------------------------------------------------------------------------------ the sup kernel


def _log_density(y, atoms, w, b):
    """ln sum_c w_c prod_k e^{-|y_k - c_k|/b} / (2b)^k at the rows of y (direct)."""
    z = -np.abs(y[:, None, :] - atoms[None, :, :]).sum(axis=2) / b + np.log(w / w.sum())[None, :]
    m = z.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(z - m).sum(axis=1, keepdims=True)))[:, 0] - y.shape[1] * math.log(2 * b)


def test_one_dimension_is_the_laplace_mixture_sup(rng):
    for _ in range(20):
        a1, a2 = rng.integers(-3, 6, 7).astype(float), rng.normal(0, 3, 5)
        w1, w2 = rng.random(7), rng.random(5)
        b = rng.uniform(0.3, 3)
        h = histogram_sup(a1[:, None], w1, a2[:, None], w2, b)
        m = mixture_sup(a1, w1, a2, w2, b)
        assert h.forward == pytest.approx(m.forward, abs=1e-12) and h.backward == pytest.approx(
            m.backward, abs=1e-12
        )


@pytest.mark.parametrize("k", [2, 3])
def test_sup_equals_brute_force_on_a_dense_grid(rng, k):
    for _ in range(6):
        a1 = rng.integers(0, 4, (6, k)).astype(float)
        a2 = np.round(rng.normal(1.5, 1.5, (5, k)), 1)
        w1, w2 = rng.random(6), rng.random(5)
        b = rng.uniform(0.4, 2.5)
        h = histogram_sup(a1, w1, a2, w2, b)
        # dense grid: every atom coordinate, points between and one beyond each end (where the
        # ratio already equals its tail limit, all kernels being e^{-+y/b} there)
        axes = []
        for j in range(k):
            c = np.concatenate([a1[:, j], a2[:, j]])
            axes.append(
                np.unique(np.concatenate([c, np.linspace(c.min() - 1, c.max() + 1, 15 if k == 3 else 41)]))
            )
        y = np.array(list(itertools.product(*axes)))
        d = _log_density(y, a1, w1, b) - _log_density(y, a2, w2, b)
        assert d.max() == pytest.approx(h.forward, abs=1e-11) and (-d).max() == pytest.approx(
            h.backward, abs=1e-11
        )
        # random points never exceed the supremum
        yr = rng.uniform(-4, 7, (2000, k))
        dr = _log_density(yr, a1, w1, b) - _log_density(yr, a2, w2, b)
        assert dr.max() <= h.forward + 1e-12 and (-dr).max() <= h.backward + 1e-12


def test_vertex_values_are_the_density_ratio(rng):
    k, n = 3, 5
    W1, W2 = rng.random((n,) * k), rng.random((n,) * k) * (rng.random((n,) * k) > 0.4)
    b = 0.9
    d = vertex_log_density(W1 / W1.sum(), b) - vertex_log_density(W2 / W2.sum(), b)
    grid = np.array(list(itertools.product(range(n), repeat=k)), dtype=float)
    for _ in range(40):
        v = rng.integers(1, n + 1, k)  # a random finite vertex
        y = (v - 1).astype(float)[None, :]
        direct = (
            _log_density(y, grid, W1.ravel() + 1e-300, b) - _log_density(y, grid, W2.ravel() + 1e-300, b)
        )[0]
        assert d[tuple(v)] == pytest.approx(direct, abs=1e-12)
    # an infinite coordinate is the limit: y_0 far beyond every atom
    y = np.array([[-1e3, 2.0, 3.0]])
    direct = (_log_density(y, grid, W1.ravel() + 1e-300, b) - _log_density(y, grid, W2.ravel() + 1e-300, b))[
        0
    ]
    assert d[0, 3, 4] == pytest.approx(direct, abs=1e-9)


def test_log_space_path_for_tiny_scales(rng):
    a1, a2 = rng.integers(0, 30, (8, 2)).astype(float), rng.integers(0, 30, (8, 2)).astype(float)
    w1, w2 = rng.random(8), rng.random(8)
    b = 0.02  # e^{-30/b} underflows in linear space
    h = histogram_sup(a1, w1, a2, w2, b)
    assert math.isfinite(h.value)
    axes = [np.unique(np.concatenate([a1[:, j], a2[:, j], [-1, 31]])) for j in range(2)]
    y = np.array(list(itertools.product(*axes)))
    d = _log_density(y, a1, w1, b) - _log_density(y, a2, w2, b)
    assert h.forward == pytest.approx(d.max(), rel=1e-9) and h.backward == pytest.approx((-d).max(), rel=1e-9)
    with pytest.raises(ValueError):
        lattice_sup(np.ones((2, 2)), np.ones((3, 2)), 1.0)


# ------------------------------------------------------------------------------ exact BDPL on a chain


def _brute_bdpl(P, q, T, b):
    """Every adversary (i, K, x_K), every data tuple enumerated; sup by histogram_sup."""
    s = P.shape[0]
    seqs = np.array(list(itertools.product(range(s), repeat=T)))
    pr = q[seqs[:, 0]] * np.prod(P[seqs[:, :-1], seqs[:, 1:]], axis=1)
    hist = np.stack([(seqs == k).sum(1) for k in range(s)], 1)
    best = 0.0
    for i in range(T):
        others = [j for j in range(T) if j != i]
        for r in range(len(others) + 1):
            for K in itertools.combinations(others, r):
                for xK in itertools.product(range(s), repeat=r):
                    m = np.ones(len(seqs), bool)
                    for j, v in zip(K, xK):
                        m &= seqs[:, j] == v
                    laws = [(hist[m & (seqs[:, i] == x)], pr[m & (seqs[:, i] == x)]) for x in range(s)]
                    laws = [law for law in laws if law[1].sum() > 0]
                    for (h1, p1), (h2, p2) in itertools.combinations(laws, 2):
                        best = max(best, histogram_sup(h1, p1, h2, p2, b).value)
    return best


@pytest.mark.parametrize(
    "s,T,zeros", [(2, 4, False), (3, 3, False), (3, 4, False), (2, 5, True), (3, 4, True)]
)
def test_window_search_equals_every_adversary(s, T, zeros):
    rng = np.random.default_rng(100 * s + T + zeros)
    P, q = rng.dirichlet(np.ones(s), size=s), rng.dirichlet(np.ones(s))
    if zeros:
        P[0, 1] = 0.0
        P[0] /= P[0].sum()
        q = np.eye(s)[1]
    scales = [0.6, 2.5]
    got = chain_histogram_bdpl(P, q, T, scales)
    for r, b in zip(got, scales):
        assert r.value == pytest.approx(_brute_bdpl(P, q, T, b), abs=1e-12)


def test_window_search_on_the_figures_chain():
    chain_ss, _ = np.random.SeedSequence(PF.SEED).spawn(2)
    P, q, _ = PF.generate_chain(np.random.default_rng(chain_ss), 5, 0.05, 0.1)
    got = chain_histogram_bdpl(P, q, 3, [6.0, 0.2])
    assert [r.value for r in got] == pytest.approx([_brute_bdpl(P, q, 3, b) for b in (6.0, 0.2)], abs=1e-12)


def test_window_law_is_a_probability_law():
    rng = np.random.default_rng(4)
    P = rng.dirichlet(np.ones(3), size=3)
    H = window_laws(P, np.eye(3)[1], 2, 1)  # left known = 1, L = 2, R = 1
    assert H.sum() == pytest.approx(1.0)
    counts = np.indices(H.shape[1:-1]).reshape(3, -1).sum(axis=0)
    assert set(counts[H.sum(axis=(0, -1)).ravel() > 0]) == {4}  # 4 window records
    # target marginal: P(X_{l+3} = x | X_l = 1) = (P^3)[1, x]
    assert np.allclose(H.reshape(3, -1).sum(axis=1), np.linalg.matrix_power(P, 3)[1])


def test_panel_d_rows_and_the_figure(tmp_path):
    from bdpsim.figures import subplots
    from bdpsim.figures.gallery import read_rows
    from bdpsim.figures.pufferfish import plot_pufferfish_fig2

    rows, extra = PF.figure_rows(TINY, seed=1)
    d = [r for r in rows if r["panel"] == "d"]
    assert len(d) == 2 * 2 * 2
    e = [r for r in rows if r["panel"] == "e"]
    assert sorted(r["T"] for r in e) == [3, 300] and "seconds_audit" in extra
    assert [r["bdpl_exact"] for r in e if r["T"] == 3] == [
        r["bdpl_exact"]
        for r in d
        if r["T"] == 3 and r["epsilon"] == 2.0 and r["mechanism"] == "markov-quilt-approx"
    ]
    for r in d:
        # MQM at T <= 3 is the trivial quilt: sigma = T/eps, i.e. group DP, so BDPL <= eps
        if r["mechanism"] == "markov-quilt-approx":
            assert (
                r["sigma"] == pytest.approx(r["T"] / r["epsilon"]) and r["bdpl_exact"] <= r["epsilon"] + 1e-12
            )
        else:
            assert r["laplace_scale_counts"] == pytest.approx(2 / r["epsilon"])
    paths = PF.write_rows(rows, tmp_path / "pufferfish-fig2", extra, seed=1)
    back = read_rows(paths[0])
    assert len(back) == len(rows) and back[0]["panel"] == "a"
    fig, axes = subplots(3, 2, figsize=(11.4, 10.8), squeeze=False)
    out = plot_pufferfish_fig2(back, list(axes.ravel()))
    assert len(out) == 6 and all(ax.get_legend() is not None for ax in out[:4] + out[5:])
    assert out[4].get_visible() and out[4].get_title().startswith("(e)") and not out[5].axison
    fig.savefig(tmp_path / "f.png")
