"""The exact engine of a query plus noise written once (:class:`~bdpsim.models.engines.QueryLawsEngine`).

An engine that gives only its two query laws gets ``bdpl``, ``one_sided`` and ``profile``; here
they are checked against an independent brute force over the output ``y`` of two Laplace
mixtures with a known lattice (``atoms = 3 + 2 j``): the log-ratio of two Laplace mixtures is
monotone between atoms and constant beyond the extreme ones, so its extremes over a grid holding
the atoms and points in both tails are the exact suprema; the profile is the integral of
``(p_x - e^eps p_x')^+`` by quadrature split at the atoms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad

from bdpsim.adversary import Adversary
from bdpsim.kernels.noise.laws import LaplaceNoise
from bdpsim.models.engines import (
    ExactEngine,
    ExhaustiveResult,
    HasExhaustive,
    HasProfile,
    HasQueryLaws,
    QueryLaws,
    QueryLawsEngine,
)
from bdpsim.models.pedigree.exact import PedigreeExhaustiveResult

ATOMS = 3.0 + 2.0 * np.arange(4)
UNDER_X = np.array([0.1, 0.2, 0.3, 0.4])
UNDER_X_PRIME = np.array([0.5, 0.25, 0.15, 0.1])
#: two pairs of laws: the supremum in a tail (at the extreme atom), and at an inner atom (y = 5)
PAIRS = [(UNDER_X, UNDER_X_PRIME), (np.full(4, 0.25), np.array([0.3, 0.05, 0.35, 0.3]))]
ADV = Adversary(0, (), (), 0, 1)


class FixedLaws(QueryLawsEngine):
    """An engine whose query laws are fixed (whatever the adversary)."""

    method = "fixed laws"

    def __init__(self, scale: float, under_x=UNDER_X, under_x_prime=UNDER_X_PRIME) -> None:
        self.noise = LaplaceNoise(scale)
        self.under_x, self.under_x_prime = under_x, under_x_prime

    def query_laws(self, adversary: Adversary) -> QueryLaws:
        return QueryLaws(ATOMS, self.under_x, self.under_x_prime, 2.0)


def _density(w: np.ndarray, y, b: float):
    y = np.asarray(y, dtype=float)
    return (w[:, None] * np.exp(-np.abs(y[None, :] - ATOMS[:, None]) / b)).sum(axis=0) / (2 * b)


def _log_ratio(w1, w2, y, b: float) -> np.ndarray:
    return np.log(_density(w1, y, b) / _density(w2, y, b))


@pytest.mark.parametrize("pair", [0, 1])
@pytest.mark.parametrize("scale", [0.5, 1.0, 3.0])
def test_bdpl_and_one_sided_are_the_brute_force_suprema(scale, pair):
    w1, w2 = PAIRS[pair]
    y = np.concatenate([ATOMS, np.linspace(-20.0, 30.0, 5001)])
    r = _log_ratio(w1, w2, y, scale)
    eng = FixedLaws(scale, w1, w2)
    est = eng.bdpl(ADV)
    assert est.value == pytest.approx(np.abs(r).max(), abs=1e-12)
    assert est.nonpositive == 0  # exact: no sample
    # the output where it is attained, in units of y (not the atom's index): the log-ratio there
    # is the value
    assert abs(_log_ratio(w1, w2, [est.argmax], scale)[0]) == pytest.approx(est.value, abs=1e-12)
    if pair == 1:
        assert est.argmax == 5.0
    assert eng.one_sided(ADV).value == pytest.approx(r.max(), abs=1e-12)
    assert FixedLaws(scale, w2, w1).one_sided(ADV).value == pytest.approx(-r.min(), abs=1e-12)


@pytest.mark.parametrize("epsilon", [0.0, 0.2, 0.7])
def test_profile_is_the_hockey_stick_integral(epsilon):
    scale = 1.0
    pts = list(ATOMS)

    def delta(w1, w2):
        f = lambda y: max(  # noqa: E731
            _density(w1, [y], scale)[0] - math.exp(epsilon) * _density(w2, [y], scale)[0], 0.0
        )
        return sum(
            quad(f, lo, hi, points=[p for p in pts if lo < p < hi], limit=200, epsabs=1e-13)[0]
            for lo, hi in ((-60.0, ATOMS[0]), (ATOMS[0], ATOMS[-1]), (ATOMS[-1], 70.0))
        )

    want = max(delta(UNDER_X, UNDER_X_PRIME), delta(UNDER_X_PRIME, UNDER_X))
    assert FixedLaws(scale).profile(ADV, epsilon) == pytest.approx(want, abs=1e-9)
    if epsilon == 0.0:  # the total variation distance of the two output laws
        assert want > 0.1


def test_the_protocols_stay_the_interface():
    """A subclass is an ExactEngine with a profile and query laws; it is no more than that, and
    a subclass that forgets its query laws cannot be built."""
    eng = FixedLaws(1.0)
    assert isinstance(eng, ExactEngine) and isinstance(eng, HasProfile) and isinstance(eng, HasQueryLaws)
    assert not isinstance(eng, HasExhaustive)
    assert eng.incomplete is None

    class NoLaws(QueryLawsEngine):
        method = "none"

    with pytest.raises(TypeError, match="query_laws"):
        NoLaws()


def _part(i: int, rows: int, n: int = 3) -> PedigreeExhaustiveResult:
    pattern = np.full((rows, n), -1, dtype=np.int8)
    pattern[:, i] = -2
    return PedigreeExhaustiveResult(
        np.full(rows, i),
        pattern,
        np.zeros(rows, dtype=int),
        np.ones(rows, dtype=int),
        np.arange(rows, dtype=float) + i,
        np.full(rows, 1.0),
        None,
        np.full(rows, 2.0 + i),
        np.arange(rows),
    )


def test_concat_keeps_the_class_and_every_per_adversary_field():
    res = PedigreeExhaustiveResult.concat([_part(0, 2), _part(2, 3)])
    assert type(res) is PedigreeExhaustiveResult
    assert len(res) == 5 and res.values is None
    np.testing.assert_array_equal(res.i, [0, 0, 2, 2, 2])
    np.testing.assert_array_equal(res.value, [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(res.multiplicity, [2, 2, 4, 4, 4])
    np.testing.assert_array_equal(res.known_size, [0, 1, 0, 1, 2])
    assert res.pattern.shape == (5, 3) and res.adversary(2).i == 2


def test_concat_of_no_part_and_the_shared_values():
    empty = ExhaustiveResult.concat([], 4)
    assert type(empty) is ExhaustiveResult and len(empty) == 0 and empty.pattern.shape == (0, 4)
    a, b = (
        ExhaustiveResult(
            np.array([i]),
            np.array([[-2, 0]], dtype=np.int8) if i == 0 else np.array([[0, -2]], dtype=np.int8),
            np.array([0.0]),
            np.array([1.0]),
            np.array([float(i)]),
            np.array([np.inf]),
            np.array([5.0, 6.0]),
        )
        for i in (0, 1)
    )
    res = ExhaustiveResult.concat([a, b])
    np.testing.assert_array_equal(res.values, [5.0, 6.0])  # per record, not per adversary
    assert res.x_known(1) == (5.0,) and res.best == 1
