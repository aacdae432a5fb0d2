"""Figures as their sources drew them (issue 9 §5): parameters pinned in the CSVs, legends readable
and off the data, fidelity records honest, no import-time side effects (issue 8 item 5).

No test here reads ../shared: the data files are generated in the sources' formats."""

import csv
import dataclasses
import io
import json
import math
import subprocess
import zipfile
from math import comb

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.transforms import Bbox

from bdpsim import bounds as B
from bdpsim.figures import LEGEND_PT
from bdpsim.figures.deviations import DEVIATIONS, DISAGREEMENTS
from bdpsim.figures.gallery import (
    FIGURES,
    fidelity_level,
    make_figures,
    read_rows,
    render,
    replot,
    write_gallery,
)
from bdpsim.pipeline import results as R
from bdpsim.utility import datasets as DS
from bdpsim.utility.experiment import parse_utility, run_utility, variants

from ..conftest import PY, ROOT


def read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


# ----------------------------------------------------------------------------- no side effects


def test_import_does_not_touch_the_backend(tmp_path, cli_env):
    code = (
        "import sys, matplotlib\n"
        "matplotlib.use('svg')\n"
        "import bdpsim.figures as F, bdpsim.figures.gallery\n"
        "assert matplotlib.get_backend() == 'svg', matplotlib.get_backend()\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
        "fig, ax = F.subplots()\n"
        "ax.plot([0, 1], [1, 0])\n"
        f"F.save(fig, {str(tmp_path / 'x')!r})\n"
        "assert matplotlib.get_backend() == 'svg', matplotlib.get_backend()\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    p = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=cli_env)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "x.png").stat().st_size > 200 and (tmp_path / "x.pdf").stat().st_size > 200


# ------------------------------------------------------------------- rows for every figure id


def _utility_rows(dataset, variant_ns, mechs, eps=(1.0, 5.0, 10.0, 20.0)):
    """Utility rows with every column a figure reads (theory = empirical), for rendering only."""
    rows = []
    for var, n in variant_ns:
        for mech in mechs:
            for e in eps:
                tau = {
                    "dp": e,
                    "general": e / 3,
                    "gaussian": e / 1.8,
                    "markov": e - 8.05,
                    "zhao": e - 10.64,
                    "exact": e / 4,
                    "optimal": e / 2,
                }[mech]
                b = 1 / tau if tau > 0 else math.nan
                rows.append(
                    {
                        "dataset": dataset,
                        "variant": var,
                        "mechanism": mech,
                        "epsilon": e,
                        "n": n,
                        "alpha_theory": math.log(20) * b,
                        "alpha_empirical": math.log(20) * b,
                        "mse": 2 * b * b,
                        "mse_theory": 2 * b * b,
                        "clip_bias_mse": 0.1,
                    }
                )
    return rows


def _sim_rows(group, x, groups, xs, estimators):
    return [
        {
            group: g,
            x: v,
            "estimator": est,
            "bdpl_p99": 1 + v,
            "bdpl_p99_ci_low": 0.9 + v,
            "bdpl_p99_ci_high": 1.1 + v,
            "bdpl_max": 1.2 + v,
            "bound_general": 5.0,
            "bound_model": 2 + v,
        }
        for g in groups
        for v in xs
        for est in estimators
    ]


def _small_rows(fig_id):
    """bdpsim's own figures on small inputs (their full compute takes minutes)."""
    from bdpsim.models import symmetric_chain
    from bdpsim.studies import chains as S
    from bdpsim.studies import genomic_study as G

    if fig_id == "bdpsim-calibration":
        chains = [(f"chain {g}", symmetric_chain(g), 6) for g in (2.0, 3.0, 5.0, 10.0)]
        return S.calibration_rows(epsilons=(1.0, 10.0), chains=chains)
    if fig_id == "bdpsim-knowledge":
        return S.knowledge_rows(n=30, max_unknown=4)
    if fig_id == "bdpsim-temporal":
        from bdpsim.studies.temporal_curves import day_rows

        return day_rows()
    if fig_id == "bdpsim-competition":
        from bdpsim.studies.competition import competition_chains, competition_rows

        return competition_rows(competition_chains(), lengths=(8, 9), epsilons=(1.0, 10.0))
    if fig_id == "bdpsim-accountant":
        from bdpsim.studies.accountant import accountant_rows

        return accountant_rows(gammas=(1.0, 5.0), releases=(1, 2), n=5, noises=("gaussian",))
    if fig_id == "bdpsim-pedigree":
        return G.family_size_study(sizes=(3, 4, 6), epsilons=(1.0,), allele_bs=(0.3,))
    return G.generation_study(sizes=(5, 6), epsilons=(1.0,), allele_bs=(0.3,))


def _simulated_rows(fig_id):
    """Small rows for a simulated figure of :func:`rows_for` (the grid sweeps and the utility
    experiments)."""
    if fig_id == "thesis-fig09":
        return _sim_rows("n", "rho", [3, 5], [0.1, 0.2], ["kde", "mixture"])
    if fig_id == "thesis-fig10":
        return _sim_rows("n", "rho", [3, 5], [0.1, 0.2], ["kde", "exact", "kde-clipped"])
    if fig_id == "thesis-fig15":
        return _sim_rows("epsilon", "gamma", [0.5, 1.0], [1.0, 2.0], ["kde", "exact"])
    if fig_id == "paper-fig4":
        return _utility_rows(
            "galton", [("children (inches)", 898)], ["dp", "general", "gaussian"]
        ) + _utility_rows("kid_iq", [("kids and mothers", 868)], ["dp", "general", "gaussian"])
    if fig_id == "paper-fig5":
        return _utility_rows("activity", [("complete data", 15264)], ["dp", "general", "markov", "zhao"])
    if fig_id == "thesis-fig17":
        return _utility_rows(
            "genomic", [("family size m = 2", 2520), ("family size m = 5", 2520)], ["dp", "general"]
        )
    if fig_id == "thesis-fig18":
        return _utility_rows("galton", [("trios, clip 60-80 in", 3)], ["dp", "general", "gaussian"])
    return _utility_rows(
        "activity", [("complete data", 15264), ("single days", 288)], ["dp", "general", "markov", "zhao"]
    )


def rows_for(fig_id):
    spec = FIGURES[fig_id]
    if fig_id in (
        "pufferfish-fig2",
        "bdpsim-audit",
        "bdpsim-frontier",
        "bdpsim-attack",
    ):  # minutes: committed rows
        return read_rows(ROOT / "results" / "figures" / f"{fig_id}.csv")
    if fig_id == "bdpsim-utility-optimal":
        return _utility_rows(
            "activity", [("single days", 288), ("complete data", 15264)], ["exact", "optimal"]
        )
    if fig_id.startswith("bdpsim-"):
        return _small_rows(fig_id)
    if fig_id == "thesis-fig17":
        from bdpsim.studies.genomic_study import thesis_fig17_rows

        return thesis_fig17_rows(epsilons=(1.0, 10.0, 20.0), datasets=50)
    if not spec.simulated:
        return spec.compute(None)
    return _simulated_rows(fig_id)


@pytest.mark.parametrize("fig_id", list(FIGURES))
def test_legends_readable_and_off_the_data(fig_id):
    fig = render(fig_id, rows_for(fig_id))
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    data_areas = [ax.get_window_extent(r) for ax in fig.axes if ax.axison]  # an axes turned off (a free grid
    # slot holding a legend) has no data area
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        box = leg.get_window_extent(r)
        for area in data_areas:
            assert Bbox.intersection(box, area) is None, f"{fig_id}: legend overlaps an axes"
        assert all(t.get_fontsize() >= LEGEND_PT for t in leg.get_texts()), fig_id
        assert leg.get_title().get_fontsize() >= LEGEND_PT
    assert not any("QUICK" in t.get_text() for t in fig.texts)


def test_quick_figure_says_so():
    fig = render("thesis-fig15", rows_for("thesis-fig15"), fidelity="quick")
    assert any("QUICK PREVIEW" in t.get_text() and "--quick" in t.get_text() for t in fig.texts)
    assert fidelity_level(True, True) == "quick" and fidelity_level(True, False) == "full"
    assert fidelity_level(False, True, ["electricity"]) == "partial: electricity missing"
    assert fidelity_level(True, True, ["electricity"]) == "quick; partial: electricity missing"


def test_fig10_dots_unclipped_crosses_clipped_thm55():
    fig = render("thesis-fig10", rows_for("thesis-fig10"))
    ax = fig.axes[-1]  # one panel per n; the legend right of the last
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "Gaussian bound (Thm 5.5)" in labels and not any("6.2" in s for s in labels)
    marker = {s: h.get_marker() for s, h in zip(labels, ax.get_legend().legend_handles)}
    assert marker["unclipped sum: KDE p99 (dots)"] == "o"
    assert marker["clipped sum [0, 10]: KDE p99 (crosses)"] == "x"
    drawn = {ln.get_marker() for a in fig.axes for ln in a.get_lines()}
    assert {"o", "x", "s"} <= drawn
    # the y-axis follows the estimates, not the bound (which runs to ~10^4 near rho = 1/(n - 2))
    assert all(a.get_ylim()[1] < 10 for a in fig.axes)


# --------------------------------------------------------------- analytic CSVs: the sources' grids


@pytest.fixture(scope="module")
def analytic(tmp_path_factory):
    """The analytic figures' CSVs exactly as ``make_figures`` writes them (without the images)."""
    out = tmp_path_factory.mktemp("analytic")
    for i in [
        "thesis-fig03",
        "thesis-fig05",
        "thesis-fig08",
        "thesis-fig13",
        "paper-fig1",
        "paper-fig2",
        "paper-fig3",
    ]:
        rows = FIGURES[i].compute(None)
        (out / f"{i}.csv").write_text(R.csv_text(rows, list(dict.fromkeys(k for r in rows for k in r))))
    return out


def test_thesis_fig05_log_axis_and_fig03_range(analytic):
    rows = read_rows(analytic / "thesis-fig05.csv")
    assert (rows[0]["epsilon"], rows[-1]["epsilon"]) == (0.0, 5.0)
    assert math.isclose(rows[-1]["beta_min"], 1 / (math.exp(5) + 1))
    assert render("thesis-fig05", rows).axes[0].get_yscale() == "log"
    f03 = read_rows(analytic / "thesis-fig03.csv")
    assert (f03[0]["epsilon"], f03[-1]["epsilon"]) == (0.0, 5.0)
    ax = render("thesis-fig08", read_rows(analytic / "thesis-fig08.csv")).axes[0]
    assert ax.get_yscale() == "linear" and ax.get_ylim() == (0.0, 10.0)


def test_thesis_fig13_grid(analytic):
    rows = read_rows(analytic / "thesis-fig13.csv")
    assert sorted({r["epsilon"] for r in rows}) == [0.5, 1.0, 2.0]
    assert sorted({r["n"] for r in rows}) == list(range(1, 101))
    for r in rows[::37]:
        assert math.isclose(r["gamma_max"], math.exp((r["n"] - 1) * r["epsilon"] / 4))
        # the boundary is where the Markov bound meets the general bound n eps
        g = r["gamma_max"]
        below = B.markov_bound(r["epsilon"], B.symmetric_chain(g * 0.999)).value if g > 1.001 else -1
        above = B.markov_bound(r["epsilon"], B.symmetric_chain(g * 1.001)).value
        assert below < r["n"] * r["epsilon"] < above
    ax = render("thesis-fig13", rows).axes[0]
    assert ax.get_yscale() == "log" and ax.get_ylim() == (1.0, 1e4) and ax.get_xlim() == (0.0, 100.0)
    # nested regions as translucent fills (no hatches: three nested hatches were unreadable), one
    # boundary line per eps
    assert len(ax.collections) == 3 and not any(c.get_hatch() for c in ax.collections)
    assert len([ln for ln in ax.get_lines() if ln.get_linestyle() == "-"]) == 3
    # the thesis' two examples (§7.2): eps = 0.5, n = 80, gamma = 10^4 better; n = 20, gamma = 100 not
    gmax = {(r["epsilon"], r["n"]): r["gamma_max"] for r in rows}
    assert gmax[(0.5, 80)] > 1e4 and gmax[(0.5, 20)] < 100


def test_paper_fig1_grid_and_general_better(analytic):
    rows = read_rows(analytic / "paper-fig1.csv")
    assert sorted({r["m"] for r in rows}) == [3, 6, 12, 24]
    for m in (3, 6, 12, 24):
        rs = [r for r in rows if r["m"] == m]
        assert rs[0]["rho"] == 0.0 and rs[0]["h"] == 1.0
        assert math.isclose(max(r["h"] for r in rs), 10.0)
        for r in rs:
            assert r["general_better"] == int(r["h"] > m)
            if 0 < r["rho"]:
                assert math.isclose(r["h"], m * m / (4 * (1 / r["rho"] - m + 2)) + 1)
    # the crossing of paper eq. (4): h = m at rho = (m - 1)/(5/4 m^2 - 3m + 2)
    cross = [r for r in rows if r["m"] == 3 and math.isclose(r["rho"], 2 / 4.25)]
    assert len(cross) == 1 and math.isclose(cross[0]["h"], 3.0)
    assert any(r["general_better"] for r in rows if r["m"] == 6)
    assert not any(r["general_better"] for r in rows if r["m"] in (12, 24))  # h = m lies above h = 10


def test_paper_fig3_grid(analytic):
    rows = read_rows(analytic / "paper-fig3.csv")
    assert sorted({r["epsilon"] for r in rows}) == [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
    for e in (0.5, 1.0, 2.0, 5.0, 10.0, 20.0):
        rs = [r for r in rows if r["epsilon"] == e]
        assert len(rs) >= 20 and rs[0]["gamma"] == 1.0 and rs[0]["h"] == 1.0
        assert math.isclose(rs[-1]["h"], 10.0) and rs[-1]["gamma"] <= 100
        assert math.isclose(rs[-1]["gamma"], math.exp(0.225 * e))
        assert all(math.isclose(r["h"], e / (e - 4 * math.log(r["gamma"]))) for r in rs[::7])


def test_paper_fig2_both_variants(analytic):
    rows = read_rows(analytic / "paper-fig2.csv")
    a = [r for r in rows if r["panel"] == "a"]
    b = [r for r in rows if r["panel"] == "b"]
    assert sorted({r["p_ss"] for r in a}) == [0.6, 0.7, 0.8]
    # the authors' mle_accu.py evaluates eps = linspace(ceil(4 ln gamma), 10, 5)
    marked = {
        p: sorted(r["epsilon"] for r in a if r["p_ss"] == p and r["authors_point"]) for p in (0.6, 0.7, 0.8)
    }
    assert marked == {
        0.6: [2.0, 4.0, 6.0, 8.0, 10.0],
        0.7: [4.0, 5.5, 7.0, 8.5, 10.0],
        0.8: [6.0, 7.0, 8.0, 9.0, 10.0],
    }
    # panel (b): BDP_RR/BDP_accuracy.py's n = 500, eps = 4, switch 0.3, theta in {0.1, 0.5, 0.7}
    assert {(r["n"], r["epsilon"], r["switch"]) for r in b} == {(500, 4.0, 0.3)}
    assert sorted({r["theta"] for r in b if r["curve"] == "randomized_response"}) == [0.1, 0.5, 0.7]
    a_, eps = 0.3, 4.0
    E = math.exp(eps)
    rho = (4 + a_ * (a_ * E - 2) - math.sqrt(a_**2 * E * (4 + a_ * (a_ * E - 4)))) / (
        8 + 2 * a_ * (a_ * E + a_ - 4)
    )
    p_rr = 1 - rho
    tau = eps - 4 * math.log((1 - a_) / a_)
    lap = {round(r["alpha"], 12): r["beta"] for r in b if r["curve"] == "markov_laplace"}
    alphas = sorted(lap)
    for alpha in (alphas[0], alphas[10], alphas[57]):
        assert math.isclose(lap[alpha], math.exp(-alpha / (1 / (500 * tau))), rel_tol=1e-9)
    for theta in (0.1, 0.5, 0.7):
        rr = {
            round(r["alpha"], 12): r["beta"]
            for r in b
            if r["curve"] == "randomized_response" and r["theta"] == theta
        }
        q = (2 * p_rr - 1) * theta + (1 - p_rr)
        for alpha in (alphas[0], alphas[5], alphas[23], alphas[80]):
            direct = sum(
                comb(500, k) * q**k * (1 - q) ** (500 - k)
                for k in range(501)
                if abs(k / 500 - q) >= (2 * p_rr - 1) * alpha
            )
            assert rr[alpha] == pytest.approx(direct, rel=1e-9, abs=1e-15), (theta, alpha)
    ax_a, ax_b = render("paper-fig2", rows).axes
    assert "(a)" in ax_a.get_title() and "(b)" in ax_b.get_title()


# ------------------------------------------------------------ utility: data in the sources' formats


def _galton_csv(path, rng):
    kids = 40
    fam = np.repeat(np.arange(10), 4)
    father = np.round(np.repeat(rng.normal(69, 2.5, 10), 4), 1)
    mother = np.round(np.repeat(rng.normal(64, 2.3, 10), 4), 1)
    child = np.round(rng.normal(66, 3.5, kids), 1)
    child[:2] = [57.5, 82.0]  # outside 60-80: clipped in the trios
    lines = ["rownames,family,father,mother,sex,height,nkids"]
    lines += [
        f"{i + 1},{f},{a:.1f},{b:.1f},M,{c:.1f},4"
        for i, (f, a, b, c) in enumerate(zip(fam, father, mother, child))
    ]
    path.write_text("\n".join(lines) + "\n")
    return father, mother, child


def _activity_zip(path, rng, days=4, na_day=2):
    buf = io.StringIO()
    buf.write('"steps","date","interval"\n')
    state, active = 0, 0
    for d in range(days):
        for t in range(288):
            state = state if rng.random() < 0.85 else 1 - state
            steps = "NA" if d == na_day else str(int(state * rng.integers(1, 50)))
            active += d != na_day and state
            buf.write(f'{steps},"2012-10-{d + 1:02d}",{t}\n')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("activity.csv", buf.getvalue())
    return active, (days - 1) * 288


@pytest.fixture
def fake_data(tmp_path, monkeypatch):
    """Galton and activity files in their formats (checksums lifted for these fakes)."""
    for name in ("galton", "activity"):
        monkeypatch.setitem(DS.REGISTRY, name, dataclasses.replace(DS.REGISTRY[name], sha256=None))
    rng = np.random.default_rng(7)
    d = tmp_path / "data"
    d.mkdir()
    galton = _galton_csv(d / "galton.csv", rng)
    activity = _activity_zip(d / "activity.zip", rng)
    return d, galton, activity


FAST = {"utility": {"runs": 20, "epsilon": [2.0, 10.0, 20.0]}}


def test_thesis_fig18_clips_to_60_80(tmp_path, fake_data):
    d, (father, mother, child), _ = fake_data
    cfg = parse_utility(
        {"utility": {"dataset": "galton", "split": ["all", "trios"], "epsilon": [1.0], "runs": 20}}
    )
    allv, trios = variants(cfg, d)
    assert allv.sensitivity == 100.0 and trios.sensitivity == 20.0 and trios.n == trios.m == 3
    raw = child + father + mother
    assert np.allclose(
        trios.truths, np.clip(child, 60, 80) + np.clip(father, 60, 80) + np.clip(mother, 60, 80)
    )
    assert (
        trios.clip_bias_mse() == pytest.approx(np.mean((trios.truths - raw) ** 2))
        and trios.clip_bias_mse() > 0
    )
    make_figures(["thesis-fig18"], tmp_path / "out", data_dir=d, overrides=FAST, log=lambda m: None)
    rows = read_rows(tmp_path / "out" / "thesis-fig18.csv")
    assert {r["variant"] for r in rows} == {"trios, clip 60-80 in"}
    assert {r["sensitivity"] for r in rows} == {20.0} and {r["n"] for r in rows} == {3}
    g = next(r for r in rows if r["mechanism"] == "gaussian" and r["epsilon"] == 10.0)
    assert g["noise_scale"] == pytest.approx(20.0 * B.gaussian_factor(trios.model["rho"], 3) / 10.0)


def test_thesis_fig19_two_panels_and_paper_fig5_partial(tmp_path, fake_data):
    d, _, (active, records) = fake_data
    out = tmp_path / "out"
    logs = []
    # the sources' methods only: the exact calibration of the 864-record chain (a window search per
    # bisection step, 70 s here) is tested on its own (tests/studies/test_utility*.py)
    fast = {"utility": {**FAST["utility"], "mechanisms": ["dp", "general", "markov", "zhao"]}}
    make_figures(["thesis-fig19"], out, data_dir=d, overrides=fast, log=logs.append)
    make_figures(["paper-fig5"], out, data_dir=d, overrides=fast, log=logs.append, quick=True)
    rows = read_rows(out / "thesis-fig19.csv")
    by = {r["variant"]: r for r in rows}
    assert by["single days"]["n"] == 288 and by["single days"]["databases"] == 3  # the NA day is dropped
    assert by["complete data"]["n"] == by["complete data"]["m"] == records
    assert by["complete data"]["true_value"] == active
    axes = render("thesis-fig19", rows).axes
    assert [a.get_title().split(",")[0] for a in axes] == ["(a) single days", "(b) complete data"]
    fid = json.loads((out / "fidelity.json").read_text())
    assert fid["paper-fig5"] == "quick; partial: electricity missing" and fid["thesis-fig19"] == "full"
    gallery = (out / "README.md").read_text()
    assert "fidelity: `quick; partial: electricity missing`" in gallery
    assert "--only paper-fig5 --quick`" in gallery and "--only thesis-fig19` —" in gallery
    for text in (gallery, (out / "fidelity.json").read_text(), (out / "metadata.json").read_text()):
        assert str(tmp_path) not in text and str(d) not in text and "shared/data" not in text
    assert any(str(d) in m for m in logs)  # the console may say where it looked


def _ampds(path, days_kw, start_day=15431):
    """Electricity_P.csv in AMPds' layout: UNIX_TS, WHE and two sub-meters (W, one row a minute);
    ``days_kw`` maps day offset -> (WHE kW, RSE kW, readings)."""
    lines = ["UNIX_TS,WHE,RSE,GRE"]
    for off, (whe, rse, readings) in days_kw.items():
        t0 = (start_day + off) * 86400
        lines += [
            f"{t0 + 60 * k},{whe * 1000:.1f},{rse * 1000:.1f},{(whe - rse) * 500:.1f}"
            for k in range(readings)
        ]
    path.write_text("\n".join(lines) + "\n")


def test_electricity_the_authors_preprocessing(tmp_path, monkeypatch):
    days = {
        0: (1.0, 0.2, 1440),
        1: (4.0, 1.0, 1440),
        2: (3.0, 0.5, 720),
        4: (1.2, 0.1, 1440),
        5: (4.0, 0.5, 1440),
        6: (3.5, 0.5, 1440),
    }  # day 3 missing, day 2 half a day
    _ampds(tmp_path / "Electricity_P.csv", days)
    d = DS.load_electricity(tmp_path / "Electricity_P.csv")
    # daily energy = 24 h x mean power of WHE + RSE + GRE (every meter column), in kWh
    expect_all = [24 * (w + r + (w - r) / 2) for w, r, _ in days.values()]
    assert np.allclose(d["kwh"], expect_all) and np.allclose(d["kwh_all"], expect_all)
    assert np.allclose(d["kwh_whe"], [24 * w for w, _, _ in days.values()])
    assert d["readings"].tolist() == [1440, 1440, 720, 1440, 1440, 1440] and d["columns"] == [
        "WHE",
        "RSE",
        "GRE",
    ]
    whe_only = DS.load_electricity(tmp_path / "Electricity_P.csv", "WHE")
    assert np.allclose(whe_only["kwh"], whe_only["kwh_whe"])
    cfg = parse_utility(
        {"utility": {"dataset": "electricity", "threshold": [70.0], "epsilon": [12.0], "runs": 20}}
    )
    rows, vs = run_utility(cfg, tmp_path)
    v = vs[0]
    state = [int(k > 70) for k in expect_all]  # [0, 1, 1, 0, 1, 1]
    assert v.truths[0] == sum(state) and v.n == v.m == 6
    # transitions between consecutive retained days, across the missing day 3 (as the script)
    assert np.array(v.model["counts"]).tolist() == [[0, 2], [1, 2]]
    assert v.model["gaps_bridged"] == 1 and v.model["partial_days"] == 1 and v.model["meters"] == "all"
    assert v.model["median_ratio_all_meters_to_whe"] == pytest.approx(
        np.median(np.array(expect_all) / [24 * w for w, _, _ in days.values()])
    )
    with pytest.raises(Exception, match="utility.meters"):
        parse_utility({"utility": {"dataset": "electricity", "meters": "MHE"}})


def test_missing_file_note_names_no_local_path(tmp_path):
    with pytest.raises(DS.DatasetError) as info:
        DS.fetch("electricity", tmp_path)
    assert str(tmp_path) in str(info.value)  # the console message says where it looked
    assert str(tmp_path) not in info.value.public and "Electricity_P.csv not supplied" in info.value.public


# ------------------------------------------------------------------------- gallery deviation table


def test_every_figure_has_a_deviation_row(tmp_path):
    assert set(DEVIATIONS) == set(FIGURES)
    for d in DEVIATIONS.values():
        assert d.source and d.ours and d.why
    text = " ".join(DISAGREEMENTS)
    for needle in ("τ = ε/3", "400", "3.29", "0.149", "17 568", "15 264"):
        assert needle in text
    gallery = write_gallery(tmp_path).read_text()
    assert "| figure | source's parameters | bdpsim's | why they differ |" in gallery
    assert sum(line.startswith("| [") for line in gallery.splitlines()) == len(FIGURES)


def test_replot_from_csv_keeps_fidelity(tmp_path):
    rows = _sim_rows("epsilon", "gamma", [0.5, 1.0], [1.0, 2.0], ["kde", "exact"])
    cols = list(rows[0])
    with open(tmp_path / "thesis-fig15.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, cols)
        w.writeheader()
        w.writerows(rows)
    (tmp_path / "fidelity.json").write_text(
        json.dumps({"thesis-fig15": "quick", "_notes": {"thesis-fig15": ["kept"]}})
    )
    paths = replot(["thesis-fig15"], tmp_path)
    assert [p.name for p in paths] == ["thesis-fig15.png", "thesis-fig15.pdf"]
    gallery = (tmp_path / "README.md").read_text()
    assert "> Note: kept" in gallery and "fidelity: `quick`" in gallery


def test_utility_figures_resume_from_their_runs(tmp_path, fake_data, monkeypatch):
    """A utility figure saves each variant in ``OUT/runs/<config>`` (the one runner): a second
    ``make_figures`` recomputes no variant and draws the same rows."""
    import bdpsim.utility.experiment as U

    d, _, _ = fake_data
    calls = []
    real = U._variant_rows

    def counted(*args):
        calls.append(args[1])
        return real(*args)

    monkeypatch.setattr(U, "_variant_rows", counted)
    out = tmp_path / "out"
    make_figures(["thesis-fig18"], out, data_dir=d, overrides=FAST, log=lambda m: None)
    first = (out / "thesis-fig18.csv").read_text()
    assert len(calls) == 2  # Galton: all and trios
    meta = json.loads((out / "runs" / "utility_galton" / "metadata.json").read_text())
    assert meta["status"] == "complete" and meta["kind"] == "utility"
    make_figures(["thesis-fig18"], out, data_dir=d, overrides=FAST, log=lambda m: None)
    assert len(calls) == 2 and (out / "thesis-fig18.csv").read_text() == first
