"""Every result number in the README comes from a committed result (issue 9 §6).

``scripts/readme_numbers.py --check`` recomputes each generated block of the README from the
committed files under ``results/`` (no simulation) and fails listing the stale ones; fix with
``python scripts/readme_numbers.py --write``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("readme_numbers", ROOT / "scripts" / "readme_numbers.py")
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
    assert code == 0, "README numbers out of date (python scripts/readme_numbers.py --write):\n" + out


def test_every_block_is_in_the_readme_once_or_more(rn):
    text = (ROOT / "README.md").read_text()
    names = {m.group("name") for m in rn.MARK.finditer(text)}
    assert names == set(rn.BLOCKS)


def test_stale_number_is_reported_and_rewritten(rn, tmp_path, capsys):
    text = (ROOT / "README.md").read_text()
    m = next(rn.MARK.finditer(text))
    broken = text.replace(m.group(0), f"<!-- numbers:{m.group('name')} -->3.4×<!-- /numbers:{m.group('name')} -->", 1)
    path = tmp_path / "README.md"
    path.write_text(broken)
    assert rn.main(["--check", "--readme", str(path)]) == 1
    assert f"{m.group('name')}: stale" in capsys.readouterr().out
    assert rn.main(["--write", "--readme", str(path)]) == 0
    assert path.read_text() == text


def test_markers_do_not_start_a_markdown_line_before_inline_text(rn):
    """A line beginning with '<!--' is an HTML block: text on that line would not render as Markdown.
    So a marker begins a line only when nothing else is on that line."""
    text = (ROOT / "README.md").read_text()
    for m in rn.MARK.finditer(text):
        body, name = m.group("body"), m.group("name")
        if m.start() == 0 or text[m.start() - 1] == "\n":
            assert body.startswith("\n"), f"{name}: text on the opening marker's line"
        if body.endswith("\n"):
            assert text[m.end():m.end() + 1] in ("\n", ""), f"{name}: text on the closing marker's line"
