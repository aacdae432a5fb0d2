"""Count the probes a plug-in contract replaces (issue 28): concrete-class ``isinstance`` outside
``models/``, ``getattr``/``hasattr`` outside ``cli/`` and ``figures/``, and imports of ``_private``
names across modules. ``tests/test_contracts.py`` holds the counts to their targets.

Usage::

    python scripts/architecture_counts.py [--list]

Definitions (AST, so comments and strings never count):

* *concrete-class isinstance*: an ``isinstance(x, C)`` whose ``C`` (or a member of a tuple ``C``)
  is a class defined in bdpsim that is not a ``typing.Protocol``.
* *getattr/hasattr*: every call of the builtins ``getattr`` and ``hasattr``.
* *private cross-module import*: ``from M import _name`` with ``M`` a bdpsim module other than
  the importing one (relative or absolute).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "bdpsim"


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _concrete_classes(mods: dict[str, Path]) -> set[str]:
    """Names of bdpsim classes that are not Protocols (bases named ``Protocol``)."""
    names, protocols = set(), set()
    for p in mods.values():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                (protocols if "Protocol" in bases else names).add(node.name)
    return names - protocols


def _rel(p: Path) -> str:
    return str(p.relative_to(PKG))


def counts(listing: bool = False) -> dict[str, list[str]]:
    mods = _modules()
    concrete = _concrete_classes(mods)
    found: dict[str, list[str]] = {"isinstance": [], "getattr": [], "private_imports": []}
    for mod, p in mods.items():
        rel = _rel(p)
        package = mod if p.name == "__init__.py" else mod.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "isinstance" and len(node.args) == 2 and not rel.startswith("models/"):
                    arg = node.args[1]
                    elts = arg.elts if isinstance(arg, ast.Tuple) else [arg]
                    hit = [e.id if isinstance(e, ast.Name) else e.attr for e in elts
                           if isinstance(e, (ast.Name, ast.Attribute))
                           and (e.id if isinstance(e, ast.Name) else e.attr) in concrete]
                    if hit:
                        found["isinstance"].append(f"{rel}:{node.lineno} {','.join(hit)}")
                if node.func.id in ("getattr", "hasattr") and not rel.startswith(("cli/", "figures/")):
                    found["getattr"].append(f"{rel}:{node.lineno} {node.func.id}")
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                if not src.startswith("bdpsim") or src == mod:
                    continue
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__") and f"{src}.{a.name}" not in mods:
                        found["private_imports"].append(f"{rel}:{node.lineno} {src}.{a.name}")
    return found


TARGETS = {"isinstance": 2, "getattr": 12, "private_imports": 5}

if __name__ == "__main__":
    res = counts()
    for k, v in res.items():
        print(f"{k:16s} {len(v):4d}  (target <= {TARGETS[k]})")
        if "--list" in sys.argv:
            for line in v:
                print("    " + line)
