"""The comparison: every calibrated mechanism's exact BDPL against brute force; table and figure."""

import math

import numpy as np
import pytest

from bdpsim.calibration import CALIBRATION_METHODS, calibrate
from bdpsim.mechanisms import LaplaceCount
from bdpsim.mechanisms.randomized_response.core import flip_for_chain
from bdpsim.mechanisms.randomized_response.direct import rr_bdpl_bruteforce
from bdpsim.models import MarkovChainModel, symmetric_chain
from bdpsim.models.markov.exact import exhaustive_markov_count
from bdpsim.studies.competition import LAPLACE_METHODS, competition_rows, laplace_rows, not_eps_bdp, rr_rows

ACTIVITY = [[0.882, 0.118], [0.305, 0.695]]
NEW = ("markov-quilt-approx", "markov-quilt-exact", "wasserstein", "group")


def test_new_methods_are_registered():
    assert set(NEW) <= set(CALIBRATION_METHODS)
    assert set(LAPLACE_METHODS) <= set(CALIBRATION_METHODS)


@pytest.mark.parametrize(
    "P,T,eps",
    [
        (ACTIVITY, 7, 1.0),
        (ACTIVITY, 6, 5.0),
        (symmetric_chain(3.0), 7, 2.0),
        (symmetric_chain(10.0), 6, 10.0),
        ([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], 5, 1.0),
    ],
)
def test_every_calibrated_mechanism_against_brute_force(P, T, eps):
    """The exact BDPL each method reports (window search) = the enumeration of every adversary
    (i, K, x_K, x, x') of the Laplace count it prescribes."""
    model = MarkovChainModel(P, T)
    counted = [1] if model.states == 2 else [0, 2]
    seen = 0
    for method in LAPLACE_METHODS:
        c = calibrate(model, eps, method=method, counted_states=counted)
        if c.scale is None:
            assert c.reason.startswith("not applicable")
            continue
        brute = exhaustive_markov_count(model, LaplaceCount(1.0 / c.scale, tuple(counted)), range(T))
        assert c.bdpl == pytest.approx(float(np.max(brute.value)), abs=1e-12), method
        seen += 1
    assert seen >= 6


@pytest.mark.parametrize("gamma,T,eps", [(3.0, 7, 1.0), (3.0, 8, 10.0), (10.0, 7, 5.0)])
def test_randomized_response_rows_against_brute_force(gamma, T, eps):
    P = symmetric_chain(gamma)
    row = rr_rows("g", P, T, [eps])[0]
    brute = rr_bdpl_bruteforce(MarkovChainModel(P, T), flip_for_chain(P, eps))
    assert row["bdpl"] == pytest.approx(brute.bdpl, abs=1e-12)
    assert row["eps_bdp"] == float(brute.bdpl <= eps * (1 + 1e-9))


def test_table_shape_and_flags():
    rows = competition_rows(
        [("activity", np.array(ACTIVITY)), ("gamma = 10", symmetric_chain(10.0))],
        lengths=[12],
        epsilons=[1.0, 10.0],
    )
    assert len(rows) == 2 * 2 * (len(LAPLACE_METHODS) + 1)
    for r in rows:
        if math.isfinite(r["bdpl"]):
            assert r["eps_bdp"] == float(r["bdpl"] <= r["epsilon"] * (1 + 1e-9))
            assert r["bdpl_over_eps"] == pytest.approx(r["bdpl"] / r["epsilon"])
        else:
            assert math.isnan(r["eps_bdp"]) and r["reason"].startswith("not applicable")
    by = {(r["chain"], r["epsilon"], r["method"]): r for r in rows}
    for chain in ("activity", "gamma = 10"):
        for e in (1.0, 10.0):
            assert by[chain, e, "group"]["scale"] == by[chain, e, "general"]["scale"] == 12 / e
            ex = by[chain, e, "exact"]
            assert ex["eps_bdp"] == 1.0 and ex["bdpl"] == pytest.approx(e, abs=1e-8)
            # the exact scale is the least eps-BDP one: every eps-BDP Laplace method adds at least as much
            for m in LAPLACE_METHODS:
                r = by[chain, e, m]
                if r["eps_bdp"] == 1.0:
                    assert r["scale"] >= ex["scale"] * (1 - 1e-8)
    assert math.isnan(by["activity", 1.0, "randomized-response"]["bdpl"])
    rr = by["gamma = 10", 1.0, "randomized-response"]
    assert rr["scale_kind"] == "std-equivalent" and rr["noise_std"] == pytest.approx(
        math.sqrt(2) * rr["scale"]
    )
    assert all(r["eps_bdp"] == 0.0 for r in not_eps_bdp(rows))


def test_laplace_rows_share_their_window_searches():
    rows = laplace_rows("g3", symmetric_chain(3.0), 10, [1.0, 2.0], ["general", "exact"])
    ref = calibrate(MarkovChainModel(symmetric_chain(3.0), 10), 2.0)
    assert rows[-1]["scale"] == pytest.approx(ref.scale, rel=2e-9)
    assert rows[-1]["bdpl"] <= 2.0


def test_figure_renders():
    from bdpsim.figures.gallery import render

    rows = competition_rows(
        [
            ("activity", np.array(ACTIVITY)),
            ("gamma = 3", symmetric_chain(3.0)),
            ("gamma = 10", symmetric_chain(10.0)),
        ],
        lengths=[8, 9],
        epsilons=[1.0, 5.0],
    )
    fig = render("bdpsim-competition", rows)
    assert len(fig.axes) == 6  # 2 rows (noise scale, exact BDPL / eps) x 3 chains, at the largest T


def test_parallel_cases_give_the_same_table():
    kw = dict(chains=[("gamma = 3", symmetric_chain(3.0))], lengths=[9], epsilons=[1.0, 5.0])
    seq, par = competition_rows(**kw), competition_rows(**kw, jobs=2)
    assert [(r["epsilon"], r["method"]) for r in seq] == [(r["epsilon"], r["method"]) for r in par]
    for a, b in zip(seq, par):
        assert a["scale"] == pytest.approx(b["scale"], rel=2e-9, nan_ok=True) and a["bdpl"] == pytest.approx(
            b["bdpl"], abs=1e-8, nan_ok=True
        )


def test_pufferfish_mechanisms_hold_against_no_knowledge_but_not_against_bdp():
    """MQMExact at eps = 10 keeps the leakage to an adversary who knows no record below eps (its
    Pufferfish guarantee) while adversaries who know neighbours get more than eps."""
    rows = laplace_rows("activity", np.array(ACTIVITY), 30, [10.0], ["markov-quilt-exact", "wasserstein"])
    mqm, wass = rows
    assert mqm["bdpl_no_knowledge"] <= 10.0 < mqm["bdpl"] and mqm["eps_bdp"] == 0.0
    assert wass["bdpl_no_knowledge"] <= wass["bdpl"] <= 10.0


def test_no_knowledge_leakage_against_per_adversary_exact_values():
    from bdpsim import Adversary, exact_bdpl

    P, T, eps = symmetric_chain(3.0), 8, 2.0
    r = laplace_rows("g3", P, T, [eps], ["wasserstein"])[0]
    model = MarkovChainModel(P, T)
    ref = max(
        exact_bdpl(model, LaplaceCount(1 / r["scale"]), Adversary(i, (), (), x, 1 - x)).bdpl
        for i in range(T)
        for x in (0, 1)
    )
    assert r["bdpl_no_knowledge"] == pytest.approx(ref, abs=1e-12)
