"""What an accountant is told: the list of releases made on the same records.

A release is a query plus its own independent noise (:class:`Release`, a mechanism of the query +
noise family of :mod:`bdpsim.mechanisms.noisy`); the noisy histogram is one
noisy count per state (:class:`HistogramRelease`); the local release of every record through a
randomiser (:class:`LocalRelease`, the mechanism of :mod:`bdpsim.mechanisms.local`, re-exported
here) is carried by a chain kernel of its own. Repetition is a list
with the same release several times (``[r] * 10``). :func:`as_releases` normalises a list of
releases or ``query + noise`` mechanisms (``LaplaceCount``, ``NoisyQueryMechanism``, ...).

The releases of additive queries on discrete records share the *components* they read: the
distinct queries ``S_c = sum_t f_c(X_t)``; a release ``r`` is ``S_{c(r)} + Z_r``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import ConfigError, NotAvailable
from ..kernels.noise.checks import MAX_DP_EPSILON
from ..kernels.noise.laws import GaussianNoise, LaplaceNoise, NoiseLaw
from ..kernels.noise.stepwise import GeometricNoise
from ..mechanisms.histogram import NoisyHistogram
from ..mechanisms.local import RANDOMISERS, FlipsRecords, LocalRelease
from ..mechanisms.noisy import QueryNoiseMechanism
from ..mechanisms.protocols import ReleasesEveryRecord
from ..queries import AdditiveQuery, CountQuery, NoisyQuery, SumQuery

#: noise laws symmetric about 0 (the two-state histogram's reduction to one query reads this)
SYMMETRIC_NOISE = (LaplaceNoise, GaussianNoise, GeometricNoise)


def _described(query: Any) -> tuple[str, str]:
    """The mechanism kind of a release's query (``count``, or ``sum`` for a state sum and the sum)
    and how reports name it (``count of 1``, ``per-record count of 1``, ``sum of state values
    0,1,3``, ``sum``)."""
    if isinstance(query, CountQuery):
        return "count", query.label
    if isinstance(query, SumQuery):
        return "sum", "sum"
    return "sum", query.label


@dataclass(frozen=True)
class Release(QueryNoiseMechanism):
    """``query_function(X) + noise``: an additive query (a count, a sum of state values; on
    Gaussian records the unclipped sum) and an independent noise law of any kind.

    A mechanism of the query + noise family (:class:`~bdpsim.mechanisms.noisy.QueryNoiseMechanism`):
    :meth:`query` gives the noiseless answers ``f(D)``, calling it ``(data, rng)`` releases, and
    every engine that takes ``LaplaceCount`` or a ``NoisyQueryMechanism`` takes it
    (``bdpsim.exact_bdpl(model, Release(CountQuery((1,)), LaplaceNoise(1.0)))``).

    Parameters
    ----------
    query_function : AdditiveQuery or SumQuery
        E.g. ``CountQuery((1,))`` (positional: ``Release(CountQuery((1,)), LaplaceNoise(1.0))``).
    noise : NoiseLaw
        E.g. ``GaussianNoise(3.0)``, ``LaplaceNoise(1.0)``, ``GeometricNoise(1.0)``.
    name : str, optional
        How reports name it (default: the query and the noise).
    """

    query_function: Any
    noise: Any
    name: str = ""
    #: the mechanism kind of the query, set from it: ``count`` or ``sum`` (a state sum, the sum)
    kind: str = field(default="count", init=False, repr=False, compare=False)

    def __new__(cls, *args: Any, **kwargs: Any) -> Release:
        if "query" in kwargs:  # the family's query(data) is a method: the query is query_function
            raise TypeError(
                "Release(query=...): the query is the field query_function "
                "(Release(query_function=CountQuery((1,)), noise=...), or positionally "
                "Release(CountQuery((1,)), noise)); query(data) is the noiseless answer"
            )
        return super().__new__(cls)

    def __post_init__(self) -> None:
        if not isinstance(self.query_function, (AdditiveQuery, SumQuery)):
            raise ConfigError(
                "release.query_function",
                type(self.query_function).__name__,
                "must be an additive query (count, state sum) or the sum",
            )
        if not isinstance(self.noise, NoiseLaw):
            raise ConfigError(
                "release.noise", type(self.noise).__name__, "must be a noise law (bdpsim.kernels.noise.laws)"
            )
        object.__setattr__(self, "kind", _described(self.query_function)[0])
        sens = float(self.query_function.sensitivity)  # inf for the sum of Gaussian records
        if type(self.noise).pure_dp and math.isfinite(sens):
            eps = float(self.noise.dp_epsilon(sens))
            if not eps <= MAX_DP_EPSILON:  # its profile's e^eps overflows: NaN where numbers were
                raise ConfigError(
                    "release.noise",
                    self.label,
                    f"leaves too little noise for floating point: its DP epsilon {eps:.4g} is above "
                    f"{MAX_DP_EPSILON:g} (e^eps overflows double precision past ~709.8); give more noise",
                )

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        qs = _described(self.query_function)[1]
        return f"{qs} + {self.noise.name}({self.noise.parameter_name} = {self.noise.parameter:g})"


@dataclass(frozen=True)
class HistogramRelease:
    """The histogram of the records (one count per state) with independent noise on every count.

    ``states``: the number of cells the release was built for (``None``: the model's); a model with
    another number of states is refused naming ``release.states``."""

    noise: Any
    name: str = ""
    states: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.noise, NoiseLaw):
            raise ConfigError("release.noise", type(self.noise).__name__, "must be a noise law")
        whole = isinstance(self.states, (int, np.integer)) and not isinstance(self.states, bool)
        if self.states is not None and not (whole and self.states >= 2):
            raise ConfigError("release.states", self.states, "must be an integer >= 2")

    def counts(self, states: int) -> list[Release]:
        """One :class:`Release` per state: the count of that state plus its own noise."""
        return [Release(CountQuery((s,)), self.noise, f"{self.label}[{s}]") for s in range(states)]

    def releases(self, states: int) -> list[Release]:
        """The noisy counts the accountant reads: :meth:`counts`, except on two states with noise
        symmetric about 0 (:data:`SYMMETRIC_NOISE`), where the count of state 0 is ``n`` minus the
        count of state 1: ``y_0 = n - N_1 + Z_0`` and ``n - y_0 = N_1 - Z_0`` has the law of
        ``N_1 + Z_0``, so the histogram is (a bijection of the output away from) **two releases of
        the count of state 1** — one query, whose joint laws the accountant has exactly (Gaussian
        noise: one release of the mean; lattice noise: enumeration; Laplace: the box quadrature of
        :mod:`bdpsim.kernels.privacy.boxes`). Every divergence of the output laws is unchanged."""
        if self.states is not None and self.states != states:
            raise ConfigError(
                "release.states",
                self.states,
                f"the histogram has {self.states} cells but the model's records have {states} states",
            )
        if states == 2 and isinstance(self.noise, SYMMETRIC_NOISE):
            q = CountQuery((1,))
            return [
                Release(q, self.noise, f"{self.label}[0] (as n minus it)"),
                Release(q, self.noise, f"{self.label}[1]"),
            ]
        return self.counts(states)

    @property
    def label(self) -> str:
        return (
            self.name
            or f"histogram + {self.noise.name}({self.noise.parameter_name} = {self.noise.parameter:g})"
        )


def as_release(item: Any) -> Release | HistogramRelease | LocalRelease:
    """A release from a release, a ``query + noise`` mechanism (``LaplaceCount``,
    ``NoisyQueryMechanism``: the :class:`Release` of its ``query_function`` and ``noise``, named as
    a release is) or the noisy histogram
    (:class:`~bdpsim.mechanisms.histogram.HistogramMechanism`: a :class:`HistogramRelease` with its
    Laplace noise and number of cells) (else ``ConfigError``)."""
    if isinstance(item, (Release, HistogramRelease, ReleasesEveryRecord)):
        return item  # type: ignore[return-value]
    if isinstance(item, NoisyHistogram):
        return HistogramRelease(LaplaceNoise(item.noise_scale), states=item.histogram_cells())
    if isinstance(item, NoisyQuery) and isinstance(item.noise, NoiseLaw):
        return Release(item.query_function, item.noise)
    raise ConfigError(
        "releases",
        type(item).__name__,
        "each must be a Release, a HistogramRelease, a 'query + noise' mechanism or the histogram",
    )


def as_releases(releases: Sequence[Any] | Any) -> tuple[Release | HistogramRelease | LocalRelease, ...]:
    """The list of releases (a single one is a list of one); empty is refused."""
    items = list(releases) if isinstance(releases, (list, tuple)) else [releases]
    if not items:
        raise ConfigError("releases", [], "must list at least one release")
    return tuple(as_release(r) for r in items)


def flatten(releases, states: int | None) -> list[Release]:
    """Every release as a noisy query: a histogram becomes its per-state counts; a local release is
    refused here (it has its own kernel)."""
    out: list[Release] = []
    for r in releases:
        if isinstance(r, HistogramRelease):
            if states is None:
                raise NotAvailable(f"release {r.label!r}: a histogram needs records with discrete states")
            out.extend(r.releases(states))
        elif isinstance(r, ReleasesEveryRecord):
            raise NotAvailable(
                f"release {r.label!r}: a local release has its own kernel (the chain's forward and "
                "backward filter), not a noisy query's joint law"
            )
        else:
            out.append(r)
    return out


__all__ = [
    "FlipsRecords",
    "HistogramRelease",
    "RANDOMISERS",
    "Release",
    "SYMMETRIC_NOISE",
    "as_release",
    "as_releases",
    "flatten",
]
