"""The utility experiment through the one calibration registry, and its table-noise rows (issue 30
item 4: the paper §7 experiment rerun with the optimal integer noise)."""

import math

import numpy as np
import pytest

from bdpsim.calibration import CALIBRATION_METHODS, Calibration, Method
from bdpsim.kernels.noise.table import TableNoise
from bdpsim.utility import experiment as X
from bdpsim.utility.experiment import abs_quantile, parse_utility, run_utility

#: a fixed finite table: P(-1) = P(1) = 0.2, P(0) = 0.6 — E|Z| = E Z^2 = 0.4, the 95 % quantile of
#: |Z| is 1 (P(|Z| <= 0) = 0.6 < 0.95 <= P(|Z| <= 1) = 1); not DP (P(2) = 0)
TABLE = TableNoise((0.2, 0.6, 0.2), -1, 0.0)
#: P(k) = 0.5 (1/3)^|k|: E|Z| = r/(1-r)^2 = 0.75, E Z^2 = r(1+r)/(1-r)^3 = 1.5, DP epsilon ln 3,
#: P(|Z| > a) = 0.5 (1/3)^a, so the 95 % quantile of |Z| is 3
TAILED = TableNoise((0.5,), 0, 1 / 3)


def _fixed_table(p):
    return Calibration(
        "optimal",
        float(p.epsilon),
        p.model.n,
        None,
        None,
        "a fixed table (test)",
        "table",
        mean_abs=0.75,
        extra={"noise": TAILED.as_dict()},
    )


@pytest.fixture
def fixed_optimal(monkeypatch):
    """Method "optimal" replaced by a fixed table (the LP takes minutes on a day of 288 records)."""
    monkeypatch.setitem(CALIBRATION_METHODS, "optimal", Method("optimal", _fixed_table, "a fixed table"))
    X._CHAIN_CALIBRATIONS.clear()
    yield
    X._CHAIN_CALIBRATIONS.clear()


def test_abs_quantile_and_moments_of_a_table():
    assert abs_quantile(TABLE, 0.95) == 1.0 and abs_quantile(TABLE, 0.6) == 0.0
    _, mabs, sq = TABLE.moments()
    assert mabs == pytest.approx(0.4) and sq == pytest.approx(0.4)
    geo = TableNoise((1 / 3,), 0, 0.5)  # P(k) = 0.5^|k| / 3: P(|Z| <= a) = 1 - (2/3) 0.5^a
    for q in (0.5, 0.9, 0.95, 0.999):
        a = abs_quantile(geo, q)
        assert 1 - 2 / 3 * 0.5**a >= q > 1 - 2 / 3 * 0.5 ** (a - 1)


def test_table_rows_and_existing_rows_unchanged(fixed_optimal, data_dir):
    """An optimal row draws from its table (E|Z|, exact quantile, E Z^2; its empirical values within
    their intervals); appending it to the mechanisms leaves every other row identical (seeding)."""
    base = {"dataset": "activity", "split": ["days"], "epsilon": [9.0, 12.0], "runs": 400}
    rows0, _ = run_utility(
        parse_utility({"utility": {**base, "mechanisms": ["dp", "general", "markov"]}}), data_dir
    )
    rows, _ = run_utility(
        parse_utility({"utility": {**base, "mechanisms": ["dp", "general", "markov", "optimal"]}}), data_dir
    )
    assert rows[: len(rows0)] == rows0
    opt = rows[len(rows0) :]
    assert [r["mechanism"] for r in opt] == ["optimal", "optimal"]
    k = np.arange(-60, 61)
    ez4 = float(np.sum(TAILED.pmf_at(k) * k.astype(float) ** 4))
    for r in opt:
        assert r["noise_scale"] == pytest.approx(0.75) and r["mse_theory"] == pytest.approx(1.5)
        assert r["alpha_theory"] == 3.0 and r["tau"] == pytest.approx(math.log(3.0))
        draws = r["runs"] * r["databases"]
        se = math.sqrt((ez4 - 1.5**2) / draws)
        assert abs(r["mse"] - r["mse_theory"]) <= 5 * se
        assert 2.0 <= r["alpha_empirical"] <= 4.0  # integer draws: P(|Z| >= 3) = 0.056, P(|Z| >= 4) = 0.019
    assert (
        opt[0]["note"] == "a fixed table (test)"
    )  # a note the table does not word itself: the method's reason


def test_optimal_not_applicable_is_a_row_with_its_reason(monkeypatch, data_dir):
    """A calibration with no noise (the LP infeasible, a query that is not integer) is a row of nans
    with the reason, never a dropped point."""
    monkeypatch.setitem(
        CALIBRATION_METHODS,
        "optimal",
        Method("optimal", lambda p: p.not_applicable("optimal", "the LP is infeasible (test)"), "none"),
    )
    X._CHAIN_CALIBRATIONS.clear()
    try:
        rows, _ = run_utility(
            parse_utility(
                {
                    "utility": {
                        "dataset": "activity",
                        "split": ["days"],
                        "epsilon": [3.0],
                        "runs": 50,
                        "mechanisms": ["optimal"],
                    }
                }
            ),
            data_dir,
        )
    finally:
        X._CHAIN_CALIBRATIONS.clear()
    (r,) = rows
    assert math.isnan(r["tau"]) and math.isnan(r["alpha_theory"]) and "infeasible" in r["note"]


def test_gaussian_and_genomic_variants_calibrate_through_the_registry(data_dir):
    """Galton (Gaussian groups of m = 3) and genomic (families of m) rows: the registry's bounds give
    the paper's DP parameters (general eps/m, Gaussian eps/h, DP eps)."""
    from bdpsim import bounds as B

    rows, vs = run_utility(
        parse_utility({"utility": {"dataset": "galton", "epsilon": [2.0], "runs": 50}}), data_dir
    )
    tau = {r["mechanism"]: r["tau"] for r in rows}
    assert tau["dp"] == 2.0 and tau["general"] == B.calibrate_general(2.0, 3)
    assert tau["gaussian"] == B.calibrate_gaussian(2.0, vs[0].model["rho"], 3)
    rows, _ = run_utility(
        parse_utility(
            {
                "utility": {
                    "dataset": "genomic",
                    "epsilon": [2.0],
                    "runs": 50,
                    "family_size": [5],
                    "records": 200,
                }
            }
        )
    )
    assert {r["mechanism"]: r["tau"] for r in rows} == {"dp": 2.0, "general": 2.0 / 5}


@pytest.mark.slow
def test_optimal_rows_with_the_lp(data_dir):
    """The real LP on the fixture's single days (n = 288) at eps = 5: its E|Z| is below the exact
    Laplace scale, its verified BDPL <= eps, tau (its DP epsilon) <= eps."""
    rows, _ = run_utility(
        parse_utility(
            {
                "utility": {
                    "dataset": "activity",
                    "split": ["days"],
                    "epsilon": [5.0],
                    "runs": 200,
                    "mechanisms": ["exact", "optimal"],
                }
            }
        ),
        data_dir,
    )
    ex, opt = rows
    assert opt["mechanism"] == "optimal" and opt["noise_scale"] < ex["noise_scale"]
    assert opt["tau"] <= 5.0 + 1e-9 and opt["mse_theory"] < ex["mse_theory"]
    assert np.isfinite(opt["alpha_empirical"])


def test_rows_do_not_depend_on_jobs(data_dir):
    """The Markov calibrations computed in worker processes give the same rows."""
    X._CHAIN_CALIBRATIONS.clear()
    cfg = parse_utility(
        {
            "utility": {
                "dataset": "activity",
                "split": ["days"],
                "epsilon": [4.0, 9.0],
                "runs": 50,
                "mechanisms": ["dp", "markov", "exact"],
            }
        }
    )
    one, _ = run_utility(cfg, data_dir)
    X._CHAIN_CALIBRATIONS.clear()
    two, _ = run_utility(cfg, data_dir, jobs=2)
    assert one == two


def test_findings_table_is_generated_from_the_committed_csv():
    import runpy
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    mod = runpy.run_path(str(root / "scripts" / "findings" / "utility_optimal.py"))
    assert mod["main"](["--check"]) == 0, "run: python scripts/findings/utility_optimal.py"


def test_committed_optimal_rows_are_consistent():
    """The committed bdpsim-utility-optimal rows: at every eps and variant the optimal noise's E|Z| is
    at most the exactly calibrated Laplace scale (both eps-BDP; the optimum is over every integer
    shape, Laplace's E|Z| is its scale), its DP epsilon tau is at most eps, and its alpha theory is
    an integer (a quantile of an integer law)."""
    from pathlib import Path

    from bdpsim.figures.gallery import read_rows

    rows = read_rows(
        Path(__file__).resolve().parents[2] / "results" / "figures" / "bdpsim-utility-optimal.csv"
    )
    at = {(r["variant"], r["mechanism"], r["epsilon"]): r for r in rows}
    opt = [r for r in rows if r["mechanism"] == "optimal"]
    assert opt and {r["variant"] for r in opt} == {"single days", "complete data"}
    for r in opt:
        lap = at[(r["variant"], "exact", r["epsilon"])]
        assert r["noise_scale"] <= lap["noise_scale"] and r["tau"] <= r["epsilon"] * (1 + 1e-9)
        assert float(r["alpha_theory"]).is_integer()
