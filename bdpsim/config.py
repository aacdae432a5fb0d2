"""TOML experiment configs → validated, frozen :class:`ExperimentPoint` s.

A config has three tables, ``[run]``, ``[model]`` and ``[mechanism]`` (and an optional top-level
``title``). Any sweepable scalar may be a list or a ``{linspace = [start, stop, num]}`` /
``{range = [start, stop, step]}`` table; vector-valued keys sweep with a list of vectors, matrix
keys with a list of matrices. The configuration points are the Cartesian product of all sweeps,
in the order the keys are listed in :data:`SCHEMA`. Every key and value is checked before anything
runs; the first problem raises :class:`~bdpsim.errors.ConfigError` (``field = value: rule``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import bounds as B
from .adversary import known_sizes as resolve_known_sizes
from .errors import ConfigError, check
from .estimators import ESTIMATORS, KDE_BACKENDS, ExactEstimator, KdeEstimator, MixtureEstimator
from .estimators.exact import unavailable_reason
from .mechanisms import (ClippedSum, CustomMechanism, LaplaceCount, LaplaceSum,
                         counted_states_valid, import_function)
from .models import GaussianModel, MarkovChainModel, limited_covariance
from .sampling import SAMPLING_MODES

# --------------------------------------------------------------------------- schema

@dataclass(frozen=True)
class Key:
    """One config key: its type (``int float str bool vector int_vector matrix any``), default
    (``REQUIRED`` if none), and whether it may be swept."""

    type: str
    default: Any = None
    sweep: bool = True


REQUIRED = object()

SCHEMA: dict[str, dict[str, Key]] = {
    "run": {
        "seed": Key("int", 1, sweep=False),
        "adversaries": Key("any", 1000),
        "samples": Key("int", 100_000),
        "estimator": Key("str", "kde"),
        "known_sizes": Key("any", "thesis", sweep=False),
        "percentile": Key("float", 99.0),
        "eval_points": Key("int", 1000),
        "window": Key("vector", [0.5, 99.5]),
        "kde_backend": Key("str", "fastkde"),
        "noise_floor_adversaries": Key("int", 100),
        "targets": Key("str", "uniform"),
        "bootstrap": Key("int", 1000),
        "confidence": Key("float", 0.95),
        "sampling": Key("str", "auto"),
        "chunk": Key("int", 65_536),
        "exact_reference": Key("bool", True),
        "adversary_rows": Key("any", "all", sweep=False),
    },
    "model": {
        "kind": Key("str", REQUIRED, sweep=False),
        "n": Key("int", REQUIRED),
        "transition": Key("matrix"),
        "gamma": Key("float"),
        "initial": Key("vector"),
        "rho": Key("float"),
        "sigma": Key("float", 1.0),
        "block": Key("int"),
        "cov_draw": Key("str", "uniform"),
        "mean_range": Key("vector"),
        "mean": Key("vector"),
        "cov": Key("matrix"),
    },
    "mechanism": {
        "kind": Key("str", REQUIRED, sweep=False),
        "epsilon": Key("float"),
        "counted_states": Key("int_vector", [1]),
        "clip": Key("vector", [0.0, 10.0]),
        "noise_scale": Key("float"),
        "target_values": Key("vector", [0.0, 10.0]),
        "function": Key("str"),
    },
}

MODEL_KEYS = {"markov": {"kind", "n", "transition", "gamma", "initial"},
              "gaussian": {"kind", "n", "rho", "sigma", "block", "cov_draw", "mean_range", "mean", "cov"}}
MECH_KEYS = {"count": {"kind", "epsilon", "counted_states"},
             "clipped_sum": {"kind", "epsilon", "clip"},
             "sum": {"kind", "noise_scale", "target_values"},
             "python": {"kind", "function", "epsilon"}}
MECHS_FOR_MODEL = {"markov": ("count", "python"), "gaussian": ("clipped_sum", "sum", "python")}


def _depth(v: Any) -> int:
    d = 0
    while isinstance(v, list):
        d += 1
        v = v[0] if v else None
    return d


def _sweep_table(name: str, v: dict) -> list:
    check(len(v) == 1 and next(iter(v)) in ("linspace", "range"), name, v,
          "a sweep table must be {linspace = [start, stop, num]} or {range = [start, stop, step]}")
    (kind, args), = v.items()
    check(isinstance(args, list) and len(args) == 3 and all(
        isinstance(a, (int, float)) and not isinstance(a, bool) for a in args), name, v,
        f"{kind} needs three numbers [start, stop, {'num' if kind == 'linspace' else 'step'}]")
    a, b, c = args
    if kind == "linspace":
        check(float(c).is_integer() and c >= 1, name, v, "linspace num must be an integer >= 1")
        return [float(x) for x in np.linspace(a, b, int(c))]
    check(c != 0, name, v, "range step must not be 0")
    vals = np.arange(a, b, c)
    check(vals.size >= 1, name, v, "range is empty")
    as_int = all(isinstance(x, int) for x in args)
    return [int(x) if as_int else float(x) for x in vals]


def _sweep_values(name: str, key: Key, v: Any) -> list:
    """The list of values a key takes (one element if not swept)."""
    if isinstance(v, dict):
        check(key.sweep and key.type in ("int", "float"), name, v, "cannot be swept with a table")
        return _sweep_table(name, v)
    base = {"vector": 1, "int_vector": 1, "matrix": 2}.get(key.type, 0)
    if key.type == "any":
        return [v]
    if isinstance(v, list) and _depth(v) > base:
        check(key.sweep, name, v, "cannot be swept (give one value)")
        check(len(v) >= 1, name, v, "a sweep list must not be empty")
        return v
    return [v]


def _coerce(name: str, key: Key, v: Any) -> Any:
    t = key.type
    isnum = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)  # noqa: E731
    if t == "int":
        check(isinstance(v, int) and not isinstance(v, bool) or (isinstance(v, float) and v.is_integer()),
              name, v, "must be an integer")
        return int(v)
    if t == "float":
        check(isnum(v) and math.isfinite(v), name, v, "must be a finite number")
        return float(v)
    if t == "str":
        check(isinstance(v, str), name, v, "must be a string")
        return v
    if t == "bool":
        check(isinstance(v, bool), name, v, "must be true or false")
        return v
    if t in ("vector", "int_vector"):
        check(isinstance(v, list) and len(v) >= 1 and all(isnum(x) for x in v), name, v,
              "must be a non-empty list of numbers")
        if t == "int_vector":
            check(all(float(x).is_integer() for x in v), name, v, "must be a list of integers")
            return [int(x) for x in v]
        check(all(math.isfinite(x) for x in v), name, v, "must contain finite numbers")
        return [float(x) for x in v]
    if t == "matrix":
        check(isinstance(v, list) and len(v) >= 1 and all(
            isinstance(r, list) and len(r) == len(v[0]) and all(isnum(x) for x in r) for r in v),
            name, v, "must be a rectangular list of lists of numbers")
        return [[float(x) for x in r] for r in v]
    return v


# --------------------------------------------------------------------------- points

@dataclass(frozen=True)
class ModelSpec:
    """A data model, fixed or drawn afresh per adversary (Gaussian ``Sigma_rho`` class)."""

    kind: str
    n: int
    transition: tuple | None = None
    gamma: float | None = None
    initial: tuple | None = None
    rho: float | None = None
    sigma: float = 1.0
    block: int | None = None
    cov_draw: str = "uniform"
    mean_range: tuple[float, float] | None = None
    mean: tuple | None = None
    cov: tuple | None = None
    fixed: Any = field(default=None, compare=False, repr=False)

    @property
    def random(self) -> bool:
        return self.fixed is None

    @property
    def m(self) -> int:
        """Number of correlated records for the bounds: the block size, or n."""
        return self.block or self.n

    def draw(self, rng: np.random.Generator):
        """The model for one adversary (a fresh ``mu`` and ``Sigma_rho`` when random)."""
        if self.fixed is not None:
            return self.fixed
        lo, hi = self.mean_range
        mean = np.array(self.mean) if self.mean is not None else rng.uniform(lo, hi, size=self.n)
        cov = limited_covariance(self.n, self.rho, self.sigma, rng, block=self.block, draw=self.cov_draw)
        return GaussianModel(mean, cov)

    @property
    def max_rho(self) -> float:
        """``rho`` of the limited-covariance class (explicit cov: its largest |correlation|)."""
        if self.rho is not None:
            return self.rho
        if self.kind == "gaussian":
            S = np.array(self.cov)
            d = np.sqrt(np.diag(S))
            R = S / np.outer(d, d)
            return float(np.max(np.abs(R - np.eye(self.n))))
        return math.nan


@dataclass(frozen=True)
class ExperimentPoint:
    """One configuration point: run settings, a model and a mechanism; ``id`` is a content hash."""

    run: dict
    model: ModelSpec
    mechanism: Any
    params: dict
    id: str

    @property
    def seed(self) -> int:
        return self.run["seed"]

    @property
    def key(self) -> int:
        """32-bit integer from the content hash: the point's branch of the seed tree."""
        return int(self.id[:8], 16)

    def estimator(self):
        r = self.run
        if r["estimator"] == "kde":
            return KdeEstimator(r["samples"], r["eval_points"], tuple(r["window"]), r["kde_backend"],
                                r["sampling"], r["chunk"])
        if r["estimator"] == "mixture":
            return MixtureEstimator(r["samples"], r["sampling"], r["chunk"])
        return ExactEstimator()

    @property
    def sizes(self) -> tuple[int, ...]:
        return resolve_known_sizes(self.run["known_sizes"], self.model.n)

    @property
    def epsilon(self) -> float:
        return getattr(self.mechanism, "epsilon", None) or math.nan

    def bounds(self) -> dict[str, B.Bound]:
        """The applicable theoretical bounds of SCIENCE.md §6 for this point."""
        nan = B.Bound("", math.nan, "not applicable")
        out = {"general": nan, "model": nan, "zhao": nan}
        eps, mech, model = self.epsilon, self.mechanism, self.model
        if math.isfinite(eps):
            out["general"] = B.general_bound(eps, model.m)
        if model.kind == "markov":
            P = np.array(self.fixed_markov.transition)
            if math.isfinite(eps):
                out["model"] = B.markov_bound(eps, P)
                if not self.fixed_markov.is_stationary:
                    out["model"] = B.Bound("markov", math.nan, "needs a stationary start (H2)")
                out["zhao"] = B.zhao_bound(eps, P)
        elif isinstance(mech, ClippedSum):
            out["model"] = B.gaussian_bound(eps, model.max_rho, model.m)
        elif isinstance(mech, LaplaceSum):
            x, xp = self.run["_targets"]
            out["model"] = B.gaussian_bound(mech.metric_epsilon, model.max_rho, model.m,
                                            distance=abs(x - xp))
        return out

    @property
    def fixed_markov(self) -> MarkovChainModel:
        return self.model.fixed


@dataclass(frozen=True)
class ExperimentConfig:
    """A whole config: its raw tables, seed and the expanded points."""

    raw: dict
    points: tuple[ExperimentPoint, ...]
    title: str = ""
    source: str = ""

    @property
    def seed(self) -> int:
        return self.points[0].seed


def _resolve_section(section: str, table: Any) -> dict[str, list]:
    check(isinstance(table, dict), section, table, "must be a TOML table")
    schema = SCHEMA[section]
    for k in table:
        check(k in schema, f"{section}.{k}", table[k],
              f"unknown key (allowed: {', '.join(schema)})")
    out = {}
    for k, key in schema.items():
        name = f"{section}.{k}"
        if k not in table:
            if key.default is REQUIRED:
                raise ConfigError(name, None, "is required")
            out[k] = [key.default]
            continue
        out[k] = [_coerce(name, key, v) for v in _sweep_values(name, key, table[k])]
    return out


def _canonical(d: dict) -> str:
    return json.dumps(d, sort_keys=True, separators=(",", ":"), default=str)


def _build_point(params: dict, present: dict[str, set]) -> ExperimentPoint:
    run, mp, kp = params["run"], params["model"], params["mechanism"]
    # ---- run
    check(run["seed"] >= 0, "run.seed", run["seed"], "must be an integer >= 0")
    adv = run["adversaries"]
    check(adv == "all" or (isinstance(adv, int) and not isinstance(adv, bool) and adv >= 1),
          "run.adversaries", adv, "must be an integer >= 1 or 'all'")
    check(run["samples"] >= 100, "run.samples", run["samples"], "must be an integer >= 100")
    check(run["estimator"] in ESTIMATORS, "run.estimator", run["estimator"], f"must be one of {list(ESTIMATORS)}")
    check(0 < run["percentile"] <= 100, "run.percentile", run["percentile"], "must be in (0, 100]")
    check(run["eval_points"] >= 1, "run.eval_points", run["eval_points"], "must be >= 1")
    w = run["window"]
    check(len(w) == 2 and 0 <= w[0] < w[1] <= 100, "run.window", w,
          "must be [low, high] percentiles with 0 <= low < high <= 100")
    check(run["kde_backend"] in KDE_BACKENDS, "run.kde_backend", run["kde_backend"],
          f"must be one of {sorted(KDE_BACKENDS)}")
    check(run["noise_floor_adversaries"] >= 0, "run.noise_floor_adversaries",
          run["noise_floor_adversaries"], "must be >= 0")
    check(run["targets"] in ("uniform", "endpoints"), "run.targets", run["targets"],
          "must be 'uniform' or 'endpoints'")
    check(run["bootstrap"] >= 0, "run.bootstrap", run["bootstrap"], "must be >= 0")
    check(0 < run["confidence"] < 1, "run.confidence", run["confidence"], "must be in (0, 1)")
    check(run["sampling"] in SAMPLING_MODES, "run.sampling", run["sampling"], f"must be one of {list(SAMPLING_MODES)}")
    check(run["chunk"] >= 1000, "run.chunk", run["chunk"], "must be >= 1000")
    ar = run["adversary_rows"]
    check(ar == "all" or (isinstance(ar, int) and not isinstance(ar, bool) and ar >= 1),
          "run.adversary_rows", ar, "must be 'all' or an integer >= 1 (rows kept per configuration, highest first)")
    # ---- model
    kind = mp["kind"]
    check(kind in MODEL_KEYS, "model.kind", kind, "must be 'markov' or 'gaussian'")
    for k in present["model"] - MODEL_KEYS[kind]:
        raise ConfigError(f"model.{k}", mp[k], f"is not a key of a {kind} model")
    n = mp["n"]
    check(n >= 2, "model.n", n, "must be an integer >= 2")
    if kind == "markov":
        has_t, has_g = "transition" in present["model"], "gamma" in present["model"]
        check(has_t != has_g, "model.transition", mp["transition"], "give exactly one of transition or gamma")
        P = B.transition_matrix(mp["transition"]) if has_t else B.symmetric_chain(mp["gamma"])
        model = MarkovChainModel(P, n, mp["initial"])
        spec = ModelSpec("markov", n, tuple(map(tuple, P.tolist())), mp["gamma"] if has_g else B.gamma_of(P),
                         None if mp["initial"] is None else tuple(mp["initial"]), fixed=model)
    else:
        mech_kind = kp["kind"]
        if "cov" in present["model"] or "mean" in present["model"] and "rho" not in present["model"]:
            check("cov" in present["model"] and "mean" in present["model"], "model.cov", mp["cov"],
                  "an explicit Gaussian needs both mean and cov")
            check("rho" not in present["model"], "model.rho", mp["rho"], "give rho or an explicit cov, not both")
            check(len(mp["mean"]) == n, "model.mean", mp["mean"], f"must have n = {n} entries")
            model = GaussianModel(mp["mean"], mp["cov"])
            spec = ModelSpec("gaussian", n, mean=tuple(mp["mean"]), cov=tuple(map(tuple, mp["cov"])),
                             block=mp["block"], fixed=model)
        else:
            rho = mp["rho"]
            check(rho is not None, "model.rho", rho, "a Gaussian model needs rho (or mean and cov)")
            check(0 <= rho < 1, "model.rho", rho, "must be in [0, 1)")
            check(mp["sigma"] > 0, "model.sigma", mp["sigma"], "must be > 0")
            check(mp["cov_draw"] in ("uniform", "positive", "equicorrelated"), "model.cov_draw",
                  mp["cov_draw"], "must be 'uniform', 'positive' or 'equicorrelated'")
            if mp["block"] is not None:
                check(1 <= mp["block"] <= n, "model.block", mp["block"], f"must be in 1..n ({n})")
            if mp["mean"] is not None:
                check(len(mp["mean"]) == n, "model.mean", mp["mean"], f"must have n = {n} entries")
            mr = mp["mean_range"]
            if mr is None:
                if mech_kind == "clipped_sum":
                    check(len(kp["clip"]) == 2 and kp["clip"][0] < kp["clip"][1], "mechanism.clip",
                          kp["clip"], "must be [low, high] with low < high")
                mr = kp["clip"] if mech_kind == "clipped_sum" else sorted(kp["target_values"])
                if mr[0] == mr[1]:
                    mr = [mr[0] - 1.0, mr[1] + 1.0]
            check(len(mr) == 2 and mr[0] < mr[1], "model.mean_range", mr, "must be [low, high] with low < high")
            # validate that a limited covariance can be drawn, with a throwaway generator
            limited_covariance(n, rho, mp["sigma"], np.random.default_rng(0), block=mp["block"],
                               draw=mp["cov_draw"], max_tries=2000)
            fixed = None
            if mp["cov_draw"] == "equicorrelated":
                mean = mp["mean"] or [0.5 * (mr[0] + mr[1])] * n
                fixed = GaussianModel(mean, limited_covariance(
                    n, rho, mp["sigma"], np.random.default_rng(0), block=mp["block"], draw="equicorrelated"))
            spec = ModelSpec("gaussian", n, rho=rho, sigma=mp["sigma"], block=mp["block"],
                             cov_draw=mp["cov_draw"], mean_range=(float(mr[0]), float(mr[1])),
                             mean=None if mp["mean"] is None else tuple(mp["mean"]), fixed=fixed)
    # ---- mechanism
    mk = kp["kind"]
    check(mk in MECH_KEYS, "mechanism.kind", mk, f"must be one of {list(MECH_KEYS)}")
    for k in present["mechanism"] - MECH_KEYS[mk]:
        raise ConfigError(f"mechanism.{k}", kp[k], f"is not a key of a '{mk}' mechanism")
    check(mk in MECHS_FOR_MODEL[kind], "mechanism.kind", mk,
          f"a {kind} model takes {' or '.join(MECHS_FOR_MODEL[kind])}")
    if mk in ("count", "clipped_sum"):
        check(kp["epsilon"] is not None, "mechanism.epsilon", None, "is required")
        check(kp["epsilon"] > 0, "mechanism.epsilon", kp["epsilon"], "must be > 0")
    if mk == "count":
        mech = LaplaceCount(kp["epsilon"], tuple(kp["counted_states"]))
        counted_states_valid(mech, spec.fixed.states)
    elif mk == "clipped_sum":
        check(len(kp["clip"]) == 2 and kp["clip"][0] < kp["clip"][1], "mechanism.clip", kp["clip"],
              "must be [low, high] with low < high")
        mech = ClippedSum(kp["epsilon"], tuple(kp["clip"]))
    elif mk == "sum":
        check(kp["noise_scale"] is not None, "mechanism.noise_scale", None, "is required")
        check(kp["noise_scale"] > 0, "mechanism.noise_scale", kp["noise_scale"], "must be > 0")
        tv = kp["target_values"]
        check(len(tv) == 2 and tv[0] != tv[1], "mechanism.target_values", tv,
              "must be two different values [x, x']")
        mech = LaplaceSum(kp["noise_scale"])
    else:
        check(kp["function"] is not None, "mechanism.function", None, "is required ('module:function')")
        if kp["epsilon"] is not None:
            check(kp["epsilon"] > 0, "mechanism.epsilon", kp["epsilon"], "must be > 0")
        mech = CustomMechanism(import_function(kp["function"]), kp["function"], kp["epsilon"])
    # ---- estimator compatibility
    resolve_known_sizes(run["known_sizes"], n)
    probe = spec.fixed if spec.fixed is not None else spec.draw(np.random.default_rng(0))
    if isinstance(mech, CustomMechanism):  # try the user's function once on a tiny batch, up front
        try:
            mech(probe.sample(4, np.random.default_rng(0)), np.random.default_rng(0))
        except ConfigError:
            raise
        except Exception as exc:
            raise ConfigError("mechanism.function", kp["function"],
                              f"fails on a test batch of shape (4, {n}) ({type(exc).__name__}: {exc})") from None
    if run["estimator"] == "mixture":
        why = MixtureEstimator.supports(probe, mech)
        check(why is None, "run.estimator", "mixture", why or "")
    if run["estimator"] == "exact":
        why = unavailable_reason(probe, mech)
        if why is None and spec.kind == "gaussian" and isinstance(mech, ClippedSum) and spec.rho:
            why = "no exact BDPL for a correlated Gaussian with a clipped sum; use estimator = 'mixture'"
        check(why is None, "run.estimator", "exact", why or "")
    if adv == "all":
        check(run["estimator"] == "exact", "run.adversaries", adv, "'all' (exhaustive) needs estimator = 'exact'")
        check(spec.fixed is not None, "run.adversaries", adv,
              "'all' needs a fixed model (markov, or gaussian with an explicit cov or cov_draw = 'equicorrelated')")
        check(isinstance(mech, (LaplaceCount, LaplaceSum)), "run.adversaries", adv,
              "'all' is available for markov+count and gaussian+sum")
        if isinstance(mech, LaplaceSum):
            check(n <= 14, "model.n", n, "exhaustive Gaussian search is limited to n <= 14")
        else:
            total = n * sum(math.comb(n - 1, k) * spec.fixed.states ** k
                            for k in resolve_known_sizes(run["known_sizes"], n))
            check(total <= 5_000_000, "run.adversaries", adv,
                  f"'all' would examine {total} adversaries (limit 5e6); lower n or restrict known_sizes")
    run = dict(run)
    if mk == "sum":
        run["_targets"] = (float(kp["target_values"][0]), float(kp["target_values"][1]))
    elif mk == "clipped_sum":
        run["_targets"] = tuple(kp["clip"])
    flat = {"run": {k: v for k, v in params["run"].items()}, "model": params["model"],
            "mechanism": params["mechanism"]}
    pid = hashlib.sha256(_canonical(flat).encode()).hexdigest()[:16]
    return ExperimentPoint(run, spec, mech, flat, pid)


def _expand(doc: dict, where: str) -> list[ExperimentPoint]:
    for sec in ("model", "mechanism"):
        check(sec in doc, f"{where}[{sec}]", None, "table is required")
    sections = {s: _resolve_section(s, doc.get(s, {})) for s in SCHEMA}
    present = {s: set(doc.get(s, {})) for s in SCHEMA}
    axes = [(s, k, vals) for s in SCHEMA for k, vals in sections[s].items()]
    count = math.prod(len(v) for _, _, v in axes)
    check(count <= 100_000, "config", count, "expands to more than 100000 points")
    points = []
    for combo in itertools.product(*[v for _, _, v in axes]):
        params: dict = {s: {} for s in SCHEMA}
        for (s, k, _), v in zip(axes, combo):
            params[s][k] = v
        points.append(_build_point(params, present))
    return points


def parse_config(raw: dict, source: str = "") -> ExperimentConfig:
    """Validate a parsed TOML document and expand its sweeps into points.

    ``[[variants]]`` (optional): each entry overrides keys of ``[run]``/``[model]``/``[mechanism]``
    (e.g. ``model = { n = 5, rho = {linspace = [0.03, 0.3, 10]} }``); the points are the union of
    each variant's Cartesian product. Use it for sweeps whose range depends on another key.
    """
    check(isinstance(raw, dict), "config", raw, "must be a TOML document")
    for k in raw:
        check(k in ("run", "model", "mechanism", "title", "variants"), k, raw[k],
              "unknown table (allowed: title, [run], [model], [mechanism], [[variants]])")
    title = raw.get("title", "")
    check(isinstance(title, str), "title", title, "must be a string")
    variants = raw.get("variants", [{}])
    check(isinstance(variants, list) and len(variants) >= 1 and all(isinstance(v, dict) for v in variants),
          "variants", variants, "must be an array of tables ([[variants]])")
    points = []
    for j, var in enumerate(variants):
        doc = {s: dict(raw.get(s, {})) for s in SCHEMA if s in raw or s in var}
        for s, table in var.items():
            check(s in SCHEMA and isinstance(table, dict), f"variants[{j}].{s}", table,
                  "must be a table of run, model or mechanism keys")
            doc.setdefault(s, {}).update(table)
        points += _expand(doc, f"variants[{j}]." if "variants" in raw else "")
    ids = [p.id for p in points]
    check(len(set(ids)) == len(ids), "config", source, "contains duplicate configuration points")
    return ExperimentConfig(raw, tuple(points), title, source)


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a TOML config file."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError("config", str(path), "file not found")
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("config", str(path), f"is not valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise ConfigError("config", str(path), "is not UTF-8 text") from None
    return parse_config(raw, str(p))
