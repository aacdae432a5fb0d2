"""Shared by the usability tests (tests/*/test_usability.py).

Issue 21 (a newcomer's second trial): what a new user and the hostile catalogue found —
released locks, misleading messages, hostile inputs of ``calibrate``/``bounds``/``utility``/
``worst-case``/``plot``, help text, and the adversary table reader."""

import pytest

from bdpsim.pipeline.config import load_config

from ..support.bad_config import OK, cli, toml


# ------------------------------------------------------------------ 11, 13, 15, 18: calibrate and bounds
def calibrate(capsys, *args):
    return cli(capsys, "calibrate", "markov", *args)


# ------------------------------------------------------------------ 12. help text
def _help(capsys, monkeypatch, *args, columns=80):
    monkeypatch.setenv("COLUMNS", str(columns))
    with pytest.raises(SystemExit):
        from bdpsim.cli import main

        main([*args, "--help"])
    return capsys.readouterr().out


def _tiny_accuracy(monkeypatch, calls, interrupt=True):
    """Three cases of the accuracy grid; with ``interrupt``, Ctrl-C while case 1 first runs."""
    from bdpsim.studies import accuracy as A

    cases = A.GRID[:3]
    monkeypatch.setattr(A, "GRID", cases)
    real = A.accuracy_table
    monkeypatch.setattr(A, "accuracy_table", lambda *a, **k: real(*a, cases=cases, **k))
    orig = A._case_errors

    def counted(ci, *args):
        calls.append(ci)
        if interrupt and ci == 1 and calls.count(1) == 1:
            raise KeyboardInterrupt
        return orig(ci, *args)

    monkeypatch.setattr(A, "_case_errors", counted)


# ------------------------------------------------------------------ 9, 18. flags
QUICK = """[run]
seed = 1
adversaries = 30
samples = 5000
estimator = ["kde", "mixture"]
known_sizes = "all"
noise_floor_adversaries = 5
[model]
kind = "markov"
n = 6
gamma = [1.0, 8.0]
[mechanism]
kind = "count"
epsilon = 1.0
"""


def _point(tmp_path, text=OK):
    return load_config(toml(tmp_path, text)).points[0]
