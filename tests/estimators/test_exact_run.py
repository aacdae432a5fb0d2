"""Exact mode through configs and the CLI; the accuracy report."""

import csv
import gzip
import math

import pytest

from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_experiment
from bdpsim.studies.accuracy import GRID, accuracy_table, write_report

DOC = {
    "run": {
        "adversaries": "all",
        "estimator": "exact",
        "known_sizes": "all",
        "adversary_rows": 50,
        "exhaustive_method": "enumerate",
    },
    "model": {"kind": "markov", "n": 6, "gamma": [1.0, 5.0]},
    "mechanism": {"kind": "count", "epsilon": 1.0},
}


def test_exhaustive_run_fills_exact_columns(tmp_path):
    rows = run_experiment(parse_config(DOC), tmp_path, jobs=1, progress=False)  # same numbers for any jobs
    by_gamma = {r["gamma"]: r for r in rows}
    assert by_gamma[1.0]["bdpl_max"] == pytest.approx(1.0, abs=1e-12)
    r5 = by_gamma[5.0]
    assert r5["bdpl_max"] == pytest.approx(3.0753, abs=1e-4) and r5["bdpl_exact"] == r5["bdpl_max"]
    assert r5["argmax_known"] == "" and r5["n_adversaries"] == 6 * 3**5
    assert math.isnan(r5["bdpl_p99_ci_low"])  # no sampling of adversaries: no bootstrap CI
    with gzip.open(tmp_path / "adversaries.csv.gz", "rt") as fh:
        adv = list(csv.DictReader(fh))
    assert len(adv) == 2 * 50  # adversary_rows keeps the 50 most leaking per configuration
    assert max(float(a["bdpl"]) for a in adv) == pytest.approx(r5["bdpl_max"])


def test_window_search_agrees_with_enumeration(tmp_path):
    """run.exhaustive_method = "window" finds the same maximum over all 6 * 3**5 adversaries."""
    doc = {**DOC, "run": {**DOC["run"], "exhaustive_method": "window"}}
    rows = run_experiment(parse_config(doc), tmp_path, jobs=1, progress=False)
    by_gamma = {r["gamma"]: r for r in rows}
    assert by_gamma[1.0]["bdpl_max"] == pytest.approx(1.0, abs=1e-12)
    assert by_gamma[5.0]["bdpl_max"] == pytest.approx(3.0753, abs=1e-4)
    assert by_gamma[5.0]["n_adversaries"] < 6 * 3**5  # window adversaries only


def test_exact_random_adversaries_and_gaussian_sum(tmp_path):
    doc = {
        "run": {"adversaries": 30, "estimator": "exact"},
        "model": {"kind": "gaussian", "n": 4, "rho": 0.2, "cov_draw": "equicorrelated"},
        "mechanism": {"kind": "sum", "noise_scale": 10.0, "target_values": [0.0, 10.0]},
    }
    (r,) = run_experiment(parse_config(doc), tmp_path / "a", jobs=1, progress=False)
    assert r["bdpl_max"] <= 1 + 3 * 0.2 + 1e-12
    doc["run"]["adversaries"] = "all"
    doc["run"]["known_sizes"] = "all"
    (r,) = run_experiment(parse_config(doc), tmp_path / "b", jobs=1, progress=False)
    assert r["bdpl_max"] == pytest.approx(1.6)  # equicorrelated, K = {}: 1 + (n - 1) rho
    assert r["bound_model"] >= r["bdpl_max"]


def test_accuracy_report_quick(tmp_path):
    rows = accuracy_table(samples=(1_000, 30_000), adversaries=3, jobs=1, cases=GRID[1:2] + GRID[4:5])
    from bdpsim.figures.accuracy import save_accuracy

    paths = write_report(tmp_path, rows, {"test": True}) + save_accuracy(rows, tmp_path)
    assert all(p.is_file() for p in paths)
    mix = {r["samples"]: r for r in rows if r["estimator"] == "mixture" and r["case"] == GRID[1].name}
    assert mix[30_000]["rmse"] < mix[1_000]["rmse"]
    assert {r["estimator"] for r in rows} == {"kde", "mixture"}
