"""Networks as users have them (issue 26, issue 27 items 1, 9-11): mixed cardinalities, names,
rounded tables, up-front refusals, and the pairwise Markov random field — every exact value
against an independent brute force over every joint state and every adversary."""

import itertools
import math
import re
import time
import warnings

import numpy as np
import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.models import MODEL_KINDS
from bdpsim.models.bayesnet.build import build as build_bn
from bdpsim.models.bayesnet.model import BayesNetModel
from bdpsim.models.bayesnet.search import bdpl_search, laplace_score, search_plan
from bdpsim.models.mrf import MRFModel
from bdpsim.models.mrf import build as build_mrf
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_experiment
from bdpsim.pipeline.results import read_adversaries, read_summary

from ..conftest import write_toml
from ..models.test_bayesnet import random_network
from ..support.bad_input import COUNT_DEFAULT, RUN_EXACT, one_line

# ----------------------------------------------------------------------------- independent brute force


def potts_joint(cards, edges, coupling, field_rows, node_pot=None, edge_pot=None):
    """Every joint state and its probability, from the Potts formula itself."""
    xs = np.array(list(itertools.product(*[range(s) for s in cards])))
    w = np.ones(len(xs))
    for k, (i, j) in enumerate(edges):
        w *= np.exp(coupling[k] * (xs[:, i] == xs[:, j]))
        if edge_pot is not None:
            w *= np.asarray(edge_pot[k])[xs[:, i], xs[:, j]]
    for v in range(len(cards)):
        w *= np.exp(np.asarray(field_rows[v])[xs[:, v]])
        if node_pot is not None:
            w *= np.asarray(node_pot[v])[xs[:, v]]
    return xs, w / w.sum()


def bn_joint(model):
    """Every joint state of the records of a Bayesian network (hidden nodes summed out)."""
    xs = np.array(list(itertools.product(*[range(s) for s in model.node_states])))
    pr = np.ones(len(xs))
    for j in range(model.size):
        pr *= np.asarray(model.cpt[j])[tuple(xs[:, p] for p in model.parents[j]) + (xs[:, j],)]
    rec, inv = np.unique(xs[:, list(model.records)], axis=0, return_inverse=True)
    return rec, np.bincount(inv.ravel(), pr, minlength=len(rec))


def laplace_leakage(W1, W2, b):
    """``max |ln p1(y) / p2(y)|`` of two Laplace(b) mixtures on the atoms ``0..Q-1``: the ratio
    is monotone between atoms (a Moebius function of ``e^(2y/b)``), so the extremes are at the
    atoms or at ``y -> +-inf`` (rows of ``W1``, ``W2`` batched)."""
    Q = W1.shape[-1]
    k = np.arange(Q)
    K = np.exp(-np.abs(k[:, None] - k[None, :]) / b)
    with np.errstate(divide="ignore"):
        at = np.log(W1 @ K) - np.log(W2 @ K)
        up = np.log(W1 @ np.exp((k - Q) / b)) - np.log(W2 @ np.exp((k - Q) / b))
        down = np.log(W1 @ np.exp(-k / b)) - np.log(W2 @ np.exp(-k / b))
    return np.max(np.abs(np.concatenate([at, up[:, None], down[:, None]], axis=1)), axis=1)


def brute_all_adversaries(xs, pr, g, b):
    """Largest leakage over every target, known set, known values and pair of target values,
    by accumulating ``P(x_K, x_i, S)`` for every known set directly from the joint states."""
    n = xs.shape[1]
    cards = xs.max(axis=0) + 1
    S = sum(np.asarray(g[r])[xs[:, r]] for r in range(n))
    Q = int(S.max()) + 1
    best = -np.inf
    for i in range(n):
        others = [r for r in range(n) if r != i]
        for k in range(n):
            for K in itertools.combinations(others, k):
                codes = np.zeros(len(xs), dtype=np.int64)
                for r in K:
                    codes = codes * cards[r] + xs[:, r]
                size = int(np.prod([cards[r] for r in K])) if K else 1
                T = np.zeros((size, cards[i], Q))
                np.add.at(T, (codes, xs[:, i], S), pr)
                for a, c in itertools.combinations(range(cards[i]), 2):
                    ok = (T[:, a].sum(axis=1) > 0) & (T[:, c].sum(axis=1) > 0)
                    if ok.any():
                        W1 = T[ok, a] / T[ok, a].sum(axis=1, keepdims=True)
                        W2 = T[ok, c] / T[ok, c].sum(axis=1, keepdims=True)
                        best = max(best, float(laplace_leakage(W1, W2, b).max()))
    return best


def _count(cards, counted=1):
    return [np.array([1 if x == counted else 0 for x in range(s)]) for s in cards]


def _g_table(model, g):
    out = np.zeros((model.n, model.states), dtype=int)
    for r, gr in enumerate(g):
        out[r, : len(gr)] = gr
    return out


# ----------------------------------------------------------------------------- MRF against brute force

GRID3 = [(r * 3 + c, r * 3 + c + 1) for r in range(3) for c in range(2)] + [
    (r * 3 + c, (r + 1) * 3 + c) for r in range(2) for c in range(3)
]
MRFS = [
    dict(edges=[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)], states=3, coupling=0.9, field=[0.0, 0.4, -0.3]),
    dict(edges=GRID3, states=2, coupling=0.7, field=[0.0, 0.2]),
    dict(
        edges=[(0, 1), (1, 2), (2, 0), (2, 3)],
        states=[2, 3, 4, 2],
        coupling=[1.2, -0.5, 0.8, 2.0],
        field=[[0.1, 0.0], [0.0, 0.5, -0.5], [0.3, 0.0, 0.2, -0.1], [0.0, 0.0]],
    ),
    dict(
        edges=[(0, 1), (1, 2), (2, 3)],
        states=3,
        coupling=0.5,
        field=[0.0, 0.0, 0.0],
        node_potentials=[[1, 1, 1], [1, 0, 2], [1, 1, 1], [0.5, 1, 1]],
        edge_potentials=[[[1, 0, 1], [1, 1, 1], [0, 1, 1]], [[1, 1, 1]] * 3, [[1, 2, 1]] * 3],
    ),
]


def _field_rows(spec, cards):
    f = spec["field"]
    return [f] * len(cards) if not isinstance(f[0], list) else f


@pytest.mark.parametrize("k", range(len(MRFS)))
def test_mrf_every_adversary_equals_brute_force(k):
    spec = MRFS[k]
    m = MRFModel(**spec)
    cards = m.node_states
    J = np.broadcast_to(np.asarray(spec["coupling"], dtype=float), (len(spec["edges"]),))
    xs, pr = potts_joint(
        cards,
        spec["edges"],
        J,
        _field_rows(spec, cards),
        spec.get("node_potentials"),
        spec.get("edge_potentials"),
    )
    np.testing.assert_allclose(m.joint_table().reshape(-1), pr, rtol=1e-12, atol=1e-15)
    g = _count(cards)
    b = (0.7, 2.0)[k % 2]
    ref = brute_all_adversaries(xs, pr, g, b)
    for method in ("exhaustive", "regions", "auto"):
        res = bdpl_search(m, _g_table(m, g), laplace_score(b), method=method)
        assert res.bdpl == pytest.approx(ref, abs=1e-9), method


@pytest.mark.slow
def test_mrf_three_state_grid_every_adversary_equals_brute_force():
    """The 3 x 3 grid with 3-state Potts nodes (19 683 joint states, 590 490 adversaries)."""
    m = MRFModel(GRID3, 3, 0.6, [0.0, 0.3, -0.2])
    xs, pr = potts_joint(m.node_states, GRID3, np.full(len(GRID3), 0.6), [[0.0, 0.3, -0.2]] * 9)
    g = _count(m.node_states, counted=2)
    ref = brute_all_adversaries(xs, pr, g, 1.0)
    assert bdpl_search(m, _g_table(m, g), laplace_score(1.0)).bdpl == pytest.approx(ref, abs=1e-9)


def test_mrf_conditional_laws_and_sampling_are_exact():
    spec = MRFS[2]
    m = MRFModel(**spec)
    J = np.asarray(spec["coupling"], dtype=float)
    xs, pr = potts_joint(m.node_states, spec["edges"], J, spec["field"])
    known = {0: 1, 3: 0}
    ok = (xs[:, 0] == 1) & (xs[:, 3] == 0)
    assert m.log_evidence(known) == pytest.approx(math.log(pr[ok].sum()), abs=1e-12)
    S = (xs == 1).sum(axis=1)
    law = np.bincount(S[ok], pr[ok], minlength=5) / pr[ok].sum()
    np.testing.assert_allclose(m.additive_law(known, [0, 1, 0, 0]), law, atol=1e-12)
    draws = m.sample_conditional(known, 40_000, np.random.default_rng(5))
    assert np.all(draws[:, 0] == 1) and np.all(draws[:, 3] == 0)
    for v in (1, 2):
        want = np.bincount(xs[ok, v], pr[ok], minlength=m.node_states[v]) / pr[ok].sum()
        got = np.bincount(draws[:, v], minlength=m.node_states[v]) / len(draws)
        assert np.max(np.abs(got - want)) < 5 * math.sqrt(0.25 / len(draws))


def _as_network(m):
    """The MRF's joint law as a Bayesian network with complete parents (node j <- 0..j-1)."""
    P = m.joint_table()
    parents, cpt = [], []
    for j in range(m.size):
        marg = P.sum(axis=tuple(range(j + 1, m.size)))
        cond = marg / np.where(marg.sum(axis=-1, keepdims=True) > 0, marg.sum(axis=-1, keepdims=True), 1)
        cond = np.where(marg.sum(axis=-1, keepdims=True) > 0, cond, 1.0 / m.node_states[j])
        parents.append(list(range(j)))
        cpt.append(cond)
    return BayesNetModel(parents, cpt)


@pytest.mark.parametrize(
    "noise",
    [
        {"noise": "gaussian", "sigma": 1.3},
        {"noise": "geometric", "epsilon": 0.8},
        {"noise": "staircase", "epsilon": 1.0},
        {"epsilon": 0.8},
    ],
)
def test_mrf_equals_its_network_for_every_noise_law(noise):
    """The same law as an MRF and as a (complete) Bayesian network: the same exact BDPL of each
    sampled adversary, with every noise law (the engines are shared; the factorisations differ)."""
    spec = MRFS[0]
    m = MRFModel(**spec)
    bn = _as_network(m)
    gauss = noise.get("noise") == "gaussian"
    ms = parse_config(
        {
            "run": {"adversaries": 1, "estimator": "exact", **({"epsilon_profile": 1.0} if gauss else {})},
            "model": {
                "kind": "mrf",
                **{k: (list(map(list, v)) if k == "edges" else v) for k, v in spec.items()},
            },
            "mechanism": {"kind": "count", **noise},
        }
    ).points[0]
    mech = ms.mechanism
    rng = np.random.default_rng(3)
    e1, e2 = MODEL_KINDS["mrf"].exact(m, mech), MODEL_KINDS["bayesnet"].exact(bn, mech)
    for _ in range(4):
        adv = MODEL_KINDS["mrf"].draw_adversary(m, range(0, m.n), rng)
        if gauss:
            assert e1.profile(adv, 1.0) == pytest.approx(e2.profile(adv, 1.0), abs=1e-9)
        else:
            assert e1.bdpl(adv).value == pytest.approx(e2.bdpl(adv).value, abs=1e-9)


def test_karate_with_zero_coupling_is_independent_records():
    """Independent records (coupling 0): every adversary's BDPL of a Laplace count is eps."""
    m = build_mrf({"graph": "karate", "coupling": 0.0, "states": 2, "field": [0.0, 0.4]})
    assert m.n == 34 and len(m.scopes) == 34 + 78
    doc = {
        "run": {"adversaries": 3, "estimator": "exact", "known_sizes": "all"},
        "model": {"kind": "mrf", "graph": "karate", "coupling": 0.0, "field": [0.0, 0.4]},
        "mechanism": {"kind": "count", "epsilon": 0.7},
    }
    p = parse_config(doc).points[0]
    eng = MODEL_KINDS["mrf"].exact(p.model.fixed, p.mechanism)
    rng = np.random.default_rng(1)
    for _ in range(3):
        adv = MODEL_KINDS["mrf"].draw_adversary(p.model.fixed, range(0, 34), rng)
        assert eng.bdpl(adv).value == pytest.approx(0.7, abs=1e-9)


def test_karate_club_run_sampled_adversaries_exact(tmp_path):
    doc = {
        "run": {"adversaries": 3, "estimator": "exact", "known_sizes": "all", "seed": 4},
        "model": {"kind": "mrf", "graph": "karate", "coupling": 0.5},
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    rows = run_experiment(parse_config(doc), tmp_path, progress=False)
    assert rows[0]["exact_n"] == 3 and 1.0 <= rows[0]["bdpl_exact"] <= 34.0


def test_mrf_all_adversaries_through_the_driver(tmp_path):
    spec = MRFS[0]
    doc = {
        "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all"},
        "model": {
            "kind": "mrf",
            "edges": [list(e) for e in spec["edges"]],
            "states": 3,
            "coupling": spec["coupling"],
            "field": spec["field"],
        },
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    run_experiment(parse_config(doc), tmp_path, progress=False)
    m = MRFModel(**spec)
    xs, pr = potts_joint(m.node_states, spec["edges"], np.full(5, 0.9), [spec["field"]] * 5)
    ref = brute_all_adversaries(xs, pr, _count(m.node_states), 1.0)
    assert read_summary(tmp_path)[0]["bdpl_exact"] == pytest.approx(ref, abs=1e-9)


MRF_BAD = [
    ({"edges": [[0, 1]], "graph": "karate"}, r"^model = .*give exactly one of edges"),
    ({"edges": [[0, 0]]}, r"^model.edges\[0\] = \[0, 0\]: an edge joins two different nodes$"),
    ({"edges": [[0, 1], [1, 0]]}, r"^model.edges\[1\] = \[1, 0\]: each edge once"),
    ({"edges": [[0, -1]]}, r"^model.edges\[0\] = \[0, -1\]: must be a pair"),
    (
        {"edges": [[0, 1]], "coupling": [1, 2]},
        r"^model.coupling = \[1, 2\]: must be a finite number or a list of one per edge \(1\)$",
    ),
    ({"edges": [[0, 1]], "coupling": 1e6}, r"^model.coupling = .*at most 100"),
    (
        {"edges": [[0, 1]], "states": 3, "field": [0, 1]},
        r"^model.field = \[0, 1\]: one value per state needs",
    ),
    (
        {"edges": [[0, 1]], "states": [2, 3], "field": [[0, 1], [0, 1]]},
        r"^model.field\[1\] = \[0, 1\]: must be 3 finite",
    ),
    ({"edges": [[0, 1]], "states": 1}, r"^model.states = 1: must be an integer in 2..1000"),
    ({"edges": [[0, 1]], "nodes": 1}, r"^model.nodes = 1: must be an integer in 2"),
    ({"edges": [[0, 5]], "nodes": 3}, r"^model.edges = .*node indices must be in 0..2"),
    ({"graph": "football"}, r"^model.graph = 'football': must be one of \['karate'\]$"),
    (
        {"edges": [[0, 1]], "node_potentials": [[1, 1], [0, 0]]},
        r"^model.node_potentials\[1\] = .*needs an entry > 0$",
    ),
    (
        {"edges": [[0, 1]], "edge_potentials": [[[1, 1]]]},
        r"^model.edge_potentials\[0\] = .*must have shape \(2, 2\)",
    ),
    ({"edges": [[0, 1]], "records": [0, 3]}, r"^model.records = 3: entries must be nodes in 0..1$"),
    ({"edges": [[0, 1]], "names": ["a", "a"]}, r"^model.names = \['a'\]: names must be distinct$"),
    ({"edges": [[0, 1]], "gamma": 2}, r"^model.gamma = 2: not a key of an mrf model"),
    (
        {"edges": [[0, 1]], "node_potentials": [[1, 0], [0, 1]], "edge_potentials": [[[1, 0], [0, 1]]]},
        r"^model = 'potentials': every joint state has weight zero",
    ),
    (
        {
            "edges": [[r * 40 + c, r * 40 + c + 1] for r in range(40) for c in range(39)]
            + [[r * 40 + c, r * 40 + c + 40] for r in range(39) for c in range(40)]
        },
        r"^model.edges = '1600 nodes, induced width \d+': infeasible",
    ),
]


@pytest.mark.parametrize("doc,message", MRF_BAD)
def test_mrf_bad_inputs_are_one_line_naming_the_field(doc, message):
    with pytest.raises(ConfigError, match=message) as err:
        build_mrf(doc)
    assert "\n" not in str(err.value) and len(str(err.value)) < 400


def test_mrf_is_a_registered_kind_and_refuses_the_markov_quilt():
    assert "mrf" in MODEL_KINDS
    doc = {
        "run": {"adversaries": 2, "estimator": "exact"},
        "model": {"kind": "mrf", "edges": [[0, 1], [1, 2]], "coupling": 0.5},
        "mechanism": {"kind": "markov_quilt", "epsilon": 1.0},
    }
    with pytest.raises(ConfigError) as err:
        parse_config(doc)
    assert "\n" not in str(err.value)


# ----------------------------------------------------------------------------- Bayesian networks


@pytest.mark.parametrize("seed", range(4))
def test_mixed_cardinality_networks_every_adversary_equals_brute_force(seed):
    """Networks of <= 8 nodes with 2-4 states, hidden nodes: every adversary, both searches."""
    rng = np.random.default_rng(260 + seed)
    m = random_network(rng, nodes=int(rng.integers(5, 9)), records=int(rng.integers(3, 6)), max_states=4)
    assert len(set(m.node_states)) > 1
    xs, pr = bn_joint(m)
    g = _count(m.record_states, counted=int(rng.integers(0, 2)))
    ref = brute_all_adversaries(xs, pr, g, 1.0)
    for method in ("exhaustive", "regions"):
        assert bdpl_search(m, _g_table(m, g), laplace_score(1.0), method=method).bdpl == pytest.approx(
            ref, abs=1e-9
        )


MIXED = {
    "kind": "bayesnet",
    "parents": [[], [0], [0], [1, 2]],
    "names": ["Smoker", "Cough", "Stage", "Xray"],
    "cpt": [
        [0.2, 0.3, 0.5],
        [[0.7, 0.3], [0.4, 0.6], [0.1, 0.9]],
        [[0.5, 0.2, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]],
        [[[0.9, 0.1], [0.6, 0.4], [0.5, 0.5], [0.2, 0.8]], [[0.3, 0.7], [0.4, 0.6], [0.1, 0.9], [0.5, 0.5]]],
    ],
}


def test_sampled_adversaries_on_mixed_cardinalities_exact_and_mixture(tmp_path):
    import gzip

    from bdpsim.pipeline.rows import ADVERSARY_SCHEMA, typed_rows

    doc = {
        "run": {
            "adversaries": 30,
            "estimator": ["exact", "mixture"],
            "samples": 2000,
            "known_sizes": "all",
            "seed": 2,
        },
        "model": MIXED,
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    run_experiment(parse_config(doc), tmp_path, progress=False)
    with gzip.open(tmp_path / "adversaries.csv.gz", "rt") as fh:
        lines = [ln.rstrip("\n").split(",") for ln in fh]
    rows = typed_rows(lines[0], lines[1:], ADVERSARY_SCHEMA, "adversaries")
    m = build_bn(MIXED)
    names = dict(enumerate(MIXED["names"]))
    xs, pr = bn_joint(m)
    assert len(rows) == 60
    for r in rows:
        i = r["i"]
        assert int(r["x"]) < m.record_states[i] and int(r["x_prime"]) < m.record_states[i]
        assert r["i_name"] == names[i]
        known = [int(k) for k in r["known"].split(";")] if r["known"] else []
        assert r["known_names"] == ";".join(names[k] for k in known)
        assert math.isfinite(r["exact"])
    summ = read_summary(tmp_path)
    assert all(s["argmax_i_name"] in MIXED["names"] for s in summ)


def test_all_adversary_search_rows_carry_node_names(tmp_path):
    """The all-adversary search (the driver's window rows) names the nodes as sampled adversaries
    do: from the model's record names (HasRecordNames), not from a key of the row."""
    doc = {
        "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all"},
        "model": MIXED,
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    run_experiment(parse_config(doc), tmp_path, progress=False)
    rows = read_adversaries(tmp_path)
    names = dict(enumerate(MIXED["names"]))
    assert rows
    for r in rows:
        known = [int(k) for k in r["known"].split(";")] if r["known"] else []
        assert r["i_name"] == names[r["i"]] and r["known_names"] == ";".join(names[k] for k in known)
    summ = read_summary(tmp_path)[0]
    assert summ["argmax_i_name"] == names[summ["argmax_i"]]


def test_rounded_tables_are_renormalised_with_a_note_and_named_beyond(tmp_path):
    doc = {**MIXED, "cpt": [[0.2, 0.3, 0.4999995]] + MIXED["cpt"][1:]}
    m = build_bn(doc)
    assert m.cpt[0].sum() == pytest.approx(1.0, abs=1e-15)
    assert m.notes and "'Smoker'" in m.notes[0] and "table_tolerance" in m.notes[0]
    run = {
        "run": {"adversaries": 2, "estimator": "exact"},
        "model": doc,
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    run_experiment(parse_config(run), tmp_path, progress=False)
    import json

    meta = json.loads((tmp_path / "metadata.json").read_text())
    assert "renormalised" in meta["points"][0]["model_notes"][0]
    with pytest.raises(ConfigError, match=r"^model.cpt\['Smoker'\] = .*the root's table sums to 0.99"):
        build_bn({**MIXED, "cpt": [[0.2, 0.3, 0.49]] + MIXED["cpt"][1:]})
    assert build_bn({**doc, "table_tolerance": 0.02, "cpt": [[0.2, 0.3, 0.49]] + MIXED["cpt"][1:]}).notes
    with pytest.raises(
        ConfigError, match=r"^model.cpt\['Cough'\] = .*rows must sum to 1 \(row \(1,\) sums to 1.1"
    ):
        build_bn({**MIXED, "cpt": [MIXED["cpt"][0], [[0.7, 0.3], [0.5, 0.6], [0.1, 0.9]]] + MIXED["cpt"][2:]})
    with pytest.raises(ConfigError, match=r"^model.table_tolerance = 0.5: must be a number in \[0, 0.1\)"):
        build_bn({**MIXED, "table_tolerance": 0.5})


def test_root_tables_and_hmm_initial_must_sum_to_one():
    """Issue 27 item 1: root tables were never checked."""
    with pytest.raises(ConfigError, match=r"^model.cpt\[0\] = \[0.5, 0.9\]: rows must sum to 1 \(the root's"):
        build_bn({"kind": "bayesnet", "parents": [[], [0]], "cpt": [[0.5, 0.9], [[0.5, 0.5], [0.5, 0.5]]]})
    with pytest.raises(ConfigError, match=r"^model.hmm.initial = \[0.5, 0.6\]: must be 2 probabilities"):
        build_bn(
            {
                "kind": "bayesnet",
                "hmm": {
                    "transition": [[0.9, 0.1], [0.2, 0.8]],
                    "emission": [[1, 0], [0, 1]],
                    "n": 3,
                    "initial": [0.5, 0.6],
                },
            }
        )


def test_hmm_length_is_refused_before_building():
    """Issue 27 item 9: n = 10^9 refused at once, naming model.hmm.n."""
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match=r"^model.hmm.n = 1000000000: must be an integer in 1..50000"):
        build_bn(
            {
                "kind": "bayesnet",
                "hmm": {"transition": [[0.9, 0.1], [0.2, 0.8]], "emission": [[1, 0], [0, 1]], "n": 10**9},
            }
        )
    assert time.perf_counter() - t0 < 1.0


def _grid_network(side):
    parents, cpt = [], []
    for r in range(side):
        for c in range(side):
            pa = ([(r - 1) * side + c] if r else []) + ([r * side + c - 1] if c else [])
            parents.append(pa)
            cpt.append(np.full((2,) * len(pa) + (2,), 0.5).tolist())
    return {"kind": "bayesnet", "parents": parents, "cpt": cpt}


def test_markov_quilt_on_a_wide_grid_is_refused_in_one_line():
    """Issue 27 item 10: a 40 x 40 grid network, kind = 'markov_quilt': one line, no 4 GiB table."""
    doc = {
        "run": {"adversaries": 2, "estimator": "exact"},
        "model": _grid_network(40),
        "mechanism": {"kind": "markov_quilt", "epsilon": 1.0},
    }
    for mech in ("markov_quilt", "count"):
        with pytest.raises(
            ConfigError, match=r"^model.parents = '1600 nodes, induced width \d+': infeasible"
        ) as err:
            parse_config({**doc, "mechanism": {"kind": mech, "epsilon": 1.0}})
    assert "\n" not in str(err.value) and len(str(err.value)) < 400


def test_long_chain_network_has_no_overflow_and_short_messages():
    """Issue 27 item 11: a long chain cut by evidence into many parts: no overflow, exact law;
    an impossible condition is one short line."""
    n = 4000
    P = np.array([[0.9, 0.1], [0.2, 0.8]])
    m = BayesNetModel([[]] + [[t - 1] for t in range(1, n)], [[0.5, 0.5]] + [P] * (n - 1))
    known = {
        k: int(v) for k, v in zip(range(0, n, 2), m.sample(1, np.random.default_rng(0))[0, ::2], strict=True)
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        law = m.additive_law(known, [0, 1])
        assert law.sum() == pytest.approx(1.0, abs=1e-9)
        assert math.isfinite(m.log_evidence(known))
    Z = BayesNetModel([[]] + [[t - 1] for t in range(1, n)], [[0.5, 0.5]] + [np.eye(2)] * (n - 1))
    bad = {k: (k // 2) % 2 for k in range(0, n, 2)}
    with pytest.raises(ConfigError) as err:
        Z.additive_law(bad, [0, 1])
    assert len(str(err.value)) < 400 and "probability zero" in str(err.value)


def test_all_adversary_search_is_refused_up_front_with_its_estimate():
    """Issue 26 §3: 'all' on a network too large for both searches: one line at config time."""
    rng = np.random.default_rng(9)
    m = random_network(rng, nodes=24, records=24, max_states=4, max_parents=3)
    g = np.zeros((m.n, m.states), dtype=int)
    g[:, 1] = 1
    with pytest.raises(
        ConfigError,
        match=r"^run.adversaries = 'all': the exact search over every adversary is "
        r"refused up front",
    ):
        search_plan(m, g, max_regions=2000)
    small = build_bn(MIXED)
    plan = search_plan(small, _g_table(small, _count(small.record_states)))
    assert plan.method in ("exhaustive", "regions") and plan.seconds < 10


def _no_work(monkeypatch, *names):
    """Make the named functions of the search fail the test when called: work the refusal skips."""
    import bdpsim.models.bayesnet.search as BS

    def work(*args, **kwargs):
        raise AssertionError("the search started its work before refusing")

    for name in names:
        monkeypatch.setattr(BS, name, work)


def test_dense_network_is_refused_by_exact_bdpl_before_any_region_law(monkeypatch):
    """A network like pgmpy's CHILD (14 nodes of up to 6 states, up to 4 parents each: width 5)
    whose region search is estimated above an hour: ``exact_bdpl`` answers with the estimate in one
    line before any region's law (it ran the search: past 20 s CPU with no answer on CHILD; ALARM
    refused after 42.6 s with "limit ~inf s")."""
    import bdpsim

    m = random_network(np.random.default_rng(3), nodes=14, records=14, max_states=6, max_parents=4)
    _no_work(monkeypatch, "region_laws", "exhaustive_search")
    t0 = time.process_time()
    with pytest.raises(ConfigError) as err:
        bdpsim.exact_bdpl(m, bdpsim.LaplaceCount(1.0))
    assert time.process_time() - t0 < 2.0
    line = str(err.value)
    assert "\n" not in line and line.startswith("sizes = 'all': the exact search over every adversary")
    assert "a model of 14 nodes (14 records of 2–6 states)" in line  # the network's size
    assert re.search(r"separated regions already need ~[0-9.e+]+ s", line)  # the estimate
    assert "limit ~3600 s of one core" in line and "inf" not in line  # the limit, never "~inf"
    with pytest.raises(ConfigError, match="refused up front") as err:  # the search itself: same
        bdpl_search(m, _g_table(m, _count(m.record_states)), laplace_score(1.0))
    assert "inf" not in str(err.value)


def test_hmm_of_thousands_of_steps_is_refused_without_enumerating_regions(monkeypatch):
    """A 5 000-step hidden Markov model: each target has ``2^4999`` separated regions (its first
    frontier, :func:`~bdpsim.models.bayesnet.search.frontier_records`), known without enumerating
    one; the config and ``exact_bdpl`` are refused in about a second (168 s before, 2.4 GB)."""
    import bdpsim

    doc = {
        "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all"},
        "model": {
            "kind": "bayesnet",
            "hmm": {
                "transition": [[0.9, 0.1], [0.2, 0.8]],
                "emission": [[0.85, 0.15], [0.25, 0.75]],
                "n": 5000,
            },
        },
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    _no_work(monkeypatch, "closed_regions", "region_laws", "exhaustive_search")
    t0 = time.process_time()
    with pytest.raises(ConfigError) as err:
        parse_config(doc)
    line = str(err.value)
    assert line.startswith(
        "run.adversaries = 'all': the exact search over every adversary is refused up front"
    )
    assert "a model of 10000 nodes (5000 records of 2 states)" in line
    assert "more than 200000 separated regions (limit 200000)" in line and "(limit 1e+07)" in line
    m = BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.85, 0.15], [0.25, 0.75]], 5000)
    with pytest.raises(ConfigError, match="more than 200000 separated regions"):
        bdpsim.exact_bdpl(m, bdpsim.LaplaceCount(1.0))
    assert time.process_time() - t0 < 4.0


def test_first_frontier_bounds_the_regions_counted():
    """``2^k`` regions at least, ``k`` the first frontier's records: against the enumeration, on
    chains, random networks with hidden nodes and a small HMM (every region of a target)."""
    from bdpsim.models.bayesnet.search import closed_regions, frontier_records

    models = [random_network(np.random.default_rng(s), nodes=9, records=6, max_states=3) for s in range(6)]
    models.append(BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.8, 0.2], [0.3, 0.7]], 6))
    for m in models:
        adj, rec = m.interaction_graph(), set(m.records)
        for node in m.records:
            k = frontier_records(adj, node, rec.__contains__)
            assert 2**k <= sum(1 for _ in closed_regions(adj, node, rec.__contains__))
    h = models[-1]
    adj, rec = h.interaction_graph(), set(h.records)
    assert all(frontier_records(adj, r, rec.__contains__) == 5 for r in h.records)  # 2^5 regions each


def test_known_sets_and_exhaustive_cells_of_large_networks_by_their_formulas():
    """The counts of the plan, now in one product (a network of thousands of records), against the
    formulas term by term: ``|T| sum_{k >= m} C(n-1, k)`` and ``max_r s_r prod_{j != r} (s_j + 1) Q``."""
    from bdpsim.models.bayesnet.search import exhaustive_cells, n_known_sets

    for n in (1, 2, 7, 30):
        for m in range(n):
            assert n_known_sets(n, [0, 1, 2], m) == 3 * sum(math.comb(n - 1, k) for k in range(m, n))
    for seed in range(4):
        m = random_network(np.random.default_rng(seed), nodes=8, records=6, max_states=4)
        cards, g = m.record_states, _g_table(m, _count(m.record_states))
        direct = max(c * math.prod(d + 1 for k, d in enumerate(cards) if k != r) for r, c in enumerate(cards))
        assert exhaustive_cells(m, g) == float(direct * (1 + m.n))


def test_alarm_from_its_bif_runs_sampled_adversaries_exactly(tmp_path):
    """pgmpy's ALARM written to a BIF file (pgmpy bundles it), loaded, 5 sampled adversaries."""
    pytest.importorskip("pgmpy")
    from pgmpy.readwrite import BIFWriter
    from pgmpy.utils import get_example_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        BIFWriter(get_example_model("alarm")).write_bif(str(tmp_path / "alarm.bif"))
    doc = {
        "run": {"adversaries": 5, "estimator": "exact", "known_sizes": "all"},
        "model": {"kind": "bayesnet", "bif": str(tmp_path / "alarm.bif")},
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    cfg = parse_config(doc)
    m = cfg.points[0].model.fixed
    assert m.size == 37 and len(set(m.node_states)) > 1 and "HYPOVOLEMIA" in m.names
    rows = run_experiment(cfg, tmp_path / "out", progress=False)
    assert rows[0]["exact_n"] == 5 and math.isfinite(rows[0]["bdpl_exact"])
    assert rows[0]["argmax_i_name"] in m.names


BN = '[model]\nkind = "bayesnet"\nstates = 3\nparents = [[], [0]]\ntable_tolerance = 0\n'


@pytest.mark.parametrize("root", ["[0.1, 0.2, 0.7]", "[0.7, 0.2, 0.1]", "[0.3, 0.3, 0.4]"])
def test_table_tolerance_zero_accepts_float_rounding(bdpsim_cli, tmp_path, root):
    """``sum([0.7, 0.2, 0.1]) == 0.9999999999999999``: exact probabilities, refused before."""
    cpt = f"cpt = [{root}, [{root}, [0.6, 0.3, 0.1], [0.2, 0.2, 0.6]]]\n"
    cfg = write_toml(tmp_path / "c.toml", RUN_EXACT + BN + cpt + COUNT_DEFAULT)
    p = bdpsim_cli("validate", cfg)
    assert p.returncode == 0, p.stderr


def test_table_tolerance_zero_still_refuses_a_real_deviation(bdpsim_cli, tmp_path):
    cpt = "cpt = [[0.1, 0.2, 0.7000001], [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6]]]\n"
    cfg = write_toml(tmp_path / "c.toml", RUN_EXACT + BN + cpt + COUNT_DEFAULT)
    one_line(bdpsim_cli("validate", cfg), "model.cpt[0]", "rows must sum to 1", "table_tolerance = 0")


def test_hmm_initial_with_float_rounding_at_tolerance_zero(bdpsim_cli, tmp_path):
    hmm = (
        '[model]\nkind = "bayesnet"\ntable_tolerance = 0\nhmm = { n = 3, transition = [[0.7, 0.2, '
        "0.1], [0.2, 0.6, 0.2], "
        "[0.1, 0.2, 0.7]], emission = [[0.7, 0.3], [0.5, 0.5], [0.2, 0.8]], initial = [0.7, 0.2, 0.1] }\n"
    )
    cfg = write_toml(tmp_path / "c.toml", RUN_EXACT + hmm + COUNT_DEFAULT)
    p = bdpsim_cli("validate", cfg)
    assert p.returncode == 0, p.stderr


def test_a_field_past_the_float_range_is_refused_with_its_size():
    """A clique of 310 ten-state nodes: its junction tree's smallest clique table holds 10^310
    cells, which the refusal printed as "inf cells"."""
    import itertools

    with pytest.raises(ConfigError) as err:
        MRFModel(edges=tuple(itertools.combinations(range(310), 2)), states=10, coupling=0.5)
    line = str(err.value)
    assert "a clique table of at least 1e+310 cells (limit 5e+07" in line and "inf" not in line.replace(
        "infeasible", ""
    )
