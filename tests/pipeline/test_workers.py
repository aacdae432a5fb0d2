"""Fourth hostile catalogue (issue 38 item 11), worker processes: ``--jobs`` far above the CPUs and
the tasks started that many workers (a fork storm) — now capped, with one line saying so; after
``kill -9`` of ``bdpsim run`` its busy pool workers stayed alive — now they exit within a second."""

import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.pipeline import watchdog
from bdpsim.pipeline.config import load_config
from bdpsim.pipeline.driver import run_experiment
from bdpsim.pipeline.watchdog import available_cpus, exit_with_parent, worker_count

from ..conftest import ROOT, write_toml
from ..support.bad_config import MECH, cli, one_line_error, python_config
from ..support.bad_input import MECHANISMS, _user_config, one_line

CONFIG = (
    '[run]\nseed = 3\nadversaries = 4\nestimator = "exact"\n[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n'
    '[mechanism]\nkind = "count"\nepsilon = 1.0\n'
)


@pytest.mark.parametrize(
    "jobs, tasks, cpus, workers, noted",
    [
        (500, 4, 2, 2, True),
        (500, 1, 8, 1, True),
        (4, 100, 8, 4, False),
        (8, 3, 8, 3, False),
        (1, 0, 2, 1, False),
        (3, 100, 2, 2, True),
        (2, 100, 1, 2, False),
        (4, 100, 1, 2, True),
    ],
)
def test_worker_count(jobs, tasks, cpus, workers, noted):
    got, note = worker_count(jobs, tasks, cpus)
    assert got == workers and (note is not None) == noted
    if noted:
        assert f"--jobs {jobs}: using {workers} worker" in note and f"{cpus} CPU" in note


@pytest.mark.parametrize("command", ["run", "accuracy"])
def test_jobs_far_above_cpus_and_tasks_is_capped(bdpsim_cli, tmp_path, monkeypatch, command):
    import joblib

    started = []
    real = joblib.Parallel.__init__

    def spy(self, n_jobs=None, *args, **kw):
        started.append(n_jobs)
        real(self, n_jobs, *args, **kw)

    monkeypatch.setattr(joblib.Parallel, "__init__", spy)
    if command == "run":
        cfg = write_toml(tmp_path / "c.toml", CONFIG)
        p = bdpsim_cli("run", cfg, "--out", tmp_path / "o", "--quiet", "--jobs", "5000")
        assert p.returncode == 0, p.stderr
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("--jobs 5000: using ") and "CPU" in lines[0], p.stderr
    else:
        from bdpsim.studies.accuracy import GRID, accuracy_table

        accuracy_table(samples=(100,), adversaries=2, seed=1, jobs=5000, cases=GRID[:2])
    assert started and max(started) <= min(max(available_cpus(), 2), 4), started


def test_watchdog_only_in_a_child_of_the_driver():
    """In the driver itself (--jobs 1 runs in-process) or under another parent: no watchdog."""
    assert exit_with_parent(os.getpid()) is False
    assert exit_with_parent(os.getppid() + 10**6) is False
    assert os.getpid() not in watchdog._started


MECHANISM = """
import multiprocessing, time

def slow_in_workers(data, rng):
    if multiprocessing.parent_process() is not None:  # a pool worker: busy for a minute
        time.sleep(60)
    return (data == 1).sum(axis=1) + rng.laplace(0.0, 1.0, size=data.shape[0])
"""


def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(d))
    return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc") or available_cpus() < 2, reason="needs /proc and 2 CPUs")
@pytest.mark.parametrize("when", ["starting", "busy"])
def test_workers_exit_when_the_driver_is_killed(tmp_path, when):
    """A real ``bdpsim run --jobs 2`` whose workers are busy for a minute: ``kill -9`` of the driver
    ends them within a few seconds — killed while they start (importing; they would then wait on
    their queue for ever) or while busy (they used to finish their task first). Busy in a user's
    mechanism, the watchdog's exit used to be caught by the guard that stops a mechanism from ending
    its process (``os._exit`` patched to raise): the test failed "under load" for that reason, not
    for its timing."""
    mod = f"slow_mech_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{mod}.py").write_text(MECHANISM)
    cfg = write_toml(
        tmp_path / "c.toml",
        '[run]\nseed = 3\nadversaries = 4\nsamples = 1000\nestimator = "kde"\n'
        'noise_floor_adversaries = 0\n[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n'
        f'[mechanism]\nkind = "python"\nfunction = "{mod}:slow_in_workers"\n',
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"}
    driver = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bdpsim.cli",
            "run",
            str(cfg),
            "--out",
            str(tmp_path / "o"),
            "--quiet",
            "--jobs",
            "2",
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2 and driver.poll() is None:
            workers = [
                c
                for c in _children(driver.pid)
                if "loky" in _cmdline(c) and "resource_tracker" not in _cmdline(c)
            ]
            time.sleep(0.2)
        assert len(workers) == 2, (workers, driver.poll())
        if when == "busy":
            time.sleep(3)  # the workers are inside their first task (sleeping)
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=10)
        # within 30 s: a worker killed while it starts first finishes importing (seconds, more on a
        # loaded machine), a busy one would otherwise run its minute-long task to its end
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.2)
        assert not any(_alive(w) for w in workers), [(w, _cmdline(w)) for w in workers if _alive(w)]
    finally:
        if driver.poll() is None:
            driver.kill()
        for w in workers:  # only the processes this test started
            if _alive(w):
                os.kill(w, signal.SIGKILL)


def test_user_mechanism_that_kills_its_loky_worker(bdpsim_cli, tmp_path):
    cfg, out = _user_config(tmp_path, MECHANISMS, "kill_in_worker")
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet", "--jobs", "2")
    one_line(p, "mechanism.function", ":kill_in_worker", "worker process died", "SIGKILL")
    assert not (out / "summary.csv").exists()


def test_failure_mid_run_in_a_worker(tmp_path, capsys):
    """Raised in a loky worker: still the one-line ConfigError; no partial tables; status failed."""
    mod = f"hostile_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{mod}.py").write_text(MECH)
    out = tmp_path / "o"
    rc, _, err = cli(
        capsys, "run", python_config(tmp_path, f"{mod}:big"), "--out", out, "--jobs", "2", "--quiet"
    )
    one_line_error(rc, err, "too big")
    assert not (out / "summary.csv").exists() and not (out / "adversaries.csv.gz").exists()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "failed" and "too big" in meta["error"]


@pytest.mark.timeout(180)
@pytest.mark.parametrize("backend", ["loky", "dask"])
def test_worker_that_cannot_load_the_task(tmp_path, monkeypatch, backend):
    """The user's module importable here but not on the workers: an error, not a broken pool
    (loky) or a client waiting forever (Dask)."""
    if backend == "dask":
        pytest.importorskip("distributed")
    mod = f"hostile_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{mod}_impl.py").write_text(MECH)
    (tmp_path / f"{mod}.py").write_text(
        "import os\nif os.environ.get('HOSTILE_PID') != str(os.getpid()):\n"
        "    raise ImportError('only importable in the client')\n"
        f"from {mod}_impl import ok\n"
    )
    monkeypatch.setenv("HOSTILE_PID", str(os.getpid()))
    cfg = load_config(python_config(tmp_path, f"{mod}:ok"))
    with pytest.raises(ConfigError, match="only importable in the client"):
        run_experiment(cfg, tmp_path / "o", jobs=2, backend=backend, progress=False, log=lambda m: None)
    assert json.loads((tmp_path / "o" / "metadata.json").read_text())["status"] == "failed"
