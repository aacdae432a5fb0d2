"""Contract tests over the LIVE registries (as scikit-learn's ``parametrize_with_checks`` and
dp_accounting's shared accountant tests): every model kind, mechanism kind, noise law, estimator
and calibration method registered when the suite starts is checked against the same contract, so a
new kind passes them or says why not. A kind registered from a test module passes them too
(:func:`test_a_kind_registered_from_a_test_passes_the_model_contract`).

Tolerances come from the sample size (chi-square and normal quantiles at a fixed seed); every
check runs in well under a second per kind.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import bdpsim.testing.checks as C
from bdpsim.calibration.methods import CALIBRATION_METHODS, calibrate
from bdpsim.core.columns import Column, owned_columns
from bdpsim.core.errors import ConfigError
from bdpsim.core.schema import Key
from bdpsim.estimators import ESTIMATORS
from bdpsim.kernels.noise.laws import NOISE_LAWS
from bdpsim.mechanisms import MECHANISM_KINDS
from bdpsim.models import MODEL_KINDS, MarkovChainModel, register_model_kind
from bdpsim.pipeline.rows import SUMMARY_SCHEMA, summary_schema
from bdpsim.pipeline.settings import GENERIC_KEYS
from bdpsim.testing import check_model_kind

from ..architecture.test_architecture import IidCategorical, IidKind

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


# ------------------------------------------------------------------------------------ model kinds

MODEL_NAMES = sorted(MODEL_KINDS)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_kind_keys_have_default_constraint_doc(name):
    C.check_model_kind_keys(MODEL_KINDS[name])


def test_run_keys_have_default_constraint_doc():
    C.check_keys("run", GENERIC_KEYS)
    for est in ESTIMATORS.values():
        C.check_keys(f"run[{est.name}]", est.keys)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_kind_conditional_sampling_matches_its_exact_law(name):
    """Conditional sampling agrees with the model's exact law at small n: discrete models against
    the brute-force conditional of their ``log_evidence`` (chi-square, p > 1e-4 at a fixed seed);
    Gaussian models against their closed-form conditional mean and covariance (within 5 standard
    errors of 20 000 draws)."""
    C.check_model_kind_sampling(MODEL_KINDS[name])


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_kind_exact_engine_agrees_with_brute_force_or_mixture(name):
    """The kind's exact engine (or its reason for having none) on its example: against the brute
    force over every data tuple for discrete models, else against the mixture estimator within its
    interval."""
    C.check_model_kind_exact(MODEL_KINDS[name])


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_kind_cost_bounds_and_answers(name):
    """Cost finite and non-negative; ``accepts``/``windows``/``supports`` give None or a reason;
    the bounds are Bound values keyed as documented."""
    C.check_model_kind_cost(MODEL_KINDS[name])


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_kind_window_rows_are_window_rows(name):
    """An all-adversary search's rows (``ExactEngine.window``) satisfy ``WindowRow``: their
    ``table_row()`` gives exactly the adversary columns (no node names: the driver adds those from
    the model), ``adversary()`` the adversary with that target, and ``bdpl`` its value."""
    C.check_model_kind_window_rows(MODEL_KINDS[name])


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_kind_search_agrees_with_brute_force(name):
    """An engine with the search over every adversary and ``with_noise``: a two-component score
    (BDPL, delta(0.5)) searched in one pass equals the brute force over every adversary, with the
    kind's noise and with another, and the adversaries it reports attain it."""
    C.check_model_kind_search(MODEL_KINDS[name])


# ------------------------------------------------------------------------------- mechanism kinds

MECHANISM_NAMES = sorted(MECHANISM_KINDS)


@pytest.mark.parametrize("name", MECHANISM_NAMES)
def test_mechanism_kind_keys_have_default_constraint_doc(name):
    C.check_mechanism_kind_keys(MECHANISM_KINDS[name])


@pytest.mark.parametrize("name", MECHANISM_NAMES)
def test_mechanism_kind_builds_runs_and_describes_itself(name):
    """The example builds; the mechanism maps a batch ``(N, n)`` to ``N`` outputs (first axis),
    deterministically for a seed; its columns and extras are registered; epsilon is None or > 0;
    every estimator answers None or a reason."""
    C.check_mechanism_kind_runs(MECHANISM_KINDS[name], EXAMPLES.get(name))


@pytest.mark.parametrize("name", MECHANISM_NAMES)
def test_mechanism_kind_exact_value_agrees_with_the_mixture(name):
    """Where the model has an exact engine for the mechanism, the exact BDPL of one adversary lies
    within the mixture estimator's interval (5 standard errors) whenever the mixture applies, and
    below the general bound ``m eps`` when the mechanism is eps-DP."""
    C.check_mechanism_kind_exact(MECHANISM_KINDS[name], EXAMPLES.get(name))


# ------------------------------------------------------------------------------------ noise laws


@pytest.mark.parametrize("name", sorted(NOISE_LAWS))
def test_noise_law_is_normalised_and_its_exact_sup_matches_a_grid(name):
    """pmf/pdf sums/integrates to 1 and matches the cdf; sampling follows the cdf (KS at a fixed
    seed); the exact sup of the log-ratio of two mixtures is the grid's maximum (and +inf only when
    the grid's keeps growing); the batched ``grid_sup`` and the pair ``sup_log_ratio`` agree, and so
    do ``grid_delta`` and ``hockey_stick``."""
    C.check_noise_law_density(NOISE_LAWS[name])


@pytest.mark.parametrize("name", sorted(NOISE_LAWS))
def test_noise_law_owns_its_keys_and_its_mean_abs(name):
    """Issue 36: a law's config keys (``keys``) each have a doc and a rule and are keys of every
    query kind; its ``mean_abs()`` is ``E|Z|``: checked against the mean of 400 000 samples, within
    5 standard errors (seeded)."""
    C.check_noise_law_keys(NOISE_LAWS[name])


@pytest.mark.parametrize("name", sorted(NOISE_LAWS))
def test_noise_law_declares_whether_it_calibrates_and_is_pure(name):
    """``calibratable``: the law has an amount ``with_parameter`` changes (a table does not);
    ``pure_dp`` of a calibratable law: its ``dp_epsilon`` for a sensitivity of one step is finite.
    ``bdpsim calibrate markov --noise`` takes exactly the calibratable laws."""
    C.check_noise_law_flags(NOISE_LAWS[name])


# ------------------------------------------------------------------------------------ estimators


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_contract_on_independent_records(name):
    """Independent records: the BDPL is the DP epsilon. Every estimator supports a Laplace count on
    an i.i.d. chain; its ``reference`` is that epsilon; an estimate with a standard error lies within
    5 of them of it (exact estimators: equal); a certified lower bound (``bdpl_lower``) lies below
    it; ``cost`` is finite; ``summary`` fills registered cells."""
    C.check_estimator_independent_records(ESTIMATORS[name])


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_declares_every_column_it_fills(name):
    """Every registered estimator's columns are declared (:func:`_check_declared`) and its
    ``summary`` fills only core cells, the columns it owns and its extras."""
    C.check_estimator_columns(ESTIMATORS[name])


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


@pytest.mark.parametrize("method", sorted(CALIBRATION_METHODS))
def test_calibration_method_contract(method):
    """Every method of the one registry is a :class:`CalibrationMethod` (name, doc, guarantee,
    ``supports``, ``calibrate``). On a small chain it returns a Calibration, never an exception:
    not applicable (with the reason ``supports`` gives) or a noise. A method that claims eps-BDP
    (and the Pufferfish mechanisms, on this chain) prescribes noise whose exact BDPL is at most the
    target, and no Laplace scale below the exact method's smallest eps-BDP one; the DP baseline's
    BDPL is at least eps (the DP adversary alone leaks Delta / b = eps)."""
    C.check_calibration_method_chain(CALIBRATION_METHODS[method])


@pytest.mark.parametrize("method", sorted(CALIBRATION_METHODS))
def test_calibration_method_on_groups_of_records(method):
    """On groups of correlated records (the utility experiment's Gaussian and genomic data) every
    method answers with a Calibration: a chain-only method is not applicable, the bounds give their
    known scales (general: Delta m / eps; Gaussian with rho = 0: Delta / eps; DP: Delta / eps)."""
    C.check_calibration_method_groups(CALIBRATION_METHODS[method])


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
    """The toy model kind of tests/architecture/test_architecture.py (one class, one registry "
    "entry) passes the
    same contract checks as the built-in kinds."""
    assert "iid" in MODEL_KINDS
    check_model_kind(toy_kind)


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
    assert mod.GENERATED.read_text() == mod.markdown(), "run: python scripts/architecture_counts.py --write"


def test_the_shipped_parametrization_covers_every_registered_plugin():
    """``bdpsim.testing.parametrize_with_checks`` (what a plug-in author uses) names one check per
    (check, plug-in) of the live registries, and each is a callable."""
    from bdpsim.kernels.noise.laws import NOISE_LAWS
    from bdpsim.testing import all_checks, parametrize_with_checks

    mark = parametrize_with_checks(EXAMPLES)
    ids = [i for i, _ in all_checks(EXAMPLES)]
    assert mark.args[0] == "check" and len(mark.args[1]) == len(ids) == len(set(ids))
    assert all(callable(c) for c in mark.args[1])
    for name in [*MODEL_KINDS, *NOISE_LAWS, *ESTIMATORS, *CALIBRATION_METHODS]:
        assert any(i.endswith(f"[{name}]") for i in ids), name
