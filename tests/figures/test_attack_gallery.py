"""The gallery figure ``bdpsim-attack`` (issue 35 item 4): its data against known answers."""

from __future__ import annotations

import math

import pytest

from bdpsim.attack import attack_risk
from bdpsim.figures.gallery import FIGURES
from bdpsim.kernels.noise.laws import noise_from_params
from bdpsim.mechanisms.noisy import NoisyQueryMechanism
from bdpsim.models import MarkovChainModel, symmetric_chain
from bdpsim.queries import CountQuery
from bdpsim.studies.attack_chains import attack_rows


def test_rows_against_closed_forms_and_bounds():
    rows = attack_rows(epsilons=(0.5, 2.0), chains=[("gamma 4, n 6", symmetric_chain(4.0), 6)])
    assert len(rows) == 4 and "bdpsim-attack" in FIGURES
    for r in rows:
        assert r["advantage"] <= math.tanh(r["bdpl"] / 2) + 1e-12
        if r["records"] == "independent":  # Laplace count, scale 1/eps: BDPL eps, advantage 1 - e^(-eps/2)
            assert r["bdpl"] == pytest.approx(r["epsilon"], abs=1e-9)
            assert r["advantage"] == pytest.approx(1 - math.exp(-r["epsilon"] / 2), abs=1e-9)
        else:  # the worst adversary's advantage, as bdpsim.attack_risk finds it
            mech = NoisyQueryMechanism(
                CountQuery((1,)), noise_from_params("laplace", epsilon=r["epsilon"], sensitivity=1.0)
            )
            assert r["advantage"] == pytest.approx(
                attack_risk(MarkovChainModel(symmetric_chain(4.0), 6), mech).advantage, abs=1e-12
            )
    corr = {r["epsilon"]: r["advantage"] for r in rows if r["records"] == "correlated"}
    ind = {r["epsilon"]: r["advantage"] for r in rows if r["records"] == "independent"}
    assert corr[0.5] > ind[0.5] + 0.05  # correlation raises the attack's success at small eps


def test_plot_attack_roc_draws_on_the_axes_given_and_returns_it():
    """``plot_attack_roc`` built a two-panel Figure of its own (the tutorial copied its pixels into
    pyplot): it draws on the Axes given (or a new one) and returns it; given an ``AttackRisk`` it
    draws the same curves as :func:`bdpsim.risk_roc_data`."""
    import numpy as np
    from matplotlib.figure import Figure

    import bdpsim
    from bdpsim.figures.attack import plot_attack_roc

    chain = MarkovChainModel(symmetric_chain(4.0), 5)
    risk = attack_risk(chain, bdpsim.LaplaceCount(1.0), fpr=(0.01,), bdpl=True)
    data = bdpsim.risk_roc_data(risk, marks=(0.01,))
    ax = Figure().subplots()
    assert plot_attack_roc(data, ax) is ax
    worst = ax.get_lines()[0]
    assert np.array_equal(worst.get_xdata(), data.fpr) and np.array_equal(worst.get_ydata(), data.worst)
    assert ax.get_xscale() == "linear" and ax.get_title() == "linear axes"
    own = plot_attack_roc(risk, log=True, marks=(0.01,), title="t")
    assert own.get_xscale() == "log" and own.get_title() == "t" and own.figure is not ax.figure
    assert np.array_equal(own.get_lines()[0].get_ydata(), data.worst)
