"""Usability: probes of the figures layer."""

import pytest

from bdpsim.pipeline.config import load_config

from ..support.bad_config import cli
from ..support.usability import (
    _help,
)


@pytest.mark.parametrize("cmd", [["run"], ["validate"], ["plot"], ["figures"], ["utility"], ["configs"], []])
def test_help_examples_are_never_broken(capsys, monkeypatch, cmd):
    text = _help(capsys, monkeypatch, *cmd)
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith("bdpsim ") and line.startswith("  "):  # an example command
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            assert not (nxt and not nxt.startswith(" ") and nxt[0] == "-"), (line, nxt)
    assert not any(line.startswith("--") for line in lines), text  # no option wrapped to column 0


def test_figures_help_lists_every_gallery_id(capsys, monkeypatch):
    from bdpsim.figures.gallery import FIGURES

    text = _help(capsys, monkeypatch, "figures", columns=200)
    ids = set(text.split("ids:")[1].replace(",", " ").split())
    for fid in FIGURES:
        head, _, tail = fid.rpartition("fig")
        assert fid in ids or (head and tail in ids), fid


def test_plot_help_one_default_axis_list(capsys, monkeypatch):
    from bdpsim.cli import PLOT_AXES
    from bdpsim.figures.summary import AXIS_CANDIDATES

    assert PLOT_AXES == AXIS_CANDIDATES
    text = " ".join(_help(capsys, monkeypatch, "plot", columns=400).split())
    assert text.count(", ".join(AXIS_CANDIDATES)) == 2


# ------------------------------------------------------------------ 1. the README's first commands
def test_readme_quickstart_writes_outside_the_committed_results(capsys):
    """The README's first command runs a bundled config into a git-ignored directory that holds no
    committed file, so its second command (the test suite, with the README-numbers check against
    the committed results/quickstart/) still passes on a fresh clone."""
    import re
    import shlex
    import subprocess

    from ..conftest import ROOT

    block = (ROOT / "README.md").read_text().split("```bash\n", 1)[1].split("```", 1)[0]
    first = block.splitlines()[0]
    run = next(c for c in first.split("&&") if c.split()[:2] == ["bdpsim", "run"])
    args = shlex.split(run)
    out = args[args.index("--out") + 1]
    assert not re.match(r"results/quickstart/?$", out)
    git = lambda *a: subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True)
    if git("rev-parse").returncode != 0:
        pytest.skip("not a git checkout")
    assert git("check-ignore", "-q", f"{out}/summary.csv").returncode == 0, f"{out} is not git-ignored"
    assert git("ls-files", out).stdout == ""
    assert f"bdpsim plot {out}" in first
    rc, text, err = cli(capsys, "validate", args[2])
    assert rc == 0, err


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


def test_calibrated_range_holds_the_recorded_figure_runs():
    import json

    from bdpsim.pipeline.cost import config_seconds, estimate_config

    from ..conftest import ROOT

    rec = json.loads((ROOT / "results" / "benchmarks" / "figures.json").read_text())["runs"]
    for fig, name in (("thesis-fig15", "thesis_fig15"), ("thesis-fig09", "thesis_fig9")):
        lo, hi = config_seconds(estimate_config(load_config(ROOT / "configs" / f"{name}.toml"))[2])
        assert lo <= rec[fig]["compute_seconds"] <= hi, (fig, lo, rec[fig]["compute_seconds"], hi)


def test_plot_of_a_header_only_summary_is_refused(tmp_path, bdpsim_cli):  # 16
    from bdpsim.pipeline.rows import summary_columns

    (tmp_path / "summary.csv").write_text(",".join(summary_columns()) + "\n")
    p = bdpsim_cli("plot", tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "has no rows" in p.stderr, p.stderr
    assert not (tmp_path / "bdpl.png").exists() and not (tmp_path / "bdpl.pdf").exists()
