"""The command line: run, plot, bounds, validate, --help. ``bdpsim`` runs in-process (``bdpsim_cli``)
except in the end-to-end smoke test, which starts ``python -m bdpsim.cli`` as a user would."""

import subprocess
from pathlib import Path

import pytest

from ..conftest import PY

ROOT = Path(__file__).parents[2]


def bdpsim(*args, env, cwd=ROOT):
    return subprocess.run([PY, "-m", "bdpsim.cli", *args], capture_output=True, text=True, env=env, cwd=cwd)


def test_bounds_markov_activity(bdpsim_cli):
    p = bdpsim_cli("bounds", "markov", "--transition", "[[0.882,0.118],[0.305,0.695]]", "--epsilon", "1")
    assert p.returncode == 0
    assert "4 ln gamma = 8.0460" in p.stdout and "6 ln omega = 10.6394" in p.stdout
    assert "needs eps > 4 ln gamma" in p.stdout


def test_bounds_gaussian_galton(bdpsim_cli):
    p = bdpsim_cli("bounds", "gaussian", "--rho", "0.275", "--m", "3", "--epsilon", "1")
    assert p.returncode == 0 and "1.8534" in p.stdout


@pytest.mark.parametrize("cmd", [[], ["run"], ["plot"], ["bounds"], ["bounds", "markov"], ["validate"]])
def test_help_teaches(bdpsim_cli, cmd):
    p = bdpsim_cli(*cmd, "--help")
    assert p.returncode == 0 and "usage:" in p.stdout and len(p.stdout) > 200


def test_run_then_plot(tmp_path, cli_env, bdpsim_cli):
    """End to end, as a user runs it: ``python -m bdpsim.cli run``, then ``plot`` (fresh processes);
    then ``validate`` of the same config (in-process). ``--jobs 2`` through the CLI:
    tests/*/test_bad_config.py."""
    cfg = tmp_path / "c.toml"
    cfg.write_text("""
[run]
seed = 2
adversaries = 20
samples = 3000
estimator = "mixture"
known_sizes = "all"
[model]
kind = "markov"
n = 5
gamma = [1.0, 4.0]
[mechanism]
kind = "count"
epsilon = 1.0
""")
    out = tmp_path / "res"
    p = bdpsim("run", str(cfg), "--out", str(out), "--jobs", "1", env=cli_env)
    assert p.returncode == 0, p.stderr
    assert "2 configurations" in p.stdout
    p = bdpsim("plot", str(out), env=cli_env)
    assert p.returncode == 0, p.stderr
    for ext in ("png", "pdf"):
        f = out / f"bdpl.{ext}"
        assert f.is_file() and f.stat().st_size > 5000
    p = bdpsim_cli("validate", cfg)
    assert p.returncode == 0 and "2 configuration points" in p.stdout
