"""Usability: probes of the pipeline layer."""

import threading

import pytest

from bdpsim.pipeline import results as R
from bdpsim.pipeline.config import load_config
from bdpsim.pipeline.driver import run_experiment

from ..support.bad_config import OK, cli, one_line_error, toml


# ------------------------------------------------------------------ 2. the lock is released
def test_finished_run_leaves_no_lock(tmp_path, capsys):
    out = tmp_path / "o"
    rc, _, err = cli(capsys, "run", toml(tmp_path, OK), "--out", out, "--quiet")
    assert rc == 0, err
    assert not (out / R.LOCK_NAME).exists()
    assert sorted(p.name for p in out.iterdir()) == [
        "adversaries.csv.gz",
        "metadata.json",
        "points",
        "summary.csv",
    ]


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


# ------------------------------------------------------------------ 3. bundled configs
@pytest.mark.smoke
def test_bundled_config_runs_by_name_from_any_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli(capsys, "validate", "quickstart")
    assert rc == 0 and "valid, 8 configuration points" in out, err
    rc, out, err = cli(capsys, "validate", "utility_galton.toml")
    assert rc == 0, err
    rc, out, err = cli(capsys, "run", "configs/quickstart.toml", "--out", tmp_path / "o")
    one_line_error(rc, err, "file not found", "bundled configs: ", "quickstart", "bdpsim configs --copy DIR")
    assert not (tmp_path / "o").exists()


@pytest.mark.smoke
def test_configs_lists_and_copies(tmp_path, capsys):
    from bdpsim.core import bundled

    rc, out, _ = cli(capsys, "configs")
    assert rc == 0
    names = [line.split()[0] for line in out.splitlines()[:-1]]
    assert names == bundled.config_names() and "quickstart" in names
    rc, out, _ = cli(capsys, "configs", "--copy", tmp_path / "mine")
    assert rc == 0 and sorted(p.name for p in (tmp_path / "mine").iterdir()) == [f"{n}.toml" for n in names]
    (tmp_path / "mine" / "quickstart.toml").write_text("# edited")
    rc, _, err = cli(capsys, "configs", "--copy", tmp_path / "mine")
    one_line_error(rc, err, "--copy", "already holds", "nothing copied")
    assert (tmp_path / "mine" / "quickstart.toml").read_text() == "# edited"


def test_one_copy_of_each_config_and_it_is_package_data():
    """configs/ is a link to bdpsim/configs/ (no duplicate), and the wheel's package data covers
    every bundled config and data file (checked on the declaration: building a wheel needs the
    network for its build requirements)."""
    import fnmatch
    import tomllib

    from bdpsim.core import bundled

    from ..conftest import ROOT

    assert (ROOT / "configs").resolve() == bundled.CONFIG_DIR
    assert (ROOT / "tests" / "data" / "galton.csv").resolve() == bundled.DATA_DIR / "galton.csv"
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "bdpsim"
    ]
    shipped = [
        p.relative_to(bundled.HERE).as_posix()
        for d in (bundled.CONFIG_DIR, bundled.DATA_DIR)
        for p in d.iterdir()
    ]
    assert shipped and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in shipped), shipped


def test_directory_as_config_says_so(tmp_path, capsys):  # 18
    (tmp_path / "a.toml").write_text("")
    for cmd in ("run", "validate", "utility"):
        rc, _, err = cli(capsys, cmd, tmp_path)
        one_line_error(rc, err, "is a directory, not a config file", "a.toml")


def test_api_run_takes_a_bundled_name(monkeypatch):
    import bdpsim
    from bdpsim import api

    seen = {}
    monkeypatch.setattr(
        api, "load_config", lambda p: seen.setdefault("path", p) and (_ for _ in ()).throw(KeyError)
    )
    with pytest.raises(KeyError):
        bdpsim.run("quickstart")
    assert seen["path"].name == "quickstart.toml" and seen["path"].is_file()


# ------------------------------------------------------------------ 10. a reader for adversaries.csv.gz
def test_load_adversaries_types(tmp_path, capsys):
    import bdpsim

    out = tmp_path / "o"
    rc, _, err = cli(capsys, "run", toml(tmp_path, OK), "--out", out, "--quiet")
    assert rc == 0, err
    rows = bdpsim.load_adversaries(out, as_frame=False)
    assert len(rows) == 6
    for r in rows:
        assert isinstance(r["known"], tuple) and all(isinstance(k, int) for k in r["known"])
        assert isinstance(r["x_known"], tuple) and all(isinstance(v, int) for v in r["x_known"])
        assert len(r["known"]) == len(r["x_known"])
        assert isinstance(r["x"], int) and isinstance(r["x_prime"], int) and isinstance(r["bdpl"], float)
    pd = pytest.importorskip("pandas")
    frame = bdpsim.load_adversaries(out / "adversaries.csv.gz")
    assert isinstance(frame, pd.DataFrame) and frame["x_known"].map(type).eq(tuple).all()


def test_unflagged_run_has_no_flags_column(tmp_path):
    run_experiment(load_config(toml(tmp_path, OK)), tmp_path / "o", progress=False, log=lambda m: None)
    assert "flags" not in (tmp_path / "o" / "summary.csv").read_text().splitlines()[0].split(",")
