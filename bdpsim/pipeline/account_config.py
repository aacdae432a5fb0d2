"""The accountant's config: a ``[model]``, the releases as ``[[release]]`` tables and the numbers
asked in ``[account]``, validated up front with the run configs' own machinery (one line naming
the field for every bad key or value)::

    title = "Hourly smart-meter counts with Gaussian noise"
    [model]
    kind = "markov"
    n = 24
    transition = [[0.9, 0.1], [0.3, 0.7]]

    [[release]]                 # a [mechanism] table (kind, noise, its keys) ...
    kind = "count"
    noise = "gaussian"
    sigma = 3.0
    repeat = 10                 # ... released this many times (default 1)

    # or, alone, the local release of every record of a markov model:
    # [[release]]
    # kind = "local"
    # randomiser = "krr"        # k-ary randomized response at epsilon, or "matrix"
    # epsilon = 1.0
    # likelihoods = [[0.7, 0.3], [0.2, 0.8]]   # randomiser = "matrix": P(output | state), rows = states

    [account]
    epsilon = [0.5, 1.0, 2.0]   # delta(eps) at these
    delta = [1e-5]              # epsilon(delta) at these
    alpha = [2.0, 8.0]          # Rényi divergences (inf: the BDPL)
    fpr = [0.01]                # the optimal attack's TPR at these
    sizes = "all"               # known-set sizes of the worst adversary
    targets = [0.0, 1.0]        # Gaussian records: the two target values
    seed = 0                    # Monte Carlo draws where no exact joint law exists

A run config (a ``[mechanism]`` table, one value per key: e.g. the ``continual`` kind, the local
release of every record) is read as the accountant config of its one release
(:func:`run_config_as_account`): its ``[run]`` table is ``bdpsim run``'s, an ``[account]`` table
may be added.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..accounting.releases import LocalRelease, Release, as_release
from ..adversary import known_sizes
from ..core.errors import ConfigError, check, naming
from ..core.warn import config_file
from ..kernels.noise.checks import MAX_PROFILE_EPSILON
from ..mechanisms import MECHANISM_KINDS
from ..mechanisms.counted import read_from
from ..mechanisms.protocols import ReleasesEveryRecord
from ..models import MODEL_KINDS
from ..models.protocols import HasStates
from .config import load_toml, sections
from .cost import Limits, model_setup

TOP_KEYS = ("title", "model", "release", "account")
ACCOUNT_DEFAULTS: dict[str, Any] = {
    "epsilon": [0.5, 1.0, 2.0],
    "delta": [1e-5],
    "alpha": [2.0, 8.0, math.inf],
    "fpr": [0.01],
    "sizes": "all",
    "targets": None,
    "seed": 0,
}
MAX_REPEAT = 10_000


@dataclass(frozen=True)
class AccountConfig:
    """A validated accountant config: the model, the releases (repeats expanded) and the asks."""

    title: str
    model: Any
    releases: tuple
    epsilon: tuple[float, ...]
    delta: tuple[float, ...]
    alpha: tuple[float, ...]
    fpr: tuple[float, ...]
    sizes: Any
    targets: tuple[float, float] | None
    seed: int


def _one(section: str, resolved: dict[str, list]) -> dict:
    out = {}
    for k, vals in resolved.items():
        check(len(vals) == 1, f"{section}.{k}", vals, "the accountant takes one value (no sweeps)")
        out[k] = vals[0]
    return out


def _model(table: Any, limits: Limits):
    from ..core.schema import resolve_table

    secs = sections()
    params = _one("model", resolve_table("model", table, secs["model"]))
    kind = params["kind"]
    check(kind in MODEL_KINDS, "model.kind", kind, f"must be one of {list(MODEL_KINDS)}")
    model_kind = MODEL_KINDS[kind]
    present = set(table)
    for k in sorted(present - set(model_kind.keys) - {"kind"}):
        raise ConfigError(f"model.{k}", table[k], f"is not a key of a {kind} model")
    model_setup(model_kind, params, limits)
    with naming("model"):
        spec = model_kind.build(params, present, None)
    return spec


def _release(j: int, table: Any, spec, where: str = "") -> list:
    """The release(s) of the ``j``-th ``[[release]]`` table (named ``where`` in errors, by default
    ``release[j]``), its ``repeat`` expanded."""
    from ..core.schema import resolve_table

    where = where or f"release[{j}]"
    check(isinstance(table, dict), where, table, "must be a TOML table")
    table = dict(table)
    repeat = table.pop("repeat", 1)
    check(
        isinstance(repeat, int) and not isinstance(repeat, bool) and 1 <= repeat <= MAX_REPEAT,
        f"{where}.repeat",
        repeat,
        f"must be an integer in 1..{MAX_REPEAT}",
    )
    if table.get("kind") == "local":
        return [_local(where, table, spec)] * repeat
    with naming(where), _in_release(where):
        params = _one(where, resolve_table(where, table, sections()["mechanism"]))
    mk = params["kind"]
    check(mk in MECHANISM_KINDS, f"{where}.kind", mk, f"must be one of {list(MECHANISM_KINDS)}")
    mech_kind = MECHANISM_KINDS[mk]
    for k in sorted(set(table) - set(mech_kind.keys) - {"kind"}):
        raise ConfigError(f"{where}.{k}", table[k], f"is not a key of a '{mk}' release")
    with naming(where), read_from(where), _in_release(where):
        mech = mech_kind.build(params, spec)
    if isinstance(mech, ReleasesEveryRecord):  # kind = "continual": the local release of every record
        return [mech] * repeat
    try:
        with _in_release(where):
            rel = as_release(mech)
    except ConfigError as err:
        if err.field != "releases":  # a release's own value (e.g. too little noise), named as is
            raise
        raise ConfigError(f"{where}.kind", mk, "is not 'query + noise' (count, state sum, sum)") from None
    named = params.get("counted_states")
    if isinstance(rel, Release) and isinstance(named, list) and any(isinstance(c, str) for c in named):
        noise = rel.noise  # states counted by name: the report names them so (not their indices)
        law = f"{noise.name}({noise.parameter_name} = {noise.parameter:g})"
        label = f"count of {','.join(map(str, named))} + {law}"
        rel = Release(rel.query_function, noise, label)
    return [rel] * repeat


@contextmanager
def _in_release(where: str) -> Iterator[None]:
    """A ``ConfigError`` raised in the block naming the mechanism's or a release's field
    (``mechanism.noise``, ``release.noise``: the builders' names) re-raised naming the
    ``[[release]]`` table ``where`` holds it in (``release[0].noise``)."""
    try:
        yield
    except ConfigError as err:
        for prefix in ("mechanism.", "release."):
            if err.field.startswith(prefix):
                raise ConfigError(where + "." + err.field.removeprefix(prefix), err.value, err.rule) from None
        raise


#: the keys of a local release's table and what each is
LOCAL_KEYS = {
    "kind": '"local": every record released through its own randomiser',
    "randomiser": '"krr" (k-ary randomized response at epsilon) or "matrix" (likelihoods)',
    "epsilon": "the k-RR level (> 0)",
    "likelihoods": "P(output | state): one row per record state, one column per output",
    "name": "how the report names it",
}


def _local(where: str, table: dict, spec) -> LocalRelease:
    """A ``kind = "local"`` release table (:data:`LOCAL_KEYS`), checked against the model's states."""
    for k in table:
        check(
            k in LOCAL_KEYS,
            f"{where}.{k}",
            table[k],
            f"is not a key of a local release ({', '.join(LOCAL_KEYS)})",
        )
    how = table.get("randomiser", "krr")
    check(how in ("krr", "matrix"), f"{where}.randomiser", how, "must be 'krr' or 'matrix'")
    name = table.get("name", "")
    check(isinstance(name, str), f"{where}.name", name, "must be a string")
    if how == "krr":
        check(
            "likelihoods" not in table,
            f"{where}.likelihoods",
            table.get("likelihoods"),
            "is for randomiser = 'matrix'",
        )
        check("epsilon" in table, f"{where}.epsilon", None, "is required for randomiser = 'krr'")
        mech, eps = "krr", table["epsilon"]
    else:
        check("epsilon" not in table, f"{where}.epsilon", table.get("epsilon"), "is for randomiser = 'krr'")
        check("likelihoods" in table, f"{where}.likelihoods", None, "is required for randomiser = 'matrix'")
        mech, eps = table["likelihoods"], None
        rows = mech if isinstance(mech, list) else []
        check(
            len(rows) > 0
            and all(isinstance(r, list) and len(r) == len(rows[0]) > 0 for r in rows)
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for r in rows for v in r),
            f"{where}.likelihoods",
            mech,
            "must be a matrix of numbers: one row per record state, rows of one length (one column "
            "per output)",
        )
    try:
        rel = LocalRelease(mech, eps, name)
        model = spec.fixed
        if isinstance(model, HasStates):
            rel.matrix(int(model.states))
    except ConfigError as err:
        raise ConfigError(where + "." + err.field.removeprefix("release."), err.value, err.rule) from None
    return rel


def _numbers(name: str, v: Any, rule, why: str) -> tuple[float, ...]:
    vals = v if isinstance(v, list) else [v]
    out = []
    for x in vals:
        ok = isinstance(x, (int, float)) and not isinstance(x, bool) and rule(float(x))
        check(ok, f"account.{name}", x, why)
        out.append(float(x))
    return tuple(out)


#: the top keys of a run config the accountant reads (``[run]`` is the run's own)
RUN_KEYS = ("title", "run", "model", "mechanism", "account")


def run_config_as_account(raw: dict) -> dict:
    """A run config (a ``[mechanism]`` table, no ``[[release]]``: e.g. the ``continual`` kind, the
    local release of every record) as an accountant config: its mechanism is its one release, its
    ``[run]`` table is left to ``bdpsim run``; any other document is returned as it is."""
    mech = raw.get("mechanism")
    if "release" in raw or not isinstance(mech, dict):
        return raw
    for k in raw:
        check(k in RUN_KEYS, k, raw[k], f"unknown key (allowed: {', '.join(RUN_KEYS)})")
    out = {k: v for k, v in raw.items() if k not in ("run", "mechanism")}
    return {**out, "release": [mech]}


def parse_account_config(raw: dict, source: str = "", limits: Limits | None = None) -> AccountConfig:
    """Validate a parsed accountant config (module docstring); ``ConfigError`` naming the field. A
    warning one of its keys causes is located at that key's line of the file ``source``
    (:func:`~bdpsim.core.warn.warn_user`)."""
    with config_file(source):
        return _parse_account_config(raw, source, limits)


def _parse_account_config(raw: dict, source: str, limits: Limits | None) -> AccountConfig:
    """:func:`parse_account_config` once its warnings' location is set."""
    check(isinstance(raw, dict), "config", source, "must be a TOML document")
    given, raw = raw, run_config_as_account(raw)
    for k in raw:
        check(k in TOP_KEYS, k, raw[k], f"unknown key (allowed: {', '.join(TOP_KEYS)})")
    check("model" in raw, "[model]", None, "is required: the data model (kind and its keys)")
    check(
        "release" in raw,
        "[[release]]",
        None,
        'is required: one [[release]] table per release (e.g. kind = "count", noise = "gaussian", '
        "sigma = 3.0), before any [account] table",
    )
    check(
        isinstance(raw["release"], list) and len(raw["release"]) > 0,
        "release",
        raw["release"],
        "must be [[release]] tables",
    )
    spec = _model(raw["model"], limits or Limits(8.0, 1e13))
    releases: list = []
    for j, t in enumerate(raw["release"]):
        releases.extend(_release(j, t, spec, "mechanism" if raw is not given else ""))
    acc = dict(ACCOUNT_DEFAULTS)
    table = raw.get("account", {})
    check(isinstance(table, dict), "account", table, "must be a TOML table")
    for k, v in table.items():
        check(
            k in ACCOUNT_DEFAULTS, f"account.{k}", v, f"unknown key (allowed: {', '.join(ACCOUNT_DEFAULTS)})"
        )
        acc[k] = v
    eps = _numbers(
        "epsilon",
        acc["epsilon"],
        lambda x: math.isfinite(x) and 0 <= x <= MAX_PROFILE_EPSILON,
        f"must be a finite number in [0, {MAX_PROFILE_EPSILON:g}]",
    )
    dl = _numbers("delta", acc["delta"], lambda x: 0 < x < 1, "must be in the open interval (0, 1)")
    al = _numbers("alpha", acc["alpha"], lambda x: x > 1, "must be > 1 (inf for the BDPL)")
    fp = _numbers("fpr", acc["fpr"], lambda x: 0 < x < 1, "must be in the open interval (0, 1)")
    tg = acc["targets"]
    if tg is not None:
        check(
            isinstance(tg, list)
            and len(tg) == 2
            and all(isinstance(x, (int, float)) for x in tg)
            and tg[0] != tg[1],
            "account.targets",
            tg,
            "must be two different numbers [x, x']",
        )
        tg = (float(tg[0]), float(tg[1]))
    seed = acc["seed"]
    check(
        isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0,
        "account.seed",
        seed,
        "must be an integer >= 0",
    )
    sizes = acc["sizes"]
    check(
        sizes in ("all", "thesis") or (isinstance(sizes, list) and all(isinstance(s, int) for s in sizes)),
        "account.sizes",
        sizes,
        "must be 'all', 'thesis' or a list of known-set sizes",
    )
    title = raw.get("title", "")
    check(isinstance(title, str), "title", title, "must be a string")
    model = spec.fixed
    check(
        model is not None,
        "model.kind",
        spec.kind,
        "the accountant needs one fixed model (not a class drawn per adversary)",
    )
    if isinstance(sizes, list):  # against the model's records, named as this file does (not run.known_sizes)
        try:
            known_sizes(sizes, int(model.n))
        except ConfigError as err:
            raise ConfigError("account.sizes", err.value, err.rule) from None
    return AccountConfig(title, model, tuple(releases), eps, dl, al, fp, sizes, tg, seed)


def is_account_config(raw: Any) -> bool:
    """Whether a parsed TOML document is an accountant config (it lists ``[[release]]`` tables)."""
    return isinstance(raw, dict) and "release" in raw


def describe_account(cfg: AccountConfig, source: str) -> list[str]:
    """What ``bdpsim validate`` prints for an accountant config."""
    labels: dict[str, int] = {}
    for r in cfg.releases:
        labels[r.label] = labels.get(r.label, 0) + 1
    rel = "; ".join(f"{k} x {lab}" if k > 1 else lab for lab, k in labels.items())
    return [
        f"{source}: valid accountant config ({cfg.title or 'untitled'})",
        f"  model: {type(cfg.model).__name__}, n = {cfg.model.n}",
        f"  releases ({len(cfg.releases)}): {rel}",
        f"  asks: delta at eps {list(cfg.epsilon)}, epsilon at delta {list(cfg.delta)}, "
        f"alpha {list(cfg.alpha)}, tpr at fpr {list(cfg.fpr)}",
        f"  run it: bdpsim account {source}",
    ]


def load_account_config(path: str | Path, limits: Limits | None = None) -> AccountConfig:
    """Read and validate an accountant config file (or a bundled config's name)."""
    from ..core.bundled import resolve_config

    p = resolve_config(path)
    return parse_account_config(load_toml(p), str(p), limits)
