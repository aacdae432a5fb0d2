"""The Markov-chain flags ``bdpsim attack markov`` and ``bdpsim calibrate markov`` share
(bdpsim.cli.chain): the same options, read and refused the same way by both commands."""

from __future__ import annotations

import pytest

from bdpsim.cli import build_parser
from bdpsim.cli.chain import chain_query

from ..support.bad_config import calibrate, cli, one_line_error

COMMANDS = (["attack", "markov"], ["calibrate", "markov"])
SHARED = ("--transition", "--gamma", "--n", "--initial", "--counted", "--state-values")


def _markov_parser(command: str):
    top = build_parser()
    sub = next(a for a in top._actions if a.dest == "command").choices[command]
    return next(a for a in sub._actions if a.dest == "model_kind").choices["markov"]


def _options(parser) -> dict:
    return {o: a for a in parser._actions for o in a.option_strings}


def test_both_commands_declare_the_chain_flags_alike():
    attack, calibrate = (_options(_markov_parser(c)) for c in ("attack", "calibrate"))
    for flag in SHARED:
        a, c = attack[flag], calibrate[flag]
        assert (a.help, a.type, a.nargs, a.required) == (c.help, c.type, c.nargs, c.required), flag
    assert attack["--n"].required and not attack["--initial"].required


@pytest.mark.parametrize(
    "args, words",
    [
        (["--transition", "[0.9, 0.1]", "--n", "5"], ["--transition", "must be a JSON matrix"]),
        (["--transition", "not json", "--n", "5"], ["--transition", "must be a JSON matrix"]),
        (["--gamma", "0.5", "--n", "5"], ["--gamma = 0.5: must be a finite number >= 1"]),
        (["--gamma", "inf", "--n", "5"], ["--gamma = inf: must be a finite number >= 1"]),
        (["--gamma", "2", "--n", "1"], ["--n = 1: must be an integer in 2..10000000"]),
        (["--gamma", "2", "--n", "10000001"], ["--n = 10000001: must be an integer in 2..10000000"]),
        (["--gamma", "2", "--n", "5", "--initial", "0.5", "0.6"], ["--initial", "summing to 1"]),
        (["--transition", "[[0.9,0.1]]", "--n", "5"], ["--transition", "square matrix"]),
        (["--gamma", "2", "--n", "5", "--counted", "1", "--state-values", "0", "1"], ["not allowed"]),
    ],
)
def test_both_commands_refuse_a_bad_chain_in_one_line(capsys, args, words):
    errors = []
    for command in COMMANDS:
        rc, out, err = cli(capsys, *command, *args, "--epsilon", "1")
        one_line_error(rc, err, *words)
        assert out == ""
        errors.append(err)
    assert errors[0] == errors[1].replace("calibrate markov", "attack markov")


def test_chain_query_is_the_count_of_state_one_by_default():
    class Args:
        counted = None
        state_values = None

    a = Args()
    assert chain_query(a, 2).counted_states == (1,)
    a.counted = [0]
    assert chain_query(a, 2).counted_states == (0,)
    a.counted, a.state_values = None, [0.0, 2.5]
    assert chain_query(a, 2).state_values == (0.0, 2.5)


def test_calibrate_non_number_matrix_one_line(capsys):
    rc, out, err = calibrate(capsys, "--transition", "[[a,1],[0.5,0.5]]", "--n", "5", "--epsilon", "1")
    one_line_error(rc, err, "--transition")
    assert out == ""


@pytest.mark.parametrize("matrix", ["[[true,false],[0.5,0.5]]", '[["0.5",0.5],[0.5,0.5]]'])
def test_booleans_and_strings_are_not_probabilities(capsys, matrix):
    for cmd in (["calibrate", "markov", "--n", "5"], ["bounds", "markov"]):
        rc, out, err = cli(capsys, *cmd, "--transition", matrix, "--epsilon", "1")
        one_line_error(rc, err, "--transition")
        assert "deterministic" not in err and out == ""


def test_subnormal_entry_is_refused_without_overflow_warnings(capsys):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow RuntimeWarning would fail here
        for cmd in (["calibrate", "markov", "--n", "5"], ["bounds", "markov"]):
            rc, out, err = cli(capsys, *cmd, "--transition", "[[1e-320,1],[0.5,0.5]]", "--epsilon", "1")
            one_line_error(rc, err, "--transition", "subnormal")


@pytest.mark.parametrize(
    "matrix, rule",
    [
        ("not json", "must be a JSON matrix of numbers like [[0.9,0.1],[0.3,0.7]]"),
        ("[0.9, 0.1]", "must be a JSON matrix of numbers"),
        ('[["0.5",0.5],[0.5,0.5]]', "must be a JSON matrix of numbers"),
        ("[[0.9,0.1,0.0],[0.3,0.7,0.0]]", "must be a square matrix (k rows of k numbers)"),
        ("[[NaN,1],[0.5,0.5]]", "must be a JSON matrix of numbers"),
    ],
)
def test_one_json_parser_one_error_for_every_command(capsys, matrix, rule):
    """``--transition`` is read by one parser (bdpsim.cli.chain.parse_matrix): the same malformed
    matrix gets the same one-line error, naming the flag, from every command that takes it (the
    continual release adds that it also takes one matrix per step)."""
    commands = [
        ["attack", "markov", "--n", "5", "--epsilon", "1"],
        ["calibrate", "markov", "--n", "5", "--epsilon", "1"],
        ["bounds", "markov", "--epsilon", "1"],
        ["temporal", "--n", "5", "--epsilon", "1"],
    ]
    lines = set()
    for command in commands:
        rc, out, err = cli(capsys, *command, "--transition", matrix)
        one_line_error(rc, err, f"--transition = {matrix!r}: ", rule)
        lines.add(err.replace(", or a list of them, one per step", ""))  # temporal: one matrix per step too
    assert len(lines) == 1, lines
