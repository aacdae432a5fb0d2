"""The attack quantities of issue 35 (bdpsim.attack): closed forms, brute force over every joint
state, the pure-eps bound, and a simulated attack whose Clopper-Pearson intervals contain the curve."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import ndtr, ndtri
from scipy.stats import beta as beta_law

from bdpsim import ConfigError, NotAvailable
from bdpsim.adversary import Adversary
from bdpsim.attack import (
    attack_risk,
    discrete_tradeoff,
    gaussian_tradeoff,
    mixture_tradeoff,
    output_laws,
    pair_tradeoff,
    pure_dp_tradeoff,
    worst_advantage,
    worst_tpr,
)
from bdpsim.attack.worst import directed_tpr
from bdpsim.estimators import adversary_bdpl
from bdpsim.kernels.noise.laws import GaussianNoise, LaplaceNoise
from bdpsim.kernels.noise.stepwise import GeometricNoise
from bdpsim.mechanisms import ClippedSum, LaplaceCount
from bdpsim.mechanisms.noisy import NoisyQueryMechanism
from bdpsim.models import BayesNetModel, GaussianModel, MarkovChainModel
from bdpsim.models.mrf import MRFModel
from bdpsim.queries import CountQuery, SumQuery

FPRS = (1e-3, 1e-2, 0.1, 0.5, 0.9)


def laplace_shift_tpr(alpha: float, d: float, b: float) -> float:
    """``Lap(0, b)`` (negatives) against ``Lap(d, b)`` (positives), ``d > 0``: the threshold test
    ``y > c`` with ``1 - F(c) = alpha`` has ``TPR = 1 - F(c - d)``; ``F`` the Laplace CDF."""
    c = b * math.log(1 / (2 * alpha)) if alpha < 0.5 else b * math.log(2 * (1 - alpha))

    def F(y):
        return 0.5 * math.exp(y / b) if y < 0 else 1 - 0.5 * math.exp(-y / b)

    return 1 - F(c - d)


def chain(n=5, P=((0.8, 0.2), (0.3, 0.7))):
    return MarkovChainModel(np.array(P), n)


def network():
    return BayesNetModel(
        [[], [0], [0], [1, 2]],
        [
            [0.6, 0.4],
            [[0.8, 0.2], [0.3, 0.7]],
            [[0.9, 0.1], [0.25, 0.75]],
            [[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]],
        ],
    )


def field():
    return MRFModel([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)], coupling=0.9, field=[0.0, 0.3])


# ------------------------------------------------------------------ closed forms (independent records)


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_independent_laplace_closed_form(eps):
    """Independent records, the adversary knowing every other record: the count shifts by one,
    ``advantage = 1 - e^{-eps/2}`` and the threshold test's TPR, to 1e-9."""
    m = chain(5, ((0.7, 0.3), (0.7, 0.3)))  # identical rows: independent records
    adv = Adversary(2, (0, 1, 3, 4), (0, 1, 1, 0), 1, 0)
    r = attack_risk(m, LaplaceCount(eps, counted_states=(1,)), adv)
    assert r.advantage == pytest.approx(1 - math.exp(-eps / 2), abs=1e-12)
    assert r.advantage < math.tanh(eps / 2)
    for a in FPRS:
        assert r.tpr_at(a) == pytest.approx(laplace_shift_tpr(a, 1.0, 1 / eps), abs=1e-9)
        assert r.beta(a) == pytest.approx(1 - laplace_shift_tpr(a, 1.0, 1 / eps), abs=1e-9)
    # Bayes success at prior 1/2 is (1 + TV)/2; at prior 0.9 the output can overturn the prior
    # only where p/q < 1/9, i.e. never when e^-eps > 1/9 (the likelihood ratio is in [e^-eps, e^eps])
    assert r.bayes_success(0.5) == pytest.approx(0.5 * (1 + r.advantage), abs=1e-12)
    if math.exp(-eps) > 1 / 9:
        assert r.bayes_success(0.9) == pytest.approx(0.9, abs=1e-12)
    else:
        assert r.bayes_success(0.9) > 0.9 + 1e-3


def test_issue_number_laplace_eps1():
    """The issue's number: Laplace at eps = 1 on independent records: 0.3935 (vs tanh(1/2) = 0.4621)."""
    c = mixture_tradeoff(LaplaceNoise(1.0), [1.0], [1.0], [0.0], [1.0])
    assert c.advantage == pytest.approx(0.39346934028736658, abs=1e-12)
    assert pure_dp_tradeoff(1.0).advantage == pytest.approx(math.tanh(0.5), abs=1e-12)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 4.0])
def test_independent_gaussian_gdp(sigma):
    """Gaussian records, unclipped sum, Gaussian noise: ``mu``-GDP with
    ``mu = |x - x'| / sqrt(sum of the unknown variances + sigma^2)``, against ``Phi``."""
    cov = np.diag([1.0, 2.0, 0.5, 1.5])
    m = GaussianModel(np.zeros(4), cov)
    mech = NoisyQueryMechanism(SumQuery(), GaussianNoise(sigma), kind="sum")
    adv = Adversary(1, (0,), (0.3,), 2.0, 0.5)
    mu = 1.5 / math.sqrt(0.5 + 1.5 + sigma**2)
    r = attack_risk(m, mech, adv)
    assert r.advantage == pytest.approx(2 * ndtr(mu / 2) - 1, abs=1e-9)
    for a in FPRS:
        assert r.tpr_at(a) == pytest.approx(ndtr(ndtri(a) + mu), abs=1e-12)
    # the noise law's exact hockey-stick (certified Gaussian mixtures) gives the same curve
    c = mixture_tradeoff(GaussianNoise(1.0), [mu], [1.0], [0.0], [1.0])
    for a in FPRS:
        assert c.tpr_at(a) == pytest.approx(ndtr(ndtri(a) + mu), abs=1e-9)
    assert c.advantage == pytest.approx(gaussian_tradeoff(mu).advantage, abs=1e-9)


def test_correlated_gaussian_gdp_uses_the_conditional_law():
    """Correlated records: the mean of the sum moves by ``a |x - x'|`` (the BDPL slope of paper
    Thm 5.5) and its variance is the conditional one (Schur complement)."""
    cov = np.array([[1.0, 0.6, 0.3], [0.6, 1.0, 0.6], [0.3, 0.6, 1.0]])
    m = GaussianModel(np.zeros(3), cov)
    adv = Adversary(0, (), (), 1.0, 0.0)
    mech = NoisyQueryMechanism(SumQuery(), GaussianNoise(1.0), kind="sum")
    slope = 1 + 0.6 + 0.3
    U = [1, 2]
    S_UU = cov[np.ix_(U, U)] - np.outer(cov[U, 0], cov[0, U])
    mu = slope / math.sqrt(S_UU.sum() + 1.0)
    assert attack_risk(m, mech, adv).tpr_at(0.01) == pytest.approx(ndtr(ndtri(0.01) + mu), abs=1e-12)


# ------------------------------------------------------------------ brute force over every joint state


def joint_table(model):
    """Every joint state with its probability (``exp log_evidence`` of the full assignment)."""
    states = list(itertools.product(range(model.states), repeat=model.n))
    p = np.array([math.exp(model.log_evidence(dict(enumerate(s)))) for s in states])
    return np.array(states), p / p.sum()


def brute_count_law(X, p, adv, value, counted=(1,)):
    keep = (
        np.all(X[:, list(adv.known)] == np.array(adv.x_known, dtype=int), axis=1)
        if adv.known
        else np.ones(len(X), bool)
    )
    keep &= X[:, adv.i] == value
    c = np.isin(X[keep], counted).sum(axis=1)
    w = np.bincount(c, weights=p[keep], minlength=X.shape[1] + 1)
    return w / w.sum()


def brute_geometric_roc(law_x, law_xp, eps, pad=80):
    """Explicit Neyman-Pearson on the integers: output pmfs of count + two-sided geometric noise,
    outcomes sorted by likelihood ratio, the ROC's vertices (FPR, TPR)."""
    y = np.arange(-pad, len(law_x) + pad)
    r = math.exp(-eps)
    k = (1 - r) / (1 + r) * r ** np.abs(y[:, None] - np.arange(len(law_x))[None, :])
    P, Q = k @ law_x, k @ law_xp
    order = np.argsort(-(P / Q), kind="stable")
    fpr = np.concatenate([[0.0], np.cumsum(Q[order])])
    tpr = np.concatenate([[0.0], np.cumsum(P[order])])
    return fpr, tpr, 0.5 * np.abs(P - Q).sum()


def brute_laplace(law_x, law_xp, b):
    """TV and ``H(t) = ∫ (p - t q)^+`` by adaptive quadrature (breakpoints at the atoms)."""
    atoms = np.arange(len(law_x), dtype=float)

    def dens(w, y):
        return float(np.sum(w * np.exp(-np.abs(y - atoms) / b) / (2 * b)))

    def H(t):
        f = lambda y: max(0.0, dens(law_x, y) - t * dens(law_xp, y))  # noqa: E731
        pts = list(atoms)
        return (
            quad(f, -np.inf, atoms[0], epsabs=1e-13)[0]
            + quad(f, atoms[-1], np.inf, epsabs=1e-13)[0]
            + sum(quad(f, lo, hi, epsabs=1e-14, limit=200)[0] for lo, hi in zip(pts, pts[1:]))
        )

    return H


MODELS = {"chain": lambda: chain(5), "network": network, "field": field}


@pytest.mark.parametrize("name", list(MODELS))
def test_brute_force_geometric_every_state(name):
    """Small models (n <= 6): advantage and TPR@FPR of a geometric-noise count equal the explicit
    Neyman-Pearson construction on the brute-force output pmfs, to 1e-9."""
    model = MODELS[name]()
    X, p = joint_table(model)
    eps = 0.8
    mech = NoisyQueryMechanism(CountQuery((1,)), GeometricNoise(eps))
    rng = np.random.default_rng(3)
    for _ in range(4):
        i = int(rng.integers(model.n))
        others = [j for j in range(model.n) if j != i]
        K = tuple(sorted(rng.choice(others, size=int(rng.integers(0, model.n)), replace=False).tolist()))
        adv = Adversary(i, K, tuple(int(v) for v in rng.integers(0, 2, len(K))), 1, 0)
        lx, lxp = brute_count_law(X, p, adv, 1), brute_count_law(X, p, adv, 0)
        fpr, tpr, tv = brute_geometric_roc(lx, lxp, eps)
        r = attack_risk(model, mech, adv)
        assert r.advantage == pytest.approx(tv, abs=1e-9)
        for a in (1e-3, 1e-2, 0.1, 0.37):
            assert r.tpr_at(a) == pytest.approx(float(np.interp(a, fpr, tpr)), abs=1e-9)


def test_brute_force_laplace_chain():
    """Laplace noise: the advantage and TPR@FPR equal quadrature on the brute-force laws (1e-8)."""
    model = chain(6)
    X, p = joint_table(model)
    adv = Adversary(2, (0, 5), (1, 0), 1, 0)
    lx, lxp = brute_count_law(X, p, adv, 1), brute_count_law(X, p, adv, 0)
    H = brute_laplace(lx, lxp, 1.0)
    r = attack_risk(model, LaplaceCount(1.0, counted_states=(1,)), adv)
    assert r.advantage == pytest.approx(H(1.0), abs=1e-8)
    for a in (1e-2, 0.1):
        _, t = r.curve.tpr_threshold(a)
        assert r.tpr_at(a) == pytest.approx(t * a + H(t), abs=1e-8)  # the infimum, at its minimiser
        assert r.tpr_at(a) <= min(s * a + H(s) for s in (t * 0.9, t * 1.1)) + 1e-9


@pytest.mark.parametrize(
    "name",
    [
        "chain3",
        pytest.param("chain", marks=pytest.mark.slow),
        pytest.param("network", marks=pytest.mark.slow),
    ],
)
def test_worst_adversary_equals_brute_force(name):
    """Worst advantage and worst TPR@FPR (profile search, certified) equal the maximum over every
    adversary of the brute-force enumeration."""
    model = chain(3) if name == "chain3" else MODELS[name]()
    mech = LaplaceCount(1.0, counted_states=(1,))
    n = model.n
    advs = []
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for k in range(n):
            for K in itertools.combinations(others, k):
                for xk in itertools.product(range(2), repeat=k):
                    advs.append(Adversary(i, K, xk, 1, 0))
    tv, tprs = [], {a: [] for a in (1e-2, 0.1)}
    for adv in advs:
        try:
            c = pair_tradeoff(output_laws(model, mech, adv))
        except NotAvailable:
            continue
        tv.append(c.advantage)
        for a in tprs:
            tprs[a].append(directed_tpr(model, mech, adv, a)[0])
    w = worst_advantage(model, mech)
    assert w.value == pytest.approx(max(tv), abs=1e-9)
    assert pair_tradeoff(output_laws(model, mech, w.adversary)).advantage == pytest.approx(w.value, abs=1e-9)
    for a, vals in tprs.items():
        wt = worst_tpr(model, mech, a)
        assert wt.value == pytest.approx(max(vals), abs=1e-9)
        assert wt.upper >= wt.value - 1e-12


@pytest.mark.parametrize("noise", [LaplaceNoise(1.0), GeometricNoise(0.8)], ids=["laplace", "geometric"])
def test_worst_tpr_on_a_chain_is_the_largest_over_every_adversary(noise):
    """A 3-state chain of 4 records, a sum query, Laplace and geometric noise: the worst TPR at each FPR
    asked with the search (the first search's branch and bound over the window pairs) is attained
    by its adversary and certified, equal to the largest over every adversary, both orders of every
    pair, enumerated (known sets of every size); the advantage and BDPL are the engine's own."""
    from bdpsim.attack.tradeoff import tpr_rows
    from bdpsim.estimators import engine_for
    from bdpsim.queries import StateSumQuery

    P = ((0.6, 0.3, 0.1), (0.2, 0.5, 0.3), (0.25, 0.25, 0.5))
    model = MarkovChainModel(np.array(P), 4)
    mech = NoisyQueryMechanism(StateSumQuery((0.0, 1.0, 3.0)), noise)
    eng = engine_for(model, mech)
    fprs = (1e-3, 0.05, 0.3)
    rows = []
    for i in range(model.n):
        others = [j for j in range(model.n) if j != i]
        for k in range(model.n):
            for K in itertools.combinations(others, k):
                for xk in itertools.product(range(3), repeat=k):
                    for x, xp in itertools.combinations(range(3), 2):
                        try:
                            pair = eng.output_pair(Adversary(i, K, xk, x, xp))
                        except NotAvailable:
                            continue
                        rows += [pair, pair.swapped()]
    r = attack_risk(model, mech, fpr=fprs, bdpl=True)
    assert r._state.passes == 1  # the first search answered every FPR
    for a in fprs:
        brute = float(tpr_rows(rows, np.full(len(rows), a))[0].max())
        w = r.worst_tpr(a)
        assert w.certified and w.upper >= w.value
        assert w.value == pytest.approx(brute, abs=1e-12)
        assert directed_tpr(model, mech, w.adversary, a)[0] == pytest.approx(w.value, abs=1e-12)
    found = eng.profiles([0.0], 0, 1, True)
    assert r.advantage == found.value[0] and r.bdpl_max == found.value[1]


# ------------------------------------------------------------------ the pure-eps bound


@pytest.mark.parametrize("name", list(MODELS))
def test_curve_never_below_pure_eps_curve(name):
    """``beta(alpha) >= f_BDPL(alpha)`` and ``advantage <= tanh(BDPL/2)`` for the adversary's exact BDPL."""
    model = MODELS[name]()
    mech = LaplaceCount(0.7, counted_states=(1,))
    rng = np.random.default_rng(11)
    alphas = np.array([1e-4, 1e-3, 1e-2, 0.05, 0.2, 0.5, 0.8, 0.99])
    for _ in range(5):
        i = int(rng.integers(model.n))
        others = [j for j in range(model.n) if j != i]
        K = tuple(sorted(rng.choice(others, size=int(rng.integers(0, model.n)), replace=False).tolist()))
        adv = Adversary(i, K, tuple(int(v) for v in rng.integers(0, 2, len(K))), 0, 1)
        r = attack_risk(model, mech, adv)
        e = adversary_bdpl(model, mech, adv).value
        assert r.adversary_bdpl == pytest.approx(e)
        assert r.advantage <= math.tanh(e / 2) + 1e-12
        assert np.all(r.beta(alphas) >= pure_dp_tradeoff(e).beta(alphas) - 1e-12)


def test_pure_eps_curve_closed_form():
    c = pure_dp_tradeoff(2.0)
    a = np.array([0.01, 0.1, 0.3, 0.9])
    f = np.maximum.reduce([np.zeros(4), 1 - math.exp(2) * a, math.exp(-2) * (1 - a)])
    assert c.beta(a) == pytest.approx(f, abs=1e-15)
    assert np.array([c._tpr_one(v) for v in a]) == pytest.approx(1 - f, abs=1e-12)  # the search agrees


def test_discrete_tradeoff_matches_randomised_np():
    """Finite outcomes: the curve is piecewise linear between the sorted likelihood-ratio vertices."""
    P, Q = np.array([0.5, 0.3, 0.2]), np.array([0.1, 0.3, 0.6])
    c = discrete_tradeoff(P, Q)
    assert c.tpr_at(0.05) == pytest.approx(0.25, abs=1e-12)  # half the first outcome (LR 5)
    assert c.tpr_at(0.25) == pytest.approx(0.5 + 0.15, abs=1e-12)  # then the LR-1 outcome
    assert c.advantage == pytest.approx(0.4, abs=1e-15)


# ------------------------------------------------------------------ a simulated attack


def clopper_pearson(k: int, n: int, conf: float) -> tuple[float, float]:
    a = 1 - conf
    lo = 0.0 if k == 0 else beta_law.ppf(a / 2, k, n - k + 1)
    hi = 1.0 if k == n else beta_law.ppf(1 - a / 2, k + 1, n - k)
    return float(lo), float(hi)


def simulate(model, mech, adv, laws, thresholds, size, rng):
    """Sample the data given the adversary's knowledge and each target value, run the mechanism,
    apply the exact likelihood-ratio test ``p(y)/q(y) > t``: the hit counts per threshold."""

    def logdens(atoms, w, y):
        z = mech.noise.log_density(y[:, None] - atoms[None, :]) + np.log(np.maximum(w, 1e-300))[None, :]
        return np.logaddexp.reduce(z, axis=1)

    hits = {}
    for v in (adv.x, adv.x_prime):
        data = model.sample_conditional(adv.condition(v), size, rng)
        y = mech(data, rng)
        llr = logdens(laws.atoms, laws.w1, y) - logdens(laws.atoms, laws.w2, y)
        hits[v] = [int(np.sum(llr > math.log(t))) for t in thresholds]
    return hits


def contains(curve, fpr_ci, tpr_ci) -> bool:
    """Some point of the (increasing) curve lies in the box ``fpr_ci x tpr_ci``."""
    lo, hi = fpr_ci
    t_lo = curve.tpr_at(min(max(lo, 1e-12), 1 - 1e-12))
    t_hi = curve.tpr_at(min(max(hi, 1e-12), 1 - 1e-12))
    return t_lo <= tpr_ci[1] and t_hi >= tpr_ci[0]


@pytest.mark.parametrize("name", list(MODELS))
def test_simulated_attack_clopper_pearson(name):
    """The simulated likelihood-ratio attack's (FPR, TPR) intervals (Clopper-Pearson, 99.99 %
    each) contain the computed curve; a curve off by 0.05 in TPR is refused (the check can fail)."""
    model = MODELS[name]() if name != "chain" else chain(8)
    mech = LaplaceCount(1.0, counted_states=(1,))
    adv = Adversary(1, (0, 3), (1, 0), 1, 0)
    laws = output_laws(model, mech, adv)
    curve = pair_tradeoff(laws)
    rng = np.random.default_rng(2026)
    size = 40_000
    thresholds = [0.5, 1.0, 1.7, 3.0]
    hits = simulate(model, mech, adv, laws, thresholds, size, rng)
    off = pure_dp_tradeoff(0.0)  # TPR = FPR: the useless test
    refused = 0
    for j, _ in enumerate(thresholds):
        fpr_ci = clopper_pearson(hits[adv.x_prime][j], size, 0.9999)
        tpr_ci = clopper_pearson(hits[adv.x][j], size, 0.9999)
        assert contains(curve, fpr_ci, tpr_ci), (thresholds[j], fpr_ci, tpr_ci)
        refused += not contains(off, fpr_ci, tpr_ci)
    assert refused >= 1
    assert curve.advantage > 0.05


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_fpr_outside_unit_interval(bad):
    r = attack_risk(chain(4), LaplaceCount(1.0, counted_states=(1,)), Adversary(0, (), (), 1, 0))
    with pytest.raises(ConfigError, match=r"^fpr = .*: must be in the open interval \(0, 1\)$"):
        r.tpr_at(bad)
    with pytest.raises(ConfigError, match=r"^alpha = "):
        r.beta(bad)


def test_no_exact_law_names_the_way_out():
    m = GaussianModel(np.zeros(3), np.eye(3))
    with pytest.raises(NotAvailable, match="Monte Carlo budget"):
        attack_risk(m, ClippedSum(1.0, clip=(0.0, 1.0)), Adversary(0, (), (), 1.0, 0.0))


def test_worst_tpr_at_paper_scale_is_bracketed():
    """The activity chain at n = 48: the worst TPR@0.1 is attained and certified (or bracketed)."""
    from bdpsim.kernels.chains.transition import ACTIVITY

    m = MarkovChainModel(np.array(ACTIVITY), 48)
    mech = LaplaceCount(1.0, counted_states=(1,))
    r = attack_risk(m, mech)
    w = r.worst_tpr(0.1)
    assert w.value <= w.upper + 1e-12
    assert directed_tpr(m, mech, w.adversary, 0.1)[0] == pytest.approx(w.value, abs=1e-12)
    assert r.advantage <= math.tanh(r.adversary_bdpl / 2)


def test_worst_advantage_is_the_engine_profile_at_zero():
    """The worst advantage (the one profile search of the attack, through the engine) equals the
    engine's two-sided profile at eps = 0 over every adversary, for every noise law and on a
    network; its adversary's own curve attains it."""
    from bdpsim.estimators import engine_for

    for model, mech in (
        (chain(30), LaplaceCount(1.0, counted_states=(1,))),
        (chain(30), NoisyQueryMechanism(CountQuery((1,)), GeometricNoise(0.7))),
        (chain(30), NoisyQueryMechanism(CountQuery((1,)), GaussianNoise(1.5))),
        (network(), LaplaceCount(1.0, counted_states=(1,))),
    ):
        w = worst_advantage(model, mech)
        assert w.value == pytest.approx(engine_for(model, mech).profile_window(0, 0.0, 1)[0].bdpl, abs=1e-12)
        assert pair_tradeoff(output_laws(model, mech, w.adversary)).advantage == pytest.approx(
            w.value, abs=1e-12
        )


def test_staircase_curve_against_exact_piecewise_constant_integration():
    """Staircase noise (piecewise-constant density, jumps at (k + gamma) Delta and k Delta): for a
    mixture pair on the integers, ``H(t)`` summed exactly over the intervals between the jumps of
    both densities equals the curve's; advantage and TPR@FPR to 1e-9."""
    from bdpsim.kernels.noise.laws import StaircaseNoise

    noise = StaircaseNoise(1.0)
    atoms = np.arange(4.0)
    wp, wq = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.4, 0.3, 0.2, 0.1])
    g = noise.g
    edges = np.unique(np.concatenate([np.arange(-80, 84) + a for a in (0.0, g, -g, 1 - g, g - 1)]))
    mid, width = (edges[1:] + edges[:-1]) / 2, np.diff(edges)

    def dens(w):
        return np.exp(noise.log_density(mid[:, None] - atoms[None, :])) @ w

    P, Q = dens(wp), dens(wq)
    assert np.sum(P * width) == pytest.approx(1.0, abs=1e-12)

    def H(t):
        return float(np.sum(np.maximum(P - t * Q, 0.0) * width))

    c = mixture_tradeoff(noise, atoms, wp, atoms, wq)
    assert c.advantage == pytest.approx(H(1.0), abs=1e-9)
    for a in (1e-3, 1e-2, 0.1, 0.5):
        v, t = c.tpr_threshold(a)
        assert v == pytest.approx(t * a + H(t), abs=1e-9)
        assert v <= min(s * a + H(s) for s in np.exp(np.linspace(-4, 4, 401))) + 1e-9


# ------------------------------------------------------------------ randomized response


def _rr_brute_force(model, flip, alphas):
    """Every adversary of randomized response on a binary chain, from the joint law of the data
    tuple and the flipped count (every tuple enumerated): the largest advantage and TPR at each
    alpha over every adversary and both orders."""
    from bdpsim.mechanisms.randomized_response.direct import flipped_count_laws

    n = model.n
    X, p = joint_table(model)
    joint = p[:, None] * flipped_count_laws(n, flip)[X.sum(axis=1)]
    best_tv, best_tpr = 0.0, dict.fromkeys(alphas, 0.0)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for k in range(n):
            for K in itertools.combinations(others, k):
                for xk in itertools.product(range(2), repeat=k):
                    keep = (
                        np.all(X[:, list(K)] == np.array(xk, dtype=int), axis=1)
                        if K
                        else np.ones(len(X), bool)
                    )
                    laws = [joint[keep & (X[:, i] == v)].sum(axis=0) for v in (0, 1)]
                    if min(w.sum() for w in laws) <= 0:
                        continue
                    P, Q = (w / w.sum() for w in laws)
                    best_tv = max(best_tv, 0.5 * float(np.abs(P - Q).sum()))
                    for a in alphas:
                        best_tpr[a] = max(
                            best_tpr[a], discrete_tradeoff(P, Q).tpr_at(a), discrete_tradeoff(Q, P).tpr_at(a)
                        )
    return best_tv, best_tpr


@pytest.mark.parametrize(
    "P", [((0.8, 0.2), (0.3, 0.7)), ((0.7, 0.3), (1.0, 0.0))], ids=["positive", "with-zeros"]
)
def test_randomized_response_attack_equals_brute_force_over_every_output(P):
    """Randomized response (the flipped count on 0..n, every output): its exact output laws and the
    worst advantage and TPR over every adversary (window cells, or the brute force of a chain with
    zeros) equal the maximum over every adversary of the joint enumeration, to 1e-12."""
    from bdpsim.mechanisms import RandomizedResponse

    model, mech = chain(5, P), RandomizedResponse(0.2)
    alphas = (0.01, 0.1)
    tv, tpr = _rr_brute_force(model, 0.2, alphas)
    risk = attack_risk(model, mech, fpr=alphas, bdpl=True)
    assert risk.advantage == pytest.approx(tv, abs=1e-12)
    for a, w in zip(alphas, risk.worst_tprs(alphas)):
        assert w.value == pytest.approx(tpr[a], abs=1e-12) and w.upper >= w.value
    pair = output_laws(model, mech, risk.adversary)
    assert pair_tradeoff(pair).advantage == pytest.approx(tv, abs=1e-12)
    from bdpsim.mechanisms import randomized_response_bdpl

    assert risk.bdpl_max == pytest.approx(randomized_response_bdpl(model, 0.2).bdpl, abs=1e-12)


def test_randomized_response_search_too_large_is_refused_up_front():
    from bdpsim.mechanisms import RandomizedResponse
    from bdpsim.models.engines import SearchTooLarge

    with pytest.raises(SearchTooLarge, match="model.n|records"):
        attack_risk(chain(400), RandomizedResponse(0.2))


def test_gaussian_records_worst_needs_bounded_targets():
    """Gaussian records with Gaussian noise: one adversary is mu-GDP through the engine; the worst
    over every adversary is refused with the reason (the real targets are unbounded)."""
    m = GaussianModel(np.zeros(3), np.eye(3))
    mech = NoisyQueryMechanism(SumQuery(), GaussianNoise(1.0), kind="sum")
    with pytest.raises(NotAvailable, match="unbounded"):
        attack_risk(m, mech)


def test_names_of_the_two_bdpls():
    """``adversary_bdpl`` is the max-advantage adversary's own BDPL, ``bdpl_max`` the BDPL over
    every adversary (asked with ``bdpl``), the larger of the two."""
    m, mech = chain(8), LaplaceCount(1.0, counted_states=(1,))
    from bdpsim import exact_bdpl

    r = attack_risk(m, mech, bdpl=True)
    assert r.bdpl_max == pytest.approx(exact_bdpl(m, mech).bdpl, abs=1e-12)
    assert r.adversary_bdpl == pytest.approx(adversary_bdpl(m, mech, r.adversary).value, abs=1e-12)
    assert r.adversary_bdpl <= r.bdpl_max + 1e-12 and not hasattr(r, "bdpl")
    assert attack_risk(m, mech).bdpl_max is None


def test_pure_eps_curve_past_the_floating_range():
    """The pure eps curve at eps = 800 (e^eps overflows a float) in log space: TPR 1 at any FPR a
    float holds above e^-800 = 0; below eps = 700 the same numbers as the direct formula."""
    from bdpsim.attack.tradeoff import pure_dp_tpr, pure_dp_tradeoff

    for eps in (800.0, 1e308):
        c = pure_dp_tradeoff(eps)
        assert np.array_equal(c.tpr_at(np.array([1e-300, 1e-3, 0.5])), np.ones(3))
        assert c.advantage == pytest.approx(1.0) and pure_dp_tpr(eps, 1e-300) == 1.0
    assert pure_dp_tpr(705.0, 1e-310) == pytest.approx(math.exp(705.0 + math.log(1e-310)), rel=1e-12)
    a = np.array([1e-4, 1e-3, 0.3])
    k = math.exp(3.0)
    assert np.array_equal(
        pure_dp_tradeoff(3.0).tpr_at(a), np.minimum.reduce([np.ones(3), k * a, 1 - (1 - a) / k])
    )
    assert pure_dp_tpr(3.0, 1e-3) == min(1.0, k * 1e-3) and pure_dp_tpr(math.inf, 1e-3) == 1.0


def test_attack_risk_of_the_two_state_laplace_histogram():
    """The histogram of a two-state chain is attacked through the accountant's box brackets: the
    worst advantage over every adversary is the largest total variation of the histogram's own
    output densities over R^2 (plane integrals, every adversary of a 3-record chain) to the
    brackets' width; one adversary's advantage is its own; the worst TPR is a bracket
    ``[attained, bound for every adversary]`` under the pure-DP curve of the BDPL; the result says
    it is a certified bracket."""
    import bdpsim

    from ..accounting.test_account import HIST_CHAIN

    mech = bdpsim.HistogramMechanism(1.0, 2)
    tv = _histogram_tvs(mech)
    risk = bdpsim.attack_risk(HIST_CHAIN, mech, fpr=(0.05,), bdpl=True)
    assert (risk.kind, risk.confidence) == ("certified bracket", None)
    assert risk.advantage == pytest.approx(max(tv.values()), abs=1e-6)
    assert tv[risk.adversary] == pytest.approx(max(tv.values()), abs=1e-6)
    assert risk.bdpl_max == pytest.approx(bdpsim.exact_bdpl(HIST_CHAIN, mech).bdpl, abs=1e-12)
    w = risk.worst_tpr(0.05)
    assert w.value <= w.upper <= min(1.0, math.exp(risk.bdpl_max) * 0.05) + 1e-9
    one = bdpsim.attack_risk(HIST_CHAIN, mech, adversary=risk.adversary)
    assert one.advantage == pytest.approx(tv[risk.adversary], abs=1e-6)
    assert 0.05 < one.tpr_at(0.05) <= w.value + 1e-6


def _histogram_tvs(mech) -> dict:
    """The total variation of the two-state histogram's own output densities over R^2 (plane
    integrals) of every adversary of the 3-record chain ``HIST_CHAIN``."""
    from ..accounting.test_account import HIST_CHAIN, every_histogram_adversary, histogram_pair
    from ..helpers import laplace_plane_hockey

    tv = {}
    for i in range(HIST_CHAIN.n):
        for adv in every_histogram_adversary(i):
            atoms, p, q = histogram_pair(HIST_CHAIN, adv)
            tv[adv] = laplace_plane_hockey(atoms, p, q, mech.noise_scale, 0.0)
    return tv


def test_attack_risk_of_the_three_state_laplace_histogram_for_one_adversary(monkeypatch):
    """Three states, one adversary: the advantage is the total variation of the histogram's own
    output densities over R^3 (space integral asked to 1e-5, plus 1e-6 for its inner quadratures)
    to the half-width of the accountant's box bracket (a small work budget: wider, still
    certified); the TPR at FPR 0.05 is under ``t alpha + delta_t`` at ``t = e`` (the accountant's
    upper end) and over the FPR; the adversary's BDPL is exact_bdpl's."""
    import bdpsim
    import bdpsim.kernels.privacy.boxes as boxes

    from ..accounting.test_account import THREE_STATES, histogram3_pair
    from ..helpers import laplace_space_hockey

    monkeypatch.setattr(boxes, "MAX_WORK", 3e5)
    model = MarkovChainModel(THREE_STATES, n=2)
    mech = bdpsim.HistogramMechanism(1.0, 3)
    adv = Adversary(0, (), (), 0, 2)
    atoms, p, q = histogram3_pair(model, adv)
    keep = (p > 0) | (q > 0)
    tv, err = laplace_space_hockey(atoms[keep], p[keep], q[keep], mech.noise_scale, 0.0, tol=1e-5)
    risk = bdpsim.attack_risk(model, mech, adversary=adv)
    acc = bdpsim.account(model, [mech], adversary=adv)
    half = 0.5 * acc.advantage.width
    assert risk.advantage == pytest.approx(tv, abs=half + err + 1e-6)
    assert half <= 1e-3 and "R^3" in risk.curve.label
    assert 0.05 < risk.tpr_at(0.05) <= math.e * 0.05 + acc.pair(adv).hockey(1.0, True)[1] + 1e-12
    assert risk.adversary_bdpl == pytest.approx(bdpsim.exact_bdpl(model, mech, adversary=adv).bdpl, abs=1e-12)


def test_attack_risk_of_the_three_state_laplace_histogram_over_every_adversary(monkeypatch):
    """Three states over every adversary (the accountant's box search, a small work budget: wider
    brackets, still certified): the advantage is the middle of the bracket over every adversary,
    which starts at the best of the window adversaries' own lower ends; the worst TPR at each FPR
    is a bracket ``[attained, bound for every adversary]`` below the pure-DP curve of the BDPL; at
    FPR 0.05 the attained one is the named adversary's own TPR (its curve, to the brackets' width)
    and the bound is above the own TPR of the adversary of the second largest advantage (both
    orders)."""
    import bdpsim
    import bdpsim.kernels.privacy.boxes as boxes

    from ..accounting.test_account import THREE_STATES, one_adversary_brackets, window_adversaries

    monkeypatch.setattr(boxes, "MAX_WORK", 2e5)
    model = MarkovChainModel(THREE_STATES, n=3)
    mech = bdpsim.HistogramMechanism(1.0, 3)
    fprs = (0.01, 0.05)
    risk = bdpsim.attack_risk(model, mech, fpr=fprs, bdpl=True)
    acc = bdpsim.account(model, [mech])
    every = acc.advantage
    assert risk.advantage == every.value and risk.adversary == every.adversary
    each = one_adversary_brackets(model, mech, 0.0, window_adversaries(model))
    assert every.lower >= max(v.lower for v in each.values())
    assert risk.bdpl_max == pytest.approx(bdpsim.exact_bdpl(model, mech).bdpl, abs=1e-12)
    for f, w in zip(fprs, risk.worst_tprs(fprs)):
        assert f < w.value <= w.upper <= min(1.0, math.exp(risk.bdpl_max) * f) + 1e-12
    w = risk.worst_tpr(0.05)
    own = bdpsim.attack_risk(model, mech, adversary=w.adversary).tpr_at(0.05)
    assert own == pytest.approx(w.value, abs=every.width)
    second = sorted(each, key=lambda a: -each[a].upper)[1]
    for a in (second, Adversary(second.i, second.known, second.x_known, second.x_prime, second.x)):
        assert bdpsim.attack_risk(model, mech, adversary=a).tpr_at(0.05) <= w.upper + every.width
    # the account's tpr_at is the same search (it was a golden search on fine brackets: 117 s)
    t = acc.tpr_at(0.05)
    assert (t.lower, t.upper, t.adversary) == (w.value, w.upper, w.adversary)


def test_attack_risk_of_the_laplace_histogram_beyond_the_box_brackets_is_monte_carlo(monkeypatch):
    """Past the box brackets (here forced: ATTACK_MAX_N = 1) the attack is the accountant's Monte
    Carlo, and says so (kind, confidence, never certified): over every adversary of the two-state
    histogram the advantage's 95 % interval holds the largest total variation of the plane
    integrals; the TPR's interval meets the certified bracket of the box search and lies under the
    pure-eps curve of the exact BDPL over every adversary (``bdpl_max``, the exact engine's); the
    adversary's curve, estimated from its own 200 000 draws, gives its own total variation within
    six standard deviations of a mean of values in [0, 1] (6 * 0.5 / sqrt(200 000))."""
    import bdpsim
    import bdpsim.accounting.boxes as boxes
    from bdpsim.attack.tradeoff import pure_dp_tpr

    from ..accounting.test_account import HIST_CHAIN

    mech = bdpsim.HistogramMechanism(1.0, 2)
    tv = _histogram_tvs(mech)
    certified = bdpsim.attack_risk(HIST_CHAIN, mech, fpr=(0.05,)).worst_tpr(0.05)
    monkeypatch.setattr(boxes, "ATTACK_MAX_N", 1)
    risk = bdpsim.attack_risk(HIST_CHAIN, mech, fpr=(0.05,), bdpl=True)
    assert (risk.kind, risk.confidence, risk.worst) == ("Monte Carlo", 0.95, True)
    adv = risk.worst_advantage
    assert adv.lower <= max(tv.values()) <= adv.upper and not adv.certified
    assert adv.lower < adv.value == risk.advantage < adv.upper <= math.tanh(risk.bdpl_max / 2)
    assert risk.bdpl_max == pytest.approx(bdpsim.exact_bdpl(HIST_CHAIN, mech).bdpl, abs=1e-15)
    assert risk.adversary_bdpl == bdpsim.exact_bdpl(HIST_CHAIN, mech, risk.adversary).bdpl
    w = risk.worst_tpr(0.05)
    assert w.lower <= certified.upper and certified.value <= w.upper and not w.certified
    assert 0.05 < w.lower <= w.value <= w.upper <= pure_dp_tpr(risk.bdpl_max, 0.05)
    assert risk.tpr_at(0.05) == w.value and risk.beta(0.05) == 1.0 - w.value
    assert risk.curve.advantage == pytest.approx(tv[risk.adversary], abs=6 * 0.5 / math.sqrt(200_000))
    low, high = risk.bound_curve([0.05, 0.2])
    assert low[0] == w.lower and high[0] == w.upper and np.all(low <= high)


def test_attack_risk_of_the_histogram_of_four_states_for_one_adversary_is_monte_carlo():
    """Four states (no box brackets): one adversary's attack is Monte Carlo from its own draws, an
    interval under the pure-eps values of its exact BDPL (``tanh(eps / 2)``, ``e^eps alpha``); an
    adversary whose known records fix the query vector has certified laws (the accountant's
    product of Laplace pairs): its advantage a certified bracket, both ends kept."""
    import bdpsim

    model = MarkovChainModel(np.full((4, 4), 0.25), n=3)
    mech = bdpsim.HistogramMechanism(1.0, 4)
    adv = Adversary(1, (0,), (0,), 0, 1)
    risk = bdpsim.attack_risk(model, mech, adversary=adv, fpr=(0.1,))
    assert (risk.kind, risk.confidence, risk.worst) == ("Monte Carlo", 0.95, False)
    own = bdpsim.exact_bdpl(model, mech, adv).bdpl
    assert risk.adversary_bdpl == own and risk.adversary == adv
    a = risk.worst_advantage
    assert 0 < a.lower <= a.value <= a.upper <= math.tanh(own / 2)
    (w,) = risk.worst_tprs([0.1])
    assert 0.1 < w.lower <= w.value <= w.upper <= min(1.0, math.exp(own) * 0.1) and w.adversary == adv
    fixed = bdpsim.attack_risk(model, mech, adversary=Adversary(1, (0, 2), (0, 1), 0, 1))
    b = fixed.worst_advantage  # a certified bracket inside a Monte Carlo result, its upper end kept
    assert fixed.kind == "Monte Carlo" and b.confidence is None and b.value < b.upper
    assert b.value <= fixed.advantage <= b.upper <= math.tanh(fixed.adversary_bdpl / 2)


def test_a_certified_bracket_inside_a_monte_carlo_attack_keeps_its_upper_end(monkeypatch):
    """Independent records, the histogram forced past its box brackets: the worst adversary knows
    every other record, so the accountant brackets its advantage (a product of Laplace pairs) —
    the result keeps both ends (it reported the lower end as a certified value, below the truth),
    holding the box search's certified value; the Bayes success at 1/2 is (1 + advantage) / 2 (it
    was the curve's, another number); the TPRs are the Monte Carlo intervals and say so."""
    import bdpsim
    import bdpsim.accounting.boxes as boxes

    iid = MarkovChainModel([[0.5, 0.5], [0.5, 0.5]], n=3)
    mech = bdpsim.HistogramMechanism(1.0, 2)
    box = bdpsim.attack_risk(iid, mech).worst_advantage
    monkeypatch.setattr(boxes, "ATTACK_MAX_N", 1)
    risk = bdpsim.attack_risk(iid, mech, fpr=(0.05,))
    b = risk.worst_advantage
    assert risk.kind == "Monte Carlo" and b.confidence is None and not b.certified
    assert b.value <= box.value <= box.upper <= b.upper and b.value <= risk.advantage <= b.upper
    assert risk.bayes_success(0.5) == (1 + risk.advantage) / 2
    assert risk.worst_tpr(0.05).confidence == 0.95


def test_past_the_exact_search_the_monte_carlo_attack_caps_by_the_accountant_s_bdpl(monkeypatch):
    """Past the histogram's exact search (here forced: EXHAUSTIVE_MAX_N two states = 2; it is 100)
    the Monte Carlo attack caps its intervals by the upper end of the accountant's certified BDPL
    bracket and says so (``bdpl_kind``; it was refused naming the exhaustive search)."""
    import bdpsim
    import bdpsim.accounting.boxes as boxes
    import bdpsim.mechanisms.histogram as hist

    from ..accounting.test_account import HIST_CHAIN

    mech = bdpsim.HistogramMechanism(1.0, 2)
    exact = bdpsim.exact_bdpl(HIST_CHAIN, mech).bdpl
    monkeypatch.setattr(boxes, "ATTACK_MAX_N", 1)
    monkeypatch.setitem(hist.EXHAUSTIVE_MAX_N, 2, 2)
    risk = bdpsim.attack_risk(HIST_CHAIN, mech, fpr=(0.05,), bdpl=True)
    assert (risk.kind, risk.bdpl_kind) == ("Monte Carlo", "certified bracket")
    assert risk.bdpl_max >= exact and risk.worst_advantage.upper <= math.tanh(risk.bdpl_max / 2)


def test_a_too_long_monte_carlo_attack_is_refused_up_front_with_its_cost(monkeypatch):
    """The Monte Carlo attack of the histogram of three states over every adversary costs several
    window sweeps: estimated before any work (ATTACK_SWEEPS times the accountant's estimate of one
    delta(eps)) and refused above MAX_ATTACK_SECONDS in one line naming the release, the records,
    the time and what to do (here the limit lowered to 1 s; CPU of the refusal well under a second)."""
    import time

    import bdpsim
    import bdpsim.attack.worst as W

    monkeypatch.setattr(W, "MAX_ATTACK_SECONDS", 1.0)
    model = MarkovChainModel([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]], n=9)
    t = time.process_time()
    with pytest.raises(
        NotAvailable, match=r"^release 'histogram \+ laplace.*n = 9 records \(3 states\)"
    ) as err:
        bdpsim.attack_risk(model, bdpsim.HistogramMechanism(1.0, 3))
    assert time.process_time() - t < 1.0 and "\n" not in str(err.value) and "adversary=" in str(err.value)
