"""Config keys: their type, default and sweep rules, and how a TOML value becomes a list of values.

A :class:`Key` describes one key of a config table. The model and mechanism registries
(:mod:`bdpsim.models`, :mod:`bdpsim.mechanisms`) and :class:`~bdpsim.pipeline.settings.RunSettings` declare
their keys with it, so the config loader knows every key without a list of its own.

Sweeps: any sweepable scalar may be a list or a ``{linspace = [start, stop, num]}`` /
``{range = [start, stop, step]}`` table; vector-valued keys sweep with a list of vectors, matrix
keys with a list of matrices. A sweep's length is checked *before* any array is built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import ConfigError, check

MAX_SWEEP = 100_000


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Key:
    """One config key.

    Parameters
    ----------
    type : str
        ``int float str bool vector int_vector state_vector matrix any`` (``any``: checked by its owner;
        ``strict_int``: an ``int`` that must be written as a TOML integer, a float such as 1e6 refused).
    default : Any
        Value when absent; :data:`REQUIRED` if it must be given.
    sweep : bool
        Whether a list/table of values makes a sweep.
    hashed : bool
        Whether the key enters a point's content hash when it is absent (its default). Keys
        added after bdpsim 0.1 are hashed only when set, so adding a key never changes the id
        (and the seeds) of existing configuration points.
    doc : str
        What the key means, and what its absence (a ``None`` default) means.
    rule : str
        The constraint a value must meet, in words (the owner's validation enforces it and names
        the field in its error).
    """

    type: str
    default: Any = None
    sweep: bool = True
    hashed: bool = True
    doc: str = field(default="", compare=False)
    rule: str = field(default="", compare=False)


def _isnum(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _depth(v: Any) -> int:
    d = 0
    while isinstance(v, list):
        d += 1
        v = v[0] if v else None
    return d


def sweep_table(name: str, v: dict) -> list:
    """Values of a ``{linspace = [a, b, num]}`` or ``{range = [a, b, step]}`` table."""
    check(
        len(v) == 1 and next(iter(v)) in ("linspace", "range"),
        name,
        v,
        "a sweep table must be {linspace = [start, stop, num]} or {range = [start, stop, step]}",
    )
    ((kind, args),) = v.items()
    check(
        isinstance(args, list) and len(args) == 3 and all(_isnum(a) and math.isfinite(a) for a in args),
        name,
        v,
        f"{kind} needs three finite numbers [start, stop, {'num' if kind == 'linspace' else 'step'}]",
    )
    a, b, c = args
    if kind == "linspace":
        check(
            float(c).is_integer() and 1 <= c <= MAX_SWEEP,
            name,
            v,
            f"linspace num must be an integer in 1..{MAX_SWEEP}",
        )
        return [float(x) for x in np.linspace(a, b, int(c))]
    check(c != 0, name, v, "range step must not be 0")
    count = math.ceil((b - a) / c)
    check(count >= 1, name, v, "range is empty")
    check(count <= MAX_SWEEP, name, v, f"range has {count} values (limit {MAX_SWEEP})")
    vals = np.arange(a, b, c)
    as_int = all(isinstance(x, int) for x in args)
    return [int(x) if as_int else float(x) for x in vals]


def sweep_values(name: str, key: Key, v: Any) -> list:
    """The list of values a key takes (one element if not swept)."""
    if key.type == "any":  # checked by its owner (may be a table, e.g. a hidden Markov model's)
        return [v]
    if isinstance(v, dict):
        check(
            key.sweep and key.type in ("int", "float", "strict_int"), name, v, "cannot be swept with a table"
        )
        return sweep_table(name, v)
    base = {"vector": 1, "int_vector": 1, "state_vector": 1, "matrix": 2}.get(key.type, 0)
    if isinstance(v, list) and _depth(v) > base:
        check(key.sweep, name, v, "cannot be swept (give one value)")
        check(len(v) >= 1, name, v, "a sweep list must not be empty")
        check(len(v) <= MAX_SWEEP, name, f"<list of {len(v)}>", f"a sweep has at most {MAX_SWEEP} values")
        return v
    return [v]


def _toml_type(v: Any) -> str:
    """What a TOML value is, in TOML's words (for "must be X, not Y")."""
    return (
        "a boolean"
        if isinstance(v, bool)
        else "a float"
        if isinstance(v, float)
        else "a string"
        if isinstance(v, str)
        else "a list"
        if isinstance(v, list)
        else "a table"
        if isinstance(v, dict)
        else "an integer"
        if isinstance(v, int)
        else f"a {type(v).__name__}"
    )


def coerce(name: str, key: Key, v: Any) -> Any:
    """Check one (non-swept) value against its key's type; return it normalised."""
    t = key.type
    if t == "strict_int":  # a number of calls: a TOML integer, never a float (1e6 is the float 1000000.0)
        if not (isinstance(v, int) and not isinstance(v, bool)):
            check(
                False,
                name,
                v,
                "must be an integer, not a float (write 1_000_000, not 1e6)"
                if isinstance(v, float)
                else f"must be an integer (write 1_000_000), not {_toml_type(v)}",
            )
        return v
    if t == "int":
        check(
            (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
            name,
            v,
            "must be an integer",
        )
        return int(v)
    if t == "float":
        check(_isnum(v) and math.isfinite(v), name, v, "must be a finite number")
        return float(v)
    if t == "str":
        check(isinstance(v, str), name, v, "must be a string")
        return v
    if t == "bool":
        check(isinstance(v, bool), name, v, "must be true or false")
        return v
    if t in ("vector", "int_vector"):
        check(
            isinstance(v, list) and len(v) >= 1 and all(_isnum(x) for x in v),
            name,
            v,
            "must be a non-empty list of numbers",
        )
        check(all(math.isfinite(x) for x in v), name, v, "must contain finite numbers")
        if t == "int_vector":
            check(all(float(x).is_integer() for x in v), name, v, "must be a list of integers")
            return [int(x) for x in v]
        return [float(x) for x in v]
    if t == "state_vector":  # which states (how many, distinct, in range): the model's rule
        check(
            isinstance(v, list)
            and all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in v),
            name,
            v,
            "must be a list of states (integers, or state names: a pedigree's BB, Bb, bb; "
            "a BIF network's own)",
        )
        return list(v)
    if t == "matrix":
        check(
            isinstance(v, list)
            and len(v) >= 1
            and all(isinstance(r, list) and len(r) == len(v[0]) and all(_isnum(x) for x in r) for r in v),
            name,
            v,
            "must be a rectangular list of lists of numbers",
        )
        check(all(math.isfinite(x) for r in v for x in r), name, v, "must contain finite numbers")
        return [[float(x) for x in r] for r in v]
    return v


_SCALARS = ("int", "float", "strict_int", "str", "bool")


def resolve_table(section: str, table: Any, schema: dict[str, Key]) -> dict[str, list]:
    """Every key of ``schema`` -> the list of its (coerced) values in ``table``."""
    check(isinstance(table, dict), section, table, "must be a TOML table")
    for k in table:
        check(k in schema, f"{section}.{k}", table[k], f"unknown key (allowed: {', '.join(schema)})")
    out = {}
    for k, key in schema.items():
        name = f"{section}.{k}"
        if k not in table:
            if key.default is REQUIRED:
                raise ConfigError(name, None, "is required")
            # a swept scalar key's default may itself be a sweep (a list or a linspace table)
            swept = key.sweep and isinstance(key.default, (list, dict)) and key.type in _SCALARS
            out[k] = sweep_values(name, key, key.default) if swept else [key.default]
            continue
        out[k] = [coerce(name, key, v) for v in sweep_values(name, key, table[k])]
    return out
