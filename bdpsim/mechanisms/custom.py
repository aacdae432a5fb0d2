"""User mechanisms: any function ``(data, rng) -> outputs`` (``[mechanism] kind = "python"``).

Only estimators that treat the mechanism as a black box can measure it (its noise law is
unknown): the thesis' KDE estimator.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, cast

import numpy as np

from ..core.errors import ConfigError, check
from ..core.files import CONFIG_DIR  # the config's directory: kind = "python" modules beside it import
from .base import NO_COLUMNS, positive

#: a batch at least this large whose outputs are all equal is a mechanism without noise (a
#: randomised one repeats one value 100 times with negligible probability)
CONSTANT_BATCH = 100


@dataclass(frozen=True)
class CustomMechanism:
    """A user mechanism ``func(data: (N, n) array, rng) -> (N,) outputs``.

    ``name`` is the import path ``"module:attribute"`` when it came from a config, and
    ``search_dir`` the config's directory, where the module is also looked for (in worker
    processes too: the mechanism pickles as its import path). A call that raises, or returns the
    wrong shape, a non-finite value or one constant for a whole batch (no noise), raises
    :class:`~bdpsim.core.errors.ConfigError` naming it.
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
            positive("mechanism.epsilon", self.epsilon)

    summary_extras: ClassVar[
        tuple[str, ...]
    ] = ()  # extra summary.csv columns (bdpsim.pipeline.rows.register_columns)

    def columns(self) -> dict:
        return dict(NO_COLUMNS)

    def adversary_targets(self, targets: str) -> tuple[str, tuple[float, float] | None]:
        return targets, None

    def __reduce__(self):
        if ":" in self.name:  # re-imported by path in the worker (the config's directory included)
            return (_rebuild_custom, (self.name, self.epsilon, self.search_dir))
        return (CustomMechanism, (self.func, self.name, self.epsilon, self.search_dir))

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        shape = tuple(np.shape(data))
        try:
            with np.errstate(all="ignore"), no_exit():
                raw = self.func(data, rng)
            if np.iscomplexobj(raw):
                raise ConfigError(
                    "mechanism.function",
                    self.name,
                    f"must return real numbers, returned "
                    f"complex ones ({np.asarray(raw).dtype}) on a batch of shape {shape}",
                )
            out = np.asarray(raw, dtype=float)
        except ConfigError:
            raise
        except (SystemExit, ExitCalled) as exc:
            raise ConfigError(
                "mechanism.function",
                self.name,
                f"ends the process ({exit_call(exc)}) on a batch of "
                f"shape {shape}: a mechanism must return its outputs, not exit",
            ) from None
        except Exception as exc:
            raise ConfigError(
                "mechanism.function",
                self.name,
                f"fails on a batch of shape {shape} ({type(exc).__name__}: {_one_line(exc)})",
            ) from None
        if out.shape != (shape[0],):
            raise ConfigError(
                "mechanism.function", self.name, f"must return shape ({shape[0]},), returned {out.shape}"
            )
        if not np.isfinite(out).all():
            bad = int((~np.isfinite(out)).sum())
            raise ConfigError(
                "mechanism.function",
                self.name,
                f"must return finite numbers, returned {bad} NaN/inf of {out.size} "
                f"on a batch of shape {shape}",
            )
        if out.size >= CONSTANT_BATCH and out.min() == out.max():
            raise ConfigError(
                "mechanism.function",
                self.name,
                f"returned the same value ({out[0]:g}) for all {out.size} data sets of a batch: "
                "it adds no noise, so its output has no density to estimate (a mechanism must be "
                "randomised)",
            )
        return out


class ExitCalled(BaseException):
    """``os._exit(code)`` called by user code while :func:`no_exit` is in force."""

    def __init__(self, code) -> None:
        super().__init__(code)
        self.code = code


def exit_call(exc: BaseException) -> str:
    """``sys.exit(7)`` or ``os._exit(0)``: what user code called to end the process."""
    how = "os._exit" if isinstance(exc, ExitCalled) else "sys.exit"
    code = exc.code if isinstance(exc, (ExitCalled, SystemExit)) else None
    return f"{how}({code!r})"


@contextlib.contextmanager
def no_exit():
    """Run user code with ``os._exit`` raising :class:`ExitCalled` instead of ending the process
    at once (no message, no results, exit code 0 for a batch script); ``sys.exit`` raises
    ``SystemExit``, which the callers catch as well."""
    real = os._exit

    def refuse(code=0):
        raise ExitCalled(code)

    os._exit = refuse
    try:
        yield
    finally:
        os._exit = real


def _one_line(exc: BaseException, limit: int = 160) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rebuild_custom(name: str, epsilon: float | None, search_dir: str | None) -> CustomMechanism:
    return CustomMechanism(import_function(name, search_dir), name, epsilon, search_dir)


def import_function(path: str, search_dir: str | None = None) -> Callable:
    """Import ``"package.module:attribute"``; a clear :class:`ConfigError` otherwise.

    ``search_dir`` (default: the directory of the config being loaded, :data:`CONFIG_DIR`) is
    searched first, so a module beside the config needs no ``PYTHONPATH``."""
    check(
        isinstance(path, str) and path.count(":") == 1 and all(path.split(":")),
        "mechanism.function",
        path,
        "must be 'module:function'",
    )
    mod, attr = path.split(":")
    where = search_dir if search_dir is not None else CONFIG_DIR.get()
    added = where is not None and where not in sys.path
    if added:
        sys.path.insert(0, cast(str, where))  # added: not None
    try:
        with no_exit():
            obj = getattr(importlib.import_module(mod), attr)
    except (SystemExit, ExitCalled) as exc:  # the module ends the process while being imported
        raise ConfigError(
            "mechanism.function",
            path,
            f"ends the process while being imported ({exit_call(exc)}): "
            "a mechanism module must define its function, not exit",
        ) from None
    except (ImportError, AttributeError) as exc:
        raise ConfigError("mechanism.function", path, f"cannot be imported ({_one_line(exc)})") from None
    except SyntaxError as exc:
        raise ConfigError(
            "mechanism.function",
            path,
            f"cannot be imported: syntax error in {exc.filename} line {exc.lineno}",
        ) from None
    except Exception as exc:  # the module raised while being imported
        raise ConfigError(
            "mechanism.function", path, f"cannot be imported ({type(exc).__name__}: {_one_line(exc)})"
        ) from None
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(cast(str, where))  # added: not None
    check(callable(obj), "mechanism.function", path, "must name a callable")
    return obj
