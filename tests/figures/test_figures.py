"""Every figure id makes PNG + PDF + CSV; the CSVs match the formulas at pinned points."""

import csv
import math

import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.figures import data as D
from bdpsim.figures.gallery import FIGURES, make_figures

# bdpsim-competition (minutes of exact window searches at T = 288) is rendered in
# tests/studies/test_competition.py
# computed in seconds; bdpsim-competition, -calibration (72 s) and -generations (11 s) are exact searches
# drawn here from small inputs (tests/figures/test_figures_sources.py) and in full by `bdpsim figures`
SLOW_EXACT = (
    "bdpsim-competition",
    "bdpsim-calibration",
    "bdpsim-generations",
    "bdpsim-frontier",
    "bdpsim-attack",
    "bdpsim-accountant",
)
ANALYTIC = [i for i, f in FIGURES.items() if not f.simulated and i not in SLOW_EXACT]
SIMULATED = ["thesis-fig09", "thesis-fig10", "thesis-fig15"]

TINY = {
    "run": {"adversaries": 6, "samples": 2000, "noise_floor_adversaries": 2},
    "variants": [{"model": {"n": 3, "rho": [0.2, 0.6]}}],
}


def read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _fig03(out):
    f03 = read(out / "thesis-fig03.csv")
    assert all(math.isclose(float(r["beta"]), math.exp(-float(r["epsilon"]) / 2)) for r in f03[::40])


def _fig05(out):
    f05 = {round(float(r["epsilon"]), 6): float(r["beta_min"]) for r in read(out / "thesis-fig05.csv")}
    assert f05[0.0] == 0.5 and math.isclose(f05[1.0], 1 / (math.e + 1))


def _fig08(out):
    f08 = [r for r in read(out / "thesis-fig08.csv") if r["n"] == "3"]
    r = f08[50]
    rho = float(r["rho"])
    assert math.isclose(float(r["gaussian_bound"]), 9 / (4 * (1 / rho - 1)) + 1)


def _fig16(out):
    f16 = [r for r in read(out / "thesis-fig16.csv") if r["epsilon"] == "2.0"]
    assert math.isclose(float(f16[-1]["gamma_max"]), math.exp(2 * (1 - 1 / 10) / 4))


def _paper_fig3(out):
    p3 = [r for r in read(out / "paper-fig3.csv") if r["epsilon"] == "20.0" and r["h"]]
    g = float(p3[10]["gamma"])
    assert math.isclose(float(p3[10]["h"]), 20 / (20 - 4 * math.log(g)))


def _fig13(out):
    f13 = {(float(r["epsilon"]), int(r["n"])): float(r["gamma_max"]) for r in read(out / "thesis-fig13.csv")}
    assert f13[(0.5, 1)] == 1.0 and f13[(0.5, 2)] < 100 and f13[(0.5, 30)] > 10


#: the pinned points of an analytic figure's CSV, by figure id
PINNED = {
    "thesis-fig03": _fig03,
    "thesis-fig05": _fig05,
    "thesis-fig08": _fig08,
    "thesis-fig16": _fig16,
    "paper-fig3": _paper_fig3,
    "thesis-fig13": _fig13,
}


def test_every_pinned_figure_is_an_analytic_one():
    assert set(PINNED) <= set(ANALYTIC) and len(ANALYTIC) > len(PINNED)


@pytest.mark.parametrize("fig_id", ANALYTIC)
def test_analytic_figures(tmp_path, fig_id):
    """Each analytic figure on its own (one figure per test: they are independent, and together
    they took 16 s of one core): PNG, PDF and CSV, the gallery README's entry, its pinned points."""
    paths = make_figures([fig_id], tmp_path, log=lambda m: None)
    for ext in ("png", "pdf", "csv"):
        assert (tmp_path / f"{fig_id}.{ext}").stat().st_size > (100 if ext == "csv" else 200), (fig_id, ext)
    assert len(paths) == 3
    gallery = (tmp_path / "README.md").read_text()
    assert f"bdpsim figures --only {fig_id}" in gallery and f"({fig_id}.png)" in gallery
    PINNED.get(fig_id, lambda out: None)(tmp_path)


def test_paper_fig2_pinned():
    rows = {(r["p_ss"], r["epsilon"]): r for r in D.paper_fig2_rows(eps=[2.0, 10.0])}
    r = rows[(0.8, 10.0)]
    assert math.isclose(r["alpha_markov_laplace"], math.log(20) / (10 - 4 * math.log(4)), rel_tol=1e-12)
    assert math.isnan(rows[(0.8, 2.0)]["alpha_markov_laplace"])  # eps <= 4 ln gamma
    assert r["alpha_randomized_response"] > r["alpha_markov_laplace"]
    # no flipping: the estimate is exact
    assert D.rr_alpha(700, 350, 0.0) == 0.0


def test_rr_alpha_against_monte_carlo():
    import numpy as np

    rho, n, c = 0.2, 700, 350
    rng = np.random.default_rng(0)
    z = rng.binomial(c, 1 - rho, 400_000) + rng.binomial(n - c, rho, 400_000)
    err = np.abs((z - n * rho) / (1 - 2 * rho) - c)
    alpha = D.rr_alpha(n, c, rho)
    assert np.mean(err > alpha) <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 400_000)
    assert np.mean(err >= alpha) > 0.05 - 3 * math.sqrt(0.05 * 0.95 / 400_000)


def test_simulated_figures_tiny(tmp_path):
    over = {**TINY}
    make_figures(["thesis-fig09", "thesis-fig10"], tmp_path, jobs=2, overrides=over, log=lambda m: None)
    fig15 = {
        "run": {"adversaries": 6, "samples": 2000, "noise_floor_adversaries": 2},
        "model": {"n": 5, "gamma": [1.0, 4.0]},
        "mechanism": {"epsilon": [1.0]},
    }
    make_figures(["thesis-fig15"], tmp_path, jobs=2, overrides=fig15, log=lambda m: None)
    for i in SIMULATED:
        for ext in ("png", "pdf", "csv"):
            assert (tmp_path / f"{i}.{ext}").stat().st_size > 200
    rows = read(tmp_path / "thesis-fig15.csv")
    exact = {float(r["gamma"]): float(r["bdpl_max"]) for r in rows if r["estimator"] == "exact"}
    assert exact[1.0] == pytest.approx(1.0)
    for r in rows:
        if r["estimator"] == "exact":
            assert float(r["bdpl_max"]) <= float(r["bound_model"]) + 1e-9
    f10 = read(tmp_path / "thesis-fig10.csv")
    assert {r["estimator"] for r in f10} == {"kde", "exact", "kde-clipped"}
    assert (tmp_path / "runs" / "thesis_fig9").is_dir()


def test_unknown_figure_id(tmp_path):
    with pytest.raises(ConfigError, match="unknown figure id"):
        make_figures(["thesis-fig99"], tmp_path)


def _utility_figures(ids, out, data_dir, logs):
    make_figures(
        ids,
        out,
        quick=True,
        data_dir=data_dir,
        log=logs.append,
        overrides={"utility": {"runs": 50, "epsilon": [2.0, 10.0, 20.0]}},
    )
    for i in ids:
        for ext in ("png", "pdf", "csv"):
            assert (out / f"{i}.{ext}").stat().st_size > 200


def test_utility_figures(tmp_path, data_dir):
    """The utility figures that read no activity-data runs (the others: the test below)."""
    _utility_figures(["paper-fig4", "thesis-fig17", "thesis-fig18"], tmp_path, data_dir, [])


def test_utility_figures_of_the_activity_data(tmp_path, data_dir):
    """paper-fig5 and thesis-fig19, which read the same runs of the activity data (their exact
    calibrations, most of the time, made once)."""
    logs = []
    _utility_figures(["paper-fig5", "thesis-fig19"], tmp_path, data_dir, logs)
    assert any("skipped utility_electricity.toml" in m for m in logs)  # AMPds not bundled: said, not hidden
    assert "> Note: utility_electricity.toml skipped" in (tmp_path / "README.md").read_text()
    rows = read(tmp_path / "paper-fig5.csv")
    markov = [r for r in rows if r["mechanism"] == "markov"]
    assert [r["note"].startswith("not reachable") for r in markov] == [True, False, False]
    r = markov[1]
    assert math.isclose(float(r["alpha_theory"]), math.log(20) / float(r["tau"]))
