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


#: a config that warns: its ``[run] bootstrap`` (line 4) is read by no estimator
WARNS = (
    "[run]\nadversaries = 4\nsamples = 1000\nbootstrap = 200\n"
    '[model]\nkind = "markov"\nn = 4\ngamma = [2.0, 3.0]\n[mechanism]\nkind = "count"\nepsilon = 1.0\n'
)


def _said(cfg) -> str:
    return f"{cfg}: [run] bootstrap = 200 is read by no estimator of this run (ignored); remove it"


def test_a_config_warning_is_shown_once_after_success_at_the_config_line(tmp_path, bdpsim_cli):
    """Python's default filters: the warning of a two-point sweep once, after the points, at the
    config's line."""
    cfg = write_toml(tmp_path / "w.toml", WARNS)
    p = bdpsim_cli("validate", cfg)
    assert p.returncode == 0 and "valid, 2 configuration points" in p.stdout
    assert p.stderr.count(_said(cfg)) == 1 and p.stderr.startswith(f"{cfg}:4: UserWarning: {_said(cfg)}")


def test_a_warning_the_filters_make_an_error_is_the_one_line_error(tmp_path, bdpsim_cli):
    """``-W error`` (here ``-W error::UserWarning``): the config's warning is the command's one-line
    error naming it, exit code 2, no traceback; ``run`` writes nothing."""
    cfg = write_toml(tmp_path / "w.toml", WARNS)
    p = bdpsim_cli("validate", cfg, errors=(UserWarning,))
    one_line(p, f"bdpsim: error: {_said(cfg)} (a UserWarning made an error by -W or PYTHONWARNINGS)")
    assert p.stdout == ""
    out = tmp_path / "out"
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet", errors=(UserWarning,))
    one_line(p, _said(cfg))
    assert p.stdout == "" and not out.exists() and sorted(tmp_path.iterdir()) == [cfg]


def test_ignored_warnings_are_not_shown(tmp_path, capsys):
    """``-W ignore``: the command succeeds and says nothing on stderr."""
    import warnings

    from bdpsim.cli import main

    cfg = write_toml(tmp_path / "w.toml", WARNS)
    with warnings.catch_warnings(record=True) as shown:  # what Python would print
        warnings.simplefilter("ignore")
        assert main(["validate", str(cfg)]) == 0
    cap = capsys.readouterr()
    assert "valid, 2 configuration points" in cap.out and cap.err == "" and shown == []


def test_python_W_error_makes_a_config_warning_the_one_line_error(tmp_path, cli_env):
    """End to end, as a user types it: ``python -W error -m bdpsim validate CONFIG``."""
    cfg = write_toml(tmp_path / "w.toml", WARNS)
    p = subprocess.run(
        [PY, "-W", "error", "-m", "bdpsim", "validate", str(cfg)], capture_output=True, text=True, env=cli_env
    )
    one_line(p, f"bdpsim: error: {_said(cfg)} (a UserWarning made an error by -W or PYTHONWARNINGS)")
    assert p.stdout == ""
