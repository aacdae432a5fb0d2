"""Markov Quilt mechanism: the authors' numbers, the max-influence against its definition."""

import itertools
import math

import numpy as np
import pytest

from bdpsim.calibration.quilt.chain import (
    authors_eigengap,
    authors_stationary,
    exact_max_influence_binary,
    exact_max_influence_multi,
    exact_ratios_binary,
    exact_ratios_multi,
    mqm_approx,
    mqm_approx_search,
    mqm_exact,
    node_probabilities,
    time_reversal,
)
from bdpsim.core.errors import ConfigError

SYM = [[0.75, 0.25], [0.25, 0.75]]
ACTIVITY = [[0.882, 0.118], [0.305, 0.695]]
THREE = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]]


def test_check_values_of_the_authors_algorithm():
    """The issue's check: symmetric 0.75 chain, T = 100, eps = 1."""
    assert mqm_approx(SYM, 100, 1.0).sigma == pytest.approx(18.983096, abs=1e-6)
    assert mqm_exact(SYM, 100, 1.0).sigma == pytest.approx(9.337396, abs=1e-6)
    # run_synthetic.m's set-up spelled out: pi = M^100 row 1, eigap = 1 - |lambda_2|
    assert mqm_approx_search(0.5, 0.5, 1.0, 100).sigma == pytest.approx(18.983096, abs=1e-6)


@pytest.mark.parametrize(
    "P,T,eps,approx,exact",
    [
        (ACTIVITY, 288, 1.0, 26.054190833080337, 14.813017989836839),  # binary, asymmetric
        ([[0.9, 0.1], [0.4, 0.6]], 50, 2.0, 10.038143983573242, 4.913536308214106),
        (
            [[0.7, 0.3], [0.4, 0.6]],
            100,
            1.0,
            13.911512579390365,
            5.130649681555968,
        ),  # run_synthetic q=.3, p=.6
        (THREE, 100, 1.0, 37.205060288952204, 16.014234864413183),  # 3 states: multi code
        (THREE, 60, 3.0, 9.451285454534933, 3.2853006513498824),
    ],
)
def test_pinned_port_values(P, T, eps, approx, exact):
    assert mqm_approx(P, T, eps).sigma == pytest.approx(approx, abs=1e-9)
    assert mqm_exact(P, T, eps).sigma == pytest.approx(exact, abs=1e-9)


def test_setup_quantities():
    assert authors_stationary(ACTIVITY) == pytest.approx([0.305 / 0.423, 0.118 / 0.423], abs=1e-12)
    assert authors_eigengap(SYM) == pytest.approx(0.5)
    # reversible binary chain: P* = P, so the reversal gap is (1 - lambda_2^2)/2
    assert time_reversal(ACTIVITY) == pytest.approx(np.array(ACTIVITY), abs=1e-12)
    lam = 1 - 0.118 - 0.305
    assert authors_eigengap(ACTIVITY, "reversal") == pytest.approx((1 - lam**2) / 2)
    assert authors_eigengap(THREE) == authors_eigengap(THREE, "reversal")
    with pytest.raises(ConfigError, match="^eigengap = "):
        authors_eigengap(THREE, "spectral")
    c = node_probabilities(5, ACTIVITY, [1.0, 0.0])
    assert c[1] == pytest.approx([0.882, 0.118]) and c.shape == (5, 2)


def _brute_influence(P, w, T, i, a, b):
    """``max_{s != t} max_{x_Q} ln P(x_Q | X_i = s) / P(x_Q | X_i = t)`` by enumerating the chain."""
    P, w = np.asarray(P), np.asarray(w)
    k = P.shape[0]
    Q = ([i - a] if a < i else []) + ([i + b] if b <= T - i else [])
    if not Q:
        return 0.0
    xs = np.array(list(itertools.product(range(k), repeat=T)))
    p = w[xs[:, 0]].copy()
    for t in range(1, T):
        p *= P[xs[:, t - 1], xs[:, t]]
    q_cols = [j - 1 for j in Q]
    key = xs[:, q_cols] @ (k ** np.arange(len(Q)))
    tab = np.zeros((k, k ** len(Q)))
    np.add.at(tab, (xs[:, i - 1], key), p)
    tab /= tab.sum(axis=1, keepdims=True)
    best = -math.inf
    for s in range(k):
        for t in range(k):
            if s != t:
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = np.where(tab[s] > 0, np.log(tab[s]) - np.log(tab[t]), -np.inf)
                best = max(best, float(r.max()))
    return best


@pytest.mark.parametrize("P", [ACTIVITY, [[0.9, 0.1], [0.4, 0.6]], [[0.3, 0.7], [0.6, 0.4]]])
def test_exact_max_influence_is_the_definition_binary(P):
    """MQMExact's max-influence of every quilt of every node = brute force over the chain's
    joint law (start law = the authors' first row of P^100, as run_synthetic.m)."""
    T = 7
    w = authors_stationary(P)
    c = node_probabilities(T, P, w)
    tabs = exact_ratios_binary(P, T, c[:, 0], c[:, 1])
    for i in range(2, T):
        grid = exact_max_influence_binary(*tabs, i, T)
        for ai, a in enumerate(range(1, i + 1)):
            for bi, b in enumerate(range(1, T - i + 2)):
                assert grid[bi, ai] == pytest.approx(_brute_influence(P, w, T, i, a, b), abs=1e-12)


def test_exact_max_influence_multi_is_the_worst_start_law():
    """The multi-state code takes P(X_i = t)/P(X_i = s) at its worst over start laws: the
    max-influence over point-mass starts, except that a quilt node at X_1 (a = i - 1) then sees
    the start's value too, where the code's value is an upper bound."""
    T = 6
    tabs = exact_ratios_multi(THREE, T)
    for i in range(2, T):
        grid = exact_max_influence_multi(*tabs, i, T)
        for ai, a in enumerate(range(1, i + 1)):
            for bi, b in enumerate(range(1, T - i + 2)):
                brute = max(_brute_influence(THREE, np.eye(3)[x0], T, i, a, b) for x0 in range(3))
                if a == i - 1:
                    assert brute <= grid[bi, ai] + 1e-12
                else:
                    assert grid[bi, ai] == pytest.approx(brute, abs=1e-12)


def test_multi_code_on_a_binary_chain_is_the_binary_code_without_marginals():
    """exactRatioBinaryGenerate's two-argument form (worst-case marginals) and the multi code agree."""
    T = 40
    down, up1, up2 = exact_ratios_binary(ACTIVITY, T)
    tabs = exact_ratios_multi(ACTIVITY, T)
    for i in (2, 7, 20, 39):
        assert exact_max_influence_binary(down, up1, up2, i, T) == pytest.approx(
            exact_max_influence_multi(*tabs, i, T), rel=1e-12
        )


def _matlab_noise(delta, i, T, eps):
    """The MATLAB's min over the full quilt grid, written out independently."""
    lam = eps - delta
    lam[lam < 0] = np.nan
    a = np.append(np.arange(1, i), i)
    b = np.append(np.arange(1, T - i + 1), T - i + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nanmin((a[None, :] + b[:, None] - 1) / lam)


@pytest.mark.parametrize(
    "P,T,eps", [(ACTIVITY, 150, 0.5), (SYM, 90, 5.0), (THREE, 80, 1.0), (ACTIVITY, 200, 10.0)]
)
def test_pruned_quilt_search_equals_the_full_grid(P, T, eps):
    res = mqm_exact(P, T, eps)
    if np.asarray(P).shape[0] == 2:
        w = authors_stationary(P)
        c = node_probabilities(T, P, w)
        tabs, fn = exact_ratios_binary(P, T, c[:, 0], c[:, 1]), exact_max_influence_binary
    else:
        tabs, fn = exact_ratios_multi(P, T), exact_max_influence_multi
    full = [_matlab_noise(fn(*tabs, i, T), i, T, eps) for i in range(2, T)]
    assert res.noise_per_node[1 : T - 1] == pytest.approx(full, rel=1e-14)
    assert res.sigma == max(full) and res.nodes_searched == tuple(range(2, T))
    assert np.isnan(res.noise_per_node[0]) and np.isnan(res.noise_per_node[-1])


def test_approx_search_walks_from_the_middle():
    r = mqm_approx(SYM, 100, 1.0)
    assert r.nodes_searched == (50,) and (r.node, r.a, r.b) == (50, 9, 7) and r.quilt == "{X_40, X_56}"
    # a large eps: the middle node's best quilt is two-sided too, so one node is searched
    assert mqm_approx(SYM, 100, 10.0).nodes_searched == (50,)
    # a chain so short that the trivial quilt wins: T / eps
    short = mqm_approx(SYM, 6, 1.0)
    assert short.sigma == pytest.approx(6.0) and short.quilt.endswith("(trivial)")


def test_long_chain_is_fast_and_stable():
    """The pruned grid makes the authors' O(T^3) search usable on the whole activity data."""
    a = mqm_exact(ACTIVITY, 17568, 1.0)
    assert a.sigma == pytest.approx(14.813017989836839, abs=1e-9)  # the same worst quilt as T = 288


def test_bad_inputs():
    with pytest.raises(ConfigError, match="^epsilon = "):
        mqm_approx(SYM, 100, 0.0)
    with pytest.raises(ConfigError, match="^T = "):
        mqm_exact(SYM, 2, 1.0)
    with pytest.raises(ConfigError, match="^transition = "):
        exact_ratios_binary(THREE, 10)
