"""Bad input: probes of the figures layer."""

import errno

import pytest

from ..conftest import write_toml
from ..support.bad_input import (
    AUDIT,
    COUNT,
    MARKOV,
    RUN,
    one_line,
)


# ------------------------------------------------------------------ 3. figures offline
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


def test_plot_of_an_audit_draws_the_certified_bound_of_every_variant(bdpsim_cli, tmp_path, monkeypatch):
    from bdpsim.figures import summary as S

    out = tmp_path / "o"
    p = bdpsim_cli("run", write_toml(tmp_path / "a.toml", AUDIT), "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    drawn = {}

    def capture(fig, stem, formats=("png", "pdf")):
        ax = fig.axes[0]
        drawn.update(
            labels=ax.get_legend_handles_labels()[1],
            xlabel=ax.get_xlabel(),
            ticks=[t.get_text() for t in ax.get_xticklabels()],
            lower=[line.get_ydata().tolist() for line in ax.get_lines() if line.get_marker() == "^"],
        )
        return []

    monkeypatch.setattr(S, "save", capture)
    p = bdpsim_cli("plot", out)
    assert p.returncode == 0, p.stderr
    assert any("certified lower bound (95 %)" in lab for lab in drawn["labels"]) and not any(
        "p99" in lab for lab in drawn["labels"]
    ), drawn
    assert drawn["ticks"] == ["count", "count/geometric"] and drawn["xlabel"].startswith("mechanism")
    from bdpsim.pipeline.results import read_summary

    assert drawn["lower"] == [[r["bdpl_lower"] for r in read_summary(out)]]


# ------------------------------------------------------------------ 7. --data-dir that does not exist
@pytest.mark.parametrize("command", [["utility", "utility_galton"], ["figures", "--only", "thesis-fig18"]])
def test_data_dir_must_exist(bdpsim_cli, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "o"
    p = bdpsim_cli(*command, "--data-dir", "nonexistent", "--out", out)
    one_line(p, "--data-dir", "nonexistent", "is not a directory")
    assert not out.exists()


def test_plot_where_bdpl_png_is_a_directory(bdpsim_cli, tmp_path):
    out = tmp_path / "o"
    assert (
        bdpsim_cli(
            "run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out, "--quiet"
        ).returncode
        == 0
    )
    (out / "bdpl.png").mkdir()
    p = bdpsim_cli("plot", out)
    one_line(p, "results", "bdpl.png exists and is not a file")
    assert not (out / "bdpl.pdf").exists()


def test_plot_into_a_read_only_directory(bdpsim_cli, tmp_path, monkeypatch):
    """(As root a chmod does not stop a write: the refusal of the file system is simulated.)"""
    import matplotlib.figure

    out = tmp_path / "o"
    assert (
        bdpsim_cli(
            "run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out, "--quiet"
        ).returncode
        == 0
    )

    def denied(self, fname, **kw):
        raise PermissionError(errno.EACCES, "Permission denied", str(fname))

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", denied)
    p = bdpsim_cli("plot", out)
    one_line(p, "results", "Permission denied")
    assert not list(out.glob("bdpl*")) and not list(out.glob(".bdpl*"))


def test_figures_out_is_a_file(bdpsim_cli, tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    one_line(bdpsim_cli("figures", "--only", "thesis-fig03", "--out", f), "--out", "is not a directory")
    assert f.read_text() == "x"
