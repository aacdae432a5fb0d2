"""Gaussian noise on a per-state value at every record of a chain: a continual release whose BDPL
is ``+inf`` but whose privacy profile and Rényi curve are finite.

Every record ``x_t`` is released as ``y_t = v[x_t] + N(0, sigma^2)``, independently given the
records. It is a local release of every record (the accountant carries it along the chain like
k-RR) whose outputs are continuous: the accountant holds it between two finite channels
(:mod:`bdpsim.kernels.chains.value_channels`) and brackets every number between their accounts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import ConfigError, NotAvailable
from ..kernels.argcheck import ParameterError
from ..kernels.chains.value_channels import (
    MAX_SEPARATION,
    MAX_VALUES,
    MIN_SEPARATION,
    ChannelPair,
    distinct_values,
    gaussian_channels,
    standard_values,
    step_renyi_values,
)
from .local import LocalRelease

#: the noise laws a value release names
VALUE_NOISES = ("gaussian",)


@dataclass(frozen=True, kw_only=True)
class ValueNoise(LocalRelease):
    """Gaussian noise on a per-state value at every record: ``y_t = v[x_t] + N(0, sigma^2)``.

    A local release of every record (a :class:`~bdpsim.mechanisms.local.LocalRelease`, so the
    accountant carries it along the chain) whose outputs are continuous and whose noise is given
    by ``sigma``, not by an epsilon (it is not pure DP).

    Parameters
    ----------
    state_values : sequence of float
        ``v[x]``, one per record state (at most six distinct values: the bracket's upper channel
        has ``2^(m-1)`` outputs per cell for ``m`` distinct values; states may share a value).
    sigma : float
        The noise's standard deviation (finite, ``> 0``).
    name : str, optional
        How reports name it.
    """

    release: Any = "gaussian"
    sigma: float = math.nan

    def __post_init__(self) -> None:
        if self.release not in VALUE_NOISES:
            raise ConfigError("release.noise", self.release, f"must be one of {list(VALUE_NOISES)}")
        for arg, given in (("epsilon", self.epsilon), ("epsilon_schedule", self.epsilon_schedule)):
            if given is not None:
                raise ConfigError(f"release.{arg}", given, "Gaussian noise has sigma, not epsilon")
        s = self.sigma
        if isinstance(s, bool) or not isinstance(s, (int, float, np.integer, np.floating)):
            raise ConfigError("release.sigma", s, "must be a finite number > 0")
        if not (math.isfinite(float(s)) and float(s) > 0):
            raise ConfigError("release.sigma", s, "must be a finite number > 0")
        try:
            v = np.asarray(self.state_values, dtype=float)
        except (TypeError, ValueError):
            raise ConfigError("release.state_values", self.state_values, "must be numbers") from None
        if not (v.ndim == 1 and v.size >= 2 and bool(np.all(np.isfinite(v)))):
            raise ConfigError(
                "release.state_values", self.state_values, "must be one finite number per state (2 or more)"
            )
        u = distinct_values(v)[0]
        if u.size > MAX_VALUES:
            raise ConfigError(
                "release.state_values",
                v.tolist(),
                f"at most {MAX_VALUES} distinct values (the bracket's upper channel has 2^(m-1) outputs "
                "per cell for m distinct values)",
            )
        u0, u1 = float(u[0]), float(u[-1])
        mu = (u1 - u0) / float(s)
        if not (math.isfinite(mu) and mu <= MAX_SEPARATION):
            raise ConfigError(
                "release.sigma",
                s,
                f"the values {u0:g} and {u1:g} are {mu:.3g} sigma apart, above {MAX_SEPARATION:g}: "
                "the release all but reveals every record (delta(eps) is about 1 at every eps asked)",
            )
        if u.size >= 3 and mu < MIN_SEPARATION:
            raise ConfigError(
                "release.sigma",
                s,
                f"the values {u0:g} and {u1:g} are {mu:.3g} sigma apart, below {MIN_SEPARATION:g}: the "
                "bracket of three or more values loses every digit in floating point (every delta(eps) "
                "is at most the Gaussian mechanism's with mu = that gap times sqrt(n); give a smaller "
                "sigma)",
            )
        if self.states is not None and self.states != v.size:
            raise ConfigError(
                "release.state_values", v.tolist(), f"needs one value per state ({self.states})"
            )
        object.__setattr__(self, "state_values", tuple(float(x) for x in v))
        object.__setattr__(self, "sigma", float(s))

    def matrix(self, states: int) -> np.ndarray:
        raise NotAvailable(
            f"release {self.label!r}: continuous outputs have no likelihood matrix; the accountant "
            "brackets it between two finite channels (channels)"
        )

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``y_t = v[x_t] + sigma Z_t`` for every record of every data tuple (rows)."""
        x = np.asarray(data).astype(np.int64)
        return np.asarray(self.state_values, dtype=float)[x] + self.sigma * rng.standard_normal(x.shape)

    def model_columns(self, model) -> dict:
        """The summary cells: Cao et al.'s bound is for pure-DP steps (``nan`` here)."""
        return self.columns()

    def exact(self, model):
        """No exact BDPL engine: the BDPL of Gaussian noise is ``+inf``; ``NotAvailable`` naming where
        its privacy profile is (:func:`bdpsim.account`)."""
        raise NotAvailable(
            f"release {self.label!r}: its BDPL is +inf (Gaussian noise is not pure DP), so bdpsim run "
            "has nothing to estimate; its delta(eps) and Renyi curves: bdpsim account CONFIG, "
            "bdpsim.account(model, [release])"
        )

    def check_states(self, states: int) -> None:
        """``ConfigError`` unless there is one value per record state."""
        if len(self.state_values) != states:
            raise ConfigError(
                "release.state_values",
                list(self.state_values),
                f"needs one value per record state ({states})",
            )

    def channels(self, states: int, bins: int, steps: int) -> ChannelPair:
        """The bracketing pair of finite channels
        (:func:`~bdpsim.kernels.chains.value_channels.gaussian_channels`)."""
        self.check_states(states)
        try:
            return gaussian_channels(self.state_values, self.sigma, bins, steps)
        except ParameterError as err:
            raise ConfigError(f"release.{err.param}", err.value, err.rule) from None

    @property
    def separation(self) -> float:
        """``mu = (max v - min v) / sigma``: the one-step Gaussian mechanism's parameter of the
        farthest pair of values."""
        v = self.state_values
        return (max(v) - min(v)) / self.sigma

    def step_renyi(self, alpha: float, Z: float) -> tuple[float, np.ndarray]:
        """``(tau', B)``: the outside weight and, per pair of states, the bound of one step's
        ``D_alpha`` in both parts of the range's mixture
        (:func:`~bdpsim.kernels.chains.value_channels.step_renyi_values`; ``0`` for equal values)."""
        u, index = distinct_values(self.state_values)
        if u.size == 1:
            return 0.0, np.zeros((index.size, index.size))
        tau, B = step_renyi_values(standard_values(u, self.sigma), Z, alpha)
        return tau, B[np.ix_(index, index)]

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        vals = ", ".join(f"{v:g}" for v in self.state_values)
        return f"Gaussian noise (sigma = {self.sigma:g}) on the state values [{vals}] at every record"


__all__ = ["VALUE_NOISES", "ValueNoise"]
