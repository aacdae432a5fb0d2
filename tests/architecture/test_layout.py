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


def test_no_reference_to_an_old_place_is_left():
    """Every module, test, script and page names the moved modules by their new paths
    (``scripts/relayout.py --check``: nothing to move, nothing to rewrite)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("relayout", ROOT / "scripts" / "relayout.py")
    relayout = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(relayout)
    assert relayout.main(["--check"]) == 0


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
    inner = "bdpsim.results.atomic"  # relayout: keep
    sys.modules.pop(inner, None)
    with pytest.warns(DeprecationWarning):  # a module inside a moved package: one object, two names
        assert importlib.import_module(inner) is importlib.import_module("bdpsim.pipeline.results.atomic")


def test_tests_mirror_the_package():
    """Issue 36 item 6: every test file sits in a folder named after a concept of the package (no
    test file at tests/ root), and none is named after past work or an audience."""
    tests = ROOT / "tests"
    assert not sorted(p.name for p in tests.glob("test_*.py")), (
        "a test file at tests/ root (scripts/retest.py)"
    )
    past = ("hostile", "newcomer", "faithful", "issue", "labels38")
    named = sorted(
        str(p.relative_to(tests)) for p in tests.rglob("test_*.py") if any(w in p.stem for w in past)
    )
    assert not named, named
