"""Gaussian noise on a per-state value held between two finite channels
(bdpsim/kernels/chains/value_channels.py): the lower one a garbling of the release, the upper one
dominating it; checked against the one-step Gaussian mechanism's closed form, against the true
continuous joint law of a two-step chain integrated numerically (two values, and three whose upper
channel splits each cell onto the corners of the box of likelihood ratios), and against brute force
or numerical integration for the Rényi terms of the outside-range bound."""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate
from scipy.special import ndtr
from scipy.stats import norm

from bdpsim.kernels.argcheck import ParameterError
from bdpsim.kernels.chains.local_profile import local_release, release_profile
from bdpsim.kernels.chains.pair_product import PairFactor, hockey_stick_both
from bdpsim.kernels.chains.value_channels import (
    corner_channel,
    gaussian_channels,
    outside_over,
    outside_probability,
    prior_ratio_bound,
    range_for,
    standard_values,
    step_renyi,
    step_renyi_values,
    tangent_channel,
)

EPS = np.array([0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0])


def gaussian_mechanism(mu, eps):
    """The one-step Gaussian mechanism's profile: Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)."""
    eps = np.asarray(eps, dtype=float)
    return norm.cdf(mu / 2 - eps / mu) - np.exp(eps) * norm.cdf(-mu / 2 - eps / mu)


def _one_step(M):
    return np.maximum(*hockey_stick_both([PairFactor(M[1], M[0])], EPS))


@pytest.mark.parametrize("mu", [0.5, 1.0, 3.0])
def test_one_step_brackets_the_gaussian_mechanism_and_closes_like_bins_squared(mu):
    exact = gaussian_mechanism(mu, EPS)
    widths = []
    for bins in (128, 512):
        ch = gaussian_channels([0.0, mu], 1.0, bins, 1)
        for M in (ch.lower, ch.upper):
            assert np.all(M > 0)
            np.testing.assert_allclose(M.sum(axis=1), 1.0, atol=1e-14)
        low, high = _one_step(ch.lower), _one_step(ch.upper) + ch.slack(1)
        assert np.all(low <= exact + 1e-13)
        assert np.all(exact <= high + 1e-13)
        widths.append(float(np.max(high - low)))
    assert widths[1] <= {0.5: 6e-6, 1.0: 9e-6, 3.0: 4.5e-5}[mu]  # pinned: 512 cells (4.9e-6, 7.3e-6, 3.6e-5)
    assert widths[0] / widths[1] >= 10  # second order: 4x the cells, ~16x narrower


def test_the_range_holds_the_outside_probability_over_all_steps():
    for steps in (1, 100, 10**6):
        ch = gaussian_channels([0.0, 2.0], 1.0, 16, steps)
        assert ch.range == pytest.approx(range_for(2.0, steps))
        assert outside_over(ch.outside, steps) <= 1.01e-10
        # the slack adds the upper channel's certified error: 1 - ((1 - tau) e^{-e})^T, about T e more
        out, added = outside_over(ch.outside, steps), steps * ch.error
        assert 0 < ch.error <= 1e-10
        assert out + 0.99 * added <= ch.slack(steps) <= out + added
        assert ch.outside == pytest.approx(norm.sf(ch.range + 1) + norm.sf(ch.range - 1), rel=1e-12)
    assert outside_probability(0.0, 1.0) == pytest.approx(2 * norm.sf(1.0))


def test_equal_values_give_one_uninformative_output_and_states_share_rows():
    ch = gaussian_channels([1.0, 1.0, 1.0], 2.0, 32, 5)
    assert ch.lower.shape == (3, 1) and ch.slack(5) == 0.0
    ch = gaussian_channels([0.0, 1.0, 0.0], 1.0, 32, 5)
    np.testing.assert_array_equal(ch.lower[0], ch.lower[2])
    np.testing.assert_array_equal(ch.upper[0], ch.upper[2])


@pytest.mark.parametrize(
    "kwargs, param",
    [
        (dict(values=[0.0, 1.0], sigma=0.0, bins=8, steps=1), "sigma"),
        (dict(values=[0.0, 1.0], sigma=float("nan"), bins=8, steps=1), "sigma"),
        (dict(values=[0.0, 1.0], sigma=-1.0, bins=8, steps=1), "sigma"),
        (dict(values=[0.0, 1.0], sigma=1e-3, bins=8, steps=1), "sigma"),  # 1000 sigma apart
        (dict(values=[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], sigma=1.0, bins=8, steps=1), "state_values"),
        (dict(values=[0.0, 1.0], sigma=1.0, bins=1, steps=1), "bins"),
    ],
)
def test_bad_arguments_are_refused_naming_them(kwargs, param):
    with pytest.raises(ParameterError) as err:
        gaussian_channels(**kwargs)
    assert err.value.param == param


# --------------------------------------------------------------- the true two-step joint law

P2 = np.array([[0.8, 0.2], [0.3, 0.7]])
PI2 = np.array([0.6, 0.4])
V2 = np.array([0.0, 1.2])


def _inner(coef, mu_vals):
    """``int (sum_c coef_c phi(y - v_c))_+ dy`` for two components (one sign change at most)."""
    a0, a1 = coef
    if a0 >= 0 and a1 >= 0:
        return a0 + a1
    if a0 <= 0 and a1 <= 0:
        return 0.0
    v0, v1 = mu_vals
    # a0 phi(y - v0) + a1 phi(y - v1) = 0  <=>  e^{(v1 - v0)(y - (v0 + v1)/2)} = -a0/a1
    y = (v0 + v1) / 2 + math.log(-a0 / a1) / (v1 - v0)
    if a1 > 0:  # positive above y
        return a0 * norm.sf(y - v0) + a1 * norm.sf(y - v1)
    return a0 * norm.cdf(y - v0) + a1 * norm.cdf(y - v1)


def other_record_law(P, pi, target, values):
    """The law of the other record of a two-record chain given the target's value, per value."""
    if target == 1:
        return {x: P[x] for x in values}  # law of x_2 given x_1
    joint = pi[:, None] * P
    return {x: joint[:, x] / joint[:, x].sum() for x in values}  # law of x_1 given x_2


def two_step_delta(target, a, b, eps):
    """``delta(eps)`` of the true continuous pair of laws of ``(y_1, y_2)`` given ``x_target = a``
    vs ``b`` (nothing known), by integrating over ``y_target`` numerically the closed-form
    integral over the other output: the other record marginalised through the chain."""
    other = other_record_law(P2, PI2, target, (a, b))
    e = math.exp(eps)

    def f(y):
        A, B = norm.pdf(y - V2[a]), e * norm.pdf(y - V2[b])
        return _inner(A * other[a] - B * other[b], V2)

    val, err = integrate.quad(f, -14, 15, points=[0.0, 0.6, 1.2], epsabs=1e-13, epsrel=1e-12, limit=400)
    return val


def test_two_step_chain_bracket_contains_the_integrated_joint_law():
    bins = 768
    mu = (V2[1] - V2[0]) / 1.0
    ch = gaussian_channels(list(V2), 1.0, bins, 2)
    for target in (1, 2):
        # the kernel's bracket is of the larger of both orders of the pair
        both = np.maximum(*[[two_step_delta(target, a, b, e) for e in EPS] for a, b in ((0, 1), (1, 0))])
        lo, hi = (
            np.asarray(
                getattr(
                    release_profile(
                        local_release(P2, PI2, M.T, steps=2), target=target, pair=(0, 1), grid=2048
                    ).delta(EPS),
                    end,
                )
            )
            for M, end in ((ch.lower, "low"), (ch.upper, "high"))
        )
        hi = hi + ch.slack(2)
        assert np.all(lo <= both + 1e-10), (target, lo - both)
        assert np.all(both <= hi + 1e-10), (target, both - hi)
        assert float(np.max(hi - lo)) <= 1e-4
    # one step alone is the Gaussian mechanism: the chain's second output adds to it
    assert two_step_delta(1, 1, 0, 0.5) > gaussian_mechanism(mu, 0.5)


# --------------------------------------------------------------- the outside-range bound


@pytest.mark.parametrize("alpha", [1.5, 2.0, 5.0])
def test_step_renyi_is_the_integral_inside_and_outside(alpha):
    mu, Z = 1.3, 2.0
    tau = outside_probability(mu, Z)

    def E(lo, hi):
        f = lambda z: math.exp(alpha * norm.logpdf(z - mu / 2) + (1 - alpha) * norm.logpdf(z + mu / 2))  # noqa: E731
        return integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0]

    d_in = math.log(E(-Z, Z) / (1 - tau)) / (alpha - 1)
    c = mu * (alpha - 0.5)  # the integrand's centre: integrate around it, out to 40
    d_out = math.log((E(min(-Z, c) - 40, -Z) + E(Z, max(Z, c) + 40)) / tau) / (alpha - 1)
    assert step_renyi(mu, Z, alpha) == pytest.approx(max(d_in, d_out), rel=1e-9)
    # without a range: the Gaussian mechanism's alpha mu^2 / 2
    assert step_renyi(mu, 40.0, alpha) == pytest.approx(alpha * mu**2 / 2, rel=1e-9)


def _worst_prior_ratio(P, pi, T):
    """Brute force: ``max ln C_a(x) / C_b(x)`` over every target ``t``, every known set with its
    values and every path ``x`` of the other records, both orders, over the adversaries for whom
    both target values have positive probability given what they know (``-inf``: none)."""
    k = len(pi)
    paths = list(itertools.product(range(k), repeat=T))
    prob = {x: pi[x[0]] * math.prod(P[x[s], x[s + 1]] for s in range(T - 1)) for x in paths}
    worst = np.full((k, k), -math.inf)
    for t in range(T):
        others = [s for s in range(T) if s != t]
        for r in range(len(others) + 1):
            for K in itertools.combinations(others, r):
                for xK in itertools.product(range(k), repeat=r):
                    fit = [x for x in paths if all(x[s] == v for s, v in zip(K, xK))]
                    for a, b in itertools.permutations(range(k), 2):
                        Na = sum(prob[x] for x in fit if x[t] == a)
                        Nb = sum(prob[x] for x in fit if x[t] == b)
                        if Na == 0 or Nb == 0:  # a value impossible given x_K: no adversary
                            continue
                        for x in fit:
                            if x[t] != a or prob[x] == 0:
                                continue
                            xb = x[:t] + (b,) + x[t + 1 :]
                            ratio = math.inf if prob[xb] == 0 else (prob[x] / Na) / (prob[xb] / Nb)
                            worst[a, b] = max(worst[a, b], math.log(ratio))
    return worst


def test_prior_ratio_bound_holds_over_every_path_target_and_known_set():
    """Brute force on a 3-state chain of 4 steps: ``ln C_a(x) / C_b(x)`` over every path of the
    other records, every target and every known set with its values, both orders."""
    P = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]])
    pi = np.array([0.3, 0.3, 0.4])
    B = prior_ratio_bound(P, pi)
    worst = _worst_prior_ratio(P, pi, 4)
    assert np.all(worst <= B + 1e-12)
    assert float(np.max(worst)) > 0.5 * float(np.max(B))  # and it is not far above


@pytest.mark.parametrize(
    "P, pi, never, first_only",
    [
        # state 2 never occurs (its column and its initial probability are 0): was NaN
        ([[0.6, 0.4, 0.0], [0.3, 0.7, 0.0], [0.5, 0.2, 0.3]], [0.5, 0.5, 0.0], [2], []),
        # two states never occur: np.max of an empty set raised
        ([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]], [1.0, 0.0, 0.0], [1, 2], []),
        # state 2 occurs at the first record only (never entered): was NaN
        ([[0.6, 0.4, 0.0], [0.3, 0.7, 0.0], [0.2, 0.8, 0.0]], [0.3, 0.3, 0.4], [], [2]),
        # state 2 is entered from state 1 only, which never occurs: the pair (0, 2) has no
        # adversary, and state 1's row cannot make (0, 2) infinite
        ([[0.6, 0.0, 0.4], [0.0, 0.1, 0.9], [0.5, 0.0, 0.5]], [1.0, 0.0, 0.0], [1], []),
    ],
)
def test_prior_ratio_bound_of_a_state_that_never_occurs(P, pi, never, first_only):
    """A pair with a value no adversary can hold is no adversary's: ``-inf`` (the supremum over an
    empty set), never NaN; a value possible at the first record only has no predecessor's factor;
    every other pair finite and above the brute force over the paths of positive probability."""
    P, pi = np.array(P), np.array(pi)
    B = prior_ratio_bound(P, pi)
    worst = _worst_prior_ratio(P, pi, 4)
    assert not np.isnan(B).any()
    k = len(pi)
    for a, b in itertools.permutations(range(k), 2):
        if a in never or b in never:
            assert B[a, b] == -math.inf and worst[a, b] == -math.inf
        else:
            assert math.isfinite(B[a, b]) and worst[a, b] <= B[a, b] + 1e-12
    for a in first_only:  # only the successor's factor: ln max r + ln max 1/r over the rows
        for b in set(range(k)) - {a} - set(never):
            either = (P[a] > 0) | (P[b] > 0)
            r = P[a][either] / P[b][either]
            assert B[a, b] == pytest.approx(math.log(r.max()) + math.log((1 / r).max()), rel=1e-12)


# --------------------------------------------------------------- three distinct values

P3 = np.array([[0.7, 0.2, 0.1], [0.25, 0.5, 0.25], [0.1, 0.3, 0.6]])
PI3 = np.array([0.5, 0.3, 0.2])
V3 = np.array([0.0, 0.5, 1.5])  # e^{V_c y} = s^0, s^1, s^3 with s = e^{y / 2}
EPS3 = np.array([0.0, 0.5, 1.0, 2.0])
PAIRS3 = ((0, 1), (0, 2), (1, 2))


def _pdf(x):
    return np.exp(-np.square(x) / 2) / math.sqrt(2 * math.pi)


@pytest.mark.parametrize(
    "values, per_cell, pinned",
    [
        ([0.0, 1.0, 3.0], 2, 2.5e-5),  # the tangent channel: measured 1.9e-5 (the pair 1, 3)
        ([2.0, -1.0, 0.0, 2.0], 2, 2.5e-5),  # the same three values shifted, two states share one
        ([0.0, 1.0, 2.5, 4.0], 7, 3e-4),  # four values, the box's corners: measured 2.4e-4
    ],
)
def test_more_values_one_step_brackets_every_pair_and_closes_like_bins_squared(values, per_cell, pinned):
    """One step of the upper channel of three or four values against the Gaussian mechanism of
    every pair of states (states sharing a value give equal rows); the gap narrows like
    ``bins^-2`` (8x the cells: ~50x narrower)."""
    v = np.asarray(values)
    widths = []
    for bins in (64, 512):
        ch = gaussian_channels(values, 1.0, bins, 1)
        assert ch.upper.shape[1] == per_cell * bins + 1 and ch.lower.shape[1] == bins + 2
        for M in (ch.lower, ch.upper):
            assert np.all(M > 0)
            np.testing.assert_allclose(M.sum(axis=1), 1.0, atol=1e-14)
        width = 0.0
        for a, b in itertools.combinations(range(v.size), 2):
            if v[a] == v[b]:
                np.testing.assert_array_equal(ch.upper[a], ch.upper[b])
                continue
            exact = gaussian_mechanism(abs(v[a] - v[b]), EPS)
            low = np.maximum(*hockey_stick_both([PairFactor(ch.lower[a], ch.lower[b])], EPS))
            high = np.maximum(*hockey_stick_both([PairFactor(ch.upper[a], ch.upper[b])], EPS)) + ch.slack(1)
            assert np.all(low <= exact + 1e-13), (a, b, low - exact)
            assert np.all(exact <= high + 1e-13), (a, b, exact - high)
            width = max(width, float(np.max(high - low)))
        widths.append(width)
    assert widths[1] <= pinned
    assert widths[0] / widths[1] >= 40


def test_tangent_channel_is_its_definition_integrated():
    """The tangent channel's entries against their definition: at each point of a cell the
    barycentric weights of the ratio vector ``r(z)`` in the triangle of ``r(a)``, ``r(b)`` and the
    meeting point of the curve's tangents at both ends, each solved as a linear system (no formula
    of the package), integrated against ``phi_1`` by adaptive quadrature; all three weights
    ``>= 0`` (the curve is in the triangle). Rows keep each value's mass of the range."""
    w = standard_values(np.array([0.0, 0.8, 2.0]), 1.0)
    nodes = np.array([-1.5, -0.5, 0.2, 1.0, 2.5])
    d = w[1:] - w[0]

    def r(z):
        return np.exp(d * z - d * (w[1:] + w[0]) / 2)

    node_w = np.zeros(nodes.size)
    tip_w = np.zeros(nodes.size - 1)
    tips = []
    for i, (a, b) in enumerate(zip(nodes[:-1], nodes[1:])):
        A, B = r(a), r(b)
        s = np.linalg.solve(np.column_stack([d * A, -d * B]), B - A)  # A + s0 A' = B + s1 B'
        T = A + s[0] * d * A
        tips.append(T)
        M = np.vstack([np.column_stack([A, B, T]), np.ones(3)])

        def lam(z, M=M):
            return np.linalg.solve(M, np.append(r(z), 1.0))

        for k in range(3):
            W = integrate.quad(lambda z, k=k: norm.pdf(z - w[0]) * lam(z)[k], a, b, epsabs=0, epsrel=1e-13)[0]
            assert W > 0
            if k == 0:
                node_w[i] += W
            elif k == 1:
                node_w[i + 1] += W
            else:
                tip_w[i] = W
    ratios = np.vstack([np.ones((1, nodes.size)), np.array([r(z) for z in nodes]).T])
    tip_ratios = np.vstack([np.ones((1, len(tips))), np.array(tips).T])
    want = np.hstack([node_w * ratios, tip_w * tip_ratios])
    mass = want.sum(axis=1)
    np.testing.assert_allclose(mass, norm.cdf(2.5 - w) - norm.cdf(-1.5 - w), rtol=1e-12)
    np.testing.assert_allclose(tangent_channel(w, nodes).matrix, want / mass[:, None], rtol=1e-11)


def test_corner_channel_is_its_definition_integrated():
    """The corner channel's entries against their definition, each weight ``int_cell phi_1
    lambda_c`` by adaptive quadrature of the multilinear weights written directly (``t_j = (r_j(z)
    - r_j(a)) / (r_j(b) - r_j(a))``); rows normalised. Its rows are the values' probabilities of
    the range, before normalising: the split loses no mass."""
    w = standard_values(np.array([0.0, 0.8, 2.0]), 1.0)
    nodes = np.array([-1.5, -0.5, 0.2, 1.0, 2.5])
    r = lambda j, z: math.exp((w[j] - w[0]) * z - (w[j] ** 2 - w[0] ** 2) / 2)  # noqa: E731
    corners = [(0, 1), (1, 0)]
    node_w = np.zeros(nodes.size)
    off = {c: np.zeros(nodes.size - 1) for c in corners}
    for i, (a, b) in enumerate(zip(nodes[:-1], nodes[1:])):
        for c in itertools.product((0, 1), repeat=2):

            def f(z, c=c, a=a, b=b):
                lam = 1.0
                for j, cj in enumerate(c, start=1):
                    t = (r(j, z) - r(j, a)) / (r(j, b) - r(j, a))
                    lam *= t if cj else 1 - t
                return norm.pdf(z - w[0]) * lam

            W = integrate.quad(f, a, b, epsabs=0, epsrel=1e-13)[0]
            if c == (0, 0):
                node_w[i] += W
            elif c == (1, 1):
                node_w[i + 1] += W
            else:
                off[c][i] = W
    rows = []
    for j in range(3):
        at = lambda z, j=j: r(j, z) if j else 1.0  # noqa: E731
        row = [node_w * np.array([at(z) for z in nodes])]
        for c in corners:
            ends = nodes[np.arange(nodes.size - 1) + (c[j - 1] if j else 0)]
            row.append(off[c] * np.array([at(z) for z in ends]))
        rows.append(np.concatenate(row))
    want = np.array(rows)
    mass = want.sum(axis=1)
    np.testing.assert_allclose(mass, norm.cdf(2.5 - w) - norm.cdf(-1.5 - w), rtol=1e-12)
    np.testing.assert_allclose(corner_channel(w, nodes).matrix, want / mass[:, None], rtol=1e-11)


def _positive_part(coef):
    """``int (sum_c coef_c phi(y - V3_c))_+ dy`` in closed form: its sign is that of the cubic
    ``sum_c coef_c e^{-V_c^2/2} s^{2 V_c}`` in ``s = e^{y / 2}`` (at most three positive roots)."""
    c = coef * np.exp(-(V3**2) / 2)
    roots = np.roots([c[2], 0.0, c[1], c[0]])
    s = np.sort([r.real for r in roots if abs(r.imag) <= 1e-9 * abs(r) and r.real > 0])
    cuts = np.concatenate([[-np.inf], 2 * np.log(s), [np.inf]])
    total = 0.0
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        if np.isfinite(lo) and np.isfinite(hi):
            mid = (lo + hi) / 2
        else:
            mid = lo + 1 if np.isfinite(lo) else (hi - 1 if np.isfinite(hi) else 0.0)
        if np.sum(coef * _pdf(mid - V3)) > 0:
            total += float(np.sum(coef * (ndtr(hi - V3) - ndtr(lo - V3))))
    return total


def three_value_delta(target, a, b, eps):
    """``delta(eps)`` of the true continuous pair of laws of ``(y_1, y_2)`` of the 3-state chain
    given ``x_target = a`` vs ``b`` (nothing known): the other output's integral in closed form
    (:func:`_positive_part`), the target's by adaptive quadrature (its error returned)."""
    other = other_record_law(P3, PI3, target, (a, b))
    e = math.exp(eps)

    def f(y):
        return _positive_part(_pdf(y - V3[a]) * other[a] - e * _pdf(y - V3[b]) * other[b])

    return integrate.quad(f, -14, 16, points=list(V3), epsabs=1e-12, epsrel=1e-10, limit=200)


def test_two_step_three_value_chain_bracket_contains_the_integrated_joint_law():
    """Both targets, every pair of values in both orders, 4 eps: the bracket of the tangent channel
    (512 cells) holds the true law's delta; width measured 9.1e-6 (3.6e-5 at 256 cells; the box's
    corners gave 1.7e-5 at 512)."""
    ch = gaussian_channels(list(V3), 1.0, 512, 2)
    width = 0.0
    for target in (1, 2):
        for a, b in PAIRS3:
            runs = [three_value_delta(target, x, y, e) for x, y in ((a, b), (b, a)) for e in EPS3]
            assert max(err for _, err in runs) <= 1e-9
            both = np.max(np.reshape([val for val, _ in runs], (2, -1)), axis=0)
            lo, hi = (
                np.asarray(
                    getattr(
                        release_profile(
                            local_release(P3, PI3, M.T, steps=2), target=target, pair=(a, b), grid=512
                        ).delta(EPS3),
                        end,
                    )
                )
                for M, end in ((ch.lower, "low"), (ch.upper, "high"))
            )
            hi = hi + ch.slack(2)
            assert np.all(lo <= both + 1e-10), (target, a, b, lo - both)
            assert np.all(both <= hi + 1e-10), (target, a, b, both - hi)
            width = max(width, float(np.max(hi - lo)))
    assert width <= 1.2e-5


@pytest.mark.parametrize("alpha", [1.5, 3.0])
def test_step_renyi_of_three_values_is_the_integral_of_both_parts(alpha):
    """The mixture ``G_j = (1 - tau') A_j + tau' B_j`` from its definition, integrated numerically:
    ``A_j = p_j 1_in / (1 - tau_j)``, ``B_j = p_j (1_out + rho_j 1_in) / tau'``, ``tau' = 2 max tau_j``."""
    w = standard_values(np.array([0.0, 0.7, 1.6]), 1.0)
    Z = 2.5
    tau_r, B = step_renyi_values(w, Z, alpha)
    tau = np.array([norm.sf(Z - x) + norm.cdf(-Z - x) for x in w])
    assert tau_r == pytest.approx(2 * tau.max(), rel=1e-12)
    rho = (tau_r - tau) / (1 - tau)
    assert np.all(rho > 0)

    def E(a, b, lo, hi, ga, gb):
        def f(z):
            return (
                ga**alpha
                * gb ** (1 - alpha)
                * math.exp(alpha * norm.logpdf(z - w[a]) + (1 - alpha) * norm.logpdf(z - w[b]))
            )

        return integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0]

    for a, b in itertools.permutations(range(3), 2):
        c = alpha * w[a] + (1 - alpha) * w[b]  # the integrand's centre: integrate around it, out to 40
        inside = E(a, b, -Z, Z, 1 / (1 - tau[a]), 1 / (1 - tau[b]))
        tails = E(a, b, min(-Z, c) - 40, -Z, 1, 1) + E(a, b, Z, max(Z, c) + 40, 1, 1)
        outside = (tails + E(a, b, -Z, Z, rho[a], rho[b])) / tau_r
        want = max(math.log(inside) / (alpha - 1), math.log(outside) / (alpha - 1), 0.0)
        assert B[a, b] == pytest.approx(want, rel=1e-8), (a, b)
    # two values: the mixture's weight is the common tau and the bound is step_renyi's
    tau2, B2 = step_renyi_values(standard_values(np.array([0.0, 1.3]), 1.0), Z, alpha)
    assert tau2 == outside_probability(1.3, Z)
    assert B2[0, 1] == B2[1, 0] == step_renyi(1.3, Z, alpha)


# --------------------------------------------------------------- the certified upper channel


def _exact_tangent_cell(a, h, d, phi):
    """``(W_A, W_B, W_T, s_A)`` of one cell of the tangent channel in mpmath (its docstring's
    formulas at 40 digits: no cancellation matters there)."""
    import mpmath as mp

    def g(j, t):
        return (mp.expm1(d[j] * t) - d[j] * t) / d[j]

    def x(j, t):
        return mp.expm1(d[j] * (t - a))

    E = [mp.expm1(dj * h) / dj if dj else 0 for dj in d]
    s_b = (E[2] - E[1]) / (mp.e ** (d[2] * h) - mp.e ** (d[1] * h))
    s_a = E[1] - s_b * mp.e ** (d[1] * h)
    gh = g(2, h) - g(1, h)

    def lam_b(t):
        return (g(2, t - a) - g(1, t - a)) / gh

    def lam_t(t):
        return (x(1, a + h) * x(2, t) - x(2, a + h) * x(1, t)) / (s_a * d[1] * d[2] * (g(1, h) - g(2, h)))

    WA = mp.quad(lambda t: phi(t) * (1 - lam_b(t) - lam_t(t)), [a, a + h])
    WB = mp.quad(lambda t: phi(t) * lam_b(t), [a, a + h])
    WT = mp.quad(lambda t: phi(t) * lam_t(t), [a, a + h])
    return WA, WB, WT, s_a


def _exact_upper(centres, nodes):
    """The upper channel of the module docstring with its weights integrated by mpmath at 40
    digits (the multilinear, tangent or node weights written from their definitions in mpmath):
    rows normalised, as mpmath numbers."""
    import mpmath as mp

    mp.mp.dps = 40
    w = [mp.mpf(float(x)) for x in centres]
    z = [mp.mpf(float(x)) for x in nodes]
    m, N = len(w), len(z) - 1
    d = [wj - w[0] for wj in w]
    r = lambda j, t: mp.e ** (d[j] * t - d[j] * (w[j] + w[0]) / 2)  # noqa: E731
    phi = lambda t: mp.npdf(t - w[0])  # noqa: E731
    node_w = [mp.mpf(0)] * (N + 1)
    extra: list = []  # (weight, ratio vector) per further output, in the channel's order
    if m == 3:
        for i in range(N):
            WA, WB, WT, s_a = _exact_tangent_cell(z[i], z[i + 1] - z[i], d, phi)
            node_w[i] += WA
            node_w[i + 1] += WB
            extra.append((WT, [r(j, z[i]) * (1 + s_a * d[j]) for j in (1, 2)]))
    else:
        corners = list(itertools.product((0, 1), repeat=m - 1))
        per_corner = {c: [] for c in corners}
        for i in range(N):
            a, b = z[i], z[i + 1]

            def lam(t, c, a=a, b=b):
                out = mp.mpf(1)
                for j, cj in enumerate(c, start=1):
                    tj = mp.expm1(d[j] * (t - a)) / mp.expm1(d[j] * (b - a))
                    out *= tj if cj else 1 - tj
                return out

            for c in corners:
                W = mp.quad(lambda t, c=c: phi(t) * lam(t, c), [a, b])
                if not any(c):
                    node_w[i] += W
                elif all(c):
                    node_w[i + 1] += W
                else:
                    per_corner[c].append((W, [r(j, z[i + cj]) for j, cj in enumerate(c, start=1)]))
        extra = [x for c in corners if any(c) and not all(c) for x in per_corner[c]]
    rows = []
    for j in range(m):
        row = [node_w[i] * (r(j, z[i]) if j else 1) for i in range(N + 1)]
        row += [W * (ratios[j - 1] if j else 1) for W, ratios in extra]
        total = mp.fsum(row)
        rows.append([x / total for x in row])
    return rows


@pytest.mark.parametrize(
    "values, coarse",
    [
        ([0.0, 1.3], (4, 8, 1e-8)),  # two values, the node channel: measured 2.4e-8, bound 6.9e-4
        ([0.0, 0.8, 2.0], (6, 8, 1e-12)),  # the tangent channel: measured 2.9e-12, bound 0.14
        ([0.0, 1.0, 2.5, 4.0], (20, 4, 1e-15)),  # the box's corners: measured 5.0e-15, bound 8.1e-8
    ],
)
def test_the_upper_channel_is_within_its_error_bound_of_the_exact_one(values, coarse, monkeypatch):
    """Every entry of the computed upper channel (two values: nodes; three: tangent; four: box
    corners) within ``e^{+-error}`` of the channel integrated by mpmath at 40 digits, on 10 cells
    (the tails' wide ones included): as the package computes it (20 Gauss-Legendre points on as
    many pieces of a cell as the remainder needs: measured below 1.1e-14, bound below 1e-11), and
    with a coarse rule (points, pieces) whose remainder is far above the rounding and must be what
    the bound covers."""
    import mpmath as mp

    from bdpsim.kernels.chains import value_channels as vc

    w = standard_values(np.array(values), 1.0)
    mu = float(w[-1] - w[0])
    nodes = vc.nodes_for(mu, range_for(mu, 10), 10, centres=None if w.size == 2 else w)
    exact = _exact_upper(w, nodes)

    def split(parts):
        if w.size == 2:
            return vc.upper_channel(mu, nodes, parts)
        return (vc.tangent_channel if w.size == 3 else vc.corner_channel)(w, nodes, parts)

    def off(got):
        pairs = ((x, e) for row, erow in zip(got.matrix, exact) for x, e in zip(row, erow))
        return max(abs(float(mp.log(e / mp.mpf(float(x))))) for x, e in pairs)

    got = split(None)
    assert off(got) <= got.error <= 1e-11, (off(got), got.error)
    points, parts, least = coarse
    monkeypatch.setattr(vc, "QUADRATURE", points)
    got = split(parts)
    assert least <= off(got) <= got.error < 1, (off(got), got.error)


def test_a_coarse_quadrature_breaks_the_upper_end_and_its_error_bound_restores_it(monkeypatch):
    """Two Gauss-Legendre points per cell, no pieces: the upper channel's one-step delta plus the
    range's outside probability alone falls below the Gaussian mechanism's (measured 1.4e-10
    below, mu = 1, 512 cells); the slack with the channel's error (2.6e-2 per step) holds it."""
    from bdpsim.kernels.chains import value_channels as vc

    monkeypatch.setattr(vc, "QUADRATURE", 2)
    monkeypatch.setattr(vc, "MAX_PARTS", 1)
    ch = gaussian_channels([0.0, 1.0], 1.0, 512, 1)
    exact = gaussian_mechanism(1.0, EPS)
    high = _one_step(ch.upper)
    assert np.min(high + outside_over(ch.outside, 1) - exact) < -1e-10
    assert 1e-3 < ch.error < 0.1
    assert np.all(exact <= high + ch.slack(1))
