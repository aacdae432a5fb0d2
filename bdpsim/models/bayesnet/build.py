"""Building a :class:`~bdpsim.models.bayesnet.model.BayesNetModel`: the config table, pgmpy, BIF.

Config (``[model] kind = "bayesnet"``), exactly one of:

* ``parents`` + ``cpt`` (+ optional ``states``, ``records``): the network written out;
* ``hmm = {transition = ..., emission = ..., n = ..., initial = ...}``: a hidden Markov model
  whose records are the ``n`` observations (``initial`` optional, default stationary);
* ``bif = "path"``: a BIF file (read by :mod:`bdpsim.models.bayesnet.bif`, or by pgmpy when it uses
  more of BIF than that reader reads; optional ``records`` as node names or indices).

Optional with any of them: ``table_tolerance`` (default 1e-6: rows of a table summing to 1 within
it are renormalised, with a note in ``metadata.json``); with ``parents``: ``names`` (one distinct
name per node, used in messages and the result tables' name columns; ``records`` may then be
names).

pgmpy is an optional dependency (``pip install bdpsim[bayesnet]``); without it the pgmpy path (and
a BIF file the bundled reader does not read) raise a one-line
:class:`~bdpsim.core.errors.ConfigError` saying so.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ...core.errors import ConfigError, check
from ...core.files import LIMITS, FileRefused, beside_config, read_text
from .check import MAX_NODES, TABLE_TOLERANCE, check_tolerance
from .model import BayesNetModel

KEYS = ("states", "parents", "cpt", "records", "names", "table_tolerance", "hmm", "bif")
HMM_KEYS = ("transition", "emission", "n", "initial")
INSTALL = "pip install bdpsim[bayesnet]"


def build(params: dict) -> BayesNetModel:
    """The model of a ``[model] kind = "bayesnet"`` table (keys with value ``None`` are absent)."""
    check(isinstance(params, dict), "model", params, "must be a table")
    given = {k: v for k, v in params.items() if v is not None and k != "kind"}
    for k in given:
        check(k in KEYS, f"model.{k}", given[k], f"not a key of a bayesnet model (keys: {', '.join(KEYS)})")
    ways = [w for w in ("parents", "hmm", "bif") if w in given]
    check(
        len(ways) == 1,
        "model",
        sorted(given),
        'give exactly one of parents + cpt, hmm = {...} or bif = "path"',
    )
    way = ways[0]
    tol = check_tolerance(given.get("table_tolerance", TABLE_TOLERANCE))
    if way == "parents":
        check("cpt" in given, "model.cpt", None, "is required with parents (one table per node)")
        return BayesNetModel(
            given["parents"], given["cpt"], given.get("states"), given.get("records"), given.get("names"), tol
        )
    for k in ("cpt", "states", "names"):
        check(k not in given, f"model.{k}", given.get(k), f"only with parents (not with {way})")
    if way == "hmm":
        h = given["hmm"]
        check(isinstance(h, dict), "model.hmm", h, "must be a table {transition, emission, n[, initial]}")
        for k in h:
            check(
                k in HMM_KEYS, f"model.hmm.{k}", h[k], f"not a key of model.hmm (keys: {', '.join(HMM_KEYS)})"
            )
        for k in ("transition", "emission", "n"):
            check(h.get(k) is not None, f"model.hmm.{k}", None, "is required")
        check(
            "records" not in given,
            "model.records",
            given.get("records"),
            "an hmm's records are its observations (no records key)",
        )
        try:
            return BayesNetModel.hmm(h["transition"], h["emission"], h["n"], h.get("initial"), tol)
        except ConfigError as err:
            if err.field.startswith("model."):
                raise
            raise ConfigError(f"model.hmm.{err.field}", err.value, err.rule) from None
    return from_bif(beside_config(given["bif"]), given.get("records"), tol)  # beside the config


def _pgmpy():
    try:
        import pgmpy  # noqa: F401
    except ImportError:
        raise ConfigError(
            "pgmpy", "not installed", f"reading pgmpy models and BIF files needs pgmpy: {INSTALL}"
        ) from None


def from_pgmpy(model, records=None, table_tolerance: float = TABLE_TOLERANCE) -> BayesNetModel:
    """A :class:`BayesNetModel` from a pgmpy ``DiscreteBayesianNetwork`` (nodes in topological
    order, ties by name; states in the ``state_names`` order of the node's own CPD). The joint law
    is the same product ``P(x) = prod_v P(x_v | x_pa(v))`` of the CPDs.

    Parameters
    ----------
    model : pgmpy.models.DiscreteBayesianNetwork
        The network (pgmpy is an optional dependency: ``pip install "bdpsim[bayesnet]"``).
    records : sequence of str or int, optional
        The nodes that are the database's records, by name or index (default: every node).
    table_tolerance : float
        Rows summing to 1 within it are renormalised (published networks are rounded).

    Returns
    -------
    BayesNetModel
    """
    _pgmpy()
    import networkx as nx

    check(
        hasattr(model, "get_cpds") and hasattr(model, "nodes"),
        "model",
        type(model).__name__,
        "must be a pgmpy DiscreteBayesianNetwork",
    )
    order = list(nx.lexicographical_topological_sort(model, key=str))
    index = {v: k for k, v in enumerate(order)}
    cpds = {}
    for v in order:
        cpd = model.get_cpds(v)
        check(cpd is not None, "model", str(v), "every node needs a CPD (pgmpy model.add_cpds)")
        cpds[v] = cpd
    own = {v: list(cpds[v].state_names[v]) for v in order}
    parents, tables = [], []
    for v in order:
        cpd = cpds[v]
        ev = list(cpd.variables[1:])
        t = np.moveaxis(np.asarray(cpd.values, dtype=float), 0, -1)  # (*evidence, node)
        for ax, name in enumerate(list(cpd.variables[1:]) + [v]):
            names = list(cpd.state_names[name])
            if names != own[name]:
                check(
                    sorted(map(str, names)) == sorted(map(str, own[name])),
                    "model",
                    str(name),
                    "state names differ between CPDs",
                )
                t = np.take(t, [names.index(s) for s in own[name]], axis=ax)
        ranks = sorted(range(len(ev)), key=lambda k: index[ev[k]])
        t = np.transpose(t, ranks + [len(ev)])
        parents.append(tuple(index[ev[k]] for k in ranks))
        tables.append(t)
    return BayesNetModel(
        tuple(parents),
        tuple(tables),
        records=_record_indices(records, order),
        names=tuple(map(str, order)),
        table_tolerance=table_tolerance,
        state_names=tuple(tuple(map(str, own[v])) for v in order),
    )


def from_bif(path, records=None, table_tolerance: float = TABLE_TOLERANCE) -> BayesNetModel:
    """A :class:`BayesNetModel` from a BIF file: read by the bundled reader
    (:func:`~bdpsim.models.bayesnet.bif.read_bif`, no pgmpy import), or by pgmpy's ``BIFReader``
    (then :func:`from_pgmpy`) when the file uses more of BIF than that reader reads; both give
    the same network (nodes in topological order, ties by name; states in declared order).

    Parameters
    ----------
    path : str or Path
        The ``.bif`` file.
    records : sequence of str or int, optional
        The record nodes, by name or index (default: every node).
    table_tolerance : float
        Rows summing to 1 within it are renormalised.

    Returns
    -------
    BayesNetModel
    """
    from .bif import BifSyntax, read_bif

    check(isinstance(path, (str, Path)), "model.bif", path, "must be a path to a .bif file")
    try:
        text = read_text(path, LIMITS["bif"])
    except FileRefused as exc:
        raise ConfigError("model.bif", str(path), exc.reason) from None
    nodes = len(re.findall(r"^\s*variable\s", text, flags=re.MULTILINE))  # cheap count before parsing it all
    check(
        nodes <= MAX_NODES,
        "model.bif",
        str(path),
        f"declares {nodes} variables: a network has at most {MAX_NODES} nodes",
    )
    try:
        net = read_bif(path)
    except BifSyntax as err:
        why = str(err)[:120]
    except (OSError, UnicodeDecodeError, EOFError) as err:
        raise ConfigError("model.bif", str(path), f"not a readable BIF file ({type(err).__name__})") from None
    else:
        return BayesNetModel(
            net.parents,
            net.tables,
            records=_record_indices(records, net.names),
            names=net.names,
            table_tolerance=table_tolerance,
            state_names=net.states,
        )
    try:
        import pgmpy  # noqa: F401
    except ImportError:
        raise ConfigError(
            "pgmpy",
            "not installed",
            f"the bundled BIF reader cannot read {str(path)!r} ({why}); pgmpy reads more of BIF: {INSTALL}",
        ) from None
    from pgmpy.readwrite import BIFReader

    try:
        pg = BIFReader(str(path)).get_model()
    except Exception as err:  # pgmpy raises many types for a malformed file
        raise ConfigError(
            "model.bif", str(path), f"not a readable BIF file ({why}; pgmpy: {type(err).__name__})"
        ) from None
    return from_pgmpy(pg, records, table_tolerance)


def _record_indices(records, order):
    """``records`` with node names replaced by their indices in ``order`` (``None`` kept)."""
    if records is None:
        return None
    check(
        isinstance(records, (list, tuple)),
        "model.records",
        records,
        "must be a list of node names or indices",
    )
    index = {v: k for k, v in enumerate(order)}
    out = []
    for r in records:
        if isinstance(r, str):
            check(r in index, "model.records", r, f"not a node of the network ({len(order)} nodes)")
            out.append(index[r])
        else:
            out.append(r)
    return out
