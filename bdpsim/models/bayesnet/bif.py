"""Reading a BIF file without pgmpy: the ``variable`` and ``probability`` blocks.

Importing pgmpy costs seconds of CPU; the BIF grammar a network file uses is small::

    network NAME { ... }                                  (ignored, as are property lines)
    variable X { type discrete [ 3 ] { low, mid, high }; }
    probability ( X ) { table 0.2, 0.5, 0.3; }
    probability ( Y | X, Z ) { (low, a) 0.9, 0.1; (low, b) 0.4, 0.6; ... }

read the way pgmpy's ``BIFReader`` reads it: comments (``//``, ``/* */``) dropped, double quotes
read as spaces, state names split at commas (at blanks when there is no comma), names in
probability headers matched to the declared ones ignoring case, a conditional ``table`` of
``card(X)`` rows (each row the law of one state of ``X`` over the parent configurations, first
parent slowest), rows ``(states) values`` giving ``P(X | parents = states)``. Anything else (a
``default`` line, a missing block, a state count that disagrees with its ``[k]``) raises
:class:`BifSyntax`, and :func:`~bdpsim.models.bayesnet.build.from_bif` then reads the file with
pgmpy, so the result never depends on which reader read it: :func:`read_bif` is checked equal to
pgmpy's reading on every BIF network pgmpy ships (``tests/models/test_bif_reader.py``).

The network's nodes are put in the order :func:`~bdpsim.models.bayesnet.build.from_pgmpy` uses
(the lexicographic topological order by name), each table indexed ``[parents..., node]`` with the
parents in that order.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_COMMENT = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")|(/\*.*?\*/|//[^\n]*)', re.DOTALL)
_VARIABLE = re.compile(r"\bvariable\s+([^{]+?)\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_PROBABILITY = re.compile(r"\bprobability\s*\(\s*([^)]*?)\s*\)\s*\{([^{}]*)\}")
_STATES = re.compile(r"type\s+\w+\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}\s*;")
_ROW = re.compile(r"^\(([^)]*)\)(.*)$", re.DOTALL)


class BifSyntax(ValueError):
    """What the bundled reader does not read (the caller falls back to pgmpy)."""


@dataclass(frozen=True)
class BifNetwork:
    """A network as read: nodes in topological order (ties by name), per node its state names,
    its parents (indices of earlier nodes) and its table ``[parents..., node]``."""

    names: tuple[str, ...]
    states: tuple[tuple[str, ...], ...]
    parents: tuple[tuple[int, ...], ...]
    tables: tuple[np.ndarray, ...]


def _numbers(text: str) -> list[float]:
    try:
        return [float(t) for t in re.split(r"[\s,]+", text.strip()) if t]
    except ValueError as err:
        raise BifSyntax(f"not a number in {text.strip()[:60]!r}") from err


def _split_states(raw: str) -> list[str]:
    return [s.strip() for s in raw.split(",") if s.strip()] if "," in raw else raw.split()


def parse_bif(text: str) -> BifNetwork:
    """The network of BIF ``text`` (module docstring); raises :class:`BifSyntax`."""
    text = _COMMENT.sub(lambda m: m.group(1) or "", text).replace('"', " ")
    states: dict[str, list[str]] = {}
    for name, body in _VARIABLE.findall(text):
        m = _STATES.search(body)
        if m is None:
            raise BifSyntax(f"variable {name}: no 'type discrete [k] {{...}};' line")
        names = _split_states(m.group(2))
        if len(names) != int(m.group(1)) or len(set(names)) != len(names) or name in states:
            raise BifSyntax(f"variable {name}: {m.group(1)} states declared, {names} given")
        states[name.strip()] = names
    canon = {k.lower(): k for k in states}
    blocks: dict[str, tuple[list[str], np.ndarray]] = {}
    for head, body in _PROBABILITY.findall(text):
        if "|" in head:
            child, rest = head.split("|", 1)
            parents = [p.strip() for p in rest.split(",")]
        else:
            child, *parents = head.split()
        child = canon.get(child.strip().lower(), "")
        parents = [canon.get(p.lower(), "") for p in parents]
        if not child or not all(parents) or child in blocks or child in parents:
            raise BifSyntax(f"probability ({head}): an undeclared or repeated variable")
        blocks[child] = (parents, _table(child, parents, body, states))
    if set(blocks) != set(states) or not states:
        raise BifSyntax("every variable needs exactly one probability block")
    return _ordered(states, blocks)


def _table(child: str, parents: list[str], body: str, states: dict[str, list[str]]) -> np.ndarray:
    """``P(child | parents)`` as an array ``[parents..., child]`` (parents in header order): a view
    of a C-ordered ``[child, parents...]`` array, the memory layout of pgmpy's ``TabularCPD.values``
    (so that renormalising rows rounds exactly as for a network read by pgmpy)."""
    cards = [len(states[p]) for p in parents]
    k = len(states[child])
    out = np.full([k] + cards, np.nan)
    for entry in body.split(";"):
        entry = entry.strip()
        if not entry or entry.startswith("property"):
            continue
        if entry.startswith("table") and (len(entry) == 5 or entry[5].isspace()):
            values = _numbers(entry[5:])
            if len(values) != out.size:
                raise BifSyntax(f"probability of {child}: table of {len(values)} values, {out.size} needed")
            out[...] = np.asarray(values).reshape([k] + cards)
            continue
        m = _ROW.match(entry)
        if m is None:
            raise BifSyntax(f"probability of {child}: cannot read {entry[:60]!r}")
        config = [s.strip() for s in m.group(1).split(",")]
        values = _numbers(m.group(2))
        if len(config) != len(parents) or len(values) != k:
            raise BifSyntax(f"probability of {child}: row {entry[:60]!r}")
        try:
            index = tuple(states[p].index(s) for p, s in zip(parents, config))
        except ValueError:
            raise BifSyntax(f"probability of {child}: unknown parent state in {entry[:60]!r}") from None
        out[(slice(None),) + index] = values
    if np.isnan(out).any():
        raise BifSyntax(f"probability of {child}: rows missing")
    return np.moveaxis(out, 0, -1)


def _ordered(states: dict[str, list[str]], blocks: dict[str, tuple[list[str], np.ndarray]]) -> BifNetwork:
    """Nodes in the lexicographic topological order by name (networkx's
    ``lexicographical_topological_sort(key=str)``, which :func:`from_pgmpy` uses); parents of
    each node in that order."""
    children: dict[str, list[str]] = {v: [] for v in states}
    indegree = {v: len(blocks[v][0]) for v in states}
    for v, (parents, _) in blocks.items():
        for p in parents:
            children[p].append(v)
    ready = [v for v in states if indegree[v] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        v = heapq.heappop(ready)
        order.append(v)
        for c in children[v]:
            indegree[c] -= 1
            if indegree[c] == 0:
                heapq.heappush(ready, c)
    if len(order) != len(states):
        raise BifSyntax("the parents form a cycle")
    index = {v: j for j, v in enumerate(order)}
    parents_out, tables = [], []
    for v in order:
        parents, t = blocks[v]
        ranks = sorted(range(len(parents)), key=lambda j: index[parents[j]])
        tables.append(np.transpose(t, ranks + [len(parents)]))
        parents_out.append(tuple(index[parents[j]] for j in ranks))
    return BifNetwork(tuple(order), tuple(tuple(states[v]) for v in order), tuple(parents_out), tuple(tables))


def read_bif(path) -> BifNetwork:
    """:func:`parse_bif` of the file at ``path`` (``.gz`` read decompressed)."""
    p = Path(path)
    if p.suffix == ".gz":
        import gzip

        with gzip.open(p, "rt") as fh:
            return parse_bif(fh.read())
    return parse_bif(p.read_text())
