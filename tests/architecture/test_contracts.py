"""Contract tests over the LIVE registries (as scikit-learn's ``parametrize_with_checks`` and
dp_accounting's shared accountant tests): every model kind, mechanism kind, noise law, estimator
and calibration method registered when the suite starts is checked against the same contract, so a
new kind passes them or says why not. A kind registered from a test module passes them too
(:func:`test_a_kind_registered_from_a_test_passes_the_model_contract`).

Tolerances come from the sample size (chi-square and normal quantiles at a fixed seed); every
check runs in well under a second per kind.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

import bdpsim.testing.checks as C
from bdpsim.adversary import Estimate
from bdpsim.calibration.methods import CALIBRATION_METHODS, calibrate
from bdpsim.core.columns import Column, owned_columns
from bdpsim.core.errors import ConfigError
from bdpsim.core.schema import Key
from bdpsim.estimators import ESTIMATORS
from bdpsim.kernels.noise.laws import NOISE_LAWS, register_noise_law
from bdpsim.mechanisms import MECHANISM_KINDS
from bdpsim.models import MODEL_KINDS, MarkovChainModel, ModelKind, register_model_kind
from bdpsim.pipeline.rows import SUMMARY_SCHEMA, summary_schema
from bdpsim.pipeline.settings import GENERIC_KEYS
from bdpsim.testing import (
    check_estimator,
    check_model_kind,
    check_noise_law,
    parametrize_with_checks,
)

from ..architecture.test_architecture import IidCategorical, IidKind
from ..mechanisms.test_noise_law_plugin import TwoPointNoise
from ..models.test_toy_kind import CopiesKind

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

#: examples for built-in kinds that cannot carry one in the package (a user function lives in tests/)
EXAMPLES = {
    "python": {
        "model": {"kind": "markov", "n": 4, "gamma": 3.0},
        "mechanism": {"function": "tests.custom_mech:noisy_count", "epsilon": 1.0},
    }
}


def test_utility_keys_have_default_constraint_doc():
    """Every [utility] key is declared once as a Key with a doc and a rule; the defaults are valid
    for every dataset, and a bad value of each key is refused with that key's rule, naming
    utility.<key>."""
    from bdpsim.utility.experiment import DATASETS, UTILITY_KEYS, parse_utility

    for name, key in UTILITY_KEYS.items():
        assert isinstance(key, Key) and key.doc.strip() and key.rule.strip(), name
    for ds in DATASETS:
        parse_utility({"utility": {"dataset": ds}})
    bad = {
        "dataset": "nope",
        "epsilon": [-1.0],
        "runs": 5,
        "beta": 2.0,
        "seed": -1,
        "mechanisms": ["markov"],
        "threshold": [-1.0],
        "split": ["days"],
        "records": 1,
        "family_size": [1],
        "clip": [2, 1],
        "meters": "x",
    }
    assert set(bad) == set(UTILITY_KEYS)
    for k, v in bad.items():
        with pytest.raises(ConfigError) as err:
            parse_utility({"utility": {"dataset": "galton", k: v}})
        assert err.value.field == f"utility.{k}" and err.value.rule == UTILITY_KEYS[k].rule, k


# ---------------------------------------------------------- every check of every registered plug-in


@parametrize_with_checks(EXAMPLES)
def test_contract(check):
    """Every check of :mod:`bdpsim.testing.checks` over every plug-in of the live registries (the
    model kinds, mechanism kinds, noise laws, estimators and calibration methods), through the
    parametrization a plug-in author uses; ids such as ``check_model_kind_exact[markov]``. What
    each check asserts is its docstring."""
    check()


def test_run_keys_have_default_constraint_doc():
    C.check_keys("run", GENERIC_KEYS)
    for est in ESTIMATORS.values():
        C.check_keys(f"run[{est.name}]", est.keys)


def test_summary_schema_places_every_owned_column_once_with_its_owner():
    """summary.csv's columns are the core ones with every registered kind's owned columns in their
    places, each once and named after its owner; a kind registered from a test adds its own, a
    sub-kind inheriting them does not own them twice, and a column two kinds claim is refused."""
    schema = summary_schema()
    names = [c.name for c in schema]
    assert len(names) == len(set(names))
    assert [c for c in schema if not c.owner] == list(SUMMARY_SCHEMA)
    owned = {
        oc.column.name: f"{reg.what} {k}"
        for reg in (MODEL_KINDS, ESTIMATORS)
        for k, kind in reg.items()
        for oc in kind.summary_columns
    }
    assert {c.name: c.owner for c in schema if c.owner} == owned
    for c in schema:
        if c.owner:  # right after its core column (or after columns owned next to the same one)
            before = names[: names.index(c.name)]
            anchor = next(
                oc.after
                for reg in (MODEL_KINDS, ESTIMATORS)
                for kind in reg.values()
                for oc in kind.summary_columns
                if oc.column.name == c.name
            )
            assert all(schema[j].owner for j in range(before.index(anchor) + 1, len(before)))
    kde = ESTIMATORS["kde"]
    toy = type(
        "ToyEstimator",
        (kde,),
        {
            "name": "toy",
            "summary_columns": owned_columns("n_samples", Column("toy_cells", int, "toy: a test's column")),
        },
    )
    heir = type("HeirEstimator", (kde,), {"name": "heir"})
    thief = type(
        "ThiefEstimator",
        (kde,),
        {
            "name": "thief",
            "summary_columns": owned_columns("estimator", Column("kde_backend", str, "not the kde's")),
        },
    )
    try:
        ESTIMATORS.register(toy)
        ESTIMATORS.register(heir)
        now = [c.name for c in summary_schema()]
        assert now[now.index("n_samples") + 1] == "toy_cells" and now.count("kde_backend") == 1
        ESTIMATORS.register(thief)
        with pytest.raises(TypeError, match="already owned by estimator kde"):
            summary_schema()
    finally:
        for k in ("toy", "heir", "thief"):
            ESTIMATORS.pop(k, None)
    assert summary_schema() == schema
    bad = type("BadEstimator", (kde,), {"name": "bad", "summary_columns": (Column("x", int, "not owned"),)})
    with pytest.raises(TypeError, match="summary_columns must be a tuple of OwnedColumn"):
        ESTIMATORS.register(bad)
    assert "bad" not in ESTIMATORS


# --------------------------------------------------------------------------- calibration methods


def test_dp_baseline_on_independent_records_is_eps():
    """Known answer: on independent records the DP baseline's exact BDPL is its DP epsilon."""
    cal = calibrate(MarkovChainModel(np.array([[0.3, 0.7], [0.3, 0.7]]), 5), 1.5, method="dp")
    assert cal.scale == pytest.approx(1 / 1.5) and cal.bdpl == pytest.approx(1.5, rel=1e-9)


def _half_exact(p):
    """A test module's method: half the exact scale, yet claiming eps-BDP (a broken method)."""
    ex = CALIBRATION_METHODS["exact"].calibrate(p)
    return p.result("half-exact", ex.scale / 2, "scale = exact / 2")


def _twice_exact(p):
    ex = CALIBRATION_METHODS["exact"].calibrate(p)
    return p.result("twice-exact", ex.scale * 2, "scale = 2 exact")


@pytest.fixture
def methods_under_test():
    from bdpsim.calibration import Method, register_calibration_method

    for m in (
        Method("twice-exact", _twice_exact, "twice the exact scale"),
        Method("half-exact", _half_exact, "half the exact scale"),
    ):
        register_calibration_method(m)
    yield
    for name in ("twice-exact", "half-exact"):
        CALIBRATION_METHODS.pop(name, None)


def test_a_method_registered_from_a_test_passes_the_calibration_contract(methods_under_test):
    """A calibration method registered from this module passes the same contract, and a broken one
    (eps-BDP claimed with too little noise) fails it."""
    C.check_calibration_method(CALIBRATION_METHODS["twice-exact"])
    with pytest.raises(AssertionError):
        C.check_calibration_method_chain(CALIBRATION_METHODS["half-exact"])


# ------------------------------------------------------------------ a kind registered from a test


@pytest.fixture
def toy_kind():
    """The toy model kind of tests/architecture/test_architecture.py, registered for one test."""
    kind = register_model_kind(IidKind())
    yield kind
    MODEL_KINDS.pop(kind.name, None)


def test_a_kind_registered_from_a_test_passes_the_model_contract(toy_kind):
    """The toy model kind of tests/architecture/test_architecture.py (one class, one registry
    entry) passes the same contract checks as the built-in kinds."""
    assert "iid" in MODEL_KINDS
    check_model_kind(toy_kind)
    C.check_model_kind_keys(IidKind())  # another instance of the registered class: the same kind


def test_a_broken_kind_fails_the_contract(toy_kind, monkeypatch):
    """The contract can fail: a kind whose conditional sampler ignores the condition's law."""

    def biased(self, known, size, rng):
        out = rng.choice(self.states, size=(size, self.n)).astype(np.int16)  # uniform, not probs
        for j, v in known.items():
            out[:, j] = v
        return out

    monkeypatch.setattr(IidCategorical, "sample_conditional", biased)
    with pytest.raises(AssertionError, match="do not follow the exact law"):
        C.check_model_kind_sampling(toy_kind)


class DoubledCopies(CopiesKind):
    """The copies kind of tests/models/test_toy_kind.py with an exact engine off by a factor 2."""

    name = "doubled_copies"

    def exact(self, model, mechanism):
        engine = super().exact(model, mechanism)

        class Doubled(type(engine)):
            def bdpl(self, adversary):
                e = super().bdpl(adversary)
                return Estimate(2 * e.value, e.se, e.argmax)

        return Doubled(engine.model, engine.values, engine.noise)


class DividesByZero(IidKind):
    """The iid kind whose model's ``log_evidence`` divides by zero (a plug-in's own bug)."""

    name = "divides_by_zero"

    def build(self, params, present, hints=None):
        spec = super().build(params, present, hints)
        model = replace(spec.fixed, probs=spec.fixed.probs)
        object.__setattr__(model, "log_evidence", lambda known: 1 / 0)
        return replace(spec, fixed=model)


class Empty(ModelKind):
    """A kind with a name and a builder, and nothing else."""

    name, domain, keys = "empty", "discrete", {}

    def build(self, params, present, hints=None):
        raise NotImplementedError


@dataclass(frozen=True)
class NoDraws(TwoPointNoise):
    """The toy law of tests/mechanisms/test_noise_law_plugin.py whose sampler returns nothing."""

    name: str = field(default="no_draws", init=False)
    keys: ClassVar[dict] = {}

    @classmethod
    def from_params(cls, params):
        return cls(1.0)

    def sample(self, size, rng):
        return np.zeros(0)


@pytest.fixture
def broken():
    """The broken plug-ins above, registered for one test."""
    kinds = [register_model_kind(k()) for k in (DoubledCopies, DividesByZero, Empty)]
    register_noise_law(NoDraws)
    yield
    for k in kinds:
        MODEL_KINDS.pop(k.name)
    NOISE_LAWS.pop(NoDraws.name)


def test_an_engine_off_by_two_fails_naming_the_kind_the_adversary_and_both_values(broken):
    """Before: ``contract check failed``, with no kind, adversary or value."""
    with pytest.raises(AssertionError) as err:
        check_model_kind(MODEL_KINDS["doubled_copies"])
    found = re.fullmatch(
        r"model kind 'doubled_copies' fails check_model_kind_exact: the exact engine gives BDPL "
        r"(\S+) for (Adversary\(i=\d+, known=.*\)), the brute force over every data tuple (\S+) "
        r"\(relative tolerance 1e-7\)",
        str(err.value),
    )
    assert found, str(err.value)
    assert float(found[1]) == pytest.approx(2 * float(found[3]), rel=1e-12) and float(found[3]) > 0


def test_a_broken_or_empty_plugin_fails_naming_it(broken):
    """Before: ``ZeroDivisionError`` (a law that samples nothing, in the check's own KS bound; a
    kind whose model divides by zero) or ``AttributeError`` (an object that is no kind) escaped
    the checks as themselves; an empty or unregistered kind failed with no name. Now each check
    fails naming the plug-in, the check and what is wrong."""
    cases = [
        (
            lambda: check_model_kind(MODEL_KINDS["divides_by_zero"]),
            "model kind 'divides_by_zero' fails check_model_kind_sampling: ZeroDivisionError: "
            "division by zero",
        ),
        (
            lambda: check_model_kind(MODEL_KINDS["empty"]),
            "model kind 'empty' fails check_model_kind_sampling: it declares no example (ModelKind.example)",
        ),
        (
            lambda: check_model_kind(IidKind()),
            "model kind 'iid' fails check_model_kind_keys: it is not registered under its name",
        ),
        (lambda: check_model_kind(object()), "is not a model kind: it has no name"),
        (
            lambda: check_noise_law(NoDraws),
            "noise law 'no_draws' fails check_noise_law_density: sample(20000) gave shape (0,), not (20000,)",
        ),
        (
            lambda: check_estimator(NoDraws),
            "estimator 'no_draws' fails check_estimator_independent_records: it is",
        ),
    ]
    for run, message in cases:
        with pytest.raises(AssertionError) as err:
            run()
        assert message in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_an_undocumented_key_fails_the_contract():
    with pytest.raises(AssertionError, match="no doc string"):
        C.check_keys("model[x]", {"k": Key("int", 1, rule="> 0")})
    with pytest.raises(AssertionError, match="no constraint"):
        C.check_keys("model[x]", {"k": Key("int", 1, doc="a key")})


# ------------------------------------------------------------------------ the probes stay replaced


def test_probe_counts_stay_within_issue_28_targets():
    """Capabilities are Protocols, not probes: concrete-class isinstance outside models/, getattr /
    hasattr outside cli/ and figures/, and private cross-module imports stay within the targets of
    issue 28 (scripts/architecture_counts.py defines each count)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "architecture_counts", Path(__file__).resolve().parents[2] / "scripts" / "architecture_counts.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    found = mod.counts()
    for name, limit in mod.TARGETS.items():
        assert len(found[name]) <= limit, (name, found[name])


def test_generated_counts_table_is_current():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "architecture_counts", Path(__file__).resolve().parents[2] / "scripts" / "architecture_counts.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fix = "run: python scripts/checks/architecture_counts.py --write"
    assert mod.GENERATED.read_text() == mod.markdown(), fix


def test_the_shipped_parametrization_covers_every_registered_plugin():
    """``bdpsim.testing.parametrize_with_checks`` (what :func:`test_contract` and a plug-in author
    use) names one check per (check, plug-in) of the live registries, each once and callable: the
    model kinds x the model checks, the mechanism kinds x theirs, and so on."""
    from bdpsim.testing import all_checks

    mark = parametrize_with_checks(EXAMPLES)
    ids = [i for i, _ in all_checks(EXAMPLES)]
    assert mark.args[0] == "check" and len(mark.args[1]) == len(ids) == len(set(ids))
    assert all(callable(c) for c in mark.args[1])
    expected = {
        f"{check.__name__}[{name}]"
        for registry, checks in (
            (MODEL_KINDS, C.MODEL_KIND_CHECKS),
            (MECHANISM_KINDS, C.MECHANISM_KIND_CHECKS),
            (NOISE_LAWS, C.NOISE_LAW_CHECKS),
            (ESTIMATORS, C.ESTIMATOR_CHECKS),
            (CALIBRATION_METHODS, C.CALIBRATION_CHECKS),
        )
        for name in registry
        for check in checks
    }
    assert set(ids) == expected
