"""``bdpsim figures`` as a newcomer meets it (issue 38 item 5): the "start here" line of
``bdpsim --help`` runs in a checkout (its default --out is git-ignored; the committed gallery is
still refused without --overwrite), an estimate is printed before anything runs, each simulated
run says its configurations and progress, and titles say the counts the rows were made with."""

from __future__ import annotations

import copy
import csv
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bdpsim.cli import FIGURES_OUT, build_parser
from bdpsim.core.bundled import CONFIG_DIR
from bdpsim.figures import gallery
from bdpsim.figures.gallery import FiguresEstimate, estimate_figures, make_figures, render
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.cost import config_seconds, estimate_point

from ..support.bad_config import _help, cli
from ..support.bad_input import one_line

ROOT = Path(__file__).resolve().parents[2]
TINY = {
    "run": {"adversaries": 6, "samples": 2000, "noise_floor_adversaries": 2},
    "variants": [{"model": {"n": 3, "rho": [0.2, 0.6]}}],
}


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


def test_default_out_is_git_ignored_and_not_the_committed_gallery():
    if shutil.which("git") is None or _git("rev-parse", "--git-dir", cwd=ROOT).returncode != 0:
        pytest.skip("not a git checkout")
    a = build_parser().parse_args(["figures", "--quick", "--jobs", "2"])
    assert a.out == FIGURES_OUT != "results/figures"
    # .gitignore ignores it (a file the command would write there)
    assert _git("check-ignore", "-q", f"{a.out}/thesis-fig03.png", cwd=ROOT).returncode == 0
    assert _git("check-ignore", "-q", "results/figures/thesis-fig03.png", cwd=ROOT).returncode != 0


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A git checkout with this repository's .gitignore and a committed results/figures."""
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    shutil.copy(ROOT / ".gitignore", tmp_path / ".gitignore")
    (tmp_path / "results" / "figures").mkdir(parents=True)
    (tmp_path / "results" / "figures" / "README.md").write_text("committed\n")
    _git("init", "-q", cwd=tmp_path)
    _git("add", "-A", cwd=tmp_path)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "gallery", cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_figures_default_out_runs_in_a_checkout(bdpsim_cli, checkout):
    """Failed at 72aee1f: the default --out was the committed results/figures (exit 2)."""
    p = bdpsim_cli("figures", "--only", "thesis-fig03", "--quiet")
    assert p.returncode == 0, p.stderr
    assert (checkout / FIGURES_OUT / "thesis-fig03.png").stat().st_size > 200
    assert _git("status", "--porcelain", cwd=checkout).stdout == ""  # nothing for git to see
    assert p.stdout.splitlines()[0] == "bdpsim figures: 1 figure, none simulated (no bdpsim run)"
    # the committed gallery: still refused, untouched
    p = bdpsim_cli("figures", "--only", "thesis-fig03", "--quiet", "--out", "results/figures")
    assert p.returncode == 2 and "committed to git" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert sorted(x.name for x in (checkout / "results" / "figures").iterdir()) == ["README.md"]


def _expected(ids, out, quick):
    """The estimate recomputed from the configs by hand: each run's points through the cost model."""
    ctx = gallery.Context(out, CONFIG_DIR, quick)
    cfgs = {}
    for i in ids:
        for name, raw in gallery.RUNS.get(i, lambda c: [])(ctx):
            cfgs.setdefault(ctx.stem(name), parse_config(copy.deepcopy(raw), name))
    pts = [pt for c in cfgs.values() for pt in c.points]
    return cfgs, pts, config_seconds([estimate_point(pt) for pt in pts])


@pytest.mark.parametrize("quick", [True, False])
def test_estimate_prices_each_run_once(tmp_path, quick):
    ids = ["thesis-fig03", "thesis-fig09", "thesis-fig10"]  # Fig. 10 reruns Fig. 9's run: counted once
    est = estimate_figures(ids, tmp_path, quick=quick)
    cfgs, pts, seconds = _expected(ids, tmp_path, quick)
    suffix = "-quick" if quick else ""
    assert est.runs == (f"thesis_fig9{suffix}", f"thesis_fig10{suffix}") == tuple(cfgs)
    assert est.configurations == est.to_compute == len(pts) > 0
    assert est.seconds == pytest.approx(seconds) and 0 < est.seconds[0] < est.seconds[1]
    assert est.other == ("thesis-fig03",)
    # the quick preview is the cheaper one (100 adversaries x 10^4 samples vs 1000 x 10^5)
    if quick:
        assert est.seconds[1] < estimate_figures(ids, tmp_path, quick=False).seconds[0]
    line = est.lines(2)[0]
    assert f"2 simulated runs of {len(pts)} configurations, {len(pts)} to compute" in line
    assert "with --jobs 2" in line
    assert not any(tmp_path.iterdir())  # nothing written


def test_estimate_rejects_inconsistent_counts():
    with pytest.raises(ValueError, match="to_compute = 5"):
        FiguresEstimate(("a",), ("r",), 4, 5, 0, (1.0, 2.0), ())


def test_simulated_run_logs_configurations_and_resumes(tmp_path):
    """Each run says its configurations and estimate as it starts and when it ends; after the run
    the estimate has nothing left to compute (the points resume from OUT/runs/)."""
    logs: list[str] = []
    make_figures(["thesis-fig09"], tmp_path, overrides=TINY, log=logs.append)
    n_points = 4  # TINY's 2 values of rho x Fig. 9's 2 estimators (kde, mixture)
    assert any(
        x.startswith(f"  run thesis_fig9: {n_points} configurations (0 already done") and "of one core" in x
        for x in logs
    ), logs
    assert f"  run thesis_fig9: {n_points} of {n_points} configurations done" in logs
    est = estimate_figures(["thesis-fig09"], tmp_path, overrides=TINY)
    assert (est.configurations, est.to_compute, est.seconds) == (n_points, 0, (0.0, 0.0))


def test_heartbeat_reaches_the_runs(tmp_path, monkeypatch, capsys):
    """Without a terminal the figures command passes a heartbeat to each run (per-point lines)."""
    seen = {}

    def fake(ids, out, **kw):
        seen.update(kw)
        return []

    monkeypatch.setattr(gallery, "make_figures", fake)
    from bdpsim.cli import main

    assert main(["figures", "--only", "thesis-fig09", "--quick", "--out", str(tmp_path)]) == 0
    assert seen["heartbeat"] > 0 and not seen["progress"]
    out = capsys.readouterr().out
    assert out.startswith("bdpsim figures: 1 figure; 1 simulated run of ")
    assert main(["figures", "--only", "thesis-fig09", "--quiet", "--out", str(tmp_path)]) == 0
    assert seen["heartbeat"] == 0


def _fig09_rows(adversaries):
    with open(ROOT / "results" / "figures" / "thesis-fig09.csv", newline="") as fh:
        rows = [
            {
                k: (float(v) if v not in ("", "kde", "mixture", "signed", "false", "true") else v)
                for k, v in r.items()
            }
            for r in csv.DictReader(fh)
        ]
    for r in rows:
        r["n_adversaries"] = adversaries
    return rows


@pytest.mark.parametrize("adversaries, said", [(100, "(100 random"), (1000, "(1 000 random")])
def test_fig09_title_says_the_adversaries_of_its_rows(adversaries, said):
    """Failed at 72aee1f: the quick preview (100 adversaries) was titled '1 000 random μ'."""
    fig = render("thesis-fig09", _fig09_rows(adversaries), "quick" if adversaries == 100 else "full")
    title = fig._suptitle.get_text()
    assert said in title and ("1 000" in title) == (adversaries == 1000)


def test_utility_titles_say_their_runs():
    from bdpsim.figures import subplots
    from bdpsim.figures import utility as U

    rows = [
        {
            "dataset": "galton",
            "variant": "children (inches)",
            "mechanism": m,
            "epsilon": e,
            "runs": 200,
            "alpha_empirical": 1.0 + e,
            "alpha_theory": 1.0 + e,
            "n": 898,
            "m": 3,
            "note": "",
            "mse": 1.0,
            "mse_theory": 1.0,
            "noise_scale": 1.0,
            "tau": 1.0,
            "mape": 0.1,
            "databases": 1,
            "clip_bias_mse": 0.0,
        }
        for m in ("dp", "general")
        for e in (1.0, 2.0)
    ]
    fig, axes = subplots(1, 1, figsize=(6, 4), squeeze=False)
    U.plot_paper_fig4(rows, list(axes.ravel()))
    assert "(200 runs per ε)" in fig._suptitle.get_text()


def test_figures_help_lists_every_gallery_id(capsys, monkeypatch):
    from bdpsim.figures.gallery import FIGURES

    text = _help(capsys, monkeypatch, "figures", columns=200)
    ids = set(text.split("ids:")[1].replace(",", " ").split())
    for fid in FIGURES:
        head, _, tail = fid.rpartition("fig")
        assert fid in ids or (head and tail in ids), fid


def test_figures_heartbeat_names_the_figure(tmp_path, capsys, monkeypatch, fast_beat):
    from bdpsim.figures import gallery

    def fake(ids, out, log=print, done=None, **kw):
        import time

        done([], ["thesis-fig03"])
        log("thesis-fig03: a figure")
        time.sleep(0.3)
        log("  a detail")
        done(["thesis-fig03"], [])
        return []

    monkeypatch.setattr(gallery, "make_figures", fake)
    rc, out, err = cli(capsys, "figures", "--only", "thesis-fig03", "--out", tmp_path)
    assert rc == 0
    assert any(
        x.startswith("bdpsim figures (left: thesis-fig03): 0/1 figures done") for x in err.splitlines()
    ), err


def test_figures_offline_skip_what_cannot_be_had(bdpsim_cli, tmp_path, monkeypatch):
    """No network (a closed port as the mirror, an empty cache): a figure needing a download is
    skipped with one line saying where to get the file, the others are drawn, exit code 2."""
    monkeypatch.setenv("BDPSIM_DATA_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("BDPSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("BDPSIM_DATA_DIR", raising=False)
    out = tmp_path / "figs"
    p = bdpsim_cli("figures", "--quick", "--only", "thesis-fig19", "thesis-fig03", "--out", out, "--quiet")
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    skipped = [line for line in p.stdout.splitlines() if "skipped thesis-fig19" in line]
    assert len(skipped) == 1 and "activity.zip" in skipped[0] and "--data-dir" in skipped[0], p.stdout
    assert p.stderr.strip().splitlines()[-1].startswith("bdpsim: error: 1 figure skipped")
    assert (out / "thesis-fig03.png").is_file() and not (out / "thesis-fig19.png").exists()


def test_figures_skip_when_the_fetcher_fails(tmp_path, monkeypatch):
    """The same through the library, with the fetcher itself raising its offline error."""
    from bdpsim.figures import gallery
    from bdpsim.utility import datasets as DS

    def offline(name, data_dir=None):
        raise DS.DatasetError(f"dataset {name}: cannot download (ConnectionError); pass --data-dir DIR")

    monkeypatch.setattr(DS, "fetch", offline)
    logs, skipped = [], []
    paths = gallery.make_figures(
        ["thesis-fig18", "thesis-fig03"], tmp_path, quick=True, log=logs.append, skipped=skipped
    )
    assert skipped == ["thesis-fig18"] and any(
        x.startswith("  skipped thesis-fig18: dataset galton") for x in logs
    )
    assert tmp_path / "thesis-fig03.png" in paths


def test_figures_refuse_to_overwrite_committed_gallery(bdpsim_cli, checkout):
    p = bdpsim_cli("figures", "--only", "thesis-fig03", "--quiet", "--out", "results/figures")
    one_line(p, "--out", "results/figures", "committed to git")
    assert not (checkout / "results" / "figures" / "thesis-fig03.png").exists()


def test_figures_out_is_a_file(bdpsim_cli, tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    one_line(bdpsim_cli("figures", "--only", "thesis-fig03", "--out", f), "--out", "is not a directory")
    assert f.read_text() == "x"


def test_progress_counts_figures_not_log_lines_and_says_what_is_left(
    tmp_path, monkeypatch, capsys, fast_beat
):
    """Before: the progress counted every log line not indented as a figure started, so a figure
    logging ``activity n=288 eps=0.5: optimal E|Z| = ...`` (the frontier does) pushed it to
    "49/34 figures done". It now counts the figures made, never past their number, and names the
    ones left."""
    import time

    from bdpsim.cli import main

    real = gallery.FIGURES["thesis-fig03"]

    def chatty(ctx):
        for k in range(3):  # unindented lines, as some studies log them
            ctx.log(f"activity n=288 eps=0.{k}: optimal E|Z| = 7.49")
        time.sleep(0.3)
        return real.compute(ctx)

    monkeypatch.setitem(gallery.FIGURES, "thesis-fig03", gallery.Figure(real.title, chatty, real.plot))
    ids = ["thesis-fig03", "thesis-fig05", "thesis-fig08"]
    assert main(["figures", "--only", *ids, "--jobs", "1", "--out", str(tmp_path)]) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("bdpsim figures")]
    counts = [tuple(map(int, re.search(r": (\d+)/(\d+) figures done", x).groups())) for x in lines]
    assert counts and all(done <= total == 3 for done, total in counts), lines
    assert lines[0].startswith(
        "bdpsim figures (left: thesis-fig03, thesis-fig05 and 1 more): 0/3 figures done"
    )


def test_figures_use_every_available_core_by_default(tmp_path, monkeypatch):
    """Before: ``--jobs`` defaulted to 1 (the quick gallery took 1 039 s on one core of an idle
    machine). Now it defaults to the cores this process may use; ``--jobs`` still rules."""
    from bdpsim.cli import main
    from bdpsim.pipeline.watchdog import available_cpus

    seen = {}
    monkeypatch.setattr(gallery, "make_figures", lambda ids, out, **kw: seen.update(kw) or [])
    assert main(["figures", "--only", "thesis-fig03", "--quiet", "--out", str(tmp_path)]) == 0
    assert seen["jobs"] == available_cpus()
    assert main(["figures", "--only", "thesis-fig03", "--quiet", "--jobs", "3", "--out", str(tmp_path)]) == 0
    assert seen["jobs"] == 3


def test_figures_reading_the_same_runs_are_made_in_one_process():
    """A figure that reads another's runs declares it (``after``) and joins its group, so that no
    worker waits on another's run lock; the simulated groups go first; ``jobs`` processes make up
    to that many groups at once, one group alone getting every job for its runs."""
    from bdpsim.figures.gallery import FIGURES, RUNS, Context, figure_groups, figure_workers

    ctx = Context(ROOT, CONFIG_DIR, quick=True)
    names = {i: {name for name, _ in RUNS[i](ctx)} for i in RUNS}
    for i in RUNS:
        for j in RUNS:
            if list(FIGURES).index(j) < list(FIGURES).index(i) and names[i] & names[j]:
                assert FIGURES[i].after == j, (i, j)
    groups = figure_groups(list(FIGURES))
    assert sorted(i for g in groups for i in g) == sorted(FIGURES)
    assert ["thesis-fig09", "thesis-fig10"] in groups and ["paper-fig4", "thesis-fig18"] in groups
    assert ["paper-fig5", "thesis-fig19"] in groups and FIGURES[groups[0][0]].simulated
    assert figure_groups(["thesis-fig10", "thesis-fig03"]) == [["thesis-fig10"], ["thesis-fig03"]]
    assert figure_workers(2, len(groups)) == (2, 1) and figure_workers(4, 1) == (1, 4)
    assert figure_workers(4, 2) == (2, 2) and figure_workers(1, 30) == (1, 1)


@pytest.mark.slow  # two worker processes start (~20 s on a loaded machine)
def test_figures_made_at_once_equal_figures_made_one_by_one(tmp_path):
    """Several figures at once in worker processes (``jobs = 2``) write the same CSVs and gallery
    as one process, and the same ids; a worker's lines are shown when its figure is done."""
    ids = ["thesis-fig06", "thesis-fig08"]
    logs = {1: [], 2: []}
    for jobs in (1, 2):
        make_figures(ids, tmp_path / str(jobs), jobs=jobs, log=logs[jobs].append)
    for i in ids:
        assert (tmp_path / "1" / f"{i}.csv").read_bytes() == (tmp_path / "2" / f"{i}.csv").read_bytes(), i
    assert (tmp_path / "1" / "README.md").read_text() == (tmp_path / "2" / "README.md").read_text()
    for jobs in (1, 2):
        titles = [x.split(":")[0] for x in logs[jobs] if not x.startswith(" ")]
        assert sorted(titles) == sorted(ids) and sum("done in" in x for x in logs[jobs]) == len(ids)
