"""Fourth hostile catalogue (issue 38 item 11), cost checks: estimates that overflowed (exact integer
cell counts converted to float) and checks that were themselves the hang (the min-fill order of a
dense graph, a BIF parsed in full before its node count was looked at). Cheap counts refuse first:
one line naming the field, the value and the rule, exit code 2, in seconds."""

import itertools
import math
import time

import pytest

from bdpsim.kernels.argcheck import count_as_float
from bdpsim.kernels.graphical.elimination import degeneracy, min_clique_cells, plan

from ..conftest import write_toml
from ..support.bad_input import one_line

nx = pytest.importorskip("networkx")  # the [mrf] extra: not in a bare install (the wheel's smoke step)

RUN = '[run]\nseed = 3\nadversaries = 4\nestimator = "exact"\n'
COUNT = '[mechanism]\nkind = "count"\nepsilon = 1.0\n'


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


def test_count_as_float():
    assert (
        count_as_float(3) == 3.0
        and count_as_float(2**1100) == math.inf
        and f"{count_as_float(2**1100):.3g}" == "inf"
    )


def _dense_mrf(n: int, states: int = 2) -> str:
    e = [list(p) for p in itertools.combinations(range(n), 2)]
    return RUN + f'[model]\nkind = "mrf"\nstates = {states}\ncoupling = 0.1\nedges = {e}\n' + COUNT


@pytest.mark.parametrize("n", [150, 300])
def test_dense_random_field_refused_before_min_fill(bdpsim_cli, tmp_path, n):
    """A complete graph: min-fill took ~8 s at 150 nodes and over a minute at 400; the degeneracy
    (O(V + E)) bounds the width from below first."""
    cfg = write_toml(tmp_path / "c.toml", _dense_mrf(n))
    t0 = time.process_time()
    p = bdpsim_cli("validate", cfg)
    one_line(p, "model.edges", f"{n} nodes, induced width at least {n - 1}", "infeasible", "limit 5e+07")
    assert time.process_time() - t0 < 6


def test_random_field_whose_tables_cannot_be_held(bdpsim_cli, tmp_path):
    """1000 states on 7 140 edges: 7e9 cells of edge tables (57 GB) were built before any check."""
    cfg = write_toml(tmp_path / "c.toml", _dense_mrf(120, states=1000))
    p = bdpsim_cli("validate", cfg)
    one_line(p, "model.states", "120 nodes, 7140 edges", "7.14e+09 cells", "limit 5e+07")


def test_exhaustive_counts_of_a_thousand_records_do_not_overflow():
    """``prod (states + 1)`` over 1 100 records is 3^1099: formatted and compared as ``inf``."""
    from bdpsim.models.bayesnet.model import BayesNetModel
    from bdpsim.models.bayesnet.search import exhaustive_cells, n_known_sets

    n = 1100
    parents = ((),) + tuple((i - 1,) for i in range(1, n))
    import numpy as np

    tables = (np.array([0.5, 0.5]),) + (np.array([[0.9, 0.1], [0.2, 0.8]]),) * (n - 1)
    model = BayesNetModel(parents, tables)
    cells = exhaustive_cells(model, np.array([0, 1]))
    assert cells == math.inf and f"{cells:.3g}" == "inf"
    assert count_as_float(n_known_sets(n, range(n), 0)) == math.inf


@pytest.mark.slow
def test_every_adversary_of_a_thousand_record_network(bdpsim_cli, tmp_path):
    n = 1100
    parents = [[]] + [[i - 1] for i in range(1, n)]
    cpt = [[0.5, 0.5]] + [[[0.9, 0.1], [0.2, 0.8]]] * (n - 1)
    cfg = write_toml(
        tmp_path / "c.toml",
        '[run]\nseed = 1\nadversaries = "all"\nestimator = "exact"\n'
        f'known_sizes = "all"\n[model]\nkind = "bayesnet"\nstates = 2\nparents = {parents}\n'
        f"cpt = {cpt}\n" + COUNT,
    )
    p = bdpsim_cli("validate", cfg)
    one_line(p, "run.adversaries", "refused up front", "inf cells")


def test_bif_with_too_many_variables_refused_before_parsing(bdpsim_cli, tmp_path):
    """The node limit applies to the declarations counted in the text, before pgmpy parses it all
    (which took minutes for 100 001 variables)."""
    from bdpsim.models.bayesnet.check import MAX_NODES

    bif = tmp_path / "big.bif"
    decl = "".join(f"variable v{i} {{\n  type discrete [ 2 ] {{ a, b }};\n}}\n" for i in range(MAX_NODES + 1))
    bif.write_text("network big {\n}\n" + decl)
    cfg = write_toml(tmp_path / "c.toml", RUN + f'[model]\nkind = "bayesnet"\nbif = "{bif}"\n' + COUNT)
    t0 = time.process_time()
    p = bdpsim_cli("validate", cfg)
    one_line(p, "model.bif", f"declares {MAX_NODES + 1} variables", f"at most {MAX_NODES} nodes")
    assert time.process_time() - t0 < 5
