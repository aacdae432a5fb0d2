"""Issue 21 (a newcomer's second trial): what a new user and the hostile catalogue found —
released locks, misleading messages, hostile inputs of ``calibrate``/``bounds``/``utility``/
``worst-case``/``plot``, help text, and the adversary table reader."""

import json
import threading

import pytest

from bdpsim import results as R
from bdpsim.config import load_config
from bdpsim.driver import run_experiment

from .test_hostile import OK, cli, one_line_error, toml


# ------------------------------------------------------------------ 2. the lock is released
def test_finished_run_leaves_no_lock(tmp_path, capsys):
    out = tmp_path / "o"
    rc, _, err = cli(capsys, "run", toml(tmp_path, OK), "--out", out, "--quiet")
    assert rc == 0, err
    assert not (out / R.LOCK_NAME).exists()
    assert sorted(p.name for p in out.iterdir()) == ["adversaries.csv.gz", "metadata.json", "points", "summary.csv"]


def test_lock_waiter_survives_the_holder_removing_the_file(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    held, release, order = threading.Event(), threading.Event(), []

    def holder():
        with R.run_lock(out):
            held.set()
            release.wait(10)
            order.append("first done")

    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    threading.Timer(0.5, release.set).start()
    with R.run_lock(out) as path:
        order.append("second holds")
        assert path.exists()  # the file the second run holds is the one at the path
    t.join()
    assert order == ["first done", "second holds"]
    assert not (out / R.LOCK_NAME).exists()


# ------------------------------------------------------------------ 11, 13, 15, 18: calibrate and bounds
def calibrate(capsys, *args):
    return cli(capsys, "calibrate", "markov", *args)


def test_calibrate_non_number_matrix_one_line(capsys):  # 13
    rc, out, err = calibrate(capsys, "--transition", "[[a,1],[0.5,0.5]]", "--n", "5", "--epsilon", "1")
    one_line_error(rc, err, "--transition")
    assert out == ""


@pytest.mark.parametrize("matrix", ["[[true,false],[0.5,0.5]]", '[["0.5",0.5],[0.5,0.5]]'])
def test_booleans_and_strings_are_not_probabilities(capsys, matrix):  # 18
    for cmd in (["calibrate", "markov", "--n", "5"], ["bounds", "markov"]):
        rc, out, err = cli(capsys, *cmd, "--transition", matrix, "--epsilon", "1")
        one_line_error(rc, err, "--transition")
        assert "deterministic" not in err and out == ""


def test_counting_every_state_is_named_as_such(capsys):  # 18
    rc, _, err = calibrate(capsys, "--gamma", "2", "--n", "5", "--epsilon", "1", "--counted", "0", "1")
    one_line_error(rc, err, "--counted = [0, 1]", "every one of the 2 states")
    assert "state_values" not in err


def test_subnormal_entry_is_refused_without_overflow_warnings(capsys):  # 15
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow RuntimeWarning would fail here
        for cmd in (["calibrate", "markov", "--n", "5"], ["bounds", "markov"]):
            rc, out, err = cli(capsys, *cmd, "--transition", "[[1e-320,1],[0.5,0.5]]", "--epsilon", "1")
            one_line_error(rc, err, "--transition", "subnormal")


def test_reducible_chain_is_described_and_bounds_do_not_apply(capsys):  # 15
    rc, out, err = cli(capsys, "bounds", "markov", "--transition", "[[1,0],[0,1]]", "--epsilon", "1", "--n", "5")
    assert rc == 0, err
    assert "reducible: 2 communicating classes {0}, {1}: the Markov and Zhao bounds do not apply" in out
    assert "markov bound   not applicable" in out
    rc, out, err = calibrate(capsys, "--transition", "[[1,0],[0,1]]", "--n", "5", "--epsilon", "1")
    assert rc == 0, err
    first = out.splitlines()[0]
    assert first.startswith("note: the chain is reducible") and "do not apply" in first
    assert "one of several stationary laws" in first
    rc, out, err = calibrate(capsys, "--transition", "[[0.5,0.5],[0,1]]", "--initial", "1", "0", "--n", "5",
                             "--epsilon", "1", "--json")
    assert rc == 0 and "{0} (transient), {1}" in err  # the note goes to stderr: stdout stays JSON
    assert json.loads(out)["method"] == "exact"


def test_transient_class_is_named():
    from bdpsim.kernels.chains import chain_structure

    assert chain_structure([[0.5, 0.5], [0.0, 1.0]]) == "reducible: 2 communicating classes {0} (transient), {1}"
    assert chain_structure([[0.0, 1.0], [1.0, 0.0]]) is None  # periodic but irreducible


def test_one_indexing_convention_in_calibrate(capsys):  # 11
    rc, out, err = calibrate(capsys, "--gamma", "5", "--n", "12", "--epsilon", "1", "--method", "all")
    assert rc == 0, err
    assert "1-indexed" not in out and out.count("(0-indexed)") >= 2


def test_pedigree_parent_after_child_message(capsys):  # 18
    from bdpsim.errors import ConfigError
    from bdpsim.models.pedigree import PedigreeModel

    with pytest.raises(ConfigError) as e:
        PedigreeModel([[1, 2], [], []])
    assert "0..-1" not in str(e.value) and "person 0 comes first" in str(e.value)
    with pytest.raises(ConfigError) as e:
        PedigreeModel([[], [], [0, 3], [0, 2]])
    assert "indices in 0..1" in str(e.value) and "cycle" in str(e.value)
