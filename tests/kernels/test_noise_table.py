"""``noise = "table"`` (issue 30): a user pmf with geometric tails, checked against brute force over
every data tuple and every adversary, in the exact engines, configs and its bad inputs."""

import json
import math

import numpy as np
import pytest

from bdpsim.adversary import Adversary
from bdpsim.core.errors import ConfigError
from bdpsim.estimators import adversary_bdpl, exact_engine
from bdpsim.kernels.noise.laws import NOISE_LAWS, GeometricNoise, NoiseLaw, TableNoise
from bdpsim.mechanisms.noisy import NoisyQueryMechanism
from bdpsim.models import MarkovChainModel, PedigreeModel
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_experiment
from bdpsim.queries import CountQuery

from ..helpers import brute_count_law, every_binary_adversary
from ..kernels.test_noise_engines import _pedigree_count_law


def _table(rng, m=7, r=0.45, offset=-3, hole=True):
    """An asymmetric table (with a zero inside if ``hole``) and geometric tails, normalised with them."""
    p = rng.random(m) + 0.05
    p[2] = 0.0 if hole else p[2]
    p /= p.sum() + (p[0] + p[-1]) * r / (1 - r)
    return TableNoise(tuple(p), offset, r)


TABLE = _table(np.random.default_rng(30))


def _f(noise, k):
    """P(Z = k) from the definition, independently of the class (integer k, any sign)."""
    o, p, r = noise.offset, noise.pmf, noise.tail_ratio
    if k < o:
        return p[0] * r ** (o - k)
    if k > o + len(p) - 1:
        return p[-1] * r ** (k - o - len(p) + 1)
    return p[k - o]


def _brute(noise, law_x, law_xp, eps):
    """sup_s |ln p_x(s)/p_x'(s)| and delta(eps) over the integers s in a window wider than every
    atom plus the table (beyond it the ratio is constant and the tails are below 1e-40)."""
    c = np.arange(law_x.size)
    sup, d1, d2 = 0.0, 0.0, 0.0
    for s in range(-160, 160):
        p = sum(law_x[j] * _f(noise, s - j) for j in c)
        q = sum(law_xp[j] * _f(noise, s - j) for j in c)
        if p == 0 and q == 0:
            continue
        sup = max(sup, math.inf if p == 0 or q == 0 else abs(math.log(p / q)))
        d1 += max(0.0, p - math.exp(eps) * q)
        d2 += max(0.0, q - math.exp(eps) * p)
    return sup, max(d1, d2)


def test_protocol_moments_and_sampling():
    assert isinstance(TABLE, NoiseLaw) and NOISE_LAWS["table"] is TableNoise
    k = np.arange(-200, 200)
    f = np.array([_f(TABLE, int(v)) for v in k])
    assert f.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(TABLE.pmf_at(k), f, rtol=1e-13, atol=0)
    mean, mabs, sq = TABLE.moments()
    assert (mean, mabs, sq) == pytest.approx((f @ k, f @ np.abs(k), f @ k**2), rel=1e-12)
    np.testing.assert_allclose(TABLE.cdf(k[150:250] + 0.5), np.cumsum(f)[150:250], atol=1e-13)
    np.testing.assert_allclose(np.exp(TABLE.log_density(k[150:250])), f[150:250], rtol=1e-13)
    rng = np.random.default_rng(31)
    x = TABLE.sample(200_000, rng)
    # E|Z| by sampling, within 5 standard errors
    assert abs(np.abs(x).mean() - mabs) < 5 * np.abs(x).std() / math.sqrt(x.size)
    # a table holding the two-sided geometric law is geometric noise
    q = math.exp(-0.8)
    z = np.arange(-9, 10)
    geo = TableNoise(tuple((1 - q) / (1 + q) * q ** np.abs(z)), -9, q)
    W1, W2 = rng.random((4, 6)), rng.random((4, 6))
    np.testing.assert_allclose(
        geo.grid_sup(W1, W2, 1.0)[0], GeometricNoise(0.8).grid_sup(W1, W2, 1.0)[0], rtol=1e-12
    )
    assert geo.dp_epsilon(1.0) == pytest.approx(0.8) and geo.dp_epsilon(0.5) == math.inf


def test_one_adversary_equals_brute_force():
    rng = np.random.default_rng(5)
    model = MarkovChainModel(rng.dirichlet(np.ones(2) * 2, size=2), 5)
    eng = exact_engine(model, NoisyQueryMechanism(CountQuery((1,)), TABLE))
    for K in [(), (0,), (1, 3), (0, 2, 4)]:
        i = next(j for j in range(5) if j not in K)
        xk = tuple(int(v) for v in rng.integers(0, 2, len(K)))
        adv = Adversary(i, K, xk, 0, 1)
        laws = [brute_count_law(model, {**dict(zip(K, xk, strict=True)), i: v}, [1]) for v in (0, 1)]
        sup, delta = _brute(TABLE, *laws, 0.5)
        assert eng.bdpl(adv).value == pytest.approx(sup, rel=1e-10)
        assert eng.profile(adv, 0.5) == pytest.approx(delta, abs=1e-12)


def test_window_search_equals_every_adversary():
    model = MarkovChainModel(np.array([[0.7, 0.3], [0.4, 0.6]]), 5)
    eng = exact_engine(model, NoisyQueryMechanism(CountQuery((1,)), TABLE))
    best, best_delta = 0.0, 0.0
    for adv in every_binary_adversary(5):
        laws = [
            brute_count_law(model, {**dict(zip(adv.known, adv.x_known, strict=True)), adv.i: v}, [1])
            for v in (0, 1)
        ]
        sup, delta = _brute(TABLE, *laws, 0.3)
        best, best_delta = max(best, sup), max(best_delta, delta)
    assert eng.window(0, 1)[0].bdpl == pytest.approx(best, rel=1e-10)
    assert eng.profile_window(0, 0.3, 1)[0].bdpl == pytest.approx(best_delta, rel=1e-9, abs=1e-12)


def test_pedigree_table_equals_brute_force():
    ped = PedigreeModel.nuclear(4, 0.3)
    mech = NoisyQueryMechanism(CountQuery((0,)), TABLE)
    adv = Adversary(1, (0,), (0,), 0, 2)
    laws = [_pedigree_count_law(ped, adv.condition(v), (0,)) for v in (0, 2)]
    sup, _ = _brute(TABLE, *laws, 1.0)
    assert adversary_bdpl(ped, mech, adv).value == pytest.approx(sup, rel=1e-10)


def _doc(mechanism):
    return {
        "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all"},
        "model": {"kind": "markov", "n": 6, "gamma": 3.0},
        "mechanism": {"kind": "count", **mechanism},
    }


def test_config_inline_and_file(tmp_path):
    table = _table(np.random.default_rng(3), m=5, r=0.3, offset=-2, hole=False)  # a zero would not be DP
    inline = {
        "noise": "table",
        "noise_pmf": list(table.pmf),
        "noise_offset": table.offset,
        "noise_tail_ratio": table.tail_ratio,
    }
    a = run_experiment(parse_config(_doc(inline)), tmp_path / "a", progress=False)
    (tmp_path / "t.json").write_text(json.dumps(table.as_dict()))
    b = run_experiment(
        parse_config(_doc({"noise": "table", "noise_table": str(tmp_path / "t.json")})),
        tmp_path / "b",
        progress=False,
    )
    assert a[0]["noise"] == b[0]["noise"] == "table"
    assert a[0]["bdpl_exact"] == b[0]["bdpl_exact"] > 0


@pytest.mark.parametrize(
    "mech,field",
    [
        ({"noise": "table"}, "mechanism.noise_pmf"),
        ({"noise": "table", "noise_pmf": [0.5, 0.6]}, "mechanism.noise_pmf"),
        ({"noise": "table", "noise_pmf": [1.5, -0.5]}, "mechanism.noise_pmf"),
        ({"noise": "table", "noise_pmf": [0.5, 0.5], "noise_tail_ratio": 1.0}, "mechanism.noise_tail_ratio"),
        ({"noise": "table", "noise_pmf": [0.5, 0.5], "noise_offset": 0.5}, "mechanism.noise_offset"),
        ({"noise": "table", "noise_table": "/nonexistent/t.json"}, "mechanism.noise_table"),
        ({"noise": "geometric", "epsilon": 1.0, "noise_pmf": [1.0]}, "mechanism.noise_pmf"),
        ({"epsilon": 1.0, "noise_tail_ratio": 0.5}, "mechanism.noise_tail_ratio"),
    ],
)
def test_bad_table_names_the_field(mech, field):
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        parse_config(_doc(mech))
