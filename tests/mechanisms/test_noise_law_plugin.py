"""A noise law is one class plus one registry line (issue 36): a toy law registered from this test
module runs a config end to end through :func:`bdpsim.run` without touching a package file, and
its exact privacy profile over every adversary equals an independent brute force.

The toy law is a two-point law ``Z = ±spread`` with probability 1/2 each (``spread = 0.5``: the
shifted output laws of a count overlap; not pure DP: ``dp_epsilon = inf``), with one config key of
its own, ``two_point_spread``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np
import pytest

import bdpsim
from bdpsim.core.schema import Key
from bdpsim.kernels.noise.laplace_mixture import MixtureSup
from bdpsim.kernels.noise.laws import (
    NOISE_LAWS,
    LaplaceNoise,
    StaircaseNoise,
    noise_keys,
    register_noise_law,
)
from bdpsim.mechanisms import MECHANISM_KINDS


def _output_laws(c1, w1, c2, w2, spread):
    """``{y: (p1(y), p2(y))}`` of ``C + Z`` for two atom sets (weights normalised here)."""
    out: dict[float, list[float]] = {}
    for k, (c, w) in enumerate(((c1, w1), (c2, w2))):
        w = np.asarray(w, dtype=float) / np.sum(w)
        for a, p in zip(np.asarray(c, dtype=float), w):
            for y in (a - spread, a + spread):
                out.setdefault(round(float(y), 9), [0.0, 0.0])[k] += 0.5 * p
    return out


def _sup(c1, w1, c2, w2, spread):
    fwd = bwd = -math.inf
    wf = wb = math.nan
    for y, (p, q) in sorted(_output_laws(c1, w1, c2, w2, spread).items()):
        if p == 0 and q == 0:
            continue
        r = math.inf if q == 0 else -math.inf if p == 0 else math.log(p / q)
        if r > fwd:
            fwd, wf = r, y
        if -r > bwd:
            bwd, wb = -r, y
    return fwd, bwd, wf, wb


@dataclass(frozen=True)
class TwoPointNoise:
    """``Z = ±spread``, each with probability 1/2."""

    spread: float = 1.0
    name: str = field(default="two_point", init=False)
    discrete: bool = field(default=True, init=False)
    parameter_name: str = field(default="spread", init=False)
    noise_grows_with_parameter: bool = field(default=True, init=False)
    calibratable: ClassVar[bool] = False
    pure_dp: ClassVar[bool] = False
    keys: ClassVar[dict] = {
        "two_point_spread": Key("float", 1.0, hashed=False, doc="the toy law's ±spread", rule="> 0")
    }

    @classmethod
    def from_params(cls, params):
        params.only("two_point", ("epsilon", "two_point_spread"))
        return cls(float(params.option("two_point_spread") or 1.0))

    def mean_abs(self) -> float:
        return self.spread

    @property
    def parameter(self) -> float:
        return self.spread

    def with_parameter(self, value):
        return replace(self, spread=value)

    def sample(self, size, rng):
        return self.spread * (2.0 * rng.integers(0, 2, size) - 1.0)

    def log_density(self, y):
        y = np.abs(np.asarray(y, dtype=float))
        return np.where(y == self.spread, math.log(0.5), -np.inf)

    def cdf(self, y):
        y = np.asarray(y, dtype=float)
        return 0.5 * (y >= -self.spread) + 0.5 * (y >= self.spread)

    def dp_epsilon(self, sensitivity):
        return math.inf if sensitivity > 0 else 0.0

    def sup_log_ratio(self, atoms1, w1, atoms2, w2):
        fwd, bwd, wf, wb = _sup(atoms1, w1, atoms2, w2, self.spread)
        return MixtureSup(max(fwd, bwd), fwd, bwd, wf if fwd >= bwd else wb)

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon):
        laws = _output_laws(atoms1, w1, atoms2, w2, self.spread)
        return float(sum(max(0.0, p - math.exp(epsilon) * q) for p, q in laws.values()))

    def grid_sup(self, W1, W2, delta):
        W1, W2 = np.atleast_2d(W1), np.atleast_2d(W2)
        c = np.arange(W1.shape[1]) * delta
        vals, where = [], []
        for a, b in zip(W1, W2):
            fwd, bwd, wf, wb = _sup(c, a, c, b, self.spread)
            vals.append(fwd if fwd >= bwd else -bwd)
            where.append((wf if fwd >= bwd else wb) / delta)
        return np.array(vals), np.array(where)

    def grid_delta(self, W1, W2, delta, epsilon):
        W1, W2 = np.atleast_2d(W1), np.atleast_2d(W2)
        c = np.arange(W1.shape[1]) * delta
        return np.array([self.hockey_stick(c, a, c, b, epsilon) for a, b in zip(W1, W2)])


@pytest.fixture
def two_point():
    register_noise_law(TwoPointNoise)
    try:
        yield TwoPointNoise
    finally:
        del NOISE_LAWS["two_point"]


def _brute_force(P, w, n, spread, eps, sizes):
    """Largest privacy profile ``max(delta(x || x'), delta(x' || x))`` at ``eps`` over every
    adversary (target ``i``, known set ``K`` of a size in ``sizes``, known values, ``x != x'``) of
    ``count(X = 1) + Z``, ``delta(p || q) = sum_y max(0, p(y) - e^eps q(y))``, by enumerating the
    ``2^n`` chains; conditions of probability zero are skipped."""
    chains = list(itertools.product((0, 1), repeat=n))
    prob = [w[x[0]] * math.prod(P[x[t - 1], x[t]] for t in range(1, n)) for x in chains]
    best = 0.0
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for size in sizes:
            for K in itertools.combinations(others, size):
                for vals in itertools.product((0, 1), repeat=size):
                    laws = []
                    for x in (0, 1):
                        law: dict[int, float] = {}
                        for ch, p in zip(chains, prob):
                            if ch[i] == x and all(ch[k] == v for k, v in zip(K, vals)):
                                law[sum(ch)] = law.get(sum(ch), 0.0) + p
                        laws.append(law)
                    if sum(laws[0].values()) == 0 or sum(laws[1].values()) == 0:
                        continue
                    (c1, w1), (c2, w2) = (zip(*sorted(law.items())) for law in laws)
                    out = _output_laws(c1, w1, c2, w2, spread).values()
                    for a, b in ((0, 1), (1, 0)):
                        best = max(best, sum(max(0.0, v[a] - math.exp(eps) * v[b]) for v in out))
    return best


def test_a_registered_toy_law_runs_a_config_end_to_end(two_point, tmp_path):
    assert "two_point_spread" in noise_keys() and "two_point_spread" in MECHANISM_KINDS["count"].keys
    cfg = {
        "run": {
            "estimator": "exact",
            "adversaries": "all",
            "known_sizes": "all",
            "seed": 1,
            "epsilon_profile": 0.5,
        },  # no pure DP: the exact engine reports the privacy profile
        "model": {"kind": "markov", "n": 4, "gamma": 3.0},
        "mechanism": {"kind": "count", "noise": "two_point", "two_point_spread": 0.5},
    }
    rows = bdpsim.run(cfg, tmp_path / "out", as_frame=False)
    assert len(rows) == 1 and rows[0]["noise"] == "two_point" and rows[0]["noise_parameter"] == 0.5
    from bdpsim.pipeline.config import parse_config

    m = parse_config(cfg).points[0].model.probe()  # the run's chain (gamma = 3: its transition matrix)
    P, w = np.asarray(m.transition), np.asarray(m.initial)
    expected = _brute_force(P, w, 4, 0.5, 0.5, range(4))
    assert 0 < expected < 1
    assert rows[0]["bdp_delta"] == pytest.approx(expected, rel=1e-12)


def test_removing_the_toy_law_removes_its_keys(two_point):
    from bdpsim.kernels.noise.traits import TRAITS, law_names

    # a law that declares no traits gets those its class attributes give, beside the built-ins'
    assert TRAITS["two_point"].amount == "spread" and not TRAITS["two_point"].calibratable
    assert "two_point" in law_names(pure_dp=False) and "two_point" not in law_names(calibratable=True)
    del NOISE_LAWS["two_point"]
    try:
        assert "two_point" not in TRAITS
        assert "two_point_spread" not in MECHANISM_KINDS["count"].keys
        with pytest.raises(ValueError, match=r"^mechanism\.noise = 'two_point': must be one of "):
            bdpsim.run(
                {
                    "model": {"kind": "markov", "n": 3, "gamma": 3.0},
                    "mechanism": {"kind": "count", "epsilon": 1.0, "noise": "two_point"},
                }
            )
    finally:
        register_noise_law(TwoPointNoise)


@dataclass(frozen=True)
class DoubledLaplace(LaplaceNoise):
    """``Lap(2 scale)``, written as a subclass of the built-in law changing only its density."""

    name: str = field(default="doubled", init=False)

    def sample(self, size, rng):
        return rng.laplace(0.0, 2.0 * self.scale, size)

    def log_density(self, y):
        return -np.abs(np.asarray(y, dtype=float)) / (2.0 * self.scale) - math.log(4.0 * self.scale)


@dataclass(frozen=True)
class ScaledTwoPoint(TwoPointNoise):
    """The toy law with its parameter named ``scale``, the mark of the Laplace kernel."""

    scale: float = 1.0


@dataclass(frozen=True)
class CoarseStaircase(StaircaseNoise):
    """A staircase law whose pdf is changed, its exact kernels (``_sup``, ``_delta``) inherited."""

    def log_density(self, y):
        return super().log_density(2.0 * np.asarray(y, dtype=float)) + math.log(2.0)


def test_a_law_that_would_run_a_built_in_laws_numbers_is_refused():
    """Before: ``DoubledLaplace`` registered, and ``bdpsim.run`` with ``noise = "doubled"`` gave
    the Laplace count's exact BDPL (1.93216 on a 4-record chain, gamma = 3, eps = 1), its density
    ignored: the engines call a law's exact functions (inherited: Laplace's) and take any law with
    a ``scale`` for the Laplace kernel. Refused at registration, naming what it inherits."""
    with pytest.raises(
        TypeError,
        match=r"^noise law 'doubled': subclasses the built-in LaplaceNoise and changes its sample, "
        r"log_density but inherits its exact grid_sup, grid_delta, sup_log_ratio, hockey_stick: "
        r"bdpsim would compute LaplaceNoise's numbers",
    ):
        register_noise_law(DoubledLaplace)
    with pytest.raises(TypeError, match=r"_sup, _delta: bdpsim would compute StaircaseNoise's numbers"):
        NOISE_LAWS.register(CoarseStaircase, "coarse")
    with pytest.raises(
        TypeError,
        match=r"^noise law 'two_point': has a 'scale', the mark of the built-in LaplaceNoise \(bdpsim "
        r"computes a law with a 'scale' as laplace noise",
    ):
        register_noise_law(ScaledTwoPoint)
    assert not {"doubled", "coarse", "two_point"} & set(NOISE_LAWS)
