"""Hostile Dask clusters (issue 21 item 17), each against a real ``dask.distributed`` scheduler
started here: a scheduler without workers, a worker that cannot import bdpsim, a port that is not
a Dask scheduler. Each: one line, exit code 2, within ~30 s, nothing written."""

import functools
import subprocess
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ..support.bad_config import OK, cli, one_line_error, toml
from ..support.bad_input import MECHANISMS, _user_config, one_line

pytest.importorskip("distributed")

LIMIT = 30.0


def _spawn(args, cwd, env=None):
    return subprocess.Popen(
        [sys.executable, "-m", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(proc, text, seconds=60.0) -> str:
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        line = proc.stderr.readline()
        if text in line:
            return line
        if not line and proc.poll() is not None:
            break
    raise RuntimeError(f"{text!r} not seen")


def _stop(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture
def scheduler(tmp_path):
    """A scheduler without workers, in its own process; yields its address."""
    proc = _spawn(
        ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"], tmp_path
    )
    try:
        addr = _wait_for(proc, "Scheduler at:").split("Scheduler at:")[1].strip()
        threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep its pipe drained
        yield addr
    finally:
        _stop(proc)


def _run_fails(capsys, tmp_path, address, *words):
    out = tmp_path / "o"
    t0 = time.monotonic()
    rc, stdout, err = cli(
        capsys,
        "run",
        toml(tmp_path, OK),
        "--out",
        out,
        "--backend",
        "dask",
        "--scheduler",
        address,
        "--quiet",
    )
    took = time.monotonic() - t0
    one_line_error(rc, err, "--scheduler", *words)
    assert took < LIMIT, took
    assert not out.exists() and stdout == ""


def test_scheduler_without_workers(capsys, tmp_path, scheduler):
    _run_fails(capsys, tmp_path, scheduler, "has no worker after")


#: a dask worker in an interpreter where ``import bdpsim`` fails, as on a machine without it: bdpsim
#: is installed here (the README's ``pip install -e``), so the worker blocks the import itself
#: (``sys.modules["bdpsim"] = None`` makes every ``import bdpsim...`` raise ImportError)
WORKER_WITHOUT_BDPSIM = (
    "import sys; sys.modules['bdpsim'] = None; sys.argv[0] = 'dask-worker'; "
    "from distributed.cli.dask_worker import main; main()"
)


def test_worker_that_cannot_import_bdpsim(capsys, tmp_path, scheduler):
    probe = subprocess.run(
        [sys.executable, "-c", WORKER_WITHOUT_BDPSIM.split("; sys.argv")[0] + "; import bdpsim"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert (
        probe.returncode != 0 and "import of bdpsim halted" in probe.stderr
    )  # the worker's interpreter cannot import it
    worker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            WORKER_WITHOUT_BDPSIM,
            scheduler,
            "--nthreads",
            "1",
            "--no-nanny",
            "--no-dashboard",
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(worker, "Registered to")
        threading.Thread(target=worker.stderr.read, daemon=True).start()
        _run_fails(capsys, tmp_path, scheduler, "cannot import bdpsim", "install bdpsim on every worker")
    finally:
        _stop(worker)


def test_port_that_is_not_a_dask_scheduler(capsys, tmp_path):
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a, **k: None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        _run_fails(capsys, tmp_path, f"tcp://127.0.0.1:{httpd.server_address[1]}", "is not a Dask scheduler")
    finally:
        httpd.shutdown()


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
