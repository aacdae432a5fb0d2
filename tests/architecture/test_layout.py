"""The layer table (bdpsim/core/layers.py, shown on docs/developer/layout.md) names paths that
exist, covers every top-level module, and the page shows the generated table."""

import re
from pathlib import Path

from bdpsim.core.layers import LAYERS

ROOT = Path(__file__).resolve().parents[2]


def test_every_path_of_the_layer_table_exists():
    names = {
        n for layer in LAYERS for _, text in layer.where for n in re.findall(r"`([a-z_/]+(?:/|\.py))`", text)
    }
    assert len(names) > 20
    missing = [n for n in sorted(names) if not (ROOT / "bdpsim" / n).exists()]
    assert not missing, f"bdpsim/core/layers.py names what bdpsim/ does not have: {missing}"


def test_every_top_level_module_is_in_one_layer_and_the_root_is_small():
    tops = sorted(
        p.stem if p.is_file() else p.name
        for p in (ROOT / "bdpsim").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    )
    listed = [t for layer in LAYERS for t in layer.tops]
    assert sorted(listed) == tops and len(set(listed)) == len(listed)
    modules = [p for p in (ROOT / "bdpsim").glob("*.py")]
    assert len(modules) <= 6, sorted(p.name for p in modules)


def test_the_layout_page_shows_the_generated_table():
    text = (ROOT / "docs" / "developer" / "layout.md").read_text(encoding="utf-8")
    assert ".. bdpsim-layers::" in text
    assert ".. bdpsim-moves::" in text  # the moved modules' table, from bdpsim.core.moved.MOVES


#: the files that name modules: the package, tests, scripts, pages and the project's own files
TEXT_GLOBS = (
    "bdpsim/**/*.py",
    "tests/**/*.py",
    "scripts/**/*.py",
    "docs/**/*.md",
    "docs/**/*.rst",
    "docs/**/*.py",
    "pyproject.toml",
    "README.md",
    "CONTRIBUTING.md",
    ".ci/run",
    ".pre-commit-config.yaml",
)
#: a line ending in this comment names an old place on purpose (the tests of the aliases)
KEEP = "# old path: kept"


def _old_places() -> list[re.Pattern[str]]:
    """An old dotted name or path of :data:`MOVES` (``bdpsim.X`` or ``bdpsim/X.py``, ``X`` a moved module)."""
    from bdpsim.core.moved import MOVES

    out = []
    for old in MOVES:
        out.append(re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w])"))
        out.append(re.compile(rf"(?<![\w/.]){re.escape(old.replace('.', '/'))}(?=\.py\b|/|(?![\w.]))"))
    return out


def test_no_reference_to_an_old_place_is_left():
    """Every module, test, script and page names the moved modules by their new paths: no old
    dotted name or path (:data:`bdpsim.core.moved.MOVES` itself and the changelogs name them)."""
    patterns, stale = _old_places(), []
    files = {p for g in TEXT_GLOBS for p in ROOT.glob(g) if p.is_file()}
    for p in sorted(files):
        if "_build" in p.parts or "auto_examples" in p.parts or p == ROOT / "bdpsim" / "core" / "moved.py":
            continue
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if not line.rstrip().endswith(KEEP) and any(pat.search(line) for pat in patterns):
                stale.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not stale, stale


def test_relative_imports_of_the_package_reach_no_old_place():
    """A relative import resolving to a moved module's old name (``from .. import errors`` in a
    module of ``bdpsim/``) would still import, through the deprecation alias: none is left."""
    import ast

    from bdpsim.core.moved import new_name

    stale = []
    for p in sorted((ROOT / "bdpsim").rglob("*.py")):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        package = parts[:-1]  # a module's package; an __init__'s own package
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            base = package[: len(package) - node.level + 1]
            module = ".".join(base + ([node.module] if node.module else []))
            targets = [module] + [f"{module}.{a.name}" for a in node.names]
            stale += [f"{p.relative_to(ROOT)}:{node.lineno}: {t}" for t in targets if new_name(t)]
    assert not stale, stale


def test_old_import_paths_alias_the_moved_modules_with_a_warning():
    import importlib
    import sys

    import pytest

    from bdpsim.core.moved import MOVES

    for old, new in MOVES.items():
        sys.modules.pop(old, None)
        with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
            module = importlib.import_module(old)
        assert module is importlib.import_module(new)
    inner = "bdpsim.results.atomic"  # old path: kept
    sys.modules.pop(inner, None)
    with pytest.warns(DeprecationWarning):  # a module inside a moved package: one object, two names
        assert importlib.import_module(inner) is importlib.import_module("bdpsim.pipeline.results.atomic")


def test_tests_mirror_the_package():
    """Issue 36 item 6: every test file sits in a folder named after a concept of the package (no
    test file at tests/ root), and none is named after past work or an audience."""
    tests = ROOT / "tests"
    assert not sorted(p.name for p in tests.glob("test_*.py")), (
        "a test file at tests/ root: it goes in the folder of the concept it probes"
    )
    past = ("hostile", "newcomer", "faithful", "issue", "labels38")
    named = sorted(
        str(p.relative_to(tests)) for p in tests.rglob("test_*.py") if any(w in p.stem for w in past)
    )
    assert not named, named
