"""Bad input: probes of the calibration layer."""

import json

import pytest

from ..conftest import write_toml
from ..support.bad_input import (
    ACTIVITY,
    MARKOV,
    RUN,
    _parsers,
    one_line,
)


def test_table_of_one_calibrated_configuration(bdpsim_cli, tmp_path):
    cfg = RUN + MARKOV + '[mechanism]\nkind = "calibrated"\nmethod = "general"\nepsilon = 1.0\n'
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", cfg), "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("1 configuration -> ")
    head, row = lines[1].split(), lines[2].split()
    assert head[:4] == ["estimator", "n", "target_epsilon", "dp_epsilon"]
    assert row[2] == "1" and float(row[3]) == pytest.approx(0.25)  # n = 4 records: scale 4, DP eps 1/4


def test_ctrl_c_during_calibrate(bdpsim_cli, monkeypatch):
    import bdpsim.calibration

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(bdpsim.calibration, "calibrate", interrupted)
    p = bdpsim_cli("calibrate", "markov", "--gamma", "3", "--n", "10", "--epsilon", "1")
    one_line(p, "interrupted", code=130)
    assert p.stdout == ""


def test_every_help_fits_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    long = {
        " ".join(path) or "bdpsim": max(len(line) for line in parser.format_help().splitlines())
        for path, parser in _parsers()
    }
    assert "calibrate markov" in long and max(long.values()) <= 80, {k: v for k, v in long.items() if v > 80}


def test_calibrate_markov_does_not_promise_laplace_only(bdpsim_cli):
    p = bdpsim_cli("calibrate", "markov", "--help")
    assert (
        p.returncode == 0 and "+ Laplace noise" not in p.stdout and "--noise" in p.stdout.split("options:")[0]
    )


def test_calibrate_flags_not_eps_bdp_in_its_own_column(bdpsim_cli):
    p = bdpsim_cli(
        "calibrate", "markov", "--transition", ACTIVITY, "--n", "100", "--epsilon", "10", "--method", "all"
    )
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("query: ") and lines[1].split()[-1] == "eps-BDP?"  # issue 38: the query first
    row = {line.split()[0]: line for line in lines[2:] if not line.startswith(" ")}
    assert row["markov-quilt-exact"].endswith("NOT eps-BDP") and row["exact"].endswith("yes")
    assert row["zhao"].endswith("n/a")
    assert max(map(len, lines)) <= 80


def test_calibrate_json_has_is_bdp(bdpsim_cli):
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        ACTIVITY,
        "--n",
        "100",
        "--epsilon",
        "10",
        "--method",
        "all",
        "--json",
    )
    rows = {r["method"]: r for r in json.loads(p.stdout)}
    assert rows["markov-quilt-exact"]["is_bdp"] is False and rows["exact"]["is_bdp"] is True
    assert rows["zhao"]["is_bdp"] is None


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), True, "1"], ids=repr)
def test_every_calibration_refuses_a_bad_epsilon_in_the_same_words(bad):
    """The target eps of the chain methods, the graph engines and the optimal noise: one rule
    (bdpsim.calibration.target.check_positive), refused before any search starts."""
    import numpy as np

    from bdpsim.calibration import CalibrationProblem
    from bdpsim.calibration.graphs import calibrate_graph
    from bdpsim.calibration.optimal import optimal_noise
    from bdpsim.calibration.target import check_target_epsilon
    from bdpsim.core.errors import ConfigError
    from bdpsim.models import MarkovChainModel, PedigreeModel

    chain, f = MarkovChainModel([[0.8, 0.2], [0.3, 0.7]], 4), np.array([0.0, 1.0])
    calls = (
        lambda: check_target_epsilon(bad),
        lambda: CalibrationProblem(chain, f, bad),
        lambda: calibrate_graph(PedigreeModel.nuclear(2, 0.3), bad, np.array([0.0, 0.0, 1.0])),
        lambda: optimal_noise(chain, bad, f),
    )
    for call in calls:
        with pytest.raises(ConfigError, match=r"^epsilon = .*: must be a finite number > 0$"):
            call()


def test_a_numpy_epsilon_is_a_number_to_every_calibration():
    import numpy as np

    from bdpsim.calibration.graphs import calibrate_graph
    from bdpsim.models import PedigreeModel

    model = PedigreeModel.nuclear(2, 0.3)
    values = np.array([0.0, 0.0, 1.0])
    b = calibrate_graph(model, 1.0, values, method="exact")[0]
    for eps in (np.float32(1.0), np.int64(1)):  # not Python floats (np.float64 is one)
        a = calibrate_graph(model, eps, values, method="exact")[0]
        assert a.scale == b.scale and a.scale is not None
