"""The elimination order of a graphical model (bdpsim.kernels.graphical.elimination): the degeneracy
against networkx's k-cores, the lower bound it gives on every order's width, and sizes past a float."""

import math

import pytest

from bdpsim.kernels.graphical.elimination import degeneracy, min_clique_cells, plan

nx = pytest.importorskip("networkx")  # the [mrf] extra: not in a bare install (the wheel's smoke step)


@pytest.mark.parametrize(
    "graph",
    [
        nx.complete_graph(12),
        nx.path_graph(7),
        nx.grid_2d_graph(6, 5),
        nx.karate_club_graph(),
        nx.gnp_random_graph(80, 0.15, seed=3),
        nx.empty_graph(4),
        nx.barabasi_albert_graph(60, 4, seed=1),
    ],
)
def test_degeneracy_equals_networkx_core_number(graph):
    """Independent brute force: networkx's k-core decomposition (max core number = degeneracy)."""
    g = nx.convert_node_labels_to_integers(graph)
    adj = {v: set(g[v]) for v in g}
    assert degeneracy(adj) == max(nx.core_number(g).values(), default=0)


def test_degeneracy_bounds_the_min_fill_width():
    """The lower bound never exceeds what min-fill finds (it is a bound on every order)."""
    for seed in range(5):
        g = nx.gnp_random_graph(40, 0.2, seed=seed)
        adj = {v: set(g[v]) for v in g}
        cards = {v: 2 + v % 3 for v in g}
        k, cells = min_clique_cells(adj, cards)
        p = plan([(u, v) for u, v in g.edges] + [(v,) for v in g], cards, [1] * (g.number_of_edges() + 40))
        assert k <= p.width and cells <= p.max_cells


def test_plan_of_huge_cardinalities_is_inf_not_overflow():
    cards = dict.fromkeys(range(3), 10**200)
    p = plan([(0, 1, 2)], cards, [1])  # 1e600 cells: was OverflowError (int too large to convert to float)
    assert p.max_cells == math.inf and p.operations == math.inf


def test_a_plan_past_the_float_range_is_refused_with_its_exponent():
    """The refusal of a huge elimination printed 'about inf operations and tables of inf cells':
    the sizes past the float range are shown from their logarithms, ``1e+600``."""
    from bdpsim.kernels.argcheck import TooExpensive

    p = plan([(0, 1, 2)], dict.fromkeys(range(3), 10**200), [1])
    assert p.log10_cells == pytest.approx(600.0) and p.log10_operations == pytest.approx(600.0)
    with pytest.raises(TooExpensive) as err:
        p.check("the test")
    line = str(err.value)
    assert "about 1e+600 operations" in line and "tables of 1e+600 cells" in line
    assert "inf" not in line.replace("infeasible", "")
    small = plan([(0, 1)], {0: 2, 1: 3}, [4])  # 6 cells x 4 sums: the logs agree with the floats
    assert 10**small.log10_cells == pytest.approx(small.max_cells)
    assert 10**small.log10_operations == pytest.approx(small.operations)
    k, cells = min_clique_cells({0: {1}, 1: {0}}, {0: 10**200, 1: 10**200})
    assert (k, cells) == (1, 10**400)  # exact, not inf


def test_magnitude_shows_sizes_past_the_float_range():
    from bdpsim.core.shown import magnitude

    assert magnitude(5e7) == "5e+07" and magnitude(2**1030) == "1.15e+310"
    assert magnitude(math.inf, 312.3617) == "2.3e+312" and magnitude(math.inf, 311.99999) == "1e+312"
