"""Rows of the continual-release figures (issue 34 item 4) against known answers."""

import math

import numpy as np
import pytest

from bdpsim.bounds import gamma_of
from bdpsim.studies.temporal_curves import TKDE_ALPHA, TKDE_STEPS, day_chains, day_rows, tkde_budget_rows
from bdpsim.temporal import allocate_quantification, allocate_upper_bound


@pytest.fixture(scope="module")
def budget():
    return tkde_budget_rows()


@pytest.fixture(scope="module")
def day():
    return day_rows()


def test_tkde_budget_allocations_hold_cao_tpl_at_alpha(budget):
    P = np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4], [0.5, 0.3, 0.2]])
    ub = [r for r in budget if r["panel"] == "upper bound"]
    q = [r for r in budget if r["panel"] == "quantification"]
    assert [r["t"] for r in ub] == [r["t"] for r in q] == list(range(1, TKDE_STEPS + 1))
    e = allocate_upper_bound(TKDE_ALPHA, P)
    assert all(r["epsilon"] == pytest.approx(e, abs=1e-12) for r in ub)
    # the upper-bound allocation keeps Cao's TPL below its supremum alpha; quantification holds it at alpha
    assert max(r["cao_tpl"] for r in ub) <= TKDE_ALPHA + 1e-9
    assert all(r["cao_tpl"] == pytest.approx(TKDE_ALPHA, abs=1e-6) for r in q)
    qb = allocate_quantification(TKDE_ALPHA, P)
    assert [q[0]["epsilon"], q[1]["epsilon"], q[-1]["epsilon"]] == pytest.approx(
        [qb.start, qb.middle, qb.end]
    )
    for r in budget:  # TPL = BPL + FPL - eps for both; exact never above Cao's; first BPL = eps
        assert r["cao_tpl"] == pytest.approx(r["cao_bpl"] + r["cao_fpl"] - r["epsilon"], abs=1e-9)
        assert (
            r["tpl"] <= r["cao_tpl"] + 1e-9
            and r["bpl"] <= r["cao_bpl"] + 1e-9
            and r["fpl"] <= r["cao_fpl"] + 1e-9
        )
        assert r["exact"]
    assert ub[0]["bpl"] == pytest.approx(ub[0]["epsilon"]) and ub[-1]["fpl"] == pytest.approx(
        ub[-1]["epsilon"]
    )
    # on this 3-state chain the exact leakage is strictly below Cao's somewhere
    assert min(r["cao_tpl"] - r["tpl"] for r in ub) < max(r["cao_tpl"] - r["tpl"] for r in ub)
    assert max(r["cao_tpl"] - r["tpl"] for r in q) > 1e-3


def test_day_rows_bounds_and_gap(day):
    chains = {label: (P, T) for label, P, T in day_chains()}
    assert chains["activity"][1] == 288 and len({T for _, T in chains.values()}) == 3
    for label, (P, T) in chains.items():
        rows = [r for r in day if r["chain"] == label]
        assert [r["t"] for r in rows] == list(range(1, T + 1))
        for r in rows:
            assert r["markov"] == pytest.approx(1.0 + 4 * math.log(gamma_of(P)))
            assert r["group"] == pytest.approx(T * 1.0)
            assert r["tpl"] <= r["cao_tpl"] + 1e-9 and r["tpl"] <= r["group"]
            assert r["exact"]
        gap = max(r["cao_tpl"] - r["tpl"] for r in rows)
        if P.shape[0] == 2 and P[0, 0] >= P[1, 0]:  # order-keeping 2-state chain: Cao's bound is tight
            assert gap < 1e-9, label
        else:  # the random 3-state and the order-swapping chain: strictly below
            assert gap > 0.1, label


def test_plot_temporal_day_takes_temporal_leakages_result():
    """``plot_temporal_day`` wanted the gallery study's rows (the tutorial rebuilt them by hand):
    it draws :func:`bdpsim.temporal_leakage`'s table as returned (DataFrame or dicts), step
    ``t = i + 1``, with the Markov bound of the matrix given and group privacy the sum of the
    steps' eps."""
    from matplotlib.figure import Figure

    import bdpsim
    from bdpsim.figures.temporal import plot_temporal_day

    P = np.array([[0.8, 0.15, 0.05], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]])
    rows = bdpsim.temporal_leakage(P, 0.5, 6, "any", as_frame=False)
    for given in (rows, bdpsim.temporal_leakage(P, 0.5, 6, "any")):
        ax = Figure().subplots()
        assert plot_temporal_day(given, ax, transition=P, name="meter") == [ax]
        tpl, cao, markov, group = ax.get_lines()
        assert list(tpl.get_xdata()) == [1, 2, 3, 4, 5, 6]
        assert list(tpl.get_ydata()) == pytest.approx([r["tpl"] for r in rows], abs=0)
        assert list(cao.get_ydata()) == pytest.approx([r["cao_tpl"] for r in rows], abs=0)
        assert markov.get_ydata()[0] == pytest.approx(0.5 + 4 * math.log(gamma_of(P)))
        assert group.get_ydata()[0] == pytest.approx(3.0)
        assert ax.get_title().startswith("meter, T = 6\nP = [[0.8, 0.15, 0.05]")
    schedule = bdpsim.temporal_leakage(P, [1.0, 0.5, 0.5, 1.0], 4, "any", as_frame=False)
    (ax,) = plot_temporal_day(schedule)  # no matrix: no Markov bound; a new figure
    assert len(ax.get_lines()) == 3 and ax.get_lines()[2].get_ydata()[0] == pytest.approx(3.0)
