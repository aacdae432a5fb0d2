"""Bad input: probes of the pipeline layer."""

import errno
import time

import pytest

from ..conftest import write_toml
from ..support.bad_input import (
    COUNT,
    MARKOV,
    MECHANISMS,
    RUN,
    _user_config,
    one_line,
)


@pytest.mark.parametrize(
    "function, words",
    [
        ("sys_exit_0", ["sys.exit(0)"]),
        ("sys_exit_7", ["sys.exit(7)"]),
        ("os_exit_0", ["os._exit(0)"]),
        ("complex_out", ["complex"]),
    ],
)
def test_user_mechanism_that_exits_at_call(bdpsim_cli, tmp_path, function, words):
    cfg, out = _user_config(tmp_path, MECHANISMS, function)
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet")
    one_line(p, "mechanism.function", f":{function}", *words)
    assert not out.exists() and p.stdout == ""


@pytest.mark.parametrize(
    "body, words",
    [
        ("import sys\nsys.exit(7)\n", "sys.exit(7)"),
        ("import os\nos._exit(0)\n", "os._exit(0)"),
        ("import sys\nsys.exit()\n", "sys.exit(None)"),
    ],
)
def test_user_mechanism_that_exits_at_import(bdpsim_cli, tmp_path, body, words):
    cfg, out = _user_config(tmp_path, body + "def f(data, rng):\n    return data[:, 0]\n", "f")
    p = bdpsim_cli("validate", cfg)
    one_line(p, "mechanism.function", "while being imported", words)
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet")
    one_line(p, "mechanism.function", words)
    assert not out.exists()


def test_user_mechanism_that_kills_its_loky_worker(bdpsim_cli, tmp_path):
    cfg, out = _user_config(tmp_path, MECHANISMS, "kill_in_worker")
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet", "--jobs", "2")
    one_line(p, "mechanism.function", ":kill_in_worker", "worker process died", "SIGKILL")
    assert not (out / "summary.csv").exists()


def test_user_mechanism_that_kills_its_dask_worker_is_not_retried(bdpsim_cli, tmp_path):
    """The local cluster's nanny would restart the worker and the task run again (for ever: joblib's
    Dask backend never hears of the failure): one line within ~30 s instead."""
    pytest.importorskip("distributed")
    cfg, out = _user_config(tmp_path, MECHANISMS, "kill_in_worker")
    t0 = time.monotonic()
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet", "--jobs", "2", "--backend", "dask")
    assert time.monotonic() - t0 < 60
    one_line(p, "mechanism.function", ":kill_in_worker", "worker process died")
    assert not (out / "summary.csv").exists()


def test_run_refuses_to_overwrite_committed_results(bdpsim_cli, checkout):
    cfg = write_toml(checkout / "quickstart.toml", RUN + MARKOV + COUNT)
    p = bdpsim_cli("run", cfg, "--quiet")  # default --out: results/quickstart
    one_line(p, "--out", "results/quickstart", "committed to git", "--overwrite")
    assert (checkout / "results" / "quickstart" / "summary.csv").read_text() == "committed\n"
    p = bdpsim_cli("run", cfg, "--quiet", "--out", "results/quickstart")
    one_line(p, "committed to git")
    p = bdpsim_cli("run", cfg, "--quiet", "--out", "results/mine")  # an untracked directory: fine
    assert p.returncode == 0, p.stderr


def test_run_overwrite_regenerates_committed_results(bdpsim_cli, checkout):
    cfg = write_toml(checkout / "quickstart.toml", RUN + MARKOV + COUNT)
    p = bdpsim_cli("run", cfg, "--quiet", "--overwrite", "--force")
    assert p.returncode == 0, p.stderr
    assert (checkout / "results" / "quickstart" / "summary.csv").read_text().startswith("point_id,")


def test_validate_of_exhaustive_points_and_long_values(bdpsim_cli, tmp_path):
    bn = (
        '[run]\nseed = 1\nadversaries = "all"\nestimator = "exact"\nknown_sizes = "all"\n'
        '[model]\nkind = "bayesnet"\nstates = 2\nparents = [[], [0], [1]]\n'
        "cpt = [[0.6, 0.4], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.25, 0.75]]]\n"
        '[mechanism]\nkind = "count"\nepsilon = 1.0\n[[variants]]\n[[variants]]\n'
        "model = {cpt = [[0.5, 0.5], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.25, 0.75]]]}\n"
    )
    p = bdpsim_cli("validate", write_toml(tmp_path / "bn.toml", bn))
    assert p.returncode == 0, p.stderr
    assert "~0 B" not in p.stdout and "~0 units" not in p.stdout
    assert "sweep model.cpt = 2 values: #1 " in p.stdout
    points = [line for line in p.stdout.splitlines() if "model=bayesnet" in line]
    assert [line.split("cpt=")[1].split()[0] for line in points] == ["#1", "#2"]
    assert max(map(len, p.stdout.splitlines())) < 160


# ------------------------------------------------------------------ 14. disks, directories, Ctrl-C, types
def test_full_disk_while_writing_a_point(bdpsim_cli, tmp_path, monkeypatch):
    from bdpsim.pipeline import results as R

    def full(out, pid, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(out / "points" / f"{pid}.json"))

    monkeypatch.setattr(R, "save_point", full)  # the one write of a point's record
    out = tmp_path / "o"
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out, "--quiet")
    one_line(p, "--out", "No space left on device", "re-run to resume")
    assert not (out / "summary.csv").exists()


def test_ctrl_c_while_a_config_is_built(bdpsim_cli, tmp_path, monkeypatch):
    import bdpsim.pipeline.config

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(bdpsim.pipeline.config, "load_config", interrupted)
    out = tmp_path / "o"
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out)
    one_line(p, "interrupted", code=130)
    assert not out.exists()
    one_line(bdpsim_cli("validate", tmp_path / "c.toml"), "interrupted", code=130)
