"""Every result number in the README and the documentation comes from a committed result.

``scripts/readme/readme_numbers.py --check`` recomputes each generated block of the README and of the
docs pages (docs/**/*.md: the findings, the user guide) from the committed files under
``results/`` (no simulation) and fails listing the stale ones; fix with
``python scripts/readme/readme_numbers.py --write``.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "readme_numbers", ROOT / "scripts" / "readme" / "readme_numbers.py"
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules["readme_numbers"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def rn():
    return _script()


def test_readme_numbers_match_committed_results(rn, capsys):
    code = rn.main(["--check"])
    out = capsys.readouterr().out
    assert code == 0, "numbers out of date (python scripts/readme/readme_numbers.py --write):\n" + out


def _all_pages(rn) -> str:
    return "\n".join(p.read_text() for p in rn.pages())


def test_every_block_is_on_a_page(rn):
    names = {m.group("name") for m in rn.MARK.finditer(_all_pages(rn))}
    assert names == set(rn.BLOCKS)
    assert ROOT / "docs" / "findings.md" in rn.pages() and ROOT / "README.md" in rn.pages()


def test_a_block_missing_from_every_page_is_reported(rn, capsys, monkeypatch):
    pages = rn.pages()
    monkeypatch.setattr(rn, "pages", lambda: [p for p in pages if p.name != "findings.md"])
    assert rn.main(["--check"]) == 1
    assert "fig15: no <!-- numbers:fig15 --> block" in capsys.readouterr().out


@pytest.mark.parametrize("page", ["README.md", "docs/findings.md"])
def test_stale_number_is_reported_and_rewritten(rn, tmp_path, capsys, page):
    text = (ROOT / page).read_text()
    m = next(rn.MARK.finditer(text))
    broken = text.replace(
        m.group(0), f"<!-- numbers:{m.group('name')} -->3.4×<!-- /numbers:{m.group('name')} -->", 1
    )
    path = tmp_path / "page.md"
    path.write_text(broken)
    assert rn.main(["--check", "--file", str(path)]) == 1
    assert f"{m.group('name')}: stale" in capsys.readouterr().out
    assert rn.main(["--write", "--file", str(path)]) == 0
    assert path.read_text() == text


def test_markers_do_not_start_a_markdown_line_before_inline_text(rn):
    """A line beginning with '<!--' is an HTML block: text on that line would not render as Markdown.
    So a marker begins a line only when nothing else is on that line."""
    for page in rn.pages():
        _check_markers(rn, page.read_text())


def _check_markers(rn, text):
    for m in rn.MARK.finditer(text):
        body, name = m.group("body"), m.group("name")
        line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        # a list item's content starts a line too: "- <!-- ..." is an HTML block inside the item
        if not re.sub(r"^\s*([-*+]|\d+[.)])\s+", "", line).strip():
            assert body.startswith("\n"), f"{name}: text on the opening marker's line"
        if body.endswith("\n"):
            assert text[m.end() : m.end() + 1] in ("\n", ""), f"{name}: text on the closing marker's line"
