"""The plug-in architecture: registries, typed rows with a schema, bounds with their conditions."""

import math
import subprocess
from dataclasses import dataclass, field

import numpy as np
import pytest

from bdpsim.adversary import Adversary
from bdpsim.core.errors import ConfigError, NotAvailable
from bdpsim.core.schema import Key
from bdpsim.estimators import MixtureEstimator, adversary_bdpl, register_estimator
from bdpsim.mechanisms import ClippedSum
from bdpsim.models import MODEL_KINDS, GaussianModel, ModelKind, ModelSpec, register_model_kind
from bdpsim.models.engines import HasExhaustive, HasWindowSearch
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_experiment
from bdpsim.pipeline.results import csv_text, read_summary
from bdpsim.pipeline.rows import summary_columns

from ..conftest import PY, ROOT

MARKOV = {
    "run": {
        "adversaries": 6,
        "samples": 2000,
        "estimator": "mixture",
        "noise_floor_adversaries": 0,
    },
    "model": {"kind": "markov", "n": 4, "gamma": 3.0},
    "mechanism": {"kind": "count", "epsilon": 1.0},
}


def test_summary_round_trip_keeps_ids_as_text(tmp_path):
    ids = ["1234e56789012345", "0000000000000123", "00000000000000e1", "nan0000000000000"]
    cols = summary_columns()
    rows = [
        {c: "" for c in cols} | {"point_id": pid, "n": 3, "epsilon": 0.5, "argmax_x": "007"} for pid in ids
    ]
    (tmp_path / "summary.csv").write_text(csv_text(rows, cols))
    back = read_summary(tmp_path)
    assert [r["point_id"] for r in back] == ids
    assert all(r["n"] == 3 and isinstance(r["n"], int) and r["epsilon"] == 0.5 for r in back)
    assert back[0]["argmax_x"] == "007" and math.isnan(back[0]["rho"])


def test_foreign_summary_is_one_clear_error(tmp_path):
    (tmp_path / "summary.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ConfigError, match="not a bdpsim result column"):
        read_summary(tmp_path)
    (tmp_path / "summary.csv").write_bytes(b"\x00\xff\xfe")
    with pytest.raises(ConfigError):
        read_summary(tmp_path)


def test_percentile_names_the_columns(tmp_path):
    doc = {**MARKOV, "run": {**MARKOV["run"], "percentile": 95}}
    rows = run_experiment(parse_config(doc), tmp_path, progress=False)
    header = (tmp_path / "summary.csv").read_text().splitlines()[0].split(",")
    assert "bdpl_p95" in header and "bdpl_p95_ci_low" in header and not any("p99" in h for h in header)
    back = read_summary(tmp_path)
    assert back[0]["bdpl_p95"] == pytest.approx(rows[0]["bdpl_p95"])


def test_percentile_cannot_vary_within_a_config():
    doc = {**MARKOV, "run": {**MARKOV["run"], "percentile": [95, 99]}}
    with pytest.raises(ConfigError, match="run.percentile"):
        parse_config(doc)


# ----------------------------------------------------------------- one module + one registry entry


@dataclass(frozen=True)
class IidCategorical:
    """Independent records with a categorical law: the smallest possible new data model."""

    probs: tuple[float, ...]
    n: int
    kind: str = field(default="iid", init=False)

    @property
    def states(self) -> int:
        return len(self.probs)

    def log_evidence(self, known) -> float:
        return float(sum(math.log(self.probs[v]) for v in known.values()))

    def sample(self, size, rng):
        return self.sample_conditional({}, size, rng)

    def sample_conditional(self, known, size, rng):
        out = rng.choice(self.states, size=(size, self.n), p=self.probs).astype(np.int16)
        for j, v in known.items():
            out[:, j] = v
        return out


class IidKind(ModelKind):
    """A toy model kind defined in this test module: keys, builder, and (inherited) defaults."""

    name = "iid"
    doc = "independent categorical records"
    keys = {
        "n": Key("int", doc="number of records", rule="integer >= 1"),
        "probs": Key("vector", hashed=False, doc="the law of every record", rule="a probability vector"),
    }
    domain = "discrete"
    example = {"n": 3, "probs": [0.2, 0.3, 0.5]}

    def build(self, params, present, hints=None):
        model = IidCategorical(tuple(params["probs"]), params["n"])
        return ModelSpec(self.name, model.n, model.n, fixed=model, owner=self)


@pytest.fixture
def iid_kind():
    kind = register_model_kind(IidKind())
    yield kind
    MODEL_KINDS.pop("iid", None)


def test_a_new_model_is_one_registry_entry(iid_kind, tmp_path):
    """A model kind registered from a test module runs a config end to end (no package file
    touched): validation, adversaries, estimator, bounds, summary."""
    doc = {
        "run": {
            "adversaries": 8,
            "samples": 20000,
            "estimator": "mixture",
            "known_sizes": "all",
            "noise_floor_adversaries": 0,
        },
        "model": {"kind": "iid", "n": 4, "probs": [0.2, 0.3, 0.5]},
        "mechanism": {"kind": "count", "epsilon": 1.0, "counted_states": [2]},
    }
    rows = run_experiment(parse_config(doc), tmp_path, progress=False)
    # independent records: the BDPL is the DP epsilon (mixture estimator, 2e4 samples per condition)
    assert rows[0]["bdpl_max"] == pytest.approx(1.0, abs=0.08)
    assert rows[0]["bound_general"] == 4.0 and rows[0]["bound_lower"] == 1.0
    bad = {**doc, "model": {**doc["model"], "gamma": 2.0}}
    with pytest.raises(ConfigError, match="model.gamma.*not a key of a iid model"):
        parse_config(bad)
    with pytest.raises(ConfigError, match="mechanism.counted_states.*0..2"):
        parse_config({**doc, "mechanism": {"kind": "count", "epsilon": 1.0, "counted_states": [3]}})
    with pytest.raises(ConfigError, match="mechanism.kind.*discrete records"):
        parse_config({**doc, "mechanism": {"kind": "clipped_sum", "epsilon": 1.0}})
    exact = {k: v for k, v in doc["run"].items() if k != "samples"}  # nothing sampled
    with pytest.raises(ConfigError, match="run.estimator.*no exact BDPL for model 'iid'"):
        parse_config({**doc, "run": {**exact, "estimator": "exact"}})


def test_an_incomplete_kind_fails_when_it_registers():
    class NoBuild(ModelKind):
        name = "nobuild"

    with pytest.raises(TypeError):
        register_model_kind(NoBuild())
    half = IidKind()
    half.draw_adversary = None
    with pytest.raises(TypeError, match="lacks draw_adversary"):
        register_model_kind(half)
    assert "nobuild" not in MODEL_KINDS and "iid" not in MODEL_KINDS

    class NoSummary:
        name, keys, exact = "half", {}, False

        @classmethod
        def from_settings(cls, settings):
            return cls()

    with pytest.raises(TypeError, match="lacks"):
        register_estimator(NoSummary)
    with pytest.raises(TypeError, match="does not implement the DataModel protocol"):
        ModelSpec("x", 3, 3, fixed=object())


def test_adding_a_key_keeps_existing_point_ids(iid_kind):
    before_kind = MODEL_KINDS.pop("iid")
    before = parse_config(MARKOV).points[0].id
    MODEL_KINDS["iid"] = before_kind
    assert parse_config(MARKOV).points[0].id == before


def test_exact_engines_come_from_the_model_kinds():
    chain = parse_config(MARKOV).points[0]
    eng = chain.exact_engine
    assert (
        isinstance(eng, HasWindowSearch)
        and isinstance(eng, HasExhaustive)
        and "forward recursion" in eng.method
    )
    doc = {**MARKOV, "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all"}}
    assert len(parse_config(doc).points) == 1
    gauss = {
        "run": {"adversaries": "all", "estimator": "exact"},
        "model": {"kind": "gaussian", "n": 3, "rho": 0.2},
        "mechanism": {"kind": "clipped_sum", "epsilon": 1.0},
    }
    with pytest.raises(ConfigError, match="run.estimator"):
        parse_config(gauss)


# ----------------------------------------------------------------- bounds only where they apply


def _spec(doc):
    return parse_config(doc).points[0]


def test_gaussian_bound_needs_constant_diagonal():
    doc = {
        "run": {"adversaries": 5, "samples": 1000, "estimator": "mixture"},
        "model": {
            "kind": "gaussian",
            "n": 3,
            "mean": [5.0, 5.0, 5.0],
            "cov": [[1.0, 0.2, 0.0], [0.2, 2.0, 0.0], [0.0, 0.0, 1.0]],
        },
        "mechanism": {"kind": "clipped_sum", "epsilon": 1.0},
    }
    b = _spec(doc).bounds()
    assert math.isnan(b["model"].value) and "constant diagonal" in b["model"].reason
    doc["model"]["cov"] = [[1.0, 0.2, 0.0], [0.2, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert math.isfinite(_spec(doc).bounds()["model"].value)


def test_block_is_checked_against_an_explicit_cov():
    doc = {
        "run": {"adversaries": 5, "samples": 1000, "estimator": "mixture"},
        "model": {
            "kind": "gaussian",
            "n": 4,
            "block": 2,
            "mean": [5.0] * 4,
            "cov": [[1, 0.2, 0.1, 0], [0.2, 1, 0, 0], [0.1, 0, 1, 0.3], [0, 0, 0.3, 1]],
        },
        "mechanism": {"kind": "clipped_sum", "epsilon": 1.0},
    }
    with pytest.raises(ConfigError, match="model.block"):
        parse_config(doc)
    doc["model"]["cov"] = [[1, 0.2, 0, 0], [0.2, 1, 0, 0], [0, 0, 1, 0.3], [0, 0, 0.3, 1]]
    assert _spec(doc).bounds()["general"].value == 2.0


def test_markov_and_zhao_need_a_stationary_start():
    doc = {
        **MARKOV,
        "model": {"kind": "markov", "n": 4, "transition": [[0.8, 0.2], [0.3, 0.7]], "initial": [1.0, 0.0]},
    }
    b = _spec(doc).bounds()
    assert math.isnan(b["model"].value) and "(H2)" in b["model"].reason
    assert math.isnan(b["zhao"].value) and "(H2)" in b["zhao"].reason
    assert b["general"].value == 4.0


def test_clipped_sum_exact_uses_the_conditional_gain():
    """cov[0, 2] = 0 but X_2 depends on X_0 given X_1: no closed form (the old shortcut said 1.0,
    the truth is 1.1905), and the mixture estimator finds the larger value."""
    S = np.array([[1, 0.4, 0], [0.4, 1, -0.4], [0, -0.4, 1]])
    g = GaussianModel(np.full(3, 5.0), S)
    mech = ClippedSum(1.0, (0.0, 10.0))
    adv = Adversary(0, (1,), (5.0,), 0.0, 10.0)
    with pytest.raises(NotAvailable):
        adversary_bdpl(g, mech, adv)
    est = MixtureEstimator(400_000).estimate(g, mech, adv, np.random.default_rng(3))
    assert est.value == pytest.approx(1.1905, abs=0.03)
    # with the target's only correlate known, the tail value is exact
    assert adversary_bdpl(g, mech, Adversary(0, (1, 2), (5.0, 5.0), 0.0, 10.0)).value == pytest.approx(1.0)


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "configs").glob("*.toml")))
def test_validate_accepts_every_bundled_config(name, bdpsim_cli):
    p = bdpsim_cli("validate", ROOT / "configs" / name)
    assert p.returncode == 0, p.stderr
    assert "valid" in p.stdout


def test_validate_prints_swept_values(bdpsim_cli, tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        '[run]\nadversaries = 5\n[model]\nkind = "markov"\nn = 4\ngamma = [2.0, 3.0]\n'
        '[mechanism]\nkind = "count"\nepsilon = [0.5, 1.0]\n'
    )
    p = bdpsim_cli("validate", cfg)
    assert p.returncode == 0 and "4 configuration points" in p.stdout
    assert "sweep model.gamma = [2, 3]" in p.stdout and "sweep mechanism.epsilon = [0.5, 1]" in p.stdout


def test_no_import_side_effect_on_matplotlib_backend(cli_env):
    """In a fresh interpreter: importing bdpsim must not pick a matplotlib backend."""
    code = (
        "import matplotlib; matplotlib.use('pdf'); import bdpsim, bdpsim.cli, bdpsim.pipeline.driver; "
        "print(matplotlib.get_backend())"
    )
    p = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=cli_env)
    assert p.stdout.strip().lower() == "pdf", p.stderr
