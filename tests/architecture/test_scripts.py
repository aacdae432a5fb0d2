"""The maintainer scripts (``scripts/``): sorted into folders by purpose, each file's first line
says what it is for and ``scripts/README.md`` lists exactly those lines, every ``scripts/...`` path
the repository names exists, and a script that imports a shared module runs from any directory."""

import ast
import re
import subprocess
import sys

import pytest

from ..conftest import ROOT

SCRIPTS = ROOT / "scripts"
FOLDERS = ("benchmarks", "checks", "findings", "readme")
#: the modules the scripts of every folder import, at scripts/ itself
SHARED = ("blackbox_mechanisms.py", "fresh_python.py", "script_out.py")
#: the files outside scripts/ that name scripts by their path (the changelogs keep the old paths)
NAMING = ("README.md", "CONTRIBUTING.md", "pyproject.toml", ".ci/run", "docs/**/*.md", "docs/**/*.py")


def _scripts() -> list:
    return sorted(
        p
        for p in SCRIPTS.rglob("*")
        if p.is_file() and not p.is_symlink() and p.suffix in (".py", ".sh") and "__pycache__" not in p.parts
    )


def _purpose(path) -> str:
    """The first line of the module docstring (a shell script's: its second line, a comment)."""
    if path.suffix == ".sh":
        return path.read_text().splitlines()[1].removeprefix("#").strip()
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.split("\n\n")[0]


def test_every_script_sits_in_a_folder_by_purpose():
    loose = [p.name for p in SCRIPTS.iterdir() if p.is_file() and not p.is_symlink()]
    assert sorted(loose) == sorted([*SHARED, "README.md"]), loose
    folders = sorted(p.name for p in SCRIPTS.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(FOLDERS)
    links = [p for p in SCRIPTS.iterdir() if p.is_symlink()]
    assert all(p.resolve().parent.parent == SCRIPTS.resolve() for p in links), links  # into a folder


@pytest.mark.parametrize("path", _scripts(), ids=lambda p: str(p.relative_to(SCRIPTS)))
def test_every_script_says_what_it_is_for_in_one_line(path):
    line = _purpose(path)
    assert line and "\n" not in line and len(line) <= 106, line
    assert not re.search(r"\bissues? \d+|#\d+", line), line  # what it is, not where it was asked for


def test_the_readme_lists_every_script_with_its_first_line():
    text = (SCRIPTS / "README.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^- `([\w/]+\.(?:py|sh))`: (.*)$", text, re.M))
    expected = {str(p.relative_to(SCRIPTS)): _purpose(p) for p in _scripts()}
    assert {k: v for k, v in listed.items() if k in expected} == expected
    assert set(listed) - set(expected) <= {p.name for p in SCRIPTS.iterdir() if p.is_symlink()}


def test_every_named_script_path_exists():
    named = set()
    for pattern in NAMING:
        for f in ROOT.glob(pattern):
            if "_build" in f.parts or "auto_examples" in f.parts:
                continue
            named |= {
                (str(f.relative_to(ROOT)), m)
                for m in re.findall(r"scripts/[\w/]+\.(?:py|sh)\b", f.read_text())
            }
    for f in [*ROOT.joinpath("tests").rglob("*.py"), *ROOT.joinpath("bdpsim").rglob("*.py"), *_scripts()]:
        named |= {
            (str(f.relative_to(ROOT)), m) for m in re.findall(r"scripts/[\w/]+\.(?:py|sh)\b", f.read_text())
        }
    missing = sorted((where, m) for where, m in named if not (ROOT / m).exists())
    assert len(named) > 50 and not missing, missing


@pytest.mark.parametrize(
    "script",
    [
        "benchmarks/benchmark_window.py",  # script_out.py through scripts/ on its path
        "benchmarks/benchmark_audit.py",  # script_out.py and blackbox_mechanisms.py
        "findings/attack_calibration.py",  # the checkout first, then scripts/
        "readme/readme_numbers.py",  # the block modules beside it
    ],
)
def test_a_script_runs_from_any_directory(script, tmp_path, cli_env):
    p = subprocess.run(
        [sys.executable, str(SCRIPTS / script), "--help"],
        cwd=tmp_path,
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0 and p.stdout.startswith("usage: "), p.stderr[-2000:]
