"""User mechanisms (``[mechanism] kind = "python"``, bdpsim.mechanisms.custom): a module beside the
config, functions that exit, return complex or constant values or fail to import, each answered in
one line naming ``mechanism.function``; ``os._exit`` restored after a user call."""

import uuid

import pytest

from ..support.bad_config import MECH, OK, ROOT, cli, one_line_error, python_config, toml
from ..support.bad_input import MECHANISMS, _user_config, one_line


def test_os_exit_is_restored_after_a_user_call():
    import os

    from bdpsim.mechanisms.custom import ExitCalled, no_exit

    real = os._exit
    with pytest.raises(ExitCalled):
        with no_exit():
            os._exit(3)
    assert os._exit is real


def test_constant_user_mechanism_names_its_function(tmp_path, capsys):
    (tmp_path / "mine.py").write_text(
        "import numpy as np\n\ndef flat(data, rng):\n    return np.zeros(data.shape[0])\n"
    )
    cfg = OK.replace('"mixture"', '"kde"').replace(
        '[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = [1]\n',
        '[mechanism]\nkind = "python"\nfunction = "mine:flat"\n',
    )
    rc, _, err = cli(capsys, "run", toml(tmp_path, cfg), "--out", tmp_path / "o", "--quiet")
    one_line_error(rc, err, "mechanism.function = 'mine:flat'", "same value", "no noise")


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
