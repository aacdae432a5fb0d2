"""``query_support``: the lattice of an additive query given the known records, against every data
tuple of a small chain (one value per state, and per-record values)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bdpsim.estimators.sampling import query_support
from bdpsim.kernels.noise.laws import noise_from_params
from bdpsim.mechanisms.noisy import NoisyQueryMechanism
from bdpsim.models import MarkovChainModel
from bdpsim.models.bayesnet.states import RecordCountQuery
from bdpsim.queries import CountQuery, StateSumQuery

P = [[0.5, 0.3, 0.2], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]]
N = 4
QUERIES = {
    "count": CountQuery((0, 2)),
    "state sum": StateSumQuery((0.5, 2.0, 3.5)),  # lattice 0.5 + 1.5 k
    "per record": RecordCountQuery((0, 1, 2), per_record=((0,), (1, 2), (2,), (0, 1))),
}
KNOWN = ({}, {0: 2}, {1: 0, 3: 1}, {0: 1, 1: 2, 2: 0, 3: 2})


def _values(query, known) -> np.ndarray:
    """Every value of ``query`` over the tuples of ``N`` records on 3 states agreeing with
    ``known`` (brute force)."""
    data = np.array(
        [d for d in itertools.product(range(3), repeat=N) if all(d[r] == v for r, v in known.items())]
    )
    return np.unique(query(data))


@pytest.mark.parametrize("name", QUERIES)
@pytest.mark.parametrize("known", KNOWN, ids=lambda k: f"known{sorted(k)}")
def test_the_lattice_holds_every_value_and_spans_exactly_their_range(name, known):
    query = QUERIES[name]
    mech = NoisyQueryMechanism(query, noise_from_params("laplace", scale=1.0, sensitivity=1.0))
    kind, atoms = query_support(MarkovChainModel(np.array(P), N), mech, known)
    values = _values(query, known)
    assert kind == "lattice"
    assert atoms[0] == pytest.approx(values.min(), abs=1e-12)
    assert atoms[-1] == pytest.approx(values.max(), abs=1e-12)
    assert np.all(np.min(np.abs(values[:, None] - atoms[None, :]), axis=1) < 1e-12)  # every value an atom
    if atoms.size > 1:  # one lattice step apart
        steps = np.diff(atoms)
        assert np.allclose(steps, steps[0], atol=1e-12) and steps[0] > 0
