"""Thesis method: probes of the estimators layer."""

import math

import numpy as np
import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.estimators import KdeEstimator, exact_reference
from bdpsim.kernels.stats import interval_coverage, order_statistic_ranks, percentile_ci
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_chunk, run_experiment

from ..support.thesis_method import (
    FIG15,
    _adversaries,
    thesis_method,
)


def test_default_kde_is_the_thesis_method_on_identical_samples():
    """bdpsim's default run (signed ratio, unshifted fastKDE) equals the straightforward
    implementation above on the same samples, adversary by adversary, to floating point."""
    point = parse_config(FIG15).points[0]
    res = run_chunk(point, range(4))
    mech = point.mechanism
    for j in range(4):
        r_draw, r_est, _ = point.adversary_streams(j)
        model, adv = point.draw_adversary(r_draw)
        ref = thesis_method(model, mech, adv, 20_000, r_est)
        assert res.stats["bdpl"][j] == pytest.approx(ref, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("shift,signed", [(True, True), (False, False), (True, False)])
def test_variants_are_what_they_say(shift, signed):
    point = parse_config(FIG15).points[0]
    model, adv = point.draw_adversary(np.random.default_rng(3))
    est = KdeEstimator(
        20_000, sampling="data", ratio="signed" if signed else "symmetric", positive_shift=shift
    )
    got = est.estimate(model, point.mechanism, adv, np.random.default_rng(4)).value
    ref = thesis_method(
        model, point.mechanism, adv, 20_000, np.random.default_rng(4), shift=shift, signed=signed
    )
    assert got == pytest.approx(ref, rel=1e-12)


def test_kde_options_are_validated():
    for run, field in [
        ({"kde_ratio": "abs"}, "run.kde_ratio"),
        ({"kde_positive_shift": 1}, "run.kde_positive_shift"),
        ({"kde_backend": "fastkde_points", "kde_positive_shift": True}, "run.kde_positive_shift"),
        ({"mixture_target_se": -0.1}, "run.mixture_target_se"),
        ({"mixture_max_samples": 0}, "run.mixture_max_samples"),
    ]:
        with pytest.raises(ConfigError, match=field):
            parse_config({**FIG15, "run": {**FIG15["run"], **run}})


def test_new_keys_keep_point_ids():
    """The id (and so the seeds) of a config that does not set the new keys is unchanged
    (pinned: the id bdpsim gave this config before the keys existed)."""
    assert parse_config(FIG15).points[0].id == "6aa8971616dac3d6"


# ----------------------------------------------------------------------------- common adversaries


@pytest.mark.parametrize(
    "model,mechanism,targets",
    [
        ({"kind": "markov", "n": 6, "gamma": 4.0}, {"kind": "count", "epsilon": 1.0}, "uniform"),
        ({"kind": "gaussian", "n": 4, "rho": 0.2}, {"kind": "clipped_sum", "epsilon": 1.0}, "endpoints"),
    ],
)
def test_estimators_of_one_config_examine_the_same_adversaries(tmp_path, model, mechanism, targets):
    doc = {
        "run": {
            "adversaries": 12,
            "samples": [2000, 3000],
            "estimator": ["kde", "mixture"],
            "known_sizes": "all",
            "noise_floor_adversaries": 2,
            "targets": targets,
        },
        "model": model,
        "mechanism": mechanism,
    }
    cfg = parse_config(doc)
    assert len({p.population_key for p in cfg.points}) == 1 and len({p.key for p in cfg.points}) == 4
    run_experiment(cfg, tmp_path, progress=False)
    by_point: dict = {}
    for r in _adversaries(tmp_path):
        by_point.setdefault(r["point_id"], {})[int(r["adversary"])] = tuple(
            r[k] for k in ("i", "known", "x_known", "x", "x_prime")
        )
    assert len(by_point) == 4
    first, *rest = by_point.values()
    assert len(first) == 12 and all(other == first for other in rest)
    assert len(set(first.values())) > 6  # and they are different adversaries, not one repeated
    other = parse_config({**doc, "model": {**model, "n": model["n"] + 1}}).points[0]
    assert other.population_key != cfg.points[0].population_key


def test_kde_rows_compare_with_the_one_sided_exact_value(tmp_path):
    """A signed kde estimate is compared with the one-sided exact sup of its ordered pair; the
    mixture with the two-sided one, on the same adversary."""
    doc = {
        "run": {
            "adversaries": 30,
            "samples": 2000,
            "estimator": ["kde", "mixture"],
            "known_sizes": "all",
            "noise_floor_adversaries": 0,
        },
        "model": {"kind": "markov", "n": 6, "gamma": 8.0},
        "mechanism": {"kind": "count", "epsilon": 2.0},
    }
    cfg = parse_config(doc)
    run_experiment(cfg, tmp_path, progress=False)
    rows = _adversaries(tmp_path)
    kde = {int(r["adversary"]): float(r["exact"]) for r in rows if r["point_id"] == cfg.points[0].id}
    mix = {int(r["adversary"]): float(r["exact"]) for r in rows if r["point_id"] == cfg.points[1].id}
    assert all(kde[j] <= mix[j] + 1e-12 for j in kde) and any(kde[j] < mix[j] - 0.1 for j in kde)
    p = cfg.points[0]
    model, adv = p.draw_adversary(p.adversary_streams(0)[0])
    assert kde[0] == pytest.approx(exact_reference(model, p.mechanism, adv, signed=True).value, abs=1e-12)


# ----------------------------------------------------------------------------- percentile interval


@pytest.mark.parametrize("size", [150, 1000])
def test_order_statistic_interval_covers_by_simulation(size):
    """2000 samples of an exponential law (p99 = ln 100): the 95 % interval covers at least
    95 % minus three Monte Carlo standard errors, for a continuous and for a discrete law."""
    rng = np.random.default_rng(size)
    reps = 2000
    mc = 3 * math.sqrt(0.95 * 0.05 / reps)
    low, high = order_statistic_ranks(size, 99.0, 0.95)
    for draw, truth in [
        (lambda: rng.exponential(1.0, (reps, size)), math.log(100.0)),
        (lambda: rng.poisson(3.0, (reps, size)).astype(float), 8.0),
    ]:  # Poisson(3) p99 = 8
        x = np.sort(draw(), axis=1)
        lo = x[:, low - 1] if low >= 1 else np.full(reps, -np.inf)
        hi = x[:, high - 1] if high <= size else np.full(reps, np.inf)
        cover = np.mean((lo <= truth) & (truth <= hi))
        assert cover >= 0.95 - mc, (size, cover)
    assert interval_coverage(size, 99.0) >= 0.95
    # the sample cannot bound the 99th percentile of 150 values from above: the limit is infinite
    assert (high > size) == (size == 150)


def test_percentile_ci_edges():
    assert percentile_ci(np.arange(1000.0), 50.0)[0] < 499.5 < percentile_ci(np.arange(1000.0), 50.0)[1]
    assert percentile_ci(np.arange(10.0), 99.0) == (8.0, math.inf)
    assert all(math.isnan(v) for v in percentile_ci(np.array([]), 99.0))


def test_summary_interval_is_the_order_statistic_interval(tmp_path):
    # exact values: the interval is the order statistics' (a mixture point's comes from its adversaries'
    # own interval ends instead, issue 25: tests/estimators/test_intervals.py)
    doc = {
        "run": {
            "adversaries": 400,
            "estimator": "exact",
            "noise_floor_adversaries": 0,
            "known_sizes": "all",
        },
        "model": {"kind": "markov", "n": 5, "gamma": 3.0},
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    (r,) = run_experiment(parse_config(doc), tmp_path, progress=False)
    v = np.array([float(a["bdpl"]) for a in _adversaries(tmp_path)])
    assert (r["bdpl_p99_ci_low"], r["bdpl_p99_ci_high"]) == percentile_ci(v, 99.0, 0.95)
    assert math.isfinite(r["bdpl_p99_ci_high"])  # 400 adversaries bound the 99th percentile


# ----------------------------------------------------------------------------- exact means exact


def test_clipped_sum_exact_is_partial_and_says_so(tmp_path):
    doc = {
        "run": {
            "adversaries": 40,
            "samples": 2000,
            "estimator": "mixture",
            "known_sizes": "all",
            "noise_floor_adversaries": 0,
            "targets": "endpoints",
            "mixture_target_se": 0,
        },
        "model": {"kind": "gaussian", "n": 3, "rho": 0.3},
        "mechanism": {"kind": "clipped_sum", "epsilon": 1.0},
    }
    (r,) = run_experiment(parse_config(doc), tmp_path, progress=False)
    assert 0 < r["exact_n"] < r["n_adversaries"]
    assert math.isnan(r["bdpl_exact"]) and math.isnan(r["bdpl_exact_p99"])
    assert r["bdpl_exact_partial_max"] == pytest.approx(1.0)  # the tail value |10 - 0| / 10
    assert r["bound_lower"] == 1.0


def test_markov_exact_is_complete(tmp_path):
    doc = {
        "run": {"adversaries": 20, "samples": 2000, "estimator": "mixture", "noise_floor_adversaries": 0},
        "model": {"kind": "markov", "n": 5, "gamma": 3.0},
        "mechanism": {"kind": "count", "epsilon": 0.5},
    }
    (r,) = run_experiment(parse_config(doc), tmp_path, progress=False)
    assert r["exact_n"] == 20 and math.isfinite(r["bdpl_exact"]) and math.isnan(r["bdpl_exact_partial_max"])
    assert r["bound_lower"] == 0.5
