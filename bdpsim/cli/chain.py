"""The Markov-chain flags shared by ``bdpsim attack markov`` and ``bdpsim calibrate markov``:
the chain (``--transition`` or ``--gamma``, ``--n``, ``--initial``), the query (``--counted`` or
``--state-values``), and the model they describe, checked with one-line errors naming the flag.

Only argument parsing lives here; the model is :class:`bdpsim.models.MarkovChainModel`.
"""

from __future__ import annotations

import argparse
import json
import math

#: the range of ``--n`` (a chain of n records)
N_RANGE = (2, 10_000_000)


def matrix_argument(text: str) -> list:
    """``--transition``: ``text`` parsed as a JSON list of lists (its numbers are checked by the
    model; anything else is refused by argparse in one line)."""
    try:
        m = json.loads(text)
    except ValueError:
        m = None
    if not (isinstance(m, list) and m and all(isinstance(r, list) for r in m)):
        raise argparse.ArgumentTypeError(f"must be a JSON matrix like [[0.9,0.1],[0.3,0.7]], got {text!r}")
    return m


def add_chain_arguments(m) -> None:
    """``--transition`` or ``--gamma`` (one of them required) and ``--n`` on the parser ``m``."""
    g = m.add_mutually_exclusive_group(required=True)
    g.add_argument(
        "--transition",
        type=matrix_argument,
        help='transition matrix as JSON, e.g. "[[0.9,0.1],[0.3,0.7]]"',
    )
    g.add_argument(
        "--gamma", type=float, help="the symmetric chain of thesis Fig. 14 with max P / min P = gamma"
    )
    m.add_argument("--n", type=int, required=True, help="number of records (chain length)")


def add_initial_argument(m) -> None:
    """``--initial`` (the chain's initial law) on the parser ``m``."""
    m.add_argument("--initial", type=float, nargs="+", help="initial law (default: the stationary law)")


def state_token(text: str) -> int | float:
    """One ``--counted`` value: an integer, or the number given (a non-integer state is then
    refused by :func:`bdpsim.queries.check_counted`, in the words of a config's
    ``counted_states``); anything else is refused by argparse in one line."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be integer states, got {text!r}") from None


def add_query_arguments(m) -> None:
    """``--counted`` or ``--state-values`` (at most one: the count of state 1 without either) on
    the parser ``m``."""
    q = m.add_mutually_exclusive_group()
    q.add_argument(
        "--counted",
        type=state_token,
        nargs="*",
        metavar="S",
        help="counted states (default: 1): distinct, in 0..states-1, not every one",
    )
    q.add_argument("--state-values", type=float, nargs="+", help="query value per state (a sum query)")


def check_chain_flags(a) -> None:
    """``--gamma`` (finite, ``>= 1``) and ``--n`` (in :data:`N_RANGE`) of the parsed arguments ``a``
    (:class:`~bdpsim.core.errors.ConfigError` naming the flag)."""
    from ..core.errors import ConfigError

    if a.gamma is not None and not (math.isfinite(a.gamma) and a.gamma >= 1):
        raise ConfigError("--gamma", a.gamma, "must be a finite number >= 1")
    lo, hi = N_RANGE
    if a.n < lo or a.n > hi:
        raise ConfigError("--n", a.n, f"must be an integer in {lo}..{hi}")


def chain_model(a):
    """The :class:`~bdpsim.models.MarkovChainModel` of ``--transition`` (or the symmetric chain of
    ``--gamma``), ``--n`` and ``--initial`` (flags checked by :func:`check_chain_flags` first); the
    model's error names its flag (``--transition``, ``--initial``)."""
    from ..core.errors import ConfigError
    from ..models import MarkovChainModel, symmetric_chain

    check_chain_flags(a)
    P = symmetric_chain(a.gamma) if a.gamma is not None else a.transition
    try:
        return MarkovChainModel(P, a.n, a.initial)
    except ConfigError as exc:
        raise ConfigError(f"--{exc.field.split('.')[-1]}", exc.value, exc.rule) from None


#: the flags that name a chain's query in errors (:func:`bdpsim.queries.discrete_query`'s fields)
QUERY_FLAGS = ("--counted", "--state-values")


def chain_query(a, states: int):
    """The query of ``--state-values`` (a :class:`~bdpsim.queries.StateSumQuery`) or ``--counted``
    (a :class:`~bdpsim.queries.CountQuery`; the count of state 1 without either) on a chain of
    ``states`` states, checked by :func:`bdpsim.queries.discrete_query` (the rule of a config's
    ``[mechanism]``; the error names the flag)."""
    from ..queries import discrete_query

    return discrete_query(states, a.counted, a.state_values, QUERY_FLAGS)


__all__ = [
    "N_RANGE",
    "QUERY_FLAGS",
    "add_chain_arguments",
    "add_initial_argument",
    "add_query_arguments",
    "chain_model",
    "chain_query",
    "check_chain_flags",
    "matrix_argument",
    "state_token",
]
