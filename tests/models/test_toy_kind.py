"""A new model kind is one class plus one registry call (issue 36 item 7): a toy kind defined and
registered in this test module — records in blocks of identical copies — passes the plug-in
contract (:func:`bdpsim.testing.check_model_kind`) and runs a TOML config end to end through
``bdpsim run`` with the exact estimator (its own exact engine) and the mixture estimator (Monte
Carlo), both checked against the closed form. No package file is touched.

The model: ``n`` records in consecutive blocks of ``block`` records; every record of a block is a
copy of the block's value ``V ~ probs`` and the blocks are independent. Its exact BDPL under a
query + Laplace mechanism is known in closed form (group privacy, attained): an adversary can
condition on ``X_i = x`` and on ``X_i = x'`` only if it knows no copy of the target, so the query
``S = sum_r v(X_r)`` is ``block v(x) + R`` against ``block v(x') + R`` with the same law of ``R``
(the other blocks), and for noise ``Lap(scale)``

    BDPL_(K,i)(x, x') = block |v(x) - v(x')| / scale,

the supremum being reached in the tail ``y -> ±inf`` of the output, whatever the law of ``R``.
For a count (``v`` the indicator of the counted states, ``scale = 1 / eps``) it is ``block eps``
when exactly one of ``x, x'`` is counted and 0 otherwise: the general bound ``m eps`` with
``m = block``, met with equality.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest

from bdpsim.adversary import Adversary
from bdpsim.cli import main
from bdpsim.core.errors import ConfigError, NotAvailable, check
from bdpsim.core.schema import Key
from bdpsim.kernels.chains.lattice import lattice
from bdpsim.kernels.noise.laws import GeometricNoise, NoiseLaw
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MODEL_KINDS, ModelKind, ModelSpec, register_model_kind
from bdpsim.models.engines import BdplScore, HasNoiseLaw, HasSearch, QueryLaws, QueryLawsEngine, engine_for
from bdpsim.pipeline.results import read_adversaries, read_summary
from bdpsim.queries import additive_noisy
from bdpsim.testing import check_model_kind

# ------------------------------------------------------------------------------------ the model


@dataclass(frozen=True)
class BlockCopies:
    """``n`` records in blocks of ``block`` identical copies of a value ``V ~ probs``; the blocks
    are independent. Implements :class:`bdpsim.models.base.DiscreteModel`."""

    probs: tuple[float, ...]
    n: int
    block: int
    kind: str = field(default="copies", init=False)

    @property
    def states(self) -> int:
        return len(self.probs)

    def block_values(self, known) -> dict[int, int] | None:
        """The value of every block holding a known record (``None``: two copies disagree)."""
        out: dict[int, int] = {}
        for j, v in known.items():
            if out.setdefault(j // self.block, int(v)) != int(v):
                return None
        return out

    def log_evidence(self, known) -> float:
        """``log P(X_K = x_K) = sum over the blocks met of log probs[value]`` (``-inf`` if two
        known copies disagree)."""
        fixed = self.block_values(known)
        if fixed is None:
            return -math.inf
        return float(sum(math.log(self.probs[v]) for v in fixed.values()))

    def sample(self, size, rng):
        return self.sample_conditional({}, size, rng)

    def sample_conditional(self, known, size, rng):
        fixed = self.block_values(known)
        if fixed is None:
            raise ValueError(f"known = {dict(known)}: copies of one block must agree")
        values = rng.choice(self.states, size=(size, self.n // self.block), p=self.probs)
        for b, v in fixed.items():
            values[:, b] = v
        return np.repeat(values, self.block, axis=1).astype(np.int16)


# ------------------------------------------------------------------------------- the exact engine


class CopiesEngine(QueryLawsEngine):
    """Exact engine of an additive query plus any noise law, written as the two laws of the query
    on its lattice (:class:`~bdpsim.models.engines.QueryLawsEngine` gives the rest from the noise
    law's exact functions: ``bdpl``, ``one_sided``, ``profile``, the search over every adversary
    with any score, ``with_noise``): each free block adds ``block g(V)`` lattice steps, ``V ~
    probs`` (a convolution), each block holding a known record adds ``block g(its value)``."""

    method = "block convolution on the query's lattice + the noise law's exact mixture functions"

    def __init__(self, model: BlockCopies, values: tuple[float, ...], noise: NoiseLaw) -> None:
        self.model, self.values, self.noise = model, values, noise

    def query_laws(self, adversary: Adversary) -> QueryLaws:
        m = self.model
        g, step, low = lattice(np.asarray(self.values, dtype=float))
        one = np.zeros(m.block * int(g.max()) + 1)
        for s, q in enumerate(m.probs):  # one free block: block g(V) steps
            one[m.block * int(g[s])] += q
        laws = []
        for v in (adversary.x, adversary.x_prime):
            fixed = m.block_values(adversary.condition(v))
            if fixed is None:
                raise NotAvailable(f"adversary {adversary}: a condition of probability zero")
            law = np.zeros(m.block * sum(int(g[u]) for u in fixed.values()) + 1)
            law[-1] = 1.0
            for _ in range(m.n // m.block - len(fixed)):
                law = np.convolve(law, one)
            laws.append(law)
        J = max(w.size for w in laws)
        w1, w2 = (np.pad(w, (0, J - w.size)) for w in laws)
        return QueryLaws(m.n * low + step * np.arange(J), w1, w2, step)


# ------------------------------------------------------------------------------------- the kind


class CopiesKind(ModelKind):
    """``[model] kind = "copies"``: keys, builder, adversaries that can exist, exact engine; the
    cost, bounds and summary columns are :class:`~bdpsim.models.base.ModelKind`'s defaults."""

    name = "copies"
    doc = "records in blocks of identical copies; independent blocks"
    keys = {
        "n": Key("int", doc="number of records", rule="integer >= 1, a multiple of block"),
        "block": Key("int", 2, doc="records per block (copies of one value)", rule="integer >= 1"),
        "probs": Key("vector", doc="the law of a block's value", rule="a probability vector, entries > 0"),
    }
    domain = "discrete"
    example = {"n": 4, "block": 2, "probs": [0.5, 0.3, 0.2]}

    def build(self, params, present, hints=None):
        n, block, probs = params["n"], params["block"], params["probs"]
        check(block is not None and block >= 1, "model.block", block, "must be an integer >= 1")
        check(
            n is not None and n >= 1 and n % block == 0,
            "model.n",
            n,
            f"must be a multiple of block = {block}",
        )
        p = np.asarray(probs if probs is not None else [], dtype=float)
        ok = p.size >= 2 and bool(np.all(p > 0)) and abs(p.sum() - 1) < 1e-9
        check(ok, "model.probs", probs, "must be >= 2 positive numbers summing to 1")
        model = BlockCopies(tuple(float(v) for v in p), n, block)
        return ModelSpec(self.name, n, block, fixed=model, owner=self)  # m = block: the bound m eps

    def draw_adversary(self, model, sizes, rng, *, targets="uniform", target_range=None, spec=None):
        """A uniform target, ``|K|`` uniform in ``sizes``, ``K`` uniform among the records outside
        the target's block (an adversary knowing a copy of the target cannot condition on both
        ``x`` and ``x'``), a uniform pair of states and ``x_K`` from the model's law."""
        i = int(rng.integers(model.n))
        others = [j for j in range(model.n) if j // model.block != i // model.block]
        fit = [int(k) for k in sizes if k <= len(others)]
        check(fit, "run.known_sizes", list(sizes), f"needs a size <= n - block = {len(others)}")
        k = fit[int(rng.integers(len(fit)))]
        known = tuple(sorted(int(j) for j in rng.choice(others, size=k, replace=False)))
        x, x_prime = (int(v) for v in rng.choice(model.states, size=2, replace=False))
        x_known = tuple(int(v) for v in model.sample(1, rng)[0, list(known)])
        return Adversary(i, known, x_known, x, x_prime)

    def exact(self, model, mechanism):
        qn = additive_noisy(mechanism)
        if qn is None:
            self.no_engine(mechanism, "exact engines: an additive query plus noise")
        values = np.asarray(qn[0].per_state(model.states), dtype=float)
        if values.ndim != 1:
            self.no_engine(mechanism, "exact engines: one value per state")
        return CopiesEngine(model, tuple(float(v) for v in values), qn[1])  # with the search, with_noise


@pytest.fixture
def copies_kind():
    kind = register_model_kind(CopiesKind())
    yield kind
    MODEL_KINDS.pop("copies", None)


# ---------------------------------------------------------------------------------------- tests


def closed_form(block: int, x: int, x_prime: int, counted, epsilon: float) -> float:
    """``block eps |1[x counted] - 1[x' counted]|``: a count plus ``Lap(1 / eps)``."""
    return block * epsilon * abs((x in counted) - (x_prime in counted))


def test_the_toy_kind_passes_the_plugin_contract(copies_kind):
    check_model_kind(copies_kind)


def test_the_toy_kind_searches_every_adversary_with_any_noise_and_no_more_code(copies_kind):
    """Its engine writes its query laws only; the search over every adversary (by enumeration) and
    another noise law come with :class:`~bdpsim.models.engines.QueryLawsEngine`: the worst adversary
    of a count of state 2 on blocks of 2 leaks ``block eps`` (group privacy, attained), for any
    amount of Laplace noise; with geometric noise of parameter eps on the count's lattice as well."""
    model = BlockCopies((0.5, 0.3, 0.2), 6, 2)
    eng = engine_for(model, LaplaceCount(0.5, (2,)))
    assert isinstance(eng, HasSearch) and isinstance(eng, HasNoiseLaw)
    for eps in (0.5, 1.5):
        found = eng.with_noise(eng.noise.with_parameter(1 / eps)).search(BdplScore(), 0)
        assert found.value[0] == pytest.approx(closed_form(2, 2, 0, {2}, eps), abs=1e-9)
        a = found.worst[0].adversary()
        assert {a.x, a.x_prime} in ({2, 0}, {2, 1}) and a.i // 2 not in {k // 2 for k in a.known}
    found = eng.with_noise(GeometricNoise(0.8)).search(BdplScore(), 1)
    assert found.value[0] == pytest.approx(2 * 0.8, abs=1e-9)


CONFIG = """
[run]
adversaries = 12
estimator = "{estimator}"
known_sizes = [0, 1, 2, 3, 4]
{samples}noise_floor_adversaries = 0
confidence = 0.99
{mixture}
[model]
kind = "copies"
n = 6
block = 2
probs = [0.5, 0.3, 0.2]

[mechanism]
kind = "count"
epsilon = 0.5
counted_states = [2]
"""
N_SAMPLES = 20_000
#: the mixture estimator's own keys (a fixed sample size): refused beside another estimator
MIXTURE = "mixture_target_width = 0\nmixture_target_se = 0\n"


def _run(tmp_path, estimator: str, epsilon: str = "0.5"):
    cfg = tmp_path / f"{estimator}.toml"
    own = MIXTURE if estimator == "mixture" else ""
    samples = "" if estimator == "exact" else f"samples = {N_SAMPLES}\n"  # the exact samples nothing
    text = CONFIG.format(estimator=estimator, samples=samples, mixture=own)
    cfg.write_text(text.replace("epsilon = 0.5", f"epsilon = {epsilon}"))
    out = tmp_path / estimator
    assert main(["run", str(cfg), "--out", str(out), "--quiet"]) == 0
    return read_summary(out), read_adversaries(out)


def test_bdpsim_run_exact_equals_the_closed_form(copies_kind, tmp_path):
    """Every adversary's exact value is ``block eps |1[x counted] - 1[x' counted]|`` (a sweep of
    eps: one configuration point each)."""
    points, rows = _run(tmp_path, "exact", epsilon="[0.5, 1.5]")
    eps = {p["point_id"]: p["epsilon"] for p in points}
    assert sorted(eps.values()) == [0.5, 1.5] and len(rows) == 24
    assert max(len(r["known"].split(";")) for r in rows) == 4  # |K| <= n - block
    for r in rows:
        exact = closed_form(2, int(r["x"]), int(r["x_prime"]), {2}, eps[r["point_id"]])
        assert r["bdpl"] == pytest.approx(exact, abs=1e-9)
    for p in points:  # a pair counting exactly one of x, x' was drawn: the max is the bound m eps
        assert p["bdpl_max"] == pytest.approx(2 * p["epsilon"], abs=1e-9) == p["bound_general"]


def test_bdpsim_run_monte_carlo_within_its_interval_of_the_closed_form(copies_kind, tmp_path):
    """The mixture estimator (N = 2e4 draws per condition; the model offers no exact query law to
    fall back on): each adversary's certified interval (level 0.99: simultaneous Clopper-Pearson
    bounds on the query's values) holds the closed form, and the estimate is within 5 of its
    delta-method standard errors of it, which are of order ``1 / sqrt(N)`` (0 when the adversary
    knows every other block: the query is then a constant plus the target's block)."""
    (summary,), rows = _run(tmp_path, "mixture")
    assert len(rows) == 12
    for r in rows:
        exact = closed_form(2, int(r["x"]), int(r["x_prime"]), {2}, 0.5)
        assert r["samples"] == N_SAMPLES and r["mixture_law"] == "sampled"
        assert r["bdpl_ci_low"] <= exact <= r["bdpl_ci_high"], r
        assert r["bdpl_se"] <= 3 / math.sqrt(N_SAMPLES), r
        assert abs(r["bdpl"] - exact) <= 5 * r["bdpl_se"] + 1e-12, r
        assert r["exact"] == pytest.approx(exact, abs=1e-9)  # the kind's engine, as a reference
    assert summary["bdpl_max_ci_low"] <= 1.0 <= summary["bdpl_max_ci_high"]


def test_the_toy_kind_answers_bad_input_in_one_line(copies_kind, tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(CONFIG.format(estimator="exact", samples="", mixture="").replace("n = 6", "n = 5"))
    assert main(["run", str(cfg), "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err == "bdpsim: error: model.n = 5: must be a multiple of block = 2"
        and not (tmp_path / "bad").exists()
    )
    with pytest.raises(ConfigError, match="model.probs.*summing to 1"):
        CopiesKind().build({"n": 4, "block": 2, "probs": [0.5, 0.6]}, set())


@pytest.fixture
def installed(monkeypatch):
    """An installed plug-in package: ``bdpsim.plugins`` entry points (``[project.entry-points]``)
    naming the modules given, read afresh (as by a new process)."""
    import sys
    from importlib.metadata import EntryPoint

    from bdpsim.core import registry

    def install(**modules: str) -> None:
        eps = [EntryPoint(name, value, registry.PLUGIN_GROUP) for name, value in modules.items()]
        monkeypatch.setattr(
            registry, "entry_points", lambda group: eps if group == registry.PLUGIN_GROUP else []
        )
        monkeypatch.setattr(registry, "_scanned", False)
        monkeypatch.setattr(registry, "_skipped", {})

    yield install
    MODEL_KINDS.pop("copies", None)
    sys.modules.pop("tests.support.copies_plugin", None)


def test_an_installed_plugin_kind_runs_from_the_shell_command(installed, tmp_path, capsys):
    """``bdpsim run`` in a shell knows only what its process imports: a kind shipped by another
    package reaches it through an entry point of the group ``bdpsim.plugins``, imported when the
    first config is read. Nothing is registered by the test itself."""
    assert "copies" not in MODEL_KINDS
    installed(copies="tests.support.copies_plugin")
    (summary,), rows = _run(tmp_path, "exact")
    assert summary["model"] == "copies" and summary["bdpl_max"] == pytest.approx(1.0, abs=1e-9)
    installed(broken="no_such_plugin_module")  # an unrelated broken plug-in: named, and skipped
    cfg = tmp_path / "exact.toml"
    with pytest.warns(UserWarning, match=r"^plug-in broken \(no_such_plugin_module\): ModuleNotFoundError"):
        assert main(["validate", str(cfg)]) == 0
    assert "valid, 1 configuration point" in capsys.readouterr().out


def test_a_plugin_cannot_shadow_a_kind_of_another_module(copies_kind):
    """An installed plug-in claiming a built-in kind's name would silently change every run of
    it: refused at registration, naming the holder. The same module registering again (a reload)
    replaces its own entry."""

    class Markov(CopiesKind):
        name = "markov"

    with pytest.raises(TypeError, match=r"model kind 'markov' is built into bdpsim \(bdpsim\.models\."):
        register_model_kind(Markov())
    assert register_model_kind(CopiesKind()) is MODEL_KINDS["copies"]
    assert type(MODEL_KINDS["markov"]).__module__ == "bdpsim.models.markov.kind"


def test_the_toy_kind_is_calibrated_with_no_more_code(copies_kind, tmp_path, capsys):
    """Calibration reaches the toy kind through its engine alone: the least Laplace scale of a
    count of state 2 on blocks of 2 is ``block / eps`` (the closed form ``block / scale <= eps``),
    the optimal integer noise is eps-BDP and needs no more ``E|Z|``; ``calibrate config`` on its
    config gives the same scale."""
    import json

    import bdpsim

    model, eps = BlockCopies((0.5, 0.3, 0.2), 4, 2), 0.8
    c = bdpsim.calibrate(model, eps, counted_states=[2])
    assert c.scale == pytest.approx(2 / eps, rel=1e-8) and c.scale >= 2 / eps * (1 - 1e-12)
    assert c.bdpl <= eps * (1 + 1e-12)
    opt = bdpsim.calibrate(model, eps, counted_states=[2], method="optimal")
    assert opt.bdpl <= eps * (1 + 1e-9) and opt.mean_abs <= c.mean_abs * (1 + 1e-9)
    cfg = tmp_path / "copies.toml"
    cfg.write_text('[model]\nkind = "copies"\nn = 4\nblock = 2\nprobs = [0.5, 0.3, 0.2]\n')
    assert main(["calibrate", "config", str(cfg), "--epsilon", str(eps), "--counted", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scale"] == c.scale
