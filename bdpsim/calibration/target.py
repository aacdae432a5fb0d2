"""What a calibration certifies: the query, the target eps and the noise law, and where each came from.

``bdpsim calibrate`` answers "which noise makes *this query* eps-BDP?", so every answer names its
query (``calibrate config`` once calibrated its own default count of state 1
while the config's ``[mechanism]`` counted state 2). :func:`query_of` is the query of explicit
arguments (or the default count of state 1, said so); :func:`config_target` reads a run config:
its ``[model]`` is the data model and its ``[mechanism]`` the default query (``counted_states``
or ``state_values``), target ``epsilon`` and noise law, each overridden by an explicit argument
(the override is reported, :attr:`CalibrationTarget.overrides`).

The query is additive, ``f(x) = sum_t v(x_t)``: a count (``v`` the indicator of the counted
states) or a sum of per-state values ``v``; its sensitivity is ``Delta = max v - min v``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..core.errors import ConfigError, check
from ..kernels.noise.traits import law_names


def exact_laws() -> tuple[str, ...]:
    """The noise laws an exact calibration to eps-BDP over every adversary takes: pure DP with one
    amount (their traits, :func:`bdpsim.kernels.noise.traits.law_names`)."""
    return law_names(calibratable=True, pure_dp=True)


def _num(x: float) -> str:
    return f"{x:g}"


def show(value: Any) -> str:
    """A config value as a reader wrote it: numbers by ``%g``, lists in brackets, strings quoted."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, float):
        return _num(value)
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class CalibratedQuery:
    """An additive query on a discrete model: ``values[s]`` is what a record in state ``s`` adds.

    ``counted_states`` (a count) or ``state_values`` (a sum) is how it was given; ``source`` is
    ``"config"`` (the config's ``[mechanism]``), ``"flags"`` (explicit arguments) or
    ``"default"`` (the count of state 1). ``counted_states`` are as given (a network's state names,
    or indices); ``query`` is the query itself (:class:`~bdpsim.queries.AdditiveQuery`, as ``bdpsim
    run`` reads it: a name at different indices on different records is a per-record count, whose
    ``values`` are those of one record with both a counted and an uncounted state, the same
    sensitivity and lattice: :func:`per_state_values`)."""

    values: tuple[float, ...]
    counted_states: tuple[int | str, ...] | None = None
    state_values: tuple[float, ...] | None = None
    source: str = "default"
    query: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        check(
            self.source in ("config", "flags", "default"),
            "source",
            self.source,
            "must be 'config', 'flags' or 'default'",
        )
        check(
            (self.counted_states is None) != (self.state_values is None),
            "counted_states",
            self.counted_states,
            "give exactly one of counted_states and state_values",
        )

    @property
    def record_query(self) -> Any:
        """The query itself when its values depend on the record (a per-record count; what a
        calibration must be given besides :attr:`values`), else ``None``: the values say it all."""
        if self.query is None or np.ndim(self.query.per_state(len(self.values))) < 2:
            return None
        return self.query

    @property
    def codes(self) -> tuple[int, ...] | None:
        """The counted state indices (every index counted on some record), ``None`` for a sum."""
        if self.counted_states is None:
            return None
        from ..queries import CountQuery

        counted = self.query.counted_states if isinstance(self.query, CountQuery) else self.counted_states
        return tuple(int(c) for c in counted)

    @property
    def named(self) -> bool:
        """Whether the counted states were given by name (a network's states, genotypes)."""
        return any(isinstance(c, str) for c in self.counted_states or ())

    @property
    def description(self) -> str:
        """The query in words: ``count of records in states [2]``, with the names given beside the
        indices (``count of records in states [0] (BB)``), or ``sum of state values [0, 1, 3]``."""
        if self.counted_states is not None:
            text = f"count of records in states [{', '.join(map(str, self.codes or ()))}]"
            if self.named:
                text += f" ({', '.join(map(str, self.counted_states))})"
            return text
        return f"sum of state values [{', '.join(map(_num, self.state_values or ()))}]"

    def as_dict(self) -> dict:
        """The query as JSON: ``description``, ``counted_states`` (as given, with ``state_codes``
        beside names) or ``state_values``, ``values`` (per state) and ``source``."""
        d: dict[str, Any] = {"description": self.description}
        if self.counted_states is not None:
            d["counted_states"] = list(self.counted_states)  # as given: names or indices
            if self.named:
                d["state_codes"] = list(self.codes or ())
        else:
            d["state_values"] = list(self.state_values or ())
        return {**d, "values": list(self.values), "source": self.source}


def query_of(
    states: int, counted_states=None, state_values=None, source: str | None = None, model=None
) -> CalibratedQuery:
    """The query of ``counted_states`` or ``state_values`` on a model of ``states`` states, read as
    ``bdpsim run`` reads a config's ``[mechanism]`` (:func:`bdpsim.mechanisms.counted.count_query`:
    a BIF network's state names, a pedigree's genotype names, indices; checked by
    :func:`bdpsim.queries.discrete_query`, the rule of every path); neither: the count of state 1
    (``source = "default"``). An error names ``mechanism.counted_states``
    (``mechanism.state_values``) for a config's query (``source = "config"``), else
    ``counted_states`` (``state_values``)."""
    from ..mechanisms.kinds import count_query, state_codes
    from ..queries import QUERY_FIELDS, discrete_query

    if source is None:
        source = "default" if counted_states is None and state_values is None else "flags"
    fields = QUERY_FIELDS if source == "config" else ("counted_states", "state_values")
    if isinstance(counted_states, (list, tuple)) and state_values is None:
        try:
            if model is None:  # indices or genotype names on records of `states` states
                codes = list(state_codes(list(counted_states), None, fields[0]))
                query = discrete_query(states, codes, None, fields)
            else:
                query = count_query(list(counted_states), model, fields[0])
        except ConfigError as err:  # the states as given (names stay names), not their indices
            if err.field != fields[0] or err.value == list(counted_states):
                raise
            raise ConfigError(err.field, list(counted_states), err.rule) from None
        given = genotype_names(query, model) or tuple(counted_states)
        return CalibratedQuery(per_state_values(query, states), given, None, source, query)
    query = discrete_query(states, counted_states, state_values, fields)
    f = tuple(map(float, query.per_state(states)))
    if state_values is None:  # a count (of state 1 without either)
        counted = genotype_names(query, model) or cast(Any, query).counted_states
        return CalibratedQuery(f, counted, None, source, query)
    return CalibratedQuery(f, None, f, source, query)


def genotype_names(query, model) -> tuple[str, ...] | None:
    """The counted states of ``query`` as genotype names (``BB``, ``Bb``, ``bb``) on a model whose
    records are genotypes (the model's own words, however they were given); else ``None``."""
    from ..models.common.genetics import GENOTYPES
    from ..models.protocols import HasGenotypes
    from ..queries import CountQuery

    if not (isinstance(model, HasGenotypes) and isinstance(query, CountQuery)):
        return None
    return tuple(GENOTYPES[int(c)] for c in query.counted_states)


def per_state_values(query, states: int) -> tuple[float, ...]:
    """``query``'s value per state (:meth:`~bdpsim.queries.AdditiveQuery.per_state`); for a query
    whose values depend on the record (an ``(n, states)`` table) those of the record with the
    largest spread: the same sensitivity, and for a count the same lattice."""
    table = np.asarray(query.per_state(states), dtype=float)
    if table.ndim == 2:
        table = table[int(np.argmax(table.max(axis=1) - table.min(axis=1)))]
    return tuple(map(float, table))


@dataclass(frozen=True)
class CalibrationTarget:
    """What ``calibrate config`` calibrates: the ``model`` of the config's ``[model]``, the
    ``query``, the target ``epsilon``, the noise law (``noise``, ``staircase_gamma``), where the
    epsilon came from (``epsilon_source``: ``"config"`` or ``"flags"``) and ``overrides``: one
    ``(field, given, config_value)`` per explicit argument that replaced a different value of the
    config's ``[mechanism]`` (``field`` a library name: ``counted_states``, ``epsilon``, ...), or
    ``("mechanism.kind", None, kind)`` when the config's mechanism is not an additive query."""

    model: Any
    query: CalibratedQuery
    epsilon: float
    noise: str = "laplace"
    staircase_gamma: float | None = None
    epsilon_source: str = "flags"
    overrides: tuple[tuple[str, Any, Any], ...] = ()
    notes: tuple[str, ...] = ()


#: the largest target eps of any calibration: ``e^eps`` overflows double precision past ~709.8
#: (measured at 72aee1f: ``--epsilon 710`` ended in an OverflowError, ``1e308`` in a hang)
MAX_EPSILON = 700.0
#: the target eps the optimal LP takes (measured on the gamma = 3 chain, n = 6, and the bundled
#: network: at 0.01 its support is the largest it builds, M = 400, and the LP still solves in
#: ~1 minute; below, no tail ratio < 1 meets the tail conditions or it runs for many minutes;
#: above 90 its condition rows ``w - e^eps w'`` leave double precision)
OPTIMAL_EPSILON = (0.01, 90.0)
#: the least target eps of staircase noise (its DP epsilon is at most the target: below 1e-4 its
#: lattice of steps has more than ~10^5 points per unit of sensitivity; 1e-5 ran past 5 minutes)
MIN_STAIRCASE_EPSILON = 1e-4


def check_positive(value: Any, field: str = "epsilon") -> None:
    """Refuse in one line (a :class:`~bdpsim.core.errors.ConfigError` naming ``field``) a ``value``
    that is not a finite real number ``> 0`` (a bool is not a number here)."""
    check(
        isinstance(value, (int, float, np.number))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0,
        field,
        value,
        "must be a finite number > 0",
    )


def check_target_epsilon(
    epsilon: float, method: str = "exact", noise: str | None = None, *, field: str = "epsilon"
) -> None:
    """Refuse in one line (a :class:`~bdpsim.core.errors.ConfigError` naming ``field``) a target eps the
    calibration ``method`` (``"all"``: every method of ``bdpsim calibrate``) cannot take with
    ``noise``: every method takes ``0 < eps <= MAX_EPSILON``; ``optimal`` takes
    :data:`OPTIMAL_EPSILON`; staircase noise ``eps >= MIN_STAIRCASE_EPSILON``."""
    check_positive(epsilon, field)
    check(
        epsilon <= MAX_EPSILON,
        field,
        epsilon,
        f"must be at most {MAX_EPSILON:g} (e^eps overflows double "
        "precision past ~709; a BDPL that large bounds nothing)",
    )
    lo, hi = OPTIMAL_EPSILON
    which = "method all includes optimal, which" if method == "all" else "method optimal"
    check(
        method not in ("optimal", "all") or lo <= epsilon <= hi,
        field,
        epsilon,
        f"{which} takes eps in [{lo:g}, {hi:g}] (below, its LP needs a wider support than it builds; above, "
        "its conditions e^eps leave double precision)",
    )
    which = "method all includes staircase noise, which" if method == "all" else "staircase noise"
    check(
        not (noise == "staircase" or method == "all") or epsilon >= MIN_STAIRCASE_EPSILON,
        field,
        epsilon,
        f"{which} needs eps >= {MIN_STAIRCASE_EPSILON:g} (below, its lattice is too fine to search)",
    )
