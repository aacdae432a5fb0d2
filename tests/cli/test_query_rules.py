"""One rule for a chain's query (``--counted`` / ``--state-values``, a config's
``counted_states`` / ``state_values``): ``bdpsim attack markov``, ``bdpsim calibrate markov``
(an eps target or an attack target) and the config path (``validate``, ``attack config``,
``calibrate config``) refuse the same bad query with the same one-line rule
(:func:`bdpsim.queries.discrete_query`), and answer a good one with the same numbers.

Counting every state, or all-equal state values, is a constant query: sensitivity 0, so
``P(r | x) = P(r | x')`` for every pair of target values and its BDPL is 0 whatever the noise.
It is refused everywhere (nothing to measure, nothing to calibrate)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bdpsim
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MarkovChainModel
from bdpsim.queries import CountQuery, StateSumQuery, check_counted, check_state_values, discrete_query

from ..support.bad_config import calibrate, cli, one_line_error

P3 = [[0.5, 0.3, 0.2], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]]
CHAIN = ["--transition", json.dumps(P3), "--n", "4"]
MODEL = f'[model]\nkind = "markov"\nn = 4\ntransition = {json.dumps(P3)}\n'

FLAG_COMMANDS = {
    "attack": ["attack", "markov", *CHAIN, "--epsilon", "1"],
    "calibrate": ["calibrate", "markov", *CHAIN, "--epsilon", "1", "--method", "exact"],
    "calibrate-target": ["calibrate", "markov", *CHAIN, "--target-advantage", "0.3"],
}
CONFIG_COMMANDS = {
    "validate": ["validate"],
    "attack-config": ["attack", "config"],
    "calibrate-config": ["calibrate", "config"],
}
FIELDS = {"--counted": "mechanism.counted_states", "--state-values": "mechanism.state_values"}
IN_RANGE = "must be a non-empty list of distinct states in 0..2"

# case: (flags, the config's [mechanism] lines, the rule every path gives)
BAD = {
    "out of range": (["--counted", "3"], "counted_states = [3]", IN_RANGE),
    "negative": (["--counted", "-1"], "counted_states = [-1]", IN_RANGE),
    "repeated": (["--counted", "1", "1"], "counted_states = [1, 1]", IN_RANGE),
    "empty": (["--counted"], "counted_states = []", IN_RANGE),
    "non-integer": (["--counted", "1.5"], "counted_states = [1.5]", IN_RANGE),
    "every state": (
        ["--counted", "0", "2", "1"],
        "counted_states = [0, 2, 1]",
        "counts every one of the 3 states: the count is n for every database",
    ),
    "all values equal": (
        ["--state-values", "2", "2", "2"],
        'kind = "sum"\nstate_values = [2.0, 2.0, 2.0]',
        "are all equal: the sum is the same for every database",
    ),
    "values per state": (
        ["--state-values", "0", "1"],
        'kind = "sum"\nstate_values = [0.0, 1.0]',
        "must be 3 finite numbers (one per state)",
    ),
}


def _config(tmp_path, mechanism: str) -> str:
    kind = "" if "kind =" in mechanism else 'kind = "count"\n'
    path = tmp_path / "q.toml"
    path.write_text(MODEL + f"[mechanism]\n{kind}epsilon = 1.0\n{mechanism}\n")
    return str(path)


def _rule(err: str) -> str:
    """``FIELD = VALUE: RULE`` of a one-line error, the field in the config's name."""
    text = err.removeprefix("bdpsim: error: ").strip()
    field, rest = text.split(" = ", 1)
    return f"{FIELDS.get(field, field)} = {rest}"


@pytest.mark.parametrize("case", list(BAD))
def test_every_path_refuses_a_bad_query_with_one_rule(tmp_path, capsys, case):
    flags, mechanism, rule = BAD[case]
    flag = flags[0]
    said = {}
    for name, argv in FLAG_COMMANDS.items():
        rc, out, err = cli(capsys, *argv, *flags)
        one_line_error(rc, err, f"{flag} = ", rule)
        assert out == "", name
        said[name] = _rule(err)
    good = _config(tmp_path, "counted_states = [1]")  # calibrate config's flags override its query
    rc, out, err = cli(capsys, "calibrate", "config", good, "--epsilon", "1", *flags)
    one_line_error(rc, err, f"{flag} = ", rule)
    said["calibrate-config flags"] = _rule(err)
    path = _config(tmp_path, mechanism)
    for name, argv in CONFIG_COMMANDS.items():
        extra = ["--epsilon", "1"] if name == "calibrate-config" else []
        rc, out, err = cli(capsys, *argv, path, *extra)
        one_line_error(rc, err, f"{FIELDS[flag]} = ", rule)
        assert out == "", name
        said[name] = _rule(err)
    assert len(set(said.values())) == 1, said


def _json(capsys, *argv):
    rc, out, err = cli(capsys, *argv, "--json")
    assert rc == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "flags, mechanism, query",
    [
        (["--counted", "0", "2"], "counted_states = [0, 2]", CountQuery((0, 2))),
        (["--state-values", "0", "1", "3"], 'kind = "sum"\nstate_values = [0.0, 1.0, 3.0]', None),
    ],
    ids=["count", "state-sum"],
)
def test_a_good_query_gives_the_same_numbers_on_every_path(tmp_path, capsys, flags, mechanism, query):
    path = _config(tmp_path, mechanism)
    attack = _json(capsys, *FLAG_COMMANDS["attack"], *flags)
    attack_config = _json(capsys, "attack", "config", path)
    assert attack["bdpl_max"] == pytest.approx(attack_config["bdpl_max"], rel=1e-12)
    if query is not None:  # the exact engine, independently of any command
        exact = bdpsim.exact_bdpl(MarkovChainModel(P3, 4), LaplaceCount(1.0, query.counted_states)).bdpl
        assert attack["bdpl_max"] == pytest.approx(exact, rel=1e-9)
    cal = _json(capsys, *FLAG_COMMANDS["calibrate"], *flags)
    cal_config = _json(capsys, "calibrate", "config", path, "--epsilon", "1", "--method", "exact")
    cal_config = cal_config[0] if isinstance(cal_config, list) else cal_config
    assert cal["scale"] == pytest.approx(cal_config["scale"], rel=1e-9)
    assert cal["query"]["values"] == cal_config["query"]["values"]
    assert cal["bdpl"] <= 1.0 + 1e-6


def test_the_one_function_names_the_field_it_is_given():
    with pytest.raises(
        ValueError, match=r"^--counted = \[2\]: must be a non-empty list of distinct states in 0\.\.1$"
    ):
        discrete_query(2, [2], fields=("--counted", "--state-values"))
    with pytest.raises(ValueError, match=r"^mechanism.counted_states = \[1, 0\]: counts every one of the 2"):
        check_counted([1, 0], 2)
    with pytest.raises(ValueError, match=r"^mechanism.state_values = \[1.0, 1.0\]: are all equal"):
        check_state_values((1, 1), 2)
    with pytest.raises(ValueError, match="not both"):
        discrete_query(2, [1], [0.0, 1.0])
    assert discrete_query(3).counted_states == (1,)
    assert discrete_query(3, state_values=[0, 1, 3]) == StateSumQuery((0.0, 1.0, 3.0))


@pytest.mark.parametrize("bad", [(1.5,), (True,), (), (1, 1), (-1,)])
def test_a_count_never_truncates_a_state(bad):
    # int(1.5) == 1 would count state 1 silently: a library caller gets the one-line error too
    with pytest.raises(ValueError, match=r"^mechanism.counted_states = .*: must be a non-empty list"):
        CountQuery(bad)


def test_a_count_of_every_state_would_be_constant():
    # why the rule: every database gives n, so the output law is the same for every target value
    model = MarkovChainModel(P3, 4)
    data = model.sample(200, np.random.default_rng(1))
    assert set(CountQuery((0, 1))(data)) != {4.0}  # a proper subset varies
    assert set(np.isin(data, (0, 1, 2)).sum(axis=1)) == {4}  # every state: n
    with pytest.raises(ValueError, match="counts every one of the 3 states"):
        CountQuery((0, 1, 2)).per_state(3)


@pytest.mark.parametrize("bad", [[3], [1, 1], [], [1.5], [0, 1, 2]])
def test_the_window_kernel_says_the_same_rule(bad):
    # the kernel the exact engines call directly (below the queries' layer) words it alike
    from bdpsim.core.errors import field_error
    from bdpsim.kernels.chains.lattice import query_values

    with pytest.raises(ValueError) as kernel:
        query_values(3, bad)
    with pytest.raises(ValueError) as query:
        check_counted(bad, 3)
    assert field_error(kernel.value).rule == field_error(query.value).rule


def test_counting_every_state_is_named_as_such(capsys):
    rc, _, err = calibrate(capsys, "--gamma", "2", "--n", "5", "--epsilon", "1", "--counted", "0", "1")
    one_line_error(rc, err, "--counted = [0, 1]", "every one of the 2 states")
    assert "state_values" not in err
