"""The accountant of a local release of every record of a Markov chain (bdpsim.account with
LocalRelease) against brute force over every record tuple, every output sequence and every known
set, the exact temporal leakage, and its refusals."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import bdpsim
from bdpsim.accounting import LocalRelease, account
from bdpsim.accounting.local import LocalAccount
from bdpsim.core.errors import ConfigError, NotAvailable
from bdpsim.mechanisms.randomized_response import RandomizedResponse
from bdpsim.temporal.exact import temporal_exact
from tests.helpers import np_tpr

EPS = (0.0, 0.3, 1.0, 2.0)
P2 = np.array([[0.8, 0.2], [0.3, 0.7]])
P3 = np.array([[0.7, 0.2, 0.1], [0.15, 0.7, 0.15], [0.1, 0.3, 0.6]])
#: a 3-state step with 2 outputs (not k-RR): rows = states, columns = outputs
M3 = np.array([[0.75, 0.25], [0.4, 0.6], [0.2, 0.8]])


def krr_matrix(k: int, eps: float) -> np.ndarray:
    e = math.exp(eps)
    return (np.ones((k, k)) + (e - 1) * np.eye(k)) / (e + k - 1)


def brute_worst(model, M, sizes=None):
    """The supremum over every adversary (target, known set of an allowed size with values of
    positive probability, ordered pair) of delta(eps) at EPS, D_2 and the largest loss, each from
    the laws of every output sequence given the conditioning event (every record tuple summed)."""
    P, w, n, k = model.transition, model.initial, model.n, model.states
    xs = np.array(list(itertools.product(range(k), repeat=n)))
    prior = w[xs[:, 0]] * np.prod(P[xs[:, :-1], xs[:, 1:]], axis=1)
    ys = np.array(list(itertools.product(range(M.shape[1]), repeat=n)))
    lik = np.prod(M[xs[None, :, :], ys[:, None, :]], axis=2)  # (outputs, tuples)
    sizes = range(n) if sizes is None else sizes
    best = np.zeros(len(EPS) + 2)
    for i in range(n):
        for size in sizes:
            for K in itertools.combinations([j for j in range(n) if j != i], size):
                for xk in itertools.product(range(k), repeat=size):
                    base = prior * np.all(xs[:, list(K)] == np.array(xk, dtype=int), axis=1)
                    laws = {}
                    for a in range(k):
                        m = base * (xs[:, i] == a)
                        if m.sum() > 0:
                            laws[a] = lik @ m / m.sum()
                    for a, b in itertools.permutations(laws, 2):
                        p, q = laws[a], laws[b]
                        vals = [np.sum(np.maximum(p - math.exp(e) * q, 0.0)) for e in EPS]
                        vals += [math.log(np.sum(p * p / q)), float(np.max(np.log(p / q)))]
                        best = np.maximum(best, vals)
    return best


def numbers(acc):
    acc.prepare(EPS, (), (2.0, math.inf))
    return [acc.delta(e) for e in EPS] + [acc.renyi(2.0), acc.bdpl]


CASES = {
    "2 states, k-RR, T = 5": (P2, 5, LocalRelease("krr", 1.0), krr_matrix(2, 1.0)),
    "2 states, randomized response, T = 4": (P2, 4, LocalRelease(RandomizedResponse(0.2)), None),
    "3 states, k-RR, T = 3": (P3, 3, LocalRelease("krr", 0.8), krr_matrix(3, 0.8)),
    "3 states, a 3 x 2 matrix, T = 4": (P3, 4, LocalRelease(M3), M3),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_number_is_brute_force_over_every_output_sequence(case):
    P, T, rel, M = CASES[case]
    if M is None:
        M = np.array([[0.8, 0.2], [0.2, 0.8]])
    model = bdpsim.MarkovChainModel(P, n=T)
    acc = account(model, [rel])
    assert isinstance(acc, LocalAccount)
    truth = brute_worst(model, M)
    for v, t in zip(numbers(acc), truth):
        assert v.lower - 1e-12 <= t <= v.upper + 1e-12
        assert v.width <= 1e-6
        assert v.adversary is not None
    # on so short a chain the bracket closes: every number is exact
    assert [v.kind for v in numbers(acc)[:4]] == ["exact"] * 4
    assert all(abs(v.value - t) <= 1e-12 for v, t in zip(numbers(acc)[:4], truth[:4]))


def test_pinned_values_and_the_worst_adversary_in_the_models_words():
    acc = account(bdpsim.MarkovChainModel(P2, n=5), [LocalRelease("krr", 1.0)])
    d = acc.delta(1.0)
    assert d.kind == "exact" and d.value == pytest.approx(0.2081729328393, abs=1e-12)
    assert acc.bdpl.value == pytest.approx(2.4079997355977, abs=1e-12)
    # the middle record, against an adversary who knows nothing (records from 0)
    assert d.adversary == bdpsim.Adversary(2, (), (), 1, 0)


def test_known_set_sizes_restrict_the_adversaries():
    model = bdpsim.MarkovChainModel(P3, n=4)
    for sizes in ([0], [2]):
        acc = account(model, [LocalRelease(M3)], sizes=sizes)
        truth = brute_worst(model, M3, sizes)
        for v, t in zip(numbers(acc), truth):
            assert v.lower - 1e-12 <= t <= v.upper + 1e-12
    # the worst adversary who knows two records knows the nearest one on each side that matters
    adv = account(model, [LocalRelease(M3)], sizes=[2]).bdpl.adversary
    assert len(adv.known) in (1, 2) and adv.i not in adv.known


def test_one_adversary_and_two_local_releases_as_one_randomiser():
    model = bdpsim.MarkovChainModel(P2, n=4)
    adv = bdpsim.Adversary(1, (3,), (0,), 0, 1)
    one = account(model, [LocalRelease("krr", 1.0)], adversary=adv)
    # brute force for this adversary: sizes [1] contains it; recompute its own pair
    xs = np.array(list(itertools.product(range(2), repeat=4)))
    prior = model.initial[xs[:, 0]] * np.prod(P2[xs[:, :-1], xs[:, 1:]], axis=1)
    prior = prior * (xs[:, 3] == 0)
    for M, acc in ((krr_matrix(2, 1.0), one),):
        ys = np.array(list(itertools.product(range(2), repeat=4)))
        lik = np.prod(M[xs[None], ys[:, None]], axis=2)
        p = lik @ (prior * (xs[:, 1] == 0)) / (prior * (xs[:, 1] == 0)).sum()
        q = lik @ (prior * (xs[:, 1] == 1)) / (prior * (xs[:, 1] == 1)).sum()
        want = max(np.sum(np.maximum(p - math.e * q, 0)), np.sum(np.maximum(q - math.e * p, 0)))
        assert acc.delta(1.0).value == pytest.approx(want, abs=1e-12)
        assert acc.delta(1.0).adversary == adv
    # two local releases = one randomiser with the product likelihoods
    two = account(model, [LocalRelease("krr", 1.0), LocalRelease("krr", 0.5)])
    M = krr_matrix(2, 1.0)[:, :, None] * krr_matrix(2, 0.5)[:, None, :]
    same = account(model, [LocalRelease(M.reshape(2, 4))])
    assert two.delta(0.5).value == pytest.approx(same.delta(0.5).value, abs=1e-12)
    assert two.delta(0.5).value > account(model, [LocalRelease("krr", 1.0)]).delta(0.5).value


def test_delta_zero_is_the_exact_temporal_leakage_and_delta_vanishes_above_the_bdpl():
    for P, T in ((P2, 30), (P3, 10)):
        model = bdpsim.MarkovChainModel(P, n=T)
        acc = account(model, [LocalRelease("krr", 0.9)], sizes=[0])
        tpl = float(np.nanmax(temporal_exact(P, 0.9, T, "krr", initial=model.initial).tpl))
        b = acc.bdpl
        assert b.lower - 1e-9 <= tpl <= b.upper + 1e-9
        assert acc.epsilon(1e-12).upper <= b.upper + 1e-6
        # above the BDPL nothing is left: the lower end is 0 and the upper within the tolerance
        above = acc.delta(b.upper + 1e-9)
        assert above.lower == 0.0 and above.upper <= 1e-6
        assert acc.delta(0.5 * b.lower).lower > 0


def test_refusals_name_the_release_and_what_to_use():
    model = bdpsim.MarkovChainModel(P2, n=5)
    with pytest.raises(NotAvailable, match=r"release 'count .*beside 'local release .*separately"):
        account(model, [LocalRelease("krr", 1.0), bdpsim.LaplaceCount(epsilon=1.0)])
    with pytest.raises(NotAvailable, match=r"local release .*Markov chain"):
        account(bdpsim.GaussianModel(np.zeros(2), np.eye(2)), [LocalRelease("krr", 1.0)], targets=(0, 1))
    with pytest.raises(NotAvailable, match=r"2000 records: .*operations.*above the limit .*sizes=\[0\]"):
        account(bdpsim.MarkovChainModel(P2, n=2000), [LocalRelease("krr", 1.0)])
    with pytest.raises(ConfigError, match=r"^release.epsilon = None: k-RR needs"):
        LocalRelease("krr")
    with pytest.raises(ConfigError, match=r"^release.likelihoods = \[1.0, 1.1\]: each row must sum to 1"):
        LocalRelease([[0.5, 0.5], [0.6, 0.5]])
    with pytest.raises(
        ConfigError, match=r"^release.likelihoods = \[3, 2\]: needs one row per record state \(2\)"
    ):
        account(model, [LocalRelease(M3)])
    with pytest.raises(ConfigError, match=r"^release.randomiser = 'rr'"):
        LocalRelease("rr", 1.0)
    acc = account(model, [LocalRelease("krr", 1.0)])
    with pytest.raises(ConfigError, match=r"^epsilon = -1"):
        acc.delta(-1)
    with pytest.raises(ConfigError, match=r"^fpr = 0"):
        acc.tpr_at(0)


@pytest.mark.parametrize("case", ["2 states, k-RR, T = 5", "3 states, a 3 x 2 matrix, T = 4"])
def test_tpr_at_brackets_the_worst_most_powerful_test_by_brute_force(case):
    """``tpr_at`` of a local release (it was NotAvailable) is a bracket holding the worst
    adversary's most powerful test, by brute force over every adversary, order and output
    sequence; ``beta`` is its complement; the lower end is attained by the adversary named."""
    from tests.helpers import local_release_laws

    P, T, rel, M = CASES[case]
    model = bdpsim.MarkovChainModel(P, n=T)
    acc = account(model, [rel])
    k = model.states
    worst = dict.fromkeys((1e-3, 0.05, 0.3), 0.0)
    for t in range(T):
        for size in range(T):
            for K in itertools.combinations([j for j in range(T) if j != t], size):
                for xk in itertools.product(range(k), repeat=size):
                    for a, b in itertools.permutations(range(k), 2):
                        try:
                            p, q = local_release_laws(P, model.initial, M.T, T, t, dict(zip(K, xk)), a, b)
                        except (ZeroDivisionError, FloatingPointError):
                            continue
                        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(q))):
                            continue
                        for f in worst:
                            worst[f] = max(worst[f], np_tpr(p, q, f))
    for f, truth in worst.items():
        v = acc.tpr_at(f)
        assert v.lower - 1e-12 <= truth <= v.upper + 1e-12, (f, v, truth)
        assert v.lower > f and v.upper < 1 and v.adversary is not None
        # the worst adversary's own TPR (it was the profile's bracket, [0.178, 0.322] at k-RR T = 5)
        assert v.upper - v.lower <= 1e-9
        assert acc.beta(f).upper == pytest.approx(1 - v.lower, abs=1e-15)
        # the adversary named attains it: its own most powerful test, by brute force
        w = v.adversary
        p, q = local_release_laws(
            P, model.initial, M.T, T, w.i, dict(zip(w.known, w.x_known)), w.x, w.x_prime
        )
        assert v.lower - 1e-12 <= np_tpr(p, q, f) <= v.upper + 1e-12
    # eps(delta) names the adversary whose delta at the lower end exceeds delta
    e = acc.epsilon(0.05)
    w = e.adversary
    p, q = local_release_laws(P, model.initial, M.T, T, w.i, dict(zip(w.known, w.x_known)), w.x, w.x_prime)
    assert np.sum(np.maximum(p - math.exp(e.lower) * q, 0.0)) > 0.05


def test_the_bdpl_of_a_long_three_state_chain_is_the_temporal_engines_exact_value():
    """Where the kernel's BDPL bracket stays wider than the tolerance (three states, 24 steps: it
    was [3.49739, 3.49810]), the accountant answers the temporal engine's exact value, which lies
    in the bracket and equals ``temporal_exact``'s max_t TPL_t."""
    model = bdpsim.MarkovChainModel(P3, n=24)
    acc = account(model, [LocalRelease("krr", 1.0)], sizes=[0])
    b = acc.bdpl
    tpl = float(np.nanmax(temporal_exact(P3, 1.0, 24, "krr", initial=model.initial).tpl))
    assert b.kind == "exact" and b.value == pytest.approx(tpl, abs=1e-12)
    assert b.value == pytest.approx(3.497387878994806, abs=1e-12) and b.adversary.i == 11


def test_the_report_computes_every_tpr_in_one_refinement(monkeypatch):
    """``account_report`` with several FPRs of a local release: one refinement of the grid for all
    of them (each ``tpr_at`` ran its own), the same numbers as asked one by one."""
    import bdpsim.accounting.local as local
    from bdpsim.accounting.report import account_report

    calls = []
    real = local.release_worst_profile

    def counted(*args, **kwargs):
        calls.append(kwargs.get("fprs"))
        return real(*args, **kwargs)

    model = bdpsim.MarkovChainModel(P2, n=5)
    monkeypatch.setattr(local, "release_worst_profile", counted)
    rep = account_report(account(model, [LocalRelease("krr", 1.0)]), epsilons=[1.0], fprs=[0.01, 0.05, 0.3])
    assert [c for c in calls if c] == [[0.01, 0.05, 0.3]]
    one = account(model, [LocalRelease("krr", 1.0)])
    rows = {r["quantity"]: r for r in rep["rows"]}
    for f in (0.01, 0.05, 0.3):
        assert rows[f"tpr_at({f:g})"]["value"] == pytest.approx(one.tpr_at(f).value, abs=1e-12)
