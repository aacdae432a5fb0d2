"""Bad input: probes of the cli layer."""

import subprocess
import sys

import pytest

from ..conftest import ROOT
from ..support.bad_input import (
    _parsers,
)


def test_os_exit_is_restored_after_a_user_call():
    import os

    from bdpsim.mechanisms.custom import ExitCalled, no_exit

    real = os._exit
    with pytest.raises(ExitCalled):
        with no_exit():
            os._exit(3)
    assert os._exit is real


def test_benchmark_window_refuses_a_committed_json():
    """The script refuses before measuring anything (exit 2, one line), in the real checkout."""
    if not (ROOT / ".git").exists():
        pytest.fail("tests run from a git checkout (the README's flow)")
    p = subprocess.run(
        [sys.executable, "scripts/benchmark_window.py"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 2 and "committed to git" in p.stderr and p.stdout == "", p
    assert p.stderr.count("\n") == 1


def test_committed_files_outside_a_checkout(tmp_path):
    from bdpsim.pipeline.results import committed_files

    assert committed_files(tmp_path) == [] and committed_files(tmp_path / "missing") == []


def test_every_option_has_help():
    missing = [
        (" ".join(path), a.option_strings)
        for path, parser in _parsers()
        for a in parser._actions
        if a.option_strings and not a.help
    ]
    assert missing == []
