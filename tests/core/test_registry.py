"""The plug-in registries and the loading of installed plug-ins (entry points of the group
``bdpsim.plugins``), with real installed distributions: a ``*.dist-info`` directory declaring the
entry points and the plug-in modules beside it, in a temporary directory on ``sys.path`` (what
``pip install`` of a plug-in package leaves behind), read by :mod:`importlib.metadata` itself.

One broken, unrelated plug-in must not stop every run: it is skipped with one warning naming its
entry point, its module and the error; a plug-in cannot replace a built-in kind, whatever class
its entry has; a plug-in raising ``SystemExit`` or ``KeyboardInterrupt`` at import is named like
any other broken one (a real Ctrl-C still interrupts).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from bdpsim.calibration import Method, register_calibration_method
from bdpsim.calibration.methods import CALIBRATION_METHODS
from bdpsim.core import registry
from bdpsim.core.errors import ConfigError
from bdpsim.models import MODEL_KINDS, register_model_kind
from bdpsim.pipeline.config import parse_config

ROOT = Path(__file__).resolve().parents[2]
CONFIG = {
    "run": {"adversaries": "all", "estimator": "exact"},
    "model": {"kind": "markov", "n": 4, "gamma": 3.0},
    "mechanism": {"kind": "count", "epsilon": 1.0},
}

#: plug-in modules: name -> source (each is importable from the distribution's directory)
MODULES = {
    "hp_broken": "raise ZeroDivisionError('division by zero in the plug-in')\n",
    "hp_missing_dep": "import hp_no_such_dependency  # noqa: F401\n",
    "hp_quits": "import sys\nsys.exit(3)\n",
    "hp_interrupts": "raise KeyboardInterrupt\n",
    "hp_sigint": "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(5)\n",
    "hp_markov": textwrap.dedent(
        """\
        from bdpsim.models import MODEL_KINDS, register_model_kind

        register_model_kind(type(MODEL_KINDS["markov"])())  # the built-in class, a new entry
        """
    ),
    "hp_exact_method": textwrap.dedent(
        """\
        from bdpsim.calibration import Method, register_calibration_method

        register_calibration_method(Method("exact", lambda problem: None, "not the exact method"))
        """
    ),
    "hp_good": textwrap.dedent(
        """\
        from bdpsim.calibration import Method, register_calibration_method
        from bdpsim.calibration.methods import CALIBRATION_METHODS

        register_calibration_method(
            Method("hp-good", CALIBRATION_METHODS["exact"].run, "the exact method, renamed")
        )
        """
    ),
}


def install(where: Path, **entry_points: str) -> Path:
    """Write an installed distribution ``hp-plugins`` into ``where``: its ``dist-info`` declaring
    ``entry_points`` (name -> module) in the group ``bdpsim.plugins``, and the modules."""
    info = where / "hp_plugins-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hp-plugins\nVersion: 0.1\n")
    lines = [f"{name} = {module}" for name, module in entry_points.items()]
    (info / "entry_points.txt").write_text(f"[{registry.PLUGIN_GROUP}]\n" + "\n".join(lines) + "\n")
    for module in set(entry_points.values()):
        (where / f"{module}.py").write_text(MODULES[module])
    return where


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """``installed(name=module, ...)``: those plug-ins installed in this process (a fresh scan of
    the entry points, as by a new process); the registries are restored afterwards."""
    before = {reg.what: dict(reg) for reg in (MODEL_KINDS, CALIBRATION_METHODS)}

    def put(**entry_points: str) -> None:
        monkeypatch.syspath_prepend(str(install(tmp_path / "site", **entry_points)))
        monkeypatch.setattr(registry, "_scanned", False)
        monkeypatch.setattr(registry, "_skipped", {})

    yield put
    for reg in (MODEL_KINDS, CALIBRATION_METHODS):
        for name in set(reg) - set(before[reg.what]):
            reg.pop(name)
    for module in MODULES:
        sys.modules.pop(module, None)


def _load() -> list[str]:
    """The warnings :func:`load_plugins` gives (each must be one line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        registry.load_plugins()
    lines = [str(w.message) for w in caught]
    assert all("\n" not in line for line in lines), lines
    return lines


def test_a_broken_plugin_is_skipped_with_one_warning_naming_it(installed):
    """Before: the first broken plug-in stopped every config with an error. Now it is one warning
    (entry point, module, error) and the others load; a config of built-in kinds runs, and a
    second scan warns no more."""
    installed(broken="hp_broken", nodep="hp_missing_dep", good="hp_good")
    lines = _load()
    assert lines == [
        "plug-in broken (hp_broken): ZeroDivisionError: division by zero in the plug-in; skipped",
        "plug-in nodep (hp_missing_dep): ModuleNotFoundError: No module named 'hp_no_such_dependency'; "
        "skipped",
    ]
    assert "hp-good" in CALIBRATION_METHODS
    assert parse_config(CONFIG).points[0].model.kind == "markov"
    assert _load() == []


def test_the_skipped_plugin_warning_points_at_the_caller_outside_bdpsim(installed):
    """Its location is the user's call (here: this file's ``parse_config``), not a line of bdpsim
    (it was ``bdpsim/pipeline/config.py``, the caller of the scan)."""
    installed(broken="hp_broken")
    with pytest.warns(UserWarning, match="plug-in broken") as caught:
        parse_config(CONFIG)
    assert [w.filename for w in caught] == [__file__]


def test_a_kind_of_a_skipped_plugin_is_refused_naming_the_plugin(installed):
    installed(copies="hp_broken")
    _load()
    with pytest.raises(ConfigError) as err:
        parse_config({**CONFIG, "model": {"kind": "copies", "n": 4}})
    assert str(err.value).endswith(
        "skipped plug-ins: copies (hp_broken): ZeroDivisionError: division by zero in the plug-in"
    )


@pytest.mark.parametrize(
    ("module", "why"),
    [("hp_quits", "called exit(3) at import"), ("hp_interrupts", "KeyboardInterrupt")],
)
def test_a_plugin_ending_the_process_at_import_is_named(installed, module, why):
    """Before: ``SystemExit`` ended ``bdpsim run`` with no line, and ``KeyboardInterrupt`` printed
    a false "interrupted". Now both are a broken plug-in's warning and the run goes on."""
    installed(quitter=module, good="hp_good")
    assert _load() == [f"plug-in quitter ({module}): {why}; skipped"]
    assert "hp-good" in CALIBRATION_METHODS


def test_a_real_ctrl_c_during_a_plugin_import_still_interrupts(installed):
    """A SIGINT arriving while a plug-in imports is the user's: it interrupts (and the next call
    scans again)."""
    installed(slow="hp_sigint")
    with pytest.raises(KeyboardInterrupt):
        registry.load_plugins()
    assert registry._scanned is False


@pytest.mark.parametrize("module", ["hp_markov", "hp_exact_method"])
def test_a_plugin_cannot_replace_a_built_in_kind(installed, module):
    """Before: an entry of a built-in class (a ``Method`` named ``exact``, a new ``MarkovKind``)
    replaced the built-in silently, since the registry compared the entries' classes' modules.
    Now a name bdpsim registers is refused to any other module, by name."""
    held = {"markov": MODEL_KINDS["markov"], "exact": CALIBRATION_METHODS["exact"]}
    installed(shadow=module)
    (line,) = _load()
    name, what, home = (
        ("markov", "model kind", "bdpsim.models.markov.kind")
        if module == "hp_markov"
        else ("exact", "calibration method", "bdpsim.calibration.methods")
    )
    assert line == (
        f"plug-in shadow ({module}): TypeError: {what} {name!r} is built into bdpsim ({home}); "
        f"a plug-in ({module}) cannot replace it: choose another name; skipped"
    )
    assert MODEL_KINDS["markov"] is held["markov"] and CALIBRATION_METHODS["exact"] is held["exact"]


def test_a_built_in_name_is_refused_from_python_too():
    held = CALIBRATION_METHODS["exact"]
    with pytest.raises(TypeError, match=r"calibration method 'exact' is built into bdpsim"):
        register_calibration_method(Method("exact", held.run, "a copy"))
    with pytest.raises(TypeError, match=r"model kind 'markov' is built into bdpsim"):
        register_model_kind(type(MODEL_KINDS["markov"])())
    assert CALIBRATION_METHODS["exact"] is held
    assert CALIBRATION_METHODS.register(held) is held  # the same entry again: no change


def _shell(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """``bdpsim *args`` in a fresh process that has the plug-ins of ``tmp_path/site`` installed."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(ROOT)]))
    return subprocess.run(
        [sys.executable, "-m", "bdpsim.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


def test_bdpsim_validate_goes_on_past_broken_plugins(tmp_path):
    """End to end, in a shell: a broken plug-in, one calling ``exit`` and one raising
    ``KeyboardInterrupt`` at import; ``bdpsim validate quickstart`` names each on one line,
    prints its plan and exits 0 (before: exit 2, exit 3 with no line, "interrupted")."""
    install(tmp_path / "site", broken="hp_broken", quitter="hp_quits", interrupts="hp_interrupts")
    done = _shell(tmp_path, "validate", "quickstart")
    assert done.returncode == 0, done.stderr
    assert "interrupted" not in done.stderr and "configuration points" in done.stdout
    for line in (
        "plug-in broken (hp_broken): ZeroDivisionError: division by zero in the plug-in; skipped",
        "plug-in quitter (hp_quits): called exit(3) at import; skipped",
        "plug-in interrupts (hp_interrupts): KeyboardInterrupt; skipped",
    ):
        assert done.stderr.count(line) == 1, done.stderr
