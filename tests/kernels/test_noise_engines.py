"""Exact engines for every noise law (issue 17 §1): the BDPL and the privacy profile of a count plus
geometric, staircase, Gaussian or Laplace noise, checked against brute force over every data tuple
and every adversary; configs, columns and calibration."""

import itertools
import math

import numpy as np
import pytest

from bdpsim.adversary import Adversary
from bdpsim.calibration import calibrate
from bdpsim.core.errors import ConfigError
from bdpsim.estimators import adversary_bdpl, exact_engine
from bdpsim.kernels.noise.laws import GaussianNoise, GeometricNoise, LaplaceNoise, StaircaseNoise
from bdpsim.mechanisms.noisy import NoisyQueryMechanism
from bdpsim.models import MarkovChainModel, PedigreeModel
from bdpsim.models.pedigree.model import TRANSMISSION
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_experiment
from bdpsim.queries import CountQuery

from ..conftest import write_toml
from ..helpers import brute_count_law, every_binary_adversary
from ..support.bad_input import MARKOV, RUN_EXACT, one_line

LAWS = {
    "laplace": LaplaceNoise(0.8),
    "geometric": GeometricNoise(1.1),
    "staircase": StaircaseNoise(1.3),
    "gaussian": GaussianNoise(0.7),
}
GRID = np.linspace(-30.0, 40.0, 700_001)  # spacing 1e-4: the densities' sup and integral by brute force


def _brute(noise, law_x, law_xp, eps):
    """sup_y ln p_x/p_x' (over the fine grid, or the integers for geometric noise) and
    delta(eps) = max(∫ (p_x - e^eps p_x')^+, swapped), from the data's exact count laws."""
    c = np.arange(law_x.size, dtype=float)
    if noise.discrete:
        y, h = np.arange(-60.0, 60.0), np.ones(120)
    elif isinstance(noise, StaircaseNoise):  # piecewise constant: exact on the pieces' midpoints
        k = np.arange(-45, 46)[:, None]
        offs = np.concatenate([k, k + noise.g, k - noise.g]).ravel() * noise.sensitivity
        br = np.unique(np.round((c[:, None] + offs[None, :]).ravel(), 9))  # no piece shorter than 1e-9
        y, h = (br[1:] + br[:-1]) / 2, np.diff(br)
    else:
        y, h = GRID, np.full(GRID.size, GRID[1] - GRID[0])
    with np.errstate(divide="ignore"):
        dens = [np.log(np.exp(noise.log_density(y[:, None] - c[None, :])) @ w) for w in (law_x, law_xp)]
    with np.errstate(invalid="ignore"):
        r = dens[0] - dens[1]
    sup = float(np.nanmax(np.abs(r[np.isfinite(r)]))) if np.isfinite(r).any() else math.inf
    p, q = np.exp(dens[0]), np.exp(dens[1])
    delta = max(
        (np.maximum(p - math.exp(eps) * q, 0) * h).sum(), (np.maximum(q - math.exp(eps) * p, 0) * h).sum()
    )
    return sup, delta


@pytest.mark.parametrize("name", sorted(LAWS))
def test_one_adversary_equals_brute_force(name):
    rng = np.random.default_rng(len(name))
    P = rng.dirichlet(np.ones(2) * 2, size=2)
    model = MarkovChainModel(P, 5)
    noise = LAWS[name]
    mech = NoisyQueryMechanism(CountQuery((1,)), noise)
    eng = exact_engine(model, mech)
    for K in [(), (0,), (1, 3), (0, 2, 4)]:
        i = next(j for j in range(5) if j not in K)
        xk = tuple(int(v) for v in rng.integers(0, 2, len(K)))
        adv = Adversary(i, K, xk, 0, 1)
        laws = [brute_count_law(model, {**dict(zip(K, xk)), i: v}, [1]) for v in (0, 1)]
        sup, delta = _brute(noise, *laws, 0.5)
        got = eng.bdpl(adv).value
        if name == "gaussian":
            assert got == math.inf  # shifted supports: the Gaussian ratio is unbounded
        else:
            assert got == pytest.approx(sup, abs=1e-9 if name != "laplace" else 1e-6)
        assert eng.profile(adv, 0.5) == pytest.approx(delta, abs=1e-6)


@pytest.mark.parametrize("name", ["geometric", "staircase", "laplace"])
def test_window_search_equals_every_adversary(name):
    """The window reduction holds for any additive noise kernel: it equals the maximum over every
    (i, K, x_K, x, x'), by enumeration, for the BDPL and for the privacy profile."""
    model = MarkovChainModel(np.array([[0.7, 0.3], [0.4, 0.6]]), 5)
    noise = LAWS[name]
    eng = exact_engine(model, NoisyQueryMechanism(CountQuery((1,)), noise))
    best, best_delta = 0.0, 0.0
    for adv in every_binary_adversary(5):
        best = max(best, eng.bdpl(adv).value)
        best_delta = max(best_delta, eng.profile(adv, 0.3))
    assert eng.window(0, 1)[0].bdpl == pytest.approx(best, rel=1e-9)
    assert eng.profile_window(0, 0.3, 1)[0].bdpl == pytest.approx(best_delta, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", ["geometric", "staircase", "laplace"])
def test_enumeration_of_every_known_set_for_any_noise_law(name):
    """The count engine enumerates every known set for every noise law (its exact ``grid_sup``):
    known-set sizes the window reduction cannot serve ({1, 3}), each enumerated adversary equal to
    the per-adversary engine (itself checked against brute force above)."""
    model = MarkovChainModel(np.array([[0.7, 0.3], [0.4, 0.6]]), 5)
    eng = exact_engine(model, NoisyQueryMechanism(CountQuery((1,)), LAWS[name]))
    res = eng.exhaustive([1, 3], None)
    assert len(res) == 5 * (4 * 2 + 4 * 8)  # targets x (C(4,1) 2 + C(4,3) 2^3) known patterns
    for j in range(len(res)):
        K = res.known(j)
        adv = Adversary(int(res.i[j]), K, tuple(int(res.pattern[j, t]) for t in K), 0, 1)
        assert res.value[j] == pytest.approx(eng.bdpl(adv).value, rel=1e-12)


def _pedigree_count_law(ped, known, counted):
    """Law of the count by brute force over every genotype tuple (Mendelian inheritance)."""
    law = np.zeros(ped.n + 1)
    f = np.asarray(ped.founder_probabilities)
    for g in itertools.product(range(3), repeat=ped.n):
        if any(g[k] != v for k, v in known.items()):
            continue
        p = 1.0
        for j, par in enumerate(ped.parents):
            p *= f[g[j]] if not par else TRANSMISSION[g[par[0]], g[par[1]], g[j]]
        law[sum(v in counted for v in g)] += p
    return law / law.sum()


def test_pedigree_geometric_equals_brute_force():
    ped = PedigreeModel.nuclear(4, 0.3)
    noise = LAWS["geometric"]
    mech = NoisyQueryMechanism(CountQuery((0,)), noise)
    adv = Adversary(1, (0,), (0,), 0, 2)  # thesis Cor. 5.2's adversary: one parent BB, the other BB vs bb
    laws = [_pedigree_count_law(ped, adv.condition(v), (0,)) for v in (0, 2)]
    sup, delta = _brute(noise, *laws, 1.0)
    assert adversary_bdpl(ped, mech, adv).value == pytest.approx(sup, abs=1e-9)
    assert exact_engine(ped, mech).profile(adv, 1.0) == pytest.approx(delta, abs=1e-9)


def _doc(mechanism, run=None):
    return {
        "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all", **(run or {})},
        "model": {"kind": "markov", "n": 6, "gamma": 3.0},
        "mechanism": {"kind": "count", **mechanism},
    }


def test_config_noise_columns_and_profile(tmp_path):
    doc = _doc({"epsilon": 1.0, "noise": ["geometric", "staircase"]}, {"epsilon_profile": 0.5})
    rows = run_experiment(parse_config(doc), tmp_path, progress=False)
    header = (tmp_path / "summary.csv").read_text().splitlines()[0].split(",")
    assert header[-5:] == ["noise", "noise_parameter", "staircase_gamma", "epsilon_profile", "bdp_delta"]
    assert [r["noise"] for r in rows] == ["geometric", "staircase"]
    assert all(0 < r["bdp_delta"] < 1 and r["bdpl_exact"] > 1.0 for r in rows)
    # a Laplace config keeps its table: no extra column
    run_experiment(parse_config(_doc({"epsilon": 1.0})), tmp_path / "lap", progress=False)
    assert "noise" not in (tmp_path / "lap" / "summary.csv").read_text().splitlines()[0].split(",")


def test_gaussian_needs_a_profile_and_reports_infinity(tmp_path):
    with pytest.raises(
        ConfigError, match="mechanism.noise = 'gaussian': has no pure DP.*infinite.*run.epsilon_profile"
    ):
        parse_config(_doc({"noise": "gaussian", "sigma": 1.0}))
    rows = run_experiment(
        parse_config(_doc({"noise": "gaussian", "sigma": 1.0}, {"epsilon_profile": 1.0})),
        tmp_path,
        progress=False,
    )
    assert rows[0]["bdpl_exact"] == math.inf and rows[0]["failed_adversaries"] == 0
    assert 0 < rows[0]["bdp_delta"] < 1


@pytest.mark.parametrize(
    "bad,field",
    [
        ({"noise": "cauchy", "epsilon": 1.0}, "mechanism.noise"),
        ({"noise": "gaussian"}, "mechanism.sigma"),
        ({"noise": "laplace", "epsilon": 1.0, "sigma": 2.0}, "mechanism.sigma"),
        ({"noise": "staircase", "epsilon": 1.0, "staircase_gamma": 2.0}, "mechanism.staircase_gamma"),
    ],
)
def test_bad_noise_parameters_name_the_field(bad, field):
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        parse_config(_doc(bad, {"epsilon_profile": 1.0}))


@pytest.mark.parametrize("noise", ["geometric", "staircase"])
def test_exact_calibration_of_other_noise_laws(noise):
    model = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 8)
    c = calibrate(model, 1.0, noise=noise)
    assert c.noise == noise and c.bdpl <= 1.0 + 1e-9
    worse = calibrate(model, 1.0, noise=noise, method="exact")  # the same search, reproducible
    assert worse.parameter == c.parameter
    assert calibrate(model, 1.0, noise=noise, method="markov").scale is None  # bounds calibrate Laplace


def test_exact_calibration_of_gaussian_noise():
    model = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 6)
    c = calibrate(model, 1.0, noise="gaussian", delta=1e-2)
    assert c.delta == pytest.approx(1e-2, rel=1e-6) and c.bdpl is None and c.parameter > 0
    less = calibrate(model, 1.0, noise="gaussian", delta=1e-1)
    assert less.parameter < c.parameter  # a looser delta needs less noise


@pytest.mark.parametrize(
    "noise, words",
    [
        (
            'noise = "table"\nnoise_pmf = [0.25, 0.5, 0.25]\nnoise_offset = -1\n',
            ["mechanism.noise = 'table'", "no pure DP", "finite support", "run.epsilon_profile = eps"],
        ),
        (
            'noise = "gaussian"\nsigma = 1.0\n',
            ["mechanism.noise = 'gaussian'", "no pure DP", "run.epsilon_profile = eps"],
        ),
    ],
)
def test_no_pure_dp_is_the_mechanism_s_not_the_run_s(bdpsim_cli, tmp_path, noise, words):
    mech = '[mechanism]\nkind = "count"\n' + ("epsilon = 1.0\n" if "table" in noise else "") + noise
    cfg = write_toml(tmp_path / "c.toml", RUN_EXACT + MARKOV + mech)
    p = bdpsim_cli("validate", cfg)
    one_line(p, *words)
    assert not p.stderr.startswith("bdpsim: error: run.epsilon_profile")
    ok = write_toml(tmp_path / "ok.toml", RUN_EXACT + "epsilon_profile = 1.0\n" + MARKOV + mech)
    assert bdpsim_cli("validate", ok).returncode == 0  # the way out the line names works
