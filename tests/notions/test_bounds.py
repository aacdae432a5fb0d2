"""Bounds and accuracy formulas against the paper's pinned numbers (SCIENCE.md §6–§7)."""

import json
import math

import numpy as np
import pytest

from bdpsim import bounds as B

from ..support.bad_config import calibrate, cli

ACTIVITY = [[0.882, 0.118], [0.305, 0.695]]

# (description, computed, expected, tolerance)
PINNED = [
    ("Galton rho=0.275, m=3 -> factor 1.853", lambda: B.gaussian_factor(0.275, 3), 1.853, 5e-4),
    ("FamilyIQ rho=0.4483, m=2 -> 1.4483", lambda: B.gaussian_factor(0.4483, 2), 1.4483, 1e-4),
    ("Activity 4 ln gamma = 8.05", lambda: 4 * math.log(B.gamma_of(ACTIVITY)), 8.05, 0.01),
    ("Activity Zhao 6 ln omega = 10.64", lambda: 6 * math.log(B.omega_of(ACTIVITY)), 10.64, 0.01),
    ("general m eps", lambda: B.general_bound(0.5, 10).value, 5.0, 0),
    ("yang n eps", lambda: B.yang_bound(2.0, 7).value, 14.0, 0),
    ("gaussian bound = h eps", lambda: B.gaussian_bound(2.0, 0.275, 3).value, 2 * 1.853, 1e-3),
    (
        "target-dependent gaussian",
        lambda: B.gaussian_bound(0.1, 0.5, 3, distance=10).value,
        (9 / (4 * (2 - 1)) + 1) * 0.1 * 10,
        1e-12,
    ),
    ("rho=0 -> factor 1", lambda: B.gaussian_factor(0.0, 5), 1.0, 0),
    (
        "markov bound eps + 4 ln gamma, symmetric chain g=10",
        lambda: B.markov_bound(1.0, B.symmetric_chain(10)).value,
        1 + 4 * math.log(10),
        1e-12,
    ),
    ("symmetric chain omega = gamma", lambda: B.omega_of(B.symmetric_chain(7)), 7.0, 1e-12),
    ("laplace alpha ln(20)/eps", lambda: B.laplace_alpha(2.0, 0.05), math.log(20) / 2, 1e-12),
    ("markov factor", lambda: B.markov_factor(20.0, 7.4746), 20 / (20 - 4 * math.log(7.4746)), 1e-12),
    ("calibrate general", lambda: B.calibrate_general(3.0, 3), 1.0, 0),
    ("calibrate markov", lambda: B.calibrate_markov(20.0, ACTIVITY), 20 - 4 * math.log(0.882 / 0.118), 1e-12),
]


@pytest.mark.parametrize("desc,fn,expected,tol", PINNED, ids=[p[0] for p in PINNED])
def test_pinned(desc, fn, expected, tol):
    assert fn() == pytest.approx(expected, abs=tol)


def test_gaussian_not_applicable_says_why():
    b = B.gaussian_bound(1.0, 0.5, 4)  # rho (m - 2) = 1
    assert not b.applicable and "rho (m - 2) < 1" in b.reason


def test_markov_needs_positive_transitions():
    P = [[1.0, 0.0], [0.5, 0.5]]
    assert not B.markov_bound(1.0, P).applicable
    assert not B.zhao_bound(1.0, P).applicable
    assert math.isnan(B.calibrate_markov(1.0, P))


def test_markov_calibration_unreachable_is_nan():
    assert math.isnan(B.calibrate_markov(1.0, ACTIVITY))  # 1 <= 8.05


@pytest.mark.parametrize(
    "call",
    [
        lambda: B.general_bound(-1, 3),
        lambda: B.general_bound(1, 0),
        lambda: B.gaussian_factor(1.2, 3),
        lambda: B.transition_matrix([[0.5, 0.6], [0.5, 0.5]]),
        lambda: B.transition_matrix([[1.0]]),
        lambda: B.symmetric_chain(0.5),
        lambda: B.laplace_alpha(1, 1.5),
    ],
)
def test_bad_inputs_raise_one_line_value_errors(call):
    """The bounds' own checks raise ConfigError; the kernels they re-export (transition_matrix,
    symmetric_chain) a plain ValueError naming their parameter (issue 28)."""
    with pytest.raises(ValueError) as err:
        call()
    assert " = " in str(err.value) and "\n" not in str(err.value)


def test_zhao_omega_columnwise():
    P = np.array([[0.2, 0.8], [0.6, 0.4]])
    assert B.omega_of(P) == pytest.approx(max(0.6 / 0.2, 0.8 / 0.4))


def test_transient_class_is_named():
    from bdpsim.kernels.chains.transition import chain_structure

    assert (
        chain_structure([[0.5, 0.5], [0.0, 1.0]]) == "reducible: 2 communicating classes {0} (transient), {1}"
    )
    assert chain_structure([[0.0, 1.0], [1.0, 0.0]]) is None  # periodic but irreducible


def test_reducible_chain_is_described_and_bounds_do_not_apply(capsys):
    rc, out, err = cli(
        capsys, "bounds", "markov", "--transition", "[[1,0],[0,1]]", "--epsilon", "1", "--n", "5"
    )
    assert rc == 0, err
    assert "reducible: 2 communicating classes {0}, {1}: the Markov and Zhao bounds do not apply" in out
    assert "markov bound   not applicable" in out
    rc, out, err = calibrate(capsys, "--transition", "[[1,0],[0,1]]", "--n", "5", "--epsilon", "1")
    assert rc == 0, err
    first = out.splitlines()[0]
    assert first.startswith("note: the chain is reducible") and "do not apply" in first
    assert "one of several stationary laws" in first
    rc, out, err = calibrate(
        capsys,
        "--transition",
        "[[0.5,0.5],[0,1]]",
        "--initial",
        "1",
        "0",
        "--n",
        "5",
        "--epsilon",
        "1",
        "--json",
    )
    assert rc == 0 and "{0} (transient), {1}" in err  # the note goes to stderr: stdout stays JSON
    assert json.loads(out)["method"] == "exact"
