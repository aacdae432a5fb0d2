"""What an accountant is told: the list of releases made on the same records.

A release is a query plus its own independent noise (:class:`Release`); the noisy histogram is one
noisy count per state (:class:`HistogramRelease`); the local release of every record through a
randomiser (:class:`LocalRelease`) is carried by a chain kernel of its own. Repetition is a list
with the same release several times (``[r] * 10``). :func:`as_releases` normalises a list of
releases or ``query + noise`` mechanisms (``LaplaceCount``, ``NoisyQueryMechanism``, ...).

The releases of additive queries on discrete records share the *components* they read: the
distinct queries ``S_c = sum_t f_c(X_t)``; a release ``r`` is ``S_{c(r)} + Z_r``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..core.errors import ConfigError, NotAvailable
from ..kernels.noise.laws import NoiseLaw
from ..queries import AdditiveQuery, CountQuery, NoisyQuery, SumQuery
from ..temporal.chain import MAX_EPSILON


@dataclass(frozen=True)
class Release:
    """``query(X) + noise``: an additive query (a count, a sum of state values; on Gaussian records
    the unclipped sum) and an independent noise law of any kind.

    Parameters
    ----------
    query : AdditiveQuery or SumQuery
        E.g. ``CountQuery((1,))``.
    noise : NoiseLaw
        E.g. ``GaussianNoise(3.0)``, ``LaplaceNoise(1.0)``, ``GeometricNoise(1.0)``.
    name : str, optional
        How reports name it (default: the query and the noise).
    """

    query: Any
    noise: Any
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.query, (AdditiveQuery, SumQuery)):
            raise ConfigError(
                "release.query",
                type(self.query).__name__,
                "must be an additive query (count, state sum) or the sum",
            )
        if not isinstance(self.noise, NoiseLaw):
            raise ConfigError(
                "release.noise", type(self.noise).__name__, "must be a noise law (bdpsim.kernels.noise.laws)"
            )

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        q = self.query
        if isinstance(q, CountQuery):
            qs = "count of " + ",".join(map(str, q.counted_states))
        elif isinstance(q, SumQuery):
            qs = "sum"
        else:
            qs = "sum of state values " + ",".join(f"{v:g}" for v in q.state_values)
        return f"{qs} + {self.noise.name}({self.noise.parameter_name} = {self.noise.parameter:g})"


@dataclass(frozen=True)
class HistogramRelease:
    """The histogram of the records (one count per state) with independent noise on every count."""

    noise: Any
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.noise, NoiseLaw):
            raise ConfigError("release.noise", type(self.noise).__name__, "must be a noise law")

    def counts(self, states: int) -> list[Release]:
        """One :class:`Release` per state: the count of that state plus its own noise."""
        return [Release(CountQuery((s,)), self.noise, f"{self.label}[{s}]") for s in range(states)]

    @property
    def label(self) -> str:
        return (
            self.name
            or f"histogram + {self.noise.name}({self.noise.parameter_name} = {self.noise.parameter:g})"
        )


@runtime_checkable
class FlipsRecords(Protocol):
    """A randomiser of binary records that flips each with probability ``flip`` (randomized
    response)."""

    flip: float


#: the randomisers a local release names (else a likelihood matrix)
RANDOMISERS = ("krr",)


@dataclass(frozen=True)
class LocalRelease:
    """Every record released through its own randomiser, independently given the records (k-RR,
    any eps-DP step): the output sequence's joint law is carried along a chain by forward and
    backward recursions (:mod:`bdpsim.kernels.chains.local_profile`; see
    :func:`bdpsim.accounting.account`).

    Parameters
    ----------
    mechanism : "krr", RandomizedResponse or array_like
        ``"krr"``: k-ary randomized response at ``epsilon``, ``P(r = x) = e^eps / (e^eps + k - 1)``
        and ``1 / (e^eps + k - 1)`` for each other output; a
        :class:`~bdpsim.mechanisms.randomized_response.mechanism.RandomizedResponse` (binary records, each
        flipped with probability ``flip``: its records, not its count, are released); or a likelihood
        matrix ``M[x, r] = P(r | x)`` (rows = record states, columns = outputs, rows summing to 1,
        entries > 0: any eps-DP step with finitely many outputs).
    epsilon : float, optional
        The k-RR level (``"krr"`` only).
    name : str, optional
        How reports name it.
    """

    mechanism: Any
    epsilon: float | None = None
    name: str = ""

    def __post_init__(self) -> None:
        m = self.mechanism
        if isinstance(m, str):
            if m not in RANDOMISERS:
                raise ConfigError(
                    "release.randomiser", m, f"must be one of {list(RANDOMISERS)} or a likelihood matrix"
                )
            e = self.epsilon
            ok = isinstance(e, (int, float, np.integer, np.floating)) and not isinstance(e, bool)
            if not (ok and 0 < float(e) <= MAX_EPSILON):  # type: ignore[arg-type]
                raise ConfigError(
                    "release.epsilon", e, f"k-RR needs an epsilon in (0, {MAX_EPSILON:g}] (e^epsilon a float)"
                )
            return
        if self.epsilon is not None:
            raise ConfigError("release.epsilon", self.epsilon, "is for randomiser 'krr' only")
        if isinstance(m, FlipsRecords):
            return
        try:
            M = np.asarray(m, dtype=float)
        except (TypeError, ValueError):
            M = np.array([])
        if not (M.ndim == 2 and M.shape[0] >= 2 and M.shape[1] >= 1):
            raise ConfigError(
                "release.mechanism",
                type(m).__name__ if M.size == 0 else list(M.shape),
                "must be 'krr', a RandomizedResponse or a likelihood matrix (rows = record states, "
                "columns = outputs)",
            )
        if not (np.all(np.isfinite(M)) and np.all(M > 0)):
            raise ConfigError(
                "release.likelihoods", M.tolist(), "entries must be finite and > 0 (every output possible)"
            )
        if not np.all(np.abs(M.sum(axis=1) - 1) < 1e-9):
            raise ConfigError(
                "release.likelihoods", np.round(M.sum(axis=1), 12).tolist(), "each row must sum to 1"
            )
        object.__setattr__(self, "mechanism", tuple(tuple(float(v) for v in row) for row in M))

    def matrix(self, states: int) -> np.ndarray:
        """``M[x, r] = P(r | x)`` for records with ``states`` states (``ConfigError`` if it does not fit)."""
        m = self.mechanism
        if isinstance(m, str):
            e = math.exp(float(self.epsilon))  # type: ignore[arg-type]
            return (np.ones((states, states)) + np.eye(states) * (e - 1.0)) / (e + states - 1.0)
        if isinstance(m, FlipsRecords):
            if states != 2:
                raise ConfigError(
                    "release.mechanism", states, "randomized response needs records with 2 states"
                )
            return np.array([[1 - m.flip, m.flip], [m.flip, 1 - m.flip]])
        M = np.array(m, dtype=float)
        if M.shape[0] != states:
            raise ConfigError(
                "release.likelihoods", list(M.shape), f"needs one row per record state ({states})"
            )
        return M

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        m = self.mechanism
        if isinstance(m, str):
            what = f"k-RR (epsilon = {float(self.epsilon):g})"  # type: ignore[arg-type]
        elif isinstance(m, tuple):
            M = np.array(m)
            eps = float(np.max(np.log(M.max(axis=0) / M.min(axis=0))))
            what = f"a {M.shape[0]} x {M.shape[1]} likelihood matrix (epsilon = {eps:.4g})"
        else:
            what = f"randomized response (flip = {m.flip:g})"
        return f"local release of every record through {what}"


def as_release(item: Any) -> Release | HistogramRelease | LocalRelease:
    """A release from a release or a ``query + noise`` mechanism (else ``ConfigError``)."""
    if isinstance(item, (Release, HistogramRelease, LocalRelease)):
        return item
    if isinstance(item, NoisyQuery) and isinstance(item.noise, NoiseLaw):
        return Release(item.query_function, item.noise)
    raise ConfigError(
        "releases",
        type(item).__name__,
        "each must be a Release, a HistogramRelease or a 'query + noise' mechanism",
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
            out.extend(r.counts(states))
        elif isinstance(r, LocalRelease):
            raise NotAvailable(
                f"release {r.label!r}: a local release has its own kernel (the chain's forward and "
                "backward filter), not a noisy query's joint law"
            )
        else:
            out.append(r)
    return out
