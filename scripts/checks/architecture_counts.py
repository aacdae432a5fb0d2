"""Count the probes a plug-in contract replaces: concrete-class checks, attribute probes, private imports.

The probes: concrete-class ``isinstance`` outside
``models/``, ``getattr``/``hasattr`` outside ``cli/`` and ``figures/``, and imports of ``_private``
names across modules. ``tests/architecture/test_contracts.py`` holds the counts to their targets.

Usage::

    python scripts/checks/architecture_counts.py [--list] [--write]

``--write`` regenerates ``docs/generated/architecture_counts.md`` (the table of
``docs/developer/contracts.md``; ``tests/architecture/test_contracts.py`` checks it is current).

Definitions (AST, so comments and strings never count):

* *concrete-class isinstance* (``isinstance``): an ``isinstance(x, C)`` outside ``models/`` and
  ``testing/`` whose
  ``C`` (or a member of a tuple ``C``) is a class defined in a plug-in package (``models/``,
  ``mechanisms/``, ``estimators/``, ``calibration/``) that is not a ``typing.Protocol``, in a module
  other than the one defining ``C`` (a class checking its own values is validation, not a probe).
  ``isinstance_any`` counts every bdpsim class checked outside its own module, for reference.
* *getattr/hasattr*: every call of the builtins ``getattr`` and ``hasattr`` outside ``cli/``,
  ``figures/`` and ``testing/`` (the contract probes plug-ins by nature; ``getattr_literal``: those naming
  the attribute as a string literal, the
  capability probes proper; the others read a field whose name is data).
* *private cross-module import*: ``from M import _name`` with ``M`` a bdpsim module other than
  the importing one (relative or absolute).
* *kind reach* (``kind_reaches``): outside ``models/``, an import (at the top or deferred in a
  function) of a module of a model kind's package (``models/<kind>/``, not ``common``) other than
  its public ones (``model``, ``kind``, ``build``, ``fit``, the package itself): a kind's internals,
  which callers reach through the pair's exact engine (``engine_for``);
  ``tests/architecture/test_layers.py`` holds them at 0.
* *noise probe* (``noise_probes``, issue 36): outside ``kernels/noise/``, an ``isinstance(x, C)``
  or a comparison ``x is C``, ``x is not C``, ``x == C`` whose ``C`` is a concrete noise law class
  (a non-Protocol class defined in ``kernels/noise/``) or a Laplace-only mechanism type
  (:data:`LAPLACE_ONLY`); what a caller needs of a law is asked of the law (a Protocol of
  ``kernels/noise/protocols.py`` or an attribute the law declares).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "bdpsim"


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


PLUGIN = ("models/", "mechanisms/", "estimators/", "calibration/")
#: the names of the Laplace mechanisms (before issue 36 the models probed their types; since the
#: separate Laplace family was folded into the query + noise family they build its instances)
LAPLACE_ONLY = {
    "LaplaceCount",
    "ClippedSum",
    "LaplaceSum",
    "LaplaceStateSum",
}


def _concrete_classes(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Class name -> the files (relative to bdpsim/) defining it, for classes that are not
    Protocols (bases named ``Protocol``)."""
    where: dict[str, set[str]] = {}
    protocols = set()
    for p in mods.values():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = {
                    b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                    for b in node.bases
                }
                if "Protocol" in bases:
                    protocols.add(node.name)
                else:
                    where.setdefault(node.name, set()).add(_rel(p))
    return {k: v for k, v in where.items() if k not in protocols}


def _rel(p: Path) -> str:
    return str(p.relative_to(PKG))


def _name(e) -> str:
    return e.id if isinstance(e, ast.Name) else e.attr if isinstance(e, ast.Attribute) else ""


def _noise_probe(node, noise: set[str]) -> str:
    """The noise class ``node`` probes (``isinstance`` or ``is``/``is not``/``==``), or ``""``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
    ):
        arg = node.args[1]
        hit = [_name(e) for e in (arg.elts if isinstance(arg, ast.Tuple) else [arg]) if _name(e) in noise]
        return ",".join(hit)
    if isinstance(node, ast.Compare) and all(
        isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) for op in node.ops
    ):
        hit = [_name(e) for e in (node.left, *node.comparators) if _name(e) in noise]
        return ",".join(hit)
    return ""


def _isinstance_finds(node: ast.Call, rel: str, concrete: dict, found: dict[str, list[str]]) -> None:
    """An ``isinstance`` call of module ``rel`` naming concrete classes of other modules (of plugins):
    appended to ``found["isinstance_any"]`` (``found["isinstance"]``)."""
    if node.func.id == "isinstance" and len(node.args) == 2 and not rel.startswith(("models/", "testing/")):
        arg = node.args[1]
        elts = arg.elts if isinstance(arg, ast.Tuple) else [arg]
        names = [
            e.id if isinstance(e, ast.Name) else e.attr
            for e in elts
            if isinstance(e, (ast.Name, ast.Attribute))
        ]
        other = [c for c in names if c in concrete and rel not in concrete[c]]
        plugin = [c for c in other if any(f.startswith(PLUGIN) for f in concrete[c])]
        if other:
            found["isinstance_any"].append(f"{rel}:{node.lineno} {','.join(other)}")
        if plugin:
            found["isinstance"].append(f"{rel}:{node.lineno} {','.join(plugin)}")


def _private_imports(
    node: ast.ImportFrom, package: str, mod: str, mods: dict, rel: str, found: dict[str, list[str]]
) -> None:
    """Private names (``_x``, not modules) that module ``mod`` (in ``package``) imports from another
    bdpsim module: appended to ``found["private_imports"]``."""
    if node.level:
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)]
        src = ".".join(base + ([node.module] if node.module else []))
    else:
        src = node.module or ""
    if not src.startswith("bdpsim") or src == mod:
        return
    for a in node.names:
        if a.name.startswith("_") and not a.name.startswith("__") and f"{src}.{a.name}" not in mods:
            found["private_imports"].append(f"{rel}:{node.lineno} {src}.{a.name}")


#: the modules of a kind package anyone may import (the rest: through the pair's exact engine)
KIND_PUBLIC = {"model", "kind", "build", "fit"}


def _kind_reaches(node, package: str, mods: dict, rel: str, found: dict[str, list[str]]) -> None:
    """Imports of a model kind's internals by a module outside ``models/``: appended to
    ``found["kind_reaches"]``."""
    if rel.startswith("models/"):
        return
    if isinstance(node, ast.Import):
        targets = [a.name for a in node.names]
    else:
        src = node.module or ""
        if node.level:
            base = package.split(".")
            src = ".".join(base[: len(base) - (node.level - 1)] + ([node.module] if node.module else []))
        targets = [f"{src}.{a.name}" if f"{src}.{a.name}" in mods else src for a in node.names]
    kinds = {p.parent.name for p in (PKG / "models").glob("*/__init__.py")} - {"common"}
    for t in dict.fromkeys(targets):
        parts = t.split(".")
        if len(parts) > 3 and parts[:2] == ["bdpsim", "models"] and parts[2] in kinds:
            if parts[3] not in KIND_PUBLIC:
                found["kind_reaches"].append(f"{rel}:{node.lineno} {t}")


def counts(listing: bool = False) -> dict[str, list[str]]:
    mods = _modules()
    concrete = _concrete_classes(mods)
    found: dict[str, list[str]] = {
        "isinstance": [],
        "isinstance_any": [],
        "getattr": [],
        "getattr_literal": [],
        "private_imports": [],
        "noise_probes": [],
        "kind_reaches": [],
    }
    noise = {
        c for c, files in concrete.items() if any(f.startswith("kernels/noise/") for f in files)
    } | LAPLACE_ONLY
    for mod, p in mods.items():
        rel = _rel(p)
        package = mod if p.name == "__init__.py" else mod.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text())):
            if not rel.startswith("kernels/noise/"):
                probe = _noise_probe(node, noise)
                if probe:
                    found["noise_probes"].append(f"{rel}:{node.lineno} {probe}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                _isinstance_finds(node, rel, concrete, found)
                if node.func.id in ("getattr", "hasattr") and not rel.startswith(
                    ("cli/", "figures/", "testing/")
                ):
                    found["getattr"].append(f"{rel}:{node.lineno} {node.func.id}")
                    if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                        found["getattr_literal"].append(
                            f"{rel}:{node.lineno} {node.func.id}({node.args[1].value!r})"
                        )
            elif isinstance(node, ast.ImportFrom):
                _private_imports(node, package, mod, mods, rel, found)
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                _kind_reaches(node, package, mods, rel, found)
    return found


TARGETS = {"isinstance": 2, "getattr": 12, "private_imports": 3, "noise_probes": 0, "kind_reaches": 0}

GENERATED = ROOT / "docs" / "generated" / "architecture_counts.md"
#: the counts at main be71edc, before issue 28 (this script run on that tree)
BEFORE = {
    "isinstance": 15,
    "isinstance_any": 17,
    "getattr": 40,
    "getattr_literal": 29,
    "private_imports": 14,
    "noise_probes": 17,
    "kind_reaches": 2,
}  # noise_probes: at main 72aee1f, before issue 36; kind_reaches: at main 8af23df (this script on each)


def markdown() -> str:
    res = counts()
    lines = [
        "<!-- generated by scripts/checks/architecture_counts.py --write; do not edit -->",
        "| probe | before (main be71edc) | now | target |",
        "|---|---|---|---|",
    ]
    for k, v in res.items():
        lines.append(
            f"| `{k}` | {BEFORE[k]} | {len(v)} | {'<= ' + str(TARGETS[k]) if k in TARGETS else ''} |"
        )
    lines.append("")
    lines.append("`noise_probes`: before = main 72aee1f (issue 36), the first tree it was counted on.")
    lines.append("`kind_reaches`: before = main 8af23df, the first tree it was counted on.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if "--write" in sys.argv:
        GENERATED.parent.mkdir(parents=True, exist_ok=True)
        GENERATED.write_text(markdown())
    res = counts()
    for k, v in res.items():
        print(f"{k:16s} {len(v):4d}" + (f"  (target <= {TARGETS[k]})" if k in TARGETS else ""))
        if "--list" in sys.argv:
            for line in v:
                print("    " + line)
