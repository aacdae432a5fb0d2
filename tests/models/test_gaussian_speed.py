"""The Gaussian noise law at speed (issue 27 items 6, 12, 13, 14): the vectorised certified sup and
hockey-stick divergence against the per-row reference kernel, a dense brute-force grid and pinned
values; the privacy profile's worst adversary and per-adversary column; calibration budget,
progress and refusals; geometric calibration with state values 0 2; extreme sigma and eps."""

import csv
import gzip
import json
import math

import numpy as np
import pytest

from bdpsim.adversary import Adversary
from bdpsim.calibration import calibrate
from bdpsim.calibration.budget import TooSlow
from bdpsim.estimators import exact_engine
from bdpsim.kernels.noise import gaussian_certified as gc
from bdpsim.kernels.noise import gaussian_mixture as gm
from bdpsim.kernels.noise.laws import GaussianNoise
from bdpsim.mechanisms.noisy import NoisyQueryMechanism
from bdpsim.models import MarkovChainModel
from bdpsim.queries import CountQuery

from ..helpers import every_binary_adversary

# pinned mixtures: rows of weights on the atoms 0, 0.7, 1.4, 2.1 (seed 27; row 2 without atom 0)
W1 = np.array(
    [
        [0.5387291194750147, 0.07390667089614059, 0.2168414160034337, 0.17052279362541115],
        [0.7585698371122761, 0.19889745010672072, 0.003725646750536513, 0.038807066030466617],
        [0.0, 0.8704382670025, 0.05468161087925641, 0.07488012211824352],
    ]
)
W2 = np.array(
    [
        [0.14741105277338054, 0.656307601503911, 0.011365092060115945, 0.18491625366259237],
        [0.33852637870449515, 0.37966279486958565, 0.084026429924028, 0.1977843965018912],
        [0.03019236822109461, 0.2657794687420715, 0.5010904654918599, 0.20293769754497407],
    ]
)
ATOMS = np.arange(4) * 0.7


def _densities(w1, w2, c, sigma, y):
    k = np.exp(-0.5 * ((y[:, None] - c[None, :]) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))
    return k @ w1, k @ w2


def test_sup_equals_the_reference_kernel_and_pinned_values():
    fwd, bwd, wf, wb = gc.gauss_sup(W1, W2, ATOMS, 1.3)
    # certified: v <= sup <= v + 1e-11 (1 + |v|); the reference (grid + Brent) lies in that band
    for i in range(3):
        ref = gm.gauss_sup_row(W1[i], W2[i], ATOMS, 1.3)
        for got, want in ((fwd[i], ref[0]), (bwd[i], ref[1])):
            if math.isinf(want):
                assert got == want
            else:
                assert got <= want + 1e-13 and want <= got + 1e-11 * (1 + abs(got))
    np.testing.assert_allclose(fwd, [1.2959879214738677, 0.8068328496676537, 0.6001685148753935], rtol=1e-13)
    np.testing.assert_allclose(bwd[:2], [0.1184569277222266, 1.6379500258613846], rtol=1e-13)
    assert bwd[2] == math.inf and wb[2] == -math.inf  # row 2 of p2 reaches further left: p2/p1 -> inf
    assert wf[0] == -math.inf  # the lower tail limit ln(w1_0/w2_0) is the supremum


@pytest.mark.parametrize("sigma", [0.5, 1.3])
def test_sup_against_a_dense_grid(sigma):
    y = np.linspace(ATOMS[0] - 12 * sigma, ATOMS[-1] + 12 * sigma, 400_001)
    fwd, bwd, wf, wb = gc.gauss_sup(W1, W2, ATOMS, sigma)
    for i in range(3):
        p1, p2 = _densities(W1[i], W2[i], ATOMS, sigma, y)
        with np.errstate(divide="ignore"):
            h = np.log(p1) - np.log(p2)
        for got, where, grid in ((fwd[i], wf[i], h.max()), (bwd[i], wb[i], (-h).max())):
            if math.isinf(got):
                continue
            assert got >= grid - 1e-10  # the grid cannot beat a certified supremum
            if math.isfinite(where):  # an interior maximum: the grid comes within its spacing
                assert got <= grid + 1e-6


def test_delta_equals_the_reference_kernel_a_dense_grid_and_pinned_values():
    got = gc.gauss_delta(W1, W2, ATOMS, 1.3, 0.4)
    np.testing.assert_allclose(
        got, [0.0034568318721568056, 0.014809871670690145, 0.013556100893969608], rtol=1e-12
    )
    both = gc.gauss_delta(W1, W2, ATOMS, 1.3, 0.4, both=True)
    np.testing.assert_array_equal(both[0], got)
    np.testing.assert_allclose(both[1], gc.gauss_delta(W2, W1, ATOMS, 1.3, 0.4), atol=1e-15)
    y = np.linspace(-16.0, 18.0, 680_001)
    for i in range(3):
        assert got[i] == pytest.approx(gm.gauss_delta_row(W1[i], W2[i], ATOMS, 1.3, 0.4), abs=1e-14)
        p1, p2 = _densities(W1[i], W2[i], ATOMS, 1.3, y)
        f = np.maximum(p1 - math.exp(0.4) * p2, 0.0)
        assert got[i] == pytest.approx(float(np.sum((f[1:] + f[:-1]) / 2) * (y[1] - y[0])), abs=1e-9)


def test_delta_with_several_crossings_uses_the_cells():
    """Coefficients w1 - e^eps w2 with two sign changes (two crossings): the certified cells."""
    w1, w2 = np.array([[0.45, 0.1, 0.45]]), np.array([[0.1, 0.8, 0.1]])
    c = np.array([0.0, 1.0, 2.0])
    assert gc._sign_changes(w1 - math.e**0.2 * w2, w1)[0][0] == 2
    y = np.linspace(-15.0, 17.0, 640_001)
    p1, p2 = _densities(w1[0], w2[0], c, 0.6, y)
    for eps in (-0.3, 0.0, 0.2, 1.5):
        f = np.maximum(p1 - math.exp(eps) * p2, 0.0)
        brute = float(np.sum((f[1:] + f[:-1]) / 2) * (y[1] - y[0]))
        assert gc.gauss_delta(w1, w2, c, 0.6, eps)[0] == pytest.approx(brute, abs=1e-9)


def test_random_mixtures_agree_with_the_reference_profile():
    rng = np.random.default_rng(2711)
    A, B = rng.dirichlet(np.ones(6), 40), rng.dirichlet(np.ones(6), 40)
    A[::3, 2] = 0.0
    A /= A.sum(axis=1, keepdims=True)
    c = np.arange(6.0)
    for sigma, eps in ((0.4, 0.0), (1.0, 0.5), (3.0, 1.0)):
        got = gc.gauss_delta(A, B, c, sigma, eps)
        ref = [gm.gauss_delta_row(A[i], B[i], c, sigma, eps) for i in range(0, 40, 4)]
        np.testing.assert_allclose(got[::4], ref, atol=1e-13)


def test_extreme_sigma_gives_an_answer():
    law_w1, law_w2 = np.array([[0.3, 0.0, 0.7]]), np.array([[0.2, 0.3, 0.5]])
    for sigma in (1e-3, 1e-300, 5e-324):  # components 80 sigma apart and more: the discrete divergence
        assert GaussianNoise(sigma).grid_delta(law_w1, law_w2, 1.0, 0.0)[0] == pytest.approx(0.3, abs=1e-15)
    v, atom = GaussianNoise(1e-300).grid_sup(law_w1, law_w2, 1.0)
    assert v[0] == -math.inf and atom[0] == 1.0  # p2 alone at atom 1: p2/p1 has no bound
    v, atom = GaussianNoise(1e-3).grid_sup(law_w1, law_w2, 1.0)
    assert v[0] == pytest.approx(-(0.5e6 + math.log(0.3 / 0.3)), rel=1e-5)
    assert GaussianNoise(1e12).grid_delta(law_w1, law_w2, 1.0, 0.5)[0] == 0.0


def test_window_search_of_the_gaussian_profile_equals_every_adversary():
    model = MarkovChainModel(np.array([[0.7, 0.3], [0.4, 0.6]]), 5)
    eng = exact_engine(model, NoisyQueryMechanism(CountQuery((1,)), GaussianNoise(0.7)))
    best = max(eng.profile(adv, 0.3) for adv in every_binary_adversary(5))
    assert eng.profile_window(0, 0.3, 1)[0].bdpl == pytest.approx(best, rel=1e-12)
    assert best == pytest.approx(0.5203394419683056, rel=1e-12)  # the reference kernel gives the same


# ----------------------------------------------------------------------------- item 6

DIAMOND = """
[run]
seed = 3
adversaries = {adversaries}
estimator = "exact"
known_sizes = "all"
epsilon_profile = 0.5

[model]
kind = "bayesnet"
states = 3
parents = [[], [0], [0], [1, 2]]
cpt = [[0.5, 0.3, 0.2],
       [[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]],
       [[0.6, 0.3, 0.1], [0.3, 0.4, 0.3], [0.1, 0.3, 0.6]],
       [[[0.8, 0.1, 0.1], [0.5, 0.3, 0.2], [0.3, 0.4, 0.3]],
        [[0.5, 0.3, 0.2], [0.2, 0.6, 0.2], [0.2, 0.3, 0.5]],
        [[0.3, 0.4, 0.3], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]]]

[mechanism]
kind = "count"
counted_states = [1, 2]
noise = "gaussian"
sigma = 0.8
"""


def _tables(out):
    summary = list(csv.DictReader(open(out / "summary.csv")))[0]
    with gzip.open(out / "adversaries.csv.gz", "rt") as fh:
        return summary, list(csv.DictReader(fh))


@pytest.mark.parametrize("adversaries", ['"all"', "30"])
def test_profile_names_the_adversary_attaining_bdp_delta(tmp_path, bdpsim_cli, adversaries):
    cfg = tmp_path / "diamond.toml"
    cfg.write_text(DIAMOND.format(adversaries=adversaries))
    r = bdpsim_cli("run", cfg, "--out", tmp_path / "out", "--quiet")
    assert r.returncode == 0, r.stderr
    summary, rows = _tables(tmp_path / "out")
    assert summary["bdpl_max"] == "inf"  # no pure DP: the BDPL cannot name the worst adversary
    delta = float(summary["bdp_delta"])
    assert all("bdp_delta" in row for row in rows)
    assert max(float(row["bdp_delta"]) for row in rows) == pytest.approx(delta, rel=1e-12)
    # the named adversary attains bdp_delta (its own exact profile, recomputed)
    import tomllib

    from bdpsim.pipeline.config import parse_config

    point = parse_config(tomllib.loads(cfg.read_text())).points[0]
    known = tuple(int(k) for k in summary["argmax_known"].split(";") if k)
    xk = tuple(int(v) for v in summary["argmax_x_known"].split(";") if v)
    adv = Adversary(
        int(summary["argmax_i"]), known, xk, int(summary["argmax_x"]), int(summary["argmax_x_prime"])
    )
    assert point.exact_engine.profile(adv, 0.5) == pytest.approx(delta, rel=1e-12)


# ----------------------------------------------------------------------------- items 12, 13, 14

ACT = "[[0.882,0.118],[0.305,0.695]]"


def test_geometric_calibration_with_state_values_0_2(bdpsim_cli):
    runs = [
        bdpsim_cli(
            "calibrate",
            "markov",
            "--transition",
            ACT,
            "--n",
            10,
            "--epsilon",
            1,
            "--noise",
            "geometric",
            "--state-values",
            0,
            step,
            "--json",
        )
        for step in (1, 2)
    ]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr
    one, two = (json.loads(r.stdout) for r in runs)
    # the same mechanism on a lattice twice as wide: the same per-step epsilon, twice the scale
    assert two["parameter"] == pytest.approx(one["parameter"], rel=1e-9)
    assert two["parameter"] == pytest.approx(0.2724546021975181, rel=1e-9) and two["bdpl"] <= 1 + 1e-9


@pytest.mark.parametrize(
    "args,field",
    [
        (("--delta", "1e-300"), "--delta"),
        (("--delta", "0"), "--delta"),
        (("--delta", "1e-6", "--epsilon", "1e300"), "--epsilon"),
    ],
)
def test_gaussian_calibration_refuses_unreachable_targets_in_one_line(bdpsim_cli, args, field):
    base = ["calibrate", "markov", "--transition", ACT, "--n", 288, "--noise", "gaussian"]
    if "--epsilon" not in args:
        base += ["--epsilon", 1]
    r = bdpsim_cli(*base, *args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"bdpsim: error: {field} = ")


def test_gaussian_calibration_is_budgeted_and_reports_progress():
    model = MarkovChainModel(np.array([[0.882, 0.118], [0.305, 0.695]]), 288)
    with pytest.raises(TooSlow, match=r"^model.transition = .*gaussian noise ~12x a Laplace scan"):
        calibrate(model, 1.0, noise="gaussian", delta=1e-6, budget=0.01)
    seen = []
    small = MarkovChainModel(np.array([[0.8, 0.2], [0.3, 0.7]]), 6)
    c = calibrate(small, 1.0, noise="gaussian", delta=1e-2, progress=lambda done, total: seen.append(done))
    assert seen == list(range(1, len(seen) + 1)) and len(seen) >= 3
    assert c.delta <= 1e-2 and c.parameter == pytest.approx(
        4.805575274052335, rel=2e-9
    )  # as on main (rtol 1e-9)


def test_extreme_sigma_and_profile_epsilon_in_configs(tmp_path, bdpsim_cli):
    base = (
        '[run]\nadversaries = "all"\nestimator = "exact"\nknown_sizes = "all"\nepsilon_profile = {e}\n'
        '[model]\nkind = "markov"\nn = 5\ngamma = 3.0\n[mechanism]\nkind = "count"\nnoise = "gaussian"\n'
        "sigma = {s}\n"
    )
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(base.format(e=1.0, s="1e-300"))
    r = bdpsim_cli("run", cfg, "--out", tmp_path / "tiny", "--quiet", errors=(RuntimeWarning,))
    assert r.returncode == 0, r.stderr
    assert float(_tables(tmp_path / "tiny")[0]["bdp_delta"]) == 1.0  # no noise: the target is revealed
    cfg.write_text(base.format(e="1e300", s=1.0))
    r = bdpsim_cli("run", cfg, "--out", tmp_path / "big", "--quiet", errors=(RuntimeWarning,))
    assert r.returncode == 2 and r.stderr.startswith("bdpsim: error: run.epsilon_profile = 1e+300: ")
    assert r.stderr.count("\n") == 1 and not (tmp_path / "big").exists()
    with pytest.raises(ValueError, match=r"^epsilon = 1e\+300: must be a finite number in \[-100, 100\]"):
        GaussianNoise(1.0).grid_delta([[1, 1]], [[1, 2]], 1.0, 1e300)  # the kernel names its parameter
