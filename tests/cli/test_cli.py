"""The command line: run, plot, bounds, validate, --help. ``bdpsim`` runs in-process (``bdpsim_cli``)
except in the end-to-end smoke test, which starts ``python -m bdpsim.cli`` as a user would."""

import subprocess
from pathlib import Path

import pytest

from bdpsim.core.errors import ConfigError

from ..conftest import PY, write_toml
from ..support import bad_input
from ..support.bad_config import MARKOV, OK, RUN, cli, one_line_error, toml
from ..support.bad_input import one_line

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
    tests/pipeline/test_workers.py."""
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


def test_bounds_prints_nothing_before_failing(capsys):
    rc, out, err = cli(capsys, "bounds", "markov", "--gamma", "5", "--epsilon", "-1", "--n", "3")
    one_line_error(rc, err, "epsilon")
    assert out == ""


def test_bad_arguments_one_line(tmp_path, capsys):
    cfg = toml(tmp_path, OK)
    (tmp_path / "afile").write_text("x")
    cases = [
        (["run", cfg, "--out", tmp_path / "o", "--backend", "dask", "--scheduler", "garbage"], "--scheduler"),
        (
            [
                "run",
                cfg,
                "--out",
                tmp_path / "o",
                "--backend",
                "dask",
                "--scheduler",
                "http://127.0.0.1:8786",
            ],
            "--scheduler",
        ),
        (["run", cfg, "--out", tmp_path / "afile" / "sub"], "is a file"),
        (["run", cfg, "--out", ""], "--out"),
        (["run", cfg, "--out", "/proc/bdpsim-test/sub"], "--out"),
        (["bounds", "markov", "--transition", "abc", "--epsilon", "1"], "--transition"),
        (["bounds", "markov", "--transition", "[[0.5,0.5],[0.5]]", "--epsilon", "1"], "--transition"),
    ]
    for args, word in cases:
        rc, out, err = cli(capsys, *args)
        one_line_error(rc, err, word)
        assert out == ""
    assert not (tmp_path / "o").exists()


def test_validate_lists_sweeps_and_accepts_utility_configs(tmp_path, capsys):
    cfg = toml(
        tmp_path,
        RUN
        + MARKOV.replace("gamma = 2.0", "gamma = [1.5, 3.0]")
        + '[mechanism]\nkind = "sum"\nstate_values = [0.0, 2.0]\nnoise_scale = 1.0\n',
    )
    rc, out, err = cli(capsys, "validate", cfg)
    assert rc == 0, err
    assert "2 configuration points" in out and "sweep model.gamma = [1.5, 3]" in out
    assert "nan" not in out
    rc, out, err = cli(capsys, "validate", ROOT / "configs" / "utility_galton.toml")
    assert rc == 0 and "utility" in out, err


def test_ctrl_c_while_a_config_is_built(bdpsim_cli, tmp_path, monkeypatch):
    import bdpsim.pipeline.config

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(bdpsim.pipeline.config, "load_config", interrupted)
    out = tmp_path / "o"
    p = bdpsim_cli(
        "run",
        write_toml(tmp_path / "c.toml", bad_input.RUN + bad_input.MARKOV + bad_input.COUNT),
        "--out",
        out,
    )
    one_line(p, "interrupted", code=130)
    assert not out.exists()
    one_line(bdpsim_cli("validate", tmp_path / "c.toml"), "interrupted", code=130)


def test_warnings_never_precede_the_error(capsys):
    import warnings

    from bdpsim.cli import _quietly

    def warns_then_fails():
        warnings.warn("overflow somewhere", RuntimeWarning, stacklevel=2)
        raise ConfigError("model.sigma", 1e200, "too large")

    with pytest.raises(ConfigError):
        _quietly(warns_then_fails)
    assert capsys.readouterr().err == ""
