"""The law of an additive query on a chain given known records, run of unknown records by run
(bdpsim.models.markov.segments): equal to the clamped forward recursion over every record, with
the same refusals, on the atoms the unknown records reach."""

from __future__ import annotations

import numpy as np
import pytest

from bdpsim.adversary import Adversary
from bdpsim.core.errors import NotAvailable
from bdpsim.kernels.chains.lattice import lattice
from bdpsim.models import MarkovChainModel
from bdpsim.models.markov.exact import _laws
from bdpsim.models.markov.segments import chain_query_laws
from bdpsim.queries import CountQuery, StateSumQuery


def _dist(atoms, w) -> dict:
    return {round(float(x), 9): float(p) for x, p in zip(atoms, w) if p > 0}


def test_runs_equal_the_forward_recursion_on_random_chains():
    """300 random chains (2-3 states, zeros in P, n <= 8), counts and state sums, random
    adversaries: the same laws to 1e-15 and the same probability-zero refusals."""
    rng = np.random.default_rng(0)
    compared = refused = 0
    for _ in range(300):
        s, n = int(rng.integers(2, 4)), int(rng.integers(2, 9))
        P = rng.random((s, s)) ** 2
        P[rng.random((s, s)) < 0.2] = 0.0
        if np.any(P.sum(axis=1) == 0):
            continue
        P /= P.sum(axis=1, keepdims=True)
        model = MarkovChainModel(P, n, initial=rng.dirichlet(np.ones(s)))
        if rng.random() < 0.5:
            query = CountQuery(tuple(range(1, s)))
        else:
            vals = tuple(float(v) for v in rng.integers(0, 4, s) * 0.5)
            if len(set(vals)) < 2:
                continue
            query = StateSumQuery(vals)
        g, delta, fmin = lattice(query.per_state(s))
        i = int(rng.integers(n))
        others = [j for j in range(n) if j != i]
        K = tuple(sorted(rng.choice(others, size=int(rng.integers(0, n)), replace=False).tolist()))
        adv = Adversary(i, K, tuple(int(v) for v in rng.integers(0, s, len(K))), 0, 1)
        try:
            old = _laws(model, query, adv)
        except NotAvailable:
            with pytest.raises(NotAvailable, match="probability zero"):
                chain_query_laws(model, g, delta, fmin, adv, trim=True)
            refused += 1
            continue
        for trim in (False, True):
            new = chain_query_laws(model, g, delta, fmin, adv, trim=trim)
            for a, b in ((old.under_x, new.under_x), (old.under_x_prime, new.under_x_prime)):
                da, db = _dist(old.atoms, a), _dist(new.atoms, b)
                assert set(da) == set(db)
                assert max(abs(da[k] - db[k]) for k in da) <= 1e-15
        compared += 1
    assert compared > 150 and refused > 5


def test_a_window_adversary_on_a_long_chain_is_as_wide_as_its_window():
    """n = 17 568 records, 100 unknown: the pair's laws have 102 atoms (100 unknown counts and the
    target's two values), not n + 1."""
    model = MarkovChainModel(np.array([[0.882, 0.118], [0.305, 0.695]]), 17_568)
    known = tuple(range(0, 4950)) + tuple(range(5051, 17_568))
    adv = Adversary(5000, known, (0,) * 4950 + (1,) * (17_568 - 5051), 1, 0)
    laws = chain_query_laws(model, np.array([0, 1]), 1.0, 0.0, adv, trim=True)
    assert laws.under_x.size == 102 and laws.atoms[0] == 17_568 - 5051  # the known ones
    assert laws.under_x.sum() == pytest.approx(1.0) and laws.under_x[0] == 0.0 == laws.under_x_prime[-1]
