"""The two discretisations of a filter's vector measure (bdpsim/kernels/chains/belief_grid.py): both
keep every coordinate's total, the merge can only shrink and the split only grow the hockey-stick
divergence of any pair of hypotheses, alone and composed with an independent release, and so
through any number of later filter steps."""

import math

import numpy as np
import pytest

from bdpsim.kernels.argcheck import TooExpensive
from bdpsim.kernels.chains.belief_grid import (
    Atoms,
    loss_factor,
    merge_in_grid,
    pair_masses,
    propagate,
    split_onto_grid,
)
from bdpsim.kernels.chains.pair_product import PairFactor, hockey_stick_both

EPS = np.linspace(0.0, 3.0, 13)


def _atoms(rng, n, k):
    return Atoms.of(rng.dirichlet(np.ones(k), size=n) * rng.random(n)[:, None])


def _delta(atoms, a, b, other=None):
    p, q = pair_masses(atoms, a, b)
    parts = [PairFactor(p, q)] + ([other] if other is not None else [])
    return np.maximum(*hockey_stick_both(parts, EPS))


@pytest.mark.parametrize("k", [2, 3, 4])
def test_split_and_merge_keep_every_total(k):
    rng = np.random.default_rng(k)
    atoms = _atoms(rng, 400, k)
    for cells in (1, 2, 5, 17):
        up, low = split_onto_grid(atoms, cells), merge_in_grid(atoms, cells)
        for out in (up, low):
            np.testing.assert_allclose(out.total(), atoms.total(), rtol=1e-13)
        assert up.size <= (cells + 1) ** (k - 1)
        assert low.size <= min(cells ** (k - 1) + k * (k - 1), atoms.size)


@pytest.mark.parametrize("k", [2, 3])
def test_merge_shrinks_and_split_grows_every_divergence(k):
    rng = np.random.default_rng(10 + k)
    other = PairFactor(np.array([0.2, 0.5, 0.3]), np.array([0.4, 0.4, 0.2]))
    L = rng.dirichlet(np.ones(k), size=k).T  # a release: columns sum to 1
    M = rng.dirichlet(np.ones(k), size=k)
    for _ in range(5):
        atoms = _atoms(rng, 300, k)
        for cells in (2, 4, 9):
            low, up = merge_in_grid(atoms, cells), split_onto_grid(atoms, cells)
            # two more filter steps on all three: the order must survive propagation
            true3 = propagate(propagate(atoms, L, M), L, M)
            low3 = propagate(propagate(low, L, M), L, M)
            up3 = propagate(propagate(up, L, M), L, M)
            for a in range(k):
                for b in range(k):
                    if a == b:
                        continue
                    for x, y, z in ((low, atoms, up), (low3, true3, up3)):
                        for o in (None, other):
                            dl, dt, du = _delta(x, a, b, o), _delta(y, a, b, o), _delta(z, a, b, o)
                            assert np.all(dl <= dt + 1e-13) and np.all(dt <= du + 1e-13)


def test_the_split_is_exact_on_grid_nodes_and_the_merge_on_one_direction():
    # ln ratios -2, 0, 2: the grid of 2 cells has them as nodes, the split moves nothing
    r = math.e
    atoms = Atoms.of(np.array([[1.0, r], [1.0, 1.0], [r, 1.0]]) * np.array([[0.3], [0.3], [0.4]]))
    up = split_onto_grid(atoms, 2)
    assert up.size == 3
    np.testing.assert_allclose(np.sort(up.w * up.D[0]), np.sort(atoms.w * atoms.D[0]), rtol=1e-14)
    same = Atoms.of(np.array([[0.1, 0.3], [0.2, 0.6], [0.05, 0.15]]))
    merged = merge_in_grid(same, 4)
    assert merged.size <= 2 and merged.total() == pytest.approx([0.35, 1.05])


@pytest.mark.parametrize("kind", ["lower", "upper"])
def test_the_loss_factor_brackets_in_one_dimension(kind):
    rng = np.random.default_rng(5)
    atoms = _atoms(rng, 2000, 3)
    exact = loss_factor(atoms, 0, 2, 10**6, kind)
    assert exact.size == atoms.size
    other = PairFactor(np.array([0.6, 0.4]), np.array([0.3, 0.7]))
    d_exact = np.maximum(*hockey_stick_both([exact, other], EPS))
    for bins in (3, 30, 300):
        f = loss_factor(atoms, 0, 2, bins, kind)
        assert f.size <= bins + 2
        assert f.p.sum() == pytest.approx(1.0, abs=1e-12) and f.q.sum() == pytest.approx(1.0, abs=1e-12)
        d = np.maximum(*hockey_stick_both([f, other], EPS))
        if kind == "lower":
            assert np.all(d <= d_exact + 1e-13)
        else:
            assert np.all(d >= d_exact - 1e-13)
        # the largest loss is kept exactly
        assert max(f.max_loss(), f.reversed().max_loss()) == pytest.approx(
            max(exact.max_loss(), exact.reversed().max_loss()), abs=1e-12
        )


def test_a_grid_too_fine_is_refused_up_front():
    atoms = _atoms(np.random.default_rng(6), 50, 4)
    with pytest.raises(
        TooExpensive, match=r"^grid = 1000: a grid of 1000 cells per axis in 3 dimensions has"
    ):
        split_onto_grid(atoms, 1000)


def test_ratios_beyond_the_float_range_are_refused():
    atoms = Atoms(np.array([[1.0, 1.0], [1e-320 * 0.0 + 0.0, 1.0]]), np.ones(2))
    with pytest.raises(ValueError, match="left the floating-point range"):
        split_onto_grid(atoms, 4)
    assert math.isfinite(float(atoms.total()[0]))


def test_the_merge_rescales_the_atoms_it_keeps_apart():
    """The atoms that maximise a ratio are kept apart by the merge; each filter step multiplies
    an atom by a likelihood, so a kept atom left at its own scale shrank step after step and
    underflowed on a long chain with small likelihoods (a Gaussian release's far tail bins:
    'a ratio of forward vectors left the floating-point range' after a dozen steps). Every atom
    out of the merge now has a direction summing to 1 and the same vector."""
    D = np.array([[1e-200, 3e-1, 2e-1, 5e-201], [3e-200, 1e-1, 4e-1, 5e-201]])
    atoms = Atoms(D, np.array([1.0, 2.0, 3.0, 4.0]))
    low = merge_in_grid(atoms, 1)
    np.testing.assert_allclose(low.D.sum(axis=0), 1.0, rtol=1e-15)
    np.testing.assert_allclose(low.total(), atoms.total(), rtol=1e-14)
    L = np.array([[1e-16, 1e-16], [1 - 1e-16, 1 - 1e-16]])
    P = np.array([[0.8, 0.2], [0.3, 0.7]])
    for _ in range(30):  # before: the kept atoms' entries underflowed to 0 by here
        low = merge_in_grid(propagate(low, L, P), 1)
        assert bool(np.all(low.D > 0))
