"""Issue 38 items 2, 6, 7 and the run/plot parts of 8: every label says what its number is.

Each test failed on 72aee1f (labels that overstated, a false alarm, missing options)."""

import csv
import json
import math
import re

import pytest

import bdpsim
from bdpsim.pipeline.flags import flags

from ..conftest import write_toml
from ..support.bad_input import COUNT, MARKOV, RUN


def _point(tmp_path, estimator="exact", adversaries="all"):
    from bdpsim.pipeline.config import parse_config

    return parse_config(
        {
            "run": {"adversaries": adversaries, "estimator": estimator, "known_sizes": "all"},
            "model": {"kind": "markov", "n": 4, "gamma": 1.0},
            "mechanism": {"kind": "count", "epsilon": 1.5},
        }
    ).points[0]


# ---------------------------------------------------------------------------------- item 6: false alarm


def test_lower_bound_flag_compares_the_maximum_not_the_percentile(tmp_path):
    """p99 1.47 < bound_lower 1.5 while bdpl_max = 1.5: an adversary did reach it, no warning."""
    point = _point(tmp_path)
    row = {
        "percentile": 99.0,
        "bdpl_p99": 1.47,
        "bdpl_max": 1.5,
        "bdpl_exact": 1.5,
        "bound_lower": 1.5,
        "bdpl_se_max": 0.0,
        "bound_general": 6.0,
        "estimator": "exact",
        "n_adversaries": 4,
    }
    assert not any("bound_lower" in f for f in flags(point, row))
    missed = flags(point, dict(row, bdpl_max=1.2, bdpl_p99=1.1))  # nobody reached it: said, about the max
    assert any(f.startswith("bdpl_max 1.2 < bound_lower 1.5") for f in missed), missed


# ---------------------------------------------------------------------------------- item 6: bounds markov


def test_bounds_markov_zero_probability_calibration_is_not_applicable(bdpsim_cli):
    r = bdpsim_cli("bounds", "markov", "--transition", "[[1,0],[0.5,0.5]]", "--epsilon", "1")
    assert r.returncode == 0, r.stderr
    cal = next(line for line in r.stdout.splitlines() if line.startswith("calibration"))
    assert "not applicable" in cal and "> 0" in cal and "4 ln gamma" not in cal, cal
    # a positive chain whose eps is too small for the calibration keeps its rule
    r = bdpsim_cli("bounds", "markov", "--transition", "[[0.9,0.1],[0.3,0.7]]", "--epsilon", "1")
    cal = next(line for line in r.stdout.splitlines() if line.startswith("calibration"))
    assert "needs eps > 4 ln gamma" in cal and "not applicable" not in cal


# ---------------------------------------------------------------------------------- item 7: --json


def test_bounds_json_parses_and_agrees_with_the_library(bdpsim_cli):
    from bdpsim import bounds as B

    r = bdpsim_cli("bounds", "markov", "--gamma", "5", "--epsilon", "1", "--n", "10", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    P = B.symmetric_chain(5.0)
    assert d["markov_bound"]["value"] == B.markov_bound(1.0, P).value
    assert d["zhao_bound"]["value"] == B.zhao_bound(1.0, P).value
    assert d["general_bound"]["value"] == 10.0 and d["epsilon"] == 1.0 and d["transition"] == P.tolist()
    assert d["calibration"]["tau"] is None and "4 ln gamma" in d["calibration"]["reason"]
    r = bdpsim_cli("bounds", "markov", "--transition", "[[1,0],[0.5,0.5]]", "--epsilon", "1", "--json")
    d = json.loads(r.stdout)  # inf and nan are written as null (strict JSON), with the reason beside
    assert d["gamma"] is None and d["markov_bound"]["value"] is None and d["markov_bound"]["reason"]
    assert d["calibration"]["tau"] is None and "not applicable" in d["calibration"]["reason"]
    d = json.loads(
        bdpsim_cli("bounds", "gaussian", "--rho", "0.275", "--m", "3", "--epsilon", "1", "--json").stdout
    )
    assert d["gaussian_bound"]["value"] == B.gaussian_bound(1.0, 0.275, 3).value
    assert d["general_bound"]["value"] == 3.0
    d = json.loads(bdpsim_cli("bounds", "general", "--m", "10", "--epsilon", "0.5", "--json").stdout)
    assert d == {"epsilon": 0.5, "m": 10, "general_bound": {"value": 5.0, "reason": ""}}


def test_worst_case_json_parses_and_agrees_with_the_text(bdpsim_cli):
    args = ("worst-case", "markov", "--gamma", "3", "--n", "3", "--epsilon", "1", "--starts", "1", "--quiet")
    d = json.loads(bdpsim_cli(*args, "--json").stdout)
    text = bdpsim_cli(*args).stdout
    assert f"{d['bdpl']:.6f}" in text and f"{d['markov_bound']:.6f}" in text
    assert d["markov_bound"] == pytest.approx(1 + 4 * math.log(3), rel=1e-12)
    assert d["bdpl"] <= d["markov_bound"] and len(d["transition"]) == 2
    args = ("worst-case", "gaussian", "--n", "3", "--rho", "0.2", "--starts", "2", "--quiet")
    d = json.loads(bdpsim_cli(*args, "--json").stdout)
    assert f"{d['slope']:.6f}" in bdpsim_cli(*args).stdout
    assert d["equicorrelated"] == pytest.approx(1 + 2 * 0.2) and len(d["correlation"]) == 3


# ---------------------------------------------------------------------------------- item 2: bdpl_exact

CHAIN = {"model": {"kind": "markov", "n": 8, "gamma": 4.0}, "mechanism": {"kind": "count", "epsilon": 1.0}}


def _cfg(**run):
    return {"run": {"estimator": "exact", "known_sizes": "all", "seed": 3, **run}, **CHAIN}


def _summary(path):
    return list(csv.DictReader(open(path / "summary.csv", encoding="utf-8")))


@pytest.fixture(scope="module")
def sampled_and_all(tmp_path_factory):
    """The same chain with 3 sampled adversaries and with every adversary enumerated (brute force:
    every (i, K, x_K, x, x'), not the window search)."""
    root = tmp_path_factory.mktemp("runs")
    bdpsim.run(_cfg(adversaries=3), root / "sampled", as_frame=False)
    bdpsim.run(_cfg(adversaries="all", exhaustive_method="enumerate"), root / "all", as_frame=False)
    return root, _summary(root / "sampled")[0], _summary(root / "all")[0]


def test_sampled_run_writes_the_bdpl_over_every_adversary_beside_its_sampled_max(sampled_and_all):
    _, sampled, every = sampled_and_all
    brute = float(every["bdpl_exact"])
    assert int(every["n_adversaries"]) > 1000 and "bdpl_all_adversaries" not in every  # all: bdpl_exact is it
    assert float(sampled["bdpl_all_adversaries"]) == pytest.approx(brute, rel=1e-9)
    assert float(sampled["bdpl_exact"]) < brute - 0.5  # 2.09 of 2.97: the sample missed the worst adversaries


def _cells(header: str, line: str) -> list[str]:
    """The cells of a right-aligned console table line (empty cells kept), by the header's columns."""
    ends = [m.end() for m in re.finditer(r"\S+", header)]
    return [line[a:b].strip() for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def test_console_names_the_sampled_max_and_prints_the_bdpl_beside(bdpsim_cli, tmp_path, sampled_and_all):
    from ..conftest import write_toml

    _, _, every = sampled_and_all
    cfg = write_toml(
        tmp_path / "c.toml",
        '[run]\nadversaries = 3\nestimator = "exact"\nknown_sizes = "all"\n'
        'seed = 3\n[model]\nkind = "markov"\nn = 8\ngamma = 4.0\n[mechanism]\nkind = "count"\n'
        "epsilon = 1.0\n",
    )
    r = bdpsim_cli("run", cfg, "--out", tmp_path / "o", "--quiet")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    head, row = lines[1].split(), _cells(lines[1], lines[2])
    assert "bdpl_exact" not in head  # the heading says what it is
    sampled = _summary(tmp_path / "o")[0]
    assert float(row[head.index("exact_max_sampled")]) == pytest.approx(
        float(sampled["bdpl_exact"]), rel=1e-3
    )
    assert float(row[head.index("bdpl_all_adversaries")]) == pytest.approx(
        float(every["bdpl_exact"]), rel=1e-3
    )
    assert any(
        line.startswith("exact_max_sampled: the largest exact BDPL among the sampled adversaries")
        for line in lines[3:]
    )
    # every adversary examined: the heading stays bdpl_exact, no note, no duplicate column
    r = bdpsim_cli(
        "run",
        write_toml(tmp_path / "a.toml", cfg.read_text().replace("adversaries = 3", 'adversaries = "all"')),
        "--out",
        tmp_path / "a",
        "--quiet",
    )
    head = r.stdout.splitlines()[1].split()
    assert "bdpl_exact" in head and "exact_max_sampled" not in head and "bdpl_all_adversaries" not in head
    assert len(r.stdout.splitlines()) == 3


def test_column_reference_says_bdpl_exact_is_a_sampled_max():
    """The docs' column reference (generated at build time by docs/_ext/bdpsim_docs.py) says it."""
    import sys

    from ..conftest import ROOT

    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import bdpsim_docs
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    meaning = {c: m for f, c, _, _, m in bdpsim_docs.column_rows() if f == "summary.csv"}
    assert "the max over the sample, a lower bound on the BDPL" in meaning["bdpl_exact"]
    assert "exact BDPL over every adversary" in meaning["bdpl_all_adversaries"]


def test_summary_identity_check_accepts_an_appended_column(tmp_path):
    import importlib.util

    from ..conftest import ROOT

    spec = importlib.util.spec_from_file_location(
        "identity", ROOT / "scripts" / "checks" / "check_summary_identity.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    old, new, moved = tmp_path / "old.csv", tmp_path / "new.csv", tmp_path / "moved.csv"
    old.write_text("a,b,seconds\n1,2,3\n")
    new.write_text("a,b,seconds,c\n1,2,4,5\n")
    moved.write_text("b,a,seconds\n2,1,3\n")
    assert mod.compare(new, old) == [] and mod.added_columns(new, old) == ["c"]
    assert mod.compare(moved, old) and mod.compare(old, new)  # a moved or a missing column is a difference
    new.write_text("a,b,seconds,c\n1,9,4,5\n")
    assert mod.compare(new, old) == ["row 0 column b: '9' != '2'"]


def test_summary_identity_check_close_columns(tmp_path, monkeypatch):
    """``--close COLUMN``: that column's numbers within the tolerance, every other cell byte for byte."""
    import importlib.util

    from ..conftest import ROOT

    spec = importlib.util.spec_from_file_location(
        "identity", ROOT / "scripts" / "checks" / "check_summary_identity.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "CLOSE", {"x"})
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    old.write_text("x,y\n0.30000000000000004,0.30000000000000004\nabc,1\n")
    new.write_text("x,y\n0.3,0.30000000000000004\nabc,1\n")
    assert mod.compare(new, old) == [] and mod.NEAR["cells"] == 1
    new.write_text("x,y\n0.3,0.3\nabc,1\n")  # y is not a close column: byte for byte
    assert mod.compare(new, old) == ["row 0 column y: '0.3' != '0.30000000000000004'"]
    new.write_text("x,y\n0.3000001,0.30000000000000004\nabd,1\n")  # beyond 1e-13; text stays text
    assert len(mod.compare(new, old)) == 2


# ---------------------------------------------------------------------------------- item 6: mixture note


def test_mixture_says_how_many_adversaries_took_the_exact_law(bdpsim_cli, tmp_path):
    from ..conftest import write_toml

    cfg = write_toml(
        tmp_path / "m.toml",
        '[run]\nadversaries = 20\nestimator = "mixture"\nsamples = 1000\n'
        'mixture_max_samples = 2000\nmixture_target_width = 0.01\nknown_sizes = "all"\nseed = 3\n'
        '[model]\nkind = "markov"\nn = 8\ngamma = 4.0\n[mechanism]\nkind = "count"\nepsilon = 1.0\n',
    )
    r = bdpsim_cli("run", cfg, "--out", tmp_path / "o", "--quiet")
    assert r.returncode == 0, r.stderr
    k = int(_summary(tmp_path / "o")[0]["exact_law_n"])
    assert k > 0
    assert f"{k} of 20 adversaries ({k / 20:.1%}) took the exact conditional law" in r.stdout


# ---------------------------------------------------------------------------------- item 7: plots


def _drawn_labels(ax):
    """Legend labels whose artist draws something visible at a finite point."""
    import numpy as np

    out = []
    for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
        line = h.lines[0] if hasattr(h, "lines") else h
        ys = np.asarray(line.get_ydata(), dtype=float)
        one_point_line = np.isfinite(ys).sum() == 1 and line.get_marker() in ("None", "", None, " ")
        if np.isfinite(ys).any() and not one_point_line:
            out.append(lab)
    return out


def test_one_configuration_plot_has_its_x_a_title_and_only_drawn_distinct_entries(
    sampled_and_all, monkeypatch
):
    from bdpsim.figures import summary as S

    root = sampled_and_all[0]
    drawn = {}

    def capture(fig, stem, formats=("png", "pdf")):
        ax = fig.axes[0]
        drawn.update(
            ticks=list(ax.get_xticks()),
            title=ax.get_title(),
            labels=ax.get_legend_handles_labels()[1],
            visible=_drawn_labels(ax),
        )
        return []

    monkeypatch.setattr(S, "save", capture)
    S.plot_results(root / "sampled")
    assert drawn["ticks"] == [8.0]  # n = 8 only, not 7.6 ... 8.4
    assert drawn["title"] == "markov, n = 8, count, ε = 1, γ = 4"
    assert drawn["labels"] == drawn["visible"], drawn  # every entry is drawn (one point: a marker, no line)
    exact = [lab for lab in drawn["labels"] if "exact" in lab]
    assert sorted(exact) == ["exact BDPL, every adversary", "exact, max over 3 sampled adversaries"]
    S.plot_results(root / "all")
    assert [lab for lab in drawn["labels"] if "exact" in lab] == ["exact BDPL, every adversary"]


def test_plot_out_and_format(bdpsim_cli, sampled_and_all, tmp_path):
    root = sampled_and_all[0] / "sampled"
    r = bdpsim_cli("plot", root, "--out", tmp_path / "figs", "--format", "svg,png")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(tmp_path / "figs" / "bdpl.svg"), str(tmp_path / "figs" / "bdpl.png")]
    assert (tmp_path / "figs" / "bdpl.svg").read_text().lstrip().startswith("<?xml")
    r = bdpsim_cli("plot", root, "--out", tmp_path / "one.v2.pdf")
    assert r.stdout.split() == [str(tmp_path / "one.v2.pdf")]
    assert (tmp_path / "one.v2.pdf").read_bytes()[:5] == b"%PDF-"
    for args, line in (
        (("--format", "gif"), "--format = 'gif': must be a comma-separated list of png, pdf, svg"),
        (("--out", tmp_path / "x.txt"), "must be a directory or a file name ending in .png"),
    ):
        r = bdpsim_cli("plot", root, *args)
        assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and line in r.stderr, r
    assert not (tmp_path / "x.txt").exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "figs",
        "one.v2.pdf",
    ]


# ---------------------------------------------------------------------------------- item 8: docs


def test_config_key_reference_says_gammas_chain_has_two_states():
    from bdpsim import bounds as B
    from bdpsim.pipeline.config import sections

    doc = sections()["model"]["transition"].doc
    states = B.symmetric_chain(3.0).shape[0]
    assert states == 2 and f"gamma's {states}-state chain" in doc and "3-state" not in doc


def test_intervals_page_states_the_adversaries_a_finite_p99_upper_end_needs():
    """Derived here from the project's interval functions: the smallest m whose upper end is finite."""
    import numpy as np

    from bdpsim.kernels.stats import interval_percentile_ci, own_level, percentile_ci

    from ..conftest import ROOT

    own = own_level(99.0, 0.95)

    def finite(m, mixture):
        v = np.arange(float(m))
        return math.isfinite(
            (interval_percentile_ci(v, v, 99.0, 0.95, own) if mixture else percentile_ci(v, 99.0, 0.95))[1]
        )

    need = {mix: next(m for m in range(1, 2000) if finite(m, mix)) for mix in (True, False)}
    assert not finite(need[True] - 1, True) and not finite(need[False] - 1, False)
    # the closed form: the largest order statistic bounds it once p^m <= (1 - confidence)/2
    assert need[True] == math.ceil(math.log(0.025) / math.log(0.99 + (1 - own) / 2))
    page = (ROOT / "docs" / "guide" / "intervals.md").read_text(encoding="utf-8")
    assert f"at least <!-- numbers:p99-upper -->{need[True]} adversaries" in page
    assert f"exact or KDE values: {need[False]})" in page and "~370" not in page


# ---------------------------------------------------------------------------------- item 8: network run

NETWORK = {
    "kind": "bayesnet",
    "states": 2,
    "parents": [[], [0], [0], [1, 2]],
    "cpt": [
        [0.6, 0.4],
        [[0.8, 0.2], [0.3, 0.7]],
        [[0.9, 0.1], [0.25, 0.75]],
        [[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]],
    ],
}


def test_network_run_over_every_adversary_says_what_its_rows_are(tmp_path):
    bdpsim.run(
        {
            "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all"},
            "model": NETWORK,
            "mechanism": {"kind": "count", "epsilon": 1.0},
        },
        tmp_path / "all",
        as_frame=False,
    )
    row = _summary(tmp_path / "all")[0]
    assert row["n_adversaries"] == "4" and row["bound_model"] == row["bound_zhao"] == ""
    note = row["bound_note"]
    assert "n_adversaries = 4 rows, each the worst adversary (i, K, x_K, x, x') of its target" in note
    assert "bdpl_p99 and bdpl_median are over these maxima, bdpl_max is the BDPL" in note
    assert "model, zhao: not applicable (no model-specific bound for a bayesnet model" in note
    # bdpl_max is the BDPL: the max over every adversary (i, K, x_K, x, x') one by one (brute force;
    # a count's two-sided BDPL is symmetric in x, x')
    import itertools

    from bdpsim.adversary import Adversary
    from bdpsim.pipeline.config import parse_config

    point = parse_config(
        {
            "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all"},
            "model": NETWORK,
            "mechanism": {"kind": "count", "epsilon": 1.0},
        }
    ).points[0]
    brute = max(
        bdpsim.exact_bdpl(point.model.fixed, point.mechanism, Adversary(i, K, xk, 1, 0)).bdpl
        for i in range(4)
        for r in range(4)
        for K in itertools.combinations([j for j in range(4) if j != i], r)
        for xk in itertools.product((0, 1), repeat=r)
    )
    assert float(row["bdpl_max"]) == pytest.approx(brute, rel=1e-12)
    # a sampled network run: the bound's reason, no search note; a chain: no note at all (tables unchanged)
    bdpsim.run(
        {
            "run": {"adversaries": 5, "estimator": "exact", "known_sizes": "all"},
            "model": NETWORK,
            "mechanism": {"kind": "count", "epsilon": 1.0},
        },
        tmp_path / "s",
        as_frame=False,
    )
    note = _summary(tmp_path / "s")[0]["bound_note"]
    assert note.startswith("model, zhao: not applicable") and "rows" not in note
    bdpsim.run(_cfg(adversaries="all"), tmp_path / "chain", as_frame=False)
    assert _summary(tmp_path / "chain")[0]["bound_note"] == ""


def test_console_heading_follows_what_each_row_examined():
    from bdpsim.cli.table import console_table, exact_heading, table_notes

    rows = [
        {"point_id": "a", "estimator": "exact", "n": 4, "epsilon": 1.0, "bdpl_p99": 1.0, "bdpl_exact": 1.2},
        {"point_id": "b", "estimator": "exact", "n": 4, "epsilon": 2.0, "bdpl_p99": 2.0, "bdpl_exact": 2.5},
    ]
    assert exact_heading(rows, {"a", "b"}) == "exact_max_sampled"
    assert exact_heading(rows, {"a"}) == "exact_max_examined"  # a mix: "examined" is true of both
    assert exact_heading(rows, set()) == "bdpl_exact"  # every adversary: the BDPL itself
    assert "exact_max_examined" in console_table(rows, "p99", {"a"})[0]
    assert table_notes(rows, set()) == []
    assert table_notes(rows, {"a"})[0].startswith(
        "exact_max_examined: the largest exact BDPL among the examined"
    )


def test_histogram_all_adversary_value_equals_its_exhaustive_run(tmp_path):
    """A histogram's window search returns no search object: the value is the cells' max (it crashed
    the sampled run's summary and bdpsim.exact_bdpl without an adversary)."""
    cfg = {
        "run": {"adversaries": 3, "estimator": "exact", "known_sizes": "all"},
        "model": {"kind": "markov", "n": 4, "gamma": 3.0},
        "mechanism": {"kind": "histogram", "epsilon": 1.0},
    }
    bdpsim.run(cfg, tmp_path / "s", as_frame=False)
    bdpsim.run({**cfg, "run": {**cfg["run"], "adversaries": "all"}}, tmp_path / "a", as_frame=False)
    every = float(_summary(tmp_path / "a")[0]["bdpl_exact"])
    assert float(_summary(tmp_path / "s")[0]["bdpl_all_adversaries"]) == every
    from bdpsim.pipeline.config import parse_config

    point = parse_config(cfg).points[0]
    assert bdpsim.exact_bdpl(point.model.fixed, point.mechanism).bdpl == every


def test_mixed_estimators_print_their_table(bdpsim_cli, tmp_path):
    cfg = (
        RUN.replace('"mixture"', '["audit", "exact", "mixture"]') + "audit_budget = 20_000\n" + MARKOV + COUNT
    )
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", cfg), "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "3 configurations -> " + str(tmp_path / "o") + "/summary.csv"
    head = lines[1].split()
    assert {"estimator", "bdpl_lower", "exact_max_sampled", "bdpl_all_adversaries"} <= set(head)
    assert [line.split()[0] for line in lines[2:5]] == ["audit", "exact", "mixture"]
    assert lines[5].startswith("exact_max_sampled: the largest exact BDPL among the sampled adversaries")


def test_table_tells_mechanism_variants_apart():
    from bdpsim.cli.table import console_table

    rows = [
        {"estimator": "audit", "mechanism": "count", "noise": "", "n": 3, "epsilon": 1.0, "bdpl_lower": 1.0},
        {"estimator": "audit", "mechanism": "count", "noise": "geometric", "n": 3, "epsilon": 1.0},
        {"estimator": "audit", "mechanism": "histogram", "n": 3, "epsilon": 1.0},
    ]
    lines = console_table(rows, "p99")
    assert lines[0].split()[:2] == ["estimator", "mechanism"]
    assert [line.split()[1] for line in lines[1:]] == ["count", "count/geometric", "histogram"]
    assert all(line == line.rstrip() for line in lines)


def test_table_of_one_calibrated_configuration(bdpsim_cli, tmp_path):
    cfg = RUN + MARKOV + '[mechanism]\nkind = "calibrated"\nmethod = "general"\nepsilon = 1.0\n'
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", cfg), "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("1 configuration -> ")
    head, row = lines[1].split(), lines[2].split()
    assert head[:4] == ["estimator", "n", "target_epsilon", "dp_epsilon"]
    assert row[2] == "1" and float(row[3]) == pytest.approx(0.25)  # n = 4 records: scale 4, DP eps 1/4


def test_validate_of_exhaustive_points_and_long_values(bdpsim_cli, tmp_path):
    bn = (
        '[run]\nseed = 1\nadversaries = "all"\nestimator = "exact"\nknown_sizes = "all"\n'
        '[model]\nkind = "bayesnet"\nstates = 2\nparents = [[], [0], [1]]\n'
        "cpt = [[0.6, 0.4], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.25, 0.75]]]\n"
        '[mechanism]\nkind = "count"\nepsilon = 1.0\n[[variants]]\n[[variants]]\n'
        "model = {cpt = [[0.5, 0.5], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.25, 0.75]]]}\n"
    )
    p = bdpsim_cli("validate", write_toml(tmp_path / "bn.toml", bn))
    assert p.returncode == 0, p.stderr
    assert "~0 B" not in p.stdout and "~0 units" not in p.stdout
    assert "sweep model.cpt = 2 values: #1 " in p.stdout
    points = [line for line in p.stdout.splitlines() if "model=bayesnet" in line]
    assert [line.split("cpt=")[1].split()[0] for line in points] == ["#1", "#2"]
    assert max(map(len, p.stdout.splitlines())) < 160
