"""Bad input: probes of the estimators layer."""

import pytest

from ..conftest import write_toml
from ..support.bad_input import (
    COUNT,
    MARKOV,
    RUN,
    one_line,
)


# ------------------------------------------------------------------ 8 and 17. the console table
def test_mixed_estimators_print_their_table(bdpsim_cli, tmp_path):
    cfg = (
        RUN.replace('"mixture"', '["audit", "exact", "mixture"]') + "audit_budget = 20_000\n" + MARKOV + COUNT
    )
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", cfg), "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "3 configurations -> " + str(tmp_path / "o") + "/summary.csv"
    head = lines[1].split()
    assert {"estimator", "bdpl_lower", "exact_max_sampled", "bdpl_all_adversaries"} <= set(head)
    assert [line.split()[0] for line in lines[2:5]] == ["audit", "exact", "mixture"]
    assert lines[5].startswith("exact_max_sampled: the largest exact BDPL among the sampled adversaries")


def test_table_tells_mechanism_variants_apart():
    from bdpsim.cli.table import console_table

    rows = [
        {"estimator": "audit", "mechanism": "count", "noise": "", "n": 3, "epsilon": 1.0, "bdpl_lower": 1.0},
        {"estimator": "audit", "mechanism": "count", "noise": "geometric", "n": 3, "epsilon": 1.0},
        {"estimator": "audit", "mechanism": "histogram", "n": 3, "epsilon": 1.0},
    ]
    lines = console_table(rows, "p99")
    assert lines[0].split()[:2] == ["estimator", "mechanism"]
    assert [line.split()[1] for line in lines[1:]] == ["count", "count/geometric", "histogram"]
    assert all(line == line.rstrip() for line in lines)


@pytest.mark.parametrize("value", ["1e6", "100000.0", "1e300"])
def test_audit_budget_must_be_an_integer(bdpsim_cli, tmp_path, value):
    cfg = RUN.replace('"mixture"', '"audit"') + f"audit_budget = {value}\n" + MARKOV + COUNT
    one_line(
        bdpsim_cli("validate", write_toml(tmp_path / "c.toml", cfg)), "run.audit_budget", "must be an integer"
    )


def test_a_too_costly_audit_names_its_budget(bdpsim_cli, tmp_path):
    cfg = RUN.replace('"mixture"', '"audit"') + "audit_budget = 1_000_000_000_000_000\n" + MARKOV + COUNT
    one_line(
        bdpsim_cli("validate", write_toml(tmp_path / "c.toml", cfg)), "run.audit_budget = 1000000000000000"
    )
