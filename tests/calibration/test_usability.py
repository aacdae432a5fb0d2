"""Usability: probes of the calibration layer."""

import json

import pytest

from bdpsim.pipeline.config import load_config

from ..support.bad_config import cli, one_line_error
from ..support.usability import (
    calibrate,
)


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
    rc, out, err = cli(
        capsys, "bounds", "markov", "--transition", "[[1,0],[0,1]]", "--epsilon", "1", "--n", "5"
    )
    assert rc == 0, err
    assert "reducible: 2 communicating classes {0}, {1}: the Markov and Zhao bounds do not apply" in out
    assert "markov bound   not applicable" in out
    rc, out, err = calibrate(capsys, "--transition", "[[1,0],[0,1]]", "--n", "5", "--epsilon", "1")
    assert rc == 0, err
    first = out.splitlines()[0]
    assert first.startswith("note: the chain is reducible") and "do not apply" in first
    assert "one of several stationary laws" in first
    rc, out, err = calibrate(
        capsys,
        "--transition",
        "[[0.5,0.5],[0,1]]",
        "--initial",
        "1",
        "0",
        "--n",
        "5",
        "--epsilon",
        "1",
        "--json",
    )
    assert rc == 0 and "{0} (transient), {1}" in err  # the note goes to stderr: stdout stays JSON
    assert json.loads(out)["method"] == "exact"


def test_one_indexing_convention_in_calibrate(capsys):  # 11
    rc, out, err = calibrate(capsys, "--gamma", "5", "--n", "12", "--epsilon", "1", "--method", "all")
    assert rc == 0, err
    assert "1-indexed" not in out and out.count("(0-indexed)") >= 2


# ------------------------------------------------------------------ 6. calibrated time
def test_validate_prints_a_calibrated_range_that_holds_the_measured_time(capsys):
    import csv
    import re

    from bdpsim.pipeline.cost import config_seconds, estimate_config

    from ..conftest import ROOT

    rc, out, _ = cli(capsys, "validate", "quickstart")
    line = out.splitlines()[1]
    assert rc == 0 and re.search(r"~[\d.]+ s - [\d.]+ s of one core \(calibrated on measured runs\)", line), (
        line
    )
    lo, hi = config_seconds(estimate_config(load_config(ROOT / "configs" / "quickstart.toml"))[2])
    measured = sum(
        float(r["seconds"]) for r in csv.DictReader(open(ROOT / "results" / "quickstart" / "summary.csv"))
    )
    assert lo <= measured <= hi, (lo, measured, hi)
    assert hi / lo < 5
