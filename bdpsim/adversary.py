"""Adversaries ``(i, K, x_K, x, x')`` (thesis §3.1, paper §3) and their known sets.

An adversary targets record ``i``, knows the records ``K`` exactly (values ``x_K``) and
distinguishes ``X_i = x`` from ``X_i = x'``. How an adversary's values are drawn depends on the
data model, so each model kind draws its own (:meth:`bdpsim.models.base.ModelKind.draw_adversary`);
this module holds what they share. Samplers take the ``numpy.random.Generator`` as an argument
and hold no state.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .core.errors import ConfigError, check


@dataclass(frozen=True)
class Estimate:
    """One adversary's BDPL value — an estimate, or exact (``sup_s ln p(s | x_K, x) / p(s | x_K, x')``,
    one- or two-sided as its producer says).

    ``nonpositive`` counts KDE evaluation points where a density estimate was <= 0 (those points
    are excluded, never turned into inf/nan); ``argmax`` is the output where the sup was found;
    ``se`` is the estimate's standard error where the estimator derives one (``nan``: unknown);
    ``samples`` the samples per condition it used (``0``: none, e.g. exact); ``extra`` more
    per-adversary cells an estimator declares (:attr:`~bdpsim.estimators.base.Estimator.adversary_extras`).
    """

    value: float
    nonpositive: int = 0
    argmax: float = math.nan
    se: float = math.nan
    samples: int = 0
    extra: Mapping = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Adversary:
    """Target index ``i``, known positions ``known`` with values ``x_known``, targets ``x != x'``."""

    i: int
    known: tuple[int, ...]
    x_known: tuple
    x: float
    x_prime: float

    def __post_init__(self) -> None:
        check(
            len(self.known) == len(self.x_known),
            "adversary.x_known",
            self.x_known,
            "needs one value per known position",
        )
        check(self.i not in self.known, "adversary.known", self.known, "must not contain the target i")
        check(self.x != self.x_prime, "adversary.x_prime", self.x_prime, "must differ from x")

    def condition(self, target) -> dict:
        """The conditioning event ``{K: x_K, i: target}`` as a position -> value mapping."""
        cond = dict(zip(self.known, self.x_known))
        cond[self.i] = target
        return cond

    def as_row(self) -> dict:
        fmt = (lambda v: str(int(v))) if isinstance(self.x, (int, np.integer)) else (lambda v: f"{v:.6g}")
        return {
            "i": self.i,
            "known": ";".join(str(k) for k in self.known),
            "x_known": ";".join(fmt(v) for v in self.x_known),
            "x": fmt(self.x),
            "x_prime": fmt(self.x_prime),
        }


#: most records of a model whose known-set sizes are listed (the command line's ``--n`` limit: past
#: it the list alone takes gigabytes before any estimate of the work)
MAX_RECORDS = 10_000_000


def known_sizes(spec, n: int) -> tuple[int, ...]:
    """Allowed known-set sizes: ``"thesis"`` = 1..n-1, ``"all"`` = 0..n-1, or a list; a model of
    more than :data:`MAX_RECORDS` records is refused (``ConfigError`` on ``model.n``)."""
    check(
        n <= MAX_RECORDS,
        "model.n",
        n,
        f"must be at most {MAX_RECORDS:,} records (every adversary's known-set sizes are listed; "
        "the exact search does not grow with n past its window)",
    )
    if isinstance(spec, str) and spec == "thesis":
        return tuple(range(1, n))
    if isinstance(spec, str) and spec == "all":
        return tuple(range(0, n))
    if isinstance(spec, (range, np.ndarray)) and np.ndim(spec) == 1:  # range(1, n), an array
        spec = [int(k) if isinstance(k, (int, np.integer)) else k for k in spec]
    if (
        isinstance(spec, (list, tuple))
        and spec
        and all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in spec)
    ):
        sizes = tuple(sorted({int(k) for k in spec}))
        check(
            all(0 <= k <= n - 1 for k in sizes),
            "run.known_sizes",
            list(spec),
            f"sizes must be in 0..n-1 = 0..{n - 1}",
        )
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


def draw_known_set(n: int, sizes: Sequence[int], rng: np.random.Generator) -> tuple[int, tuple[int, ...]]:
    """Thesis §3.1.2 step 1: a uniform target ``i``, a size ``k`` uniform in ``sizes`` and a
    uniform known set ``K`` of that size among the other records."""
    i = int(rng.integers(n))
    k = int(sizes[int(rng.integers(len(sizes)))])
    others = np.delete(np.arange(n), i)
    known = tuple(sorted(int(j) for j in rng.choice(others, size=k, replace=False)))
    return i, known
