"""The bundled configs (bdpsim.core.bundled): run by name from any directory, listed and copied by
``bdpsim configs``, one copy shipped as package data, a directory given as a config named as such."""

import pytest

from ..support.bad_config import cli, one_line_error


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


def test_directory_as_config_says_so(tmp_path, capsys):
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
