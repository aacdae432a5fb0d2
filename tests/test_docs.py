"""The documentation: reference pages generated from the code, references that fail when stale,
the README as a landing page whose links lead somewhere.

The whole site is built by ``.ci/run`` after the test suite (``python -m sphinx -W -b html docs
...``, a few minutes on a shared machine) and by ``pytest -m slow tests/test_docs.py``; the tests
here take seconds.
"""

from __future__ import annotations

import re
import sys

import pytest

from .conftest import ROOT

DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def ext():
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import bdpsim_docs
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return bdpsim_docs


def test_column_reference_lists_every_column_of_the_schema(ext):
    import bdpsim.pipeline.config  # noqa: F401  (every kind registers its extra columns)
    from bdpsim.core.columns import EXTRA_COLUMNS
    from bdpsim.pipeline.rows import ADVERSARY_SCHEMA, SUMMARY_SCHEMA, summary_schema

    rows = ext.column_rows()
    for fname, schema, table in (("summary.csv", summary_schema(), "summary"),
                                 ("adversaries.csv.gz", ADVERSARY_SCHEMA, "adversaries")):
        listed = [c for f, c, _, _, _ in rows if f == fname]
        want = [c.header("p99") for c in schema] + sorted(EXTRA_COLUMNS[table])
        assert listed == want
    owners = {c: o for f, c, _, o, _ in rows if f == "summary.csv"}  # every column with its owner
    assert owners["kde_backend"] == "estimator kde" and owners["rho"] == "model kind gaussian"
    assert owners["bdpl_lower"] == "estimator audit" and owners["n"] == "core"
    assert all(owners[c.header("p99")] == "core" for c in SUMMARY_SCHEMA)
    assert ".. bdpsim-columns::" in (DOCS / "reference" / "columns.rst").read_text()


def test_config_key_reference_lists_every_key_of_every_table(ext):
    from bdpsim.pipeline.config import sections

    text = "\n".join(ext.config_key_lines())
    for table, keys in sections().items():
        for name in keys:
            if name != "kind":
                assert f"``{name}``" in text, f"[{table}] {name} missing from the key reference"
    assert ".. bdpsim-config-keys::" in (DOCS / "reference" / "config-keys.rst").read_text()


def test_config_key_reference_lists_every_utility_key(ext):
    """The [utility] keys are generated from their Key declarations (doc and rule), not typed."""
    from bdpsim.utility.experiment import UTILITY_KEYS

    text = "\n".join(ext.config_key_lines())
    section = text[text.index("[utility]"):]
    for name, key in UTILITY_KEYS.items():
        assert f"``{name}``" in section, name
        assert ext._cell(key.rule) in section and ext._cell(key.doc) in section, name


def _build(tmp_path, page: str) -> tuple[int, str]:
    """Build a one-page site with the docs' conf (nitpicky, the reference resolver) and return the
    exit code and the warnings."""
    pytest.importorskip("sphinx")
    pytest.importorskip("numpydoc")
    from sphinx.cmd.build import build_main

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        "extensions = ['bdpsim_docs']\n"
        "nitpicky = True\n")
    (src / "index.rst").write_text(page)
    warnings = tmp_path / "warnings.txt"
    code = build_main(["-q", "-W", "-w", str(warnings), "-b", "html", str(src), str(tmp_path / "out")])
    return code, warnings.read_text() if warnings.exists() else ""


PAGE = """Page
====

.. py:function:: bdpsim.models.markov.window.window_search(model, values, noise_scale)

.. py:module:: bdpsim.models.base

See :func:`{ref}`.
"""


def test_a_current_reference_builds(tmp_path):
    code, warnings = _build(tmp_path, PAGE.format(ref="bdpsim.models.markov.window.window_search"))
    assert code == 0, warnings


@pytest.mark.parametrize("stale", ["bdpsim.window.window_search", "bdpsim.markov_window.window_search",
                                   "window_searches"])
def test_a_stale_reference_fails_the_build(tmp_path, stale):
    code, warnings = _build(tmp_path, PAGE.format(ref=stale))
    assert code != 0 and f"reference target not found: {stale}" in warnings


def test_short_references_resolve_to_the_one_object_they_name(tmp_path):
    page = PAGE.format(ref="window_search") + ("\nAnd :data:`MODEL_KINDS`, :data:`bdpsim.models.MODEL_KINDS`, "
                                               ":func:`bdpsim.kernels.noise.laplace_mixture._forward`.\n")
    code, warnings = _build(tmp_path, page)
    assert code == 0, warnings
    (tmp_path / "x").mkdir()
    code, warnings = _build(tmp_path / "x", page.replace("laplace_mixture._forward", "laplace_mixture._backwards"))
    assert code != 0 and "laplace_mixture._backwards" in warnings


# ------------------------------------------------------------------------------- README
def _readme() -> str:
    return (ROOT / "README.md").read_text()


def test_readme_is_a_landing_page():
    lines = _readme().splitlines()
    assert len(lines) <= 200
    in_code = False
    for k, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and not line.startswith("|") and not line.startswith("<!--"):
            assert len(line) <= 120, f"README.md:{k}: {len(line)} characters of prose"
    text = _readme()
    for want in ("10.14778/3749646.3749679", "PVLDB 18(11)", "Lange", "Privacy-preserving Analysis of Correlated Data"):
        assert want in text
    assert text.index("```bash\npip install -e . && bdpsim run quickstart") < text.index("## ")


def test_readme_links_lead_to_files():
    for target in re.findall(r"\]\(([^)#\s]+)\)", _readme()):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), f"README links to a missing file: {target}"


def _toctree_entries() -> set[str]:
    """Every document named in a ```{toctree}``` block of a Markdown page, as a docname."""
    found = set()
    for page in DOCS.rglob("*.md"):
        if "_build" in page.parts:
            continue
        here = page.parent.relative_to(DOCS)
        for block in re.findall(r"```\{toctree\}\n(.*?)```", page.read_text(), re.S):
            for line in block.splitlines():
                line = line.strip()
                if line and not line.startswith(":"):
                    found.add(line.lstrip("/") if line.startswith("/") else (here / line).as_posix())
    return found


def test_every_docs_page_is_reachable():
    """Each Markdown page under docs/ is named in a toctree (guide pages by the glob): Sphinx warns
    about an orphan and the build runs with -W; this checks the same without building."""
    entries = _toctree_entries()
    assert "guide/*" in entries
    for page in DOCS.rglob("*.md"):
        rel = page.relative_to(DOCS)
        if rel.parts[0] in ("_build", "auto_examples", "guide", "generated") or page.name == "README.md" or rel.as_posix() == "index.md":
            continue
        assert rel.with_suffix("").as_posix() in entries, f"docs/{rel} is in no toctree"


# ------------------------------------------------------------------------------- the whole site
@pytest.mark.slow
def test_the_site_builds_offline_without_a_warning(tmp_path):
    pytest.importorskip("sphinx_gallery")
    from sphinx.cmd.build import build_main

    code = build_main(["-q", "-W", "--keep-going", "-b", "html", str(DOCS), str(tmp_path / "html")])
    assert code == 0
