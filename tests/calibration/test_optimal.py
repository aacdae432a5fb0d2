"""Optimal integer noise (issue 30 §2): the LP's noise is eps-BDP by an independent brute force over
every data tuple and adversary, beats calibrated geometric noise, and a tiny LP equals the full LP
over every adversary and output without the window reduction or constraint generation."""

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from bdpsim.calibration import calibrate
from bdpsim.calibration.optimal import law_pairs, mirror_closed, optimal_noise
from bdpsim.kernels.chains.transition import ACTIVITY
from bdpsim.kernels.noise import optimal_lp as lp
from bdpsim.models import MarkovChainModel, symmetric_chain

from ..helpers import markov_joint


def _all_adversary_laws(model):
    """Every adversary (i, K, x_K) and target pair x < x' with both of positive probability: the
    exact count laws P(C = c | x_K, x) by enumeration of every data tuple."""
    tuples, prob = markov_joint(model)
    n = model.n
    count = (tuples == 1).sum(axis=1)
    out = []
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for k in range(n):
            for K in itertools.combinations(others, k):
                for xk in itertools.product(range(2), repeat=k):
                    ok = np.all(tuples[:, list(K)] == xk, axis=1) if K else np.ones(len(tuples), bool)
                    laws = []
                    for x in (0, 1):
                        sel = ok & (tuples[:, i] == x)
                        laws.append(np.bincount(count[sel], weights=prob[sel], minlength=n + 1))
                    if laws[0].sum() > 0 and laws[1].sum() > 0:
                        out.append((laws[0] / laws[0].sum(), laws[1] / laws[1].sum()))
    return out


def _f(offset, pmf, r, z):
    """P(Z = z) from the table's definition."""
    if z < offset:
        return pmf[0] * r ** (offset - z)
    if z > offset + len(pmf) - 1:
        return pmf[-1] * r ** (z - offset - len(pmf) + 1)
    return pmf[z - offset]


def _brute_bdpl(model, noise):
    """max over every adversary and output of |ln p(s | x_K, 0) / p(s | x_K, 1)|. Outputs beyond
    [offset - 1, offset + len + n] give a constant ratio (every s - c is in one geometric tail:
    p(s) = const * r^distance for both laws), so this window is the whole supremum."""
    o, pmf, r, n = noise.offset, noise.pmf, noise.tail_ratio, model.n
    s = np.arange(o - 1, o + len(pmf) + n + 1)
    F = np.array([[_f(o, pmf, r, int(v - c)) for c in range(n + 1)] for v in s])  # (outputs, counts)
    worst = 0.0
    for a, b in _all_adversary_laws(model):
        p, q = F @ a, F @ b
        live = (p > 0) | (q > 0)
        worst = max(worst, float(np.max(np.abs(np.log(p[live]) - np.log(q[live])))))
    return worst


def test_activity_n6_is_eps_bdp_by_brute_force_and_beats_geometric():
    model = MarkovChainModel(np.array(ACTIVITY), 6)
    opt = optimal_noise(model, 1.0, [0.0, 1.0])
    assert opt.bdpl <= 1.0 and opt.tolerance == 0.0
    assert _brute_bdpl(model, opt.noise) <= 1.0 + 1e-12
    geo = calibrate(model, 1.0, noise="geometric")
    q = math.exp(-geo.parameter)
    geo_abs = 2 * q / (1 - q * q)  # E|Z| of the two-sided geometric law
    assert geo_abs == pytest.approx(3.0662, abs=1e-4)
    assert opt.mean_abs <= geo_abs
    assert opt.mean_abs < 0.95 * geo_abs  # measured 2.852: 7 % less noise than geometric
    assert sum(opt.noise.pmf) + (opt.noise.pmf[0] + opt.noise.pmf[-1]) * opt.noise.tail_ratio / (
        1 - opt.noise.tail_ratio
    ) == pytest.approx(1.0, abs=1e-12)


def _independent_lp(model, eps, M, r, objective):
    """The full LP: f on [-M, M] with tails of ratio r; a condition for every adversary (no window
    reduction), both directions, every output s in a window wider than needed; solved at once."""
    n = model.n
    ks = np.arange(-M, M + 1)

    def coeff(z):  # f(z) as a multiple of one variable
        if z < -M:
            return 0, r ** (-M - z)
        if z > M:
            return 2 * M, r ** (z - M)
        return z + M, 1.0

    rows = []
    for a, b in _all_adversary_laws(model):
        for w, wp in ((a, b), (b, a)):
            for s in range(-M - n - 3, M + n + 4):
                row = np.zeros(2 * M + 1)
                for c in range(n + 1):
                    j, v = coeff(s - c)
                    row[j] += (w[c] - math.exp(eps) * wp[c]) * v
                sc = np.abs(row).sum()
                if sc > 0:
                    rows.append(row / sc)
    tail = r / (1 - r)
    mass = np.ones(2 * M + 1)
    mass[[0, -1]] += tail
    if objective == "mean_abs":
        cost = np.abs(ks).astype(float)
        extra = sum((M + k) * r**k for k in range(1, 2000))
    else:
        cost = (ks * ks).astype(float)
        extra = sum((M + k) ** 2 * r**k for k in range(1, 2000))
    cost[[0, -1]] += extra
    res = linprog(
        cost,
        A_ub=np.array(rows),
        b_ub=np.zeros(len(rows)),
        A_eq=mass[None, :],
        b_eq=[1.0],
        bounds=(0, None),
        method="highs",
    )
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("objective", ["mean_abs", "variance"])
@pytest.mark.parametrize("n,P", [(4, ACTIVITY), (3, ((0.6, 0.4), (0.1, 0.9)))])
def test_tiny_lp_equals_the_full_lp_without_reduction(n, P, objective):
    model = MarkovChainModel(np.array(P), n)
    pairs, tol = law_pairs(model, [0.0, 1.0])
    assert tol == 0.0
    eps, M = 1.0, 10
    r = lp.min_tail_ratio(pairs, eps) ** 0.8
    got = lp.solve(pairs, eps, M, r, objective=objective)
    assert got.excess <= 1e-9
    assert got.objective == pytest.approx(_independent_lp(model, eps, M, r, objective), rel=1e-7)


def test_symmetry_detected_and_imposed():
    sym = MarkovChainModel(symmetric_chain(3.0), 5)
    pairs, _ = law_pairs(sym, [0.0, 1.0])
    assert mirror_closed(pairs)
    assert not mirror_closed(law_pairs(MarkovChainModel(np.array(ACTIVITY), 5), [0.0, 1.0])[0])
    opt = optimal_noise(sym, 1.0, [0.0, 1.0], M=12)
    assert opt.symmetric and opt.bdpl <= 1.0
    p = np.array(opt.noise.pmf)
    np.testing.assert_allclose(p, p[::-1], atol=1e-12)
    free = optimal_noise(sym, 1.0, [0.0, 1.0], M=12, symmetric=False)
    assert opt.mean_abs == pytest.approx(free.mean_abs, rel=1e-6)  # symmetry loses nothing here


def test_bad_arguments():
    model = MarkovChainModel(np.array(ACTIVITY), 5)
    from bdpsim.core.errors import ConfigError

    with pytest.raises(ConfigError, match="objective"):
        optimal_noise(model, 1.0, [0.0, 1.0], objective="median")
    with pytest.raises(ConfigError, match="state_values"):
        optimal_noise(model, 1.0, [0.0, 0.5 + 1e-3])
    with pytest.raises(ConfigError, match="tail_ratio"):
        optimal_noise(model, 1.0, [0.0, 1.0], tail_ratio=0.1)
    with pytest.raises(ConfigError, match="model = 'object': has no exact engine over every adversary"):
        optimal_noise(object(), 1.0, [1.0, 0.0, 0.0])  # pedigrees: tests/calibration/test_optimal_pedigree.py


def test_large_epsilon_narrows_the_window_instead_of_failing():
    """At eps = 10 on the activity chain the auto M (floor 8) spans masses down to ~1e-20 and HiGHS
    calls every ratio infeasible; the narrower windows tried next give a verified noise, below
    the exactly calibrated geometric noise's E|Z| (which is itself feasible for the LP's family)."""
    model = MarkovChainModel(np.array(ACTIVITY), 12)
    opt = optimal_noise(model, 10.0, [0.0, 1.0])
    assert opt.M < 8 and opt.bdpl + opt.tolerance <= 10.0
    geo = calibrate(model, 10.0, noise="geometric")
    assert opt.mean_abs <= geo.mean_abs
