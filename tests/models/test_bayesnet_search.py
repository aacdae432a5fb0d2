"""Exact BDPL on Bayesian networks: one adversary, exhaustive and separated-region searches, against
brute force over every data tuple (Laplace sup by bdpsim.kernels.noise.laplace_mixture.mixture_sup)."""

import csv
import functools
import itertools
import math

import numpy as np
import pytest

from bdpsim.core.errors import ConfigError, NotAvailable
from bdpsim.kernels.noise.laplace_mixture import grid_sup, mixture_sup
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MarkovChainModel, PedigreeModel
from bdpsim.models.bayesnet.build import build
from bdpsim.models.bayesnet.model import BayesNetModel
from bdpsim.models.bayesnet.search import (
    adversary_bdpl,
    bdpl_search,
    closed_regions,
    exhaustive_search,
    laplace_score,
    region_search,
)

from ..conftest import write_toml
from ..models.test_bayesnet import DIAMOND, random_network, record_joint


def _increments(model, rng, top=2):
    g = np.zeros((model.n, model.states), dtype=int)
    for r in range(model.n):
        g[r, : model.record_states[r]] = rng.integers(0, top + 1, model.record_states[r])
    return g


def brute_adversary(model, g, b, i, known, joint=None):
    """``max_{x != x'} sup_y |ln p(y | x_K, x) / p(y | x_K, x')|`` from every data tuple."""
    xs, pr = record_joint(model) if joint is None else joint
    S = sum(g[r][xs[:, r]] for r in range(model.n))
    ok = np.ones(len(xs), bool)
    for r, v in known.items():
        ok &= xs[:, r] == v
    laws = [
        np.bincount(S[ok & (xs[:, i] == x)], pr[ok & (xs[:, i] == x)], minlength=S.max() + 1)
        for x in range(model.record_states[i])
    ]
    atoms = np.arange(S.max() + 1)
    vals = [
        mixture_sup(atoms, laws[x], atoms, laws[y], b).value
        for x, y in itertools.combinations(range(len(laws)), 2)
        if laws[x].sum() > 0 and laws[y].sum() > 0
    ]
    return max(vals) if vals else -np.inf


def brute_all(model, g, b, min_known=0):
    """Brute force over every adversary ``(i, K, x_K)`` with ``|K| >= min_known``."""
    return max(v for k, v in brute_by_size(model, g, b).items() if k >= min_known)


def brute_by_size(model, g, b):
    """Largest brute-force leakage per known-set size ``|K|``."""
    joint = record_joint(model)
    best = {}
    for i in range(model.n):
        others = [r for r in range(model.n) if r != i]
        for k in range(model.n):
            for K in itertools.combinations(others, k):
                for xK in itertools.product(*[range(model.record_states[r]) for r in K]):
                    v = brute_adversary(model, g, b, i, dict(zip(K, xK)), joint)
                    best[k] = max(best.get(k, -np.inf), v)
    return best


def test_diamond_example_all_adversaries():
    m = build(DIAMOND)
    g = np.array([0, 1])
    ref = brute_all(m, [g] * 5, 1.0)
    for method in ("exhaustive", "regions", "auto"):
        res = bdpl_search(m, g, laplace_score(1.0), method=method)
        assert res.bdpl == pytest.approx(ref, abs=1e-9)
    res = region_search(m, g, laplace_score(1.0))
    assert res.reduced and res.n_candidates < res.n_known_sets == 5 * 16
    w = res.worst
    assert adversary_bdpl(m, dict(zip(w.known, w.x_known)), w.i, g, laplace_score(1.0)).bdpl == pytest.approx(
        res.bdpl
    )


@pytest.mark.parametrize("seed", range(8))
def test_random_networks_every_adversary_equals_brute_force(seed):
    """n <= 6 records, 2-3 states, hidden nodes, loops, zeros: all adversaries, three ways."""
    rng = np.random.default_rng(40 + seed)
    m = random_network(
        rng,
        nodes=int(rng.integers(5, 9)),
        records=int(rng.integers(3, 6)),
        zeros=0.15 if seed % 3 == 0 else 0.0,
    )
    g = _increments(m, rng)
    b = float(rng.choice([0.5, 1.0, 3.0]))
    by_size = brute_by_size(m, [g[r, : m.record_states[r]] for r in range(m.n)], b)
    ref = max(by_size.values())
    ex = exhaustive_search(m, g, laplace_score(b))
    rg = region_search(m, g, laplace_score(b))
    assert ex.bdpl == pytest.approx(ref, abs=1e-9) and rg.bdpl == pytest.approx(ref, abs=1e-9)
    mk = 1 + seed % 2
    ref_k = max(v for k, v in by_size.items() if k >= mk)
    assert region_search(m, g, laplace_score(b), min_known=mk).bdpl == pytest.approx(ref_k, abs=1e-9)
    assert exhaustive_search(m, g, laplace_score(b), min_known=mk).bdpl == pytest.approx(ref_k, abs=1e-9)
    for res in (ex, rg):  # the reported worst adversary is realisable and has that leakage
        w = res.worst
        known = dict(zip(w.known, w.x_known))
        assert brute_adversary(m, [g[r] for r in range(m.n)], b, w.i, known) == pytest.approx(
            res.bdpl, abs=1e-9
        )


def test_seven_binary_records_with_hidden_nodes_every_adversary():
    rng = np.random.default_rng(61)
    m = random_network(rng, nodes=9, records=7, max_states=2, max_parents=3)
    g = _increments(m, rng, top=1)
    ref = brute_all(m, [g[r, :2] for r in range(m.n)], 0.7)
    assert region_search(m, g, laplace_score(0.7)).bdpl == pytest.approx(ref, abs=1e-9)
    assert exhaustive_search(m, g, laplace_score(0.7)).bdpl == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_ten_records_sampled_adversaries_and_both_searches(seed):
    """n = 10 records (+ 2 hidden): single adversaries against brute force, the two searches agree."""
    rng = np.random.default_rng(70 + seed)
    m = random_network(rng, nodes=12, records=10, max_states=2 if seed else 3)
    g = _increments(m, rng, top=1)
    gl = [g[r, : m.record_states[r]] for r in range(m.n)]
    xs, pr = record_joint(m)
    score = laplace_score(1.5)
    for _ in range(12):
        i = int(rng.integers(m.n))
        K = [
            int(r)
            for r in rng.choice([r for r in range(m.n) if r != i], int(rng.integers(0, m.n)), replace=False)
        ]
        row = xs[rng.choice(len(xs), p=pr / pr.sum())]
        known = {r: int(row[r]) for r in K}
        ref = brute_adversary(m, gl, 1.5, i, known, (xs, pr))
        assert adversary_bdpl(m, known, i, g, score).bdpl == pytest.approx(ref, abs=1e-9)
    if m.states == 2:
        ex = exhaustive_search(m, g, score, targets=[0, 4, 9])
        rg = region_search(m, g, score, targets=[0, 4, 9])
        assert ex.bdpl == pytest.approx(rg.bdpl, abs=1e-9)


@pytest.mark.parametrize(
    "P,n,initial,values,b",
    [
        ([[0.882, 0.118], [0.305, 0.695]], 9, None, [0, 1], 1.0),
        ([[0.7, 0.3], [0.4, 0.6]], 8, [1.0, 0.0], [0, 1], 0.6),
        ([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], 7, None, [0, 1, 2], 2.0),
        ([[0.5, 0.5, 0.0], [0.1, 0.6, 0.3], [0.3, 0.0, 0.7]], 7, [0.2, 0.5, 0.3], [1, 0, 1], 0.8),
    ],
)
def test_chain_regions_are_the_windows(P, n, initial, values, b):
    from bdpsim.models.markov.window import window_search

    mc = MarkovChainModel(np.array(P), n, None if initial is None else np.array(initial))
    ref = window_search(mc, np.array(values, float), b, window_limit=None).bdpl
    bn = BayesNetModel.from_markov(mc)
    res = region_search(bn, np.array(values), laplace_score(b))
    assert res.bdpl == pytest.approx(ref, abs=1e-9)
    assert res.n_candidates == sum((i + 1) * (n - i) for i in range(n))  # the windows around each target
    ref1 = window_search(mc, np.array(values, float), b, window_limit=None, min_known=1).bdpl
    assert region_search(bn, np.array(values), laplace_score(b), min_known=1).bdpl == pytest.approx(
        ref1, abs=1e-9
    )


@pytest.mark.parametrize(
    "ped,counted",
    [
        (PedigreeModel.nuclear(5, 0.3), (0,)),
        (PedigreeModel.nuclear(6, 0.2), (1, 2)),
        (PedigreeModel.three_generation(7, 0.2), (0,)),
        (PedigreeModel(((), (), (0, 1), (), (2, 3), (2, 3)), 0.4), (2,)),
    ],
)
def test_pedigree_equals_the_genomic_engine(ped, counted):
    from bdpsim.models.pedigree.exact import exhaustive_pedigree_count

    mech = LaplaceCount(1.0, counted)
    ref = float(exhaustive_pedigree_count(ped, mech).value.max())
    bn = BayesNetModel.from_pedigree(ped)
    g = np.isin(np.arange(3), counted).astype(int)
    assert region_search(bn, g, laplace_score(mech.noise.scale)).bdpl == pytest.approx(ref, abs=1e-9)


def test_hmm_reduction_does_not_apply_and_says_so():
    h = BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.8, 0.2], [0.3, 0.7]], 5)
    g = np.array([0, 1])
    regions = region_search(h, g, laplace_score(1.0))
    assert not regions.reduced and regions.n_candidates == regions.n_known_sets == 5 * 16
    auto = bdpl_search(h, g, laplace_score(1.0))
    assert auto.method == "exhaustive" and not auto.reduced
    assert auto.bdpl == pytest.approx(regions.bdpl, abs=1e-12)
    assert auto.bdpl == pytest.approx(brute_all(h, [g] * 5, 1.0), abs=1e-9)


def test_closed_regions_of_a_chain_and_with_hidden_nodes():
    adj = {t: {u for u in (t - 1, t + 1) if 0 <= u < 5} for t in range(5)}
    regs = sorted(tuple(sorted(R)) for R, _ in closed_regions(adj, 2, lambda v: True))
    assert regs == sorted(tuple(range(a, b + 1)) for a in range(3) for b in range(2, 5))
    # node 1 hidden: every region through it contains it, never bounded by it
    regs = [(R, X) for R, X in closed_regions(adj, 2, lambda v: v != 1)]
    assert all(1 not in X for _, X in regs) and all(1 in R for R, _ in regs if 0 in R or 1 in R)
    assert len(regs) == 3 * 2  # left end in {0 (with 1), 1-hidden forces, 2}: {2}, {0,1,2}, ... x right ends
    with pytest.raises(ConfigError, match=r"^regions = '> 3 for node 2': too many"):
        list(closed_regions(adj, 2, lambda v: True, limit=3))


def test_one_adversary_gives_every_target_pair_and_any_noise_law():
    m = build(DIAMOND)
    g = np.array([0, 1])
    res = adversary_bdpl(m, {0: 1}, 3, g, laplace_score(2.0))
    assert res.bdpl == pytest.approx(brute_adversary(m, [g] * 5, 2.0, 3, {0: 1}), abs=1e-12)
    # a noise law is a grid_score: here Laplace written as a partial of grid_sup
    same = adversary_bdpl(m, {0: 1}, 3, g, functools.partial(grid_sup, b=2.0))
    assert same == res
    with pytest.raises(ConfigError, match="^known = .*must not contain the target 3"):
        adversary_bdpl(m, {3: 1}, 3, g, laplace_score(1.0))
    det = BayesNetModel([[], [0]], [[0.5, 0.5], [[1.0, 0.0], [0.0, 1.0]]])
    with pytest.raises(NotAvailable, match="fewer than two values"):
        adversary_bdpl(det, {0: 1}, 1, g, laplace_score(1.0))


def test_refusals_are_one_line_with_the_estimate():
    m = random_network(np.random.default_rng(1), nodes=10, records=10, max_states=3)
    with pytest.raises(ConfigError, match=r"^model = '10 records': the exhaustive search needs .* cells"):
        exhaustive_search(m, np.ones(3, int), laplace_score(1.0), max_cells=1e4)
    with pytest.raises(ConfigError, match=r"^adversary = .*induced width \d+': infeasible: about"):
        adversary_bdpl(m, {}, 0, np.ones(3, int), laplace_score(1.0), max_operations=10)
    with pytest.raises(ConfigError, match=r"^method = 'best': must be"):
        bdpl_search(m, np.ones(3, int), laplace_score(1.0), method="best")
    with pytest.raises(ConfigError, match=r"^noise_scale = 0: must be a finite number > 0"):
        laplace_score(0)
    with pytest.raises(ConfigError, match=r"^targets = \[10\]: must be a non-empty list"):
        region_search(m, np.ones(3, int), laplace_score(1.0), targets=[10])


def test_bdpsim_run_of_the_issue_example_is_the_brute_force_value(tmp_path):
    """``bdpsim run configs/bayesnet_example.toml`` (every adversary, exact): the brute force over
    every data tuple and every adversary (Laplace sup by mixture_sup)."""
    from bdpsim.cli import main
    from bdpsim.pipeline.results import read_summary

    from ..conftest import ROOT

    assert (
        main(["run", str(ROOT / "configs" / "bayesnet_example.toml"), "--out", str(tmp_path), "--quiet"]) == 0
    )
    rows = read_summary(tmp_path)
    model = build(DIAMOND)
    assert [r["epsilon"] for r in rows] == [0.5, 1.0, 2.0]
    for row in rows:
        ref = brute_all(model, [np.array([0, 1])] * 5, 1.0 / row["epsilon"])
        assert row["bdpl_exact"] == pytest.approx(ref, abs=1e-9)


ROOT0 = "[[1.0, 0.0], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.2, 0.8]]]"


def _brute_bdpl(joint: np.ndarray, eps: float) -> float:
    """Max over targets i, known sets K (any size), known values of positive probability and
    ordered target pairs of positive probability of ``sup_y ln p(y | x_K, x) / p(y | x_K, x')`` for
    ``count(state 1) + Lap(1/eps)``. Between two atoms the ratio of Laplace mixtures is monotone
    (a Moebius function of e^(2 eps y)), so the sup is at an atom or a tail (y -> +-inf)."""
    n = joint.ndim
    states = list(itertools.product(*(range(s) for s in joint.shape)))
    best = -math.inf
    for i in range(n):
        others = [k for k in range(n) if k != i]
        for r in range(len(others) + 1):
            for K in itertools.combinations(others, r):
                for xk in itertools.product(*(range(joint.shape[k]) for k in K)):
                    laws = {}
                    for x in range(joint.shape[i]):
                        law = np.zeros(n + 1)
                        for s in states:
                            if s[i] == x and all(s[k] == v for k, v in zip(K, xk)):
                                law[sum(1 for v in s if v == 1)] += joint[s]
                        if law.sum() > 0:
                            laws[x] = law / law.sum()
                    c = np.arange(n + 1)
                    for p, q in itertools.permutations(laws.values(), 2):
                        vals = [
                            np.log(
                                (p * np.exp(-eps * abs(y - c))).sum() / (q * np.exp(-eps * abs(y - c))).sum()
                            )
                            for y in c
                        ]
                        vals += [
                            np.log((p * np.exp(eps * c)).sum() / (q * np.exp(eps * c)).sum()),
                            np.log((p * np.exp(-eps * c)).sum() / (q * np.exp(-eps * c)).sum()),
                        ]
                        best = max(best, max(vals))
    return best


@pytest.mark.parametrize("cpt", [ROOT0, "[[0.0, 1.0], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.2, 0.8]]]"])
def test_root_state_of_probability_zero_over_every_adversary(bdpsim_cli, tmp_path, cpt):
    cfg = write_toml(
        tmp_path / "c.toml",
        '[run]\nseed = 1\nadversaries = "all"\nestimator = "exact"\n'
        'known_sizes = "all"\n[model]\nkind = "bayesnet"\nstates = 2\nparents = [[], [0], [1]]\n'
        f'cpt = {cpt}\n[mechanism]\nkind = "count"\nepsilon = 1.0\n',
    )
    p = bdpsim_cli("run", cfg, "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    row = next(csv.DictReader(open(tmp_path / "o" / "summary.csv")))
    import ast

    t = [np.array(x, dtype=float) for x in ast.literal_eval(cpt)]
    joint = np.einsum("a,ab,bc->abc", t[0], t[1], t[2])
    assert float(row["bdpl_exact"]) == pytest.approx(_brute_bdpl(joint, 1.0), abs=1e-9)
    with open(tmp_path / "o" / "summary.csv") as fh:
        assert "no adversary" not in fh.read()


def test_brute_force_knows_the_independent_case():
    """Independent records: only the target's own value moves the count: BDPL = eps exactly."""
    joint = np.einsum("a,b,c->abc", *[np.array([0.3, 0.7])] * 3)
    assert _brute_bdpl(joint, 1.0) == pytest.approx(1.0, abs=1e-12)
