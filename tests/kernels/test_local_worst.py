"""The supremum over adversaries of a chain's local-release profile
(bdpsim/kernels/chains/local_worst.py): equal to an exhaustive search over every known set and its
values, blocks of targets on stationary chains, refinement to a tolerance, the cost estimate."""

import itertools

import numpy as np
import pytest

from bdpsim.kernels.argcheck import ParameterError
from bdpsim.kernels.chains.local_profile import (
    LocalAdversary,
    enumerate_local_release,
    known_sizes,
    local_release,
    release_profile,
)
from bdpsim.kernels.chains.local_worst import release_worst_profile, worst_local_release_profile
from bdpsim.kernels.chains.pair_product import hockey_stick_both, tpr_both

from .test_local_profile import P2, P3, PI2, TOL, krr


def _every_adversary(rel):
    """``(|K|, exact pair)`` of every adversary: target, known set with values of positive
    probability, ordered pair (by enumeration of every output sequence)."""
    T, k = rel.steps, rel.states
    for t in range(1, T + 1):
        others = [s for s in range(1, T + 1) if s != t]
        for n in range(T):
            for K in itertools.combinations(others, n):
                for values in itertools.product(range(k), repeat=n):
                    for a, b in itertools.permutations(range(k), 2):
                        try:
                            f = enumerate_local_release(
                                rel, target=t, pair=(a, b), known=dict(zip(K, values))
                            )
                        except ParameterError:
                            continue
                        yield n, f


@pytest.mark.parametrize("k, T, seed", [(2, 5, 1), (3, 4, 2)])
def test_the_worst_adversary_is_found_among_every_known_set(k, T, seed):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=k)
    pi = rng.dirichlet(np.ones(k))
    rel = local_release(P, pi, krr(k, 1.1), steps=T)
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    exact = {}
    for n, f in _every_adversary(rel):
        row = exact.setdefault(n, [np.zeros(eps.size), 0.0])
        row[0] = np.maximum(row[0], hockey_stick_both([f], eps)[0])
        row[1] = max(row[1], f.max_loss())
    for sizes in ([0], [1], [2], "all"):
        ns = known_sizes(sizes, T)
        best = np.max([exact[n][0] for n in ns], axis=0)
        top = max(exact[n][1] for n in ns)
        coarse = release_worst_profile(rel, epsilons=eps, sizes=sizes, tolerance=None, grid=2, bins=4)
        assert np.all(coarse.delta.low <= best + TOL) and np.all(best <= coarse.delta.high + TOL)
        fine = release_worst_profile(rel, epsilons=eps, sizes=sizes, tolerance=1e-12, deltas=[0.05])
        assert fine.converged and fine.width <= 1e-12
        np.testing.assert_allclose(fine.delta.low, best, atol=1e-13)
        assert float(fine.bdpl.low) == pytest.approx(top, abs=1e-12) == float(fine.bdpl.high)
        e = fine.epsilon_at[0.05]
        assert float(e.high) - float(e.low) <= 2e-9
        # the adversary named attains the value
        adv = fine.attained_by[1]
        f = enumerate_local_release(rel, target=adv.target, pair=(adv.a, adv.b), known=adv.known)
        assert hockey_stick_both([f], [eps[1]])[0][0] == pytest.approx(best[1], abs=1e-13)


@pytest.mark.parametrize("k, T, seed", [(2, 5, 1), (3, 4, 2)])
def test_the_worst_tpr_is_each_adversarys_own_most_powerful_test(k, T, seed):
    """``fprs``: the worst TPR at each FPR is the supremum over adversaries (every known set, both
    orders) of each one's own most powerful test, by exhaustive enumeration of every output
    sequence: inside the bracket, which is 1e-9 wide; the adversary named attains the lower end
    with its own exact pair; ``eps(delta)`` names an adversary whose exact ``delta`` at the lower
    end exceeds ``delta``."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=k)
    pi = rng.dirichlet(np.ones(k))
    rel = local_release(P, pi, krr(k, 1.1), steps=T)
    fprs = np.array([1e-3, 0.05, 0.3])
    best = np.zeros(fprs.size)
    for _, f in _every_adversary(rel):
        best = np.maximum(best, tpr_both([f], fprs)[0][0])
    w = release_worst_profile(rel, epsilons=[0.0], fprs=fprs, deltas=[0.05], tolerance=1e-9)
    for i, a in enumerate(fprs):
        b = w.tpr[float(a)]
        assert float(b.low) - 1e-12 <= best[i] <= float(b.high) + 1e-12
        assert float(b.high) - float(b.low) <= 1e-9
        adv = w.tpr_by[float(a)]
        f = enumerate_local_release(rel, target=adv.target, pair=(adv.a, adv.b), known=adv.known)
        own_low, own_high = tpr_both([f], [a])
        assert float(b.low) <= own_high[0, 0] + 1e-12 and own_low[0, 0] <= float(b.high) + 1e-12
    e, who = w.epsilon_at[0.05], w.epsilon_by[0.05]
    f = enumerate_local_release(rel, target=who.target, pair=(who.a, who.b), known=who.known)
    assert hockey_stick_both([f], [float(e.low)])[0][0] > 0.05


def test_blocks_of_targets_on_a_stationary_chain():
    """On a stationary chain the supremum over targets bounds blocks of targets at once: a bracket
    of the supremum over every target composed one by one, about as narrow, from fewer compositions
    (its upper end may even lie below theirs: a block's upper pair dominates the true pairs of its
    targets, not their upper pairs)."""
    T = 40
    rel = local_release(P2, "stationary", krr(2, 1.0), steps=T)
    assert rel.stationary
    eps = np.linspace(0.0, 3.0, 7)
    w = release_worst_profile(rel, epsilons=eps, sizes=[0], tolerance=None, grid=32)
    singles = [release_profile(rel, target=t, pair=(0, 1), grid=32).delta(eps) for t in range(1, T + 1)]
    low = np.max([s.low for s in singles], axis=0)
    high = np.max([s.high for s in singles], axis=0)
    assert np.all(w.delta.low <= high + TOL) and np.all(low <= w.delta.high + TOL)
    assert w.width <= 1.5 * float(np.max(high - low))  # its lower end: the targets composed
    assert w.composed < T  # targets and blocks
    # not stationary: every target composed
    moved = local_release(P2, [0.9, 0.1], krr(2, 1.0), steps=T)
    assert not moved.stationary
    assert release_worst_profile(moved, epsilons=eps, sizes=[0], tolerance=None, grid=8).composed == T


def test_the_worst_tpr_over_blocks_of_targets_holds_every_targets_own():
    """On a stationary chain (the adversary who knows nothing: blocks of targets), the worst TPR's
    bracket holds every target's own most powerful test by exhaustive enumeration, the named
    adversary's own lies in it, and a long chain (T = 200) is bracketed within the tolerance."""
    T = 7
    rel = local_release(P2, "stationary", krr(2, 1.0), steps=T)
    fprs = [1e-3, 0.05, 0.3]
    best = np.zeros(3)
    for t in range(1, T + 1):
        for a, b in ((0, 1), (1, 0)):
            best = np.maximum(
                best, tpr_both([enumerate_local_release(rel, target=t, pair=(a, b))], fprs)[0][0]
            )
    w = release_worst_profile(rel, epsilons=[0.0], fprs=fprs, sizes=[0], tolerance=1e-9)
    for i, f in enumerate(fprs):
        b, adv = w.tpr[f], w.tpr_by[f]
        assert float(b.low) - 1e-12 <= best[i] <= float(b.high) + 1e-12 and float(b.high - b.low) <= 1e-9
        own = tpr_both([enumerate_local_release(rel, target=adv.target, pair=(adv.a, adv.b))], [f])
        assert float(b.low) - 1e-12 <= own[0][0, 0] <= float(b.high) + 1e-12
    long = release_worst_profile(
        local_release(P2, "stationary", krr(2, 1.0), steps=200), epsilons=[0.0], fprs=[0.05], sizes=[0]
    )
    assert long.converged and float(long.tpr[0.05].high - long.tpr[0.05].low) <= 1e-6


def test_a_block_that_is_split_leaves_no_upper_end_behind():
    """On a short chain the blocks of targets are split down to single targets; the upper end of a
    block that was split (the past of its last target with the future of its first, far looser than
    any of its targets) must not stay in the supremum: the bracket is then that of the targets
    composed one by one (before the fix, T = 6: [0.25533, 0.25977] against the exact 0.25533)."""
    P = np.array([[0.882, 0.118], [0.305, 0.695]])
    eps = np.array([0.0, 1.0])
    for T in (3, 6, 9):
        rel = local_release(P, "stationary", krr(2, 1.0), steps=T)
        w = release_worst_profile(rel, epsilons=eps, sizes=[0], tolerance=None, grid=64)
        singles = [release_profile(rel, target=t, pair=(0, 1), grid=64) for t in range(1, T + 1)]
        high = np.max([s.delta(eps).high for s in singles], axis=0)
        assert np.all(w.delta.high <= high + 1e-12)
        assert float(w.bdpl.high) <= max(float(s.bdpl().high) for s in singles) + 1e-12
    assert w.delta.high[1] == pytest.approx(0.2595206895, abs=1e-9)


def test_a_tolerance_is_reached_by_refining_the_grid():
    w = worst_local_release_profile(
        P3,
        "stationary",
        krr(3, 1.0),
        steps=20,
        epsilons=np.linspace(0, 3, 5),
        sizes=[0],
        tolerance=1e-5,
        alphas=[2.0],
    )
    assert w.converged and w.width <= 1e-5 and w.grid > 64
    r = w.renyi[2.0]
    assert float(r.low) <= float(r.high) <= float(r.low) + 1e-3
    assert isinstance(w.attained_by[0], LocalAdversary) and w.sizes == (0,)
    capped = worst_local_release_profile(
        P3, "stationary", krr(3, 1.0), steps=20, epsilons=[0.5], sizes=[0], tolerance=1e-12, max_grid=32
    )
    assert not capped.converged and capped.grid == 32 and capped.width > 1e-12


def test_the_window_count_of_the_cost_estimate_is_exact():
    from bdpsim.kernels.chains.local_profile import windows
    from bdpsim.kernels.chains.local_worst import _window_count

    rel = local_release(P2, PI2, krr(2, 1.0), steps=9)
    for sizes in ([0], [1], [2], [3], [0, 2], list(range(9)), [8]):
        for t in range(1, 10):
            assert len(windows(rel, t, sizes)) == _window_count(9, t, sizes, 2)
