"""The one query + noise family (bdpsim/mechanisms/noisy.py): the Laplace mechanisms are its
constructors, with the summary cells, DP parameter and adversary targets of the classes they
replaced; a config's epsilon is checked once and the Laplace law built once."""

from __future__ import annotations

import math
import pickle

import pytest

import bdpsim
from bdpsim.core.errors import ConfigError
from bdpsim.kernels.noise.laws import GaussianNoise, LaplaceNoise
from bdpsim.mechanisms import ClippedSum, LaplaceCount, LaplaceStateSum, LaplaceSum, NoisyQueryMechanism
from bdpsim.queries import ClippedSumQuery, CountQuery, SumQuery, laplace_noisy


def test_laplace_constructors_build_the_one_family():
    m = LaplaceCount(0.7, (0, 2))
    assert isinstance(m, NoisyQueryMechanism) and m.kind == "count"
    assert m.query_function == CountQuery((0, 2)) and m.noise == LaplaceNoise(1 / 0.7)
    assert m.epsilon == 0.7  # exactly as given (1 / (1 / 0.7) is not)
    assert m.columns()["noise_scale"] == 1 / 0.7 and m.summary_extras == ()
    assert laplace_noisy(m) == (m.query_function, m.noise)
    assert pickle.loads(pickle.dumps(m)) == m and m.noise is m.noise  # one law, kept
    c = ClippedSum(2.0, (1.0, 5.0))
    assert (c.columns()["clip_low"], c.columns()["clip_high"], c.columns()["noise_scale"]) == (1.0, 5.0, 2.0)
    assert c.adversary_targets("uniform") == ("uniform", (1.0, 5.0)) and c.epsilon == 2.0
    s = LaplaceSum(4.0, (1.0, 3.0))
    assert isinstance(s.query_function, SumQuery) and s.epsilon is None  # not DP: unbounded sensitivity
    assert s.adversary_targets("uniform") == ("fixed", (1.0, 3.0))
    assert (s.columns()["x"], s.columns()["x_prime"], s.columns()["noise_scale"]) == (1.0, 3.0, 4.0)
    assert LaplaceStateSum((0.0, 1.0, 3.0), epsilon=0.5).noise == LaplaceNoise(6.0)
    assert LaplaceStateSum((0.0, 1.0, 3.0), noise_scale=2.0).epsilon == 1.5  # (max - min) / b


def test_bad_arguments_name_the_config_fields():
    for make, field in (
        (lambda: LaplaceCount(-1.0), "mechanism.epsilon"),
        (lambda: ClippedSum(0.0), "mechanism.epsilon"),
        (lambda: LaplaceSum(0.0), "mechanism.noise_scale"),
        (lambda: LaplaceSum(1.0, (2.0, 2.0)), "mechanism.target_values"),
        (lambda: LaplaceStateSum((0.0, 1.0), 1.0, 2.0), "mechanism.epsilon"),
    ):
        with pytest.raises(ConfigError, match=rf"^{field} = "):
            make()


def test_a_count_config_checks_epsilon_once_and_builds_one_law(monkeypatch):
    """From the config to the exact engine's answer the epsilon is checked once (by the law) and
    the Laplace law built once (it was checked five times: the law's rule, the Laplace count's own,
    and the Laplace object rebuilt at each use)."""
    import bdpsim.kernels.noise.laws as L
    from bdpsim.pipeline.config import parse_config

    seen = []
    check = L.positive
    monkeypatch.setattr(L, "positive", lambda param, value: seen.append(param) or check(param, value))
    cfg = parse_config(
        {
            "run": {"estimator": "exact", "adversaries": 20, "seed": 1},
            "model": {"kind": "markov", "n": 6, "gamma": 3.0},
            "mechanism": {"kind": "count", "epsilon": 0.7},
        }
    )
    point = cfg.points[0]
    assert bdpsim.exact_bdpl(point.model.fixed, point.mechanism).bdpl == pytest.approx(
        bdpsim.exact_bdpl(point.model.fixed, LaplaceCount(0.7)).bdpl, rel=1e-15
    )
    assert seen[:2] == ["epsilon", "scale"] and seen.count("epsilon") == 2  # the config's, and ours above
    assert point.mechanism.epsilon == 0.7


def test_a_law_not_built_from_the_epsilon_answers_for_itself():
    """A config's epsilon beside a law that does not take it (a table, Gaussian noise) is not the
    mechanism's DP parameter: the law's own answers (none: no pure DP)."""
    m = NoisyQueryMechanism(CountQuery((1,)), GaussianNoise(1.0), stated_epsilon=1.0)
    assert m.epsilon is None and m.summary_extras == ("noise", "noise_parameter", "staircase_gamma")
    clipped = NoisyQueryMechanism(ClippedSumQuery((0.0, 2.0)), GaussianNoise(1.0), "clipped_sum")
    assert clipped.columns()["clip_high"] == 2.0 and math.isnan(clipped.columns()["noise_scale"])
