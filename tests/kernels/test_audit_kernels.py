"""Black-box audit kernels (bdpsim.kernels.audit.certificates): Clopper–Pearson, validity by simulation,
errors."""

import math

import numpy as np
import pytest
from scipy import stats

from bdpsim.core.errors import ConfigError
from bdpsim.kernels.audit.certificates import (
    audit_adversary,
    audit_configuration,
    certified_log_ratio,
    certify_top,
    clopper_pearson_lower,
    clopper_pearson_upper,
    plan_certification,
    point_estimate,
    predicted_bound,
)
from bdpsim.kernels.audit.events import Event, check_outputs, output_kind, select_event
from bdpsim.kernels.noise.laplace_mixture import mixture_sup
from bdpsim.kernels.noise.laws import GeometricNoise, LaplaceNoise

ALPHA = 0.05
REPEATS = 200


def _max_exceedances(repeats, rate, level=1e-3):
    """One-sided binomial bound: if each repeat exceeds with probability <= rate, more than this
    many exceedances happen with probability < level."""
    return int(stats.binom.ppf(1 - level, repeats, rate))


# ----------------------------------------------------------------------------- Clopper–Pearson


def test_clopper_pearson_matches_scipy_exact_interval():
    for n in (1, 7, 50, 1000):
        for k in sorted({0, 1, n // 3, n - 1, n}):
            for a in (0.025, 0.05, 1e-3):
                lo = stats.binomtest(k, n, alternative="greater").proportion_ci(1 - a, method="exact").low
                hi = stats.binomtest(k, n, alternative="less").proportion_ci(1 - a, method="exact").high
                # scipy finds the interval by root-finding (relative tolerance ~1e-10 here) ...
                p_lo, q_hi = clopper_pearson_lower(k, n, a), clopper_pearson_upper(k, n, a)
                assert p_lo == pytest.approx(lo, rel=1e-8, abs=1e-15)
                assert q_hi == pytest.approx(hi, rel=1e-8, abs=1e-15)
                # ... the beta quantiles solve the defining equations to rounding
                if k > 0:
                    assert stats.binom.sf(k - 1, n, p_lo) == pytest.approx(a, rel=1e-9)
                if k < n:
                    assert stats.binom.cdf(k, n, q_hi) == pytest.approx(a, rel=1e-9)
    assert clopper_pearson_lower(0, 10, 0.05) == 0.0 and clopper_pearson_upper(10, 10, 0.05) == 1.0
    # edge cases in closed form: k = n lower bound a^(1/n); k = 0 upper bound 1 - a^(1/n)
    assert clopper_pearson_lower(10, 10, 0.05) == pytest.approx(0.05**0.1, rel=1e-12)
    assert clopper_pearson_upper(0, 10, 0.05) == pytest.approx(1 - 0.05**0.1, rel=1e-12)
    # vectorised
    v = clopper_pearson_lower(np.array([0, 5, 10]), np.array([10, 10, 10]), 0.05)
    assert v.shape == (3,) and v[0] == 0.0 and 0 < v[1] < 0.5 < v[2] < 1


def test_certified_log_ratio_and_prediction():
    k1, n1, k2, n2 = 300, 1000, 100, 1000
    ref = math.log(clopper_pearson_lower(k1, n1, 0.025) / clopper_pearson_upper(k2, n2, 0.025))
    assert certified_log_ratio(k1, n1, k2, n2, 0.05) == pytest.approx(ref)
    assert certified_log_ratio(100, 1000, 300, 1000, 0.05) == 0.0  # never negative
    assert certified_log_ratio(0, 1000, 0, 1000, 0.05) == 0.0
    assert predicted_bound(0.3, 0.1, 1000, 0.05) == pytest.approx(ref)
    assert predicted_bound(0.3, 0.1, 10**7, 0.05) == pytest.approx(math.log(3), abs=0.01)
    est, se, corr = point_estimate(k1, n1, k2, n2)
    assert est == pytest.approx(math.log(3)) and se == pytest.approx(math.sqrt(0.7 / 300 + 0.9 / 100))
    assert not corr and point_estimate(5, 100, 0, 100)[2]


# ----------------------------------------------------------------------------- cases with exact values


def _lattice_sampler(atoms, w, noise):
    cw = np.cumsum(w) / np.sum(w)

    def draw(m, rng):
        return atoms[np.minimum(np.searchsorted(cw, rng.random(m)), atoms.size - 1)] + noise.sample(m, rng)

    return draw


def _shifted_pair(J=6, p1=0.45, p2=0.3):
    """``1 + Bin(J-1, p1)`` vs ``Bin(J-1, p2)``: a target that adds one and shifts the others."""
    k = np.arange(J)
    return k + 1.0, stats.binom.pmf(k, J - 1, p1), k * 1.0, stats.binom.pmf(k, J - 1, p2)


def _event_prob(event, atoms, w, noise):
    """Exact ``P(Y in S)`` for ``Y = C + noise`` (closed interval ``[lo, hi]`` of a scalar output)."""
    w = w / w.sum()
    if noise.discrete:  # P(lo <= C + step K <= hi) on the lattice
        hi = noise.cdf(event.hi - atoms)
        lo = noise.cdf(event.lo - atoms - noise.step / 2) if np.isfinite(event.lo) else 0.0
        return float(w @ (hi - lo))
    return float(w @ (noise.cdf(event.hi - atoms) - noise.cdf(event.lo - atoms)))


def _coverage(draw_x, draw_xp, exact, event_ratio, budget, seed, kind="auto"):
    rng = np.random.default_rng(seed)
    over_bdpl = over_event = within = 0
    for _ in range(REPEATS):
        r = audit_adversary(draw_x, draw_xp, budget, ALPHA, rng, kind=kind)
        target = event_ratio(r.selection.event)
        over_bdpl += r.lower > exact + 1e-12
        over_event += r.lower > target + 1e-12
        within += abs(r.estimate - target) <= 2 * r.se
        assert target <= exact + 1e-9  # an event's ratio never exceeds the BDPL
    return over_bdpl, over_event, within


def test_coverage_laplace_mixtures():
    a1, w1, a2, w2 = _shifted_pair()
    lap = LaplaceNoise(1.0)
    exact = mixture_sup(a1, w1, a2, w2, 1.0).value

    def ratio(ev):
        p, q = _event_prob(ev, a1, w1, lap), _event_prob(ev, a2, w2, lap)
        return math.log(p / q) if ev.direction > 0 else math.log(q / p)

    ob, oe, within = _coverage(
        _lattice_sampler(a1, w1, lap), _lattice_sampler(a2, w2, lap), exact, ratio, budget=20_000, seed=31
    )
    assert ob <= _max_exceedances(REPEATS, ALPHA) and oe <= _max_exceedances(REPEATS, ALPHA)
    assert within >= 0.9 * REPEATS


def test_coverage_geometric_noise():
    a1, w1, a2, w2 = _shifted_pair(J=5, p1=0.5, p2=0.25)
    geo = GeometricNoise(0.9)
    exact = geo.sup_log_ratio(a1, w1, a2, w2).value

    def ratio(ev):
        p, q = _event_prob(ev, a1, w1, geo), _event_prob(ev, a2, w2, geo)
        return math.log(p / q) if ev.direction > 0 else math.log(q / p)

    ob, oe, within = _coverage(
        _lattice_sampler(a1, w1, geo), _lattice_sampler(a2, w2, geo), exact, ratio, budget=20_000, seed=32
    )
    assert ob <= _max_exceedances(REPEATS, ALPHA) and oe <= _max_exceedances(REPEATS, ALPHA)
    assert within >= 0.9 * REPEATS


def test_coverage_randomized_response():
    rho = 0.2
    exact = math.log((1 - rho) / rho)

    def rr(x):
        return lambda m, rng: np.where(rng.random(m) < rho, 1 - x, x).astype(float)

    def ratio(ev):
        p1 = (1 - rho) * (ev.lo <= 1 <= ev.hi) + rho * (ev.lo <= 0 <= ev.hi)  # target x = 1
        p0 = rho * (ev.lo <= 1 <= ev.hi) + (1 - rho) * (ev.lo <= 0 <= ev.hi)  # target x' = 0
        return math.log(p1 / p0) if ev.direction > 0 else math.log(p0 / p1)

    ob, oe, within = _coverage(rr(1), rr(0), exact, ratio, budget=2_000, seed=33)
    assert ob <= _max_exceedances(REPEATS, ALPHA) and oe <= _max_exceedances(REPEATS, ALPHA)
    assert within >= 0.9 * REPEATS
    # with a larger budget the bound approaches ln 4 from below (CP half-width at 10^5 calls ~ 0.05)
    r = audit_adversary(rr(1), rr(0), 100_000, ALPHA, np.random.default_rng(34))
    assert exact - 0.1 < r.lower <= exact and r.selection.kind == "discrete"


def test_bound_grows_with_budget_towards_the_tail_supremum():
    """The sup of this pair is in the upper tail: threshold events reach it."""
    a1, w1, a2, w2 = _shifted_pair()
    lap = LaplaceNoise(1.0)
    exact = mixture_sup(a1, w1, a2, w2, 1.0).value
    dx, dxp = _lattice_sampler(a1, w1, lap), _lattice_sampler(a2, w2, lap)
    rng = np.random.default_rng(35)
    lows = [audit_adversary(dx, dxp, b, ALPHA, rng, tol=0.0).lower for b in (10**4, 10**5, 10**6)]
    assert lows[0] < lows[2] <= exact and lows[2] > exact - 0.25
    r = audit_adversary(dx, dxp, 10**6, ALPHA, rng)
    assert r.budget_used <= 10**6 and r.selection.event.hi == math.inf


def test_vector_outputs_histogram():
    """Histogram of 3 cells with Laplace noise per cell; x puts the target in cell 0, x' in cell 1:
    L1 sensitivity 2, exact leakage 2/b. The fitted score certifies a good part of it."""
    b = 2.0

    def hist(cell):
        def draw(m, rng):
            y = rng.laplace(0.0, b, (m, 3))
            y[:, cell] += 1.0
            return y

        return draw

    rng = np.random.default_rng(36)
    r = audit_adversary(hist(0), hist(1), 200_000, ALPHA, rng)
    assert r.selection.kind == "vector" and 0.4 * (2 / b) < r.lower <= 2 / b
    c = r.selection.event.coef
    assert c[0] * c[1] < 0 and abs(c[2]) < 0.2 * max(abs(c[0]), abs(c[1]))  # score ~ y0 - y1
    over = sum(audit_adversary(hist(0), hist(1), 4_000, ALPHA, rng).lower > 2 / b for _ in range(40))
    assert over <= _max_exceedances(40, ALPHA)


# ----------------------------------------------------------------------------- configuration level


def _adversaries():
    """Five adversaries with known exact values (Laplace(1) mixtures of varying separation)."""
    out, exact = [], []
    lap = LaplaceNoise(1.0)
    for p1, p2 in ((0.3, 0.3), (0.35, 0.3), (0.45, 0.3), (0.4, 0.35), (0.5, 0.2)):
        a1, w1, a2, w2 = _shifted_pair(J=5, p1=p1, p2=p2)
        out.append((_lattice_sampler(a1, w1, lap), _lattice_sampler(a2, w2, lap)))
        exact.append(mixture_sup(a1, w1, a2, w2, 1.0).value)
    return out, np.array(exact)


def test_configuration_picks_the_worst_adversary_and_covers():
    samplers, exact = _adversaries()
    rng = np.random.default_rng(37)
    res = audit_configuration(samplers, 400_000, ALPHA, rng)
    assert res.adversary == int(np.argmax(exact)) and 0 < res.lower <= exact.max()
    assert res.budget_used <= 400_000 and len(res.predicted) == 5
    res2 = audit_configuration(samplers, 400_000, ALPHA, rng, top=2)
    assert len(res2.certified) == 2 and all(c.alpha == ALPHA / 2 for _, c in res2.certified)
    assert res2.lower <= exact.max()
    over = sum(
        audit_configuration(samplers, 10_000, ALPHA, rng).lower > exact.max() + 1e-12 for _ in range(100)
    )
    assert over <= _max_exceedances(100, ALPHA)


def test_certify_top_from_given_selections():
    samplers, exact = _adversaries()
    rng = np.random.default_rng(38)
    sels = [select_event(dx(2_000, rng), dxp(2_000, rng), 50_000, ALPHA) for dx, dxp in samplers]
    res = certify_top(sels, samplers, 50_000, ALPHA, rng, top=3)
    assert len(res.certified) == 3 and res.budget_used == 3 * 2 * 50_000
    assert res.lower == max(c.lower for _, c in res.certified) <= exact.max()


# ----------------------------------------------------------------------------- bad input, edge cases


def test_budget_too_small_is_zero_not_an_error():
    dx = lambda m, rng: rng.laplace(1.0, 1.0, m)  # noqa: E731
    dxp = lambda m, rng: rng.laplace(0.0, 1.0, m)  # noqa: E731
    rng = np.random.default_rng(39)
    for budget in (0, 10, 150):
        r = audit_adversary(dx, dxp, budget, ALPHA, rng)
        assert r.lower == 0.0 and r.budget_used == 0 and "too small" in r.reason
    res = audit_configuration([(dx, dxp)] * 4, 100, ALPHA, rng)
    assert res.lower == 0.0 and res.adversary == -1 and "too small" in res.reason
    # a budget that selects but cannot certify a positive ratio also gives exactly 0
    assert audit_adversary(dxp, dxp, 2_000, ALPHA, rng).lower == 0.0


def test_nan_outputs_and_bad_parameters_raise_plain_value_errors():
    """The kernels name their parameters (a ValueError, not the config's ConfigError: the audit
    estimator names ``run.audit_*`` and ``mechanism output``)."""
    rng = np.random.default_rng(40)
    bad = lambda m, rng: np.where(np.arange(m) == 3, np.nan, 0.0)  # noqa: E731
    good = lambda m, rng: rng.normal(size=m)  # noqa: E731

    def plain(pattern):
        return pytest.raises(ValueError, match=pattern)

    with plain(r"^draw_x output = nan: must be finite numbers \(row 3 of") as err:
        audit_adversary(bad, good, 10_000, ALPHA, rng)
    assert not isinstance(err.value, ConfigError)
    with plain("^y = "):
        check_outputs(np.array([[1.0, np.inf], [0.0, 0.0]]))
    with plain("sampler asked for 5 outputs returned 4"):
        check_outputs(np.zeros(4), 5)
    for alpha in (0.0, 1.0, -0.1, float("nan")):
        with plain(r"^alpha = "):
            audit_adversary(good, good, 10_000, alpha, rng)
    with plain(r"^budget = "):
        audit_adversary(good, good, -5, ALPHA, rng)
    with plain(r"^rule = 'best': must be"):
        select_event(np.zeros(10), np.ones(10), 100, ALPHA, rule="best")


def test_output_kind_and_event_semantics():
    rng = np.random.default_rng(41)
    assert output_kind(rng.normal(size=100), rng.normal(size=100)) == "continuous"
    assert (
        output_kind(rng.integers(0, 5, 100).astype(float), rng.integers(0, 5, 100).astype(float))
        == "discrete"
    )
    assert output_kind(rng.normal(size=(100, 2)), rng.normal(size=(100, 2))) == "vector"
    ev = Event(1.0, math.inf, 1)
    np.testing.assert_array_equal(ev.contains(np.array([0.5, 1.0, 7.0])), [False, True, True])
    assert "y >= 1" in ev.describe() and "P(S|x)/P(S|x')" in ev.describe()
    assert Event(-math.inf, 2.0, -1).describe().startswith("S = {y <= 2}")
    # certification size is planned from selection counts only, and never exceeds the cap
    sel = select_event(rng.laplace(1, 1, 5_000), rng.laplace(0, 1, 5_000), 10**6, ALPHA)
    n = plan_certification(sel, 10**6, ALPHA)
    assert 1 <= n <= 10**6 and plan_certification(sel, 10**6, ALPHA, tol=0.0) == 10**6
