"""The query + noise mechanism family: ``query(D) + Z`` for any noise law of
:mod:`bdpsim.kernels.noise.laws` (Laplace, geometric, staircase, Gaussian, a table, or a law
registered by a user).

:class:`QueryNoiseMechanism` is the one implementation (sampling, DP parameter, summary cells,
adversary targets), for a ``query_function`` (:mod:`bdpsim.queries`) and a ``noise`` law.
:class:`NoisyQueryMechanism` holds both as fields; the Laplace mechanisms of :mod:`.laplace`
(``LaplaceCount``, ``ClippedSum``, ``LaplaceSum``, ``LaplaceStateSum``) are constructors that build
it with a :class:`~bdpsim.kernels.noise.laws.LaplaceNoise`. Its DP parameter is the epsilon the
noise was built from when one was given (exactly as given), else the noise law's
``dp_epsilon(sensitivity)`` (``None`` for Gaussian noise or an unbounded sensitivity: no pure DP).
Exact engines read its ``query_function`` and ``noise`` (:class:`~bdpsim.queries.NoisyQuery`) and
ask the law for its capabilities; the black-box estimators run it as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.columns import Column, register_columns
from ..core.errors import check
from ..kernels.noise.protocols import HasStaircaseGamma, LaplaceKernel
from ..kernels.noise.traits import DEFAULT_LAW, TRAITS, one_of
from .base import NO_COLUMNS
from .protocols import HasClip

_OTHERS = tuple(t for t in TRAITS.values() if t.name != DEFAULT_LAW)  # the laws named in the columns
COLUMNS = register_columns(
    "summary",
    Column(
        "noise",
        str,
        f"noise law of the mechanism when it is not Laplace: {one_of(tuple(t.name for t in _OTHERS))}",
    ),
    Column(
        "noise_parameter",
        float,
        "its parameter: "
        + ", ".join(f"{t.amount} ({t.name})" for t in _OTHERS)
        + "; geometric epsilon per lattice step",
    ),
    Column("staircase_gamma", float, "staircase noise: the gamma in use"),
    owner="mechanism noise law",
)
NOISE_COLUMNS = tuple(c.name for c in COLUMNS)


def noise_cells(noise) -> dict:
    """The ``summary.csv`` cells describing the noise law: ``noise_scale = b`` for Laplace noise
    (:class:`~bdpsim.kernels.noise.protocols.LaplaceKernel`), else ``noise`` (its name),
    ``noise_parameter`` and ``staircase_gamma`` (NaN but for staircase noise)."""
    if isinstance(noise, LaplaceKernel):
        return {"noise_scale": float(noise.scale)}
    gamma = noise.g if isinstance(noise, HasStaircaseGamma) else math.nan
    return {"noise": noise.name, "noise_parameter": float(noise.parameter), "staircase_gamma": float(gamma)}


class QueryNoiseMechanism:
    """``query_function(data) + noise``, one output per data tuple (subclasses provide
    ``query_function``, ``noise`` and ``kind``)."""

    query_function: Any
    noise: Any
    kind: str

    @property
    def summary_extras(self) -> tuple[str, ...]:
        """The noise law's ``summary.csv`` columns (``COLUMNS`` of this module); none for a Laplace
        kernel, whose scale is the core column ``noise_scale``."""
        return () if isinstance(self.noise, LaplaceKernel) else NOISE_COLUMNS

    @property
    def sensitivity(self) -> float:
        return float(self.query_function.sensitivity)

    @property
    def epsilon(self) -> float | None:
        """The DP parameter ``noise.dp_epsilon(sensitivity)`` (``None``: not eps-DP for any eps, by
        the law or by an unbounded sensitivity)."""
        d = self.sensitivity
        e = self.noise.dp_epsilon(d) if math.isfinite(d) else math.inf
        return e if math.isfinite(e) else None

    def query(self, data: np.ndarray) -> np.ndarray:
        """The noiseless answers ``f(D)``, shape ``(N,)``."""
        return self.query_function(data)

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        q = self.query(data)
        return q + self.noise.sample(q.shape[0], rng)

    def columns(self) -> dict:
        """``noise_scale`` (or the noise law's own cells) and a clipped query's ``clip_low``,
        ``clip_high``."""
        cells = {**NO_COLUMNS, **noise_cells(self.noise)}
        if isinstance(self.query_function, HasClip):
            cells.update(clip_low=self.query_function.clip[0], clip_high=self.query_function.clip[1])
        return cells

    def adversary_targets(self, targets: str) -> tuple[str, tuple[float, float] | None]:
        return targets, self.query_function.clip if isinstance(self.query_function, HasClip) else None


@dataclass(frozen=True)
class NoisyQueryMechanism(QueryNoiseMechanism):
    """``query_function(data) + noise`` for a query and a noise law given as they are.

    Parameters
    ----------
    query_function : query
        E.g. :class:`~bdpsim.queries.CountQuery` (:mod:`bdpsim.queries`).
    noise : NoiseLaw
        E.g. :class:`~bdpsim.kernels.noise.laws.GaussianNoise`.
    kind : str
        The mechanism kind it was built as (``count``, ``sum``, ``clipped_sum``).
    targets : (float, float), optional
        The one pair ``(x, x')`` every adversary distinguishes, for a query without a bounded
        sensitivity (the unclipped sum: columns ``x``, ``x_prime``).
    stated_epsilon : float, optional
        The epsilon the noise was built from (a config's ``epsilon``): the DP parameter, exactly as
        given, where the law's own ``dp_epsilon(sensitivity)`` agrees with it to rounding (the law
        recomputes it up to the last digits); a law that was not built from it (a table) answers
        for itself.
    """

    query_function: Any
    noise: Any
    kind: str = field(default="count")
    targets: tuple[float, float] | None = None
    stated_epsilon: float | None = None

    def __post_init__(self) -> None:
        if self.targets is not None:
            tv = tuple(float(v) for v in self.targets)
            check(
                len(tv) == 2 and tv[0] != tv[1] and all(map(math.isfinite, tv)),
                "mechanism.target_values",
                list(self.targets),
                "must be two different finite values [x, x']",
            )
            object.__setattr__(self, "targets", tv)

    @property
    def epsilon(self) -> float | None:
        """``stated_epsilon`` where the noise law's ``dp_epsilon(sensitivity)`` agrees with it to
        rounding, else the law's."""
        own, given = super().epsilon, self.stated_epsilon
        return (
            given if given is not None and own is not None and math.isclose(given, own, rel_tol=1e-9) else own
        )

    def columns(self) -> dict:
        if self.targets is None:
            return super().columns()
        x, xp = self.targets
        return {**super().columns(), "x": x, "x_prime": xp}

    def adversary_targets(self, targets: str) -> tuple[str, tuple[float, float] | None]:
        return ("fixed", self.targets) if self.targets is not None else super().adversary_targets(targets)
