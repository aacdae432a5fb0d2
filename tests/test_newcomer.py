"""Issue 21 (a newcomer's second trial): what a new user and the hostile catalogue found —
released locks, misleading messages, hostile inputs of ``calibrate``/``bounds``/``utility``/
``worst-case``/``plot``, help text, and the adversary table reader."""

import threading

import pytest

from bdpsim import results as R
from bdpsim.config import load_config
from bdpsim.driver import run_experiment

from .test_hostile import OK, cli, one_line_error, toml


# ------------------------------------------------------------------ 2. the lock is released
def test_finished_run_leaves_no_lock(tmp_path, capsys):
    out = tmp_path / "o"
    rc, _, err = cli(capsys, "run", toml(tmp_path, OK), "--out", out, "--quiet")
    assert rc == 0, err
    assert not (out / R.LOCK_NAME).exists()
    assert sorted(p.name for p in out.iterdir()) == ["adversaries.csv.gz", "metadata.json", "points", "summary.csv"]


def test_lock_waiter_survives_the_holder_removing_the_file(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    held, release, order = threading.Event(), threading.Event(), []

    def holder():
        with R.run_lock(out):
            held.set()
            release.wait(10)
            order.append("first done")

    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    threading.Timer(0.5, release.set).start()
    with R.run_lock(out) as path:
        order.append("second holds")
        assert path.exists()  # the file the second run holds is the one at the path
    t.join()
    assert order == ["first done", "second holds"]
    assert not (out / R.LOCK_NAME).exists()
