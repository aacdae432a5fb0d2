"""Pairs of product laws (bdpsim/kernels/chains/pair_product.py): the hockey-stick divergence of a
product computed from its parts equals the one of the product multiplied out, Rényi divergences add
over the parts, and the bracket's eps(delta) holds the exact one."""

import itertools
import math

import numpy as np
import pytest

from bdpsim.kernels.argcheck import ParameterError
from bdpsim.kernels.chains.pair_product import (
    PairBracket,
    PairFactor,
    ProductPair,
    hockey_stick,
    hockey_stick_both,
    tpr_both,
)
from tests.helpers import np_tpr


def _factor(rng, n, spread=1.0):
    p = rng.dirichlet(np.ones(n))
    q = p * np.exp(rng.normal(0.0, spread, n))
    return PairFactor(p, q / q.sum())


def _multiplied_out(factors):
    p, q = np.ones(1), np.ones(1)
    for f in factors:
        p, q = np.outer(p, f.p).ravel(), np.outer(q, f.q).ravel()
    return p, q


def _direct(p, q, eps):
    return np.array([np.maximum(p - math.exp(e) * q, 0.0).sum() for e in eps])


def test_hockey_stick_of_parts_equals_the_product_multiplied_out():
    rng = np.random.default_rng(1)
    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 4.0])
    for sizes in [(1,), (5,), (3, 4), (2, 7, 5), (6, 1, 3, 2)]:
        factors = [_factor(rng, n) for n in sizes]
        p, q = _multiplied_out(factors)
        fwd, bwd = hockey_stick_both(factors, eps)
        np.testing.assert_allclose(fwd, _direct(p, q, eps), rtol=0, atol=1e-14)
        np.testing.assert_allclose(bwd, _direct(q, p, eps), rtol=0, atol=1e-14)
        np.testing.assert_allclose(hockey_stick(factors, eps), fwd, rtol=0, atol=0)


def test_outcomes_of_mass_zero_under_one_hypothesis():
    f = PairFactor(np.array([0.5, 0.5, 0.0]), np.array([0.25, 0.0, 0.75]))
    g = PairFactor(np.array([0.3, 0.7]), np.array([0.6, 0.4]))
    eps = [0.0, 1.0, 3.0]
    p, q = _multiplied_out([f, g])
    fwd, bwd = hockey_stick_both([f, g], eps)
    np.testing.assert_allclose(fwd, _direct(p, q, eps), atol=1e-15)
    np.testing.assert_allclose(bwd, _direct(q, p, eps), atol=1e-15)
    assert fwd[-1] >= 0.5  # the outcomes with Q = 0 count at every eps
    assert f.max_loss() == math.inf and f.log_moment(2.0) == math.inf


def test_renyi_adds_over_parts_and_the_largest_loss_is_attained():
    rng = np.random.default_rng(2)
    factors = [_factor(rng, n) for n in (3, 4, 2)]
    p, q = _multiplied_out(factors)
    pair = ProductPair(tuple(factors))
    for alpha in (1.5, 2.0, 7.0):
        direct = math.log(float(np.sum(p**alpha * q ** (1 - alpha)))) / (alpha - 1)
        assert pair.renyi(alpha) == pytest.approx(direct, abs=1e-12)
    assert pair.renyi(math.inf) == pytest.approx(float(np.max(np.log(p / q))), abs=1e-12)
    assert pair.reversed().max_loss() == pytest.approx(float(np.max(np.log(q / p))), abs=1e-12)


def test_epsilon_of_delta_is_bracketed():
    rng = np.random.default_rng(3)
    exact = ProductPair((_factor(rng, 6), _factor(rng, 5)))
    bracket = PairBracket(exact, exact)
    p, q = _multiplied_out(exact.factors)
    for delta in (0.0, 1e-3, 0.05, 0.2):
        got = bracket.epsilon(delta)
        # the true eps(delta): delta(eps) is continuous and non-increasing
        f = lambda e: max(_direct(p, q, [e])[0], _direct(q, p, [e])[0])  # noqa: E731
        if delta == 0:
            assert float(got.low) == pytest.approx(float(bracket.bdpl().low), abs=1e-12)
            continue
        assert f(float(got.low)) > delta >= f(float(got.high))
        assert float(got.high) - float(got.low) <= 2e-9


def test_bad_parts_are_refused_in_one_line():
    with pytest.raises(ParameterError, match=r"^q = \(3,\): must have the shape of p \(2,\)$"):
        PairFactor(np.ones(2) / 2, np.ones(3) / 3)
    with pytest.raises(ParameterError, match="masses must be finite and >= 0"):
        PairFactor(np.array([0.5, -0.1]), np.array([0.5, 0.5]))
    f = PairFactor(np.ones(2) / 2, np.ones(2) / 2)
    with pytest.raises(ParameterError, match=r"^epsilon = -1\.0: must be finite numbers >= 0$"):
        hockey_stick([f], -1.0)
    with pytest.raises(ParameterError, match="need at least one part"):
        hockey_stick([], 0.5)
    with pytest.raises(ParameterError, match=r"^alpha = 1: must be a number > 1"):
        PairBracket(ProductPair((f,)), ProductPair((f,))).renyi(1)
    with pytest.raises(ParameterError, match=r"^delta = 1\.0: must be numbers in \[0, 1\)$"):
        PairBracket(ProductPair((f,)), ProductPair((f,))).epsilon(1.0)


def test_a_product_too_large_to_multiply_out_is_refused_up_front():
    big = PairFactor(np.ones(5000) / 5000, np.ones(5000) / 5000)
    with pytest.raises(ParameterError, match="exceeds"):
        hockey_stick([big, big, big], 1.0)


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_the_order_of_the_parts_does_not_matter(order):
    rng = np.random.default_rng(4)
    factors = [_factor(rng, n) for n in (2, 9, 4)]
    eps = [0.0, 0.3, 1.2]
    base = hockey_stick_both(factors, eps)
    got = hockey_stick_both([factors[i] for i in order], eps)
    np.testing.assert_allclose(got[0], base[0], atol=1e-15)
    np.testing.assert_allclose(got[1], base[1], atol=1e-15)


def test_the_most_powerful_test_of_a_product_is_bracketed_to_1e_9_around_neyman_pearson():
    """``tpr_both``: for both orders, the most powerful test at each FPR of the product multiplied
    out (sorted by hand) lies in ``[low, high]``, whose width is below 1e-9; ``PairBracket.tpr`` of a
    pair with itself is that bracket, the larger order (a wrong tangent or a test not mixed at the
    threshold would miss by the mass of one outcome)."""
    rng = np.random.default_rng(7)
    alphas = np.array([1e-3, 0.05, 0.3, 0.9])
    for sizes in [(1,), (5,), (3, 4), (2, 7, 5), (30, 2, 30)]:
        factors = [_factor(rng, n, spread=2.0) for n in sizes]
        p, q = _multiplied_out(factors)
        low, high = tpr_both(factors, alphas)
        for side, (x, y) in enumerate(((p, q), (q, p))):
            truth = np.array([np_tpr(x, y, a) for a in alphas])
            assert np.all(low[side] <= truth + 1e-13) and np.all(truth <= high[side] + 1e-13)
            assert np.all(high[side] - low[side] <= 1e-9)
        pair = ProductPair(tuple(factors))
        b = PairBracket(pair, pair).tpr(alphas)
        np.testing.assert_array_equal(b.low, low.max(axis=0))
        np.testing.assert_array_equal(b.high, high.max(axis=0))
        one = PairBracket(pair, pair).tpr(0.05, both=False)
        assert float(one.low) == pytest.approx(low[0, 1], abs=1e-12) and np.ndim(one.low) == 0
    # an outcome impossible under one hypothesis (a loss of +-inf)
    f = PairFactor(np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5]))
    low, high = tpr_both([f], [0.25])
    assert low[0, 0] == pytest.approx(0.75, abs=1e-12) and high[0, 0] == pytest.approx(0.75, abs=1e-9)
    with pytest.raises(ParameterError, match=r"^fprs = 1"):
        PairBracket(ProductPair((f,)), ProductPair((f,))).tpr(1.0)
