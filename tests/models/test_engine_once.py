"""The exact engine and the population key are built once per configuration point (issue 36).

A traced run: ``bdpsim.run`` of a 2-point x 4-adversary exact run (two chunks per point, each
loaded from its pickle as on a worker) counts the engine constructions and the population-key
hashes. Before, ``markov_engine`` ran 10 times and the key was hashed 10 times in this run.
"""

from __future__ import annotations

import pickle

import cloudpickle
import numpy as np
import pytest

import bdpsim
import bdpsim.pipeline.config as C
from bdpsim.core.errors import NotAvailable
from bdpsim.estimators import adversary_bdpl, engine_for, exact_engine
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import GaussianModel, MarkovChainModel
from bdpsim.models.engines import (
    ExactEngine,
    HasExhaustive,
    HasProfile,
    HasProfileSearch,
    HasQueryLaws,
    HasWindowPlan,
    HasWindowSearch,
    SearchTooLarge,
)
from bdpsim.models.markov.exact import MarkovEngine
from bdpsim.pipeline.config import parse_config

DOC = {
    "run": {
        "adversaries": 4,
        "estimator": "exact",
        "known_sizes": "all",
        "seed": 3,
        "noise_floor_adversaries": 0,
    },
    "model": {"kind": "markov", "n": 5, "gamma": [2.0, 4.0]},
    "mechanism": {"kind": "count", "epsilon": 1.0},
}


@pytest.fixture
def counted(monkeypatch):
    """Count MarkovEngine constructions and population-key hashes."""
    calls = {"engine": 0, "key": 0}
    init, key_of = MarkovEngine.__init__, C.population_key_of

    def engine_init(self, *a, **kw):
        calls["engine"] += 1
        init(self, *a, **kw)

    def population_key_of(pop):
        calls["key"] += 1
        return key_of(pop)

    monkeypatch.setattr(MarkovEngine, "__init__", engine_init)
    monkeypatch.setattr(C, "population_key_of", population_key_of)
    return calls


def test_a_run_builds_each_engine_and_population_key_once_per_point(tmp_path, counted):
    rows = bdpsim.run(DOC, tmp_path, as_frame=False)
    assert len(rows) == 2 and all(r["n_adversaries"] == 4 for r in rows)
    assert counted == {"engine": 2, "key": 2}


def test_a_run_with_exact_references_builds_each_engine_once_per_point(tmp_path, counted):
    """A sampling estimator with exact references: the engine is built before the point is pickled
    for its chunks, and each chunk's adversaries use the one it carries."""
    doc = {**DOC, "run": {**DOC["run"], "estimator": "mixture", "samples": 200}}
    rows = bdpsim.run(doc, tmp_path, as_frame=False)
    assert all(np.isfinite(r["bdpl_exact"]) for r in rows)
    assert counted == {"engine": 2, "key": 2}  # built before the point is pickled for its chunks


def test_a_pickled_point_hands_its_engine_to_its_adversaries(counted):
    point = parse_config(DOC).points[0]
    assert counted["engine"] == 2  # by the config checks, one per point
    eng = point.exact_engine
    assert counted["engine"] == 2
    loaded = pickle.loads(cloudpickle.dumps(point))  # as the driver ships a point to a task
    assert loaded.exact_engine is not eng and loaded.population_key == point.population_key
    model, adv = loaded.adversary(0)
    assert model is loaded.model.fixed
    assert exact_engine(model, loaded.mechanism) is loaded.exact_engine  # no rebuild
    assert adversary_bdpl(model, loaded.mechanism, adv).value == eng.bdpl(adv).value
    assert counted["engine"] == 2


def test_capabilities_are_protocols():
    """A Laplace count on a chain: every capability of the chain's engine, and none of the
    network's; a refusal is a NotAvailable naming the pair, a too-large search a SearchTooLarge
    naming its field."""
    chain = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 4)
    eng = engine_for(chain, LaplaceCount(1.0))
    for cap in (ExactEngine, HasExhaustive, HasWindowSearch, HasProfile, HasProfileSearch, HasQueryLaws):
        assert isinstance(eng, cap), cap.__name__
    assert not isinstance(eng, HasWindowPlan)
    big = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 30)
    with pytest.raises(SearchTooLarge, match="limit 5e6") as err:
        engine_for(big, LaplaceCount(1.0)).check_exhaustive(range(30))
    assert err.value.field == "run.adversaries"
    again = pickle.loads(pickle.dumps(err.value))  # a refusal travels back from a worker intact
    assert (again.field, str(again)) == (err.value.field, str(err.value))
    gauss = GaussianModel(np.zeros(3), np.eye(3))
    with pytest.raises(
        NotAvailable,
        match="no exact BDPL for model 'gaussian' with mechanism 'count' "
        r"\(exact engines: unclipped and clipped Laplace sums\); use",
    ):
        engine_for(gauss, LaplaceCount(1.0))


def test_query_laws_are_the_exact_laws_of_the_count():
    """``query_laws``: the count's laws under ``x`` and ``x'`` by brute force over the 2^3 tuples."""
    import itertools

    P = np.array([[0.8, 0.2], [0.3, 0.7]])
    chain = MarkovChainModel(P, 3)
    adv = bdpsim.Adversary(1, (0,), (1,), 0, 1)
    laws = engine_for(chain, LaplaceCount(1.0)).query_laws(adv)
    pi = chain.initial
    for target, got in ((0, laws.under_x), (1, laws.under_x_prime)):
        law = np.zeros(4)
        for x in itertools.product((0, 1), repeat=3):
            if x[0] == 1 and x[1] == target:
                law[sum(x)] += pi[x[0]] * P[x[0], x[1]] * P[x[1], x[2]]
        np.testing.assert_allclose(got, law / law.sum(), atol=1e-12)
    np.testing.assert_allclose(laws.atoms, np.arange(4.0))
