"""``bdpsim plot``: argument checks, group labels, automatic axes, no leaked warnings."""

import errno
import math
import warnings

import pytest

import bdpsim
from bdpsim.core.errors import ConfigError
from bdpsim.figures import choose_axes, plot_summary, subplots
from bdpsim.figures.summary import check_axes

from ..conftest import write_toml
from ..support.bad_config import _help
from ..support.bad_input import COUNT, MARKOV, RUN, one_line

#: an audit of two variants of the count (Laplace and geometric noise) on the activity chain
AUDIT = (
    '[run]\nseed = 17\nadversaries = 4\nestimator = "audit"\nadversary_family = "windows"\n'
    'audit_budget = 40_000\n[model]\nkind = "markov"\nn = 12\ntransition = [[0.882, 0.118], [0.305, 0.695]]\n'
    '[mechanism]\nkind = "count"\nepsilon = 1.0\n[[variants]]\n[[variants]]\n'
    'mechanism = { noise = "geometric" }\n'
)

EPS = [0.5, 1.0, 1.5, 2.0]


@pytest.fixture(scope="module")
def eps_run(tmp_path_factory):
    """A finished run: an epsilon-only sweep (noise_scale = 1/epsilon varies with it), two estimators."""
    out = tmp_path_factory.mktemp("eps")
    bdpsim.run(
        {
            "run": {"adversaries": 8, "samples": 2000, "estimator": ["exact", "mixture"]},
            "model": {"kind": "markov", "n": 4, "gamma": 3.0},
            "mechanism": {"kind": "count", "epsilon": EPS},
        },
        out,
        as_frame=False,
    )
    return out


def _row(**kw):
    base = {
        "estimator": "exact",
        "bdpl_p99": 1.0,
        "bdpl_max": 1.0,
        "percentile": 99.0,
        "bound_general": 2.0,
        "bound_model": 3.0,
        "noise_floor": math.nan,
        "bdpl_exact": math.nan,
        "rho": math.nan,
    }
    return {**base, **kw}


def _labels(ax):
    return ax.get_legend_handles_labels()[1]


def _plot(rows, **kw):
    fig, ax = subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may leak: All-NaN slice, format warnings, ...
        plot_summary(rows, ax, **kw)
    return ax


def test_derived_column_is_not_a_group():
    eps_only = [_row(epsilon=e, noise_scale=1 / e, gamma=3.0, n=4) for e in EPS]
    assert choose_axes(eps_only) == ("epsilon", None)
    ax = _plot(eps_only)
    assert not any("noise_scale" in lab for lab in _labels(ax))
    assert len(ax.lines) >= 1 and all(len(line.get_xdata()) in (0, len(EPS)) for line in ax.lines)
    grid = [_row(epsilon=e, noise_scale=1 / e, gamma=g, n=4) for g in (2.0, 5.0) for e in EPS]
    assert choose_axes(grid) == ("gamma", "epsilon")  # a swept column, not the derived one
    # an explicit x of the derived column: epsilon is a function of it, so not a group either
    assert _plot(grid, x="noise_scale") is not None
    assert {lab for lab in _labels(_plot(grid, x="noise_scale")) if "=" in lab} == {
        f"min(general, model bound) gamma = {g:g}" for g in (2.0, 5.0)
    } | {f"exact BDPL, every adversary gamma = {g:g}" for g in (2.0, 5.0)}


def test_string_group_labels_and_no_warning_when_bounds_are_missing():
    rows = [
        _row(
            epsilon=e,
            estimator=est,
            bdpl_p99=e,
            bdpl_max=e,
            bound_general=math.nan,
            bound_model=math.nan,
            noise_floor=0.1 if est == "mixture" else math.nan,
        )
        for e in EPS
        for est in ("exact", "mixture")
    ]
    ax = _plot(rows, group="estimator")
    labels = _labels(ax)
    assert (
        "exact BDPL, every adversary estimator = exact" in labels
        and "mixture p99 estimator = mixture" in labels
    )
    assert not any("bound" in lab for lab in labels)  # every bound NaN: no line, no warning
    # a group column with missing values on some rows: labelled, not formatted as a number
    rows = [_row(epsilon=e, rho=(0.3 if e > 1 else math.nan)) for e in EPS]
    assert "exact BDPL, every adversary rho = n/a" in _labels(_plot(rows, group="rho"))


@pytest.mark.parametrize(
    "kw,match",
    [
        ({"x": "foo"}, "x = 'foo': not a column of summary.csv"),
        ({"x": "estimator"}, "x = 'estimator': not a numeric column"),
        ({"group": "foo"}, "group = 'foo': not a column"),
    ],
)
def test_check_axes_rejects(kw, match):
    rows = [_row(epsilon=e) for e in EPS]
    with pytest.raises(ConfigError, match=match) as err:
        check_axes(rows, kw.get("x"), kw.get("group"))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "args,ok",
    [
        (["--x", "foo"], False),
        (["--group", "foo"], False),
        (["--x", "estimator"], False),
        (["--group", "estimator"], True),
        ([], True),
    ],
)
def test_cli_plot(eps_run, bdpsim_cli, args, ok):
    for f in eps_run.glob("bdpl.*"):
        f.unlink()
    p = bdpsim_cli("plot", eps_run, *args, errors=(RuntimeWarning,))  # python -W error::RuntimeWarning
    if ok:
        assert p.returncode == 0 and p.stderr == "", p.stderr
        assert (eps_run / "bdpl.png").stat().st_size > 1000 and (eps_run / "bdpl.pdf").is_file()
    else:
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
        assert p.stderr.startswith("bdpsim: error: ") and repr(args[1]) in p.stderr
        assert not list(eps_run.glob("bdpl.*"))  # nothing written


def test_plot_ignores_a_foreign_metadata_file(tmp_path):
    """A binary or non-JSON metadata.json beside a valid summary.csv costs only the title."""
    from bdpsim.figures.summary import _metadata_title

    p = tmp_path / "metadata.json"
    p.write_bytes(b"\x00\xff\xfe garbage")
    assert _metadata_title(p) == ""
    p.write_text("[1, 2]")
    assert _metadata_title(p) == ""
    p.write_text('{"title": "ok"}')
    assert _metadata_title(p) == "ok"
    assert _metadata_title(tmp_path / "missing.json") == ""


def test_plot_help_one_default_axis_list(capsys, monkeypatch):
    from bdpsim.cli import PLOT_AXES
    from bdpsim.figures.summary import AXIS_CANDIDATES

    assert PLOT_AXES == AXIS_CANDIDATES
    text = " ".join(_help(capsys, monkeypatch, "plot", columns=400).split())
    assert text.count(", ".join(AXIS_CANDIDATES)) == 2


def test_plot_of_a_header_only_summary_is_refused(tmp_path, bdpsim_cli):
    from bdpsim.pipeline.rows import summary_columns

    (tmp_path / "summary.csv").write_text(",".join(summary_columns()) + "\n")
    p = bdpsim_cli("plot", tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "has no rows" in p.stderr, p.stderr
    assert not (tmp_path / "bdpl.png").exists() and not (tmp_path / "bdpl.pdf").exists()


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


def _a_run(bdpsim_cli, tmp_path):
    """The results directory of a small run (a Markov chain's count, 4 adversaries)."""
    out = tmp_path / "o"
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    return out


def test_plot_where_bdpl_png_is_a_directory(bdpsim_cli, tmp_path):
    out = _a_run(bdpsim_cli, tmp_path)
    (out / "bdpl.png").mkdir()
    p = bdpsim_cli("plot", out)
    one_line(p, "results", "bdpl.png exists and is not a file")
    assert not (out / "bdpl.pdf").exists()


def test_plot_into_a_read_only_directory(bdpsim_cli, tmp_path, monkeypatch):
    """(As root a chmod does not stop a write: the refusal of the file system is simulated.)"""
    import matplotlib.figure

    out = _a_run(bdpsim_cli, tmp_path)

    def denied(self, fname, **kw):
        raise PermissionError(errno.EACCES, "Permission denied", str(fname))

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", denied)
    p = bdpsim_cli("plot", out)
    one_line(p, "results", "Permission denied")
    assert not list(out.glob("bdpl*")) and not list(out.glob(".bdpl*"))


def test_a_long_title_is_shortened_on_the_plot():
    from bdpsim.figures.summary import TITLE_LIMIT, shortened

    assert shortened("markov, n = 8") == "markov, n = 8"
    long = shortened("x" * 200_000)
    assert len(long) == TITLE_LIMIT and long.endswith("…")


def test_the_quickstart_figure_gives_the_data_the_width(tmp_path):
    """Before: the legend (long labels) sat to the right of the axes and took half the figure's
    width, the data 34 % of it. The legend now sits under the x label in two columns: the axes
    span at least 85 % of the drawn figure's width and the legend no more than it, overlapping
    neither the axes nor their labels."""
    import shutil

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from bdpsim.figures import plot_results
    from bdpsim.figures import summary as S

    from ..conftest import ROOT

    run = tmp_path / "quickstart"
    run.mkdir()
    for name in ("summary.csv", "metadata.json"):
        shutil.copy(ROOT / "results" / "quickstart" / name, run / name)
    drawn = {}
    subplots = S.subplots

    def keep(*a, **kw):
        fig, ax = subplots(*a, **kw)
        drawn["fig"], drawn["ax"] = fig, ax
        return fig, ax

    S.subplots = keep
    try:
        (png,) = plot_results(run, formats=["png"])
    finally:
        S.subplots = subplots
    fig, ax = drawn["fig"], drawn["ax"]
    renderer = FigureCanvasAgg(fig).get_renderer()
    whole = fig.get_tightbbox(renderer)
    axes, xlabel = ax.get_window_extent(renderer), ax.xaxis.label.get_window_extent(renderer)
    box = ax.get_legend().get_window_extent(renderer)
    assert axes.width / (whole.width * fig.dpi) >= 0.85, (axes.width, whole.width * fig.dpi)
    assert box.width <= axes.width * 1.02 and box.y1 < xlabel.y0, (box, xlabel)
    assert png.stat().st_size > 0
