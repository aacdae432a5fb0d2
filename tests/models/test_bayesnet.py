"""Bayesian-network data model: exact laws, evidence, sampling and the other models as networks,
against brute force over every joint state; every bad input one line naming the field."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from bdpsim.core.errors import ConfigError
from bdpsim.kernels.argcheck import TooExpensive
from bdpsim.kernels.graphical.elimination import Factor, convolve_last, eliminate, min_fill_order, plan
from bdpsim.models import MarkovChainModel, PedigreeModel
from bdpsim.models.bayesnet.build import build, from_bif, from_pgmpy
from bdpsim.models.bayesnet.model import BayesNetModel

DIAMOND = dict(
    kind="bayesnet",
    states=2,
    parents=[[], [0], [0], [1, 2], [3]],
    cpt=[
        [0.6, 0.4],
        [[0.8, 0.2], [0.3, 0.7]],
        [[0.9, 0.1], [0.25, 0.75]],
        [[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]],
        [[0.85, 0.15], [0.2, 0.8]],
    ],
)


# ----------------------------------------------------------------------------- shared helpers


def random_network(rng, nodes, records, max_states=3, max_parents=2, zeros=0.0):
    """Random network: parents a random subset of earlier nodes (loops in the skeleton are
    common), 2..max_states states, Dirichlet tables; ``zeros`` = chance of a zeroed entry;
    ``records`` random nodes (the others hidden)."""
    states = rng.integers(2, max_states + 1, nodes)
    parents, cpt = [], []
    for j in range(nodes):
        k = int(rng.integers(0, min(j, max_parents) + 1))
        pa = sorted(int(p) for p in rng.choice(j, k, replace=False)) if k else []
        t = rng.dirichlet(np.full(int(states[j]), 0.8), size=tuple(int(states[p]) for p in pa))
        if zeros:
            t = np.where(rng.random(t.shape) < zeros, 0.0, t)
            t[t.sum(axis=-1) == 0, 0] = 1.0
            t = t / t.sum(axis=-1, keepdims=True)
        parents.append(pa)
        cpt.append(t)
    recs = sorted(int(r) for r in rng.choice(nodes, records, replace=False))
    return BayesNetModel(parents, cpt, records=recs)


def full_joint(model):
    """Every joint state of all nodes and its probability."""
    xs = np.array(list(itertools.product(*[range(s) for s in model.node_states])))
    pr = np.ones(len(xs))
    for j in range(model.size):
        pr *= model.cpt[j][tuple(xs[:, p] for p in model.parents[j]) + (xs[:, j],)]
    return xs, pr


def record_joint(model):
    """Every data tuple (records only, hidden nodes summed out) and its probability."""
    xs, pr = full_joint(model)
    tuples, inv = np.unique(xs[:, list(model.records)], axis=0, return_inverse=True)
    return tuples, np.bincount(inv.ravel(), pr, minlength=len(tuples))


def brute_law(model, known, g, target=None, x=None):
    """``P(S = . | known[, X_target = x])`` with ``S = sum_r g[r][X_r]`` by enumeration."""
    xs, pr = record_joint(model)
    ok = np.ones(len(xs), bool)
    for r, v in known.items():
        ok &= xs[:, r] == v
    if target is not None:
        ok &= xs[:, target] == x
    S = sum(np.asarray(g[r])[xs[:, r]] for r in range(model.n))
    law = np.bincount(S[ok], pr[ok], minlength=int(sum(np.max(gr) for gr in g)) + 1)
    return law, pr[ok].sum()


# ----------------------------------------------------------------------------- kernel


def test_convolution_and_elimination_of_a_chain_count():
    A, B = np.array([[0.2, 0.5, 0.3]]), np.array([[0.6, 0.4]])
    assert convolve_last(A, B)[0] == pytest.approx(np.convolve(A[0], B[0]), abs=1e-15)
    P, w = np.array([[0.7, 0.3], [0.2, 0.8]]), np.array([0.5, 0.5])

    def rec(t, vs):
        out = np.zeros(t.shape + (2,))
        out[..., 0, 0], out[..., 1, 1] = t[..., 0], t[..., 1]
        return Factor(vs, out[None])

    tab, ls = eliminate([rec(w, (0,)), rec(P, (0, 1)), rec(P, (1, 2))], [0, 2], keep=(1,))
    brute = np.zeros((2, 4))
    for x in itertools.product(range(2), repeat=3):
        brute[x[1], sum(x)] += w[x[0]] * P[x[0], x[1]] * P[x[1], x[2]]
    assert tab[0] * math.exp(ls[0]) == pytest.approx(brute, abs=1e-15)


def test_min_fill_on_a_chain_and_the_plan_refusal():
    adj = {t: {u for u in (t - 1, t + 1) if 0 <= u < 6} for t in range(6)}
    assert min_fill_order(adj, range(6)) == [0, 1, 2, 3, 4, 5]
    scopes = [(t, t + 1) for t in range(5)]
    p = plan(scopes, dict.fromkeys(range(6), 2), [1] * 5)
    assert p.width == 1 and p.operations > 0
    grid = [(a, b) for a in range(20) for b in range(a + 1, 20)]  # a clique of 20 binary nodes
    with pytest.raises(
        TooExpensive, match=r"^big = '20 variables, induced width 19': infeasible: about 1.44e\+12 operations"
    ):
        plan(grid, dict.fromkeys(range(20), 2), [40] * len(grid)).check("big", max_operations=1e6)


# ----------------------------------------------------------------------------- model


def test_config_example_and_exact_laws_equal_brute_force():
    m = build(DIAMOND)
    assert (m.kind, m.n, m.states, m.size) == ("bayesnet", 5, 2, 5) and m.record_states == (2,) * 5
    g = np.array([0, 1])
    for known in ({}, {1: 1, 4: 0}, {0: 0, 3: 1}, {2: 1}):
        law, z = brute_law(m, known, [g] * 5)
        assert m.additive_law(known, g) == pytest.approx(law / z, abs=1e-15)
        assert m.log_evidence(known) == pytest.approx(math.log(z), abs=1e-13)
        xs, pr = record_joint(m)
        ok = np.all([xs[:, r] == v for r, v in known.items()], axis=0) if known else np.ones(len(xs), bool)
        marg = np.array([[pr[ok & (xs[:, r] == x)].sum() for x in range(2)] for r in range(5)]) / pr[ok].sum()
        assert m.marginals(known) == pytest.approx(marg, abs=1e-14)


@pytest.mark.parametrize("seed", range(6))
def test_random_networks_with_hidden_nodes(seed):
    rng = np.random.default_rng(100 + seed)
    m = random_network(rng, nodes=9, records=6, zeros=0.15 if seed % 2 else 0.0)
    g = [rng.integers(0, 3, m.record_states[r]) for r in range(m.n)]
    table = np.zeros((m.n, m.states), dtype=int)
    for r in range(m.n):
        table[r, : m.record_states[r]] = g[r]
    xs, pr = record_joint(m)
    for _ in range(5):
        K = rng.choice(m.n, int(rng.integers(0, m.n)), replace=False)
        row = xs[rng.choice(len(xs), p=pr / pr.sum())]
        known = {int(r): int(row[r]) for r in K}
        law, z = brute_law(m, known, g)
        assert m.additive_law(known, table) == pytest.approx(law / z, abs=1e-14)
        assert m.log_evidence(known) == pytest.approx(math.log(z), abs=1e-12)
    impossible = [
        (r, x) for r in range(m.n) for x in range(m.record_states[r]) if pr[xs[:, r] == x].sum() == 0
    ]
    for r, x in impossible[:2]:
        assert m.log_evidence({r: x}) == -math.inf
        with pytest.raises(ConfigError, match="^known = .*probability zero"):
            m.additive_law({r: x}, table)
    allowed = (rng.random((4, m.n, m.states)) < 0.7).astype(float)
    law, logz = m.additive_law_masked(allowed, table)
    S = sum(table[r][xs[:, r]] for r in range(m.n))
    for b in range(4):
        ok = np.all([allowed[b, r][xs[:, r]] > 0 for r in range(m.n)], axis=0)
        z = pr[ok].sum()
        if z > 0:
            ref = np.bincount(S[ok], pr[ok], minlength=law.shape[1])
            assert law[b] == pytest.approx(ref / z, abs=1e-14) and logz[b] == pytest.approx(math.log(z))
        else:
            assert np.all(np.isnan(law[b])) and logz[b] == -math.inf


def _chi2_joint(m, known, size, rng):
    """p-value of the chi-square test of the sampled joint of the records against the exact one."""
    xs, pr = record_joint(m)
    ok = np.all([xs[:, r] == v for r, v in known.items()], axis=0) if known else np.ones(len(xs), bool)
    exact = pr * ok
    exact /= exact.sum()
    draws = m.sample_conditional(known, size, rng)
    assert draws.shape == (size, m.n) and draws.dtype == np.int16
    for r, v in known.items():
        assert np.all(draws[:, r] == v)
    keys = {tuple(x): k for k, x in enumerate(xs)}
    counts = np.bincount([keys[tuple(d)] for d in draws], minlength=len(xs))
    keep = exact > 0
    assert counts[~keep].sum() == 0
    return stats.chisquare(counts[keep], exact[keep] * size).pvalue


@pytest.mark.parametrize("seed", range(4))
def test_exact_conditional_sampling_matches_the_exact_joint(seed):
    """Chi-square of the full joint of the records (fixed seeds; p > 1e-4 at 4e4 draws)."""
    rng = np.random.default_rng(7 + seed)
    m = build(DIAMOND) if seed == 0 else random_network(rng, nodes=8, records=5, zeros=0.1)
    xs, pr = record_joint(m)
    row = xs[rng.choice(len(xs), p=pr / pr.sum())]
    for K in ([], [0], [1, m.n - 1]):
        assert _chi2_joint(m, {r: int(row[r]) for r in K}, 40_000, rng) > 1e-4


def test_exact_sampling_is_exact_in_a_long_network():
    """Marginals of 2e4 conditional draws of a 300-step HMM within 5 standard errors."""
    rng = np.random.default_rng(3)
    h = BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.8, 0.2], [0.3, 0.7]], 300)
    known = {int(r): int(rng.integers(2)) for r in rng.choice(300, 100, replace=False)}
    draws = h.sample_conditional(known, 20_000, rng)
    p = h.marginals(known)[:, 1]
    se = np.sqrt(p * (1 - p) / 20_000) + 1e-12
    assert np.all(np.abs(draws.mean(axis=0) - p) <= 5 * se)


def test_markov_chain_as_a_network():
    rng = np.random.default_rng(5)
    for s, w in ((2, None), (3, [0.5, 0.3, 0.2])):
        P = rng.dirichlet(np.ones(s), size=s)
        mc = MarkovChainModel(P, 8, None if w is None else np.array(w))
        bn = BayesNetModel.from_markov(mc)
        g = rng.integers(0, 3, s)
        for known in ({}, {0: 1, 5: 0}, {3: s - 1}):
            assert bn.additive_law(known, g) == pytest.approx(mc.additive_law(known, g), abs=1e-14)
            assert bn.log_evidence(known) == pytest.approx(mc.log_evidence(known), abs=1e-12)
            assert bn.marginals(known) == pytest.approx(mc.marginals(known), abs=1e-13)


def test_pedigree_as_a_network():
    for ped in (
        PedigreeModel.nuclear(6, 0.3),
        PedigreeModel.three_generation(8, 0.2),
        PedigreeModel(((), (), (0, 1), (), (2, 3), (2, 3)), 0.4),
    ):
        bn = BayesNetModel.from_pedigree(ped)
        for counted in ((0,), (1, 2)):
            g = np.isin(np.arange(3), counted).astype(int)
            for known in ({}, {0: 2, ped.n - 1: 0}, {2: 1}):
                if ped.log_evidence(known) == -math.inf:
                    continue
                assert bn.additive_law(known, g) == pytest.approx(ped.count_law(known, counted), abs=1e-14)
                assert bn.log_evidence(known) == pytest.approx(ped.log_evidence(known), abs=1e-12)


def test_hmm_records_are_the_observations():
    P, E = np.array([[0.9, 0.1], [0.3, 0.7]]), np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    h = BayesNetModel.hmm(P, E, 4)
    assert h.n == 4 and h.size == 8 and h.records == (1, 3, 5, 7) and h.hidden == (0, 2, 4, 6)
    assert h.states == 3 and h.node_states == (2, 3) * 4
    law, z = brute_law(h, {1: 2}, [np.array([0, 1, 2])] * 4)
    assert h.additive_law({1: 2}, [0, 1, 2]) == pytest.approx(law / z, abs=1e-15)
    from_config = build(
        {"kind": "bayesnet", "hmm": {"transition": P.tolist(), "emission": E.tolist(), "n": 4}}
    )
    assert from_config.additive_law({}, [0, 1, 2]) == pytest.approx(h.additive_law({}, [0, 1, 2]))


def test_query_law_follows_the_markov_contract():
    from bdpsim.queries import CountQuery

    m = build(DIAMOND)
    atoms, law = m.query_law(CountQuery((1,)), {0: 1})
    assert atoms.tolist() == [0, 1, 2, 3, 4, 5] and law == pytest.approx(m.additive_law({0: 1}, [0, 1]))


# ----------------------------------------------------------------------------- pgmpy / BIF


def _pgmpy_diamond():
    pgm = pytest.importorskip("pgmpy")  # noqa: F841
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    net = DiscreteBayesianNetwork([("A", "B"), ("A", "C"), ("B", "D"), ("C", "D"), ("D", "E")])
    c = DIAMOND["cpt"]
    net.add_cpds(
        TabularCPD("A", 2, np.array(c[0])[:, None]),
        TabularCPD("B", 2, np.array(c[1]).T, evidence=["A"], evidence_card=[2]),
        TabularCPD("C", 2, np.array(c[2]).T, evidence=["A"], evidence_card=[2]),
        TabularCPD(
            "D",
            2,
            np.moveaxis(np.array(c[3]), -1, 0).reshape(2, 4),
            evidence=["B", "C"],
            evidence_card=[2, 2],
        ),
        TabularCPD("E", 2, np.array(c[4]).T, evidence=["D"], evidence_card=[2]),
    )
    return net


def test_from_pgmpy_and_bif(tmp_path):
    net = _pgmpy_diamond()
    ref = build(DIAMOND)
    m = from_pgmpy(net)
    assert m.names == ("A", "B", "C", "D", "E") and m.parents == ref.parents
    assert all(np.allclose(a, b) for a, b in zip(m.cpt, ref.cpt))
    from pgmpy.readwrite import BIFWriter

    BIFWriter(net).write(str(tmp_path / "d.bif"))
    b = from_bif(tmp_path / "d.bif", records=["B", "D"])
    assert b.records == (1, 3) and b.additive_law({}, [0, 1]) == pytest.approx(
        BayesNetModel(ref.parents, ref.cpt, records=(1, 3)).additive_law({}, [0, 1]), abs=1e-12
    )
    assert build({"bif": str(tmp_path / "d.bif")}).additive_law({0: 1}, [0, 1]) == pytest.approx(
        ref.additive_law({0: 1}, [0, 1]), abs=1e-12
    )
    assert from_pgmpy(net, ["B", 3]).records == (1, 3)  # names and indices, as from_bif takes them
    with pytest.raises(ConfigError, match="^model.records = 'Z': not a node"):
        from_pgmpy(net, ["Z"])
    with pytest.raises(ConfigError, match="^model.records = 'B': must be a list of node names"):
        from_pgmpy(net, "B")


def test_missing_pgmpy_is_one_clear_error(monkeypatch, tmp_path):
    import builtins

    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "pgmpy" or name.startswith("pgmpy."):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    (tmp_path / "x.bif").write_text("network x {}")
    with pytest.raises(ConfigError, match=r"^pgmpy = 'not installed': .*pip install bdpsim\[bayesnet\]"):
        from_bif(tmp_path / "x.bif")
    with pytest.raises(ConfigError, match=r"pip install bdpsim\[bayesnet\]"):
        from_pgmpy(object())


# ----------------------------------------------------------------------------- bad inputs


def _with(**kw):
    d = {k: v for k, v in DIAMOND.items()}
    d.update(kw)
    return d


BAD = [
    (
        _with(
            cpt=DIAMOND["cpt"][:3]
            + [[[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.4], [0.1, 0.9]]]]
            + DIAMOND["cpt"][4:]
        ),
        r"^model.cpt\[3\] = .*: rows must sum to 1 \(row \(1, 0\) sums to 0.9; "
        r"model.table_tolerance = 1e-06\)$",
    ),
    (
        _with(cpt=DIAMOND["cpt"][:1] + [[0.8, 0.2]] + DIAMOND["cpt"][2:]),
        r"^model.cpt\[1\] = .*: must be nested 2 deep .*got depth 1$",
    ),
    (
        _with(cpt=DIAMOND["cpt"][:1] + [[[0.8, 0.2], [0.3]]] + DIAMOND["cpt"][2:]),
        r"^model.cpt\[1\] = .*ragged",
    ),
    (
        _with(cpt=DIAMOND["cpt"][:1] + [[[1.2, -0.2], [0.3, 0.7]]] + DIAMOND["cpt"][2:]),
        r"^model.cpt\[1\] = .*: entries must be >= 0$",
    ),
    (
        _with(cpt=DIAMOND["cpt"][:1] + [[[0.8, 0.2], [0.3, 0.7], [0.5, 0.5]]] + DIAMOND["cpt"][2:]),
        r"^model.cpt\[1\] = .*must have shape \(2, 2\)",
    ),
    (
        _with(parents=[[], [0], [0], [1, 2], [5]]),
        r"^model.parents\[4\] = \[5\]: parent indices must be integers in 0..4$",
    ),
    (
        _with(parents=[[], [0], [3], [1, 2], [3]]),
        r"^model.parents = '3 -> 2 -> 3': the graph has a directed cycle",
    ),
    (_with(parents=[[], [0], [4], [1], [3]]), r"^model.parents\[2\] = \[4\]: parents must be earlier nodes"),
    (
        _with(parents=[[], [0], [0], [1, 1], [3]]),
        r"^model.parents\[3\] = \[1, 1\]: parents must be distinct$",
    ),
    (
        _with(parents=[[], [1], [0], [1, 2], [3]]),
        r"^model.parents\[1\] = \[1\]: node 1 cannot be its own parent$",
    ),
    (_with(states=1), r"^model.states = 1: must be an integer >= 2"),
    (_with(states=[2, 2, 3, 2, 2]), r"^model.cpt\[2\] = .*: rows must have 3 entries"),
    (_with(records=[0, 7]), r"^model.records = 7: entries must be nodes in 0..4$"),
    (_with(records=[1, 1]), r"^model.records = \[1, 1\]: nodes must be distinct$"),
    (_with(cpt=DIAMOND["cpt"][:4]), r"^model.cpt = '4 tables': must be a list of one table per node \(5\)$"),
    (_with(gamma=2.0), r"^model.gamma = 2.0: not a key of a bayesnet model"),
    ({"kind": "bayesnet", "parents": [[]]}, r"^model.cpt = None: is required with parents"),
    (
        {"kind": "bayesnet", "hmm": {"transition": [[0.9, 0.1], [0.2, 0.8]], "n": 3}},
        r"^model.hmm.emission = None: is required$",
    ),
    (
        {
            "kind": "bayesnet",
            "hmm": {"transition": [[0.9, 0.1], [0.2, 0.8]], "emission": [[1.0, 0.0]], "n": 3},
        },
        r"^model.hmm.emission = .*one row per hidden state",
    ),
    (
        {
            "kind": "bayesnet",
            "hmm": {"transition": [[0.9, 0.2], [0.2, 0.8]], "emission": [[1, 0], [0, 1]], "n": 3},
        },
        r"^model.hmm.transition = .*each row must sum to 1",
    ),
    (
        {
            "kind": "bayesnet",
            "hmm": {"transition": [[0.9, 0.1], [0.2, 0.8]], "emission": [[1, 0], [0, 1]], "n": 0},
        },
        r"^model.hmm.n = 0: must be an integer in 1..50000 \(2n nodes, at most 100000\)$",
    ),
    (
        {"kind": "bayesnet", "hmm": {"transition": [[1.0]], "emission": [[1, 0]], "n": 2, "lag": 1}},
        r"^model.hmm.lag = 1: not a key of model.hmm",
    ),
    (
        {"kind": "bayesnet", "bif": "/nonexistent/x.bif"},
        r"^model.bif = '/nonexistent/x.bif': file not found$",
    ),
    ({"kind": "bayesnet", "bif": "x.bif", "parents": [[]]}, r"^model = .*give exactly one of"),
    ({"kind": "bayesnet"}, r"^model = \[\]: give exactly one of"),
]


@pytest.mark.parametrize("doc,message", BAD)
def test_bad_inputs_are_one_line_naming_the_field(doc, message):
    with pytest.raises(ConfigError, match=message) as err:
        build(doc)
    assert "\n" not in str(err.value)


def test_bad_queries():
    m = build(DIAMOND)
    with pytest.raises(ConfigError, match=r"^known position = 5: must be a record in 0..4$"):
        m.additive_law({5: 0}, [0, 1])
    with pytest.raises(ConfigError, match=r"^known value = 2: must be a state in 0..1 of record 0$"):
        m.marginals({0: 2})
    with pytest.raises(ConfigError, match=r"^increments = .*non-negative integers"):
        m.additive_law({}, [0, -1])
    with pytest.raises(ConfigError, match=r"^increments = \(3, 2\): needs 5 rows"):
        m.additive_law({}, np.zeros((3, 2)))
    with pytest.raises(ConfigError, match=r"^allowed = \(2, 3\): must have shape"):
        m.additive_law_masked(np.ones((2, 3)), [0, 1])
