"""Mechanisms: a noiseless query plus Laplace noise (thesis §3, paper Def. 5.6).

Each mechanism knows its ``sensitivity`` and Laplace ``noise_scale`` ``b``; ``query(data)``
maps a batch ``(N, n)`` of data tuples to ``(N,)`` noiseless answers, ``__call__(data, rng)``
adds ``Lap(b)``. A user mechanism is any function ``(data, rng) -> (N,)``, wrapped in
:class:`CustomMechanism`; only the KDE estimator can measure it (its noise law is unknown).

:data:`MECHANISM_KINDS` is the registry the config loader reads (keys and builder per kind).
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from .errors import ConfigError, check
from .schema import Key


@runtime_checkable
class Mechanism(Protocol):
    """A randomized algorithm on data batches (batch on the first axis)."""

    kind: str

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...


@runtime_checkable
class LaplaceMechanism(Mechanism, Protocol):
    """``query(data) + Lap(noise_scale)``: the mixture and exact estimators apply."""

    sensitivity: float
    noise_scale: float

    def query(self, data: np.ndarray) -> np.ndarray: ...


def _positive(field_name: str, x: float) -> float:
    x = float(x)
    check(math.isfinite(x) and x > 0, field_name, x, "must be a finite number > 0")
    return x


class _LaplaceMechanism:
    """``query(data) + Lap(noise_scale)``, one output per data tuple."""

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        q = self.query(data)
        return q + rng.laplace(0.0, self.noise_scale, size=q.shape)


@dataclass(frozen=True)
class LaplaceCount(_LaplaceMechanism):
    """``#{j : X_j in counted_states} + Lap(1/eps)``; sensitivity 1 (eps-DP)."""

    epsilon: float
    counted_states: tuple[int, ...] = (1,)
    kind: str = field(default="count", init=False)

    def __post_init__(self) -> None:
        _positive("mechanism.epsilon", self.epsilon)
        cs = tuple(int(c) for c in self.counted_states)
        check(len(cs) >= 1 and len(set(cs)) == len(cs) and min(cs) >= 0,
              "mechanism.counted_states", list(self.counted_states),
              "must be a non-empty list of distinct states >= 0")
        object.__setattr__(self, "counted_states", cs)

    sensitivity = 1.0

    @property
    def noise_scale(self) -> float:
        return 1.0 / self.epsilon

    def query(self, data: np.ndarray) -> np.ndarray:
        return np.isin(data, self.counted_states).sum(axis=1).astype(float)


@dataclass(frozen=True)
class ClippedSum(_LaplaceMechanism):
    """``sum_j clip(X_j, a, b) + Lap((b - a)/eps)``: eps-DP and (eps/(b-a))-l1-metric private."""

    epsilon: float
    clip: tuple[float, float] = (0.0, 10.0)
    kind: str = field(default="clipped_sum", init=False)

    def __post_init__(self) -> None:
        _positive("mechanism.epsilon", self.epsilon)
        lo, hi = (float(v) for v in self.clip)
        check(math.isfinite(lo) and math.isfinite(hi) and lo < hi, "mechanism.clip",
              list(self.clip), "must be [low, high] with low < high")
        object.__setattr__(self, "clip", (lo, hi))

    @property
    def sensitivity(self) -> float:
        return self.clip[1] - self.clip[0]

    @property
    def noise_scale(self) -> float:
        return self.sensitivity / self.epsilon

    def query(self, data: np.ndarray) -> np.ndarray:
        return np.clip(data, *self.clip).sum(axis=1)


@dataclass(frozen=True)
class LaplaceSum(_LaplaceMechanism):
    """Unclipped ``sum_j X_j + Lap(beta)``: (1/beta)-l1-metric private, not DP (thesis Fig. 10).

    ``target_values`` are the fixed pair ``(x, x')`` every adversary distinguishes.
    """

    noise_scale: float
    target_values: tuple[float, float] = (0.0, 10.0)
    kind: str = field(default="sum", init=False)

    def __post_init__(self) -> None:
        _positive("mechanism.noise_scale", self.noise_scale)
        tv = tuple(float(v) for v in self.target_values)
        check(len(tv) == 2 and tv[0] != tv[1] and all(map(math.isfinite, tv)), "mechanism.target_values",
              list(self.target_values), "must be two different finite values [x, x']")
        object.__setattr__(self, "target_values", tv)

    sensitivity = math.inf

    @property
    def metric_epsilon(self) -> float:
        """The l1-metric parameter ``eps' = 1 / beta``."""
        return 1.0 / self.noise_scale

    def query(self, data: np.ndarray) -> np.ndarray:
        return data.sum(axis=1)


@dataclass(frozen=True)
class LaplaceStateSum(_LaplaceMechanism):
    """``sum_t f(X_t) + Lap(b)`` on a model with discrete states: ``f = state_values`` per state.

    Sensitivity ``max f - min f``; ``b = sensitivity / epsilon`` (eps-DP) or a given ``noise_scale``.
    """

    state_values: tuple[float, ...]
    epsilon: float | None = None
    noise_scale: float | None = None
    kind: str = field(default="sum", init=False)

    def __post_init__(self) -> None:
        f = tuple(float(v) for v in self.state_values)
        check(len(f) >= 2 and all(map(math.isfinite, f)) and max(f) > min(f), "mechanism.state_values",
              list(self.state_values), "must be >= 2 finite values per state, not all equal")
        object.__setattr__(self, "state_values", f)
        check((self.epsilon is None) != (self.noise_scale is None), "mechanism.epsilon", self.epsilon,
              "a state sum takes exactly one of epsilon (eps-DP) or noise_scale")
        if self.epsilon is not None:
            object.__setattr__(self, "noise_scale", self.sensitivity / _positive("mechanism.epsilon", self.epsilon))
        else:
            _positive("mechanism.noise_scale", self.noise_scale)

    @property
    def sensitivity(self) -> float:
        return max(self.state_values) - min(self.state_values)

    def query(self, data: np.ndarray) -> np.ndarray:
        return np.asarray(self.state_values)[np.asarray(data, dtype=np.int64)].sum(axis=1)


#: directory of the config being loaded: ``kind = "python"`` modules beside it are importable
CONFIG_DIR: contextvars.ContextVar[str | None] = contextvars.ContextVar("bdpsim_config_dir", default=None)


@dataclass(frozen=True)
class CustomMechanism:
    """A user mechanism ``func(data: (N, n) array, rng) -> (N,) outputs``.

    ``name`` is the import path ``"module:attribute"`` when it came from a config, and
    ``search_dir`` the config's directory, where the module is also looked for (in worker
    processes too: the mechanism pickles as its import path). A call that raises, or returns the
    wrong shape or a non-finite value, raises :class:`~bdpsim.errors.ConfigError` naming it.
    """

    func: Callable[[np.ndarray, np.random.Generator], np.ndarray]
    name: str = "custom"
    epsilon: float | None = None
    search_dir: str | None = None
    kind: str = field(default="python", init=False)

    def __post_init__(self) -> None:
        if not callable(self.func):
            raise TypeError(f"mechanism.function = {self.func!r}: must be callable")
        if self.epsilon is not None:
            _positive("mechanism.epsilon", self.epsilon)

    def __reduce__(self):
        if ":" in self.name:  # re-imported by path in the worker (the config's directory included)
            return (_rebuild_custom, (self.name, self.epsilon, self.search_dir))
        return (CustomMechanism, (self.func, self.name, self.epsilon, self.search_dir))

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        shape = tuple(np.shape(data))
        try:
            with np.errstate(all="ignore"):
                out = np.asarray(self.func(data, rng), dtype=float)
        except ConfigError:
            raise
        except Exception as exc:
            raise ConfigError("mechanism.function", self.name, f"fails on a batch of shape {shape} "
                              f"({type(exc).__name__}: {_one_line(exc)})") from None
        if out.shape != (shape[0],):
            raise ConfigError("mechanism.function", self.name,
                              f"must return shape ({shape[0]},), returned {out.shape}")
        if not np.isfinite(out).all():
            bad = int((~np.isfinite(out)).sum())
            raise ConfigError("mechanism.function", self.name,
                              f"must return finite numbers, returned {bad} NaN/inf of {out.size} "
                              f"on a batch of shape {shape}")
        return out


def _one_line(exc: BaseException, limit: int = 160) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rebuild_custom(name: str, epsilon: float | None, search_dir: str | None) -> CustomMechanism:
    return CustomMechanism(import_function(name, search_dir), name, epsilon, search_dir)


def import_function(path: str, search_dir: str | None = None) -> Callable:
    """Import ``"package.module:attribute"``; a clear :class:`ConfigError` otherwise.

    ``search_dir`` (default: the directory of the config being loaded, :data:`CONFIG_DIR`) is
    searched first, so a module beside the config needs no ``PYTHONPATH``."""
    check(isinstance(path, str) and path.count(":") == 1 and all(path.split(":")), "mechanism.function",
          path, "must be 'module:function'")
    mod, attr = path.split(":")
    where = search_dir if search_dir is not None else CONFIG_DIR.get()
    added = where is not None and where not in sys.path
    if added:
        sys.path.insert(0, where)
    try:
        obj = getattr(importlib.import_module(mod), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError("mechanism.function", path, f"cannot be imported ({_one_line(exc)})") from None
    except SyntaxError as exc:
        raise ConfigError("mechanism.function", path,
                          f"cannot be imported: syntax error in {exc.filename} line {exc.lineno}") from None
    except Exception as exc:  # the module raised while being imported
        raise ConfigError("mechanism.function", path,
                          f"cannot be imported ({type(exc).__name__}: {_one_line(exc)})") from None
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(where)
    check(callable(obj), "mechanism.function", path, "must name a callable")
    return obj


def has_laplace_noise(mech: object) -> bool:
    """True when the mechanism is ``query + Lap(noise_scale)`` (mixture/exact estimators apply)."""
    return isinstance(mech, _LaplaceMechanism)


def counted_states_valid(mech: LaplaceCount, states: int) -> None:
    bad: Sequence[int] = [c for c in mech.counted_states if c >= states]
    check(not bad, "mechanism.counted_states", list(mech.counted_states),
          f"states must be in 0..{states - 1}")


# ---------------------------------------------------------------------------------- registry

@dataclass(frozen=True)
class MechanismKind:
    """A registry entry: config keys and ``build(params) -> Mechanism``."""

    name: str
    keys: dict[str, Key]
    build: Callable[[dict], object]
    doc: str = ""


def _epsilon(params: dict) -> float:
    check(params["epsilon"] is not None, "mechanism.epsilon", None, "is required")
    return params["epsilon"]


_EPS = Key("float")
MECHANISM_KINDS: dict[str, MechanismKind] = {k.name: k for k in (
    MechanismKind("count", {"epsilon": _EPS, "counted_states": Key("state_vector", [1])},
                  lambda p: LaplaceCount(_epsilon(p), state_codes(p["counted_states"])),
                  "count of records in counted_states + Lap(1/epsilon)"),
    MechanismKind("clipped_sum", {"epsilon": _EPS, "clip": Key("vector", [0.0, 10.0])},
                  lambda p: ClippedSum(_epsilon(p), tuple(p["clip"])),
                  "sum of records clipped to clip + Lap((high - low)/epsilon)"),
    MechanismKind("sum", {"noise_scale": Key("float"), "target_values": Key("vector", [0.0, 10.0]),
                          "state_values": Key("vector", hashed=False), "epsilon": _EPS},
                  lambda p: _sum(p),
                  "Gaussian: unclipped sum + Lap(noise_scale), targets target_values; discrete models: "
                  "sum of state_values + Lap((max - min)/epsilon) or Lap(noise_scale)"),
    MechanismKind("python", {"function": Key("str"), "epsilon": _EPS},
                  lambda p: CustomMechanism(import_function(_required(p, "function")), p["function"],
                                            p["epsilon"], CONFIG_DIR.get()),
                  "a user function 'module:function' (data, rng) -> outputs"),
)}


def _sum(p: dict):
    if p.get("state_values") is not None:
        return LaplaceStateSum(tuple(p["state_values"]), p["epsilon"], p["noise_scale"])
    check(p["epsilon"] is None, "mechanism.epsilon", p["epsilon"],
          "an unclipped sum is not eps-DP: give noise_scale (or state_values for a discrete model)")
    return LaplaceSum(_required(p, "noise_scale"), tuple(p["target_values"]))


def state_codes(values) -> tuple[int, ...]:
    """Counted states as integer codes; genotype names (``"BB"``, ``"Bb"``, ``"bb"``) map to 0, 1, 2."""
    if any(isinstance(v, str) for v in values):
        from .models.pedigree import genotype_states
        return genotype_states(list(values))
    return tuple(values)


def _required(params: dict, key: str):
    check(params[key] is not None, f"mechanism.{key}", None, "is required")
    return params[key]
