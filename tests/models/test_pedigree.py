"""Mendelian pedigrees: model, exact conditional sampling, exact count law and exact BDPL over all
adversaries, each checked against brute force over every genotype tuple (thesis §5)."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from bdpsim.adversary import Adversary
from bdpsim.bounds import genomic_lower_bound
from bdpsim.core.errors import ConfigError, NotAvailable
from bdpsim.kernels.noise.laplace_mixture import mixture_sup
from bdpsim.mechanisms import LaplaceCount, LaplaceSum
from bdpsim.models.pedigree.exact import (
    adversary_bdpl,
    compositions,
    exhaustive_pedigree_count,
    worst_adversary,
)
from bdpsim.models.pedigree.model import TRANSMISSION, PedigreeModel, genotype_states, hardy_weinberg

# thesis Table 3, typed in from the thesis: rows X_j, columns X_k, cells (BB, Bb, bb)
TABLE3 = {
    (0, 0): (1, 0, 0),
    (0, 1): (0.5, 0.5, 0),
    (0, 2): (0, 1, 0),
    (1, 0): (0.5, 0.5, 0),
    (1, 1): (0.25, 0.5, 0.25),
    (1, 2): (0, 0.5, 0.5),
    (2, 0): (0, 1, 0),
    (2, 1): (0, 0.5, 0.5),
    (2, 2): (0, 0, 1),
}

SMALL = [
    PedigreeModel.nuclear(4, 0.3),
    PedigreeModel.nuclear(5, 0.1),
    PedigreeModel.three_generation(6, 0.4),
    PedigreeModel(((), (), (), (0, 1), (0, 2), (3, 4)), founder_law=(0.5, 0.3, 0.2)),
    PedigreeModel(((), (), (0, 1), (0, 1), ()), 0.5),
]


def joint(model):
    """Every genotype tuple and its probability, straight from Def. 5.1 (founders x Table 3)."""
    t = np.array(list(itertools.product(range(3), repeat=model.n)))
    p = np.ones(len(t))
    for j, par in enumerate(model.parents):
        if par:
            p *= np.array([TABLE3[(a, b)][c] for a, b, c in zip(t[:, par[0]], t[:, par[1]], t[:, j])])
        else:
            p *= model.founder_probabilities[t[:, j]]
    return t, p


def brute_law(tuples, prob, known, counted, n):
    ok = np.ones(len(tuples), bool)
    for k, v in known.items():
        ok &= tuples[:, k] == v
    c = np.isin(tuples, counted).sum(1)
    law = np.bincount(c[ok], weights=prob[ok], minlength=n + 1)
    return law / law.sum() if law.sum() > 0 else None


def brute_all(model, mech):
    """BDPL of every adversary (i, pattern) with x < x', by brute force: {(i, pattern, x, x'): v}.

    For each target and each pattern of the others in {unknown, BB, Bb, bb} the count law sums the
    probabilities of the matching tuples; the sup of the Laplace-mixture log-ratio is evaluated
    directly at every atom and in both tails (paper §5: it is attained there)."""
    t, p = joint(model)
    n, atoms, out = model.n, np.arange(model.n + 1.0), {}
    onehot = np.eye(n + 1)[np.isin(t, mech.query_function.counted_states).sum(1)] * p[:, None]  # (3^n, n+1)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        pats = np.array(list(itertools.product(range(-1, 3), repeat=n - 1)))
        match = np.all((pats[:, None, :] == -1) | (pats[:, None, :] == t[None, :, others]), axis=2)
        laws = [(match & (t[:, i] == x)[None]) @ onehot for x in range(3)]  # (4^(n-1), n+1)
        kern = np.exp(-np.abs(atoms[:, None] - atoms[None, :]) / mech.noise.scale)
        up, down = np.exp(atoms / mech.noise.scale), np.exp(-atoms / mech.noise.scale)
        for x, xp in ((0, 1), (0, 2), (1, 2)):
            a, b = laws[x], laws[xp]
            ok = (a.sum(1) > 0) & (b.sum(1) > 0)
            a, b = a[ok] / a[ok].sum(1, keepdims=True), b[ok] / b[ok].sum(1, keepdims=True)
            with np.errstate(divide="ignore"):
                r = np.log(np.column_stack([a @ kern, a @ up, a @ down]))
                r -= np.log(np.column_stack([b @ kern, b @ up, b @ down]))
            for pat, v in zip(pats[ok], np.abs(r).max(axis=1)):
                full = [-2 if j == i else int(pat[others.index(j)]) for j in range(n)]
                out[(i, tuple(full), x, xp)] = v
    return out


# ---------------------------------------------------------------------------------- the model


def test_transmission_is_thesis_table_3_and_hardy_weinberg():
    for (a, b), row in TABLE3.items():
        assert TRANSMISSION[a, b] == pytest.approx(row, abs=0)
    assert hardy_weinberg(0.3) == pytest.approx([0.49, 0.42, 0.09])
    assert PedigreeModel.nuclear(4, 0.3).founder_probabilities == pytest.approx([0.49, 0.42, 0.09])
    assert genotype_states(["BB"]) == (0,) and genotype_states(["bb", "Bb", 0]) == (2, 1, 0)
    assert genotype_states(["bB"]) == (1,)


def test_constructors_and_structure():
    m = PedigreeModel.nuclear(6, 0.2)
    assert (m.kind, m.n, m.states) == ("pedigree", 6, 3)
    assert m.parents == ((), ()) + ((0, 1),) * 4 and m.core == (0, 1)
    t = PedigreeModel.three_generation(10)
    assert t.n == 10 and t.parents[2] == (0, 1) and t.parents[-1] == (2, 6)
    assert sorted(len(f) for f in t.core_families()) == [5, 6]
    assert PedigreeModel.three_generation(7, grandchildren=1).parents[-1] == (2, 5)
    x = PedigreeModel([[], [], [0, 1]], allele_b=0.5)
    assert x.parents == ((), (), (0, 1)) and x.leaf_groups == (((0, 1), (2,)),)


@pytest.mark.parametrize(
    "kwargs,field,words",
    [
        (dict(parents=[[], [], [1, 3], []]), "model.parents", "precede"),
        (dict(parents=[[], [1, 1]]), "model.parents", "own parent"),
        (dict(parents=[[], [], [0, 1, 1]]), "model.parents", "at most two"),
        (dict(parents=[[], [0]]), "model.parents", "0 or 2 parents"),
        (dict(parents=[[], [], [2, 0]]), "model.parents", "own parent"),
        (dict(parents=[[], [], [0, 0]]), "model.parents", "different"),
        (dict(parents=[]), "model.parents", "non-empty"),
        (dict(parents=[[]], allele_b=1.0), "model.allele_b", "(0, 1)"),
        (dict(parents=[[]], allele_b=0.0), "model.allele_b", "(0, 1)"),
        (dict(parents=[[]], founder_law=(0.5, 0.5, 0.0)), "model.founder_law", "> 0"),
        (dict(parents=[[]], founder_law=(0.5, 0.6, 0.1)), "model.founder_law", "summing to 1"),
    ],
)
def test_validation_one_line_naming_the_field(kwargs, field, words):
    with pytest.raises(ConfigError) as e:
        PedigreeModel(**kwargs)
    assert e.value.field == field and words in str(e.value) and "\n" not in str(e.value)


def test_huge_families_are_refused_instantly():
    """Refused by validation, before any enumeration (how quickly: scripts/benchmarks/benchmark_limits.py)."""
    for size in (10**9, 1001, 2, True, 5.0):
        with pytest.raises(ConfigError, match="model.size"):
            PedigreeModel.nuclear(size) if size != 2 else PedigreeModel.three_generation(size)
    with pytest.raises(ConfigError, match="people with children"):
        PedigreeModel(((),) * 14 + tuple((j, j + 1) for j in range(0, 14, 1) if j + 1 < 14))
    with pytest.raises(ConfigError, match="at most 1000 people"):
        PedigreeModel([[]] * 10**6)


# ---------------------------------------------------------------------------------- exact laws


@pytest.mark.parametrize("model", SMALL)
def test_count_law_and_evidence_equal_brute_force(model, rng):
    t, p = joint(model)
    for trial in range(25):
        K = rng.choice(model.n, size=rng.integers(0, model.n + 1), replace=False)
        known = {int(k): int(rng.integers(3)) for k in K}
        counted = [[0], [1], [0, 2], [2]][trial % 4]
        ref = brute_law(t, p, known, counted, model.n)
        if ref is None:
            with pytest.raises(ConfigError, match="probability zero"):
                model.count_law(known, counted)
            assert model.log_evidence(known) == -math.inf
            continue
        assert model.count_law(known, counted) == pytest.approx(ref, abs=1e-14)
        ok = np.all([t[:, k] == v for k, v in known.items()], axis=0) if known else slice(None)
        assert math.exp(model.log_evidence(known)) == pytest.approx(p[ok].sum(), rel=1e-12)


@pytest.mark.parametrize(
    "model,known",
    [
        (SMALL[0], {}),
        (SMALL[0], {3: "bb"}),
        (SMALL[2], {5: 2, 1: 0}),
        (SMALL[3], {5: 1}),
        (SMALL[4], {2: 1, 4: 0}),
    ],
)
def test_sample_conditional_matches_exact_conditional_law(model, known, rng):
    """Chi-square over every genotype tuple, and each tuple within 5 SE (N = 200 000)."""
    N = 200_000
    x = model.sample_conditional(known, N, rng)
    kn = {k: genotype_states([v], "known")[0] for k, v in known.items()}
    assert x.shape == (N, model.n) and np.all([np.all(x[:, k] == v) for k, v in kn.items()])
    t, p = joint(model)
    ok = np.all([t[:, k] == v for k, v in kn.items()], axis=0) if kn else np.ones(len(t), bool)
    p = np.where(ok, p, 0.0) / p[ok].sum()
    code = (x.astype(np.int64) * 3 ** np.arange(model.n)[::-1]).sum(axis=1)
    obs = np.bincount(code, minlength=3**model.n)
    assert obs[p == 0].sum() == 0
    se = np.sqrt(N * p * (1 - p))
    assert np.all(np.abs(obs - N * p) <= 5 * se + 1e-9)
    keep = p * N >= 5
    exp = N * p[keep]
    chi2 = ((obs[keep] - exp) ** 2 / exp).sum() + 0.0
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-4


def test_sample_is_hardy_weinberg_and_mendelian(rng):
    m = PedigreeModel.nuclear(3, 0.3)
    x = m.sample(100_000, rng)
    f = np.bincount(x[:, 0], minlength=3) / 1e5
    assert np.all(np.abs(f - [0.49, 0.42, 0.09]) < 5 * np.sqrt(f * (1 - f) / 1e5))
    bad = (x[:, 0] == 0) & (x[:, 1] == 0) & (x[:, 2] != 0)  # BB x BB -> BB always
    assert not bad.any()


# ---------------------------------------------------------------------------------- exact BDPL


@pytest.mark.parametrize("model", SMALL[:4])
def test_adversary_bdpl_equals_brute_force(model, rng):
    mech = LaplaceCount(float(rng.uniform(0.4, 2.0)), genotype_states(["BB"]))
    t, p = joint(model)
    atoms, done = np.arange(model.n + 1.0), 0
    while done < 20:
        i = int(rng.integers(model.n))
        others = [j for j in range(model.n) if j != i]
        K = tuple(sorted(int(k) for k in rng.choice(others, size=rng.integers(0, model.n), replace=False)))
        adv = Adversary(
            i, K, tuple(int(v) for v in rng.integers(0, 3, len(K))), *map(int, rng.choice(3, 2, False))
        )
        l1, l2 = (brute_law(t, p, adv.condition(v), [0], model.n) for v in (adv.x, adv.x_prime))
        if l1 is None or l2 is None:
            with pytest.raises(NotAvailable):
                adversary_bdpl(model, mech, adv)
            continue
        ref = mixture_sup(atoms, l1, atoms, l2, mech.noise.scale).value
        assert adversary_bdpl(model, mech, adv) == pytest.approx(ref, abs=1e-10)
        done += 1


@pytest.mark.parametrize(
    "model,counted",
    [
        (SMALL[0], ["BB"]),
        (SMALL[1], ["Bb"]),
        (SMALL[2], ["BB"]),
        (SMALL[3], ["BB", "bb"]),
        (SMALL[4], ["bb"]),
    ],
)
def test_exhaustive_classes_equal_brute_force_over_every_adversary(model, counted):
    """Every adversary (i, K, x_K, {x, x'}) of the brute force lies in exactly one class of the
    exchangeability reduction, with the same BDPL; the class representatives cover them all."""
    mech = LaplaceCount(0.8, genotype_states(counted))
    brute = brute_all(model, mech)
    res = exhaustive_pedigree_count(model, mech)
    assert res.multiplicity.sum() == len(brute)
    for j in range(len(res)):
        key = (int(res.i[j]), tuple(int(v) for v in res.pattern[j]), int(res.x[j]), int(res.x_prime[j]))
        assert res.value[j] == pytest.approx(brute[key], abs=1e-10)
        assert res.known_size[j] == sum(v >= 0 for v in key[1])
    assert res.value.max() == pytest.approx(max(brute.values()), abs=1e-10)
    # per-target search (as a driver splitting by target would call it) gives the same maximum
    per = [exhaustive_pedigree_count(model, mech, targets=[i]).value.max() for i in range(model.n)]
    assert max(per) == pytest.approx(res.value.max(), abs=1e-12)
    thesis = exhaustive_pedigree_count(model, mech, min_known=1)
    assert thesis.known_size.min() == 1
    assert thesis.value.max() == pytest.approx(
        max(v for k, v in brute.items() if sum(p >= 0 for p in k[1]) >= 1), abs=1e-10
    )


def test_independent_founders_have_bdpl_epsilon():
    model = PedigreeModel(((),) * 6, 0.3)  # six unrelated people: independent records
    for eps in (0.5, 2.0):
        res = exhaustive_pedigree_count(model, LaplaceCount(eps, (0,)))
        one_counted = (res.x == 0) != (res.x_prime == 0)  # BB vs not: the count moves by one
        assert np.allclose(res.value[one_counted], eps, atol=1e-12)
        assert np.allclose(res.value[~one_counted], 0.0, atol=1e-12)


def test_nobody_unknown_gives_dp_leakage():
    model = PedigreeModel.nuclear(5, 0.3)
    res = exhaustive_pedigree_count(model, LaplaceCount(1.3, (0,)), sizes=[model.n - 1])
    one_counted = (res.x == 0) != (res.x_prime == 0)
    assert np.allclose(res.value[one_counted], 1.3, atol=1e-12)
    assert np.allclose(res.value[~one_counted], 0.0, atol=1e-12) and one_counted.any()


@pytest.mark.parametrize("m", [3, 6, 12])
@pytest.mark.parametrize("eps,q", [(0.5, 0.1), (1.0, 0.3), (2.0, 0.5)])
def test_corollary_5_2_lower_bound_and_general_upper_bound(m, eps, q):
    model, mech = PedigreeModel.nuclear(m, q), LaplaceCount(eps, genotype_states(["BB"]))
    cor = Adversary(1, (0,), (0,), 2, 0)  # knows parent 0 = BB, target parent 1: bb vs BB
    assert adversary_bdpl(model, mech, cor) == pytest.approx(genomic_lower_bound(m, eps), abs=1e-9)
    best = exhaustive_pedigree_count(model, mech).value.max()
    assert genomic_lower_bound(m, eps) - 1e-9 <= best <= m * eps + 1e-9


def test_genomic_lower_bound_values_and_checks():
    assert genomic_lower_bound(5, 0.5) == 2.0
    for bad in ((0, 1.0), (3, 0.0), (2.5, 1.0)):
        with pytest.raises(ConfigError):
            genomic_lower_bound(*bad)


def test_worst_adversary_small_family_targets_a_child_knowing_nothing():
    """The issue's planning measurement: m = 3..5, eps = 1, q = 0.3 -> child target, K = {},
    strictly above (m - 1) eps; the thesis' sampler (|K| >= 1) only reaches (m - 1) eps."""
    mech = LaplaceCount(1.0, (0,))
    for m in (3, 4, 5):
        model = PedigreeModel.nuclear(m, 0.3)
        res = exhaustive_pedigree_count(model, mech)
        j = worst_adversary(res)
        assert model.parents[res.i[j]] and res.known_size[j] == 0
        assert res.value[j] > (m - 1) + 0.01
        assert exhaustive_pedigree_count(model, mech, min_known=1).value.max() == pytest.approx(m - 1)


def test_worst_class_obeys_the_separation_argument():
    """Separation argument on pedigrees (as the Markov window reduction): some worst adversary
    has every unknown person connected to the target through unknown people in the moral graph."""
    model = PedigreeModel.three_generation(8, 0.3)
    res = exhaustive_pedigree_count(model, LaplaceCount(1.0, (0,)))
    adj = {j: set() for j in range(model.n)}
    for j, par in enumerate(model.parents):
        for a in par:
            adj[j].add(a)
            adj[a].add(j)
        if par:
            adj[par[0]].add(par[1])
            adj[par[1]].add(par[0])

    def connected(j):
        i, pat = int(res.i[j]), res.pattern[j]
        seen, todo = {i}, [i]
        while todo:
            for v in adj[todo.pop()]:
                if v not in seen and pat[v] == -1:
                    seen.add(v)
                    todo.append(v)
        return all(pat[v] != -1 or v in seen for v in range(model.n))

    top = res.value.max()
    assert any(connected(j) for j in np.flatnonzero(res.value >= top - 1e-9))
    sep = [j for j in range(len(res)) if connected(j)]
    assert res.value[sep].max() == pytest.approx(top, abs=1e-12)


def test_compositions_and_limits():
    assert len(compositions(10)) == math.comb(13, 3) and np.all(compositions(4).sum(axis=1) == 4)
    with pytest.raises(NotAvailable):
        exhaustive_pedigree_count(PedigreeModel.nuclear(4), LaplaceSum(1.0))
    with pytest.raises(ConfigError, match="cells"):
        exhaustive_pedigree_count(PedigreeModel.nuclear(200), LaplaceCount(1.0, (0,)))


# ---------------------------------------------------------------------------------- integration


def test_estimators_sample_pedigrees_through_the_model(rng):
    """The sampling layer of the kde/mixture estimators draws data tuples from
    ``sample_conditional``: the resulting counts follow the exact count law (5 SE, N = 100 000)."""
    from bdpsim.estimators.sampling import sample_query_counts

    model, mech = PedigreeModel.three_generation(7, 0.3), LaplaceCount(1.0, genotype_states(["BB"]))
    known = {2: 0, 6: 1}
    N = 100_000
    atoms, counts = sample_query_counts(model, mech, known, N, rng)
    obs = np.zeros(model.n + 1)
    obs[atoms.astype(int)] = counts
    p = model.count_law(known, ["BB"])
    assert np.all(np.abs(obs - N * p) <= 5 * np.sqrt(N * p * (1 - p)) + 1e-9)


def test_studies_rows_and_figures():
    from bdpsim.figures import subplots
    from bdpsim.figures.pedigree import plot_family_size, plot_generations
    from bdpsim.studies.genomic_study import family_size_study, generation_study

    rows = family_size_study(sizes=[3, 6], epsilons=[1.0], allele_bs=[0.3])
    small, big = rows
    assert (small["worst_role"], small["worst_known_size"], small["worst_x"]) == ("child", 0, "BB")
    assert small["bdpl"] > small["lower_bound"] == small["bdpl_thesis_sampler"] == 2.0
    assert big["bdpl"] == pytest.approx(big["lower_bound"]) and big["worst_role"] == "founder"
    assert big["general_bound"] == 6.0 and big["worst_known"] == "1=BB"
    gen = generation_study(sizes=[6], epsilons=[1.0], allele_bs=[0.3])
    (g,) = gen
    assert g["core_size"] == 4 and g["worst_role"] == "child+parent"
    assert g["bdpl_nuclear_core_size"] < g["bdpl"] < g["bdpl_nuclear_same_size"]
    fig, axs = subplots(1, 3)
    assert list(plot_family_size(rows, list(axs[:2]))) == list(axs[:2])
    got = plot_generations(gen, axs[2])
    assert (got if not isinstance(got, list) else got[0]) is axs[2]
    assert [len(a.lines) for a in axs] == [5, 4, 6]


def test_pedigree_parent_after_child_message(capsys):
    from bdpsim.core.errors import ConfigError
    from bdpsim.models.pedigree.model import PedigreeModel

    with pytest.raises(ConfigError) as e:
        PedigreeModel([[1, 2], [], []])
    assert "0..-1" not in str(e.value) and "person 0 comes first" in str(e.value)
    with pytest.raises(ConfigError) as e:
        PedigreeModel([[], [], [0, 3], [0, 2]])
    assert "indices in 0..1" in str(e.value) and "cycle" in str(e.value)
