"""Adversaries ``(i, K, x_K, x, x')`` (thesis §3.1, paper §3; drawn as in thesis §3.1.2 step 1).

An adversary targets record ``i``, knows the records ``K`` exactly (values ``x_K``) and
distinguishes ``X_i = x`` from ``X_i = x'``. Samplers take the ``numpy.random.Generator`` as an
argument and hold no state.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import ConfigError, check
from .models import GaussianModel


@dataclass(frozen=True)
class Adversary:
    """Target index ``i``, known positions ``known`` with values ``x_known``, targets ``x != x'``."""

    i: int
    known: tuple[int, ...]
    x_known: tuple
    x: float
    x_prime: float

    def __post_init__(self) -> None:
        check(len(self.known) == len(self.x_known), "adversary.x_known", self.x_known,
              "needs one value per known position")
        check(self.i not in self.known, "adversary.known", self.known, "must not contain the target i")
        check(self.x != self.x_prime, "adversary.x_prime", self.x_prime, "must differ from x")

    def condition(self, target) -> dict:
        """The conditioning event ``{K: x_K, i: target}`` as a position -> value mapping."""
        cond = dict(zip(self.known, self.x_known))
        cond[self.i] = target
        return cond

    def as_row(self) -> dict:
        fmt = (lambda v: str(int(v))) if isinstance(self.x, (int, np.integer)) else (lambda v: f"{v:.6g}")
        return {"i": self.i, "known": ";".join(str(k) for k in self.known),
                "x_known": ";".join(fmt(v) for v in self.x_known),
                "x": fmt(self.x), "x_prime": fmt(self.x_prime)}


def known_sizes(spec, n: int) -> tuple[int, ...]:
    """Allowed known-set sizes: ``"thesis"`` = 1..n-1, ``"all"`` = 0..n-1, or a list."""
    if spec == "thesis":
        return tuple(range(1, n))
    if spec == "all":
        return tuple(range(0, n))
    if isinstance(spec, (list, tuple)) and spec and all(
            isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in spec):
        sizes = tuple(sorted({int(k) for k in spec}))
        check(all(0 <= k <= n - 1 for k in sizes), "run.known_sizes", list(spec),
              f"sizes must be in 0..n-1 = 0..{n - 1}")
        return sizes
    raise ConfigError("run.known_sizes", spec, "must be 'thesis', 'all' or a non-empty list of integer sizes")


def is_upward_closed(sizes: Sequence[int], n: int) -> bool:
    """True when ``sizes`` is ``{k, ..., n-1}``: every superset of an allowed known set is then
    allowed too (what the window reduction of exhaustive Markov searches needs)."""
    return bool(sizes) and tuple(sizes) == tuple(range(sizes[0], n))


def known_sets(n: int, i: int, sizes: Sequence[int]):
    """Every known set ``K`` of ``[n] \\ {i}`` with ``|K|`` in ``sizes`` (exhaustive enumeration)."""
    others = [j for j in range(n) if j != i]
    for k in sizes:
        yield from itertools.combinations(others, k)


def _draw_known_set(n: int, sizes: Sequence[int], rng: np.random.Generator) -> tuple[int, tuple[int, ...]]:
    i = int(rng.integers(n))
    k = int(sizes[rng.integers(len(sizes))])
    others = np.delete(np.arange(n), i)
    known = tuple(sorted(int(j) for j in rng.choice(others, size=k, replace=False)))
    return i, known


def random_discrete_adversary(model, sizes: Sequence[int],
                              rng: np.random.Generator, max_tries: int = 1000) -> Adversary:
    """Adversary of a model with finitely many ``states`` per record (Markov chain, pedigree):
    uniform ``i``, size ``k`` uniform in ``sizes``, ``K`` uniform of that size, a uniform
    ordered pair of distinct states ``(x, x')`` and ``x_K`` from the model's marginal; redrawn when
    either conditioning event has probability zero (possible only when the law has zeros).
    """
    s = model.states
    for _ in range(max_tries):
        i, known = _draw_known_set(model.n, sizes, rng)
        x, xp = (int(v) for v in rng.choice(s, size=2, replace=False))
        x_known = tuple(int(v) for v in model.sample(1, rng)[0, list(known)])
        adv = Adversary(i, known, x_known, x, xp)
        if np.isfinite(model.log_evidence(adv.condition(x))) and \
                np.isfinite(model.log_evidence(adv.condition(xp))):
            return adv
    raise ConfigError("model", getattr(model, "kind", "model"),
                      "no adversary with positive-probability conditions found")


def random_gaussian_adversary(model: GaussianModel, sizes: Sequence[int], rng: np.random.Generator,
                              targets: str, target_range: tuple[float, float]) -> Adversary:
    """Gaussian adversary: ``x_K ~ N(mu_K, S_KK)`` (the model's marginal) and targets

    ``"uniform"``: ``x, x'`` independent uniform on ``target_range``;
    ``"endpoints"``: ``{x, x'} = {low, high}`` in random order;
    ``"fixed"``: ``x, x' = target_range`` (the unclipped sum's ``target_values``).
    """
    i, known = _draw_known_set(model.n, sizes, rng)
    lo, hi = target_range
    if targets == "uniform":
        x, xp = (float(v) for v in rng.uniform(lo, hi, size=2))
    elif targets == "endpoints":
        x, xp = (lo, hi) if rng.random() < 0.5 else (hi, lo)
    elif targets == "fixed":
        x, xp = float(lo), float(hi)
    else:
        raise ConfigError("run.targets", targets, "must be 'uniform' or 'endpoints'")
    xk = model.sample(1, rng)[0, list(known)] if known else np.zeros(0)
    return Adversary(i, known, tuple(float(v) for v in xk), x, xp)


def draw_adversary(model, sizes: Sequence[int], rng: np.random.Generator, targets: str,
                   target_range: tuple[float, float] | None) -> Adversary:
    """One random adversary (thesis §3.1.2 step 1) for any data model: discrete models (with a
    ``states`` attribute) draw a pair of distinct states; continuous ones draw ``x, x'`` by
    ``targets`` on ``target_range`` (``"fixed"``: exactly ``target_range``)."""
    if hasattr(model, "states"):
        return random_discrete_adversary(model, sizes, rng)
    return random_gaussian_adversary(model, sizes, rng, targets, target_range)
