"""State names of a Bayesian network's nodes (a BIF file's ``{ no, yes }``).

A count of named states is ``f(D) = #{r : X_r in C_r}`` with ``C_r`` the indices the names have on
record ``r``: a name counts on the records that have it (at whatever index), a record without any
counted name is not counted, and the run says which records those are (:meth:`CountCodes.note`).
When the sets agree (``C_r = C ∩ {0..s_r - 1}``) the query is the plain
:class:`~bdpsim.queries.CountQuery` of ``C``; otherwise a :class:`RecordCountQuery`, whose
per-record indicator table the factor-model engines take as per-record increments. An *index*
past some records' states is refused naming those records (a count of state 2 on a network of 2-
and 3-state nodes would silently count only the 3-state ones).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.errors import ConfigError, check
from ...queries import CountQuery
from ..common.nodes import MAX_MESSAGE, brief, is_int

#: records listed by name in a message before "and N more"
LISTED = 6


@dataclass(frozen=True)
class CountCodes:
    """The indices a count counts on each record and which records it leaves out.

    Attributes
    ----------
    per_record : tuple of tuple of int
        ``per_record[r]``: the counted state indices ``C_r`` of record ``r`` (sorted).
    uncounted : tuple of str
        Labels of the records none of whose states is counted (those without a counted name).
    named : bool
        Whether any counted state was given by name.
    """

    per_record: tuple[tuple[int, ...], ...]
    uncounted: tuple[str, ...] = ()
    named: bool = False

    @property
    def codes(self) -> tuple[int, ...]:
        """Every index counted on some record (sorted)."""
        return tuple(sorted(set().union(*self.per_record)))

    def uniform(self, sizes) -> bool:
        """Whether one index set counts the same on every record: ``C_r = C ∩ {0..s_r - 1}``."""
        c = self.codes
        return all(cr == tuple(k for k in c if k < s) for cr, s in zip(self.per_record, sizes))

    def query(self, sizes) -> CountQuery:
        """The count: a :class:`~bdpsim.queries.CountQuery` of :attr:`codes` when :meth:`uniform`,
        else a :class:`RecordCountQuery` of the per-record sets."""
        if self.uniform(sizes):
            return CountQuery(self.codes)
        return RecordCountQuery(self.codes, self.per_record)

    def note(self, n: int, field: str = "mechanism.counted_states") -> str | None:
        """A one-line note naming the records the count leaves out (``None`` if it covers all ``n``),
        led by the ``field`` the counted states were given in."""
        if not self.uncounted:
            return None
        return (
            f"{field}: {n - len(self.uncounted)} of {n} records have a counted state; "
            f"not counted (no such state): {_listing(self.uncounted)}"
        )


@dataclass(frozen=True)
class RecordCountQuery(CountQuery):
    """``f(D) = #{r : X_r in C_r}``: a count whose counted state indices depend on the record (a
    state name at different indices on different nodes); sensitivity 1. ``counted_states`` is
    the union of the ``C_r`` (for display); :meth:`per_state` is the ``(n, states)`` indicator
    table ``1[x in C_r]``, which the factor-model engines take as per-record increments."""

    per_record: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        check(
            len(self.per_record) >= 1,
            "mechanism.counted_states",
            list(self.counted_states),
            "needs one counted set per record",
        )
        object.__setattr__(self, "per_record", tuple(tuple(int(k) for k in c) for c in self.per_record))

    @property
    def label(self) -> str:
        return "per-record " + super().label

    def per_state(self, states: int) -> np.ndarray:
        f = np.zeros((len(self.per_record), states))
        for r, c in enumerate(self.per_record):
            bad = [k for k in c if k >= states]
            check(
                not bad,
                "mechanism.counted_states",
                list(self.counted_states),
                f"states must be in 0..{states - 1}",
            )
            f[r, list(c)] = 1.0
        return f

    def __call__(self, data: np.ndarray) -> np.ndarray:
        data = np.asarray(data, dtype=np.int64)
        table = self.per_state(max(int(data.max()) + 1 if data.size else 1, max(self.counted_states) + 1))
        return table[np.arange(data.shape[1])[None, :], data].sum(axis=1).astype(float)


def check_state_names(state_names, node_states: tuple[int, ...]) -> tuple[tuple[str, ...], ...] | None:
    """Per node, one distinct non-empty name per state (``None``: unnamed states)."""
    if state_names is None:
        return None
    n = len(node_states)
    check(
        isinstance(state_names, (list, tuple)) and len(state_names) == n,
        "model.state_names",
        brief(state_names),
        f"must be a list of one list of state names per node ({n})",
    )
    out = []
    for v, (names, s) in enumerate(zip(state_names, node_states)):
        check(
            isinstance(names, (list, tuple))
            and len(names) == s
            and all(isinstance(x, str) and x for x in names),
            "model.state_names",
            brief(names),
            f"node {v} needs {s} non-empty state names",
        )
        check(
            len(set(names)) == s,
            "model.state_names",
            brief(names),
            f"the state names of node {v} must be distinct",
        )
        out.append(tuple(names))
    return tuple(out)


def _listing(labels) -> str:
    labels = list(labels)
    text = ", ".join(labels[:LISTED])
    return text + (f" and {len(labels) - LISTED} more" if len(labels) > LISTED else "")


def _vocabulary(model) -> str:
    """The records' distinct state names, in order of first appearance (bounded)."""
    seen: dict[str, None] = {}
    for v in model.records:
        seen.update(dict.fromkeys(model.state_names[v]))
    text = ", ".join(seen)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def _record(model, r: int) -> str:
    v = model.records[r]
    return str(model.names[v]) if model.names is not None else str(r)


def count_codes(model, values, field_name: str = "mechanism.counted_states") -> CountCodes:
    """The counted indices of ``values`` (state names or indices) on each record of ``model`` (a
    :class:`~bdpsim.models.bayesnet.model.BayesNetModel`); see the module docstring."""
    check(
        isinstance(values, (list, tuple)) and len(values) >= 1,
        field_name,
        brief(values),
        "must be a non-empty list of states",
    )
    sizes = [model.node_states[v] for v in model.records]
    given = list(values)
    check(
        len(set(map(repr, given))) == len(given), field_name, brief(given), "counted states must be distinct"
    )
    per_record: list[set[int]] = [set() for _ in sizes]
    for value in given:
        if isinstance(value, str):
            _name_codes(model, value, field_name, given, per_record)
            continue
        check(
            is_int(value) and value >= 0,
            field_name,
            brief(given),
            "states must be integers >= 0 or state names",
        )
        short = [r for r, s in enumerate(sizes) if value >= s]
        if short:
            small = sorted({sizes[r] for r in short})
            hint = (
                f"; name the states instead ({_vocabulary(model)})" if model.state_names is not None else ""
            )
            raise ConfigError(
                field_name,
                brief(given),
                f"state {value} is past the states of {len(short)} of {len(sizes)} records "
                f"({_listing(_record(model, r) for r in short)}: "
                f"{' or '.join(map(str, small))} states){hint}",
            )
        for r in range(len(sizes)):
            per_record[r].add(int(value))
    uncounted = tuple(_record(model, r) for r, c in enumerate(per_record) if not c)
    check(len(uncounted) < len(sizes), field_name, brief(given), "no record has a counted state")
    full = [_record(model, r) for r, (c, s) in enumerate(zip(per_record, sizes)) if len(c) == s]
    check(
        not full,
        field_name,
        brief(given),
        f"counts every state of {_listing(full)}: such a record always adds 1 (count fewer states)",
    )
    return CountCodes(
        tuple(tuple(sorted(c)) for c in per_record), uncounted, any(isinstance(v, str) for v in given)
    )


def _name_codes(model, name: str, field_name: str, given, per_record: list[set[int]]) -> None:
    """Add the index of ``name`` to each record that has it (raises when none has it)."""
    if model.state_names is None:
        raise ConfigError(
            field_name,
            brief(given),
            f"{name!r}: the network's states have no names "
            "(give state indices, or read the network from a BIF file)",
        )
    hit = False
    for r, v in enumerate(model.records):
        names = model.state_names[v]
        if name in names:
            per_record[r].add(names.index(name))
            hit = True
    if not hit:
        raise ConfigError(
            field_name,
            brief(given),
            f"{name!r} is not a state of any record (the records' states: {_vocabulary(model)})",
        )
