"""The data-model interface, the model *kind* that owns a model's behaviour, and its registry.

A data model is a law ``pi`` of ``X = (X_1..X_n)`` with exact conditional sampling given any set
of known records (thesis §3.1.2 step 2). A config point holds a :class:`ModelSpec`: either one
fixed model, or a *family* that draws a fresh model per adversary (the Gaussian ``Sigma_rho``
class of thesis §6.4.1).

A :class:`ModelKind` is everything bdpsim knows about one kind of model, in one object: its
config keys and their validation (``build``), which mechanisms it takes, the bounds that apply to
it (with the reason when one does not), the cost of sampling from it and of its exact values,
how an adversary is drawn, and its exact engines. The driver, the config loader, the cost model
and the bounds dispatch only through these objects. :func:`register_model_kind` checks a kind
when it registers: a kind missing a method fails at import of its module, not mid-run.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, runtime_checkable

import numpy as np

from ..adversary import Adversary, draw_known_set
from ..core.columns import Column, OwnedColumn, owned_problem, register_columns
from ..core.errors import ConfigError, NotAvailable, check, naming
from ..core.registry import Registry
from ..core.schema import Key
from ..kernels.chains.lattice import lattice
from ..queries import AdditiveQuery
from .protocols import HasGenotypes, HasRecordNames, HasRecordStates, HasStateNames, HasStates

if TYPE_CHECKING:  # pragma: no cover
    from ..bounds import Bound


@runtime_checkable
class DataModel(Protocol):
    """A law of ``n`` records with exact conditional sampling (batch on the first axis)."""

    kind: str

    @property
    def n(self) -> int: ...

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` unconditional draws, shape ``(size, n)``."""
        ...

    def sample_conditional(self, known: Mapping[int, Any], size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` exact draws of ``X`` given ``X_j = known[j]``, shape ``(size, n)``."""
        ...


@runtime_checkable
class DiscreteModel(DataModel, Protocol):
    """A data model on the states ``0..states-1``: adversaries pick two states, and a condition of
    probability zero is recognised by ``log_evidence = -inf``."""

    @property
    def states(self) -> int: ...

    def log_evidence(self, known: Mapping[int, int]) -> float:
        """``log P(X_K = x_K)`` (``-inf`` if impossible)."""
        ...


class ModelFamily(Protocol):
    """A class of models from which a fresh model is drawn per adversary."""

    def draw(self, rng: np.random.Generator) -> DataModel: ...


@dataclass(frozen=True)
class ModelSpec:
    """The data model of a configuration point.

    Parameters
    ----------
    kind : str
        Registry name (``"markov"``, ``"gaussian"``, ...).
    n : int
        Number of records.
    m : int
        Number of correlated records used by the general bound ``m eps`` (block size or ``n``).
    fixed : DataModel or None
        The model, when it is the same for every adversary.
    family : ModelFamily or None
        Otherwise the class a fresh model is drawn from, per adversary.
    detail : mapping
        Kind-specific facts the kind's own methods read (e.g. a pedigree's family shape, a Gaussian
        class's ``rho``, a chain's ``gamma``); the kind reports any of them in ``summary.csv`` by
        :meth:`ModelKind.summary_cells`.
    owner : ModelKind
        The kind that built this spec (set by the config loader; its methods answer for it).
    """

    kind: str
    n: int
    m: int
    fixed: Any = None
    family: Any = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    owner: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        check(
            self.fixed is not None or self.family is not None,
            "model",
            self.kind,
            "a model spec needs a fixed model or a family to draw from",
        )
        if self.fixed is not None and not isinstance(self.fixed, DataModel):
            raise TypeError(
                f"model kind {self.kind!r}: {type(self.fixed).__name__} does not implement "
                "the DataModel protocol (n, sample, sample_conditional)"
            )

    @property
    def random(self) -> bool:
        return self.fixed is None

    def draw(self, rng: np.random.Generator):
        """The model for one adversary (a fresh draw from the family when random)."""
        return self.fixed if self.fixed is not None else self.family.draw(rng)

    def probe(self):
        """A representative model, for checks made before anything runs (for a family: its draw
        from seed 0, made once — the same object at every call, so its exact engine is built once)."""
        if self.fixed is not None:
            return self.fixed
        drawn = self.__dict__.get("_probe")
        if drawn is None:
            drawn = self.family.draw(np.random.default_rng(0))
            object.__setattr__(self, "_probe", drawn)
        return drawn


# ---------------------------------------------------------------------------------- model kinds


@dataclass(frozen=True)
class SampleCost:
    """What one adversary of a model costs (units: elementary operations on records; see
    :mod:`bdpsim.pipeline.cost`): per sampled data tuple, per exact value / exact query law, per model drawn
    from a family, and the bytes the model's tables hold."""

    per_sample: float
    exact: float
    model_bytes: float = 0.0
    exact_bytes: float = 0.0
    draw: float = 0.0


class ModelKind(abc.ABC):
    """A data-model kind: config keys, validation, bounds, cost, adversaries, exact engines.

    Subclasses set :attr:`name`, :attr:`doc`, :attr:`keys`, :attr:`domain` and implement
    :meth:`build`; every other method has a documented default. Register an instance with
    :func:`register_model_kind` (one registry entry).
    """

    name: str = ""
    doc: str = ""
    keys: Mapping[str, Key] = {}
    #: ``"discrete"`` (records take states ``0..s-1``) or ``"real"`` (real-valued records)
    domain: str = "discrete"
    #: the ``[model]`` values of a small model of this kind (a few records): the contract tests
    #: (tests/architecture/test_contracts.py) build it and check the kind against its exact law
    example: Mapping[str, Any] | None = None
    #: ``summary.csv`` columns this kind owns, in every table (:func:`bdpsim.core.columns.owned_columns`;
    #: filled by :meth:`summary_cells`). A new kind declares extra columns instead
    #: (:meth:`summary_extras`): those appear only where the kind is used
    summary_columns: tuple[OwnedColumn, ...] = ()

    @abc.abstractmethod
    def build(self, params: dict, present: set, hints: Mapping[str, Any] | None = None) -> ModelSpec:
        """The :class:`ModelSpec` of one configuration point from its ``[model]`` values
        (``present``: the keys the config gave; ``hints``: what the mechanism kind tells the model,
        e.g. ``value_range``, the range its records' values matter on); raises
        :class:`~bdpsim.core.errors.ConfigError`. Set ``owner=self`` on the spec."""

    def setup_cost(self, params: dict) -> tuple[float, float, str] | None:
        """``(bytes, work, field)`` of building the model from ``params``, checked before it is
        built (``None``: negligible)."""
        return None

    def cost(self, spec: ModelSpec) -> SampleCost:
        """Cost of one adversary's sampling and exact values (default: a chain-like model,
        ``n`` per sample and ``n^2 s^2`` per exact query law)."""
        probe = spec.probe()
        s = float(probe.states if isinstance(probe, HasStates) else 1)
        n = float(spec.n)
        return SampleCost(n, n * n * s * s)

    def bounds(self, spec: ModelSpec, mechanism, epsilon: float) -> dict[str, Bound]:
        """The model-specific bounds of an ``epsilon``-DP mechanism (``epsilon = nan``: not DP):
        any of ``model``, ``zhao``, ``lower`` (default: none beyond the general ones)."""
        return {}

    def draw_adversary(
        self,
        model,
        sizes: Sequence[int],
        rng: np.random.Generator,
        *,
        targets: str = "uniform",
        target_range: tuple[float, float] | None = None,
        spec: ModelSpec | None = None,
    ) -> Adversary:
        """One random adversary (thesis §3.1.2 step 1) with ``|K|`` in ``sizes``; ``targets`` and
        ``target_range`` say how real-valued targets are drawn (the mechanism's
        ``adversary_targets``). Default: a discrete model (:func:`random_discrete_adversary`)."""
        return random_discrete_adversary(model, sizes, rng)

    def summary_cells(self, spec: ModelSpec) -> dict:
        """The ``summary.csv`` cells this kind fills for ``spec``: columns it owns
        (:attr:`summary_columns`: ``rho``, ``gamma``) or extra columns it registered
        (:func:`bdpsim.core.columns.register_columns`, named by :meth:`summary_extras`). Default: none."""
        return {}

    def summary_extras(self, spec: ModelSpec) -> tuple[str, ...]:
        """The extra ``summary.csv`` columns a point of ``spec`` fills (registered with
        :func:`bdpsim.core.columns.register_columns`; a run's table has them only where used).
        Default: the node names of the most leaking adversary for a model with named nodes."""
        if not record_names(spec.fixed):
            return ()
        states = ARGMAX_STATE_NAME_COLUMNS if has_state_names(spec.fixed) else ()
        return tuple(c.name for c in (*ARGMAX_NAME_COLUMNS, *states))

    def adversary_extras(self, spec: ModelSpec) -> tuple[str, ...]:
        """The extra ``adversaries.csv.gz`` columns a point of ``spec`` fills. Default: the
        adversaries' node names for a model with named nodes (:func:`adversary_names`)."""
        if not record_names(spec.fixed):
            return ()
        states = STATE_NAME_COLUMNS if has_state_names(spec.fixed) else ()
        return tuple(c.name for c in (*NAME_COLUMNS, *states))

    def windows(self, spec: ModelSpec) -> str | None:
        """``None`` if this kind draws window adversaries (``[run] adversary_family = "windows"``,
        :meth:`window_adversary`), else the reason (default: it does not)."""
        return (
            f"model kind '{self.name}' has no window adversaries (they need a chain-like model whose "
            "known records split it into independent parts); use adversary_family = 'random'"
        )

    def window_adversary(
        self, model, sizes: Sequence[int], rng: np.random.Generator, *, spec: ModelSpec | None = None
    ) -> Adversary:
        """One adversary that knows every record outside a random window around its target and
        nothing inside (``|K|`` in ``sizes``) — where the worst adversary of an additive query is
        (the window reduction, :mod:`bdpsim.models.markov.window`), and a valid family for a black-box
        audit whatever the mechanism (any
        adversary's certified bound is a lower bound on the BDPL). Kinds that offer it override
        this and :meth:`windows`."""
        why = self.windows(spec) if spec is not None else None
        raise ConfigError("run.adversary_family", "windows", why or "not offered")

    def exact(self, model, mechanism) -> Any:
        """The exact engine for ``mechanism`` on ``model`` (:mod:`bdpsim.models.engines`: an
        :class:`~bdpsim.models.engines.ExactEngine` and the capabilities it has; typed ``Any`` here
        because the engines' module sits above this one: its :func:`~bdpsim.models.engines.engine_for`
        asks the kinds of :data:`MODEL_KINDS`); raises
        :class:`~bdpsim.core.errors.NotAvailable` with the reason when there is none (default:
        :meth:`no_engine`)."""
        self.no_engine(mechanism)

    def no_engine(self, mechanism, engines: str = "") -> NoReturn:
        """Raise :class:`~bdpsim.core.errors.NotAvailable`: no exact BDPL for this kind with
        ``mechanism`` (``engines``: the pairs the kind does have, in parentheses)."""
        raise NotAvailable(
            f"no exact BDPL for model '{self.name}' with mechanism '{mechanism.kind}'"
            + (f" ({engines})" if engines else "")
        )

    def accepts(self, mechanism_kind) -> str | None:
        """``None`` if this model takes a mechanism of ``mechanism_kind`` (by its ``domain``:
        ``"discrete"``, ``"real"`` or ``"any"``), else the reason."""
        dom = mechanism_kind.domain  # checked when the mechanism kind registered
        if dom in ("any", self.domain):
            return None
        return (
            f"a {self.name} model has {self.domain} records; "
            f"mechanism '{mechanism_kind.name}' needs {dom} records"
        )


def random_discrete_adversary(
    model, sizes: Sequence[int], rng: np.random.Generator, max_tries: int = 1000
) -> Adversary:
    """Adversary of a model with finitely many ``states`` per record (Markov chain, pedigree):
    uniform ``i``, size ``k`` uniform in ``sizes``, ``K`` uniform of that size, a uniform
    ordered pair of distinct states ``(x, x')`` of the target (its own states when records differ:
    ``record_states``) and ``x_K`` from the model's marginal; redrawn when either conditioning
    event has probability zero (possible only when the law has zeros).
    """
    per_record = model.record_states if isinstance(model, HasRecordStates) else None
    for _ in range(max_tries):
        i, known = draw_known_set(model.n, sizes, rng)
        s = per_record[i] if per_record is not None else model.states
        x, xp = (int(v) for v in rng.choice(s, size=2, replace=False))
        x_known = tuple(int(v) for v in model.sample(1, rng)[0, list(known)])
        adv = Adversary(i, known, x_known, x, xp)
        if np.isfinite(model.log_evidence(adv.condition(x))) and np.isfinite(
            model.log_evidence(adv.condition(xp))
        ):
            return adv
    raise ConfigError("model", model.kind, "no adversary with positive-probability conditions found")


#: node names of an adversary, for models whose nodes have names (networks, Markov random fields)
NAME_COLUMNS = register_columns(
    "adversaries",
    Column("i_name", str, "the target record's node name (models with named nodes)"),
    Column("known_names", str, "the known records' node names (;-separated; cut at 1000 characters)"),
    owner="models with named nodes",
)
ARGMAX_NAME_COLUMNS = register_columns(
    "summary",
    Column("argmax_i_name", str, "node name of the most leaking adversary's target (named nodes)"),
    Column(
        "argmax_known_names", str, "node names of its known records (;-separated; cut at 1000 characters)"
    ),
    owner="models with named nodes",
)
#: state names of an adversary's states, for models whose states have names (BIF networks)
STATE_NAME_COLUMNS = register_columns(
    "adversaries",
    Column("x_name", str, "the target's state x by name (models with named states)"),
    Column("x_prime_name", str, "the target's state x' by name (models with named states)"),
    Column("x_known_names", str, "the known records' states by name (;-separated; cut at 1000 characters)"),
    owner="models with named states",
)
ARGMAX_STATE_NAME_COLUMNS = register_columns(
    "summary",
    Column("argmax_x_name", str, "the most leaking adversary's x by name (named states)"),
    Column("argmax_x_prime_name", str, "its x' by name (named states)"),
    Column(
        "argmax_x_known_names", str, "its known records' states by name (;-separated; cut at 1000 characters)"
    ),
    owner="models with named states",
)
MAX_NAMES_TEXT = 1000


def _cut(text: str) -> str:
    return text if len(text) <= MAX_NAMES_TEXT else text[: MAX_NAMES_TEXT - 3] + "..."


def has_state_names(model) -> bool:
    """Whether the model's states have names (a network read from a BIF file or pgmpy)."""
    return isinstance(model, HasStateNames) and model.state_names is not None


def record_names(model) -> tuple[str, ...] | None:
    """The records' node names of a model whose nodes have names, else ``None``."""
    return model.record_names() if isinstance(model, HasRecordNames) else None


def adversary_names(model, i: int, known, adversary=None) -> dict:
    """``{"i_name": ..., "known_names": ...}`` of adversary ``(i, known)`` on a model with named
    records (:data:`NAME_COLUMNS`), else ``{}``; with ``adversary`` on a model with named states
    also its states by name (:data:`STATE_NAME_COLUMNS`)."""
    names = record_names(model)
    if not names:
        return {}
    out = {"i_name": names[int(i)], "known_names": _cut(";".join(names[int(k)] for k in known))}
    if adversary is not None and has_state_names(model):
        label = model.state_label
        out.update(
            x_name=label(adversary.i, adversary.x),
            x_prime_name=label(adversary.i, adversary.x_prime),
            x_known_names=_cut(";".join(label(k, v) for k, v in zip(adversary.known, adversary.x_known))),
        )
    return out


#: a pedigree's genotypes by state (``0 = BB``, ``1 = Bb``, ``2 = bb``)
GENOTYPES = ("BB", "Bb", "bb")


def state_word(model, record: int, state) -> str | None:
    """The name of ``state`` of ``record`` in the model's own words: a network's state name (a BIF
    file's, pgmpy's), a pedigree's genotype (``BB``, ``Bb``, ``bb``); ``None`` where states are
    only numbers (a chain's, a random field's)."""
    if has_state_names(model):
        return str(model.state_label(int(record), int(state)))
    if isinstance(model, HasGenotypes) and float(state).is_integer() and 0 <= int(state) < len(GENOTYPES):
        return GENOTYPES[int(state)]
    return None


def adversary_words(model, adversary: Adversary) -> dict:
    """The adversary ``(i, K, x_K, x, x')`` in the model's own words beside its indices: ``i``,
    ``known``, ``x_known``, ``x``, ``x_prime`` as numbers (record indices count the model's record
    order: a network's nodes in the lexicographic topological order by name,
    :func:`bdpsim.models.bayesnet.bif.read_bif`), and where the model names them ``i_name`` and
    ``known_names`` (node names) and ``x_name``, ``x_prime_name`` and ``x_known_names`` (state
    names, genotypes) — what a report shows (JSON-ready: lists, not tuples)."""
    a = adversary
    num = (lambda v: int(v)) if all(float(v).is_integer() for v in (a.x, a.x_prime)) else float  # noqa: E731
    out: dict = {
        "i": int(a.i),
        "known": [int(k) for k in a.known],
        "x_known": [num(v) for v in a.x_known],
        "x": num(a.x),
        "x_prime": num(a.x_prime),
    }
    names = record_names(model)
    if names:
        out["i_name"] = names[int(a.i)]
        out["known_names"] = [names[int(k)] for k in a.known]
    if state_word(model, a.i, a.x) is not None:
        out["x_name"] = state_word(model, a.i, a.x)
        out["x_prime_name"] = state_word(model, a.i, a.x_prime)
        out["x_known_names"] = [state_word(model, k, v) for k, v in zip(a.known, a.x_known)]
    return out


def describe_adversary(model, adversary: Adversary, short: bool = False) -> str:
    """The adversary in the model's own words, the indices beside the names:
    ``record BP (i = 1), x = HIGH (1) vs x' = LOW (0), |K| = 3`` (:func:`adversary_words`); with
    ``short`` the form of a table cell, ``BP (i=1): HIGH (1) vs LOW (0), |K|=3``.

    Parameters
    ----------
    model : data model
        The model the adversary attacks (its record and state names, where it has them).
    adversary : Adversary
        Target ``i``, known records ``K`` with their values, the two target values ``x, x'``.
    short : bool
        The form of a table cell.

    Returns
    -------
    str
        One line.
    """
    w = adversary_words(model, adversary)
    n = int(model.n)
    k = len(w["known"])
    named = "x_name" in w
    if short:
        rec = f"{w['i_name']} (i={w['i']})" if "i_name" in w else f"i={w['i']}"
        val = (
            f"{w['x_name']} ({w['x']}) vs {w['x_prime_name']} ({w['x_prime']})"
            if named
            else f"x={w['x']} vs {w['x_prime']}"
        )
        return f"{rec}: {val}, |K|={k}"
    rec = f"record {w['i_name']} (i = {w['i']})" if "i_name" in w else f"record i = {w['i']}"
    val = (
        f"x = {w['x_name']} ({w['x']}) vs x' = {w['x_prime_name']} ({w['x_prime']})"
        if named
        else f"x = {w['x']} vs x' = {w['x_prime']}"
    )
    known = f"|K| = {k}" + (" (every other record)" if n and k == n - 1 else "")
    return f"{rec}, {val}, {known}"


@runtime_checkable
class ModelKindContract(Protocol):
    """What :func:`register_model_kind` checks a model kind has (:class:`ModelKind` gives defaults
    for all but ``build``)."""

    name: str
    keys: Mapping[str, Key]
    domain: str
    summary_columns: tuple

    def build(self, params: dict, present: set, hints: Mapping[str, Any] | None = None) -> ModelSpec: ...

    def setup_cost(self, params: dict) -> tuple[float, float, str] | None: ...

    def cost(self, spec: ModelSpec) -> SampleCost: ...

    def bounds(self, spec: ModelSpec, mechanism, epsilon: float) -> dict: ...

    def draw_adversary(self, model, sizes: Sequence[int], rng: np.random.Generator, **kw) -> Adversary: ...

    def exact(self, model, mechanism) -> Any: ...

    def accepts(self, mechanism_kind) -> str | None: ...


def _domain(kind) -> str | None:
    return owned_problem(kind.summary_columns) or (
        None if kind.domain in ("discrete", "real") else "domain must be 'discrete' or 'real'"
    )


MODEL_KINDS: Registry = Registry("model kind", ModelKindContract, _domain)


def register_model_kind(kind: ModelKind) -> ModelKind:
    """Add ``kind`` to :data:`MODEL_KINDS` after checking it is complete (a ``TypeError`` at
    registration names what is missing); returns it."""
    return MODEL_KINDS.register(kind, stacklevel=2)


def additive_query_law(model, query, known: Mapping[int, int]) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact law ``(atoms, probabilities)`` of an additive query ``sum_r f(X_r)`` (a count of
    ``counted_states`` or a sum of ``state_values``, :class:`~bdpsim.queries.AdditiveQuery`) given
    ``known``, for a model with ``states``, ``n`` and ``additive_law(known, g)`` (the law of
    ``sum_r g(X_r)`` for integer per-state steps ``g``): ``f = fmin + delta g`` on the lattice, so the
    atoms are ``n fmin + delta k``. ``None`` for other queries."""
    if not isinstance(query, AdditiveQuery):
        return None
    with naming(fields={"values": "mechanism.state_values"}):  # the query values off any lattice
        g, delta, fmin = lattice(query.per_state(model.states))
    law = model.additive_law(known, g)
    return model.n * fmin + delta * np.arange(law.size, dtype=float), law
