"""The exact engine and the population key are built once per configuration point.

A traced run: ``bdpsim.run`` of a 2-point x 4-adversary exact run (two chunks per point, each
loaded from its pickle as on a worker) counts the engine constructions and the population-key
hashes. Before the engines were kept, ``markov_engine`` ran 10 times and the key was hashed 10
times in this run. The point owns its engine (``ExperimentPoint.engine``, built where the point is
built) and hands it to its estimators: no cache keyed by object identity, no engine re-registered
when a task unpickles its point; a joblib run builds no engine in its workers.
"""

from __future__ import annotations

import dataclasses
import pickle

import cloudpickle
import numpy as np
import pytest

import bdpsim
import bdpsim.pipeline.config as C
from bdpsim.core.errors import NotAvailable
from bdpsim.estimators import ExactEstimator, KdeEstimator, adversary_bdpl, engine_for, exact_engine
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
from bdpsim.pipeline.config import ExperimentConfig, parse_config
from bdpsim.pipeline.driver import run_chunk, run_experiment
from tests.support.counting import CountingCount, builds

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
    assert counted["engine"] == 2  # with the points, one each (the config checks use it)
    eng = point.exact_engine
    assert point.engine is eng and counted["engine"] == 2
    loaded = pickle.loads(cloudpickle.dumps(point))  # as the driver ships a point to a task
    assert loaded.engine is not eng and loaded.population_key == point.population_key
    model, adv = loaded.adversary(0)
    assert model is loaded.model.fixed and loaded.engine_of(model) is loaded.engine
    assert loaded.engine.model is model  # one object graph: the engine's model is the point's
    got = run_chunk(loaded, [0, 1, 2])  # a task: its estimates by the engine the point carried
    assert counted["engine"] == 2
    assert got.stats["bdpl"][0] == eng.bdpl(adv).value == adversary_bdpl(model, point.mechanism, adv).value
    assert counted["engine"] == 3  # adversary_bdpl without an engine builds its own (nothing is cached)
    assert exact_engine(model, loaded.mechanism) is not exact_engine(model, loaded.mechanism)


def _counting_config(tmp_path, estimator: str = "exact") -> ExperimentConfig:
    """The 2-point config of :data:`DOC` with the mechanism counting its engine builds."""
    log = str(tmp_path / "builds.txt")
    sampled = {"samples": 200} if estimator != "exact" else {}  # nothing sampled beside the exact
    cfg = parse_config({**DOC, "run": {**DOC["run"], "estimator": estimator, **sampled}})
    points = tuple(
        dataclasses.replace(p, mechanism=CountingCount(1.0, log=log), engine=None)  # built here, once
        for p in cfg.points
    )
    return dataclasses.replace(cfg, points=points)


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("estimator", ["exact", "mixture"])
def test_one_engine_build_per_point_in_serial_and_joblib_runs(tmp_path, jobs, estimator):
    """The points' engines are built with the points (2); running them — one process, or two
    joblib workers that load each point from its pickle, 2 chunks per point — builds none: every
    adversary's estimate (exact) or reference (mixture) comes from the engine its point carried."""
    cfg = _counting_config(tmp_path, estimator)
    log = cfg.points[0].mechanism.log
    assert builds(log) == 2
    rows = run_experiment(
        cfg, tmp_path / "out", jobs=jobs, backend="loky", progress=False, log=lambda m: None
    )
    assert len(rows) == 2 and all(np.isfinite(r["bdpl_exact"]) for r in rows)
    assert builds(log) == 2


def test_estimators_use_the_engine_they_are_given():
    """An estimator given the pair's engine uses it, and builds none: a refusal passed in is
    raised as it is (a NotAvailable), not rebuilt."""
    chain = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 4)
    mech = LaplaceCount(1.0)
    adv = bdpsim.Adversary(1, (0,), (1,), 0, 1)
    eng = exact_engine(chain, mech)

    class Spy:
        method, incomplete, calls = "spy", None, 0

        def bdpl(self, a):
            Spy.calls += 1
            return eng.bdpl(a)

        def one_sided(self, a):
            Spy.calls += 1
            return eng.one_sided(a)

    v = ExactEstimator().estimate(chain, mech, adv, engine=Spy()).value
    assert v == eng.bdpl(adv).value and Spy.calls == 1
    assert KdeEstimator(samples=100, ratio="signed").reference(chain, mech, adv, engine=Spy()).value == (
        eng.one_sided(adv).value
    )
    assert Spy.calls == 2
    with pytest.raises(NotAvailable, match="no engine here"):
        ExactEstimator().reference(chain, mech, adv, engine=NotAvailable("no engine here"))


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
        r"\(exact engines: unclipped and clipped Laplace sums, the unclipped sum with Gaussian "
        r"noise\); use",
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


def test_a_sweep_of_many_points_builds_one_engine_per_point(tmp_path, counted):
    """Twelve points searched over every adversary (more than the eight pairs the identity cache
    kept before): reading, checking and running the config builds twelve engines. Before, asking
    how a point is searched (planning, counting its tasks, summarising) looked the engine up by
    identity and rebuilt the ones evicted: 48 builds here, 4 per point for thesis_fig15_exact
    (scripts/benchmarks/engine_seam.py)."""
    doc = {**DOC, "model": {**DOC["model"], "gamma": [1.5 + 0.5 * k for k in range(12)]}}
    doc["run"] = {**DOC["run"], "adversaries": "all", "adversary_rows": 2}
    rows = bdpsim.run(doc, tmp_path, as_frame=False)
    assert len(rows) == 12 and counted["engine"] == 12
