"""Lay the tests out by concept (issue 36 item 6): folders mirror the package, bad-input probes sit
beside the layer they probe, no file is named after past work or an audience.

Run at the repository root (idempotent; re-run after merging a branch that added tests at the
old places)::

    python scripts/retest.py [--check]

* :data:`MOVES` moves whole files (``tests/test_exact.py`` -> ``tests/estimators/test_exact.py``);
* :data:`SPLITS` splits the four catalogues named after past work or an audience
  (``test_hostile``, ``test_hostile3``, ``test_newcomer``, ``test_faithful``): their helpers go to
  ``tests/support/<concept>.py``, their fixtures to ``tests/conftest.py``, and each test function to
  ``tests/<layer>/test_<concept>.py`` by :func:`layer_of` (what the test probes);
* relative imports (``from .conftest``, ``from .test_bayesnet``), ``Path(__file__).parents[1]``
  and the paths ``tests/test_x.py`` named anywhere in the repository follow the moves.

``--check`` changes nothing and exits 1 if a test file sits at ``tests/`` root (a file the table
has no rule for is named: give it one).
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

#: old file (under tests/) -> new folder under tests/ (the file keeps its name unless given one)
MOVES: dict[str, str] = {
    # kernels
    "test_noise_kernels.py": "kernels/",
    "test_noise_table.py": "kernels/",
    "test_audit_kernels.py": "kernels/",
    "test_noise_engines.py": "kernels/",
    # notions
    "test_bounds.py": "notions/",
    # models
    "test_models.py": "models/",
    "test_bayesnet.py": "models/",
    "test_bayesnet_search.py": "models/",
    "test_networks.py": "models/",
    "test_pedigree.py": "models/",
    "test_pedigree_config.py": "models/",
    "test_window.py": "models/",
    "test_engine_once.py": "models/",
    "test_gaussian_speed.py": "models/",
    # mechanisms
    "test_randomized_response.py": "mechanisms/",
    "test_noise_law_plugin.py": "mechanisms/",
    # estimators
    "test_estimators.py": "estimators/",
    "test_exact.py": "estimators/",
    "test_exact_run.py": "estimators/",
    "test_mixture.py": "estimators/",
    "test_mixture_se.py": "estimators/",
    "test_intervals.py": "estimators/",
    "test_audit.py": "estimators/",
    "test_worstcase.py": "estimators/",
    # calibration
    "test_calibration.py": "calibration/",
    "test_calibrate_budget.py": "calibration/",
    "test_optimal.py": "calibration/",
    "test_optimal_networks.py": "calibration/",
    "test_optimal_networks_table.py": "calibration/",
    "test_optimal_pedigree.py": "calibration/",
    "test_quilt.py": "calibration/",
    "test_quilt_bayesnet.py": "calibration/",
    "test_wasserstein.py": "calibration/",
    "test_frontier.py": "calibration/",
    # temporal
    "test_temporal_cao.py": "temporal/",
    "test_temporal_exact.py": "temporal/",
    # pipeline
    "test_config.py": "pipeline/",
    "test_driver.py": "pipeline/",
    "test_quickstart_identity.py": "pipeline/",
    "test_dask_hostile.py": "pipeline/test_dask_backend_errors.py",
    # studies
    "test_api.py": "studies/",
    "test_competition.py": "studies/",
    "test_utility.py": "studies/",
    "test_utility_optimal.py": "studies/",
    "test_pufferfish_audit.py": "studies/",
    "test_pufferfish_fig2.py": "studies/",
    # figures
    "test_figures.py": "figures/",
    "test_figures_sources.py": "figures/",
    "test_figures_fidelity.py": "figures/",
    "test_plot.py": "figures/",
    "test_gallery_staleness.py": "figures/",
    "test_network_table.py": "figures/",
    # interface
    "test_cli.py": "cli/",
    "test_help.py": "cli/",
    "test_calibrate_cli.py": "cli/",
    "test_temporal_cli.py": "cli/",
    # the package's shape and the plug-in contract
    "test_architecture.py": "architecture/",
    "test_contracts.py": "architecture/",
    "test_layers.py": "architecture/",
    "test_layout.py": "architecture/",
    # documentation, README and scripts
    "test_docs.py": "docs/",
    "test_readme_numbers.py": "docs/",
    "test_script_out.py": "docs/",
    # what the attack on a release can do (issue 35)
    "test_attack.py": "attack/",
    "test_attack_calibrate.py": "attack/",
    "test_attack_montecarlo.py": "attack/",
    "test_attack_riskcal.py": "attack/",
    "test_attack_cli.py": "cli/",
    "test_attack_columns.py": "attack/",
    "test_attack_config_cli.py": "cli/",
    "test_attack_gallery.py": "figures/",
    # BIF networks, calibration from a config, continual release, figures
    "test_bif_reader.py": "models/",
    "test_bif_states.py": "models/",
    "test_calibrate_entry.py": "calibration/",
    "test_calibrate_extremes.py": "cli/test_calibrate_bad_input.py",
    "test_calibrate_query.py": "cli/",
    "test_continual_kind.py": "mechanisms/",
    "test_figures_cli.py": "figures/",
    "test_temporal_figures.py": "figures/",
    # bad input, beside the layer it probes
    "test_hostile_config.py": "pipeline/test_config_bad_input.py",
    "test_hostile_cost.py": "pipeline/test_cost_bad_input.py",
    "test_hostile_files.py": "core/test_files_bad_input.py",
    "test_hostile_guards.py": "pipeline/test_output_guards.py",
    "test_hostile_models.py": "models/test_models_bad_input.py",
    "test_hostile_workers.py": "pipeline/test_workers.py",
    # labels that say what a number is, seeds, start-up, reports
    "test_labels38.py": "pipeline/test_labels.py",
    "test_seeds.py": "pipeline/",
    "test_startup.py": "cli/",
    "test_unreached.py": "cli/test_reports.py",
    # packaging: CI, the installed wheel, the version
    "test_ci.py": "architecture/",
    "test_installed.py": "architecture/",
    "test_version.py": "architecture/",
}

#: catalogues whose tests all probe one layer (no split by words)
ONE_LAYER: dict[str, str] = {"test_faithful.py": "estimators"}

#: a catalogue named after past work or an audience -> the concept its tests share (file names)
SPLITS: dict[str, str] = {
    "test_hostile.py": "bad_config",
    "test_hostile3.py": "bad_input",
    "test_newcomer.py": "usability",
    "test_faithful.py": "thesis_method",
}

#: what a test probes, by the words of its name and code, first match wins (layer folder, pattern)
LAYER_RULES: tuple[tuple[str, str], ...] = (
    ("figures", r"figure|gallery|plot\b|plot_|\bplot\(|figdata"),
    ("temporal", r"temporal"),
    ("calibration", r"calibrat|optimal_noise|mqm|quilt|wasserstein"),
    ("studies", r"utility|accuracy|competition|worst_case|worstcase|thesis_method|pufferfish|frontier"),
    ("estimators", r"audit|mixture|kde|estimator|exact_bdpl|adversary_bdpl"),
    ("models", r"\bbif\b|bif_|network|pedigree|mrf|random_field|markov_chain|gaussian_model|transition"),
    ("kernels", r"noise_table|table_law|noise_file|kernel"),
    (
        "pipeline",
        r"config|toml|jobs|worker|resume|lock|dask|backend|driver|seed|metadata|results?_dir|out_dir|"
        r"--out|summary|adversaries\.csv|validate",
    ),
)

SUPPORT = "support"


def layer_of(name: str, source: str) -> str:
    """The folder of a split test: the first rule whose pattern its name matches, else the first
    whose pattern its code matches, else ``cli`` (the command line is what every probe calls)."""
    for text in (name, source):
        for folder, pattern in LAYER_RULES:
            if re.search(pattern, text, re.I):
                return folder
    return "cli"


def _git_mv(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    _package(dst.parent)
    subprocess.run(["git", "mv", str(src), str(dst)], cwd=ROOT, check=True)


def _package(folder: Path) -> None:
    init = folder / "__init__.py"
    if folder != TESTS and not init.exists():
        init.write_text("")
        subprocess.run(["git", "add", str(init)], cwd=ROOT, check=True)


def _destination(old: str) -> Path:
    where = MOVES[old]
    return TESTS / (where + old if where.endswith("/") else where)


def _segments(text: str):
    """Top-level statements of a module with their source (decorators and leading comments kept)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    body = tree.body
    out = []
    for k, node in enumerate(body):
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        while start > 0 and lines[start - 1].lstrip().startswith("#"):
            start -= 1
        end = body[k + 1].lineno - 1 if k + 1 < len(body) else len(lines)
        nxt = body[k + 1] if k + 1 < len(body) else None
        if nxt is not None:
            nstart = min([nxt.lineno] + [d.lineno for d in getattr(nxt, "decorator_list", [])]) - 1
            while nstart > 0 and lines[nstart - 1].lstrip().startswith("#"):
                nstart -= 1
            end = nstart
        out.append((node, "".join(lines[start:end]).rstrip() + "\n"))
    return out


def _is_fixture(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef) and any("fixture" in ast.unparse(d) for d in node.decorator_list)


def split(old: str, concept: str) -> list[Path]:
    """Split one catalogue; returns the files written."""
    src = TESTS / old
    text = src.read_text(encoding="utf-8")
    segs = _segments(text)
    doc = ast.get_docstring(ast.parse(text)) or ""
    imports = [s for n, s in segs if isinstance(n, (ast.Import, ast.ImportFrom))]
    helpers = [
        (n, s)
        for n, s in segs
        if not isinstance(n, (ast.Import, ast.ImportFrom, ast.Expr))
        and not (isinstance(n, ast.FunctionDef) and n.name.startswith("test_"))
        and not _is_fixture(n)
    ]
    fixtures = [s for n, s in segs if _is_fixture(n)]
    tests = [(n, s) for n, s in segs if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
    names = []
    for n, _ in helpers:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            names.append(n.name)
        elif isinstance(n, ast.Assign):
            names += [t.id for t in n.targets if isinstance(t, ast.Name)]
    written = []
    support = TESTS / SUPPORT / f"{concept}.py"
    support.parent.mkdir(exist_ok=True)
    _package(support.parent)
    head = f'"""Shared by the {concept.replace("_", " ")} tests (tests/*/test_{concept}.py).'
    support.write_text(
        head
        + (f"\n\n{doc}" if doc else "")
        + '"""\n\n'
        + _fix_imports(
            "".join(imports) + "\n\n" + "\n\n".join(s for _, s in helpers), old, f"{SUPPORT}/{concept}.py"
        )
        + "\n",
        encoding="utf-8",
    )
    written.append(support)
    if fixtures:
        conftest = TESTS / "conftest.py"
        body = conftest.read_text(encoding="utf-8")
        add = [f for f in fixtures if "def " + f.split("def ", 1)[1].split("(")[0] + "(" not in body]
        if add:
            used = {n.id for f in add for n in ast.walk(ast.parse(f)) if isinstance(n, ast.Name)}
            need = [
                line
                for line in "".join(imports).splitlines()
                if line.startswith("import ") and line.split()[1].split(".")[0] in used and line not in body
            ]
            if need:
                body = body.replace("\nimport ", "\n" + "\n".join(need) + "\nimport ", 1)
            conftest.write_text(body.rstrip() + "\n\n\n" + "\n\n".join(add), encoding="utf-8")
    by_layer: dict[str, list[str]] = {}
    for n, s in tests:
        by_layer.setdefault(ONE_LAYER.get(old) or layer_of(n.name, s), []).append(s)
    for layer, chunks in sorted(by_layer.items()):
        dst = TESTS / layer / f"test_{concept}.py"
        dst.parent.mkdir(exist_ok=True)
        _package(dst.parent)
        rel = f"{layer}/test_{concept}.py"
        imp = _fix_imports("".join(imports), old, rel)
        if names:  # ruff --fix drops the ones this file does not use
            imp += f"\nfrom ..{SUPPORT}.{concept} import (\n    " + ",\n    ".join(names) + ",\n)\n"
        doc_line = f'"""{concept.replace("_", " ").capitalize()}: probes of the {layer} layer."""\n\n'
        old_body = dst.read_text(encoding="utf-8") if dst.exists() else ""
        if old_body:  # a re-run after a merge: append the tests not there yet
            new = [c for c in chunks if c.split("def ", 1)[1].split("(")[0] not in old_body]
            dst.write_text(old_body.rstrip() + "\n\n\n" + "\n\n".join(new), encoding="utf-8")
        else:
            dst.write_text(
                doc_line + imp + "\n\n" + _fix_imports("\n\n".join(chunks), old, rel), encoding="utf-8"
            )
        written.append(dst)
    subprocess.run(["git", "rm", "-q", str(src)], cwd=ROOT, check=True)
    subprocess.run(["git", "add", *map(str, written)], cwd=ROOT, check=True)
    return written


def _module_of(rel: str) -> str:
    """``estimators/test_exact.py`` -> ``estimators.test_exact``."""
    return rel[:-3].replace("/", ".")


def _new_rel(old_module: str) -> str | None:
    """The new place (relative to tests/) of a test module named by its old module name."""
    f = f"{old_module}.py"
    if f in MOVES:
        return str(_destination(f).relative_to(TESTS))
    if f in SPLITS:
        return f"{SUPPORT}/{SPLITS[f]}.py"
    return None


def _fix_imports(text: str, old_rel: str, new_rel: str) -> str:
    """Relative imports and ``__file__`` depths of a file moved from tests/<old_rel> to
    tests/<new_rel> (a file already in a folder stays as it is)."""
    depth = new_rel.count("/")
    if old_rel.count("/") == depth:
        return text
    dots = "." * (depth + 1)

    def imp(m: re.Match[str]) -> str:
        mod = m.group(2)
        target = _new_rel(mod) if mod.startswith("test_") else None
        if target is not None:
            return f"{m.group(1)}{dots}{_module_of(target)} import"
        return f"{m.group(1)}{dots}{mod} import"

    text = re.sub(r"(\bfrom )\.(\w+) import", imp, text)
    text = re.sub(r"(\bfrom )\. import", rf"\1{dots} import", text)
    text = re.sub(
        r"Path\(__file__\)(\.resolve\(\))?\.parents\[1\]", rf"Path(__file__)\1.parents[{depth + 1}]", text
    )
    text = re.sub(
        r"Path\(__file__\)(\.resolve\(\))?\.parent\.parent\b", rf"Path(__file__)\1.parents[{depth + 1}]", text
    )
    return text


def _fix_cross_imports(path: Path) -> bool:
    """``from .test_hostile import`` in a file that stayed or moved earlier: to the new place."""
    rel = str(path.relative_to(TESTS))
    depth = rel.count("/")
    text = path.read_text(encoding="utf-8")

    def imp(m: re.Match[str]) -> str:
        target = _new_rel(m.group(3))
        if target is None:
            return m.group(0)
        return f"{m.group(1)}{'.' * (depth + 1)}{_module_of(target)} import"

    new = re.sub(r"(\bfrom )(\.+)(test_\w+) import", imp, text)
    if new != text:
        path.write_text(new, encoding="utf-8")
        return True
    return False


def _references() -> dict[str, str]:
    out = {f"tests/{old}": f"tests/{_destination(old).relative_to(TESTS)}" for old in MOVES}
    for old, concept in SPLITS.items():
        out[f"tests/{old}"] = f"tests/*/test_{concept}.py"
    return out


def rewrite_references(paths: list[Path]) -> int:
    refs = _references()
    pat = re.compile("|".join(re.escape(k) for k in sorted(refs, key=len, reverse=True)) + r"(?![\w])")
    changed = 0
    for p in paths:
        text = p.read_text(encoding="utf-8")
        new = pat.sub(lambda m: refs[m.group(0)], text)
        if new != text:
            p.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def stray() -> list[str]:
    """Test files at tests/ root (each wants a rule)."""
    return sorted(p.name for p in TESTS.glob("test_*.py"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if a test file is at tests/ root"
    )
    args = ap.parse_args(argv)
    left = stray()
    if args.check:
        for name in left:
            print(
                f"retest: tests/{name} sits at the root"
                + ("" if name in MOVES or name in SPLITS else " and no rule places it")
            )
        return 1 if left else 0
    unknown = [n for n in left if n not in MOVES and n not in SPLITS]
    if unknown:
        print(f"retest: no rule for {', '.join(unknown)}: add it to MOVES or SPLITS", file=sys.stderr)
        return 1
    moved = []
    for name in left:
        if name in MOVES:
            dst = _destination(name)
            text = (TESTS / name).read_text(encoding="utf-8")
            _git_mv(TESTS / name, dst)
            dst.write_text(_fix_imports(text, name, str(dst.relative_to(TESTS))), encoding="utf-8")
            moved.append(dst)
    for name in left:
        if name in SPLITS:
            moved += split(name, SPLITS[name])
    crossed = sum(_fix_cross_imports(p) for p in sorted(TESTS.rglob("*.py")))
    files = [
        p
        for g in (
            "bdpsim/**/*.py",
            "tests/**/*.py",
            "scripts/**/*.py",
            "docs/**/*.md",
            "docs/**/*.rst",
            "docs/**/*.py",
            "changelog.d/*.md",
            "pyproject.toml",
            "README.md",
            "CONTRIBUTING.md",
            ".ci/run",
            ".github/**/*.yml",
        )
        for p in ROOT.glob(g)
        if p.is_file() and "_build" not in p.parts and p.resolve() != Path(__file__).resolve()
    ]
    refs = rewrite_references(files)
    print(
        f"retest: {len(moved)} files written or moved, {crossed} cross imports and {refs} files' references "
        "rewritten; now run: ruff check --select F401,I001 --fix tests"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
