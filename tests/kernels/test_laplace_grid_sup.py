"""The one exact Laplace grid supremum (:func:`bdpsim.kernels.noise.laplace_mixture.grid_sup`) and
its alias :func:`grid_mixture_sup`, against an independent brute force.

Brute force: ``ln p(y) = ln sum_j w_j e^{-|y - j|/b} - ln sum_j w_j`` by a direct sum over every
atom, scaled by its largest term and summed exactly (``math.fsum``), at every lattice point (the
supremum is attained at an atom or in a tail, where the ratio equals its value at the extreme
lattice point); for small grids also on a dense float grid of ``y`` reaching far into both tails,
which checks that no ``y`` between or beyond the atoms exceeds it.

Tolerance: ``1e-12`` relative, plus an absolute floor for values near zero. Each density is a
sum of positive terms computed by ``J`` multiply-adds (relative error ``<= J eps``), and the
log-ratio is a difference of two logs of magnitude ``M`` (``eps M`` each, for the brute force
too), so ``|error| <= 1e-12 |value| + 16 eps (J + M)``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from bdpsim.kernels.noise import laplace_mixture as lm
from bdpsim.kernels.noise.laplace_mixture import grid_mixture_sup, grid_sup, mixture_sup

EPS = float(np.finfo(float).eps)


def _log_density(w: np.ndarray, b: float) -> np.ndarray:
    """``ln p(k)``, ``k = 0..J-1``, of the normalised mixture: direct exactly-rounded sums."""
    J = w.size
    nz = np.flatnonzero(w > 0)
    lw = np.log(w[nz])
    out = np.empty(J)
    for k in range(J):
        terms = lw - np.abs(k - nz) / b
        m = float(terms.max())
        out[k] = m + math.log(math.fsum(np.exp(terms - m)))
    return out - math.log(math.fsum(w))


def _brute(w1: np.ndarray, w2: np.ndarray, b: float) -> tuple[np.ndarray, float]:
    """``ln p1(k)/p2(k)`` at every lattice point, and the tolerance floor ``16 eps (J + M)``."""
    l1, l2 = _log_density(w1, b), _log_density(w2, b)
    return l1 - l2, 16 * EPS * (w1.size + float(np.max(np.abs(l1) + np.abs(l2))))


def _random_row(rng, J: int) -> np.ndarray:
    """Weights with zeros (30 %) and tiny weights (1e-200, 20 %), a positive total."""
    w = rng.random(J) ** 3
    w[rng.random(J) < 0.3] = 0.0
    w[rng.random(J) < 0.2] *= 1e-200
    if w.sum() == 0:
        w[rng.integers(J)] = 1.0
    return w


def _check(v: float, atom: float, d: np.ndarray, floor: float) -> None:
    ref = d[int(np.argmax(np.abs(d)))]
    tol = 1e-12 * abs(ref) + floor
    assert abs(abs(v) - abs(ref)) <= tol, (v, ref, tol)
    if abs(ref) > tol:  # the sign: the direction of the larger one-sided supremum
        assert np.sign(v) == np.sign(ref) or abs(d.max() + d.min()) <= 2 * tol
    assert atom == int(atom) and 0 <= atom < d.size
    assert abs(d[int(atom)] - v) <= tol  # the reported atom attains it


@pytest.mark.parametrize("seed", range(24))
def test_grid_sup_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    J = int(rng.choice([1, 2, 5, 50, 400]))
    B = 3
    b = 10 ** rng.uniform(-3, 3)
    W1 = np.array([_random_row(rng, J) for _ in range(B)])
    W2 = np.array([_random_row(rng, J) for _ in range(B)])
    W2[0] = W1[0] * 7.0  # the same mixture up to its mass: the supremum is 0
    val, atom = grid_sup(W1, W2, b)
    for r in range(B):
        d, floor = _brute(W1[r], W2[r], b)
        _check(val[r], atom[r], d, floor)
    assert abs(val[0]) <= 64 * EPS * (J + 1 / b)


@pytest.mark.parametrize("b", [1e-3, 0.37, 1e3])
def test_grid_sup_on_3000_atoms(b):
    rng = np.random.default_rng(int(b * 1000))
    W1, W2 = _random_row(rng, 3000)[None], _random_row(rng, 3000)[None]
    val, atom = grid_sup(W1, W2, b)
    d, floor = _brute(W1[0], W2[0], b)
    _check(val[0], atom[0], d, floor)


@pytest.mark.parametrize("seed", range(6))
def test_no_output_between_or_beyond_the_atoms_exceeds_it(seed):
    rng = np.random.default_rng(100 + seed)
    J = int(rng.integers(1, 30))
    b = 10 ** rng.uniform(-1, 1.5)
    w1, w2 = _random_row(rng, J), _random_row(rng, J)
    val, _ = grid_sup(w1[None], w2[None], b)
    y = np.concatenate([np.linspace(-60 * b - 2, J + 1 + 60 * b, 100_001), np.arange(J, dtype=float)])
    with np.errstate(divide="ignore"):
        lp = [
            logsumexp(np.log(w)[None, :] - np.abs(y[:, None] - np.arange(J)) / b, axis=1) - np.log(w.sum())
            for w in (w1, w2)
        ]
    dense = lp[0] - lp[1]
    assert np.abs(dense).max() <= abs(val[0]) + 1e-9  # float64 dense grid: |ln p| <= ~60
    assert np.abs(dense).max() >= abs(val[0]) - 1e-9  # attained (the atoms are on the grid)


def test_underflowing_rows_take_the_exact_log_space_path(monkeypatch):
    """Densities below 1e-300 at a weighted atom (disjoint supports at b = 1e-3, subnormal
    weights): the row goes to :func:`mixture_sup`, and the value is still the brute force's."""
    calls = []

    def spy(*a, **k):
        calls.append(a)
        return mixture_sup(*a, **k)

    monkeypatch.setattr(lm, "mixture_sup", spy)
    rng = np.random.default_rng(7)
    W1 = np.array([[1.0, 0.0, 0.0, 2.0, 0.0], [0.5, 0.2, 0.3, 0.1, 0.4], [1e-310, 1.0, 0.0, 1.0, 1.0]])
    W2 = np.array([[0.0, 1.0, 1.0, 0.0, 0.0], [0.3, 0.3, 0.1, 0.2, 0.5], [1.0, 1.0, 1e-310, 0.0, 2.0]])
    for b in (1e-3, 1.4e-3):  # e^{-1/b} < 1e-300: a neighbour's weight underflows
        calls.clear()
        val, atom = grid_sup(W1, W2, b)
        assert len(calls) == 2  # rows 0 and 2; row 1 has every weight positive
        for r in range(3):
            d, floor = _brute(W1[r], W2[r], b)
            _check(val[r], atom[r], d, floor)
    W = rng.random((2, 40))
    calls.clear()
    grid_sup(W[:1], W[1:], 1.0)
    assert calls == []  # the linear-space path when nothing underflows


def test_alias_on_a_shifted_lattice_and_off_it(rng):
    atoms = 3.5 + 0.25 * np.arange(12)
    W1, W2 = rng.dirichlet(np.ones(12), size=5), rng.dirichlet(np.ones(12), size=5)
    W2[2, 4] = 0.0
    with np.errstate(divide="ignore"):
        v, where = grid_mixture_sup(np.log(W1), np.log(W2), atoms, 0.6)
    with np.errstate(divide="ignore"):
        ref, _ = grid_sup(np.exp(np.log(W1)), np.exp(np.log(W2)), 0.6 / 0.25)
    np.testing.assert_array_equal(v, np.abs(ref))  # the same function on the lattice
    for k in range(5):
        m = mixture_sup(atoms, W1[k], atoms, W2[k], 0.6)
        assert v[k] == pytest.approx(m.value, rel=1e-12, abs=1e-14)
        assert where[k] in atoms
    off = np.sort(rng.uniform(0, 5, 12))  # not a lattice: mixture_sup per row
    v, where = grid_mixture_sup(np.log(W1), np.log(W1[::-1]), off, 0.6)
    for k in range(5):
        m = mixture_sup(off, W1[k], off, W1[::-1][k], 0.6)
        assert (v[k], where[k]) == (m.value, m.argmax)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: grid_mixture_sup(np.zeros((2, 3)), np.zeros((2, 4)), np.arange(3.0), 1.0), "logw1/logw2"),
        (lambda: grid_mixture_sup(np.zeros((2, 3)), np.zeros((2, 3)), np.arange(4.0), 1.0), "logw1/logw2"),
        (lambda: grid_mixture_sup(np.zeros((1, 3)), np.zeros((1, 3)), np.arange(3.0), 0.0), "b = 0.0"),
        (lambda: grid_mixture_sup(np.zeros((1, 3)), np.zeros((1, 3)), np.arange(3.0), math.nan), "b = nan"),
    ],
)
def test_alias_bad_input(call, field):
    with pytest.raises(ValueError, match=field.replace("/", ".")):
        call()
