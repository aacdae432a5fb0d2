"""The all-adversary search with a score (:class:`~bdpsim.models.engines.HasSearch`) and
re-noising (:class:`~bdpsim.models.engines.HasNoiseLaw`) of the engines of "query + noise".

The BDPL and privacy-profile searches every caller used (``window``, ``profile_window``) are now
uses of ``search``: their numbers are pinned against the functions they were (``window_table``,
``exhaustive_pedigree_count``, ``bdpl_search``); a score of several components gives, in one
pass, exactly what each component's own search gives; ``with_noise`` is the same engine (the
pedigree's class laws computed once for every noise law) and gives exactly what an engine built
with that noise gives; ``law_pairs`` holds every pair the search scores. The searches against a
brute force over every adversary are the plug-in contract's
(:func:`bdpsim.testing.checks.check_model_kind_search`, every kind, ``tests/architecture``).
"""

from __future__ import annotations

import numpy as np
import pytest

import bdpsim.models.pedigree.exact as PE
from bdpsim.kernels.noise.laws import GeometricNoise, LaplaceNoise
from bdpsim.kernels.noise.scores import pair_score
from bdpsim.mechanisms import LaplaceCount, NoisyQueryMechanism
from bdpsim.models import MODEL_KINDS, MarkovChainModel, PedigreeModel
from bdpsim.models.bayesnet import search as BS
from bdpsim.models.engines import (
    BdplScore,
    FunctionScore,
    HasNoiseLaw,
    HasSearch,
    ProfileScore,
    StackedScore,
    engine_for,
)
from bdpsim.models.markov.window import window_table
from bdpsim.pipeline.config import parse_config
from bdpsim.queries import CountQuery, StateSumQuery

ACTIVITY = np.array([[0.882, 0.118], [0.305, 0.695]])


def _network(kind: str):
    doc = {
        "run": {"adversaries": 3, "estimator": "exact", "known_sizes": [1]},
        "model": {"kind": kind, **MODEL_KINDS[kind].example},
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    return parse_config(doc).points[0].exact_engine


def _engines():
    chain = MarkovChainModel(ACTIVITY, 12)
    ped = PedigreeModel.nuclear(5, 0.3)
    return {
        "chain": engine_for(chain, LaplaceCount(1.0)),
        "pedigree": engine_for(ped, LaplaceCount(1.0, (0,))),
        "bayesnet": _network("bayesnet"),
        "mrf": _network("mrf"),
    }


ENGINES = _engines()


@pytest.mark.parametrize("name", list(ENGINES))
def test_every_engine_of_query_plus_noise_searches_and_renoises(name):
    eng = ENGINES[name]
    assert isinstance(eng, HasSearch) and isinstance(eng, HasNoiseLaw)


def test_the_chain_window_is_the_search_with_the_bdpl_score():
    """``window`` and ``profile_window`` give exactly what ``window_table`` gave (the Laplace
    fast path of the scan for the BDPL; the profile by the generic score)."""
    eng = ENGINES["chain"]
    for min_known in (0, 2):
        old, old_rows, old_values = window_table(eng.model, eng.values, eng.noise, min_known=min_known, top=5)
        new, rows, values = eng.window(min_known, 5)
        assert new.bdpl == old.bdpl and np.array_equal(values, old_values)
        assert [r.as_row() for r in rows] == [r.as_row() for r in old_rows]
        old, old_rows, old_values = window_table(
            eng.model, eng.values, eng.noise, min_known=min_known, top=5, profile=0.7
        )
        new, rows, values = eng.profile_window(min_known, 0.7, 5)
        assert new.bdpl == old.bdpl and np.array_equal(values, old_values)
        assert [r.as_row() for r in rows] == [r.as_row() for r in old_rows]


def test_the_pedigree_search_is_the_class_enumeration():
    """The BDPL over every class by ``search`` is the exhaustive class enumeration's, and the
    reported class is its worst (:func:`~bdpsim.models.pedigree.exact.worst_adversary`)."""
    eng = ENGINES["pedigree"]
    for min_known in (0, 1):
        res = PE.exhaustive_pedigree_count(eng.model, eng.mechanism, min_known=min_known)
        found = eng.search(BdplScore(), min_known, top=None)
        assert found.value[0] == res.value.max()
        assert np.array_equal(found.values[:, 0], res.value)
        w = PE.worst_adversary(res)
        a = found.worst[0].adversary()
        assert (a.i, a.known, a.x_known) == (
            res.adversary(w).i,
            res.adversary(w).known,
            res.adversary(w).x_known,
        )


def test_the_network_search_is_the_region_search():
    """The network's search with the BDPL score is the region search with the noise law's
    ``grid_sup`` (:func:`~bdpsim.kernels.noise.scores.pair_score`), as its ``window`` was."""
    eng = ENGINES["bayesnet"]
    g = np.array([0, 1])
    for min_known in (0, 1):
        res = BS.bdpl_search(eng.model, g, pair_score(eng.noise, 1.0), min_known=min_known)
        found = eng.search(BdplScore(), min_known)
        assert found.value[0] == res.bdpl and found.worst[0].adversary() == res.worst.adversary()


@pytest.mark.parametrize("name", list(ENGINES))
def test_a_vector_score_is_each_component_searched_alone(name):
    """One pass with (BDPL, delta(0.5), TV) gives each component's own supremum and worst adversary,
    exactly; a function score (the total variation by the noise law's ``grid_delta`` at 0) gives
    the profile at 0."""
    eng = ENGINES[name]
    score = StackedScore(BdplScore(), ProfileScore(0.5), ProfileScore(0.0))
    found = eng.search(score, 1, top=4)
    assert found.names == ("bdpl", "delta(0.5)", "delta(0)")
    for k, part in enumerate(score.parts):
        alone = eng.search(part, 1, top=4)
        assert found.value[k] == alone.value[0]
        assert found.worst[k].adversary() == alone.worst[0].adversary()
        assert found.worst[k].bdpl == found.value[k]
    assert [r.table_row() for r in found.rows] == [r.table_row() for r in eng.search(BdplScore(), 1, 4).rows]
    tv = FunctionScore(lambda W1, W2, step, noise: noise.grid_delta(W1, W2, step, 0.0), ("tv",))
    assert eng.search(tv, 1).value[0] == pytest.approx(found.of("delta(0)")[0], abs=1e-12)


@pytest.mark.parametrize("name", list(ENGINES))
def test_with_noise_is_the_engine_built_with_that_noise(name):
    """``with_noise(law)`` searches exactly as an engine built for a mechanism with that noise law,
    and leaves the engine it came from as it was."""
    eng = ENGINES[name]
    before = eng.search(BdplScore(), 0).value[0]
    for law in (LaplaceNoise(2.5), GeometricNoise(0.8)):
        other = eng.with_noise(law)
        assert other.noise is law and eng.noise is not law and type(other) is type(eng)
        if name in ("bayesnet", "mrf"):
            counted = eng.query.counted_states
        else:
            counted = eng.mechanism.query_function.counted_states
        built = engine_for(eng.model, NoisyQueryMechanism(CountQuery(counted), law))
        assert other.search(BdplScore(), 0).value[0] == built.search(BdplScore(), 0).value[0]
        assert law.name in other.method or name != "chain"
    assert eng.search(BdplScore(), 0).value[0] == before


def test_re_noising_a_pedigree_computes_its_class_laws_once(monkeypatch):
    """A calibration bisecting over the amount of noise: ten searches with ten noise laws, one
    computation of the classes' count laws (the engine's noise-free part, shared by its copies)."""
    calls = [0]
    laws = PE.class_laws

    def counted(*a, **kw):
        calls[0] += 1
        return laws(*a, **kw)

    monkeypatch.setattr(PE, "class_laws", counted)
    eng = engine_for(PedigreeModel.nuclear(6, 0.3), LaplaceCount(1.0, (0,)))
    values = [eng.with_noise(LaplaceNoise(b)).search(BdplScore()).value[0] for b in np.linspace(0.5, 5, 10)]
    assert calls[0] == 1 and np.all(np.diff(values) < 0)  # more noise, less leakage


@pytest.mark.parametrize("name", list(ENGINES))
def test_law_pairs_are_the_pairs_the_search_scores(name):
    """The BDPL of every law pair, scored afresh, has the search's supremum as its largest; the
    rows are normalised."""
    eng = ENGINES[name]
    pairs = eng.law_pairs(1)
    assert len(pairs) >= 1 and np.allclose(pairs.W1.sum(axis=1), 1) and np.allclose(pairs.W2.sum(axis=1), 1)
    v, _ = eng.noise.grid_sup(pairs.W1, pairs.W2, pairs.step)
    assert np.max(np.abs(v)) == pytest.approx(eng.search(BdplScore(), 1).value[0], rel=1e-12)


def test_scores_say_what_is_wrong():
    eng = ENGINES["chain"]
    with pytest.raises(TypeError, match="needs names"):
        eng.search(lambda W1, W2, step, noise: W1.sum(axis=1), 0)
    bad = FunctionScore(lambda W1, W2, step, noise: np.zeros((W1.shape[0], 3)), ("a", "b"))
    with pytest.raises(ValueError, match="need"):
        eng.search(bad, 0)
    with pytest.raises(TypeError, match="must be a noise law"):
        eng.with_noise(1.0)


def test_the_activity_chain_bdpl_through_the_search():
    """``exact_bdpl`` of the activity chain (n = 288, a count + Lap(1)) is the window search's, now
    through ``search``; pinned to the value of the window reduction before the seam."""
    from bdpsim import exact_bdpl

    chain = MarkovChainModel(ACTIVITY, 288)
    got = exact_bdpl(chain, LaplaceCount(1.0)).bdpl
    assert got == engine_for(chain, LaplaceCount(1.0)).search(BdplScore()).value[0]
    assert got == pytest.approx(ACTIVITY_BDPL, abs=0)


#: ``exact_bdpl`` of the activity chain at d78b062 (before the engines took a score), all digits
ACTIVITY_BDPL = 3.4748733767538766


def _first_columns(engine, reads: bool) -> tuple[int, bool]:
    """The least column of positive weight over every law pair the engine's search scores, and
    whether every row's columns of positive weight share one parity."""
    seen = []

    def record(W1, W2, step, noise):
        seen.append((np.asarray(W1) > 0) | (np.asarray(W2) > 0))
        return np.zeros(W1.shape[0])

    engine.search(FunctionScore(record, ("recorded",), reads_query_values=reads), 0)
    least = min(int(np.argmax(m.any(axis=0))) for m in seen)
    one_parity = all(len({k % 2 for k in np.flatnonzero(row)}) <= 1 for m in seen for row in m)
    return least, one_parity


@pytest.mark.parametrize("name", ["chain", "bayesnet"])
def test_a_score_reading_the_query_values_gets_them_as_they_are(name):
    """State values 1 and 3: on their lattice (``1 + 2 g``) the rows start at column 0 with every
    column used; a score reading the values themselves (``reads_query_values``) gets the searched
    records' sum of the values — a chain's window sums from 1 (it holds its target), the small
    network's exhaustive table every record's sum (from n), of one parity per row (the odd values of
    a fixed number of records) — and the same BDPL (shift-invariant, its lattice step 2 against 1)."""
    mech = NoisyQueryMechanism(StateSumQuery((1.0, 3.0)), LaplaceNoise(2.0), "sum")
    model = MarkovChainModel(ACTIVITY, 9) if name == "chain" else ENGINES["bayesnet"].model
    eng = engine_for(model, mech)
    assert _first_columns(eng, False)[0] == 0
    least, one_parity = _first_columns(eng, True)
    assert one_parity and least == (1 if name == "chain" else model.n)  # the network's: every record
    on_values = FunctionScore(lambda W1, W2, step, noise: BdplScore()(W1, W2, step, noise), ("bdpl",), True)
    got, plain = eng.search(on_values, 0), eng.search(BdplScore(), 0)
    assert got.value[0] == pytest.approx(plain.value[0], rel=1e-12)
    assert got.worst[0].adversary() == plain.worst[0].adversary()


def test_a_score_reading_the_query_values_is_refused_where_they_are_not_given():
    """The pedigree's class search and the enumeration of any other engine give law pairs up to a
    shift: they refuse such a score (``NotAvailable`` saying which search); values that are not
    non-negative integers are refused by the chain's scan, naming them."""
    from bdpsim.core.errors import NotAvailable
    from bdpsim.models.engines import QueryLawsEngine

    reads = FunctionScore(lambda W1, W2, step, noise: np.zeros(W1.shape[0]), ("zero",), True)
    with pytest.raises(NotAvailable, match="class search.*query's values"):
        ENGINES["pedigree"].search(reads, 0)
    with pytest.raises(NotAvailable, match="by enumeration"):
        QueryLawsEngine.search(ENGINES["chain"], reads, 0)
    halves = engine_for(
        MarkovChainModel(ACTIVITY, 5),
        NoisyQueryMechanism(StateSumQuery((0.5, 1.0)), LaplaceNoise(1.0), "sum"),
    )
    with pytest.raises(ValueError, match=r"values = \[0.5, 1.0\].*non-negative integers"):
        halves.search(reads, 0)
