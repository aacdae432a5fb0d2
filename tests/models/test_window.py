"""Window-reduced exhaustive search == enumeration of every known set; brute force; truncation."""

import csv
import itertools
import math

import numpy as np
import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.estimators import adversary_bdpl, mixture_sup
from bdpsim.kernels.chains.lattice import lattice, query_values
from bdpsim.kernels.noise.laplace_mixture import log_mixture_pdf
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MarkovChainModel
from bdpsim.models.markov.exact import exhaustive_markov_count
from bdpsim.models.markov.window import markov_bdpl, truncation_bound, window_search
from bdpsim.studies.knowledge import knowledge_matrix, leakage_by_knowledge, write_knowledge_csv

from ..helpers import brute_count_law, markov_joint

ACTIVITY = [[0.882, 0.118], [0.305, 0.695]]

# (states, n, stationary start, counted states, seed)
CASES = [
    (2, 8, True, (1,), 1),
    (2, 7, False, (0,), 2),
    (3, 6, True, (2,), 3),
    (3, 6, False, (0, 2), 4),
    (3, 5, True, (1,), 5),
    (4, 5, True, (1, 3), 6),
    (4, 5, False, (0,), 7),
    (4, 5, True, (0, 1, 2), 8),
]


def random_chain(states, n, stationary, seed):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(states) * 0.7, size=states)
    return MarkovChainModel(P, n, None if stationary else rng.dirichlet(np.ones(states))), rng


@pytest.mark.parametrize("states,n,stationary,counted,seed", CASES)
def test_window_search_equals_enumeration_of_every_known_set(states, n, stationary, counted, seed):
    model, rng = random_chain(states, n, stationary, seed)
    eps = float(rng.uniform(0.3, 2.0))
    mech = LaplaceCount(eps, counted)
    f = query_values(states, counted)
    for min_known in (0, 1):
        old = exhaustive_markov_count(model, mech, range(min_known, n))
        new = window_search(model, f, 1 / eps, min_known=min_known, window_limit=None)
        assert new.bdpl == pytest.approx(old.value.max(), abs=1e-12)
        # the reported worst adversary really leaks that much, in the reported direction
        adv = new.worst.adversary()
        assert len(adv.known) >= min_known
        assert adversary_bdpl(model, mech, adv).value == pytest.approx(new.bdpl, abs=1e-12)
        laws = [brute_count_law(model, adv.condition(v), list(counted)) for v in (adv.x, adv.x_prime)]
        atoms = np.arange(n + 1.0)
        with np.errstate(divide="ignore"):
            lp = [log_mixture_pdf(np.array([new.worst.argmax]), atoms, np.log(lw), 1 / eps) for lw in laws]
        assert float(lp[0][0] - lp[1][0]) == pytest.approx(new.bdpl, abs=1e-9)


def test_targets_restriction_matches_enumeration():
    model, _ = random_chain(3, 6, False, 11)
    mech = LaplaceCount(1.3, (1,))
    for targets in ([0], [2, 5], [3]):
        old = exhaustive_markov_count(model, mech, range(0, 6), targets=targets)
        new = window_search(model, query_values(3, [1]), 1 / 1.3, targets=targets, window_limit=None)
        assert new.bdpl == pytest.approx(old.value.max(), abs=1e-12)
        assert new.worst.i in targets


def test_chain_with_zero_transitions_and_reducible_start():
    """Zeros in P and a start law that makes some states unreachable early on."""
    P = [[0.0, 1.0, 0.0], [0.3, 0.0, 0.7], [0.5, 0.25, 0.25]]
    model = MarkovChainModel(P, 6, [1.0, 0.0, 0.0])
    for counted in ((1,), (0, 2)):
        mech = LaplaceCount(0.8, counted)
        old = exhaustive_markov_count(model, mech, range(6))
        new = window_search(model, query_values(3, counted), 1 / 0.8)
        assert new.bdpl == pytest.approx(old.value.max(), abs=1e-12)


def brute_sum_bdpl(model, f, b):
    """sup over every (i, K, x_K, x, x') and every output, from all s^n data tuples:
    ``(over all K, over |K| >= 1)``."""
    tuples, prob = markov_joint(model)
    n, s = model.n, model.states
    total = f[tuples].sum(axis=1)
    best = [0.0, 0.0]
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for k in range(n):
            for K in itertools.combinations(others, k):
                for xk in itertools.product(range(s), repeat=k):
                    ok = (prob > 0) & np.all(tuples[:, list(K)] == np.array(xk, dtype=int), axis=1)
                    laws = [
                        (total[m], prob[m]) if prob[m].sum() > 0 else None
                        for m in (ok & (tuples[:, i] == x) for x in range(s))
                    ]
                    for x, xp in itertools.combinations(range(s), 2):
                        if laws[x] is not None and laws[xp] is not None:
                            v = mixture_sup(*laws[x], *laws[xp], b).value
                            best = [max(best[0], v), max(best[1], v) if k else best[1]]
    return best


@pytest.mark.parametrize(
    "values,stationary,n",
    [
        ([0.0, 2.0, 5.0], True, 4),
        ([0.5, -1.0, 0.25], False, 4),
        ([3.0, 3.0, 4.0], True, 4),
        ([-1.0, 2.0], False, 6),
    ],
)
def test_sum_of_state_values_equals_brute_force(values, stationary, n):
    model, _ = random_chain(len(values), n, stationary, 21)
    f = query_values(len(values), state_values=values)
    ref = brute_sum_bdpl(model, f, 0.7)
    for min_known in (0, 1):
        new = window_search(model, f, 0.7, min_known=min_known).bdpl
        assert new == pytest.approx(ref[min_known], abs=1e-12)


def test_lattice_of_state_values():
    g, delta, fmin = lattice(np.array([0.5, -1.0, 0.25]))
    assert fmin == -1.0 and delta == pytest.approx(0.25) and g.tolist() == [6, 0, 5]
    g, delta, _ = lattice(np.array([0.1, 0.3, 0.0]))
    assert g.tolist() == [1, 3, 0] and delta == pytest.approx(0.1)
    with pytest.raises(ValueError, match="^values = "):  # the kernel names its parameter
        lattice(np.array([0.0, 1.0, math.pi]))


def test_pinned_activity_value():
    """b = 1, count of the active state: 3.4749 at n = 20, 40 and 60, worst window 7 | 7."""
    for n in (20, 40, 60):
        res = window_search(MarkovChainModel(ACTIVITY, n), query_values(2, [1]), 1.0, window_limit=None)
        assert round(res.bdpl, 4) == 3.4749
        assert (res.worst.left, res.worst.right) == (7, 7)


def test_truncation_bound_holds_and_auto_matches_full():
    """v <= BDPL <= v + tolerance for a forced short limit; auto == full at n = 80."""
    slow = MarkovChainModel([[0.95, 0.05], [0.1, 0.9]], 40)
    f = query_values(2, [1])
    full = window_search(slow, f, 0.6, window_limit=None)
    for limit in (2, 5, 10):
        cut = window_search(slow, f, 0.6, window_limit=limit)
        assert cut.tolerance == pytest.approx(truncation_bound(slow.transition, limit + 1))
        assert cut.bdpl <= full.bdpl + 1e-12 <= cut.bdpl + cut.tolerance + 2e-12
    model = MarkovChainModel(ACTIVITY, 80)
    auto = window_search(model, f, 1.0)
    assert auto.window_limit == 58 and auto.tolerance < 1e-13
    assert auto.bdpl == pytest.approx(window_search(model, f, 1.0, window_limit=None).bdpl, abs=1e-12)


@pytest.mark.slow
def test_truncated_equals_untruncated_at_n288():
    model = MarkovChainModel(ACTIVITY, 288)
    f = query_values(2, [1])
    for b in (0.5, 1.0, 4.0):
        auto = window_search(model, f, b)
        assert auto.window_limit is not None
        assert auto.bdpl == pytest.approx(window_search(model, f, b, window_limit=None).bdpl, abs=1e-12)


def test_independent_records_leak_epsilon():
    row = [0.2, 0.5, 0.3]
    model = MarkovChainModel([row] * 3, 7, row)
    assert markov_bdpl(model, 0.5, counted_states=[1]) == pytest.approx(2.0, abs=1e-12)
    assert markov_bdpl(model, 2.0, state_values=[1.0, 4.0, -2.0]) == pytest.approx(3.0, abs=1e-12)
    assert window_search(model, query_values(3, [1]), 0.5).window_limit == 0


def test_monotone_in_noise_scale():
    model, _ = random_chain(3, 12, False, 31)
    f = query_values(3, [0, 2])
    values = [markov_bdpl(model, b, counted_states=[0, 2]) for b in np.geomspace(0.1, 20, 12)]
    assert np.all(np.diff(values) <= 1e-12) and values[-1] < values[0] / 50
    assert window_search(model, f, 1.0).bdpl == markov_bdpl(model, 1.0, counted_states=[0, 2])


def test_every_window_geometry_is_counted():
    n = 9
    res = window_search(MarkovChainModel(ACTIVITY, n), query_values(2, [1]), 1.0, window_limit=None)
    assert res.n_windows == sum((i + 1) * (n - i) for i in range(n))  # l in -1..i-1, r in i+1..n


@pytest.mark.parametrize(
    "kwargs,field",
    [
        (dict(noise_scale=0.0), "noise_scale"),
        (dict(noise_scale=float("nan")), "noise_scale"),
        (dict(min_known=9), "min_known"),
        (dict(min_known=-1), "min_known"),
        (dict(targets=[]), "targets"),
        (dict(targets=[9]), "targets"),
        (dict(window_limit=-2), "window_limit"),
        (dict(window_limit="big"), "window_limit"),
        (dict(values=np.array([0.0, 1.0, 2.0])), "values"),
        (dict(tolerance=0.0), "tolerance"),
    ],
)
def test_bad_inputs_name_the_field(kwargs, field):
    args = dict(model=MarkovChainModel(ACTIVITY, 9), values=query_values(2, [1]), noise_scale=1.0)
    args.update(kwargs)
    with pytest.raises(ConfigError, match=f"^{field} = "):
        window_search(args.pop("model"), args.pop("values"), args.pop("noise_scale"), **args)


def test_bad_query_values():
    for kw, field in [
        (dict(counted_states=[2]), "counted_states"),
        (dict(counted_states=[]), "counted_states"),
        (dict(counted_states=[1, 1]), "counted_states"),
        (dict(state_values=[1.0]), "state_values"),
        (dict(state_values=[0.0, np.inf]), "state_values"),
        (dict(counted_states=[1], state_values=[0.0, 1.0]), "state_values"),
    ]:
        with pytest.raises(ValueError, match=f"^{field} = "):  # a kernel: its parameter's name
            query_values(2, **kw)
    with pytest.raises(ConfigError, match="^model = "):
        window_search("chain", query_values(2, [1]), 1.0)


def test_leakage_by_knowledge_table(tmp_path):
    model = MarkovChainModel(ACTIVITY, 10)
    f = query_values(2, [1])
    rows = leakage_by_knowledge(model, f, 1.0, max_unknown=9)
    best = max(rows, key=lambda r: r["bdpl"])
    full = window_search(model, f, 1.0, window_limit=None)
    assert best["bdpl"] == pytest.approx(full.bdpl, abs=1e-15)
    # a stationary two-state chain is reversible: mirrored windows tie, so compare unordered
    assert sorted((best["unknown_left"], best["unknown_right"])) == sorted(
        (full.worst.left, full.worst.right)
    )
    cell = next(
        r
        for r in rows
        if (r["unknown_left"], r["unknown_right"], r["left_end"], r["right_end"]) == (0, 0, "known", "known")
    )
    assert cell["bdpl"] == pytest.approx(1.0, abs=1e-12)  # nothing unknown: the DP leakage
    # a cell equals the enumeration restricted to that knowledge: target 0, K = {3..9}
    chain_start = next(
        r
        for r in rows
        if (r["unknown_left"], r["unknown_right"], r["left_end"], r["right_end"])
        == (0, 2, "chain end", "known")
    )
    res = exhaustive_markov_count(model, LaplaceCount(1.0), [7], targets=[0])
    keep = [j for j in range(len(res)) if res.known(j) == tuple(range(3, 10))]
    assert chain_start["bdpl"] == pytest.approx(res.value[keep].max(), abs=1e-12)
    path = write_knowledge_csv(rows, tmp_path / "knowledge.csv")
    with path.open() as fh:
        back = list(csv.DictReader(fh))
    assert len(back) == len(rows) and float(back[0]["bdpl"]) == pytest.approx(rows[0]["bdpl"], rel=1e-11)
    M = knowledge_matrix(back)
    kk = max(r["bdpl"] for r in rows if r["left_end"] == r["right_end"] == "known")
    assert M.shape == (8, 8) and np.nanmax(M) == pytest.approx(kk, rel=1e-11)  # L + R <= n - 3


def test_knowledge_heatmap(tmp_path):
    import matplotlib.pyplot as plt

    from bdpsim.figures.knowledge import plot_knowledge_heatmap

    rows = leakage_by_knowledge(MarkovChainModel(ACTIVITY, 30), query_values(2, [1]), 1.0, max_unknown=8)
    fig, ax = plt.subplots()
    assert plot_knowledge_heatmap(rows, ax) is ax
    assert ax.images and ax.images[0].get_array().shape == (9, 9)
    fig.savefig(tmp_path / "k.png")
    plt.close(fig)


def _support_cases():
    """Periodic chains, a transient start, zeros: supports that settle late or cycle."""
    rng = np.random.default_rng(11)
    cases = [
        ([[0, 1, 0, 0], [0, 0, 1, 0], [0.5, 0, 0, 0.5], [1, 0, 0, 0]], [1, 0, 0, 0]),
        ([[0, 1, 0], [0, 0, 1], [1, 0, 0]], [0.5, 0.5, 0]),
        ([[0.0, 1.0, 0.0], [0.3, 0.0, 0.7], [0.5, 0.25, 0.25]], [1, 0, 0]),
    ]
    for _ in range(3):
        s = int(rng.integers(2, 6))
        P = rng.random((s, s)) * (rng.random((s, s)) < 0.6)
        P[np.arange(s), rng.integers(0, s, s)] += 0.3
        w = rng.random(s) * (rng.random(s) < 0.5)
        w[0] += 0.1
        cases.append((P / P.sum(axis=1, keepdims=True), w / w.sum()))
    return cases, rng


def test_support_cycle_and_lazy_completion_sums_match_the_tables():
    """``Support`` (transient + repeating rows) == the step-by-step propagation; ``feasible_cells``
    from it == from the full array; ``CompletionSums`` == ``window_completion_sums`` bit for bit (integer,
    random and 0.1-step query values: the exact-integer and the term-by-term path)."""
    from bdpsim.kernels.chains import window_scan as wk
    from bdpsim.models.markov.window import CompletionSums, window_completion_sums

    cases, rng = _support_cases()
    for P, w in cases:
        P = np.asarray(P, dtype=float)
        s = P.shape[0]
        for n in (2, 3, 9, 157):
            model = MarkovChainModel(P, n, w)
            ref = np.zeros((n, s), dtype=bool)
            ref[0] = np.asarray(w) > 0
            for t in range(1, n):
                ref[t] = (ref[t - 1].astype(np.int64) @ (P > 0)) > 0
            sp = wk.support(model)
            assert sp.rows.shape[0] <= n and np.array_equal(sp.full(), ref)
            assert np.array_equal(wk.reachable(model), ref)
            for lmax in sorted({0, 1, min(n - 1, 6), n - 1}):
                for mk in (0, 1, n // 2):
                    T = np.ones(n, dtype=bool)
                    assert np.array_equal(
                        wk.feasible_cells(n, lmax, sp, T, mk), wk.feasible_cells(n, lmax, ref, T, mk)
                    )
            T = rng.random(n) < 0.5
            T[0] = True
            assert np.array_equal(
                wk.feasible_cells(n, min(n - 1, 4), sp, T, 0), wk.feasible_cells(n, min(n - 1, 4), ref, T, 0)
            )
            for f in (np.arange(s, dtype=float), rng.random(s), np.round(rng.random(s) * 10, 1)):
                left, right = window_completion_sums(model, ref, f)
                lazy = CompletionSums(model, sp, f)
                got_l = [[lazy.left(t, a) for a in range(s)] for t in range(n)]
                got_r = [[lazy.right(t, a) for a in range(s)] for t in range(n)]
                assert np.array_equal(np.array(got_l), left) and np.array_equal(np.array(got_r), right)


def test_window_completion_is_the_likeliest_neighbour_walk_from_either_support():
    """``window_completion`` (one table lookup per record) == the walk it documents, one argmax per
    step (leftward over the values reachable at ``t - 1``, first on ties), from the full support
    array and from the compact ``Support`` alike, on chains with transient supports; and every
    value it gives is reachable (a positive-probability completion)."""
    from bdpsim.kernels.chains import window_scan as wk
    from bdpsim.models.markov.window import window_completion

    def walk(model, supp, a, l, c, r):
        P, left, right = model.transition, [], []
        if a is not None:
            left = [a]
            for t in range(l, 0, -1):
                left.append(int(np.argmax(np.where(supp[t - 1], P[:, left[-1]], -1.0))))
            left.reverse()
        if c is not None:
            right = [c]
            for _ in range(r + 1, model.n):
                right.append(int(np.argmax(P[right[-1]])))
        return tuple(left + right)

    cases, rng = _support_cases()
    for P, w in cases:
        P = np.asarray(P, dtype=float)
        for n in (2, 9, 40):
            model = MarkovChainModel(P, n, w)
            full, sp = wk.reachable(model), wk.support(model)
            for i in range(n):
                for l in sorted({-1, i - 1, i // 2 - 1}):
                    for r in sorted({i + 1, min(n, i + 3), n}):
                        a = None if l < 0 else int(rng.choice(np.flatnonzero(full[l])))
                        c = None if r >= n else int(rng.integers(P.shape[0]))
                        want = walk(model, full, a, l, c, r)
                        assert window_completion(model, full, a, l, c, r) == want
                        assert window_completion(model, sp, a, l, c, r) == want
                        if a is not None:
                            assert all(full[t, v] for t, v in enumerate(want[: l + 1]))


def test_exact_search_does_not_grow_with_n():
    """A chain of ten million records: the support settles at once, so the search takes seconds."""
    import time

    model = MarkovChainModel([[2 / 3, 1 / 3], [1 / 3, 2 / 3]], 10_000_000)
    t0 = time.perf_counter()
    res = window_search(model, query_values(2, [1]), 2.0)
    assert time.perf_counter() - t0 < 30
    small = window_search(MarkovChainModel(model.transition, 10_000), query_values(2, [1]), 2.0)
    assert res.bdpl == small.bdpl and res.worst.left == small.worst.left
