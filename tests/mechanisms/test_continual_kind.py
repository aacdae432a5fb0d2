"""``[mechanism] kind = "continual"`` (issue 34 item 5): per-adversary exact leakage against an
independent brute force, the bundled config through ``bdpsim.run`` against
``bdpsim.temporal_leakage``, the released law, the estimators' answers and bad input."""

from __future__ import annotations

import itertools
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

import bdpsim
from bdpsim.adversary import Adversary
from bdpsim.cli import main
from bdpsim.core.errors import ConfigError
from bdpsim.estimators import ESTIMATORS
from bdpsim.kernels.chains.transition import stationary_distribution
from bdpsim.pipeline.config import parse_config
from bdpsim.temporal.exact import TemporalEngine, temporal_exact
from bdpsim.temporal.mechanisms import step_release

from ..helpers import local_release_loss as _brute

CONFIG = Path(__file__).resolve().parents[2] / "bdpsim" / "configs" / "temporal_example.toml"


@pytest.mark.parametrize(
    "k,T,mechanism,sticky",
    [
        (2, 4, "krr", False),
        (3, 4, "krr", False),
        (3, 3, "any", False),
        (3, 4, "any", True),
        (4, 3, "krr", True),
    ],
)
def test_per_adversary_leakage_equals_brute_force(k, T, mechanism, sticky):
    rng = np.random.default_rng([34, k, T])
    P = rng.dirichlet(np.ones(k), size=k)
    if sticky:
        P = 0.3 * P + 0.7 * np.eye(k)
    pi = stationary_distribution(P)
    rel = step_release(mechanism, k, 0.9)
    L = rel.likelihoods / rel.likelihoods.sum(axis=0)  # k-RR's law; "any": the mechanism the kind runs
    chain = TemporalEngine([P] * (T - 1), pi, [rel] * T)
    checked = 0
    for t in range(T):
        others = [s for s in range(T) if s != t]
        for K in itertools.chain.from_iterable(itertools.combinations(others, r) for r in range(3)):
            for vals in itertools.product(range(k), repeat=len(K)):
                known = dict(zip(K, vals))
                for a, b in itertools.permutations(range(k), 2):
                    assert chain.one_sided(t, known, a, b) == pytest.approx(
                        _brute(P, pi, L, T, t, known, a, b), abs=1e-10
                    ), (t, known, a, b)
                    checked += 1
    assert checked > 50


def test_bundled_config_bdpl_max_is_the_exact_max_tpl_and_cao_column_is_caos():
    raw = tomllib.loads(CONFIG.read_text())
    table = bdpsim.run(raw)
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    P, T = raw["model"]["transition"], raw["model"]["n"]
    assert sorted(r["epsilon"] for r in rows) == raw["mechanism"]["epsilon"]
    for r in rows:
        ref = bdpsim.temporal_leakage(P, r["epsilon"], T, raw["mechanism"]["release"], as_frame=False)
        assert r["bdpl_max"] == pytest.approx(max(x["tpl"] for x in ref), abs=1e-10)
        assert r["cao_tpl_max"] == pytest.approx(max(x["cao_tpl"] for x in ref), abs=1e-10)
        assert r["cao_tpl_max"] > r["bdpl_max"] + 0.1  # the gap the kind exists to show
        assert r["release"] == "krr" and r["n_adversaries"] == T * 3  # every target and unordered pair


def test_a_run_propagates_each_chain_once_not_once_per_target(monkeypatch):
    """Every target of a point reads the same forward and backward sweep: a run is linear in T
    (one task per target redid both sweeps at every target: 2 T sweeps, quadratic in T)."""
    import bdpsim.temporal.exact as E

    sweeps = []
    propagate = E.propagate
    monkeypatch.setattr(E, "propagate", lambda *a, **k: sweeps.append(1) or propagate(*a, **k))
    raw = tomllib.loads(CONFIG.read_text())
    raw["model"]["n"], raw["mechanism"]["epsilon"] = 30, 1.0
    rows = bdpsim.run(raw).to_dict("records")
    assert rows[0]["n_adversaries"] == 30 * 3 and len(sweeps) == 2


def _point(release="krr", n=5, transition=((0.8, 0.2), (0.3, 0.7)), epsilon=1.0, **run):
    return parse_config(
        {
            "run": {"estimator": "exact", "adversaries": 3, **run},
            "model": {"kind": "markov", "n": n, "transition": [list(r) for r in transition]},
            "mechanism": {"kind": "continual", "epsilon": epsilon, "release": release},
        }
    ).points[0]


def test_known_steps_match_temporal_exact_with_a_known_set():
    P = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6]])
    point = _point("any", n=6, transition=P)
    eng = point.mechanism.exact(point.model.probe())
    ref = temporal_exact(P, 1.0, 6, "any", known=[3])  # step 3 (1-based) known
    for t in (0, 1, 3, 4, 5):
        v = max(
            eng.bdpl(Adversary(t, (2,), (c,), a, b)).value
            for c in range(3)
            for a, b in itertools.combinations(range(3), 2)
        )
        assert v == pytest.approx(ref.tpl[t], abs=1e-10)


@pytest.mark.parametrize("release", ["krr", "any"])
def test_released_law_matches_its_likelihoods(release):
    """Empirical output frequencies per state within 5 standard errors of ``P(r | x)``; k-RR's is
    ``e^eps / (e^eps + k - 1)`` on the diagonal."""
    k = 3
    point = _point(release, n=4, transition=np.full((k, k), 1 / k))
    mech = point.mechanism
    law = mech.output_law()
    if release == "krr":
        e = math.e
        assert np.allclose(law, (np.ones((k, k)) + np.eye(k) * (e - 1)) / (e + k - 1))
    N = 40_000
    data = np.repeat(np.array([[0, 1, 2, 0]]), N, axis=0)  # step x holds state x (x < 3)
    out = mech(data, np.random.default_rng(7))
    assert out.shape == (N, 4)
    for x in range(k):
        r = out[:, x].astype(int)
        freq = np.bincount(r, minlength=law.shape[0]) / N
        se = np.sqrt(law[:, x] * (1 - law[:, x]) / N)
        assert np.all(np.abs(freq - law[:, x]) <= 5 * se + 1e-12), (x, freq, law[:, x])


def test_estimators_kde_and_mixture_refuse_with_a_reason_exact_takes_it():
    point = _point("krr")
    model, mech = point.model.probe(), point.mechanism
    for name in ("kde", "mixture"):
        why = ESTIMATORS[name].supports(model, mech)
        assert isinstance(why, str) and why.strip(), name
    assert ESTIMATORS["exact"].supports(model, mech) is None
    hist = _point("laplace").mechanism
    assert hist.output_dim == 5 * 2 and hist(np.zeros((3, 5)), np.random.default_rng(1)).shape == (3, 10)


@pytest.mark.parametrize(
    "mechanism,model,field",
    [
        ({"release": "rr"}, None, "mechanism.release"),
        ({"release": "krr", "epsilon": -1.0}, None, "mechanism.epsilon"),
        ({"release": "krr"}, {"kind": "gaussian", "n": 3, "rho": 0.3}, "mechanism"),
    ],
)
def test_bad_input_is_one_config_error(mechanism, model, field):
    raw = {
        "run": {"estimator": "exact", "adversaries": 2},
        "model": model or {"kind": "markov", "n": 4, "gamma": 3.0},
        "mechanism": {"kind": "continual", "epsilon": 1.0, **mechanism},
    }
    with pytest.raises(ConfigError) as err:
        parse_config(raw)
    assert err.value.field.startswith(field)


def test_cli_run_bad_release_one_line_exit_2(tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(
        '[model]\nkind = "markov"\nn = 4\ngamma = 3.0\n'
        '[mechanism]\nkind = "continual"\nepsilon = 1.0\nrelease = "rr"\n'
    )
    assert main(["run", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bdpsim: error: mechanism.release = ")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("eps", [800.0, 1e-300])
def test_a_budget_past_the_floating_range_is_refused_by_the_kind(eps):
    """e^800 overflows (the run's numbers were inf/nan); 1e-300 makes every likelihood equal."""
    with pytest.raises(ConfigError, match=r"^mechanism\.epsilon = .*\[1e-09, 700\]"):
        _point(epsilon=eps)


def test_a_chain_whose_other_state_never_occurs_is_refused_not_run_with_no_adversary():
    """From the stationary law (1, 0) state 1 never occurs: the search finished with zero
    adversaries and no note."""
    with pytest.raises(ConfigError, match=r"model\.transition = .*states \[1\] never do"):
        _point(transition=((1.0, 0.0), (0.5, 0.5)), epsilon=1.0)
    _point(transition=((0.0, 1.0), (1.0, 0.0)))  # a cycle: both states occur, every step one of them


# ---------------------------------------------------------------- per-step budgets and state values
P3 = [[0.8, 0.15, 0.05], [0.3, 0.6, 0.1], [0.05, 0.15, 0.8]]


def _raw(n=6, **mechanism):
    return {
        "run": {"estimator": "exact", "adversaries": "all", "known_sizes": [0], "seed": 3},
        "model": {"kind": "markov", "n": n, "transition": P3},
        "mechanism": {"kind": "continual", **mechanism},
    }


@pytest.mark.parametrize(
    "mechanism,temporal",
    [
        (
            {"release": "krr", "epsilon_schedule": [2.0, 0.5, 0.5, 1.0, 0.5, 2.0]},
            {"epsilon": [2.0, 0.5, 0.5, 1.0, 0.5, 2.0], "mechanism": "krr"},
        ),
        (
            {"release": "laplace", "epsilon": 1.0, "state_values": [0.0, 1.0, 3.0]},
            {"epsilon": 1.0, "mechanism": "laplace", "values": [0.0, 1.0, 3.0]},
        ),
        (
            {
                "release": "geometric",
                "epsilon_schedule": [1.0, 0.5, 1.5, 1.0, 0.5, 1.0],
                "state_values": [0, 2, 5],
            },
            {"epsilon": [1.0, 0.5, 1.5, 1.0, 0.5, 1.0], "mechanism": "geometric", "values": [0, 2, 5]},
        ),
    ],
)
def test_schedule_and_state_values_keys_give_temporal_leakage_numbers(mechanism, temporal):
    """``mechanism.epsilon_schedule`` and ``mechanism.state_values`` run the release ``bdpsim
    temporal`` computes with ``--epsilon e_1 .. e_T`` and ``--state-values``: the same max TPL and
    Cao's max TPL; the ``epsilon`` column is the largest step budget (each step is that DP)."""
    rows = bdpsim.run(_raw(**mechanism)).to_dict("records")
    ref = bdpsim.temporal_leakage(P3, steps=6, as_frame=False, **temporal)
    (row,) = rows
    assert row["bdpl_max"] == pytest.approx(max(x["tpl"] for x in ref), abs=1e-10)
    assert row["cao_tpl_max"] == pytest.approx(max(x["cao_tpl"] for x in ref), abs=1e-10)
    assert row["epsilon"] == max(np.ravel(temporal["epsilon"]))
    eng = TemporalEngine.of(
        bdpsim.temporal.chain.ReleasedChain.of(
            P3, temporal["epsilon"], 6, temporal["mechanism"], state_values=temporal.get("values")
        )
    )
    assert row["bdpl_max"] == pytest.approx(float(np.max(eng.leakage([]).tpl)), abs=1e-10)


def test_cli_run_with_a_schedule_equals_bdpsim_temporal(tmp_path, capsys):
    cfg = tmp_path / "sched.toml"
    cfg.write_text(
        '[run]\nestimator = "exact"\nadversaries = "all"\nknown_sizes = [0]\n'
        f'[model]\nkind = "markov"\nn = 5\ntransition = {P3}\n'
        '[mechanism]\nkind = "continual"\nrelease = "laplace"\n'
        "epsilon_schedule = [1.5, 0.5, 0.5, 0.5, 1.5]\nstate_values = [0.0, 2.0, 3.0]\n"
    )
    assert main(["run", str(cfg), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    import csv
    import json

    (row,) = list(csv.DictReader((tmp_path / "out" / "summary.csv").open()))
    doc = tmp_path / "t.json"
    args = ["temporal", "--transition", str(P3), "--n", "5", "--release", "laplace", "--json", str(doc)]
    args += ["--epsilon", *"1.5 0.5 0.5 0.5 1.5".split(), "--state-values", "0", "2", "3"]
    assert main(args) == 0
    capsys.readouterr()
    ref = json.loads(doc.read_text())
    assert float(row["bdpl_max"]) == pytest.approx(max(ref["tpl"]), abs=1e-10)
    assert float(row["cao_tpl_max"]) == pytest.approx(max(ref["cao_tpl"]), abs=1e-10)


SCHEDULE, VALUES = "mechanism.epsilon_schedule", "mechanism.state_values"


@pytest.mark.parametrize(
    "mechanism,field,rule",
    [
        ({"release": "krr", "epsilon_schedule": [1.0, 1.0]}, SCHEDULE, "one value per step"),
        ({"release": "krr", "epsilon_schedule": [1.0] * 5 + [900.0]}, SCHEDULE, "700"),
        ({"release": "krr", "epsilon": 1.0, "epsilon_schedule": [1.0] * 6}, SCHEDULE, "not both"),
        ({"release": "krr"}, "mechanism.epsilon", "required"),
        ({"release": "krr", "epsilon": 1.0, "state_values": [0, 1, 2]}, VALUES, "laplace"),
        ({"release": "laplace", "epsilon": 1.0, "state_values": [0, 1]}, VALUES, "3 finite"),
        ({"release": "geometric", "epsilon": 1.0, "state_values": [0, 0.5, 2]}, VALUES, "integer"),
    ],
)
def test_bad_schedule_or_state_values_is_one_config_error(mechanism, field, rule):
    with pytest.raises(ConfigError) as err:
        parse_config(_raw(**mechanism))
    assert err.value.field == field and rule in str(err.value), str(err.value)


@pytest.mark.parametrize("command", ["validate", "run"])
def test_cli_bad_schedule_one_line_exit_2_nothing_written(tmp_path, capsys, command):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(
        f'[model]\nkind = "markov"\nn = 4\ntransition = {P3}\n'
        '[mechanism]\nkind = "continual"\nrelease = "krr"\nepsilon_schedule = [1.0, 2.0]\n'
    )
    out = tmp_path / "out"
    argv = [command, str(cfg)] + (["--out", str(out)] if command == "run" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bdpsim: error: mechanism.epsilon_schedule = [1.0, 2.0]"), err
    assert "one value per step" in err[0] and not out.exists()


def test_state_values_release_samples_value_plus_laplace_noise_of_each_steps_budget():
    """``r_t = v_{x_t} + Laplace(b_t)``, ``b_t = (max v - min v) / eps_t``: the empirical median and
    mean absolute deviation within 5 standard errors (N = 40 000)."""
    raw = _raw(n=3, release="laplace", epsilon_schedule=[0.5, 1.0, 2.0], state_values=[0.0, 1.0, 4.0])
    mech = parse_config(raw).points[0].mechanism
    assert mech.output_dim == 3
    N = 40_000
    out = mech(np.repeat(np.array([[0, 2, 1]]), N, axis=0), np.random.default_rng(11))
    assert out.shape == (N, 3)
    for t, (v, eps) in enumerate(zip([0.0, 4.0, 1.0], [0.5, 1.0, 2.0])):
        b = 4.0 / eps
        assert abs(np.median(out[:, t]) - v) < 5 * b / np.sqrt(N)
        assert abs(np.mean(np.abs(out[:, t] - v)) - b) < 5 * b / np.sqrt(N)


# ---------------------------------------------------------------- what the run's columns are
def test_column_docs_say_what_gamma_and_cao_tpl_max_are():
    """``gamma`` (the chain's max P / min P, read by the Markov bound) and ``cao_tpl_max`` (the
    adversary who knows no step: beside ``bdpl_max`` only with ``known_sizes = [0]``) explained."""
    from bdpsim.pipeline.results import markdown_columns  # what the column reference prints

    docs = {}
    for line in markdown_columns().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if cells[0] == "summary.csv":
            docs[cells[1].strip("`")] = " | ".join(cells[4:])
    assert "max P / min P" in docs["gamma"] and "bound_model" in docs["gamma"]
    assert "knows no step" in docs["cao_tpl_max"] and "known_sizes = [0]" in docs["cao_tpl_max"]


def test_console_shows_cao_beside_exact_and_says_whom_it_bounds(tmp_path, capsys):
    cfg = tmp_path / "k.toml"
    cfg.write_text(
        f'[run]\nestimator = "exact"\nadversaries = "all"\nknown_sizes = [0, 1]\n'
        f'[model]\nkind = "markov"\nn = 5\ntransition = {P3}\n'
        '[mechanism]\nkind = "continual"\nrelease = "krr"\nepsilon = 1.0\n'
    )
    assert main(["run", str(cfg), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(out) if line.lstrip().startswith("estimator"))
    assert "cao_tpl_max" in out[head].split()
    cao = max(x["cao_tpl"] for x in bdpsim.temporal_leakage(P3, 1.0, 5, "krr", as_frame=False))
    assert f"{cao:.4g}" == out[head + 1].split()[-1]
    assert any(line.startswith("gamma: the chain's max P / min P") for line in out)
    assert any("bounds only the adversary who knows no step" in line and "0;1" in line for line in out)


def test_plot_of_a_continual_run_draws_caos_bound(tmp_path):
    """The bundled config's title says "vs Cao": the figure draws ``cao_tpl_max`` per epsilon."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bdpsim.figures.summary import plot_summary
    from bdpsim.pipeline.results import read_summary

    raw = _raw(n=5, release="krr", epsilon=[0.5, 1.0])
    assert main(["run", _write(tmp_path, raw), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    rows = read_summary(tmp_path / "out")
    fig, ax = plt.subplots()
    plot_summary(rows, ax)
    (line,) = [ln for ln in ax.get_lines() if "Cao" in ln.get_label()]
    want = sorted((r["epsilon"], r["cao_tpl_max"]) for r in rows)
    assert list(line.get_xdata()) == [e for e, _ in want] and list(line.get_ydata()) == [c for _, c in want]
    plt.close(fig)


def _write(tmp_path, raw) -> str:
    """``raw`` as a TOML config file (flat tables of numbers, strings and lists)."""

    def val(v):
        return f'"{v}"' if isinstance(v, str) else str(v)

    text = "".join(
        f"[{t}]\n" + "".join(f"{k} = {val(v)}\n" for k, v in raw[t].items())
        for t in ("run", "model", "mechanism")
    )
    path = tmp_path / "c.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("release", ["krr", "any"])
def test_a_schedule_releases_each_step_at_its_own_budget(release):
    """Per step, the empirical output frequencies of state 0 within 5 standard errors of
    ``P(r | x = 0)`` at that step's budget (k-RR: ``e^eps_t / (e^eps_t + 2)`` kept)."""
    schedule = [0.5, 2.0, 0.5, 2.0]
    raw = _raw(n=4, release=release, epsilon_schedule=schedule)
    raw["model"]["transition"] = [[1 / 3] * 3] * 3
    mech = parse_config(raw).points[0].mechanism
    N = 40_000
    out = mech(np.zeros((N, 4), dtype=int), np.random.default_rng(5))
    for t, eps in enumerate(schedule):
        law = mech.output_law(eps)[:, 0]
        if release == "krr":
            assert law[0] == pytest.approx(math.exp(eps) / (math.exp(eps) + 2))
        freq = np.bincount(out[:, t].astype(int), minlength=law.size) / N
        assert np.all(np.abs(freq - law) <= 5 * np.sqrt(law * (1 - law) / N) + 1e-12), (t, freq, law)


GAUSSIAN = """title = "hourly values with Gaussian noise"
[run]
estimator = "exact"
[model]
kind = "markov"
n = 4
transition = [[0.8, 0.2], [0.3, 0.7]]
[mechanism]
kind = "continual"
release = "gaussian"
sigma = 1.5
state_values = [0.0, 2.0]
"""


def test_a_gaussian_continual_config_is_the_value_noise_release_and_run_points_to_account(tmp_path, capsys):
    """``release = "gaussian"`` (refused: not a pure-DP release) builds
    :class:`bdpsim.ValueNoise` over the chain, which ``bdpsim account`` brackets; ``bdpsim run``
    with the exact estimator says its BDPL is +inf and where its profile is, an audit samples it;
    the keys of the other form are one line naming the field."""
    from bdpsim.pipeline.account_config import load_account_config

    cfg = tmp_path / "g.toml"
    cfg.write_text(GAUSSIAN)
    (rel,) = load_account_config(str(cfg)).releases
    assert isinstance(rel, bdpsim.ValueNoise) and rel.sigma == 1.5 and rel.state_values == (0.0, 2.0)
    assert rel.states == 2 and rel.steps == 4
    y = rel(np.array([[0, 1, 1, 0]] * 20000), np.random.default_rng(3))
    assert np.allclose(y.mean(axis=0), [0, 2, 2, 0], atol=0.05) and abs(y.std() - np.sqrt(1.5**2 + 1)) < 0.03
    assert main(["validate", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "BDPL is +inf" in err and "bdpsim account CONFIG" in err
    for old, new, message in [
        ("sigma = 1.5\n", "", "mechanism.sigma = None: is required for release = 'gaussian'"),
        ("sigma = 1.5", "sigma = 1.5\nepsilon = 1.0", "mechanism.epsilon = 1.0: Gaussian noise has sigma"),
        ("sigma = 1.5", "sigma = -1.0", "mechanism.sigma = -1.0: must be a finite number > 0"),
        (
            'release = "gaussian"\nsigma = 1.5',
            'release = "krr"\nepsilon = 1.0\nsigma = 1.5',
            "mechanism.sigma = 1.5",
        ),
    ]:
        cfg.write_text(GAUSSIAN.replace(old, new, 1))
        assert main(["validate", str(cfg)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
