"""The developer layout page names folders that exist (a moved folder must update the page)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_folder_on_the_layout_page_exists():
    text = (ROOT / "docs" / "developer" / "layout.md").read_text(encoding="utf-8")
    names = set(re.findall(r"`([a-z_/]+(?:/|\.py))`", text))
    assert len(names) > 20
    missing = [n for n in sorted(names) if not (ROOT / n if n.startswith("tests/") else ROOT / "bdpsim" / n).exists()]
    assert not missing, f"docs/developer/layout.md names what bdpsim/ does not have: {missing}"
