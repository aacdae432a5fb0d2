"""The documentation: reference pages generated from the code, references that fail when stale,
the README as a landing page whose links lead somewhere.

The whole site is built by ``.ci/run`` after the test suite (``python -m sphinx -W -b html docs
...``, a few minutes on a shared machine) and by ``pytest -m slow tests/docs/test_docs.py``; the tests
here take seconds.
"""

from __future__ import annotations

import re
import sys

import pytest

from ..conftest import ROOT
from ..support.bad_config import cli

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
    for fname, schema, table in (
        ("summary.csv", summary_schema(), "summary"),
        ("adversaries.csv.gz", ADVERSARY_SCHEMA, "adversaries"),
    ):
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
    section = text[text.index("[utility]") :]
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
        "nitpicky = True\n"
    )
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


@pytest.mark.parametrize(
    "stale", ["bdpsim.window.window_search", "bdpsim.markov_window.window_search", "window_searches"]
)
def test_a_stale_reference_fails_the_build(tmp_path, stale):
    code, warnings = _build(tmp_path, PAGE.format(ref=stale))
    assert code != 0 and f"reference target not found: {stale}" in warnings


def test_short_references_resolve_to_the_one_object_they_name(tmp_path):
    page = PAGE.format(ref="window_search") + (
        "\nAnd :data:`MODEL_KINDS`, :data:`bdpsim.models.MODEL_KINDS`, "
        ":func:`bdpsim.kernels.noise.laplace_mixture._forward`.\n"
    )
    code, warnings = _build(tmp_path, page)
    assert code == 0, warnings
    (tmp_path / "x").mkdir()
    code, warnings = _build(
        tmp_path / "x", page.replace("laplace_mixture._forward", "laplace_mixture._backwards")
    )
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
    for want in (
        "10.14778/3749646.3749679",
        "PVLDB 18(11)",
        "Lange",
        "Privacy-preserving Analysis of Correlated Data",
    ):
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
        if (
            rel.parts[0] in ("_build", "auto_examples", "guide", "generated")
            or page.name == "README.md"
            or rel.as_posix() == "index.md"
        ):
            continue
        assert rel.with_suffix("").as_posix() in entries, f"docs/{rel} is in no toctree"


def test_formulas_render_with_the_mathjax_shipped_with_the_docs(tmp_path):
    """Before: the site loaded MathJax from a CDN, so offline every formula showed as raw TeX. A
    page built with the docs' extension loads MathJax from its own ``_static`` (the copy shipped
    in ``docs/_static/mathjax``, with its licence and fonts), and no script or stylesheet from
    another host."""
    code, warnings = _build(tmp_path, "Page\n====\n\nInline :math:`\\varepsilon + 4 \\ln \\gamma`.\n")
    assert code == 0, warnings
    html = (tmp_path / "out" / "index.html").read_text()
    assert re.search(
        r'<script defer="defer" src="_static/mathjax/tex-chtml-full\.js(\?v=\w+)?"></script>', html
    )
    assert r"\(\varepsilon + 4 \ln \gamma\)" in html
    loads = re.findall(r"<(?:script|link)[^>]*(?:src|href)=\"([^\"]+)\"", html)
    assert loads and not [u for u in loads if re.match(r"(https?:)?//", u)], loads
    shipped = tmp_path / "out" / "_static" / "mathjax"
    assert (shipped / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert len(list((shipped / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))) == 23
    assert "3.2.2" in (shipped / "tex-chtml-full.js").read_text()


# ------------------------------------------------------------------------------- the whole site
@pytest.mark.slow
def test_the_site_builds_offline_without_a_warning(tmp_path):
    pytest.importorskip("sphinx_gallery")
    from sphinx.cmd.build import build_main

    code = build_main(["-q", "-W", "--keep-going", "-b", "html", str(DOCS), str(tmp_path / "html")])
    assert code == 0


# ------------------------------------------------------------------ a site a researcher can skim
# (issue 38 item 9)
DEVELOPER_NOTES = ("contracts", "type-checking", "kernel-errors", "writing-docs")


def test_developer_notes_are_not_in_the_user_guide():
    """72aee1f: contracts, type checking, kernel errors and writing the docs sat in the user guide's
    sidebar (docs/guide/*, its glob toctree); they are developer notes now, in their own section."""
    entries = _toctree_entries()
    for name in DEVELOPER_NOTES:
        assert not (DOCS / "guide" / f"{name}.md").exists(), f"docs/guide/{name}.md is a developer note"
        assert (DOCS / "developer" / f"{name}.md").is_file()
        assert f"developer/{name}" in entries
    assert "developer/index" in entries
    for page in (DOCS / "user").glob("*.md"):
        for name in DEVELOPER_NOTES:
            assert f"guide/{name}" not in page.read_text(), f"{page.name} links the moved guide/{name}"


def test_api_landing_page_shows_the_public_names_first(ext):
    import bdpsim

    groups = ext.public_api_groups()
    assert groups[0][0] == "Data models"
    named = [n for _, rows in groups for n, _, _ in rows]
    assert sorted(named) == sorted(n for n in bdpsim.__all__ if n != "__version__")
    assert "More public names" not in [t for t, _ in groups], (
        "a public name is in no topic: add it to PUBLIC_GROUPS in docs/_ext/bdpsim_docs.py"
    )
    for must in (
        "MarkovChainModel",
        "LaplaceCount",
        "exact_bdpl",
        "calibrate",
        "run",
        "BayesNetModel",
        "from_bif",
    ):
        assert must in named
    assert all(summary for _, rows in groups for _, _, summary in rows), "a public name without a docstring"
    page = (DOCS / "reference" / "api.rst").read_text()
    assert page.index(".. bdpsim-public-api::") < page.index(".. autosummary::")


def _subcommands():
    import argparse

    from bdpsim.cli import build_parser

    def subs(parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices
        return {}

    out = []
    for name, sub in subs(build_parser()).items():
        nested = subs(sub)
        out += [f"{name} {n}" for n in nested] if nested else [name]
    return out


def test_commands_configs_and_api_pages_are_complete():
    """72aee1f: commands.md had no 'calibrate config', configs.md no mrf, histogram or audit, api.md
    no BayesNetModel or from_bif."""
    import bdpsim
    import bdpsim.pipeline.config  # noqa: F401  (registers every kind)
    from bdpsim.estimators import ESTIMATORS
    from bdpsim.mechanisms import MECHANISM_KINDS
    from bdpsim.models import MODEL_KINDS

    commands = (DOCS / "user" / "commands.md").read_text()
    rows = [line.split(" | ")[0] for line in commands.splitlines() if line.startswith("| `bdpsim ")]
    for cmd in _subcommands():  # "bounds markov": a row of its own, or in "bounds markov\|gaussian\|general"
        name, _, sub = cmd.partition(" ")
        assert any(
            r.startswith(f"| `bdpsim {name}") and (not sub or f"{name} {sub}" in r or f"|{sub}" in r)
            for r in rows
        ), f"commands.md has no row for bdpsim {cmd}"
    configs = (DOCS / "user" / "configs.md").read_text()
    for kind in (*MODEL_KINDS, *MECHANISM_KINDS, *ESTIMATORS):
        assert f'"{kind}"' in configs, f"configs.md does not name the kind {kind!r}"
    assert "calibrate config" in configs
    api = (DOCS / "user" / "api.md").read_text()
    for name in bdpsim.__all__:
        if name != "__version__":
            assert f"`{name}" in api, f"api.md does not name bdpsim.{name}"


TUTORIALS = [
    "plot_1_time_series",
    "plot_2_bayesnet_calibration",
    "plot_3_thesis_figure",
    "plot_4_audit",
    "plot_5_accountant",
    "plot_6_continual_release",
    "plot_7_attack_risk",
]


def test_task_first_tutorials_are_pages_that_run_at_build_time():
    import ast

    tut = DOCS / "examples" / "tutorials"
    assert (tut / "README.rst").is_file()  # a sphinx-gallery subsection
    index = (DOCS / "index.md").read_text()
    for name in TUTORIALS:
        path = tut / f"{name}.py"
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc and doc.splitlines()[0].startswith("Tutorial: "), name
        assert f"auto_examples/tutorials/{name}" in index, f"index.md does not link {name}"
        assert (ROOT / "README.md").read_text().count(f"docs/examples/tutorials/{name}.py") == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", TUTORIALS)
def test_each_tutorial_runs_within_20_s(name, tmp_path, monkeypatch):
    import runpy
    import time

    import matplotlib

    matplotlib.use("Agg")
    pytest.importorskip("pgmpy")
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    runpy.run_path(str(DOCS / "examples" / "tutorials" / f"{name}.py"), run_name="__main__")
    assert time.perf_counter() - start < 20.0


def test_wide_tables_wrap_instead_of_scrolling():
    """72aee1f: tables were display: block with overflow-x: auto, so at 1280 px the gallery's 'why
    they differ' and the config keys' 'rule' column were off-screen. They now fill the page with
    fixed column shares and wrap; only a narrow window stacks them."""
    css = (DOCS / "_static" / "bdpsim.css").read_text()
    wide = css.split("@media")[0]
    assert "table-layout: fixed" in wide and "width: 100%" in wide
    assert "overflow-x: auto" not in wide
    assert "overflow-wrap: anywhere" in wide


def test_readme_says_what_the_test_command_installs_and_that_warnings_are_expected():
    text = _readme()
    first = text.index("```bash\npip install -e . && bdpsim run quickstart")
    i = text.index("**What to expect.**")
    assert first < i < text.index("## ")
    part = text[i : text.index("## ")]
    for want in ("warning:", "expected", "Dask", "pgmpy", "Sphinx", "minutes"):
        assert want in part, want


def _distributions_of_the_test_extra() -> set[str]:
    """The distributions ``pip install -e ".[test]"`` installs: the extra's requirements (and
    bdpsim's own extras it names), followed through the installed packages' metadata."""
    import tomllib
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement

    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    todo = [Requirement(r) for r in extras["test"]]
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        if norm(req.name) == "bdpsim":
            todo += [Requirement(r) for e in req.extras for r in extras[e]]
            continue
        if norm(req.name) in seen:
            continue
        seen.add(norm(req.name))
        try:
            deps = [Requirement(r) for r in requires(req.name) or []]
        except PackageNotFoundError:
            continue
        for dep in deps:
            if dep.marker is None or any(dep.marker.evaluate({"extra": e}) for e in ("", *req.extras)):
                todo.append(dep)
    return seen


def test_the_test_extra_installs_every_package_a_test_skips_without():
    """Before: the README said its test command skips nothing, yet riskcal (the attack-test extra)
    was not in ``[test]`` and the attack curves' check was skipped. Every module a test
    ``importorskip``s belongs to a distribution the ``[test]`` extra installs."""
    import ast
    from importlib.metadata import packages_distributions

    test_extra = _distributions_of_the_test_extra()
    owners = packages_distributions()
    skipped_without = {
        node.args[0].value.split(".")[0]
        for path in (ROOT / "tests").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and ast.unparse(node.func) == "pytest.importorskip"
        and isinstance(node.args[0], ast.Constant)
    }
    assert {"riskcal", "dp_accounting", "pgmpy", "sphinx"} <= skipped_without
    for module in sorted(skipped_without):
        dists = {re.sub(r"[-_.]+", "-", d).lower() for d in owners.get(module, [])}
        assert dists & test_extra, f"{module}: from {dists or 'no installed package'}, not in [test]"


def test_readme_names_the_tests_skipped_by_who_runs_them():
    """Before: "no test is skipped" while a root-only guard test was skipped for everyone else.
    The skips that depend on the user or the machine rather than on a package (needs root, needs
    two cores) are the ones the README names."""
    reasons = {
        (path.name, m[1])
        for path in (ROOT / "tests").rglob("*.py")
        for m in re.finditer(r'(?:pytest\.skip\(|reason=)f?"([^"]*)', path.read_text())
        if re.search(r"\broot\b|CPUs?\b|cores?\b", m[1])
    }
    assert reasons == {
        (
            "test_output_guards.py",
            "needs root to give the checkout to another user (the fake-git test covers the rest)",
        ),
        ("test_workers.py", "needs /proc and 2 CPUs"),
    }
    text = " ".join(_readme().split())
    assert "so no test is skipped for a missing package" in text
    assert "One test is skipped unless you run it as root" in text and "one needs two cores" in text


def test_figures_docs_name_the_default_output():
    from bdpsim.cli import FIGURES_OUT

    for page in ("user/figures-data.md", "gallery.md", "user/commands.md"):
        assert FIGURES_OUT in (DOCS / page).read_text(), page


def test_readme_quickstart_writes_outside_the_committed_results(capsys):
    """The README's first command runs a bundled config into a git-ignored directory that holds no
    committed file, so its second command (the test suite, with the README-numbers check against
    the committed results/quickstart/) still passes on a fresh clone."""
    import re
    import shlex
    import subprocess

    from ..conftest import ROOT

    block = (ROOT / "README.md").read_text().split("```bash\n", 1)[1].split("```", 1)[0]
    first = block.splitlines()[0]
    run = next(c for c in first.split("&&") if c.split()[:2] == ["bdpsim", "run"])
    args = shlex.split(run)
    out = args[args.index("--out") + 1]
    assert not re.match(r"results/quickstart/?$", out)
    git = lambda *a: subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True)
    if git("rev-parse").returncode != 0:
        pytest.skip("not a git checkout")
    assert git("check-ignore", "-q", f"{out}/summary.csv").returncode == 0, f"{out} is not git-ignored"
    assert git("ls-files", out).stdout == ""
    assert f"bdpsim plot {out}" in first
    rc, text, err = cli(capsys, "validate", args[2])
    assert rc == 0, err


def test_the_tutorials_names_are_public():
    """The attack and continual-release tutorials reached ``describe_adversary``,
    ``calibrate_attack``, ``risk_roc_data`` and ``allocate`` through submodules: each is a
    ``bdpsim`` name, the object its module defines."""
    import bdpsim
    from bdpsim.attack.calibrate import calibrate_attack
    from bdpsim.models.base import describe_adversary
    from bdpsim.studies.attack_roc import risk_roc_data
    from bdpsim.temporal.allocate import allocate

    for obj in (describe_adversary, calibrate_attack, risk_roc_data, allocate):
        assert obj.__name__ in bdpsim.__all__ and getattr(bdpsim, obj.__name__) is obj
    for tutorial in ("plot_6_continual_release", "plot_7_attack_risk"):
        text = (DOCS / "examples" / "tutorials" / f"{tutorial}.py").read_text()
        assert "from bdpsim.models.base" not in text and "from bdpsim.temporal.allocate" not in text
        assert "FigureCanvasAgg" not in text
