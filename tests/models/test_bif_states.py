"""Issue 38 item 3: the state names of a BIF network are the model's own words.

Fixture: tests/data/weather.bif, four nodes with 2, 3, 3, 2 states — Rain (no, yes), Wind (low,
mid, high), Cloud (clear, some, overcast), Umbrella (no, yes). ``counted_states = ["yes"]`` counts
Rain and Umbrella (state 1 there; Wind's state 1 is "mid", so no single index set does it: a
per-record count); ``[2]`` is past the 2-state nodes' states and is refused naming them.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from bdpsim.adversary import Adversary
from bdpsim.core.errors import ConfigError
from bdpsim.pipeline.config import parse_config
from bdpsim.queries import CountQuery

from ..conftest import ROOT

pytest.importorskip("pgmpy")

BIF = ROOT / "tests" / "data" / "weather.bif"


def _model():
    from bdpsim.models.bayesnet.build import from_bif

    return from_bif(BIF)


def _config(counted, noise=None):
    mech = {"kind": "count", "epsilon": 1.0, "counted_states": counted}
    if noise:
        mech["noise"] = noise
    return parse_config(
        {
            "run": {"adversaries": 2, "samples": 1000, "seed": 1},
            "model": {"kind": "bayesnet", "bif": str(BIF)},
            "mechanism": mech,
        },
        "weather",
    )


def _joint(model):
    """Every state tuple of the (all-record) network and its probability, by enumeration."""
    xs = np.array(list(itertools.product(*[range(s) for s in model.node_states])))
    pr = np.ones(len(xs))
    for j in range(model.size):
        pr *= model.cpt[j][tuple(xs[:, p] for p in model.parents[j]) + (xs[:, j],)]
    return xs, pr


def test_state_names_and_repr():
    m = _model()
    assert m.node_states == (2, 3, 3, 2)
    assert m.state_names == (
        ("no", "yes"),
        ("low", "mid", "high"),
        ("clear", "some", "overcast"),
        ("no", "yes"),
    )
    assert repr(m).startswith(
        "BayesNetModel(nodes=4, states=(2, 3, 3, 2), names=('Rain', 'Wind', 'Cloud', 'Umbrella')"
    )
    assert "array" not in repr(m)
    assert m.state_label(1, 2) == "high"


def test_a_name_counts_the_records_that_have_it_and_says_which():
    with pytest.warns(
        UserWarning,
        match=r"2 of 4 records have a counted state; not counted \(no such state\): "
        r"Wind, Cloud$",
    ):
        cfg = _config(["yes"])
    q = cfg.points[0].mechanism.query_function
    assert q.per_record == ((1,), (), (), (1,))
    data = np.array([[1, 1, 1, 1], [0, 2, 2, 1], [1, 0, 0, 0]])
    assert q(data).tolist() == [2.0, 1.0, 1.0]  # Wind = mid and Cloud = some are not "yes"


def test_names_that_agree_on_their_index_give_the_plain_count():
    cfg = _config(["high", "overcast", "yes"])  # index 2 on Wind and Cloud, 1 on Rain and Umbrella
    q = cfg.points[0].mechanism.query_function
    assert type(q) is not CountQuery and q.per_record == ((1,), (2,), (2,), (1,))
    m = _model()
    assert type(m.count_codes([1]).query(m.record_states)) is CountQuery


@pytest.mark.parametrize("noise", [None, "geometric"])
def test_exact_bdpl_of_a_named_count_equals_brute_force(noise):
    """The engine's per-record increments: both query laws and the BDPL of one adversary against
    enumeration of the joint law and the noise law's own density ratio on a fine grid."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = _config(["yes"], noise)
    point = cfg.points[0]
    model, mech = point.model.fixed, point.mechanism
    engine = point.model.owner.exact(model, mech)
    xs, pr = _joint(model)
    S = (xs[:, 0] == 1).astype(int) + (xs[:, 3] == 1)
    for known, x, xp in [({1: 2}, 0, 1), ({0: 1, 1: 0}, 2, 0), ({}, 1, 0)]:
        target = 2 if x == 2 or 2 not in known else 3
        adv = Adversary(target, tuple(known), tuple(known.values()), x, xp)
        laws = engine.query_laws(adv)
        brute = []
        for v in (x, xp):
            ok = np.all([xs[:, r] == val for r, val in {**known, target: v}.items()], axis=0)
            law = np.bincount(S[ok], pr[ok], minlength=3)
            brute.append(law / law.sum())
        np.testing.assert_allclose(laws.atoms[:3], [0, 1, 2])
        for got, want in zip((laws.under_x, laws.under_x_prime), brute):
            np.testing.assert_allclose(got / got.sum(), want[: got.size], atol=1e-12)
        if noise is None:  # Laplace(1): the sup of the density ratio of two mixtures on a grid
            y = np.linspace(-30, 33, 630_001)
            dens = [sum(w * np.exp(-np.abs(y - c)) for c, w in enumerate(b)) for b in brute]
            want = float(np.max(np.abs(np.log(dens[0]) - np.log(dens[1]))))
            assert engine.bdpl(adv).value == pytest.approx(want, abs=1e-6)


def test_an_index_past_some_records_states_is_refused_naming_them():
    with pytest.raises(
        ConfigError,
        match=r"^mechanism.counted_states = \[2\]: state 2 is past the states of 2 of 4 "
        r"records \(Rain, Umbrella: 2 states\); name the states instead "
        r"\(no, yes, low, mid, high, clear, some, overcast\)$",
    ):
        _config([2])


@pytest.mark.parametrize(
    "counted, rule",
    [
        (
            ["maybe"],
            r"'maybe' is not a state of any record \(the records' states: no, yes, low, mid, high, clear",
        ),
        (["no", "yes"], r"counts every state of Rain, Umbrella"),
        (["BB"], r"'BB' is not a state of any record"),
    ],
)
def test_names_are_answered_in_the_network_s_words(counted, rule):
    with pytest.raises(ConfigError, match=r"^mechanism.counted_states = .*" + rule):
        _config(counted)


def test_unnamed_network_refuses_names_without_the_pedigree_message():
    from bdpsim.models.bayesnet.model import BayesNetModel

    m = BayesNetModel(((), (0,)), ([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]]))
    with pytest.raises(ConfigError, match=r"the network's states have no names"):
        m.count_codes(["yes"])
    assert m.state_names is None and "state_names" not in repr(m)


def test_bad_state_names_are_refused():
    from bdpsim.models.bayesnet.model import BayesNetModel

    with pytest.raises(ConfigError, match=r"^model.state_names = .*node 1 needs 2 non-empty state names$"):
        BayesNetModel(((), (0,)), ([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]]), state_names=[["a", "b"], ["c"]])
    with pytest.raises(ConfigError, match=r"must be distinct$"):
        BayesNetModel(
            ((), (0,)), ([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]]), state_names=[["a", "b"], ["c", "c"]]
        )


def test_run_prints_no_traceback_and_counts_by_name(tmp_path, capsys):
    from bdpsim.cli import main

    cfg = tmp_path / "w.toml"
    cfg.write_text(
        f'[run]\nadversaries = 2\nseed = 1\nestimator = "exact"\n'
        f'[model]\nkind = "bayesnet"\nbif = "{BIF}"\n'
        f'[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = ["yes"]\n'
    )
    with pytest.warns(UserWarning, match="not counted .*: Wind, Cloud"):
        assert main(["run", str(cfg), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    import csv
    import gzip

    names = {0: ("no", "yes"), 1: ("low", "mid", "high"), 2: ("clear", "some", "overcast"), 3: ("no", "yes")}
    with gzip.open(tmp_path / "out" / "adversaries.csv.gz", "rt") as fh:
        rows = list(csv.DictReader(fh))
    assert rows
    for r in rows:  # every state index beside its name, from the file
        i = int(r["i"])
        assert (r["x_name"], r["x_prime_name"]) == (names[i][int(r["x"])], names[i][int(r["x_prime"])])
        known = [int(k) for k in r["known"].split(";")] if r["known"] else []
        xk = [int(k) for k in r["x_known"].split(";")] if r["x_known"] else []
        assert r["x_known_names"] == ";".join(names[k][v] for k, v in zip(known, xk))
    with open(tmp_path / "out" / "summary.csv") as fh:
        summary = next(csv.DictReader(fh))
    i = int(summary["argmax_i"])
    assert summary["argmax_x_name"] == names[i][int(summary["argmax_x"])]
    assert summary["argmax_x_prime_name"] == names[i][int(summary["argmax_x_prime"])]
    bad = tmp_path / "b.toml"
    bad.write_text(cfg.read_text().replace('["yes"]', "[2]"))
    assert main(["run", str(bad), "--out", str(tmp_path / "out3"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        "bdpsim: error: mechanism.counted_states = [2]: state 2 is past"
    )
    assert not (tmp_path / "out3").exists()


def test_an_index_past_some_records_states_is_refused_on_a_random_field_too():
    raw = {
        "run": {"adversaries": 2, "samples": 1000, "seed": 1},
        "model": {"kind": "mrf", "states": [2, 3, 3, 2], "edges": [[0, 1], [1, 2], [2, 3]], "coupling": 0.5},
        "mechanism": {"kind": "count", "epsilon": 1.0, "counted_states": [2]},
    }
    with pytest.raises(
        ConfigError,
        match=r"^mechanism.counted_states = \[2\]: past the states of 2 of 4 records "
        r"\(e.g. record 0: 2 states\)$",
    ):
        parse_config(raw, "mrf")
    raw["mechanism"]["counted_states"] = [1]
    assert parse_config(raw, "mrf").points[0].mechanism.query_function.counted_states == (1,)


def _laplace_bdpl(w1, w2, b=1.0):
    """``sup_y |ln p1(y)/p2(y)|`` of two Laplace(b) mixtures on atoms 0, 1, 2: the log ratio is
    monotone between atoms (a Moebius map of e^(2y/b)), so the sup is at an atom or a tail."""
    c = np.arange(len(w1), dtype=float)
    vals = [
        abs(math.log(np.dot(w1, np.exp(-np.abs(y - c) / b)) / np.dot(w2, np.exp(-np.abs(y - c) / b))))
        for y in c
    ]
    vals += [abs(math.log(np.dot(w1, np.exp(s * c / b)) / np.dot(w2, np.exp(s * c / b)))) for s in (1, -1)]
    return max(vals)


def test_all_adversary_search_of_a_named_count_equals_brute_force():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        point = _config(["yes"]).points[0]
    model = point.model.fixed
    engine = point.model.owner.exact(model, point.mechanism)
    got = float(np.max(engine.window(0, None)[2]))
    xs, pr = _joint(model)
    S = (xs[:, 0] == 1).astype(int) + (xs[:, 3] == 1)
    best = 0.0
    for i in range(4):
        others = [r for r in range(4) if r != i]
        for k in range(4):
            for known in itertools.combinations(others, k):
                for xk in itertools.product(*[range(model.node_states[r]) for r in known]):
                    ok = (
                        np.all([xs[:, r] == v for r, v in zip(known, xk)], axis=0)
                        if known
                        else np.ones(len(xs), bool)
                    )
                    for x, xp in itertools.permutations(range(model.node_states[i]), 2):
                        laws = []
                        for v in (x, xp):
                            sel = ok & (xs[:, i] == v)
                            laws.append(np.bincount(S[sel], pr[sel], minlength=3))
                        if min(law.sum() for law in laws) > 0:
                            best = max(best, _laplace_bdpl(*(law / law.sum() for law in laws)))
    assert got == pytest.approx(best, abs=1e-9)


# ------------------------------------------------------- where the uncounted-records warning points
def _named_count_config(tmp_path):
    """The config file of :data:`NAMED_COUNT` and the line of its ``counted_states`` key."""
    text = (
        "[run]\nadversaries = 2\nsamples = 1000\nseed = 1\n"
        f'[model]\nkind = "bayesnet"\nbif = "{BIF}"\n'
        '[mechanism]\nkind = "count"\nepsilon = [1.0, 2.0]\ncounted_states = ["yes"]  # Rain, Umbrella\n'
    )
    path = tmp_path / "named.toml"
    path.write_text(text)
    return path, text.splitlines().index('counted_states = ["yes"]  # Rain, Umbrella') + 1


UNCOUNTED = (
    "mechanism.counted_states: 2 of 4 records have a counted state; not counted (no such state): Wind, Cloud"
)


def test_the_uncounted_records_warning_of_a_config_points_at_its_key(tmp_path):
    """Read from a config file, the warning is located at the config's ``counted_states`` line (as the
    ``bootstrap`` warning), not inside bdpsim: Python's warning line shows the user's key."""
    from bdpsim.pipeline.config import load_config

    path, line = _named_count_config(tmp_path)
    with pytest.warns(UserWarning) as caught:
        assert len(load_config(path).points) == 2
    assert {(str(w.message), w.filename, w.lineno) for w in caught} == {(UNCOUNTED, str(path), line)}


def test_validate_shows_the_uncounted_records_warning_once_at_the_key(tmp_path, bdpsim_cli):
    """``bdpsim validate``: Python's line names the config and its key's line, once for the sweep."""
    path, line = _named_count_config(tmp_path)
    p = bdpsim_cli("validate", path)
    assert p.returncode == 0 and "valid, 2 configuration points" in p.stdout
    assert (
        p.stderr == f'{path}:{line}: UserWarning: {UNCOUNTED}\n  counted_states = ["yes"]  # Rain, Umbrella\n'
    )


def test_the_uncounted_records_warning_of_a_library_call_points_at_the_caller():
    """Called from Python (no config file: a config given as a dict, ``LaplaceCount(model=...)``,
    ``bdpsim.calibrate``), the warning is located at the caller's line: this file."""
    import bdpsim

    with pytest.warns(UserWarning) as caught:
        _config(["yes"])
        bdpsim.LaplaceCount(1.0, ["yes"], model=_model())
        bdpsim.calibrate(_model(), 0.9, counted_states=["yes"])
    assert [w.filename for w in caught] == [__file__] * 3
    assert UNCOUNTED in str(caught[0].message) and str(caught[1].message).endswith(UNCOUNTED[25:])
