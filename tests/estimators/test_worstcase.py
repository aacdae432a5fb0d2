"""Worst-case searches: never below the known constructions, never above the theorems."""

import numpy as np
import pytest

from bdpsim import bounds as B
from bdpsim.core.errors import ConfigError
from bdpsim.models import GaussianModel
from bdpsim.models.gaussian.exact import gaussian_sum_coefficient
from bdpsim.studies.worstcase import sum_slope, worst_gaussian_sum, worst_markov_chain

from ..support.bad_config import cli, one_line_error


def test_sum_slope_matches_model_coefficient(rng):
    from bdpsim.models import limited_covariance

    R = limited_covariance(5, 0.2, 1.0, rng)
    assert sum_slope(R, 2) == pytest.approx(
        gaussian_sum_coefficient(GaussianModel(np.zeros(5), R), 0, (1, 2))
    )


@pytest.mark.parametrize("n,rho", [(3, 0.5), (4, 0.3), (5, 0.2)])
def test_gaussian_search_at_least_equicorrelated_and_below_bound(n, rho):
    r = worst_gaussian_sum(n, rho, np.random.default_rng(0), starts=10)
    assert r.slope >= 1 + (n - 1) * rho - 1e-9
    assert np.linalg.eigvalsh(r.correlation)[0] > 0
    assert np.max(np.abs(r.correlation - np.eye(n))) <= rho + 1e-12
    assert sum_slope(r.correlation, r.known_size) == pytest.approx(r.slope)
    h = B.gaussian_factor(rho, n)
    assert r.slope <= h + 1e-9, "worst case above the Gaussian bound: bug or counterexample"


def test_mixed_signs_beat_equicorrelated():
    """n = 5, rho = 0.3: a known set of 2 and anti-correlated records give |a| = 2.46 > 2.2."""
    r = worst_gaussian_sum(5, 0.3, np.random.default_rng(0), starts=10)
    assert r.slope > 2.45 and r.known_size == 2


def test_markov_symmetric_chain_is_worst_for_two_states():
    r = worst_markov_chain(4.0, 5, 1.0, np.random.default_rng(0), starts=3, maxiter=60)
    assert r.bdpl == pytest.approx(r.symmetric_bdpl, abs=1e-9)
    assert B.gamma_of(r.transition) <= 4.0 + 1e-9
    assert r.bdpl <= r.markov_bound


def test_bad_arguments():
    with pytest.raises(ConfigError):
        worst_gaussian_sum(20, 0.1, np.random.default_rng(0))
    with pytest.raises(ConfigError):
        worst_markov_chain(0.5, 5, 1.0, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="starts"):  # three states have no symmetric start to fall back on
        worst_markov_chain(3.0, 4, 1.0, np.random.default_rng(0), states=3, starts=0)


def test_markov_three_state_search_respects_ratio_and_bound():
    r = worst_markov_chain(3.0, 4, 1.0, np.random.default_rng(1), states=3, starts=2, maxiter=40)
    assert r.transition.shape == (3, 3) and np.allclose(r.transition.sum(1), 1)
    assert B.gamma_of(r.transition) <= 3.0 + 1e-9
    assert 1.0 <= r.bdpl <= r.markov_bound


@pytest.mark.timeout(
    120
)  # a hang guard, not a speed check (seconds here; how quickly: scripts/benchmarks/benchmark_limits.py)
def test_worst_case_gaussian_is_capped():
    from bdpsim.studies.worstcase import worst_gaussian_sum

    # n = 12, rho = 0.5 looped forever; this case too, and is quicker
    r = worst_gaussian_sum(8, 0.9, np.random.default_rng(1), starts=2)
    assert r.capped and r.starts >= 1 and r.slope >= r.equicorrelated - 1e-9


def test_worst_case_reports_progress_without_a_terminal(capsys, fast_beat, monkeypatch):
    from bdpsim.studies import worstcase as W

    real = W.worst_markov_chain

    def slow(*args, progress=None, **kw):  # a search long enough for a heartbeat
        import time

        progress(0, 2)
        time.sleep(0.3)
        return real(*args, progress=progress, **kw)

    monkeypatch.setattr(W, "worst_markov_chain", slow)
    rc, out, err = cli(
        capsys, "worst-case", "markov", "--gamma", "3", "--epsilon", "1", "--n", "3", "--starts", "2"
    )
    assert rc == 0 and "worst exact BDPL found" in out
    beats = [x for x in err.splitlines() if x.startswith("bdpsim worst-case: ")]
    assert beats and all("/2 searches" in x and "s elapsed" in x for x in beats), err
    rc, out, err = cli(
        capsys,
        "worst-case",
        "markov",
        "--gamma",
        "3",
        "--epsilon",
        "1",
        "--n",
        "3",
        "--starts",
        "2",
        "--quiet",
    )
    assert rc == 0 and err == ""


@pytest.mark.parametrize(
    "args,field",
    [
        (["gaussian", "--n", "4", "--rho", "0.3", "--distance", "nan"], "--distance"),
        (["gaussian", "--n", "4", "--rho", "0.3", "--starts", "0"], "--starts"),
        (["gaussian", "--n", "4", "--rho", "nan"], "--rho"),
        (["gaussian", "--n", "4", "--rho", "0.3", "--noise-scale", "inf"], "--noise-scale"),
        (["markov", "--gamma", "3", "--epsilon", "1", "--starts", "-1"], "--starts"),
        (["markov", "--gamma", "inf", "--epsilon", "1"], "--gamma"),
        (["markov", "--gamma", "3", "--epsilon", "nan"], "--epsilon"),
    ],
)
def test_worst_case_bad_arguments(capsys, args, field):
    rc, out, err = cli(capsys, "worst-case", *args)
    one_line_error(rc, err, field)
    assert out == ""
