"""The Markov-chain flags of ``bdpsim attack markov``, ``calibrate markov``, ``temporal`` and
``bounds markov``: the chain (``--transition`` or ``--gamma``, ``--n``, ``--initial``), the query
(``--counted`` or ``--state-values``), read the one way every command reads them.

``--transition`` is the one JSON argument (:func:`parse_matrix`: its shape checked here, once;
its numbers by the model); every vector is numbers separated by spaces (``--initial 0.5 0.5``).
Every error is one :class:`~bdpsim.core.errors.ConfigError` naming the flag. Only argument
parsing lives here; the model is :class:`bdpsim.models.MarkovChainModel`.
"""

from __future__ import annotations

import argparse
import json
import math

from ..core.errors import ConfigError
from .base import note

#: the range of ``--n`` (a chain of n records)
N_RANGE = (2, 10_000_000)
#: an example of each JSON shape, for the rules
MATRIX_EXAMPLE = "[[0.9,0.1],[0.3,0.7]]"


def _numbers(row) -> bool:
    return isinstance(row, list) and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in row
    )


def _square(m) -> bool:
    return isinstance(m, list) and len(m) >= 1 and all(_numbers(r) and len(r) == len(m) for r in m)


def parse_matrix(flag: str, text: str, *, per_step: bool = False) -> list:
    """``--transition``: ``text`` as a square JSON matrix of finite numbers (with ``per_step``, also
    a list of such matrices of one size, one per step), its shape checked here once; its numbers
    (a row-stochastic matrix) are the model's rule. A :class:`~bdpsim.core.errors.ConfigError`
    naming ``flag`` otherwise."""
    try:
        m = json.loads(text)
    except ValueError:
        m = None
    if _square(m):
        return m
    if per_step and isinstance(m, list) and m and all(_square(p) and len(p) == len(m[0]) for p in m):
        return m
    if isinstance(m, list) and m and all(isinstance(r, list) for r in m) and all(_numbers(r) for r in m):
        rule = "must be a square matrix (k rows of k numbers)"
    else:
        rule = f"must be a JSON matrix of numbers like {MATRIX_EXAMPLE}"
    raise ConfigError(flag, text, rule + (", or a list of them, one per step" if per_step else ""))


def parse_vector(flag: str, text: str) -> list[float]:
    """A JSON vector of finite numbers (``"[0.5,0.5]"``), or a
    :class:`~bdpsim.core.errors.ConfigError` naming ``flag``."""
    try:
        v = json.loads(text)
    except ValueError:
        v = None
    if not (_numbers(v) and v):
        raise ConfigError(flag, text, "must be a JSON vector of numbers like [0.5,0.5], or 'stationary'")
    return [float(x) for x in v]


def parse_initial(flag: str, tokens: list[str] | None) -> list[float] | None:
    """``--initial``: probabilities separated by spaces (``None``: absent or ``stationary``, the
    chain's stationary law). The JSON vector of earlier releases (``"[0.5,0.5]"``) is read for one
    more release, with a note; the numbers are the model's rule."""
    if tokens is None or tokens == ["stationary"]:
        return None
    if len(tokens) == 1 and tokens[0].lstrip().startswith("["):
        law = parse_vector(flag, tokens[0])
        spaced = " ".join(f"{x:g}" for x in law)
        note(f"{flag} takes numbers separated by spaces ({flag} {spaced}); JSON goes in the next release")
        return law
    try:
        return [float(t) for t in tokens]
    except ValueError:
        raise ConfigError(
            flag,
            " ".join(tokens),
            "must be probabilities separated by spaces (e.g. 0.5 0.5), or 'stationary'",
        ) from None


def add_chain_arguments(m, *, per_step: bool = False) -> None:
    """``--transition`` or ``--gamma`` (one of them required) and ``--n`` on the parser ``m``
    (``per_step``: ``--transition`` may hold one matrix per step)."""
    g = m.add_mutually_exclusive_group(required=True)
    g.add_argument(
        "--transition",
        metavar="MATRIX",
        help=f'transition matrix as JSON, e.g. "{MATRIX_EXAMPLE}"'
        + (" (or a list of n - 1 matrices, one per step)" if per_step else ""),
    )
    g.add_argument(
        "--gamma", type=float, help="the symmetric chain of thesis Fig. 14 with max P / min P = gamma"
    )
    m.add_argument(
        "--n",
        type=int,
        required=not per_step,  # temporal: its old spelling --steps still reads for one release
        help="number of records (the chain's length)",
    )


def add_initial_argument(m) -> None:
    """``--initial`` (the chain's initial law) on the parser ``m``."""
    m.add_argument(
        "--initial",
        nargs="+",
        metavar="P",
        help="initial law, probabilities separated by spaces (default: the stationary law)",
    )


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


def state_or_name(text: str) -> int | float | str:
    """One ``--counted`` value of a command on a config's model: a number as :func:`state_token`
    reads it, else a state name as written (the model reads it as ``bdpsim run`` reads a config's
    ``counted_states``: a BIF network's own names, a pedigree's genotypes, or refused naming the
    flag)."""
    try:
        return state_token(text)
    except argparse.ArgumentTypeError:
        return text


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
    q.add_argument(
        "--state-values", type=float, nargs="+", metavar="V", help="query value per state (a sum query)"
    )


def check_chain_flags(a) -> None:
    """``--gamma`` (finite, ``>= 1``) and ``--n`` (in :data:`N_RANGE`) of the parsed arguments ``a``
    (:class:`~bdpsim.core.errors.ConfigError` naming the flag)."""
    if a.gamma is not None and not (math.isfinite(a.gamma) and a.gamma >= 1):
        raise ConfigError("--gamma", a.gamma, "must be a finite number >= 1")
    lo, hi = N_RANGE
    if a.n < lo or a.n > hi:
        raise ConfigError("--n", a.n, f"must be an integer in {lo}..{hi}")


def transition_of(a, *, per_step: bool = False) -> list:
    """The transition matrix of ``--transition`` (:func:`parse_matrix`) or the symmetric chain of
    ``--gamma``."""
    if a.transition is not None:
        return parse_matrix("--transition", a.transition, per_step=per_step)
    from ..kernels.chains.transition import symmetric_chain

    return symmetric_chain(a.gamma).tolist()


def chain_model(a):
    """The :class:`~bdpsim.models.MarkovChainModel` of ``--transition`` (or the symmetric chain of
    ``--gamma``), ``--n`` and ``--initial`` (flags checked by :func:`check_chain_flags` first); the
    model's error names its flag (``--transition``, ``--initial``)."""
    from ..models import MarkovChainModel

    check_chain_flags(a)
    P, initial = transition_of(a), parse_initial("--initial", a.initial)
    try:
        return MarkovChainModel(P, a.n, initial)
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
    "parse_initial",
    "parse_matrix",
    "parse_vector",
    "state_token",
    "transition_of",
]
