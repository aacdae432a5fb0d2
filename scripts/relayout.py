"""Move modules to the layer folders (issue 36 item 2) and rewrite every reference to them.

Run at the repository root on any tree (idempotent: a second run changes nothing)::

    python scripts/relayout.py [--dry-run]

What it does, in order:

1. ``git mv`` each module (or package) of :data:`MOVES` that still stands at its old place;
2. rewrites every relative import in ``bdpsim/`` (resolved against the module's *old* place,
   mapped through :data:`MOVES`, re-expressed from its *new* place), so a module that moved keeps
   importing what it imported and a module that imports a moved one follows it;
3. rewrites absolute references (``bdpsim.errors`` → ``bdpsim.core.errors``) and paths
   (``bdpsim/errors.py`` → ``bdpsim/core/errors.py``) in ``bdpsim/``, ``tests/``, ``scripts/``,
   ``docs/`` (Python, Markdown, reST, TOML), ``pyproject.toml`` and the changelog fragments.

The old import paths keep working for one release through :mod:`bdpsim.core.moved` (a meta-path
alias with a :class:`DeprecationWarning`), whose table is :data:`MOVES` itself. New modules that
other branches add at an old place are moved too (the table maps modules, not a snapshot of
files), so the script can be re-run after a merge.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "bdpsim"
sys.path.insert(0, str(ROOT))

from bdpsim.core.moved import MOVES  # noqa: E402  (the one table, shared with the alias finder)

TEXT_GLOBS = (
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
    ".pre-commit-config.yaml",
)


def _path_of(module: str) -> Path:
    """The file or package folder of a dotted module name (which need not exist)."""
    rel = Path(*module.split("."))
    return ROOT / (rel if (ROOT / rel).is_dir() else rel.with_suffix(".py"))


def _map(module: str) -> str:
    """A module's new dotted name (unchanged if it did not move)."""
    for old, new in MOVES.items():
        if module == old or module.startswith(old + "."):
            return new + module[len(old) :]
    return module


def _unmap(module: str) -> str:
    """A moved module's old dotted name (unchanged if it did not move)."""
    for old, new in MOVES.items():
        if module == new or module.startswith(new + "."):
            return old + module[len(new) :]
    return module


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    rel = ROOT.joinpath(*name.split("."))
    return rel.with_suffix(".py").is_file() or (rel / "__init__.py").is_file()


def move_files(dry: bool) -> list[str]:
    done = []
    for old, new in MOVES.items():
        src = _path_of(old)
        if not src.exists():
            continue
        dst = ROOT / Path(*new.split("."))
        dst = dst if src.is_dir() else dst.with_suffix(".py")
        if src.is_dir() and dst.is_dir():  # new files added at the old place after the move
            for f in sorted(src.rglob("*.py")):
                target = dst / f.relative_to(src)
                done.append(f"{f.relative_to(ROOT)} -> {target.relative_to(ROOT)}")
                if not dry:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    subprocess.run(["git", "mv", str(f), str(target)], cwd=ROOT, check=True)
            continue
        done.append(f"{src.relative_to(ROOT)} -> {dst.relative_to(ROOT)}")
        if not dry:
            dst.parent.mkdir(parents=True, exist_ok=True)
            init = dst.parent / "__init__.py"
            if dst.parent != PKG and not init.exists():
                raise SystemExit(f"relayout: {init.relative_to(ROOT)} is missing (write the package first)")
            subprocess.run(["git", "mv", str(src), str(dst)], cwd=ROOT, check=True)
    return done


def _relative(importer_pkg: str, target: str) -> str:
    """``from <this> import`` text that names ``target`` from inside package ``importer_pkg``."""
    a, b = importer_pkg.split("."), target.split(".")
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    return "." * (len(a) - common + 1) + ".".join(b[common:])


def _resolve(pkg: str, node: ast.ImportFrom) -> str:
    base = pkg.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


FROM = re.compile(r"^(\s*from\s+)(\.+[\w.]*)(\s+import\b)")


def _rename_aliases(path: Path, node: ast.ImportFrom, src_old: str, lines: list[str]) -> bool:
    """Rename, in ``lines`` (edited in place), the modules of ``node`` renamed by their move (figdata
    -> data), which may be imported only under an alias; whether any was."""
    changed = False
    for a in node.names:  # a module renamed by its move (figdata -> data): only under an alias
        renamed = _map(f"{src_old}.{a.name}").rsplit(".", 1)[-1]
        if f"{src_old}.{a.name}" in MOVES and renamed != a.name:
            if a.asname is None:
                raise SystemExit(f"relayout: {path}:{node.lineno}: import {a.name} as a name of its own")
            for j in range(node.lineno - 1, node.end_lineno or node.lineno):
                lines[j] = re.sub(rf"\b{a.name}(\s+as\b)", rf"{renamed}\1", lines[j])
            changed = True
    return changed


def rewrite_relative(path: Path, moved_now: bool, write: bool = True) -> bool:
    """Rewrite the relative imports of one module of bdpsim/ (now at ``path``; ``moved_now``: moved by
    this run, so its relative imports still speak from its old place)."""
    new_mod = _module_name(path)
    old_mod = _unmap(new_mod)
    is_pkg = path.name == "__init__.py"
    old_pkg = old_mod if is_pkg else old_mod.rsplit(".", 1)[0]
    new_pkg = new_mod if is_pkg else new_mod.rsplit(".", 1)[0]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    changed = False
    for node in ast.walk(ast.parse("".join(lines))):
        if not (isinstance(node, ast.ImportFrom) and node.level):
            continue
        names = [a.name for a in node.names]
        here = _resolve(new_pkg, node)
        src_old = _resolve(old_pkg, node)
        lost = [
            n
            for n in names
            if not _is_module(f"{here}.{n}")
            and _is_module(_map(f"{src_old}.{n}"))
            and _map(f"{src_old}.{n}") != f"{here}.{n}"
        ]
        if not moved_now and _is_module(here) and not lost and not any(f"{here}.{n}" in MOVES for n in names):
            continue  # already names what exists from the new place (a second run, or nothing moved)
        # ``from . import results``: the names may be modules that moved apart from their package
        targets = {
            _map(f"{src_old}.{n}").rsplit(".", 1)[0]
            for n in names
            if f"{src_old}.{n}" in MOVES or _is_module(_map(f"{src_old}.{n}"))
        }
        if len(targets) > 1:
            raise SystemExit(f"relayout: {path}:{node.lineno}: names from several new packages; split it")
        target = targets.pop() if targets else _map(src_old)
        if not _is_module(target):
            raise SystemExit(f"relayout: {path}:{node.lineno}: {target} does not exist")
        text = _relative(new_pkg, target)
        changed = _rename_aliases(path, node, src_old, lines) or changed
        i = node.lineno - 1
        m = FROM.match(lines[i])
        if m is None:
            raise SystemExit(f"relayout: {path}:{node.lineno}: cannot read the import line")
        if m.group(2) != text:
            lines[i] = lines[i][: m.start(2)] + text + lines[i][m.end(2) :]
            changed = True
    if changed and write:
        path.write_text("".join(lines), encoding="utf-8")
    return changed


def _patterns() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for old, new in sorted(MOVES.items(), key=lambda kv: -len(kv[0])):
        out.append((re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w])"), new))
        o, n = old.replace(".", "/"), new.replace(".", "/")
        out.append((re.compile(rf"(?<![\w/.]){re.escape(o)}(?=\.py\b|/|(?![\w.]))"), n))
    return out


#: a line ending in this comment keeps its old paths (tests of the aliases)
KEEP = "# relayout: keep"
ABS_FROM = re.compile(r"^(\s*)from bdpsim import (\w+)(\s+as\s+\w+)?[ \t]*(#.*)?$", re.M)


def _absolute_from(m: re.Match[str]) -> str:
    """``from bdpsim import results as R`` -> ``from bdpsim.pipeline import results as R``."""
    indent, name, alias, comment = m.group(1), m.group(2), m.group(3), m.group(4)
    new = MOVES.get(f"bdpsim.{name}")
    if new is None:
        return m.group(0)
    parent, last = new.rsplit(".", 1)
    alias = alias or (f" as {name}" if last != name else "")
    return f"{indent}from {parent} import {last}{alias}" + (f"  {comment}" if comment else "")


def rewrite_text(path: Path, patterns, write: bool = True) -> bool:
    text = path.read_text(encoding="utf-8")
    out = []
    for line in text.splitlines(keepends=True):
        if line.rstrip().endswith(KEEP):  # a line that names an old place on purpose
            out.append(line)
            continue
        line = ABS_FROM.sub(_absolute_from, line) if path.suffix == ".py" else line
        for pat, repl in patterns:
            line = pat.sub(repl, line)
        out.append(line)
    new = "".join(out)
    if new != text and write:
        path.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="list the moves only")
    ap.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if anything would move or be rewritten"
    )
    args = ap.parse_args(argv)
    moved = move_files(args.dry_run or args.check)
    print("\n".join(moved) or "relayout: nothing to move")
    if args.dry_run:
        return 0
    write = not args.check
    now = {ROOT / m.split(" -> ")[1] for m in moved}
    now |= {f for d in now if d.is_dir() for f in d.rglob("*.py")}
    rel = [p for p in sorted(PKG.rglob("*.py")) if rewrite_relative(p, p in now, write)]
    pats = _patterns()
    seen: set[Path] = set()
    text = []
    for g in TEXT_GLOBS:
        for p in sorted(ROOT.glob(g)):
            if p in seen or not p.is_file() or "_build" in p.parts or "auto_examples" in p.parts:
                continue
            seen.add(p)
            if p.resolve() in (
                (PKG / "core" / "moved.py").resolve(),
                Path(__file__).resolve(),
                (ROOT / "changelog.d" / "integrator-layout.md").resolve(),
            ):
                continue  # the table itself, this script and the changelog of the move name the old places
            if rewrite_text(p, pats, write):
                text.append(p)
    print(
        f"relayout: {len(moved)} moved, {len(rel)} modules' relative imports and "
        f"{len(text)} files' references rewritten" + (" (--check: nothing written)" if args.check else "")
    )
    if args.check:
        for p in [*rel, *text]:
            print(f"relayout: stale: {p.relative_to(ROOT)}")
    return 1 if args.check and (moved or rel or text) else 0


if __name__ == "__main__":
    sys.exit(main())
