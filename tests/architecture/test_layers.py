"""The package's shape: layers without back arrows, no import cycle (deferred imports count), no
kind name compared as a string outside its own module, and a light ``import bdpsim``."""

import ast
import inspect
import re
import subprocess
import sys

import pytest

from bdpsim.core.layers import LAYERS as _LAYERS
from bdpsim.estimators import ESTIMATORS
from bdpsim.mechanisms import MECHANISM_KINDS
from bdpsim.models import MODEL_KINDS

from ..conftest import ROOT

PKG = ROOT / "bdpsim"

#: lowest layer first (the one table, bdpsim/core/layers.py); a module may import its own layer or lower
#: ones only
LAYERS = [layer.tops for layer in _LAYERS]


def _module_name(path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    rel = ROOT.joinpath(*name.split("."))
    return rel.with_suffix(".py").is_file() or (rel / "__init__.py").is_file()


def _imports(path) -> set[str]:
    """Every bdpsim module ``path`` imports, at the top or deferred inside a function."""
    return _imports_of_source(path.read_text(), path)


def _imports_of_source(source: str, path) -> set[str]:
    """Every bdpsim module the source ``source`` of the module at ``path`` imports."""
    mod = _module_name(path)
    package = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("bdpsim")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            if not src.startswith("bdpsim"):
                continue
            for a in node.names:
                sub = f"{src}.{a.name}"
                out.add(sub if _is_module(sub) else src)
    out.discard(mod)
    return out


GRAPH = {_module_name(p): _imports(p) for p in PKG.rglob("*.py")}


def _layer(mod: str) -> int:
    top = mod.split(".")[1] if "." in mod else ""
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"module {mod} is in no layer of bdpsim/core/layers.py")


def test_every_module_has_a_layer_and_imports_only_downwards():
    back = [
        f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
        for m, targets in GRAPH.items()
        if m != "bdpsim"
        for t in targets
        if t != "bdpsim" and _layer(t) > _layer(m)
    ]
    assert not back, "\n".join(sorted(back))


#: the kind packages under bdpsim/models/ (every sub-package but the shared ``common``)
KIND_PACKAGES = sorted(
    p.parent.name for p in (PKG / "models").glob("*/__init__.py") if p.parent.name != "common"
)
#: the only imports of a sibling kind: a kind subclassing another's (``MRFKind(BayesNetKind)``)
SUBCLASS_IMPORTS = {("bdpsim.models.mrf.kind", "bdpsim.models.bayesnet.kind")}


def _kind_of_module(mod: str) -> str | None:
    parts = mod.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "models" and parts[2] in KIND_PACKAGES else None


def test_no_model_kind_imports_a_sibling_kind():
    """A kind package imports what it shares with another from ``bdpsim/models/common`` (or the
    kernels), never from the sibling, except to subclass its kind (:data:`SUBCLASS_IMPORTS`); the
    shared model modules (base, engines, protocols, factor_model, common) import no kind."""
    assert {"markov", "gaussian", "pedigree", "bayesnet", "mrf"} <= set(KIND_PACKAGES)
    bad = []
    for mod, deps in GRAPH.items():
        if not mod.startswith("bdpsim.models.") or mod == "bdpsim.models":
            continue
        own = _kind_of_module(mod)
        for dep in deps:
            other = _kind_of_module(dep)
            if other is not None and other != own and (mod, dep) not in SUBCLASS_IMPORTS:
                bad.append(f"{mod} -> {dep}")
    assert not bad, "sibling-kind imports (move what they share to bdpsim/models/common): " + ", ".join(
        sorted(bad)
    )
    for mod, dep in SUBCLASS_IMPORTS:  # the allowed ones are still needed (else drop them here)
        assert dep in GRAPH[mod], f"{mod} no longer imports {dep}: remove it from SUBCLASS_IMPORTS"


#: the modules of a kind package anyone may import: its model, its kind, its builders (and what the
#: package itself re-exports); the rest (a chain's window reduction, a pedigree's exhaustive search,
#: ...) is reached through the pair's exact engine (:func:`bdpsim.models.engines.engine_for`)
KIND_PUBLIC = {"model", "kind", "build", "fit"}


def kind_reaches(graph) -> list[str]:
    """Every import ``mod -> dep`` of a model kind's internals (a module of a kind package other than
    :data:`KIND_PUBLIC`) by a module outside ``bdpsim.models``, deferred imports included."""
    return [
        f"{mod} -> {dep}"
        for mod, deps in graph.items()
        if not mod.startswith("bdpsim.models")
        for dep in deps
        if (kind := _kind_of_module(dep)) is not None and dep.rsplit(".", 1)[-1] not in KIND_PUBLIC | {kind}
    ]


def test_no_module_outside_the_models_reaches_into_a_kind():
    """Studies, mechanisms and the accountant imported a chain's window reduction, a network's region
    search and a pedigree's exhaustive search from the kinds' own modules: they ask the engine, or
    the kind package's public names. None is left (the accountant's was the last two)."""
    bad = kind_reaches(GRAPH)
    assert not bad, "imports of a model kind's internals (ask engine_for(model, mechanism)): " + ", ".join(
        sorted(bad)
    )


def test_a_new_reach_into_a_kind_is_caught():
    """The check above fails on a new reach — the accountant's former imports of the window reduction
    and the region search, written at module level or deferred in a function — and passes the
    kinds' public modules and the models' own imports."""
    src = (
        "from ..models.markov.window import auto_window_limit\n"
        "from ..models.markov.model import MarkovChainModel\n"
        "def f():\n"
        "    from ..models.bayesnet import search as BS\n"
    )
    path = PKG / "accounting" / "probe_reach.py"
    deps = _imports_of_source(src, path)
    graph = {
        "bdpsim.accounting.probe_reach": deps,
        "bdpsim.models.markov.exact": {"bdpsim.models.markov.window"},
    }
    assert sorted(kind_reaches(graph)) == [
        "bdpsim.accounting.probe_reach -> bdpsim.models.bayesnet.search",
        "bdpsim.accounting.probe_reach -> bdpsim.models.markov.window",
    ]


def test_no_import_cycle():
    """Tarjan's strongly connected components of the import graph (deferred imports included)."""
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in GRAPH.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in GRAPH:
        if v not in index:
            visit(v)
    assert not cycles, cycles


def _kinds():
    """(name, defining file) of every registered model kind, mechanism kind and estimator."""
    out = []
    for kind in [*MODEL_KINDS.values(), *MECHANISM_KINDS.values()]:
        out.append((kind.name, inspect.getsourcefile(type(kind))))
    for cls in ESTIMATORS.values():
        out.append((cls.name, inspect.getsourcefile(cls)))
    return out


def test_no_kind_name_compared_as_a_string_outside_its_module():
    """A kind's behaviour lives in its own module: nothing else dispatches on its name."""
    hits = []
    for name, home in _kinds():
        q = rf"""["']{re.escape(name)}["']"""
        pattern = re.compile(rf"""(==|!=)\s*{q}|{q}\s*(==|!=)|\bin\s*[(\[{{][^)\]}}]*{q}""")
        for path in PKG.rglob("*.py"):
            if str(path) == home:
                continue
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{i}: {name!r}: {line.strip()}")
    assert not hits, "\n".join(hits)


def _law_lists(tree: ast.AST, names: set[str]) -> list[tuple[int, list[str]]]:
    """The collection literals of ``tree`` (tuples, lists, sets, dict keys) holding two or more of
    the noise-law ``names`` as strings, with their line numbers."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elts = node.elts
        elif isinstance(node, ast.Dict):
            elts = [k for k in node.keys if k is not None]
        else:
            continue
        found = sorted({e.value for e in elts if isinstance(e, ast.Constant) and e.value in names})
        if len(found) >= 2:
            out.append((node.lineno, found))
    return out


def test_no_noise_law_names_listed_by_hand():
    """Which laws a caller offers or takes (command-line choices, calibration, attack, continual
    release) it reads from the laws' traits (:func:`bdpsim.kernels.noise.traits.law_names`), never
    from a list of their names written out, which a new law would not join."""
    from bdpsim.kernels.noise.traits import TRAITS

    names = set(TRAITS)
    assert {"laplace", "geometric", "staircase", "gaussian", "table"} <= names
    hits = [
        f"{path.relative_to(ROOT)}:{line}: {found}"
        for path in sorted(PKG.rglob("*.py"))
        for line, found in _law_lists(ast.parse(path.read_text()), names)
    ]
    assert not hits, "law names listed by hand (read bdpsim.kernels.noise.traits.law_names):\n" + "\n".join(
        hits
    )
    # the scan finds what it looks for
    probe = (
        'LAWS = ("laplace", "geometric")\nx = law in ["gaussian", "table"]\n{"staircase": 1, "laplace": 2}'
    )
    assert sorted(line for line, _ in _law_lists(ast.parse(probe), names)) == [1, 2, 3]


@pytest.mark.parametrize("code", ["import bdpsim", "import bdpsim.cli; bdpsim.cli.build_parser()"])
def test_import_is_light(code, cli_env):
    heavy = [
        "scipy.signal",
        "scipy.optimize",
        "scipy.stats",
        "matplotlib",
        "pandas",
        "dask",
        "fastkde",
        "statsmodels",
        "joblib",
    ]
    probe = f"import sys; {code}; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=cli_env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


#: the sections of a config: a kernel's message naming ``mechanism.epsilon`` speaks the config's
#: vocabulary, which only the layers above the kernels know
CONFIG_SECTION = re.compile(r"^(run|model|mechanism|audit|utility)\.")


def test_kernels_name_their_parameters_not_config_fields():
    """Issue 28: kernels raise :class:`bdpsim.kernels.argcheck.ParameterError` (a ``ValueError``)
    naming their own parameter; the config layer names the field (:func:`bdpsim.core.errors.naming`).
    No kernel imports :mod:`bdpsim.core.errors` (``ConfigError``, ``check``) nor names a config field."""
    kernels = {
        m: p for m, p in ((_module_name(p), p) for p in PKG.rglob("*.py")) if m.startswith("bdpsim.kernels")
    }
    assert len(kernels) > 20
    importing = sorted(m for m in kernels if "bdpsim.core.errors" in GRAPH[m])
    assert not importing, f"kernels importing bdpsim.core.errors: {importing}"
    named = []
    for path in kernels.values():
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            f = node.func
            callee = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            first = node.args[1] if callee == "require" and len(node.args) > 1 else node.args[0]
            if (
                callee in ("require", "ParameterError", "TooExpensive", "positive", "ConfigError", "check")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and CONFIG_SECTION.match(first.value)
            ):
                named.append(f"{path.relative_to(ROOT)}:{node.lineno}: {first.value!r}")
    assert not named, "kernel errors naming a config field:\n" + "\n".join(named)


def test_naming_turns_a_kernel_error_into_a_config_error():
    import pickle

    from bdpsim.core.errors import ConfigError, naming
    from bdpsim.kernels.argcheck import ParameterError
    from bdpsim.kernels.noise.laws import LaplaceNoise

    with pytest.raises(ParameterError, match=r"^scale = -1\.0: must be a finite number > 0$") as plain:
        LaplaceNoise(-1.0)
    assert not isinstance(plain.value, ConfigError) and isinstance(plain.value, ValueError)
    back = pickle.loads(pickle.dumps(plain.value))  # raised in a worker process, re-raised here
    assert (type(back), str(back), back.param, back.rule) == (
        ParameterError,
        str(plain.value),
        "scale",
        plain.value.rule,
    )
    with pytest.raises(ConfigError, match=r"^mechanism\.scale = -1\.0: must be a finite number > 0$"):
        with naming("mechanism"):
            LaplaceNoise(-1.0)
    with pytest.raises(ConfigError, match=r"^--noise-scale = -1\.0: "):
        with naming("mechanism", {"scale": "--noise-scale"}):
            LaplaceNoise(-1.0)
    with pytest.raises(ConfigError, match=r"^model\.n = 1: "):  # a ConfigError passes unchanged
        with naming("mechanism"):
            raise ConfigError("model.n", 1, "must be >= 2")
    with pytest.raises(ValueError, match="^other$"):  # so does any other ValueError
        with naming("mechanism"):
            raise ValueError("other")
