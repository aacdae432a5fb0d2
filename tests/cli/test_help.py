"""Every command's ``--help`` has a description and an example, and the docs cite sources, not files."""

import argparse
import subprocess

import pytest

from bdpsim.cli import build_parser

from ..conftest import PY, ROOT
from ..support.bad_config import _help


def _walk(parser, path=("bdpsim",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


PARSERS = list(_walk(build_parser()))


def _parsers():
    """Every parser of a fresh ``build_parser()``, by its path of subcommands (``[]``: the top one)."""
    return list(_walk(build_parser(), ()))


def test_tree_is_walked():
    names = {" ".join(p) for p, _ in PARSERS}
    assert {
        "bdpsim",
        "bdpsim run",
        "bdpsim plot",
        "bdpsim bounds markov",
        "bdpsim worst-case gaussian",
        "bdpsim calibrate",
    } <= names
    assert len(names) >= 15


@pytest.mark.parametrize("path,parser", PARSERS, ids=[" ".join(p) for p, _ in PARSERS])
def test_help_has_description_and_example(path, parser):
    assert parser.description and len(parser.description.split()) >= 4, f"{' '.join(path)}: no description"
    assert parser.epilog and "bdpsim " in parser.epilog, f"{' '.join(path)}: no example in the epilog"
    # the example runs the command it documents
    assert any(" ".join(path) in line for line in parser.epilog.splitlines()), parser.epilog
    text = parser.format_help()
    assert parser.description.split()[0] in text and "usage:" in text


@pytest.mark.parametrize("path,parser", PARSERS, ids=[" ".join(p) for p, _ in PARSERS])
def test_help_fits_80_columns(path, parser, monkeypatch):
    """Every command's help, laid out for an 80-column terminal, fits it (examples as written)."""
    monkeypatch.setenv("COLUMNS", "80")
    long = [line for line in parser.format_help().splitlines() if len(line) > 80]
    assert not long, (" ".join(path), long)


def test_every_command_runs_one_way():
    """Each subcommand is one module of bdpsim/cli with ``add_parser(sub)``, and every command the
    parser reaches names the function that runs it (``args.run``): one dispatch style."""
    import inspect

    import bdpsim.cli as cli

    top = {name for path, _ in PARSERS if len(path) == 2 for name in path[1:]}
    assert top == {"run", "validate", "plot", "configs", "bounds", "worst-case", "accuracy", "figures"} | {
        "utility",
        "calibrate",
        "temporal",
        "attack",
        "account",
    }
    assert {m.__name__.rsplit(".", 1)[1] for m in cli.SUBCOMMANDS} == {t.replace("-", "_") for t in top}
    leaves = [
        (path, p)
        for path, p in PARSERS
        if not any(isinstance(a, argparse._SubParsersAction) for a in p._actions)
    ]
    for path, p in leaves:
        run = p.get_default("run")
        assert callable(run) and run.__module__.startswith("bdpsim.cli."), path
    assert len(inspect.getsource(cli.build_parser).splitlines()) <= 25


def test_version_and_python_m_bdpsim(cli_env):
    """``python -m bdpsim`` is the ``bdpsim`` command (as ``python -m bdpsim.cli``)."""
    import bdpsim

    p = subprocess.run([PY, "-m", "bdpsim.cli", "--version"], capture_output=True, text=True, env=cli_env)
    assert p.returncode == 0 and p.stdout.strip() == f"bdpsim {bdpsim.__version__}"
    p = subprocess.run([PY, "-m", "bdpsim", "--help"], capture_output=True, text=True, env=cli_env)
    assert p.returncode == 0 and p.stdout.startswith("usage: bdpsim ") and "temporal" in p.stdout, p.stderr


def test_no_docstring_cites_the_private_spec():
    """The repository has no SCIENCE.md: the package cites the thesis and paper sections."""
    hits = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in sorted((ROOT / "bdpsim").rglob("*.py"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if "SCIENCE" in line
    ]
    assert not hits, hits


def test_every_option_has_help():
    missing = [
        (" ".join(path), a.option_strings)
        for path, parser in _parsers()
        for a in parser._actions
        if a.option_strings and not a.help
    ]
    assert missing == []


@pytest.mark.parametrize("cmd", [["run"], ["validate"], ["plot"], ["figures"], ["utility"], ["configs"], []])
def test_help_examples_are_never_broken(capsys, monkeypatch, cmd):
    text = _help(capsys, monkeypatch, *cmd)
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith("bdpsim ") and line.startswith("  "):  # an example command
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            assert not (nxt and not nxt.startswith(" ") and nxt[0] == "-"), (line, nxt)
    assert not any(line.startswith("--") for line in lines), text  # no option wrapped to column 0


def test_every_help_fits_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    long = {
        " ".join(path) or "bdpsim": max(len(line) for line in parser.format_help().splitlines())
        for path, parser in _parsers()
    }
    assert "calibrate markov" in long and max(long.values()) <= 80, {k: v for k, v in long.items() if v > 80}
