"""Blocks that no test reached (docs/generated/coverage.md, issue 37 item 3), now tested on cases
with a known answer: the frontier study's rows, ``bdpsim worst-case gaussian``'s report and
``bdpsim calibrate markov --noise geometric``'s table."""

import math

import numpy as np
import pytest

from bdpsim.studies.frontier import frontier_rows


def test_frontier_rows_on_a_small_chain():
    """The optimal noise is the frontier: no calibrated law has a smaller E|Z| at the same eps;
    every exact calibration meets eps with equality, the Markov Quilt stays below it; the pmf rows
    of the geometric law are its closed form (1 - q)/(1 + q) q^|k|, q from its E|Z| = 2q/(1 - q^2)."""
    eps = 1.0
    rows = frontier_rows(chains=(("tiny", [[0.8, 0.2], [0.3, 0.7]], 5),), epsilons=(eps,), pmf_range=3)
    fr = {(r["method"], r["noise"]): r for r in rows if r["kind"] == "frontier"}
    assert set(fr) == {
        ("optimal", "table"),
        ("exact", "laplace"),
        ("exact", "geometric"),
        ("exact", "staircase"),
        ("markov-quilt-exact", "laplace"),
    }
    opt = fr["optimal", "table"]["mean_abs"]
    assert all(opt <= r["mean_abs"] * (1 + 1e-9) for r in fr.values())
    for key, r in fr.items():
        assert r["bdpl"] <= eps + 1e-6, key
        if key[0] != "markov-quilt-exact":
            assert r["bdpl"] == pytest.approx(eps, abs=1e-6), key
    pmf = [r for r in rows if r["kind"] == "pmf"]
    assert [r["k"] for r in pmf] == list(range(-3, 4))
    m = fr["exact", "geometric"]["mean_abs"]
    q = (math.sqrt(1 + m * m) - 1) / m
    k = np.array([r["k"] for r in pmf])
    assert np.allclose([r["p_geometric"] for r in pmf], (1 - q) / (1 + q) * q ** np.abs(k), rtol=1e-9, atol=0)
    p_opt = np.array([r["p_optimal"] for r in pmf])
    assert (p_opt >= 0).all() and p_opt.sum() <= 1 + 1e-12


def test_worst_case_gaussian_report(bdpsim_cli):
    """n = 3, rho = 0.2: the equicorrelated slope is 1 + (n - 1) rho = 1.4; the worst slope is at
    least that; BDPL = slope |x - x'| / b; the Gaussian bound (m^2/(4(1/rho - m + 2)) + 1) |x - x'| / b
    = 9/16 + 1 with |x - x'| = b = 10."""
    rc, out, err = bdpsim_cli(
        "worst-case", "gaussian", "--n", "3", "--rho", "0.2", "--starts", "2", "--quiet"
    )
    assert rc == 0 and err == "", err
    val = {line[:24].strip(): line[24:].split()[0] for line in out.splitlines()[1:6] if len(line) > 24}
    assert float(val["equicorrelated, K = {}"]) == pytest.approx(1.4, abs=1e-6)
    slope = float(val["worst slope |a|"])
    assert slope >= 1.4 - 1e-6
    assert float(val["worst BDPL(x, x')"]) == pytest.approx(slope * 10 / 10, abs=1e-6)
    assert float(val["Gaussian bound (m = n)"]) == pytest.approx(9 / 16 + 1, abs=1e-6)
    assert "worst correlation matrix:" in out


def test_calibrate_geometric_table_on_independent_records(bdpsim_cli):
    """Independent records (every row of P the same): the BDPL is the noise's DP epsilon, so the
    exact geometric calibration is epsilon' = eps, with E|Z| = 2q/(1 - q^2), q = exp(-eps)."""
    rc, out, err = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        "[[0.7,0.3],[0.7,0.3]]",
        "--n",
        "4",
        "--epsilon",
        "1",
        "--noise",
        "geometric",
    )
    assert rc == 0, err
    head, row = [line for line in out.splitlines() if not line.startswith("query:")][:2]
    assert head.split() == ["method", "noise", "epsilon", "E|Z|", "BDPL", "(nats)", "eps-BDP?"]
    method, noise, par, mean_abs, bdpl, verdict = row.split()
    q = math.exp(-1.0)
    assert (method, noise, verdict) == ("exact", "geometric", "yes")
    assert float(par) == pytest.approx(1.0, rel=1e-5) and float(bdpl) == pytest.approx(1.0, rel=1e-5)
    assert float(mean_abs) == pytest.approx(2 * q / (1 - q * q), rel=1e-5)
    assert max(map(len, out.splitlines())) <= 80
