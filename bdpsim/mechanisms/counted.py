"""Counted states read one way everywhere: indices, a pedigree's genotype names, or the state names
of a model that names its states (a Bayesian network's), for ``bdpsim run``'s ``[mechanism]
counted_states``, ``bdpsim calibrate`` and :func:`bdpsim.LaplaceCount`'s ``model=``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

from ..core.errors import ConfigError
from ..core.warn import warn_user
from ..queries import CountQuery, discrete_query

#: the config table a mechanism's counted states are read from (``mechanism``; an accountant
#: config's ``release[j]``): the field a count's errors and its note name (:func:`count_query`)
TABLE: ContextVar[str] = ContextVar("counted_states_table", default="mechanism")


@contextmanager
def read_from(table: str) -> Iterator[None]:
    """Within the block a count's counted states are ``table.counted_states`` (:data:`TABLE`)."""
    token = TABLE.set(table)
    try:
        yield
    finally:
        TABLE.reset(token)


def state_codes(values, model: Any = None, field: str = "mechanism.counted_states") -> tuple[int, ...]:
    """Counted states as integer codes; genotype names (``"BB"``, ``"Bb"``, ``"bb"``) map to 0, 1, 2
    on a model whose records are genotypes (:class:`~bdpsim.models.protocols.HasGenotypes`, or
    ``model`` None: not known here). A name on another model is refused, naming ``field``: its
    states are numbered, and ``BB`` would silently count state 0."""
    if any(isinstance(v, str) for v in values):
        from ..models.protocols import HasGenotypes

        if model is not None and not isinstance(model, HasGenotypes):
            raise ConfigError(
                field,
                list(values),
                "state names are a pedigree's genotypes (BB, Bb, bb) or a BIF network's own; "
                f"this model's states are the integers 0..{int(model.states) - 1}",
            )
        from ..models.pedigree.model import genotype_states

        return genotype_states(list(values), field)
    return tuple(values)


def count_query(values, model: Any = None, field: str | None = None) -> CountQuery:
    """The count of the counted states ``values`` on ``model``, read one way by ``bdpsim run``,
    ``validate`` and ``calibrate``: a model that names its states resolves them itself (a network
    read from a BIF file, :meth:`~bdpsim.models.bayesnet.model.BayesNetModel.count_codes`: a name
    counts on the records that have it, a per-record count where its index differs; a warning
    names the records the count leaves out), others take indices or genotype names
    (:func:`state_codes`). ``model`` ``None``: not known here (indices and genotype names);
    errors and the note name ``field`` (default: ``counted_states`` of the table read,
    :data:`TABLE`)."""
    from ..models.protocols import HasRecordStates, HasStateNames

    field = field or f"{TABLE.get()}.counted_states"

    if not isinstance(model, HasStateNames):
        if model is not None and not isinstance(model, HasRecordStates):  # one rule for every path
            codes = list(state_codes(values, model, field))
            return cast(CountQuery, discrete_query(model.states, codes, fields=(field, "state_values")))
        query = CountQuery(state_codes(values, model, field))
        if isinstance(
            model, HasRecordStates
        ):  # mixed cardinalities (a random field): no index past a record's states
            sizes = model.record_states
            short = [r for r, s in enumerate(sizes) if any(c >= s for c in query.counted_states)]
            if short:
                raise ConfigError(
                    field,
                    list(values),
                    f"past the states of {len(short)} of {len(sizes)} records (e.g. record "
                    f"{short[0]}: {sizes[short[0]]} states)",
                )
        return query
    codes = model.count_codes(list(values), field)
    if (note := codes.note(cast(Any, model).n, field)) is not None:  # a HasStateNames model is a data model
        warn_user(note, field)  # at the config's key, or at the caller outside bdpsim
    return codes.query(cast(Any, model).record_states)


__all__ = ["TABLE", "count_query", "read_from", "state_codes"]
