"""Issue 38 item 1: ``bdpsim calibrate`` certifies the query the user asked about.

``calibrate config`` reads the config's ``[mechanism]`` (``counted_states``, ``state_values``,
``epsilon``) as its default, names the calibrated query in the table and the JSON, names a flag
that overrides the config, and takes bundled config names; every answer is checked independently
by :func:`bdpsim.exact_bdpl` of the config's own mechanism at the printed scale.
"""

import json

import pytest

import bdpsim
from bdpsim.cli import main
from bdpsim.cli.calibrate_config import model_of

CHAIN3 = """[model]
kind = "markov"
n = 6
transition = [[0.5, 0.3, 0.2], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]]

[mechanism]
kind = "count"
epsilon = 1.0
counted_states = [2]
"""

NET3 = """[model]
kind = "bayesnet"
states = 3
parents = [[], [0], [1]]
cpt = [[0.5, 0.3, 0.2],
       [[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.1, 0.8]],
       [[0.6, 0.3, 0.1], [0.3, 0.4, 0.3], [0.05, 0.15, 0.8]]]

[mechanism]
kind = "count"
epsilon = 0.8
counted_states = [2]
"""


def _write(tmp_path, text: str) -> str:
    p = tmp_path / "config.toml"
    p.write_text(text)
    return str(p)


def _json(capsys, *args) -> dict:
    assert main(["calibrate", "config", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("text,eps", [(CHAIN3, 1.0), (NET3, 0.8)], ids=["chain", "network"])
def test_config_mechanism_is_the_calibrated_query(tmp_path, capsys, text, eps):
    path = _write(tmp_path, text)
    obj = _json(capsys, path)  # no --epsilon: the config's
    assert obj["epsilon"] == eps and obj["query"]["counted_states"] == [2]
    assert obj["query"]["values"] == [0.0, 0.0, 1.0] and obj["query"]["source"] == "config"
    model, scale = model_of(path), obj["scale"]
    # independent check: the config's own query at the printed scale is eps-BDP, and tight
    own = bdpsim.exact_bdpl(model, bdpsim.LaplaceCount(1.0 / scale, (2,))).bdpl
    assert own <= eps * (1 + 1e-9) and own == pytest.approx(eps, rel=1e-6)
    # ... and just below that scale it is not (the least scale), while state 1's count differs
    assert bdpsim.exact_bdpl(model, bdpsim.LaplaceCount(1.0 / (scale * (1 - 1e-4)), (2,))).bdpl > eps
    other = _json(capsys, path, "--counted", "1")
    assert other["query"]["counted_states"] == [1] and other["query"]["source"] == "flags"
    assert abs(other["scale"] - scale) > 1e-3 * scale


def test_table_names_the_query_and_an_overriding_flag(tmp_path, capsys):
    path = _write(tmp_path, CHAIN3)
    assert main(["calibrate", "config", path]) == 0
    out = capsys.readouterr().out
    assert "query: count of records in states [2]" in out and "from the config" in out
    assert main(["calibrate", "config", path, "--counted", "1", "--epsilon", "2"]) == 0
    out = capsys.readouterr().out
    assert "--counted [1] overrides the config's mechanism.counted_states = [2]" in out
    assert "--epsilon 2 overrides the config's mechanism.epsilon = 1" in out


def test_state_values_of_the_config(tmp_path, capsys):
    text = CHAIN3.replace('kind = "count"', 'kind = "sum"').replace(
        "counted_states = [2]", "state_values = [0.0, 1.0, 3.0]"
    )
    obj = _json(capsys, _write(tmp_path, text))
    assert obj["query"]["state_values"] == [0.0, 1.0, 3.0] and obj["query"]["values"] == [0.0, 1.0, 3.0]
    model = model_of(_write(tmp_path, text))
    mech = bdpsim.LaplaceStateSum((0.0, 1.0, 3.0), None, obj["scale"])
    assert bdpsim.exact_bdpl(model, mech).bdpl == pytest.approx(1.0, rel=1e-6)


def test_markov_names_its_query(capsys):
    assert main(["calibrate", "markov", "--gamma", "3", "--n", "6", "--epsilon", "1", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["query"] == {
        "description": "count of records in states [1]",
        "counted_states": [1],
        "values": [0.0, 1.0],
        "source": "default",
    }
    assert main(["calibrate", "markov", "--gamma", "3", "--n", "6", "--epsilon", "1"]) == 0
    assert "query: count of records in states [1] (default)" in capsys.readouterr().out


def test_bundled_config_name(capsys):
    obj = _json(capsys, "bayesnet_example", "--epsilon", "1")
    assert obj["method"] == "exact" and obj["bdpl"] <= 1 + 1e-9 and obj["query"]["source"] == "config"


@pytest.mark.parametrize(
    "text,args,field",
    [
        (CHAIN3.replace("epsilon = 1.0", "epsilon = [0.5, 1.0]"), [], "mechanism.epsilon"),
        (CHAIN3.replace("epsilon = 1.0\n", ""), [], "--epsilon"),
        (CHAIN3.replace("counted_states = [2]", "counted_states = [7]"), [], "mechanism.counted_states"),
        (CHAIN3.replace('kind = "count"', 'kind = "python"\nfunction = "x:y"'), [], "mechanism.kind"),
    ],
    ids=["epsilon-sweep", "no-epsilon", "bad-counted", "not-a-query"],
)
def test_config_query_errors_one_line(tmp_path, capsys, text, args, field):
    assert main(["calibrate", "config", _write(tmp_path, text), *args]) == 2
    err = capsys.readouterr()
    assert err.out == "" and len(err.err.strip().splitlines()) == 1 and f"{field} = " in err.err


def _bif_mechanism(counted, epsilon: float):
    """The mechanism ``bdpsim run`` builds for a count of ``counted`` on the weather network."""
    from bdpsim.pipeline.config import parse_config

    from ..conftest import TEST_DATA

    raw = {
        "run": {"adversaries": 2, "samples": 1000, "seed": 1},
        "model": {"kind": "bayesnet", "bif": str(TEST_DATA / "weather.bif")},
        "mechanism": {"kind": "count", "epsilon": epsilon, "counted_states": counted},
    }
    point = parse_config(raw, "weather").points[0]
    return point.model.fixed, point.mechanism


@pytest.mark.parametrize("counted", [["high", "overcast"], ["yes"]], ids=["one-index", "per-record"])
def test_state_names_of_a_bif_network_read_as_run_reads_them(tmp_path, capsys, counted):
    """``calibrate config`` takes the state names ``run`` and ``validate`` take (the network's own:
    "high" is state 2 of Wind, "overcast" state 2 of Cloud; "yes" state 1 of Rain and Umbrella and
    no state of the others, a per-record count); checked by the run's own mechanism at the
    printed scale: eps-BDP, and tight."""
    pytest.importorskip("pgmpy")
    from ..conftest import TEST_DATA

    names = ", ".join(f'"{c}"' for c in counted)
    text = (
        f'[model]\nkind = "bayesnet"\nbif = "{TEST_DATA / "weather.bif"}"\n\n'
        f'[mechanism]\nkind = "count"\nepsilon = 0.7\ncounted_states = [{names}]\n'
    )
    path = _write(tmp_path, text)
    others = "Wind, Cloud" if counted == ["yes"] else "Rain, Umbrella"  # records without such a state
    with pytest.warns(UserWarning, match=f"2 of 4 records have a counted state; not counted .*: {others}$"):
        obj = _json(capsys, path)
        assert obj["query"]["counted_states"] == counted and obj["query"]["source"] == "config"
        model, mech = _bif_mechanism(counted, 1.0 / obj["scale"])
        own = bdpsim.exact_bdpl(model, mech).bdpl
        assert own <= 0.7 * (1 + 1e-9) and own == pytest.approx(0.7, rel=1e-6)
        flags = _json(capsys, _write(tmp_path, text.replace(names, "1")), "--counted", *counted)
        assert flags["scale"] == obj["scale"] and flags["query"]["source"] == "flags"
        if counted == ["yes"]:  # the attack target's eps-BDP comparison takes per-state values: one line
            assert main(["calibrate", "config", _write(tmp_path, text), "--target-advantage", "0.3"]) == 2
            assert len(capsys.readouterr().err.strip().splitlines()) == 1


FAMILY = """[model]
kind = "pedigree"
family = "nuclear"
size = 4
allele_b = 0.3
"""


@pytest.mark.parametrize(
    "mechanism, args, names",
    [
        ("", [], "[1] (Bb)"),  # the default count: was "states [1]", a number for a genotype
        ('[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = [2]\n', [], "[2] (bb)"),
        ("", ["--counted", "0", "bb"], "[0, 2] (BB, bb)"),  # was "(0, bb)": an index among names
    ],
)
def test_a_pedigree_query_is_named_by_its_genotypes(tmp_path, capsys, mechanism, args, names):
    """A pedigree's states are genotypes: the calibrated query names them whether they were given as
    indices, names or not at all (the JSON keeps the indices beside them)."""
    cfg = tmp_path / "family.toml"
    cfg.write_text(FAMILY + mechanism)
    assert main(["calibrate", "config", str(cfg), "--epsilon", "1", *args]) == 0
    assert f"query: count of records in states {names} (" in capsys.readouterr().out
    assert main(["calibrate", "config", str(cfg), "--epsilon", "1", *args, "--json"]) == 0
    query = json.loads(capsys.readouterr().out)["query"]
    assert query["description"] == f"count of records in states {names}"
    assert query["counted_states"] == names.split("(")[1].rstrip(")").split(", ")


def test_states_given_by_name_are_named_in_a_refusal(tmp_path, capsys):
    """``--counted BB Bb bb`` (every state) is refused naming the genotypes as given (was
    ``--counted = [0, 1, 2]``)."""
    path = _write(tmp_path, FAMILY)
    assert main(["calibrate", "config", path, "--epsilon", "1", "--counted", "BB", "Bb", "bb"]) == 2
    assert "--counted = ['BB', 'Bb', 'bb']: counts every one of the 3 states" in capsys.readouterr().err
