"""``bdpsim calibrate`` estimates its costly steps up front and refuses them with the estimate."""

import json

import numpy as np
import pytest

from bdpsim.calibration import calibrate
from bdpsim.calibration.budget import TooSlow, mqm_exact_seconds
from bdpsim.models import MarkovChainModel, symmetric_chain
from bdpsim.models.markov.window import scan_cost


def _chain50():
    P = np.random.default_rng(5).dirichlet(np.ones(50), size=50)
    return json.dumps(P.tolist())


def test_mqm_exact_refused_up_front_with_the_estimate(bdpsim_cli):
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--gamma",
        "2",
        "--n",
        "10000000",
        "--epsilon",
        "1",
        "--method",
        "markov-quilt-exact",
    )
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1
    assert "--n = 10000000: markov-quilt-exact needs ~" in p.stderr and "use fewer records" in p.stderr


def test_method_all_reports_the_refused_method_and_runs_the_others(bdpsim_cli):
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--gamma",
        "2",
        "--n",
        "10000000",
        "--epsilon",
        "1",
        "--method",
        "all",
        "--json",
    )
    assert p.returncode == 0, p.stderr
    rows = {r["method"]: r for r in json.loads(p.stdout)}
    assert rows["markov-quilt-exact"]["scale"] is None
    assert rows["markov-quilt-exact"]["reason"].startswith("not run: markov-quilt-exact needs ~")
    assert rows["exact"]["scale"] == pytest.approx(1.9417513, rel=1e-6)
    assert rows["markov-quilt-approx"]["bdpl"] is not None


def test_fifty_states_refused_or_left_unevaluated(bdpsim_cli):
    P = _chain50()
    p = bdpsim_cli("calibrate", "markov", "--transition", P, "--n", "300", "--epsilon", "1")
    assert p.returncode == 2 and "--transition" in p.stderr and "exact needs ~" in p.stderr
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        P,
        "--n",
        "5000",
        "--epsilon",
        "1",
        "--method",
        "markov-quilt-exact",
    )
    assert p.returncode == 2 and "--n = 5000: markov-quilt-exact needs ~" in p.stderr
    p = bdpsim_cli(
        "calibrate",
        "markov",
        "--transition",
        P,
        "--n",
        "300",
        "--epsilon",
        "1",
        "--method",
        "markov-quilt-approx",
        "--json",
    )
    assert p.returncode == 0, p.stderr
    row = json.loads(p.stdout)
    assert row["scale"] > 0 and row["bdpl"] is None and "exact BDPL not computed" in row["reason"]


def test_library_default_budget_refuses_from_the_estimate(monkeypatch):
    """``bdpsim.calibrate`` had no budget by default: a 24-state chain's exact calibration (~1.6 h
    estimated) started and ran on. The default is :data:`DEFAULT_BUDGET` (an hour): refused before
    any search, with the estimate and how to lift it; ``budget=None`` starts the search."""
    import time

    import bdpsim.calibration.methods as methods
    from bdpsim.calibration.budget import DEFAULT_BUDGET

    assert DEFAULT_BUDGET == 3600.0

    class Started(Exception):
        pass

    def started(*args, **kwargs):
        raise Started

    monkeypatch.setattr(methods, "searched", started)  # a search that starts ends the call here
    P = np.random.default_rng(0).dirichlet(np.full(24, 0.3), size=24)
    m = MarkovChainModel(P, 200)
    t0 = time.process_time()
    with pytest.raises(TooSlow) as err:
        calibrate(m, 1.0)
    assert time.process_time() - t0 < 5.0
    line = str(err.value)
    assert "exact needs ~1.6 h" in line and "at most ~60 min allowed" in line
    assert line.endswith("budget = 3600 estimated s: a larger one, or None for no limit)")
    with pytest.raises(Started):  # no budget: the search starts
        calibrate(m, 1.0, budget=None)
    with pytest.raises(ValueError, match="^budget = 0: must be a number of estimated seconds > 0"):
        calibrate(m, 1.0, budget=0)


def test_library_budget_and_estimates_grow_as_documented():
    m = MarkovChainModel(symmetric_chain(2), 50)
    assert calibrate(m, 1.0, method="markov-quilt-exact").bdpl is not None
    with pytest.raises(TooSlow, match="^model.n = 50: markov-quilt-exact"):
        calibrate(m, 1.0, method="markov-quilt-exact", budget=1e-6)
    assert mqm_exact_seconds(2, 10_000_002) == pytest.approx(100 * mqm_exact_seconds(2, 100_002))
    assert mqm_exact_seconds(50, 1000) > 100 * mqm_exact_seconds(2, 1000)
    small, _ = scan_cost(m, np.array([0.0, 1.0]))
    assert small == scan_cost(MarkovChainModel(symmetric_chain(2), 10_000_000), np.array([0.0, 1.0]))[0]


def _rows(capsys, argv) -> dict:
    from bdpsim.cli import main

    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    return {
        (r["method"], str(r.get("noise"))): {k: v for k, v in r.items() if "seconds" not in k} for r in rows
    }


@pytest.mark.parametrize("command", ["markov", "config"])
def test_the_budget_is_charged_with_estimates_not_the_clock(capsys, monkeypatch, tmp_path, command):
    """Which methods run and which are "not run" depends on the command alone: the same table when
    every reading of the clock jumps 1000 s (a machine loaded past any budget), since the budget
    is charged with the steps' estimates (it was wall time: the second run's rows were "not run"
    or left their exact BDPL out)."""
    import itertools
    import time

    config = tmp_path / "chain.toml"
    config.write_text('[model]\nkind = "markov"\nn = 8\ngamma = 2.0\n')
    argv = {
        "markov": ["calibrate", "markov", "--gamma", "2", "--n", "8", "--epsilon", "1", "--method", "all"],
        "config": ["calibrate", "config", str(config), "--epsilon", "1", "--method", "all"],
    }[command] + ["--json"]
    calm = _rows(capsys, argv)
    ticks = itertools.count()
    monkeypatch.setattr(time, "monotonic", lambda: 1000.0 * next(ticks))
    assert _rows(capsys, argv) == calm
    assert all(not str(r["reason"]).startswith("not run") for r in calm.values())


def test_library_refusals_name_the_model_field_and_the_cli_its_flag(capsys):
    """A budget refusal from a Python call names the model's field (``model.transition``,
    ``model.n``), not a flag of the command line (``--transition``, ``--n``: what ``bdpsim
    calibrate markov`` says, mapped there)."""
    from bdpsim.cli import main

    m = MarkovChainModel(symmetric_chain(2), 50)
    with pytest.raises(TooSlow, match=r"^model.transition = '2 states': exact needs ~.*or a method without"):
        calibrate(m, 1.0, method="exact", budget=1e-9)
    argv = ["calibrate", "markov", "--gamma", "2", "--n", "10000000", "--epsilon", "1"]
    assert main([*argv, "--method", "markov-quilt-exact"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bdpsim: error: --n = 10000000: markov-quilt-exact needs") and "--n" not in err[25:]
