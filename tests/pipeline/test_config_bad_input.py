"""Fourth hostile catalogue (issue 38 item 11), config lines that named the wrong thing: a boolean
called "a float", float rounding refused at ``table_tolerance = 0``, ``markov_quilt`` on a random
field said to need a Markov chain, a table law without pure DP blamed on ``run.epsilon_profile``,
and the config-key reference's rules disagreeing with the code (every ``[run]`` key whose rule is
a bound is probed at the bound)."""

import re

import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.estimators import ESTIMATORS
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.settings import GENERIC_KEYS

from ..conftest import write_toml
from ..support.bad_input import one_line

RUN = '[run]\nseed = 3\nadversaries = 4\nestimator = "exact"\n'
MARKOV = '[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n'
MRF = '[model]\nkind = "mrf"\nstates = 2\ncoupling = 0.5\nedges = [[0, 1], [1, 2], [2, 0], [2, 3]]\n'
COUNT = '[mechanism]\nkind = "count"\nepsilon = 1.0\n'


@pytest.mark.parametrize(
    "value, words",
    [
        ("true", ["= True", "must be an integer", "not a boolean"]),
        ('"1000000"', ["must be an integer", "not a string"]),
        ("[true]", ["not a boolean"]),
        ("1e6", ["not a float", "1_000_000"]),
    ],
)
def test_audit_budget_names_what_it_got(bdpsim_cli, tmp_path, value, words):
    cfg = write_toml(
        tmp_path / "c.toml", RUN.replace('"exact"', '"audit"') + f"audit_budget = {value}\n" + MARKOV + COUNT
    )
    p = bdpsim_cli("validate", cfg)
    one_line(p, "run.audit_budget", *words)
    if value != "1e6":
        assert "float" not in p.stderr


BN = '[model]\nkind = "bayesnet"\nstates = 3\nparents = [[], [0]]\ntable_tolerance = 0\n'


@pytest.mark.parametrize("root", ["[0.1, 0.2, 0.7]", "[0.7, 0.2, 0.1]", "[0.3, 0.3, 0.4]"])
def test_table_tolerance_zero_accepts_float_rounding(bdpsim_cli, tmp_path, root):
    """``sum([0.7, 0.2, 0.1]) == 0.9999999999999999``: exact probabilities, refused before."""
    cpt = f"cpt = [{root}, [{root}, [0.6, 0.3, 0.1], [0.2, 0.2, 0.6]]]\n"
    cfg = write_toml(tmp_path / "c.toml", RUN + BN + cpt + COUNT)
    p = bdpsim_cli("validate", cfg)
    assert p.returncode == 0, p.stderr


def test_table_tolerance_zero_still_refuses_a_real_deviation(bdpsim_cli, tmp_path):
    cpt = "cpt = [[0.1, 0.2, 0.7000001], [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6]]]\n"
    cfg = write_toml(tmp_path / "c.toml", RUN + BN + cpt + COUNT)
    one_line(bdpsim_cli("validate", cfg), "model.cpt[0]", "rows must sum to 1", "table_tolerance = 0")


def test_hmm_initial_with_float_rounding_at_tolerance_zero(bdpsim_cli, tmp_path):
    hmm = (
        '[model]\nkind = "bayesnet"\ntable_tolerance = 0\nhmm = { n = 3, transition = [[0.7, 0.2, '
        "0.1], [0.2, 0.6, 0.2], "
        "[0.1, 0.2, 0.7]], emission = [[0.7, 0.3], [0.5, 0.5], [0.2, 0.8]], initial = [0.7, 0.2, 0.1] }\n"
    )
    cfg = write_toml(tmp_path / "c.toml", RUN + hmm + COUNT)
    p = bdpsim_cli("validate", cfg)
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize(
    "mechanism, words",
    [
        (
            'kind = "markov_quilt"',
            [
                "mechanism.kind = 'markov_quilt'",
                "Bayesian network (kind = 'bayesnet')",
                "not model.kind = 'mrf'",
            ],
        ),
        ('kind = "calibrated"', ["mechanism.kind = 'calibrated'", "not model.kind = 'mrf'"]),
        ('kind = "wasserstein"', ["mechanism.kind = 'wasserstein'", "not model.kind = 'mrf'"]),
    ],
)
def test_calibrated_kinds_on_a_random_field_name_what_they_run_on(bdpsim_cli, tmp_path, mechanism, words):
    cfg = write_toml(tmp_path / "c.toml", RUN + MRF + f"[mechanism]\n{mechanism}\nepsilon = 1.0\n")
    one_line(bdpsim_cli("validate", cfg), *words)


def test_markov_quilt_runs_on_a_bayesian_network(bdpsim_cli, tmp_path):
    """The refusal above is not a claim that only chains work: a network is calibrated."""
    bn = (
        '[model]\nkind = "bayesnet"\nstates = 2\nparents = [[], [0], [1]]\ncpt = [[0.6, 0.4], '
        "[[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.2, 0.8]]]\n"
    )
    cfg = write_toml(tmp_path / "c.toml", RUN + bn + '[mechanism]\nkind = "markov_quilt"\nepsilon = 1.0\n')
    assert bdpsim_cli("validate", cfg).returncode == 0


@pytest.mark.parametrize(
    "noise, words",
    [
        (
            'noise = "table"\nnoise_pmf = [0.25, 0.5, 0.25]\nnoise_offset = -1\n',
            ["mechanism.noise = 'table'", "no pure DP", "finite support", "run.epsilon_profile = eps"],
        ),
        (
            'noise = "gaussian"\nsigma = 1.0\n',
            ["mechanism.noise = 'gaussian'", "no pure DP", "run.epsilon_profile = eps"],
        ),
    ],
)
def test_no_pure_dp_is_the_mechanism_s_not_the_run_s(bdpsim_cli, tmp_path, noise, words):
    mech = '[mechanism]\nkind = "count"\n' + ("epsilon = 1.0\n" if "table" in noise else "") + noise
    cfg = write_toml(tmp_path / "c.toml", RUN + MARKOV + mech)
    p = bdpsim_cli("validate", cfg)
    one_line(p, *words)
    assert not p.stderr.startswith("bdpsim: error: run.epsilon_profile")
    ok = write_toml(tmp_path / "ok.toml", RUN + "epsilon_profile = 1.0\n" + MARKOV + mech)
    assert bdpsim_cli("validate", ok).returncode == 0  # the way out the line names works


# ------------------------------------------------------------------ the reference's rules are the code's
BOUND = re.compile(r"^(>=|>) (-?\d+(?:\.\d+)?)\b")


def _bounded_keys():
    for est in ESTIMATORS:
        keys = dict(ESTIMATORS[est].keys) if est == "exact" else {**GENERIC_KEYS, **ESTIMATORS[est].keys}
        for name, key in keys.items():
            m = BOUND.match(key.rule or "")
            if m and key.type in ("int", "float", "strict_int"):
                yield pytest.param(est, name, key, m.group(1), float(m.group(2)), id=f"{est}-{name}")


@pytest.mark.parametrize("est, name, key, op, bound", list(_bounded_keys()))
def test_run_key_rule_agrees_with_the_code(est, name, key, op, bound):
    """A ``[run]`` key whose reference rule is ``>= b`` accepts ``b``; ``> b`` refuses it; below ``b``
    is refused either way (``mixture_target_width`` said "> 0" and took 0; ``mixture_max_samples``
    said ">= run.samples" and took 1; ``eval_points`` said ">= 10" and took 9)."""
    b = bound if key.type == "float" else int(bound)
    below = b - 0.5 if key.type == "float" else b - 1

    def accepted(v) -> bool:
        run = {"seed": 1, "adversaries": 2, "estimator": est, name: v}
        if est in ("kde", "mixture") and name != "samples":
            run["samples"] = 1000
        doc = {
            "run": run,
            "model": {"kind": "markov", "n": 4, "gamma": 2.0},
            "mechanism": {"kind": "count", "epsilon": 1.0},
        }
        try:
            parse_config(doc)
            return True
        except ConfigError as err:
            assert f"run.{name}" in str(err), str(err)
            return False

    assert accepted(b) == (op == ">="), (name, key.rule, b)
    assert not accepted(below), (name, key.rule, below)


def test_the_disputed_rules_are_bounds_the_probe_reads():
    """The three rules the issue found wrong are plain bounds now, so the probe above covers them
    (``mixture_max_samples`` said ">= run.samples", which no value of the key can be checked against)."""
    probed = {p.values[1] for p in _bounded_keys()}
    assert {"mixture_target_width", "mixture_max_samples", "eval_points"} <= probed
