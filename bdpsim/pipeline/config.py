"""TOML experiment configs → validated, frozen :class:`ExperimentPoint` s.

A config has three tables, ``[run]``, ``[model]`` and ``[mechanism]`` (and an optional top-level
``title`` and ``[[variants]]``). The keys of each table come from their owners: ``[run]`` from
:class:`~bdpsim.pipeline.settings.RunSettings`, ``[model]`` from the model registry
(:data:`~bdpsim.models.MODEL_KINDS`), ``[mechanism]`` from the mechanism registry
(:data:`~bdpsim.mechanisms.MECHANISM_KINDS`). Sweeps (see :mod:`bdpsim.core.schema`) expand into the
Cartesian product of configuration points, in the order the keys are declared. Every value is
checked by the class that owns it before anything runs; the first problem raises
:class:`~bdpsim.core.errors.ConfigError` (``field = value: rule``). This module produces values only.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import numpy as np

from .. import attack as _attack  # noqa: F401  (registers the attack columns of an exact run)
from .. import bounds as B
from .. import calibration as _calibration  # noqa: F401  (registers the calibrated mechanism kinds)
from ..adversary import is_upward_closed
from ..adversary import known_sizes as resolve_known_sizes
from ..core.errors import ConfigError, NotAvailable, check, naming
from ..core.files import CONFIG_DIR, LIMITS, FileRefused, read_text
from ..core.registry import load_plugins, skipped_note
from ..core.schema import MAX_SWEEP, REQUIRED, Key, resolve_table
from ..core.warn import config_file, warn_user
from ..estimators import ESTIMATORS
from ..estimators.base import FinishContext
from ..mechanisms import MECHANISM_KINDS, Mechanism
from ..models import MODEL_KINDS, ModelSpec
from ..models.engines import (
    ExactEngine,
    HasExhaustive,
    HasWindowSearch,
    PairEngine,
    SearchTooLarge,
    build_engine,
    complete_engine,
)
from . import seeds
from .cost import Limits, model_setup
from .settings import RunSettings, run_keys


def _union(kinds) -> dict[str, Key]:
    keys: dict[str, Key] = {
        "kind": Key("str", REQUIRED, sweep=False, doc="the registered kind", rule="a registered kind name")
    }
    for kind in kinds.values():
        for k, key in kind.keys.items():
            keys.setdefault(k, key)
    return keys


def sections() -> dict[str, dict[str, Key]]:
    """The keys of each config table (read from the registries, so new kinds appear here)."""
    return {"run": run_keys(), "model": _union(MODEL_KINDS), "mechanism": _union(MECHANISM_KINDS)}


@dataclass(frozen=True)
class ExperimentPoint:
    """One configuration point: run settings, a model and a mechanism; ``id`` is a content hash.

    ``params`` holds the point's config values (for metadata and the hash). ``engine`` is the
    point's exact engine — what :func:`~bdpsim.models.engines.build_engine` answers for its (probe)
    model and mechanism: an engine, possibly for some adversaries only, or the refusal — built once,
    where the point is built (``None`` given: built by ``__post_init__``), and owned by the point: it
    travels with the pickled point to its tasks, and the driver hands it to the estimator of every
    adversary of the point's fixed model (:meth:`engine_of`). Nothing looks an engine up.
    """

    settings: RunSettings
    model: ModelSpec
    mechanism: Mechanism
    params: dict
    id: str
    engine: PairEngine = field(default=None, repr=False, compare=False)
    #: 32-bit key of the point's adversary population (:func:`population_key_of`, computed once when
    #: the point is made): a hash of its model and mechanism tables, ``known_sizes``, ``targets`` and
    #: (when not the default) ``adversary_family`` — nothing about how the adversaries are estimated
    population_key: int = field(init=False, repr=False, compare=False)

    @property
    def seed(self) -> int:
        return self.settings.seed

    @property
    def key(self) -> int:
        """32-bit integer from the content hash: the point's branch of the seed tree."""
        return int(self.id[:8], 16)

    def estimator(self):
        """The point's estimator, built once (the same object for every call, and in every task:
        it travels with the pickled point)."""
        est = self.__dict__.get("_estimator")
        if est is None:
            est = self.settings.make_estimator()
            object.__setattr__(self, "_estimator", est)
        return est

    def finish_context(self) -> FinishContext:
        """What :meth:`Estimator.finish <bdpsim.estimators.base.Estimator.finish>` may use of this
        point: its mechanism, its adversaries as the driver drew them, configuration-level streams
        and its exact engine — not the whole point."""
        st = self.settings
        return FinishContext(
            mechanism=self.mechanism,
            adversary=self.adversary,
            stream=self.stream,
            exact_reference=st.exact_reference,
            exhaustive=st.exhaustive,
            sizes=self.sizes,
            engine=lambda: self.exact_engine,
            pair=f"{self.model.kind}+{self.mechanism.kind}",
            engine_of=self.engine_of,
        )

    @property
    def sizes(self) -> tuple[int, ...]:
        return resolve_known_sizes(self.settings.known_sizes, self.model.n)

    @property
    def epsilon(self) -> float:
        return self.mechanism.epsilon or math.nan

    def draw_adversary(self, rng: np.random.Generator):
        """One ``(model, adversary)`` draw (thesis §3.1.2 step 1; §6.4.1: a fresh model per
        adversary for a model family), by the model kind; the mechanism says how real-valued
        targets are drawn. ``run.adversary_family = "windows"``: the kind's window adversaries."""
        model = self.model.draw(rng)
        if self.settings.adversary_family == "windows":
            return model, self.model.owner.window_adversary(model, self.sizes, rng, spec=self.model)
        mode, target_range = self.mechanism.adversary_targets(self.settings.targets)
        adv = self.model.owner.draw_adversary(
            model, self.sizes, rng, targets=mode, target_range=target_range, spec=self.model
        )
        return model, adv

    def adversary_streams(self, j: int) -> list[np.random.Generator]:
        """Three independent generators (draw, estimate, noise floor) for adversary ``j``: the draw
        from ``spawn_key=(population_key, 2, j)`` (common to every estimator), the other two the
        children of ``spawn_key=(key, 0, j)``."""
        return [
            seeds.stream(self.seed, self.population_key, 2, j),
            *seeds.streams(self.seed, self.key, 0, j, count=2),
        ]

    def adversary(self, j: int):
        """``(model, adversary)`` number ``j`` of this point, as the driver draws it (for work an
        estimator does once every adversary is done, e.g. certifying the most leaking ones)."""
        return self.draw_adversary(self.adversary_streams(j)[0])

    def stream(self, *path: int) -> np.random.Generator:
        """A generator for configuration-level work: ``spawn_key=(key, 1, *path)`` of the point's
        seed tree (independent of every adversary's streams and of the number of workers)."""
        return seeds.stream(self.seed, self.key, 1, *path)

    def bounds(self) -> dict[str, B.Bound]:
        """The theoretical bounds of this point (:func:`bdpsim.bounds.applicable_bounds`)."""
        return B.applicable_bounds(self.model, self.mechanism)

    @property
    def exhaustive_method(self) -> str:
        """How ``adversaries = "all"`` is searched (:func:`exhaustive_method`)."""
        return exhaustive_method(self.settings, self.model, self.mechanism, self.engine)

    @property
    def exact_engine(self) -> ExactEngine:
        """The point's exact engine for every adversary (:attr:`engine` through
        :func:`~bdpsim.models.engines.complete_engine`; raises
        :class:`~bdpsim.core.errors.NotAvailable` with the reason when there is none)."""
        return complete_engine(cast("ExactEngine | NotAvailable", self.engine))

    def engine_of(self, model) -> PairEngine:
        """The engine to pass on with ``model`` (the ``engine`` argument of the estimators): the
        point's own for its fixed model, ``None`` for a model a family drew (its engine is its own)."""
        return self.engine if model is self.model.fixed else None

    def __post_init__(self) -> None:
        st = self.settings
        pop = {
            "model": self.params["model"],
            "mechanism": self.params["mechanism"],
            "known_sizes": st.known_size_text(),
            "targets": st.targets,
        }
        if st.adversary_family != "random":
            pop["adversary_family"] = st.adversary_family
        object.__setattr__(self, "population_key", population_key_of(pop))
        if self.engine is None:  # a point made directly (not by the config loader): built here, once
            object.__setattr__(self, "engine", build_engine(self.model.probe(), self.mechanism))


def population_key_of(population: dict) -> int:
    """32-bit key of an adversary population (:attr:`ExperimentPoint.population_key`): the first
    8 hex digits of the SHA-256 of its canonical JSON."""
    text = json.dumps(population, sort_keys=True, separators=(",", ":"), default=str)
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


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

    @property
    def percentile_label(self) -> str:
        return self.points[0].settings.percentile_label


def _canonical(d: dict) -> str:
    return json.dumps(d, sort_keys=True, separators=(",", ":"), default=str)


def _hashed(params: dict, present: dict[str, set], secs: dict[str, dict[str, Key]]) -> dict:
    return {s: {k: v for k, v in params[s].items() if secs[s][k].hashed or k in present[s]} for s in secs}


def _check_pair(settings: RunSettings, spec: ModelSpec, mech, found: ExactEngine | NotAvailable) -> None:
    """Checks that need the model, the mechanism and the estimator together (``found``: the
    point's exact engine, or its refusal, built once for them)."""
    n = spec.n
    resolve_known_sizes(settings.known_sizes, n)
    probe = spec.probe()
    est = ESTIMATORS[settings.estimator]
    why = est.supports(probe, mech, engine=found)
    check(why is None, "run.estimator", settings.estimator, why or "")
    settings.make_estimator().check(probe, mech, engine=found)
    if settings.adversary_family == "windows":
        why = spec.owner.windows(spec)
        check(why is None, "run.adversary_family", "windows", why or "")
    if settings.exhaustive:
        check(est.exact, "run.adversaries", "all", "'all' (exhaustive) needs estimator = 'exact'")
        check(
            spec.fixed is not None,
            "run.adversaries",
            "all",
            "'all' needs a fixed model (markov, pedigree, or gaussian with an explicit cov or "
            "cov_draw = 'equicorrelated')",
        )
        eng = _engine_for_all(found)
        sizes = resolve_known_sizes(settings.known_sizes, n)
        try:
            if exhaustive_method(settings, spec, mech, found) == "window":
                cast(HasWindowSearch, eng).check_window(sizes[0])
                return
            check(
                isinstance(eng, HasExhaustive),
                "run.adversaries",
                "all",
                f"no enumeration of every adversary for {spec.kind}+{mech.kind}",
            )
            cast(HasExhaustive, eng).check_exhaustive(sizes)
        except SearchTooLarge as err:
            raise ConfigError(err.field, n if err.field == "model.n" else "all", err.reason) from None


def _engine_for_all(found: PairEngine) -> ExactEngine:
    """The point's engine for every adversary (:func:`~bdpsim.models.engines.complete_engine`), its
    refusal a :class:`~bdpsim.core.errors.ConfigError` of ``run.adversaries = "all"``."""
    try:
        return complete_engine(cast("ExactEngine | NotAvailable", found))
    except NotAvailable as exc:
        raise ConfigError("run.adversaries", "all", str(exc)) from None


def exhaustive_method(settings: RunSettings, spec: ModelSpec, mech, engine: PairEngine) -> str:
    """``"window"`` (window reduction, paper-scale chains) or ``"enumerate"`` (every known set):
    ``run.exhaustive_method = "auto"`` takes the window search where the engine (the point's:
    :attr:`ExperimentPoint.engine`) has one and the known-set sizes are upward closed
    (``{k..n-1}``: the reduction's condition)."""
    window = isinstance(_engine_for_all(engine), HasWindowSearch)
    sizes = resolve_known_sizes(settings.known_sizes, spec.n)
    can = window and is_upward_closed(sizes, spec.n)
    want = settings.exhaustive_method
    if want == "window":
        check(window, "run.exhaustive_method", want, f"no window search for {spec.kind}+{mech.kind}")
        check(
            can,
            "run.exhaustive_method",
            want,
            "the window reduction needs known_sizes = 'all', 'thesis' or {k..n-1} (upward closed)",
        )
    return "window" if can and want != "enumerate" else "enumerate"


MAX_MAGNITUDE = 1e12  # model and mechanism numbers: beyond it, squares and sums overflow


def _check_magnitude(name: str, value: Any) -> None:
    """Numbers of the model and mechanism must be at most :data:`MAX_MAGNITUDE` in absolute value."""
    flat = value if isinstance(value, list) else [value]
    for v in flat:
        if isinstance(v, list):
            _check_magnitude(name, v)
        elif isinstance(v, float) and abs(v) > MAX_MAGNITUDE:
            raise ConfigError(
                name,
                value,
                f"numbers must be at most {MAX_MAGNITUDE:g} in absolute value (larger ones overflow)",
            )


def _build_point(
    params: dict,
    present: dict[str, set],
    secs: dict[str, dict[str, Key]],
    limits: Limits,
    swept: tuple[str, ...] = (),
) -> ExperimentPoint:
    with naming("run"):  # a kernel's error names its parameter; here, the config field
        settings = RunSettings.from_table(params["run"], alongside=swept, given=present["run"])
    mp, kp = params["model"], params["mechanism"]
    kind, mk = mp["kind"], kp["kind"]
    check(kind in MODEL_KINDS, "model.kind", kind, f"must be one of {list(MODEL_KINDS)}{skipped_note()}")
    model_kind = MODEL_KINDS[kind]
    for k in sorted(present["model"] - set(model_kind.keys) - {"kind"}):
        raise ConfigError(f"model.{k}", mp[k], f"is not a key of a {kind} model")
    check(
        mk in MECHANISM_KINDS, "mechanism.kind", mk, f"must be one of {list(MECHANISM_KINDS)}{skipped_note()}"
    )
    mech_kind = MECHANISM_KINDS[mk]
    for k in sorted(present["mechanism"] - set(mech_kind.keys) - {"kind"}):
        raise ConfigError(f"mechanism.{k}", kp[k], f"is not a key of a '{mk}' mechanism")
    why = model_kind.accepts(mech_kind)
    check(why is None, "mechanism.kind", mk, why or "")
    for sec in ("model", "mechanism"):
        for k in sorted(present[sec]):
            _check_magnitude(f"{sec}.{k}", params[sec][k])
    model_setup(model_kind, mp, limits)  # building some models is itself costly: refuse before
    with naming("mechanism"):
        hints = mech_kind.hints(kp)
    with naming("model"):
        spec = model_kind.build(mp, present["model"], hints)
    if spec.owner is None:
        spec = replace(spec, owner=model_kind)
    with naming("mechanism"):
        mech = mech_kind.build(kp, spec)
    if not isinstance(mech, Mechanism):
        raise TypeError(
            f"mechanism kind {mk!r} built a {type(mech).__name__}, which does not implement the "
            "Mechanism protocol (kind, epsilon, __call__, columns, adversary_targets)"
        )
    with naming("mechanism"):  # a fallback: the engines name the fields they read themselves
        found = build_engine(spec.probe(), mech)  # the point's engine: built once, here
        _check_pair(settings, spec, mech, found)
    flat = _hashed(params, present, secs)
    pid = hashlib.sha256(_canonical(flat).encode()).hexdigest()[:16]
    return ExperimentPoint(settings, spec, mech, flat, pid, engine=found)


def _expand(doc: dict, where: str, limits: Limits) -> list[ExperimentPoint]:
    for sec in ("model", "mechanism"):
        check(sec in doc, f"{where}[{sec}]", None, "table is required")
    secs = sections()
    resolved = {s: resolve_table(s, doc.get(s, {}), secs[s]) for s in secs}
    present = {s: set(doc.get(s, {})) for s in secs}
    axes = [(s, k, vals) for s in secs for k, vals in resolved[s].items()]
    count = math.prod(len(v) for _, _, v in axes)
    check(count <= MAX_SWEEP, "config", count, f"expands to more than {MAX_SWEEP} points")
    points = []
    for combo in itertools.product(*[v for _, _, v in axes]):
        params: dict = {s: {} for s in secs}
        for (s, k, _), v in zip(axes, combo):
            params[s][k] = v
        points.append(_build_point(params, present, secs, limits, tuple(resolved["run"]["estimator"])))
    return points


def parse_config(raw: dict, source: str = "", limits: Limits | None = None) -> ExperimentConfig:
    """Validate a parsed TOML document and expand its sweeps into points.

    ``[[variants]]`` (optional): each entry overrides keys of ``[run]``/``[model]``/``[mechanism]``
    (e.g. ``model = { n = 5, rho = {linspace = [0.03, 0.3, 10]} }``); the points are the union of
    each variant's Cartesian product. Use it for sweeps whose range depends on another key.

    Parameters
    ----------
    raw : dict
        The document: ``{"run": {...}, "model": {...}, "mechanism": {...}}`` (+ ``title``,
        ``variants``), as in the TOML files of ``configs/``.
    source : str, optional
        Where it came from, for messages. A config file's path: the relative paths in it
        (``model.bif``, ``mechanism.noise_table``, a python mechanism's module) name files beside
        it (:data:`~bdpsim.core.files.CONFIG_DIR`), wherever the process runs; a warning one of its
        keys causes is located at that key's line (:func:`~bdpsim.core.warn.warn_user`).
    limits : Limits, optional
        Refuse models whose construction alone exceeds them (default :class:`~bdpsim.pipeline.cost.Limits`).

    Returns
    -------
    ExperimentConfig
        The validated settings and the expanded configuration points.
    """
    here = str(Path(source).resolve().parent) if source and Path(source).is_file() else None
    if here is not None and CONFIG_DIR.get() != here:  # paths in a config file name files beside it
        token = CONFIG_DIR.set(here)
        try:
            return parse_config(raw, source, limits)
        finally:
            CONFIG_DIR.reset(token)
    with config_file(source):  # the warnings its keys cause: located at their lines
        return _parse_config(raw, source, limits)


def _parse_config(raw: dict, source: str, limits: Limits | None) -> ExperimentConfig:
    """:func:`parse_config` once its file's directory and warnings' location are set."""
    limits = limits or Limits()
    load_plugins()  # kinds of installed plug-in packages (entry points bdpsim.plugins), once
    check(isinstance(raw, dict), "config", raw, "must be a TOML document")
    for k in raw:
        check(
            k in ("run", "model", "mechanism", "title", "variants"),
            k,
            raw[k],
            "unknown table (allowed: title, [run], [model], [mechanism], [[variants]])",
        )
    title = raw.get("title", "")
    check(isinstance(title, str), "title", title, "must be a string")
    variants = raw.get("variants", [{}])
    check(
        isinstance(variants, list) and len(variants) >= 1 and all(isinstance(v, dict) for v in variants),
        "variants",
        variants,
        "must be an array of tables ([[variants]])",
    )
    points = []
    for s in ("run", "model", "mechanism"):
        check(isinstance(raw.get(s, {}), dict), s, raw.get(s), "must be a TOML table ([" + s + "])")
    for j, var in enumerate(variants):
        doc = {s: dict(raw.get(s, {})) for s in ("run", "model", "mechanism") if s in raw or s in var}
        for s, table in var.items():
            check(
                s in ("run", "model", "mechanism") and isinstance(table, dict),
                f"variants[{j}].{s}",
                table,
                "must be a table of run, model or mechanism keys",
            )
            doc.setdefault(s, {}).update(table)
        points += _expand(doc, f"variants[{j}]." if "variants" in raw else "", limits)
        check(len(points) <= MAX_SWEEP, "config", len(points), f"expands to more than {MAX_SWEEP} points")
    ids = [p.id for p in points]
    check(len(set(ids)) == len(ids), "config", source, "contains duplicate configuration points")
    pct = {p.settings.percentile for p in points}
    check(len(pct) == 1, "run.percentile", sorted(pct), "must be the same for every point of a config")
    _warn_unread(points, source)
    return ExperimentConfig(raw, tuple(points), title, source)


def _warn_unread(points: list[ExperimentPoint], source: str) -> None:
    """Warn, once per key and value, about the ``[run]`` keys the config set that no estimator
    reads (:attr:`RunSettings.unread <bdpsim.pipeline.settings.RunSettings.unread>`: ``bootstrap``,
    accepted for old configs). The warning names the config and the key, and is located at the
    key's line of the config file (a config given as a dict: the first caller outside bdpsim;
    :func:`~bdpsim.core.warn.warn_user`)."""
    unread = dict.fromkeys((k, p.settings.as_dict()[k]) for p in points for k in p.settings.unread)
    for k, v in unread:
        where = f"{source}: " if source else ""
        warn_user(f"{where}[run] {k} = {v!r} is read by no estimator of this run (ignored); remove it", k)


def load_toml(path: str | Path) -> dict:
    """Read a TOML file (run or utility config) with one-line errors for every failure."""
    try:
        return tomllib.loads(read_text(path, LIMITS["toml"]))
    except FileRefused as exc:
        raise ConfigError("config", str(path), exc.reason) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("config", str(path), f"is not valid TOML ({exc})") from None
    except RecursionError:  # tomllib recurses once per level of nested arrays and inline tables
        raise ConfigError(
            "config",
            str(path),
            "is not valid TOML for bdpsim (arrays or inline tables nested "
            "too deeply: a config needs a few levels)",
        ) from None


def is_utility_config(raw: dict) -> bool:
    return isinstance(raw, dict) and "utility" in raw


def load_config(path: str | Path, limits: Limits | None = None) -> ExperimentConfig:
    """Read and validate a TOML run config file (see :func:`parse_config`).

    Parameters
    ----------
    path : str or Path
        The TOML file.
    limits : Limits, optional
        See :func:`parse_config`.

    Returns
    -------
    ExperimentConfig
        The validated settings and the expanded configuration points.
    """
    raw = load_toml(path)
    check(not is_utility_config(raw), "config", str(path), "is a utility config: use 'bdpsim utility'")
    check(
        not (isinstance(raw, dict) and "release" in raw),
        "config",
        str(path),
        "is an accountant config ([[release]] tables): use 'bdpsim account'",
    )
    return parse_config(raw, str(Path(path)), limits)  # its relative paths: beside it
