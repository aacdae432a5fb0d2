"""Driver: identical numbers for any --jobs and either backend; resume after a kill; metadata."""

import csv
import gzip
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from bdpsim.pipeline import results as R
from bdpsim.pipeline.config import load_config
from bdpsim.pipeline.driver import run_experiment

from ..conftest import PY
from ..support.bad_config import OK, toml
from ..support.configs import KDE_AND_MIXTURE

CONFIG = 'title = "determinism"\n' + KDE_AND_MIXTURE

GAUSS = """
[run]
seed = 5
adversaries = 10
samples = 3000
estimator = "mixture"
noise_floor_adversaries = 3
[model]
kind = "gaussian"
n = 4
rho = 0.2
[mechanism]
kind = "clipped_sum"
epsilon = 1.0
clip = [0.0, 10.0]
"""


def table(out: Path):
    with open(out / "summary.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r.pop("seconds")
    with gzip.open(out / "adversaries.csv.gz", "rt") as fh:
        adv = fh.read()
    return rows, adv


@pytest.fixture(scope="module")
def configs(tmp_path_factory):
    d = tmp_path_factory.mktemp("cfg")
    (d / "markov.toml").write_text(CONFIG)
    (d / "gauss.toml").write_text(GAUSS)
    return d


@pytest.mark.parametrize("name", ["markov", "gauss"])
def test_same_numbers_for_any_jobs_and_dask(tmp_path, configs, name):
    cfg = load_config(configs / f"{name}.toml")
    run_experiment(cfg, tmp_path / "j1", jobs=1, progress=False)
    run_experiment(cfg, tmp_path / "j2", jobs=2, progress=False)
    ref = table(tmp_path / "j1")
    assert table(tmp_path / "j2") == ref
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        run_experiment(
            cfg,
            tmp_path / "dask",
            jobs=2,
            backend="dask",
            scheduler=cluster.scheduler_address,
            progress=False,
        )
    assert table(tmp_path / "dask") == ref
    assert len(ref[0]) == len(cfg.points)
    for r in ref[0]:
        assert float(r["bdpl_p99_ci_low"]) <= float(r["bdpl_p99"]) <= float(r["bdpl_p99_ci_high"])


def test_metadata_records_config_seed_versions_revision(tmp_path, configs):
    cfg = load_config(configs / "markov.toml")
    run_experiment(cfg, tmp_path, jobs=1, progress=False)
    meta = json.loads((tmp_path / "metadata.json").read_text())
    assert meta["status"] == "complete" and meta["seed"] == 11
    assert meta["config"]["model"]["gamma"] == [2.0, 6.0]
    assert meta["versions"]["fastkde"] not in ("editable", "") and "numpy" in meta["versions"]
    assert meta["git_revision"]
    assert {p["id"] for p in meta["points"]} == {p.id for p in cfg.points}
    summary = (tmp_path / "summary.csv").read_text().splitlines()
    assert len(summary) == 1 + len(cfg.points)
    header = summary[0].split(",")
    for col in [
        "model",
        "n",
        "epsilon",
        "rho",
        "gamma",
        "clip_low",
        "clip_high",
        "estimator",
        "n_adversaries",
        "n_samples",
        "bdpl_p99",
        "bdpl_p99_ci_low",
        "bdpl_p99_ci_high",
        "bdpl_max",
        "bdpl_median",
        "noise_floor",
        "bound_general",
        "bound_model",
        "bound_zhao",
        "seconds",
    ]:
        assert col in header


def test_killed_run_resumes_with_same_numbers(tmp_path, cli_env, bdpsim_cli):
    """``bdpsim run`` killed (SIGKILL, a fresh process), then the same command resumes (in-process)."""
    cfg = tmp_path / "kill.toml"
    cfg.write_text(
        CONFIG.replace("adversaries = 12", "adversaries = 40")
        .replace("samples = 4000", "samples = 20000")
        .replace("gamma = [2.0, 6.0]", "gamma = [2.0, 4.0, 6.0]")
    )
    out = tmp_path / "killed"
    cmd = [PY, "-m", "bdpsim.cli", "run", str(cfg), "--out", str(out), "--jobs", "1", "--quiet"]
    proc = subprocess.Popen(
        cmd, env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if list(out.glob("points/*.json")):
            break
        time.sleep(0.05)
    assert proc.poll() is None, "run finished before it could be killed; make the config longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(list((out / "points").glob("*.json")))
    assert 1 <= done_before < 6
    assert json.loads((out / "metadata.json").read_text())["status"] == "running"
    again = bdpsim_cli(*cmd[3:])
    assert again.returncode == 0, again.stderr
    assert f"resuming: {done_before} of 6" in again.stderr
    fresh = tmp_path / "fresh"
    assert bdpsim_cli(*cmd[3:6], fresh, *cmd[7:]).returncode == 0
    assert table(out) == table(fresh)


def test_adversary_streams_are_the_spawn_tree(configs):
    """The draw of adversary j is SeedSequence(seed, spawn_key=(population_key, 2, j)), child j of
    child 2 of child `population_key` of the root; its estimate and noise floor are the two
    children of spawn_key=(key, 0, j)."""
    import numpy as np

    p = load_config(configs / "markov.toml").points[0]
    node = lambda k: np.random.SeedSequence(p.seed, spawn_key=(k,))  # noqa: E731
    tree = [node(p.population_key).spawn(3)[2].spawn(4)[3], *node(p.key).spawn(1)[0].spawn(4)[3].spawn(2)]
    got = p.adversary_streams(3)
    for g, s in zip(got, tree):
        assert g.random() == np.random.default_rng(s).random()


def test_heartbeat_lines_without_a_terminal(tmp_path):
    slow = OK.replace("adversaries = 6", "adversaries = 60").replace('"mixture"', '"kde"')
    log: list[str] = []
    run_experiment(
        load_config(toml(tmp_path, slow)), tmp_path / "o", progress=False, log=log.append, heartbeat=0.2
    )
    beats = [m for m in log if m.startswith("bdpsim run: ")]
    assert beats and all("tasks" in m and "s elapsed" in m for m in beats), log


def test_resume_recomputes_damaged_points(tmp_path):
    cfg = load_config(toml(tmp_path, OK.replace("gamma = 2.0", "gamma = [1.5, 2.0, 3.0]")))
    out = tmp_path / "o"
    first = run_experiment(cfg, out, progress=False, log=lambda m: None)
    rows = gzip.decompress((out / "adversaries.csv.gz").read_bytes()).decode().splitlines()
    a, b, c = (R.point_paths(out, p.id) for p in cfg.points)
    a[1].write_bytes(a[1].read_bytes()[:20])  # truncated gzip
    b[0].write_text('{"point_id": "someone-else"}')  # foreign marker
    c[1].write_bytes(gzip.compress(b"", mtime=0))  # empty (rows missing), still valid gzip
    log: list[str] = []
    again = run_experiment(cfg, out, progress=False, log=log.append)
    assert sum("recomputing" in m for m in log) == 3, log
    assert not any("resuming" in m for m in log)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]
    assert strip(again) == strip(first)
    assert gzip.decompress((out / "adversaries.csv.gz").read_bytes()).decode().splitlines() == rows


def test_ctrl_c_marks_metadata_interrupted(tmp_path, cli_env):
    slow = (
        OK.replace("adversaries = 6", "adversaries = 10")
        .replace('"mixture"', '"kde"')
        .replace("samples = 1000", "samples = 20000")
        .replace("gamma = 2.0", "gamma = {linspace = [1.5, 5.25, 16]}")
    )
    cfg = toml(tmp_path, slow)
    out = tmp_path / "o"
    proc = subprocess.Popen(
        [PY, "-m", "bdpsim.cli", "run", str(cfg), "--out", str(out), "--quiet"],
        env=cli_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    meta = out / "metadata.json"
    # Ctrl-C once the first configuration is saved: mid-run, past the modules the run imports lazily.
    # (A fixed 0.5 s after metadata.json could land inside such an import on a loaded machine: a
    # traceback and exit 1, or, when it landed in code exec'd from a string, exit by SIGINT.)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and not list(out.glob("points/*.json")):
        time.sleep(0.05)
    assert proc.poll() is None, "run finished before it could be interrupted; make the config longer"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert json.loads(meta.read_text())["status"] == "interrupted"
    assert "re-run the same command to resume" in err
