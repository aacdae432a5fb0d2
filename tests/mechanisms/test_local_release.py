"""``bdpsim.LocalRelease``: one class for the local release of every record — the accountant's
randomisers and the ``continual`` kind's releases — an ordinary mechanism of the family
(``exact_bdpl``, ``bdpsim run``), the chain taken from the model, never copied into it."""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path

import numpy as np
import pytest

import bdpsim
from bdpsim.adversary import Adversary
from bdpsim.cli import main
from bdpsim.core.errors import ConfigError, NotAvailable
from bdpsim.mechanisms import RandomizedResponse
from bdpsim.pipeline.config import parse_config
from bdpsim.temporal.chain import ReleasedChain
from bdpsim.temporal.exact import temporal_exact

from ..helpers import local_release_laws as _laws
from ..helpers import local_release_loss as _brute

CONFIG = Path(__file__).resolve().parents[2] / "bdpsim" / "configs" / "temporal_example.toml"
P3 = np.array([[0.8, 0.15, 0.05], [0.3, 0.6, 0.1], [0.05, 0.15, 0.8]])  # the bundled chain
P2 = np.array([[0.9, 0.1], [0.2, 0.8]])


def test_the_accountant_and_the_kind_share_one_class():
    from bdpsim.accounting import LocalRelease as accountants
    from bdpsim.mechanisms.local import LocalRelease as mechanisms

    assert bdpsim.LocalRelease is accountants is mechanisms
    point = parse_config(tomllib.loads(CONFIG.read_text())).points[0]
    rel = point.mechanism
    assert type(rel) is bdpsim.LocalRelease and rel.kind == "continual"
    assert (rel.release, rel.epsilon, rel.states, rel.steps) == ("krr", 0.5, 3, 24)
    assert not any(isinstance(v, np.ndarray) and v.shape == (3, 3) for v in vars(rel).values())  # no chain


@pytest.mark.parametrize(
    "release,temporal",
    [
        (bdpsim.LocalRelease("krr", 1.0), {"epsilon": 1.0, "mechanism": "krr"}),
        (
            bdpsim.LocalRelease("any", [0.5] * 12 + [1.0] * 12),
            {"epsilon": [0.5] * 12 + [1.0] * 12, "mechanism": "any"},
        ),
        (
            bdpsim.LocalRelease("laplace", 1.0, state_values=[0, 1, 3]),
            {"epsilon": 1.0, "mechanism": "laplace", "values": [0, 1, 3]},
        ),
        (bdpsim.LocalRelease("staircase", 0.7), {"epsilon": 0.7, "mechanism": "staircase"}),
    ],
)
def test_exact_bdpl_of_the_adversary_who_knows_nothing_is_the_exact_max_tpl(release, temporal):
    model = bdpsim.MarkovChainModel(P3, n=24)
    got = bdpsim.exact_bdpl(model, release, sizes=(0,))
    ref = temporal_exact(P3, steps=24, initial=model.initial, **temporal)
    assert got.bdpl == pytest.approx(float(np.nanmax(ref.tpl)), abs=1e-12)
    assert got.adversary.i == int(np.nanargmax(ref.tpl)) and got.adversaries == 24 * 3


@pytest.mark.parametrize(
    "release,L",
    [
        (bdpsim.LocalRelease(RandomizedResponse(0.2)), np.array([[0.8, 0.2], [0.2, 0.8]])),
        (
            bdpsim.LocalRelease([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]]),
            np.array([[0.7, 0.1], [0.2, 0.3], [0.1, 0.6]]),
        ),
    ],
)
def test_a_randomiser_runs_through_the_temporal_engine_equal_to_brute_force(release, L):
    """Randomized response and a likelihood matrix (the accountant's forms) have an exact BDPL over
    every adversary: the temporal engine against every output sequence and state path (T = 4)."""
    T = 4
    model = bdpsim.MarkovChainModel(P2, n=T)
    pi = np.asarray(model.initial)
    got = bdpsim.exact_bdpl(model, release)
    best = 0.0
    for t in range(T):
        others = [s for s in range(T) if s != t]
        for K in itertools.chain.from_iterable(itertools.combinations(others, r) for r in range(T)):
            for vals in itertools.product(range(2), repeat=len(K)):
                known = dict(zip(K, vals))
                for a, b in itertools.permutations(range(2), 2):
                    best = max(best, _brute(P2, pi, L, T, t, known, a, b))
    assert got.bdpl == pytest.approx(best, abs=1e-10)
    one = Adversary(1, (3,), (0,), 0, 1)
    want = max(_brute(P2, pi, L, T, 1, {3: 0}, 0, 1), _brute(P2, pi, L, T, 1, {3: 0}, 1, 0))
    assert bdpsim.exact_bdpl(model, release, one).bdpl == pytest.approx(want, abs=1e-10)


def test_the_accountant_refuses_the_releases_without_a_likelihood_matrix_naming_what_to_use():
    model = bdpsim.MarkovChainModel(P3, n=6)
    for rel in (
        bdpsim.LocalRelease("any", 1.0),
        bdpsim.LocalRelease("laplace", 1.0),
        bdpsim.LocalRelease("krr", [1.0] * 6),
    ):
        with pytest.raises(NotAvailable, match=r"^release 'local release .*use bdpsim.exact_bdpl"):
            bdpsim.account(model, [rel])
    assert bdpsim.account(model, [bdpsim.LocalRelease("krr", 1.0)], sizes=[0]).bdpl.upper > 0


@pytest.mark.parametrize(
    "args,kw,field,rule",
    [
        (("krr",), {}, "release.epsilon", "k-RR needs an epsilon"),
        (("any", 800.0), {}, "release.epsilon", "700"),
        (("krr", [1.0, -1.0]), {}, "release.epsilon", "step 1"),
        (("krr", [1.0, 2.0]), {"steps": 3}, "release.epsilon", "one value per step (3)"),
        (("krr", 1.0), {"state_values": [0, 1, 2]}, "release.state_values", "laplace"),
        (("laplace", 1.0), {"state_values": [0, 1], "states": 3}, "release.state_values", "3 finite"),
        (([[0.5, 0.5], [0.5, 0.5]], 1.0), {}, "release.epsilon", "named release"),
        (("rr", 1.0), {}, "release.randomiser", "must be one of krr, any"),
        (("krr", 1.0), {"states": 0}, "release.states", ">= 1"),
        # probed after the move: a traceback's words, a count of 0 values, a rule about epsilon
        (("krr", []), {}, "release.epsilon", "none given"),
        (("laplace", 1.0), {"state_values": [0, "a"]}, "release.state_values", "2 finite numbers"),
        (("laplace", 1.0), {"state_values": 5}, "release.state_values", "a list of finite numbers"),
        ((None, 1.0), {}, "release.randomiser", "must be one of krr, any"),
        (("krr", 1.0), {"states": 1}, "release.states", ">= 2 states"),
    ],
)
def test_bad_arguments_are_one_config_error_naming_the_argument(args, kw, field, rule):
    with pytest.raises(ConfigError) as err:
        bdpsim.LocalRelease(*args, **kw)
    assert err.value.field == field and rule in str(err.value), str(err.value)


def test_a_schedule_is_the_epsilon_largest_and_its_length_is_checked_against_the_chain():
    rel = bdpsim.LocalRelease("krr", [0.5, 2.0, 1.0])
    assert rel.epsilon == 2.0 and rel.epsilon_schedule == (0.5, 2.0, 1.0)
    assert (
        rel.scaled(0.5).epsilon_schedule == (0.25, 1.0, 0.5)
        and rel.with_epsilon(1.0).epsilon_schedule is None
    )
    with pytest.raises(ConfigError, match=r"^release.epsilon = .*one value per step \(4\)"):
        ReleasedChain.of_model(bdpsim.MarkovChainModel(P3, n=4), rel)
    with pytest.raises(ConfigError, match=r"^release.states = 2: must be the chain's 3 states"):
        ReleasedChain.of_model(bdpsim.MarkovChainModel(P3, n=3), bdpsim.LocalRelease("krr", 1.0, states=2))


# ---------------------------------------------------------------- what a run of the kind refuses and shows
def _raw(n, **mechanism):
    return {
        "run": {"estimator": "exact", "adversaries": "all", "known_sizes": [0]},
        "model": {"kind": "markov", "n": n, "transition": P3.tolist()},
        "mechanism": {"kind": "continual", "release": "krr", **mechanism},
    }


def test_a_chain_of_ten_thousand_steps_is_refused_from_the_estimate_before_any_work():
    """n = 10 000 passed validate and ran ~80 s CPU building 3e8 known-set cells; refused in one
    line with the size, the estimate and the limit."""
    with pytest.raises(ConfigError) as err:
        parse_config(_raw(10_000, epsilon=1.0))
    assert err.value.field == "model.n" and err.value.value == 10_000
    msg = str(err.value)
    assert "30000 adversaries" in msg and "~3e+08 cells" in msg and "limit 2e+07" in msg
    parse_config(_raw(2000, epsilon=1.0))  # below the limit: accepted


def test_cli_validate_refuses_a_long_chain_in_one_line_exit_2(tmp_path, capsys):
    cfg = tmp_path / "long.toml"
    cfg.write_text(
        f'[run]\nestimator = "exact"\nadversaries = "all"\nknown_sizes = [0]\n'
        f'[model]\nkind = "markov"\nn = 10000\ntransition = {P3.tolist()}\n'
        '[mechanism]\nkind = "continual"\nrelease = "krr"\nepsilon = 1.0\n'
    )
    assert main(["validate", str(cfg)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bdpsim: error: model.n = 10000: 10000 steps"), err


def test_cli_validate_shows_a_schedule_as_a_schedule(tmp_path, capsys):
    cfg = tmp_path / "s.toml"
    sched = [0.1, 0.5, 0.2, 0.3, 0.5, 0.4]
    cfg.write_text(
        f'[run]\nestimator = "exact"\nadversaries = "all"\nknown_sizes = [0]\n'
        f'[model]\nkind = "markov"\nn = 6\ntransition = {P3.tolist()}\n'
        f'[mechanism]\nkind = "continual"\nrelease = "krr"\nepsilon_schedule = {sched}\n'
    )
    assert main(["validate", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "eps=schedule of 6 (0.1..0.5)" in out and "eps=0.5 " not in out


# ---------------------------------------------------------------- the optimal attack on a local release
def _tpr(p, q, alpha) -> float:
    """Neyman-Pearson: the largest ``P(reject)`` under ``p`` at ``Q(reject) = alpha`` (randomised)."""
    order = np.argsort(-(p / q))
    tpr, fpr = 0.0, 0.0
    for j in order:
        if fpr + q[j] >= alpha:
            return tpr + p[j] * (alpha - fpr) / q[j]
        tpr, fpr = tpr + p[j], fpr + q[j]
    return tpr


def test_attack_risk_of_a_local_release_brackets_the_brute_force_advantage_and_the_tpr():
    """``attack_risk`` refused a local release (NotAvailable); now the advantage (``TV = delta(0)``)
    and the worst TPR at FPR 0.1 are certified in brackets holding the brute-force maximum over
    every adversary, order and output sequence (T = 4); the TPR's adversary attains it."""
    T, eps = 4, 1.0
    model = bdpsim.MarkovChainModel(P2, n=T)
    pi = np.asarray(model.initial)
    L = np.array([[np.e, 1.0], [1.0, np.e]]) / (np.e + 1)
    tv, tpr = 0.0, 0.0
    for t in range(T):
        others = [s for s in range(T) if s != t]
        for K in itertools.chain.from_iterable(itertools.combinations(others, r) for r in range(T)):
            for vals in itertools.product(range(2), repeat=len(K)):
                p, q = _laws(P2, pi, L, T, t, dict(zip(K, vals)), 0, 1)
                tv = max(tv, 0.5 * float(np.abs(p - q).sum()))
                tpr = max(tpr, _tpr(p, q, 0.1), _tpr(q, p, 0.1))
    risk = bdpsim.attack_risk(model, bdpsim.LocalRelease("krr", eps))
    assert risk.worst and risk.advantage.kind == "certified bracket"
    assert risk.advantage.low - 1e-12 <= tv <= risk.advantage.high + 1e-12 and risk.advantage.width <= 1e-6
    # the TPR was an upper bound (the profile's f-DP curve); now the worst adversary's own most
    # powerful test, certified, with the adversary attaining its lower end
    b = risk.tpr_at(0.1)
    assert b.kind == "certified bracket" and b.low - 1e-12 <= tpr <= b.high + 1e-12 and b.width <= 1e-9
    w = b.adversary
    p, q = _laws(P2, pi, L, T, w.i, dict(zip(w.known, w.x_known)), w.x, w.x_prime)
    assert b.low - 1e-12 <= _tpr(p, q, 0.1) <= b.high + 1e-12
    assert [x.low for x in risk.worst_tprs([0.1])] == [b.low]
    one = Adversary(1, (3,), (0,), 0, 1)
    p, q = _laws(P2, pi, L, T, 1, {3: 0}, 0, 1)
    mine = bdpsim.attack_risk(model, bdpsim.LocalRelease("krr", eps), one)
    assert mine.advantage.low - 1e-12 <= 0.5 * float(np.abs(p - q).sum()) <= mine.advantage.high + 1e-12
    with pytest.raises(NotAvailable, match=r"supremum over every eps-DP step.*exact_bdpl"):
        bdpsim.attack_risk(model, bdpsim.LocalRelease("any", eps))
    with pytest.raises(NotAvailable, match=r"not the BDPL beside them.*exact_bdpl"):
        bdpsim.attack_risk(model, bdpsim.LocalRelease("krr", eps), bdpl=True)  # what bdpsim attack asks


# ---------------------------------------------------------------- calibration of a local release
def test_calibrate_gives_the_largest_epsilon_meeting_the_target_rounded_down():
    """``calibrate(model, target, mechanism=LocalRelease(...))`` refused a local release (not an
    additive query); now it answers the largest k-RR epsilon, to 6 significant digits, whose exact
    max_t TPL_t (``temporal_exact``, independent of the engine's adversary search) meets the target,
    and one unit more in the last digit does not."""
    model = bdpsim.MarkovChainModel(P3, n=24)
    cal = bdpsim.calibrate(model, 3.0, mechanism=bdpsim.LocalRelease("krr", 1.0))
    assert cal.epsilon == 0.394886 and cal.release.epsilon_schedule is None
    tpl = lambda e: float(np.nanmax(temporal_exact(P3, e, 24, "krr", initial=model.initial).tpl))  # noqa: E731
    assert tpl(cal.epsilon) == pytest.approx(cal.bdpl, abs=1e-12) and cal.bdpl <= 3.0
    assert tpl(cal.epsilon + 1e-6) > 3.0
    sched = [0.5] * 12 + [1.0] * 12
    cal = bdpsim.calibrate(model, 3.0, mechanism=bdpsim.LocalRelease("any", sched))
    got = np.array(cal.release.epsilon_schedule)
    assert np.allclose(got / np.array(sched), cal.factor) and cal.epsilon == 0.439605
    ref = lambda c: float(
        np.nanmax(temporal_exact(P3, list(c * np.array(sched)), 24, "any", initial=model.initial).tpl)
    )  # noqa: E731,E501
    assert ref(cal.factor) <= 3.0 < ref(cal.factor + 1e-6)
    with pytest.raises(ConfigError, match=r"^epsilon = -1: the target BDPL must be"):
        bdpsim.calibrate(model, -1, mechanism=bdpsim.LocalRelease("krr", 1.0))
    with pytest.raises(ConfigError, match=r"^mechanism = .*give a named release"):
        bdpsim.calibrate(
            bdpsim.MarkovChainModel(P2, n=4), 1.0, mechanism=bdpsim.LocalRelease(RandomizedResponse(0.2))
        )


def test_calibrate_at_the_ends_of_the_budget_range():
    """A target no budget meets (below the leakage of steps at the least epsilon, 1e-9) is one
    ``ConfigError`` naming the target (it was the internal ``release.epsilon = 9.99999e-10``); a
    target above what the largest budget (700) leaks answers that budget and says it is capped."""
    model = bdpsim.MarkovChainModel(P2, n=6)
    for target in (1e-300, 1e-9):
        with pytest.raises(ConfigError, match=r"^epsilon = 1e-(300|09): no budget of the release meets it"):
            bdpsim.calibrate(model, target, mechanism=bdpsim.LocalRelease("krr", 1.0))
    cal = bdpsim.calibrate(model, 1e308, mechanism=bdpsim.LocalRelease("krr", 1.0))
    assert cal.epsilon == 699.999 and "capped" in cal.reason
    assert "capped" not in bdpsim.calibrate(model, 1.0, mechanism=bdpsim.LocalRelease("krr", 1.0)).reason


def test_a_likelihood_matrix_draws_its_rows_and_a_named_release_needs_its_states_to_draw():
    """``M[x, r]``: the empirical output frequencies of each state within 5 standard errors
    (N = 40 000); k-RR without ``states`` names the argument instead of guessing ``k``."""
    M = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    N = 40_000
    out = bdpsim.LocalRelease(M)(np.repeat(np.array([[0, 1]]), N, axis=0), np.random.default_rng(3))
    for x in range(2):
        freq = np.bincount(out[:, x].astype(int), minlength=3) / N
        assert np.all(np.abs(freq - M[x]) <= 5 * np.sqrt(M[x] * (1 - M[x]) / N)), (x, freq)
    with pytest.raises(ConfigError, match=r"^release.states = None: drawing a named release needs"):
        bdpsim.LocalRelease("krr", 1.0)(np.zeros((2, 3), dtype=int), np.random.default_rng(0))


def test_exact_bdpl_over_every_known_set_of_a_long_chain_is_refused_before_the_work():
    with pytest.raises(ConfigError) as err:
        bdpsim.exact_bdpl(bdpsim.MarkovChainModel(P3, n=24), bdpsim.LocalRelease("krr", 1.0))
    assert (
        err.value.field == "sizes"
        and "5066549580791808 adversaries (T = 24, 3 states): above 200000" in str(err.value)
    )
    assert "known sizes [0] (the adversary who knows no step" in str(err.value)


def test_known_sizes_may_be_a_range_or_an_array():
    """``sizes=range(n)`` (or a NumPy array) is the list it spells, in ``exact_bdpl``,
    ``attack_risk`` and ``account`` (each refused it: 'must be ... a non-empty list'); an empty
    range and sizes past ``n - 1`` are still one line naming the sizes."""
    model = bdpsim.MarkovChainModel(P2, n=4)
    rel = bdpsim.LocalRelease("krr", 1.0)
    want = bdpsim.exact_bdpl(model, rel, sizes=[0, 1, 2, 3]).bdpl
    assert bdpsim.exact_bdpl(model, rel, sizes=range(4)).bdpl == want
    assert bdpsim.exact_bdpl(model, rel, sizes=np.arange(4)).bdpl == want
    assert (
        bdpsim.attack_risk(model, rel, sizes=range(4)).advantage
        == bdpsim.attack_risk(model, rel, sizes=[0, 1, 2, 3]).advantage
    )
    for bad, rule in ((range(0), "non-empty list"), (range(5), "0..n-1 = 0..3")):
        with pytest.raises(ConfigError, match=rule):
            bdpsim.exact_bdpl(model, rel, sizes=bad)
