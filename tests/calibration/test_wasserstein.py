"""Wasserstein mechanism: W_inf against direct quantile computations, conditional laws, W."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from bdpsim.calibration.wasserstein import markov_laws, quantile, w_infinity, wasserstein_scale
from bdpsim.core.errors import ConfigError
from bdpsim.kernels.chains.lattice import lattice
from bdpsim.models import MarkovChainModel, symmetric_chain
from bdpsim.models.pedigree.model import PedigreeModel

ACTIVITY = [[0.882, 0.118], [0.305, 0.695]]


def _grid_w(a1, p1, a2, p2):
    """``max |Q1(u) - Q2(u)|`` over the midpoints of every pair of consecutive CDF levels of
    either law (where both quantile functions are constant) plus a uniform grid."""
    F1 = np.cumsum(np.asarray(p1)[np.argsort(a1)]) / np.sum(p1)
    F2 = np.cumsum(np.asarray(p2)[np.argsort(a2)]) / np.sum(p2)
    lev = np.unique(np.concatenate([[0.0], F1, F2]))
    u = np.concatenate([(lev[:-1] + lev[1:]) / 2, np.linspace(1e-9, 1 - 1e-9, 2001)])
    return float(np.max(np.abs(quantile(a1, p1, u) - quantile(a2, p2, u))))


def test_w_infinity_matches_direct_quantiles_on_random_laws(rng):
    for _ in range(300):
        k1, k2 = rng.integers(1, 9, 2)
        a1 = rng.choice(np.arange(-5, 15) * 0.5, k1).astype(float)
        a2 = rng.choice(np.arange(-5, 15) * 0.5, k2).astype(float)
        p1, p2 = rng.random(k1), rng.random(k2)
        assert w_infinity(a1, p1, a2, p2) == _grid_w(a1, p1, a2, p2)


def test_w_infinity_basic_properties():
    a, p = np.arange(6.0), np.array([0.1, 0.2, 0.3, 0.1, 0.2, 0.1])
    assert w_infinity(a, p, a + 3, p) == 3.0
    assert w_infinity(a, p, a, p) == 0.0
    assert w_infinity([0.0], [1.0], [2.5], [1.0]) == 2.5
    # a point mass against a spread law: the farthest atom counts, whatever its mass
    assert w_infinity([0.0, 10.0], [1 - 1e-30, 1e-30], [0.0], [1.0]) == 10.0
    assert w_infinity(a, p, a[::-1], p[::-1]) == 0.0  # order of atoms does not matter
    with pytest.raises(ConfigError):
        w_infinity([0.0], [-1.0], [0.0], [1.0])


def _exact_count_law(P, w, n, i, x):
    """``P(count of 1 = c | X_i = x)`` with Fractions, by enumerating every tuple."""
    law = [Fraction(0)] * (n + 1)
    for xs in itertools.product((0, 1), repeat=n):
        if xs[i] != x:
            continue
        pr = w[xs[0]]
        for t in range(1, n):
            pr *= P[xs[t - 1]][xs[t]]
        law[sum(xs)] += pr
    z = sum(law)
    return [v / z for v in law]


def _exact_w(l1, l2):
    """W_inf of two laws on 0..n from exact (rational) quantile functions."""

    def q(law, u):
        c = Fraction(0)
        for k, v in enumerate(law):
            c += v
            if c >= u:
                return k
        return len(law) - 1

    levels = sorted(set(itertools.accumulate(l1)) | set(itertools.accumulate(l2)) | {Fraction(0)})
    return max(abs(q(l1, (lo + hi) / 2) - q(l2, (lo + hi) / 2)) for lo, hi in zip(levels, levels[1:]))


@pytest.mark.parametrize(
    "P,w",
    [
        (
            [[Fraction(9, 10), Fraction(1, 10)], [Fraction(3, 10), Fraction(7, 10)]],
            [Fraction(3, 4), Fraction(1, 4)],
        ),
        (
            [[Fraction(10, 11), Fraction(1, 11)], [Fraction(1, 11), Fraction(10, 11)]],
            [Fraction(1, 2), Fraction(1, 2)],
        ),
        (
            [[Fraction(1, 5), Fraction(4, 5)], [Fraction(1, 2), Fraction(1, 2)]],
            [Fraction(1, 2), Fraction(1, 2)],
        ),
    ],
)
def test_chain_w_against_rational_quantiles(P, w):
    """Every record, both values, T = 9: the float pipeline (conditional laws + W_inf) equals W_inf
    of the exact rational laws, extreme tails included."""
    n = 9
    model = MarkovChainModel([[float(v) for v in r] for r in P], n, [float(v) for v in w])
    laws = markov_laws(model, np.array([0.0, 1.0]))
    worst = 0
    for i in range(n):
        exact = [_exact_count_law(P, w, n, i, x) for x in (0, 1)]
        for x in (0, 1):
            assert laws[i, x][1] == pytest.approx([float(v) for v in exact[x]], rel=1e-12, abs=1e-300)
        wi = _exact_w(*exact)
        assert w_infinity(*laws[i, 0], *laws[i, 1]) == wi
        worst = max(worst, wi)
    assert wasserstein_scale(model).W == worst


def test_markov_laws_match_the_clamped_recursion(rng):
    for _ in range(4):
        P = rng.dirichlet([1, 1, 1], 3)
        n = int(rng.integers(2, 14))
        model = MarkovChainModel(P, n, rng.dirichlet([1, 1, 1]))
        vals = np.array([0.0, 1.5, -0.5])
        g, _, _ = lattice(vals)
        laws = markov_laws(model, vals)
        for (i, x), (atoms, law) in laws.items():
            ref = model.additive_law({i: x}, g)
            assert law[: ref.size] == pytest.approx(ref, rel=1e-11, abs=1e-300)
            assert atoms[0] == n * -0.5 and atoms[1] - atoms[0] == pytest.approx(0.5)


def test_wasserstein_scales():
    assert wasserstein_scale(MarkovChainModel([[0.75, 0.25], [0.25, 0.75]], 100)).W == 4.0
    act = wasserstein_scale(MarkovChainModel(ACTIVITY, 288))
    assert (act.W, act.x, act.x_prime) == (5.0, 0, 1) and act.scale(2.0) == 2.5
    assert wasserstein_scale(MarkovChainModel(symmetric_chain(10.0), 288)).W == 11.0
    # independent records: W_inf = sensitivity, the DP scale
    row = [0.3, 0.7]
    assert wasserstein_scale(MarkovChainModel([row, row], 20, row)).W == 1.0
    # a state sum scales with its values
    assert wasserstein_scale(MarkovChainModel([row, row], 20, row), state_values=[0.0, 2.5]).W == 2.5


def test_pedigree_wasserstein():
    fam = PedigreeModel.nuclear(5)
    res = wasserstein_scale(fam)
    atoms = np.arange(6.0)
    direct = max(
        _grid_w(atoms, fam.count_law({i: x}, (0,)), atoms, fam.count_law({i: xp}, (0,)))
        for i in range(5)
        for x, xp in ((0, 1), (0, 2), (1, 2))
    )
    assert res.W == direct == 5.0  # a BB child vs a bb child: count 5 (all BB) vs at most 2
    with pytest.raises(ConfigError):
        wasserstein_scale(fam, state_values=[0, 1, 2])


@pytest.mark.parametrize("size", [3, 5])
def test_pedigree_wasserstein_mechanism_is_pufferfish_private(size):
    """Lap(W/eps) on a nuclear family's BB count: the adversary who knows no record (Pufferfish's)
    leaks at most eps (the paper's Thm 3.2); every adversary's exact BDPL is computed too."""
    from bdpsim import Adversary, LaplaceCount, exact_bdpl

    fam = PedigreeModel.nuclear(size)
    w = wasserstein_scale(fam)
    for eps in (1.0, 5.0):
        mech = LaplaceCount(eps / w.W, (0,))
        none = max(
            exact_bdpl(fam, mech, Adversary(i, (), (), x, xp)).bdpl
            for i in range(fam.n)
            for x, xp in ((0, 1), (0, 2), (1, 2))
        )
        assert none <= eps + 1e-12
        assert none <= exact_bdpl(fam, mech).bdpl <= eps + 1e-12
