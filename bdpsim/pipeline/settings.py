"""Run settings: the ``[run]`` table of a config as a frozen, validated value.

The generic keys (:data:`GENERIC_KEYS`) are checked in :meth:`RunSettings.__post_init__`; the
keys an estimator owns are checked by that estimator's class (each registered estimator is built
once from the settings). The config loader only turns TOML into keyword arguments.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal

from ..core.errors import ConfigError, check
from ..core.registry import skipped_note
from ..core.schema import Key
from ..estimators import ESTIMATORS
from ..estimators.base import READ_BY_SOME
from ..estimators.sampling import SAMPLING_MODES

TARGET_MODES = ("uniform", "endpoints")
#: how adversaries are drawn: the thesis' random known sets, or (where the model kind offers them)
#: window adversaries that know every record outside a random window around the target
ADVERSARY_FAMILIES = ("random", "windows")

GENERIC_KEYS: dict[str, Key] = {
    "seed": Key("int", 1, sweep=False, doc="the run's one root seed", rule="integer in 0..2^63-1"),
    "adversaries": Key("any", 1000, doc="adversaries per point, or every one", rule="integer >= 1 or 'all'"),
    "samples": Key("int", 100_000, doc="samples per condition, per adversary", rule="integer >= 100"),
    "estimator": Key(
        "str", "kde", doc="how each adversary's BDPL is estimated", rule="a registered estimator"
    ),
    "known_sizes": Key(
        "any",
        "thesis",
        sweep=False,
        doc="sizes |K| of the known sets",
        rule="'thesis' (1..n-1), 'all' (0..n-1) or a list of integers",
    ),
    "percentile": Key("float", 99.0, sweep=False, doc="the summary percentile", rule="in (0, 100]"),
    "noise_floor_adversaries": Key("int", 100, doc="adversaries with a noise-floor estimate", rule=">= 0"),
    "targets": Key(
        "str", "uniform", doc="how real-valued targets x, x' are drawn", rule="'uniform' or 'endpoints'"
    ),
    "bootstrap": Key("int", 1000, doc="accepted for old configs, unused", rule=">= 0"),
    "confidence": Key("float", 0.95, doc="level of the percentile's interval", rule="in (0, 1)"),
    "sampling": Key(
        "str",
        "auto",
        doc="exact query laws where available, or data",
        rule="a sampling mode (bdpsim.estimators.sampling.SAMPLING_MODES)",
    ),
    "chunk": Key("int", 65_536, doc="samples generated at a time (memory bound)", rule=">= 1000"),
    "exact_reference": Key(
        "bool", True, doc="also compute the exact value where one exists", rule="true or false"
    ),
    "adversary_rows": Key(
        "any", "all", sweep=False, doc="rows kept per point, highest first", rule="'all' or an integer >= 1"
    ),
    "exhaustive_method": Key(
        "str",
        "auto",
        hashed=False,
        doc="how adversaries = 'all' is searched",
        rule="'auto', 'window' or 'enumerate'",
    ),
    "adversary_family": Key(
        "str", "random", hashed=False, doc="the thesis' known sets or windows", rule="'random' or 'windows'"
    ),
}


def run_keys() -> dict[str, Key]:
    """Every key of the ``[run]`` table: the generic ones and each registered estimator's own
    (:attr:`bdpsim.estimators.base.Estimator.keys`)."""
    keys = dict(GENERIC_KEYS)
    for est in ESTIMATORS.values():
        for k, key in est.keys.items():
            keys.setdefault(k, key)
    return keys


EXHAUSTIVE_METHODS = ("auto", "window", "enumerate")


def _dropped(key: str, value: Any, estimator: str, readers: list[str], verb: str = "read") -> ConfigError:
    """The refusal of ``run.<key>`` beside ``estimator``, which would drop it: ``readers`` are the
    estimators that read it."""
    who = " or ".join(repr(o) for o in readers)
    fix = (
        f"set run.estimator = {readers[0]!r}, or remove run.{key}"
        if len(readers) == 1
        else f"remove run.{key}, or set run.estimator to one of them"
    )
    return ConfigError(
        f"run.{key}",
        value,
        f"is {verb} by the {who} estimator only: run.estimator = {estimator!r} would drop it ({fix})",
    )


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


@dataclass(frozen=True)
class RunSettings:
    """How one configuration point is run (the ``[run]`` table; see the README for each key).

    ``adversaries`` is a count or ``"all"`` (exhaustive, exact estimator); ``known_sizes`` is
    ``"thesis"`` (1..n-1), ``"all"`` (0..n-1) or a list of sizes; ``percentile`` names the summary
    columns (``bdpl_p99`` for 99); ``targets`` is how Gaussian adversaries draw ``x, x'``.
    ``adversary_family`` is ``"random"`` (the thesis' known sets, default) or ``"windows"`` (the
    model kind's window adversaries, :meth:`bdpsim.models.base.ModelKind.window_adversary`).
    ``confidence`` is the level of the percentile's order-statistic interval; ``bootstrap`` is
    accepted for old configs and unused (the interval is distribution-free, not resampled).
    ``options`` holds the keys the estimators own (e.g. ``kde_ratio``, ``mixture_target_se``;
    :attr:`bdpsim.estimators.base.Estimator.keys`): each estimator class validates its own.

    A generic key only some estimators read (:data:`~bdpsim.estimators.base.READ_BY_SOME`: the
    sample count, ``sampling``, ``chunk``, the noise floor, the exact reference, the exhaustive
    search's method), given beside an estimator that does not declare it
    (:attr:`~bdpsim.estimators.base.Estimator.reads`), is refused naming the estimators that read
    it. ``given``: the keys the config set (``None``: those whose value is not the default);
    ``alongside``: the estimators of the same sweep (a key one of them reads is theirs).
    """

    seed: int = 1
    adversaries: int | Literal["all"] = 1000
    samples: int = 100_000
    estimator: str = "kde"
    known_sizes: str | tuple[int, ...] = "thesis"
    percentile: float = 99.0
    noise_floor_adversaries: int = 100
    targets: str = "uniform"
    bootstrap: int = 1000
    confidence: float = 0.95
    sampling: str = "auto"
    chunk: int = 65_536
    exact_reference: bool = True
    adversary_rows: int | Literal["all"] = "all"
    exhaustive_method: str = "auto"
    adversary_family: str = "random"
    options: Mapping[str, Any] = field(default_factory=dict)
    given: frozenset[str] | None = field(default=None, compare=False, repr=False)
    alongside: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        check(
            isinstance(self.seed, int) and not isinstance(self.seed, bool) and 0 <= self.seed < 2**63,
            "run.seed",
            self.seed,
            "must be an integer in 0..2^63-1",
        )
        adv = self.adversaries
        check(adv == "all" or _count(adv), "run.adversaries", adv, "must be an integer >= 1 or 'all'")
        check(
            _count(self.samples) and self.samples >= 100,
            "run.samples",
            self.samples,
            "must be an integer >= 100",
        )
        check(
            self.estimator in ESTIMATORS,
            "run.estimator",
            self.estimator,
            f"must be one of {list(ESTIMATORS)}{skipped_note()}",
        )
        ks = self.known_sizes
        if isinstance(ks, list):
            check(
                len(ks) >= 1 and all(isinstance(k, int) and not isinstance(k, bool) for k in ks),
                "run.known_sizes",
                ks,
                "must be 'thesis', 'all' or a non-empty list of integers",
            )
            object.__setattr__(self, "known_sizes", tuple(sorted(set(ks))))
        else:
            check(
                ks in ("thesis", "all") or isinstance(ks, tuple),
                "run.known_sizes",
                ks,
                "must be 'thesis', 'all' or a non-empty list of integers",
            )
        check(0 < self.percentile <= 100, "run.percentile", self.percentile, "must be in (0, 100]")
        check(
            self.noise_floor_adversaries >= 0,
            "run.noise_floor_adversaries",
            self.noise_floor_adversaries,
            "must be >= 0",
        )
        check(self.targets in TARGET_MODES, "run.targets", self.targets, "must be 'uniform' or 'endpoints'")
        check(self.bootstrap >= 0, "run.bootstrap", self.bootstrap, "must be >= 0")
        check(0 < self.confidence < 1, "run.confidence", self.confidence, "must be in (0, 1)")
        check(
            self.sampling in SAMPLING_MODES,
            "run.sampling",
            self.sampling,
            f"must be one of {list(SAMPLING_MODES)}",
        )
        check(isinstance(self.chunk, int) and self.chunk >= 1000, "run.chunk", self.chunk, "must be >= 1000")
        check(
            self.exhaustive_method in EXHAUSTIVE_METHODS,
            "run.exhaustive_method",
            self.exhaustive_method,
            f"must be one of {list(EXHAUSTIVE_METHODS)}",
        )
        check(
            self.adversary_family in ADVERSARY_FAMILIES,
            "run.adversary_family",
            self.adversary_family,
            f"must be one of {list(ADVERSARY_FAMILIES)}",
        )
        check(
            self.exhaustive_method == "auto" or self.exhaustive,
            "run.exhaustive_method",
            self.exhaustive_method,
            "is how adversaries = 'all' is searched: set run.adversaries = 'all', or remove it",
        )
        check(
            self.adversary_family == "random" or not self.exhaustive,
            "run.adversary_family",
            self.adversary_family,
            "adversaries = 'all' examines every adversary; a family draws some",
        )
        ar = self.adversary_rows
        check(
            ar == "all" or _count(ar),
            "run.adversary_rows",
            ar,
            "must be 'all' or an integer >= 1 (rows kept per configuration, highest first)",
        )
        owned = {k for est in ESTIMATORS.values() for k in est.keys}
        for k in self.options:
            check(k in owned, f"run.{k}", self.options[k], "unknown key")
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        for est in ESTIMATORS.values():  # each estimator validates the keys it owns
            est.from_settings(self)
        self._check_owned_keys()
        self._check_read_keys()

    def _given(self) -> frozenset[str]:
        """The generic keys of :data:`~bdpsim.estimators.base.READ_BY_SOME` the config set (``given``
        ``None``: those whose value is not the default)."""
        if self.given is not None:
            return self.given
        values = self.as_dict()
        return frozenset(k for k in READ_BY_SOME if values[k] != GENERIC_KEYS[k].default)

    @property
    def unread(self) -> tuple[str, ...]:
        """The keys the config set that no estimator reads (``bootstrap``, carried by old configs):
        accepted, and warned about by the config loader (:func:`bdpsim.pipeline.config.parse_config`
        names the config file and the key's line)."""
        return tuple(
            sorted(
                k for k in self._given() & READ_BY_SOME if not any(k in e.reads for e in ESTIMATORS.values())
            )
        )

    def _check_read_keys(self) -> None:
        """A generic key of :data:`~bdpsim.estimators.base.READ_BY_SOME` given beside an estimator
        that does not read it (:attr:`~bdpsim.estimators.base.Estimator.reads`), nor does another
        estimator of the sweep, is refused naming the estimators that read it; a key read by no
        estimator (:attr:`unread`: ``bootstrap``, carried by old configs) is accepted. A noise floor
        asked of every adversary (``adversaries = "all"``: exact values, none computed) is refused;
        0 asks for nothing."""
        values = self.as_dict()
        given = self._given()
        if self.exhaustive and "noise_floor_adversaries" in given and values["noise_floor_adversaries"] > 0:
            raise ConfigError(
                "run.noise_floor_adversaries",
                values["noise_floor_adversaries"],
                "adversaries = 'all' gives every adversary's exact value, with no noise floor: remove it",
            )
        reads = ESTIMATORS[self.estimator].reads
        sweep = [o for o in self.alongside if o in ESTIMATORS]
        for k in sorted(given & READ_BY_SOME - reads - set(self.unread)):
            if any(k in ESTIMATORS[o].reads for o in sweep):
                continue  # the sweep's other points read it
            readers = [name for name, est in ESTIMATORS.items() if k in est.reads]
            raise _dropped(k, values[k], self.estimator, readers)

    def _check_owned_keys(self) -> None:
        """A key only some estimators own (``attack``, ``epsilon_profile``: columns of exact values;
        ``kde_backend``, ``mixture_target_se``, ``audit_alpha``, ...), set beside another
        estimator, is refused naming it: that estimator would drop it without a word."""
        for k, v in self.options.items():
            owners = [name for name, est in ESTIMATORS.items() if k in est.keys]
            if self.estimator in owners or v == ESTIMATORS[owners[0]].keys[k].default:
                continue  # e.g. attack = false: nothing asked
            verb = "computed" if all(ESTIMATORS[o].exact for o in owners) else "read"
            raise _dropped(k, v, self.estimator, owners, verb)

    def option(self, name: str) -> Any:
        """An estimator-owned key's value (its default when not set)."""
        if name in self.options:
            return self.options[name]
        for est in ESTIMATORS.values():
            if name in est.keys:
                return est.keys[name].default
        raise KeyError(name)

    @property
    def exhaustive(self) -> bool:
        return self.adversaries == "all"

    @property
    def percentile_label(self) -> str:
        """``p99`` for the 99th percentile, ``p97.5`` for 97.5: the summary columns' suffix."""
        return f"p{self.percentile:g}"

    def known_size_text(self) -> str:
        ks = self.known_sizes
        return ks if isinstance(ks, str) else ";".join(map(str, ks))

    def make_estimator(self):
        """The estimator this point runs (:data:`bdpsim.estimators.ESTIMATORS`)."""
        return ESTIMATORS[self.estimator].from_settings(self)

    def as_dict(self) -> dict:
        d = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in ("options", "given", "alongside")
        }
        if isinstance(self.known_sizes, tuple):
            d["known_sizes"] = list(self.known_sizes)
        for k, v in self.options.items():
            d[k] = list(v) if isinstance(v, tuple) else v
        return d

    @classmethod
    def from_table(
        cls, table: Mapping[str, Any], alongside: Collection[str] = (), given: Collection[str] | None = None
    ) -> RunSettings:
        """From a resolved ``[run]`` table: generic keys as fields, the rest as ``options``.

        ``alongside``: the other estimators of the same sweep (``estimator = ["kde", "mixture"]``):
        a key only they own is theirs, not this point's (its points read it), and is left out here
        instead of refused; a generic key only they read is not refused. ``given``: the keys the
        config set (a generic key the estimator does not read is refused even at its default
        value; ``None``: those whose value differs from the default).
        """
        generic = {k: v for k, v in table.items() if k in GENERIC_KEYS}
        est = table.get("estimator", GENERIC_KEYS["estimator"].default)

        def theirs(k: str) -> bool:
            owners = {name for name, e in ESTIMATORS.items() if k in e.keys}
            return est not in owners and bool(owners & set(alongside))

        options = {k: v for k, v in table.items() if k not in GENERIC_KEYS and not theirs(k)}
        return cls(
            **generic,
            options=options,
            given=None if given is None else frozenset(given) & frozenset(GENERIC_KEYS),
            alongside=tuple(alongside),
        )
