"""The port of Cao et al.'s temporal privacy leakage (bdpsim.temporal.cao / .lfp, issue 34 item 1).

Known answers: every vertex of the LFP's feasible cone (brute force), the 2-state closed form,
independent records (L = 0), the identity chain (L(α) = α), the fixed-point iteration of
Theorem 10, Bayes by enumerating state paths; and numbers printed by the authors' MATLAB code
under GNU Octave 7.3 (pinned below).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.temporal import (
    CaoTimeline,
    QuantifiedBudget,
    allocate_quantification,
    allocate_upper_bound,
    backward_matrices,
    cao_leakage,
    cao_supremum,
    incremental_leakage,
    incremental_leakage_lp,
    incremental_leakage_precomputed,
    l_function,
    l_function_value,
    precompute,
    supremum,
    theorem10,
)
from bdpsim.temporal.lfp import log_fraction


def random_chain(rng: np.random.Generator, k: int) -> np.ndarray:
    """As the authors' tests draw them: |N(1, 1)| entries, rows normalised."""
    m = np.abs(rng.normal(1.0, 1.0, (k, k)))
    return m / m.sum(axis=1, keepdims=True)


def sticky_chain(k: int, stay: float) -> np.ndarray:
    return np.full((k, k), (1 - stay) / (k - 1)) + np.eye(k) * (stay - (1 - stay) / (k - 1))


def brute_force_L(M: np.ndarray, alpha: float) -> float:
    """max over ordered pairs and every 0/1 vertex y in {1, e^α}^k of log(M_i y / M_j y), in the
    log domain (the LFP's optimum is at such a vertex: the ratio is quasi-linear on the box)."""
    k = M.shape[0]
    best = 0.0
    with np.errstate(divide="ignore"):
        logM = np.log(M)
    for S in itertools.product([0.0, alpha], repeat=k):
        s = np.array(S)
        num = np.logaddexp.reduce(logM + s, axis=1)  # log(M_i y) for every row
        best = max(best, float(np.max(num[:, None] - num[None, :])))
    return best


CASES = [(k, seed) for k in (2, 3, 4, 5) for seed in range(3)]


@pytest.mark.parametrize("k,seed", CASES)
@pytest.mark.parametrize("alpha", [0.0, 0.05, 0.5, 1.0, 3.0])
def test_theorem4_precomputation_and_lp_equal_the_brute_force(k, seed, alpha):
    M = random_chain(np.random.default_rng(100 * k + seed), k)
    ref = brute_force_L(M, alpha)
    assert incremental_leakage(M, alpha).value == pytest.approx(ref, abs=1e-12)
    assert incremental_leakage_precomputed(alpha, precompute(M)).value == pytest.approx(ref, abs=1e-12)
    assert incremental_leakage_lp(M, alpha).value == pytest.approx(ref, abs=1e-7)  # the authors' own check


@pytest.mark.parametrize(
    "M",
    [
        sticky_chain(2, 0.9),
        sticky_chain(3, 0.95),
        sticky_chain(4, 0.8),
        np.array(
            [[0.6, 0.2, 0.2, 0.0], [0.1, 0.7, 0.1, 0.1], [0.0, 0.3, 0.5, 0.2], [0.25, 0.25, 0.25, 0.25]]
        ),
    ],
)
@pytest.mark.parametrize("alpha", [0.1, 1.0, 4.0])
def test_lp_and_closed_form_agree_on_sticky_and_sparse_chains(M, alpha):
    ref = brute_force_L(M, alpha)
    assert incremental_leakage(M, alpha).value == pytest.approx(ref, abs=1e-12)
    assert incremental_leakage_lp(M, alpha).value == pytest.approx(ref, abs=1e-7)


def test_lp_and_closed_form_agree_on_a_larger_random_chain():
    """The authors' testCalcBPL.m (there n = 30, a = 0.1; here n = 8 to stay fast)."""
    M = random_chain(np.random.default_rng(7), 8)
    for alpha in (0.1, 0.7):
        assert incremental_leakage_lp(M, alpha).value == pytest.approx(
            incremental_leakage(M, alpha).value, abs=1e-7
        )


@pytest.mark.slow
def test_lp_and_closed_form_agree_at_30_states():
    M = random_chain(np.random.default_rng(30), 30)
    assert incremental_leakage_lp(M, 0.1).value == pytest.approx(incremental_leakage(M, 0.1).value, abs=1e-7)


@pytest.mark.parametrize("p,r", [(0.9, 0.2), (0.6, 0.55), (0.99, 0.01), (0.3, 0.8)])
@pytest.mark.parametrize("alpha", [0.0, 0.2, 2.0, 40.0])
def test_two_states_closed_form(p, r, alpha):
    """Rows (p, 1-p), (r, 1-r): each ordered pair keeps its one column with Q > D, so
    L(α) = max(log((p E + 1)/(r E + 1)), log(((1-p) E + 1)/((1-r) E + 1))) read the right way
    round, E = e^α - 1."""
    M = np.array([[p, 1 - p], [r, 1 - r]])
    E = math.expm1(alpha)
    hi, lo = max(p, r), min(p, r)
    expected = max(math.log((hi * E + 1) / (lo * E + 1)), math.log(((1 - lo) * E + 1) / ((1 - hi) * E + 1)))
    assert incremental_leakage(M, alpha).value == pytest.approx(expected, rel=1e-13, abs=1e-15)
    assert incremental_leakage_precomputed(alpha, precompute(M)).value == pytest.approx(
        expected, rel=1e-13, abs=1e-15
    )


def test_alpha_zero_gives_exactly_zero():
    M = random_chain(np.random.default_rng(3), 6)
    assert incremental_leakage(M, 0.0).value == 0.0
    assert incremental_leakage_precomputed(0.0, precompute(M)).value == 0.0
    assert incremental_leakage_lp(M, 0.0).value == pytest.approx(0.0, abs=1e-9)


def test_large_alpha_does_not_overflow():
    """At α = 800 (e^α overflows a double) L(α) is the largest log(q/d) of Algorithm 1's sets."""
    M = random_chain(np.random.default_rng(5), 4)
    for alpha in (300.0, 800.0):
        ref = brute_force_L(M, alpha)
        assert incremental_leakage(M, alpha).value == pytest.approx(ref, abs=1e-9)
        assert incremental_leakage_precomputed(alpha, precompute(M)).value == pytest.approx(ref, abs=1e-9)


def test_identity_chain_leaks_alpha_and_accumulates_the_budgets():
    """Deterministic chain: L(α) = α, so BPL_t = ε_1 + ... + ε_t (group privacy) and the supremum
    is infinite (Theorem 10, d = 0, q = 1)."""
    eye = np.eye(3)
    assert incremental_leakage(eye, 1.7).value == pytest.approx(1.7, abs=1e-12)
    eps = np.array([0.1, 0.3, 0.2, 0.4])
    tl = cao_leakage(eye, eps, 4, backward=eye)
    np.testing.assert_allclose(tl.bpl, np.cumsum(eps), atol=1e-12)
    np.testing.assert_allclose(tl.fpl, np.cumsum(eps[::-1])[::-1], atol=1e-12)
    np.testing.assert_allclose(tl.tpl, np.full(4, eps.sum()), atol=1e-12)
    assert supremum(eye, 0.5).value == math.inf
    with pytest.raises(ConfigError, match="transition"):
        allocate_upper_bound(1.0, eye)
    with pytest.raises(ConfigError, match="transition"):
        allocate_quantification(1.0, eye)


def test_independent_records_leak_only_their_own_budget():
    """Rows all equal: L = 0, so BPL_t = FPL_t = TPL_t = ε_t; sup = ε; both allocations give α."""
    M = np.tile([0.2, 0.5, 0.3], (3, 1))
    eps = [0.3, 1.0, 0.2, 0.7, 0.5]
    tl = cao_leakage(M, eps, 5)
    for col in (tl.bpl, tl.fpl, tl.tpl):
        np.testing.assert_allclose(col, eps, atol=1e-15)
    assert cao_supremum(M, 0.4) == pytest.approx((0.4, 0.4, 0.4))
    assert allocate_upper_bound(0.8, M) == pytest.approx(0.8, abs=1e-12)
    qb = allocate_quantification(0.8, M)
    assert (qb.start, qb.middle, qb.end) == pytest.approx((0.8, 0.8, 0.8), abs=1e-12)


@pytest.mark.parametrize(
    "q,d,eps", [(0.7, 0.2, 0.3), (0.9, 0.05, 1.0), (0.5, 0.0, 0.5), (0.3, 0.0, 0.1), (0.4, 0.4, 0.6)]
)
def test_theorem10_is_the_fixed_point_of_the_recursion(q, d, eps):
    a = eps
    for _ in range(20000):
        a = float(log_fraction(q, d, a)) + eps
    assert float(theorem10(q, d, eps)) == pytest.approx(a, abs=1e-10)


def test_theorem10_infinite_when_the_recursion_diverges():
    # d = 0 and ε > log(1/q): a_{t+1} - a_t stays above a positive constant
    assert float(theorem10(0.5, 0.0, 1.0)) == math.inf
    assert float(theorem10(1.0, 0.0, 0.01)) == math.inf


@pytest.mark.parametrize("seed", range(3))
def test_timeline_converges_to_the_theorem10_supremum(seed):
    P = random_chain(np.random.default_rng(seed), 3)
    eps = 0.4
    tl = cao_leakage(P, eps, 300)
    sup = cao_supremum(P, eps)
    assert np.all(np.diff(tl.bpl) >= -1e-15)  # BPL grows with t
    assert np.all(tl.bpl <= sup.bpl + 1e-12)
    assert tl.bpl[-1] == pytest.approx(sup.bpl, abs=1e-9)
    assert tl.fpl[0] == pytest.approx(sup.fpl, abs=1e-9)
    assert tl.tpl[150] == pytest.approx(sup.tpl, abs=1e-9)
    assert np.all(tl.tpl <= sup.tpl + 1e-12)


def test_timeline_with_an_infinite_supremum_grows_without_bound():
    P = np.array([[0.6, 0.2, 0.2, 0.0], [0.1, 0.7, 0.1, 0.1], [0.0, 0.3, 0.5, 0.2], [0.25, 0.25, 0.25, 0.25]])
    assert supremum(P, 1.0).value == math.inf
    tl = cao_leakage(P, 1.0, 60, backward=P)
    assert tl.bpl[-1] > 20 and np.all(np.diff(tl.bpl[-10:]) > 0.3)


def brute_force_backward(P_steps: list[np.ndarray], initial: np.ndarray) -> list[np.ndarray]:
    """Pr(x_t = i | x_{t+1} = j) from the law of every state path (no Bayes formula)."""
    k, T = len(initial), len(P_steps) + 1
    joint = np.zeros((T - 1, k, k))
    for path in itertools.product(range(k), repeat=T):
        p = initial[path[0]]
        for t in range(T - 1):
            p *= P_steps[t][path[t], path[t + 1]]
        for t in range(T - 1):
            joint[t, path[t], path[t + 1]] += p
    return [(j / j.sum(axis=0, keepdims=True)).T for j in joint]


def test_backward_matrices_are_the_conditional_laws_of_the_paths():
    rng = np.random.default_rng(11)
    P_steps = [random_chain(rng, 3) for _ in range(4)]
    initial = np.array([0.7, 0.1, 0.2])
    got = backward_matrices(np.array(P_steps), 5, initial)
    for g, ref in zip(got, brute_force_backward(P_steps, initial)):
        np.testing.assert_allclose(g, ref, atol=1e-13)
    # stationary start, one matrix: every step is the time reversal; a 2-state chain is reversible
    P = np.array([[0.882, 0.118], [0.305, 0.695]])
    for B in backward_matrices(P, 4):
        np.testing.assert_allclose(B, P, atol=1e-12)


def test_time_varying_timeline_is_the_step_by_step_recursion():
    rng = np.random.default_rng(12)
    T = 5
    P = np.array([random_chain(rng, 3) for _ in range(T - 1)])
    initial = np.array([0.5, 0.25, 0.25])
    eps = np.array([0.2, 0.5, 0.1, 0.3, 0.4])
    B = backward_matrices(P, T, initial)
    bpl = [eps[0]]
    for t in range(1, T):
        bpl.append(brute_force_L(B[t - 1], bpl[-1]) + eps[t])
    fpl = [eps[-1]]
    for t in range(T - 2, -1, -1):
        fpl.insert(0, brute_force_L(P[t], fpl[0]) + eps[t])
    for method in ("precomp", "theorem4", "lp", "lfunc"):
        tl = cao_leakage(P, eps, T, initial=initial, method=method)
        tol = 1e-7 if method == "lp" else 1e-12
        np.testing.assert_allclose(tl.bpl, bpl, atol=tol)
        np.testing.assert_allclose(tl.fpl, fpl, atol=tol)
        np.testing.assert_allclose(tl.tpl, np.array(bpl) + np.array(fpl) - eps, atol=2 * tol)
        np.testing.assert_array_equal(tl.t, np.arange(1, T + 1))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("alpha", [0.5, 2.0])
def test_upper_bound_allocation_keeps_tpl_below_alpha(seed, alpha):
    P = random_chain(np.random.default_rng(20 + seed), 3)
    e = allocate_upper_bound(alpha, P)
    assert 0 < e < alpha
    assert cao_supremum(P, e).tpl == pytest.approx(alpha, abs=1e-12)
    for T in (1, 2, 7, 200):
        assert np.all(cao_leakage(P, e, T).tpl <= alpha + 1e-12)
    assert cao_leakage(P, e, 400).tpl[200] == pytest.approx(
        alpha, abs=1e-9
    )  # the bound is reached in the limit


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("alpha", [0.5, 2.0])
def test_quantification_allocation_holds_tpl_at_alpha(seed, alpha):
    P = random_chain(np.random.default_rng(30 + seed), 3)
    B = random_chain(np.random.default_rng(40 + seed), 3)  # as testPlotBudgetAlloc.m: an unrelated TM_B
    qb = allocate_quantification(alpha, P, backward=B)
    for T in (1, 2, 3, 30):
        tl = cao_leakage(P, qb.epsilons(T), T, backward=B)
        np.testing.assert_allclose(tl.tpl, alpha, atol=1e-12)
    # both allocations solve the same fixed-point system in the middle steps: one budget
    assert qb.middle == pytest.approx(allocate_upper_bound(alpha, P, backward=B), abs=1e-12)
    assert qb.start > qb.middle and qb.end > qb.middle


# Printed by the authors' MATLAB code (yangcao888/TPL at 90e206b; allocEsp*.m from b375bc0) under
# GNU Octave 7.3.0, with two shims for Octave: VChooseK.m -> nchoosek (the MEX file is a macOS
# binary) and sort(..., 'MissingPlacement', 'last') -> NaN replaced by -Inf before sorting.
PIN_MATRICES = {
    "A": [[0.1, 0.2, 0.7], [0.3, 0.3, 0.4], [0.5, 0.3, 0.2]],  # testPlotLFunc.m's matrix
    "B": [[0.882, 0.118], [0.305, 0.695]],
    "C": [[0.6, 0.2, 0.2, 0.0], [0.1, 0.7, 0.1, 0.1], [0.0, 0.3, 0.5, 0.2], [0.25, 0.25, 0.25, 0.25]],
    "D": [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3], [0.3, 0.3, 0.4]],
}
# [maxPL] = calcPLbyThm(TM, a) (calcPLbyPreComp(a, preCompQDMatrix(TM)) printed the same digits)
PIN_L = [
    ("A", 0.1, 0.050219763984454276),
    ("A", 1, 0.49433351445728368),
    ("A", 3, 1.2877842263311483),
    ("B", 0.1, 0.058212073728095129),
    ("B", 1, 0.60120355676785864),
    ("B", 3, 1.4784714003188868),
    ("C", 0.1, 0.061191567750225419),
    ("C", 1, 0.70851306686231508),
    ("C", 3, 2.5218268143736173),
]
# [maxSup] = findSup(TM, e, qM, dM, QDplusInd)
PIN_SUP = [
    ("A", 0.1, 0.20153247882443315),
    ("A", 0.5, 0.98950953979397038),
    ("A", 1, 1.892917190001175),
    ("B", 0.1, 0.24298958925798014),
    ("B", 0.5, 1.2429234913960578),
    ("B", 1, 2.2291323718844116),
    ("C", 0.1, 0.27168596824503138),
    ("C", 0.5, 4.1149565809542556),
    ("C", 1, math.inf),
]
# tools/plotTPL.m's loops (calcPLbyFunc with genLFunc(0, 100, ...)) for TM_B, TM_F and eArr
PIN_TIMELINES = [
    (
        "A",
        "D",
        [0.5] * 8,
        {
            "bpl": [
                0.5,
                0.75239923174659751,
                0.87721105864242999,
                0.93706156876265245,
                0.96519362661828767,
                0.97827670354527108,
                0.98432932315661215,
                0.98712249243434591,
            ],
            "fpl": [
                0.92032666693060139,
                0.91724225400540171,
                0.91103395091577166,
                0.89852957263053868,
                0.87330763918580245,
                0.82226357019664253,
                0.71807508014643107,
                0.5,
            ],
            "tpl": [
                0.92032666693060139,
                1.1696414857519992,
                1.2882450095582016,
                1.3355911413931911,
                1.3385012658040902,
                1.3005402737419136,
                1.2024044033030432,
                0.98712249243434602,
            ],
        },
    ),
    (
        "A",
        "D",
        [0.1, 0.4, 0.2, 0.3, 0.5, 0.1],
        {
            "bpl": [
                0.1,
                0.45021976398445429,
                0.42736945256703046,
                0.51585076779425298,
                0.76034782860047423,
                0.48106614378965007,
            ],
            "fpl": [
                0.35969017955316385,
                0.58816251799416364,
                0.43555750973519336,
                0.53723344233191217,
                0.54078730758675364,
                0.1,
            ],
            "tpl": [
                0.35969017955316385,
                0.6383822819786179,
                0.66292696230222381,
                0.753084210126165,
                0.80113513618722787,
                0.48106614378965007,
            ],
        },
    ),
    (
        "B",
        "B",
        [0.5] * 8,
        {
            "bpl": [
                0.5,
                0.79839671166784054,
                0.98009292197098563,
                1.089357727565444,
                1.1539860832185171,
                1.1917133466743581,
                1.2135422115443437,
                1.2261023432788141,
            ],
            "tpl": [
                1.2261023432788141,
                1.5119389232121843,
                1.6718062686453439,
                1.7433438107839612,
                1.7433438107839612,
                1.6718062686453439,
                1.5119389232121843,
                1.2261023432788141,
            ],
        },
    ),
    (
        "B",
        "B",
        [0.1, 0.4, 0.2, 0.3, 0.5, 0.1],
        {
            "bpl": [
                0.1,
                0.45821207372809514,
                0.47296317540847699,
                0.58193673649134248,
                0.84834428020510466,
                0.61030467974075064,
            ],
            "fpl": [
                0.54901015545999254,
                0.74717546151282543,
                0.58002030449043995,
                0.6338757903601816,
                0.55821207372809512,
                0.1,
            ],
            "tpl": [
                0.54901015545999254,
                0.80538753524092044,
                0.85298347989891687,
                0.91581252685152403,
                0.90655635393319978,
                0.61030467974075064,
            ],
        },
    ),
]
# e = allocEspByUpperBound(a, TM_B, TM_F); [e_s, e_mid, e_end] = allocEspByQuantify(a, TM_B, TM_F)
PIN_ALLOC = [
    ("A", "D", 0.5, 0.18143324706613839, (0.3665623093521333, 0.1814332470661375, 0.31487093771400426)),
    ("A", "D", 1, 0.35601637758615645, (0.71503242587191451, 0.3560163775861569, 0.64098395171424238)),
    ("A", "D", 2, 0.71248202910417291, (1.3654336751722695, 0.71248202910417202, 1.3470483539319027)),
    ("B", "B", 0.5, 0.12846797903159235, (0.31423398951579884, 0.1284679790315939, 0.31423398951579506)),
    ("B", "B", 1, 0.25048707011262028, (0.62524353505631325, 0.25048707011262161, 0.62524353505630825)),
    ("B", "B", 2, 0.50387293757017737, (1.2519364687850896, 0.50387293757017826, 1.2519364687850887)),
]


@pytest.mark.parametrize("name,alpha,value", PIN_L)
def test_L_matches_the_authors_code(name, alpha, value):
    M = np.array(PIN_MATRICES[name])
    assert incremental_leakage(M, alpha).value == pytest.approx(value, abs=1e-14)
    assert incremental_leakage_precomputed(alpha, precompute(M)).value == pytest.approx(value, abs=1e-14)


@pytest.mark.parametrize("name,eps,value", PIN_SUP)
def test_supremum_matches_the_authors_code(name, eps, value):
    assert supremum(PIN_MATRICES[name], eps).value == pytest.approx(value, abs=1e-14)


@pytest.mark.parametrize("method", ["precomp", "lfunc", "theorem4"])
@pytest.mark.parametrize("back,fwd,eps,expected", PIN_TIMELINES)
def test_timeline_matches_the_authors_code(back, fwd, eps, expected, method):
    tl = cao_leakage(PIN_MATRICES[fwd], eps, len(eps), backward=PIN_MATRICES[back], method=method)
    for col, values in expected.items():
        np.testing.assert_allclose(getattr(tl, col), values, rtol=0, atol=1e-14)


# [aArrMax, qArrMax, dArrMax] = genLFunc(a1, an, preCompQDMatrix(TM)) and calcPLbyFunc(2.5, ...)
PIN_LFUNC = [
    ("A", 20, [1.4663370687934267, 20], [0.7, 0.5], [0.2, 0.1], None),
    ("C", 100, [100], [0.6], [0.0], 2.0424528646145133),
]


@pytest.mark.parametrize("name,an,points,q,d,at_2_5", PIN_LFUNC)
def test_l_function_matches_the_authors_code(name, an, points, q, d, at_2_5):
    lf = l_function(0.0, an, precompute(PIN_MATRICES[name]))
    np.testing.assert_allclose(lf.points, points, rtol=0, atol=1e-14)
    np.testing.assert_allclose(lf.q, q, rtol=0, atol=1e-15)
    np.testing.assert_allclose(lf.d, d, rtol=0, atol=1e-15)
    if at_2_5 is not None:
        assert l_function_value(2.5, lf) == pytest.approx(at_2_5, abs=1e-14)


@pytest.mark.parametrize("k,seed", [(3, 1), (5, 2), (8, 3)])
def test_l_function_is_theorem4_everywhere_on_its_range(k, seed):
    M = random_chain(np.random.default_rng(seed), k)
    lf = l_function(0.0, 50.0, precompute(M))
    for alpha in np.linspace(0.0, 50.0, 401):
        assert l_function_value(alpha, lf) == pytest.approx(incremental_leakage(M, alpha).value, abs=1e-12)
    with pytest.raises(ConfigError, match="alpha"):
        l_function_value(50.5, lf)
    equal_rows = l_function(0.0, 10.0, precompute(np.tile([0.3, 0.7], (2, 1))))
    assert equal_rows.points.size == 0 and l_function_value(3.0, equal_rows) == 0.0


@pytest.mark.parametrize("back,fwd,alpha,upper,quant", PIN_ALLOC)
def test_allocations_match_the_authors_code(back, fwd, alpha, upper, quant):
    B, F = PIN_MATRICES[back], PIN_MATRICES[fwd]
    assert allocate_upper_bound(alpha, F, backward=B) == pytest.approx(upper, abs=1e-14)
    for method in ("precomp", "lfunc"):
        qb = allocate_quantification(alpha, F, backward=B, method=method)
        assert (qb.start, qb.middle, qb.end) == pytest.approx(quant, abs=1e-14)


# --- input checks -------------------------------------------------------------------------

P2 = [[0.9, 0.1], [0.2, 0.8]]


@pytest.mark.parametrize(
    "kwargs,field,rule",
    [
        (dict(transition=[[0.9, 0.2], [0.2, 0.8]]), "transition[0]", "sum to 1"),
        (dict(transition=[[1.1, -0.1], [0.2, 0.8]]), "transition[0][1]", ">= 0"),
        (dict(transition=[[0.5, 0.5, 0.0], [0.2, 0.8, 0.0]]), "transition shape", "square"),
        (dict(transition=[[1.0]]), "transition shape", "k >= 2"),
        (dict(epsilon=0.0), "epsilon", "> 0"),
        (dict(epsilon=-1.0), "epsilon", "> 0"),
        (dict(epsilon=math.nan), "epsilon", "finite"),
        (dict(epsilon=[0.1, 0.2]), "epsilon", "steps = 3"),
        (dict(epsilon=[0.1, 0.0, 0.2]), "epsilon", "> 0"),
        (dict(steps=0), "steps", "integer >= 1"),
        (dict(steps=2.5), "steps", "integer >= 1"),
        (dict(steps=True), "steps", "integer >= 1"),
        (dict(transition=[P2, P2, P2]), "transition", "steps - 1 = 2"),
        (dict(transition=[P2, [[0.5, 0.6], [0.5, 0.5]]]), "transition[1][0]", "sum to 1"),
        (dict(initial=[0.5, 0.6]), "initial", "probability vector"),
        (dict(initial=[1.0, 0.0], transition=[[1.0, 0.0], [0.2, 0.8]]), "initial", "probability 0"),
        (dict(backward=[[0.5, 0.5, 0], [0.5, 0.5, 0], [0.5, 0.5, 0]]), "backward", "k = 2"),
        (dict(method="simplex"), "method", "theorem4"),
    ],
)
def test_bad_input_names_the_argument_and_the_rule(kwargs, field, rule):
    args = dict(transition=P2, epsilon=0.5, steps=3) | kwargs
    with pytest.raises(ConfigError) as err:
        cao_leakage(**args)
    assert err.value.field == field and rule in err.value.rule
    assert isinstance(err.value, ValueError) and "\n" not in str(err.value)


def test_bad_alpha_and_matrix_in_the_lfp():
    with pytest.raises(ConfigError, match="alpha"):
        incremental_leakage(P2, -0.1)
    with pytest.raises(ConfigError, match="matrix"):
        incremental_leakage_lp([[0.5, 0.4], [0.5, 0.5]], 0.1)
    with pytest.raises(ConfigError, match="alpha"):
        allocate_upper_bound(0.0, P2)
    with pytest.raises(ConfigError, match="transition"):
        cao_supremum(np.array([P2, P2]), 0.5)


def test_timeline_dataclass():
    tl = cao_leakage(P2, 0.5, 3)
    assert set(tl.as_dict()) == {"t", "bpl", "fpl", "tpl", "epsilon"}
    assert tl.as_dict()["t"] == [1, 2, 3]
    with pytest.raises(AttributeError):
        tl.bpl = tl.fpl  # type: ignore[misc]
    with pytest.raises(ConfigError, match="tpl"):
        CaoTimeline(tl.t, tl.bpl, tl.fpl, tl.tpl[:2], tl.epsilon)
    with pytest.raises(ConfigError, match="middle"):
        QuantifiedBudget(0.5, 0.0, 0.5, 1.0)
    single = cao_leakage(P2, 0.7, 1)
    assert single.tpl.tolist() == [0.7]


def test_theorem4_survives_the_rounding_that_breaks_calcPLbyThm():
    """Octave: calcPLbyThm([0.6 0.4; 0.55 0.45], a) printed 0.11778303565638326 at a = 36 and
    0 at a = 40 (rounding drops the last column); calcPLbyPreComp printed 0.11778303565638346."""
    M = np.array([[0.6, 0.4], [0.55, 0.45]])
    assert incremental_leakage(M, 36.0).value == pytest.approx(0.11778303565638326, abs=1e-14)
    assert incremental_leakage(M, 40.0).value == pytest.approx(0.11778303565638346, abs=1e-14)
    assert incremental_leakage_precomputed(40.0, precompute(M)).value == pytest.approx(
        0.11778303565638346, abs=1e-14
    )


def test_initial_law_forms_and_unreachable_states():
    P = np.array([[0.882, 0.118], [0.305, 0.695]])
    a = cao_leakage(P, 0.5, 6)
    b = cao_leakage(P, 0.5, 6, initial="stationary")
    np.testing.assert_array_equal(a.tpl, b.tpl)
    # an absorbing state: the stationary law puts 0 on state 0, whose backward row is undefined
    with pytest.raises(ConfigError, match="backward="):
        cao_leakage([[0.5, 0.5], [0.0, 1.0]], 0.5, 4)
    # ... unless the backward matrix is given, as the MATLAB code takes it
    tl = cao_leakage([[0.5, 0.5], [0.0, 1.0]], 0.5, 4, backward=[[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_allclose(tl.bpl, 0.5, atol=1e-15)
