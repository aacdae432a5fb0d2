"""Bad config: probes of the pipeline layer."""

import gzip
import json
import os
import pickle
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.pipeline import results as R
from bdpsim.pipeline.config import load_config
from bdpsim.pipeline.driver import run_experiment

from ..conftest import PY
from ..support.bad_config import (
    BAD_CONFIGS,
    MECH,
    OK,
    ROOT,
    cli,
    one_line_error,
    python_config,
    toml,
)
from ..support.locks import lock_held


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_one_line_nothing_written(tmp_path, capsys, case):
    text, word = BAD_CONFIGS[case]
    cfg = toml(tmp_path, text)
    rc, out, err = cli(capsys, "validate", cfg)
    one_line_error(rc, err, word)
    assert out == ""
    rc, out, err = cli(capsys, "run", cfg, "--out", tmp_path / "out")
    one_line_error(rc, err, word)
    assert not (tmp_path / "out").exists()  # refused up front, not after building or running
    # how quickly: scripts/benchmark_limits.py (a wall-clock assert is flaky on a loaded machine)


def test_limit_names_estimate_and_option_and_can_be_raised(tmp_path, capsys):
    cfg = toml(tmp_path, OK)
    rc, out, _ = cli(capsys, "validate", cfg)
    assert rc == 0 and "estimate: peak memory" in out and "work" in out
    rc, _, err = cli(capsys, "validate", cfg, "--max-memory-gib", "1e-9")
    one_line_error(rc, err, "of memory", "--max-memory-gib")
    rc, _, err = cli(capsys, "run", cfg, "--out", tmp_path / "o", "--max-work", "10")
    one_line_error(rc, err, "work units", "--max-work")
    assert not (tmp_path / "o").exists()


def test_unwritable_out_directory(tmp_path, capsys):
    """An existing directory that cannot be written: a read-only one, or (as root, who may write
    any ordinary directory) /proc/self, which nobody can create files in."""
    locked = Path("/proc/self") if os.geteuid() == 0 else tmp_path / "ro"
    if locked != Path("/proc/self"):
        locked.mkdir()
        locked.chmod(0o500)
    try:
        rc, _, err = cli(capsys, "run", toml(tmp_path, OK), "--out", locked / "o")
        one_line_error(rc, err, "not writable")
    finally:
        if locked != Path("/proc/self"):
            locked.chmod(0o700)


def test_config_error_survives_pickling():
    e = ConfigError("model.rho", lambda: 0, "must be in [0, 1)")
    f = pickle.loads(pickle.dumps(e))
    assert type(f) is ConfigError and str(f) == str(e) and f.field == "model.rho"


# ------------------------------------------------------------------------- user mechanism modules


def test_user_module_beside_config(tmp_path, capsys, monkeypatch):
    mod = f"hostile_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{mod}.py").write_text(MECH)
    (tmp_path / f"{mod}_broken.py").write_text("def f(:\n")
    monkeypatch.chdir(ROOT)  # not the config's directory, and no PYTHONPATH
    rc, _, err = cli(capsys, "run", python_config(tmp_path, f"{mod}:ok"), "--out", tmp_path / "ok", "--quiet")
    assert rc == 0, err
    for func, word in ((f"{mod}:nan", "finite"), (f"{mod}_broken:f", "syntax error")):
        rc, _, err = cli(capsys, "run", python_config(tmp_path, func), "--out", tmp_path / "bad")
        one_line_error(rc, err, word)
        assert not (tmp_path / "bad").exists()


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


# --------------------------------------------------------------------- 6. no hang: worst-case search


def test_files_follow_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        run_experiment(load_config(toml(tmp_path, OK)), tmp_path / "o", progress=False, log=lambda m: None)
    finally:
        os.umask(old)
    for name in ("summary.csv", "adversaries.csv.gz", "metadata.json"):
        assert (tmp_path / "o" / name).stat().st_mode & 0o777 == 0o640


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


def test_foreign_directory_needs_force(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / "thesis.tex").write_text("mine")
    cfg = toml(tmp_path, OK)
    rc, _, err = cli(capsys, "run", cfg, "--out", out, "--quiet")
    one_line_error(rc, err, "--force")
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]
    rc, _, err = cli(capsys, "run", cfg, "--out", out, "--quiet", "--force")
    assert rc == 0, err
    assert (out / "thesis.tex").read_text() == "mine" and (out / "summary.csv").is_file()


def test_concurrent_runs_are_serialised(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    cfg = load_config(toml(tmp_path, OK))
    log: list[str] = []
    with lock_held(out, 1.0):
        t0 = time.perf_counter()
        run_experiment(cfg, out, progress=False, log=log.append)
        assert time.perf_counter() - t0 >= 0.9
    assert any("waiting for another bdpsim run" in m for m in log), log


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


def test_warnings_never_precede_the_error(capsys):
    import warnings

    from bdpsim.cli import _quietly

    def warns_then_fails():
        warnings.warn("overflow somewhere", RuntimeWarning, stacklevel=2)
        raise ConfigError("model.sigma", 1e200, "too large")

    with pytest.raises(ConfigError):
        _quietly(warns_then_fails)
    assert capsys.readouterr().err == ""
