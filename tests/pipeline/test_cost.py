"""The cost checks (bdpsim.pipeline.cost and the counts behind them): the calibrated time range
holds measured runs, the memory and work limits name their estimate and option, estimates that
overflowed (exact integer cell counts converted to float) and checks that were themselves the hang
(a dense random field, a BIF parsed in full before its node count was looked at). Cheap counts
refuse first: one line naming the field, the value and the rule, exit code 2, in seconds."""

import itertools
import math
import time

import pytest

from bdpsim.kernels.argcheck import count_as_float
from bdpsim.pipeline.config import load_config

from ..conftest import write_toml
from ..support.bad_config import OK, cli, one_line_error, toml
from ..support.bad_input import one_line

RUN = '[run]\nseed = 3\nadversaries = 4\nestimator = "exact"\n'
COUNT = '[mechanism]\nkind = "count"\nepsilon = 1.0\n'


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


def test_validate_prints_a_calibrated_range_that_holds_the_measured_time(capsys):
    import csv
    import re

    from bdpsim.pipeline.cost import config_seconds, estimate_config

    from ..conftest import ROOT

    rc, out, _ = cli(capsys, "validate", "quickstart")
    line = out.splitlines()[1]
    assert rc == 0 and re.search(r"~[\d.]+ s - [\d.]+ s of one core \(calibrated on measured runs\)", line), (
        line
    )
    lo, hi = config_seconds(estimate_config(load_config(ROOT / "configs" / "quickstart.toml"))[2])
    measured = sum(
        float(r["seconds"]) for r in csv.DictReader(open(ROOT / "results" / "quickstart" / "summary.csv"))
    )
    assert lo <= measured <= hi, (lo, measured, hi)
    assert hi / lo < 5


def test_kde_eval_points_memory_is_counted(tmp_path, capsys):
    big = OK.replace('"mixture"', '"kde"') + "".join([])
    big = big.replace("[run]\n", "[run]\neval_points = 1000000000\n")
    rc, _, err = cli(capsys, "validate", toml(tmp_path, big))
    one_line_error(rc, err, "of memory", "--max-memory-gib")
    assert not list((tmp_path).glob("o*"))


def test_calibrated_range_holds_the_recorded_figure_runs():
    import json

    from bdpsim.pipeline.cost import config_seconds, estimate_config

    from ..conftest import ROOT

    rec = json.loads((ROOT / "results" / "benchmarks" / "figures.json").read_text())["runs"]
    for fig, name in (("thesis-fig15", "thesis_fig15"), ("thesis-fig09", "thesis_fig9")):
        lo, hi = config_seconds(estimate_config(load_config(ROOT / "configs" / f"{name}.toml"))[2])
        assert lo <= rec[fig]["compute_seconds"] <= hi, (fig, lo, rec[fig]["compute_seconds"], hi)


def test_limit_names_estimate_and_option_and_can_be_raised(tmp_path, capsys):
    cfg = toml(tmp_path, OK)
    rc, out, _ = cli(capsys, "validate", cfg)
    assert rc == 0 and "estimate: peak memory" in out and "work" in out
    rc, _, err = cli(capsys, "validate", cfg, "--max-memory-gib", "1e-9")
    one_line_error(rc, err, "of memory", "--max-memory-gib")
    rc, _, err = cli(capsys, "run", cfg, "--out", tmp_path / "o", "--max-work", "10")
    one_line_error(rc, err, "work units", "--max-work")
    assert not (tmp_path / "o").exists()
