"""Third hostile catalogue (issue 27, items 2-5, 7, 8, 14-17): each probe gets one line naming
the field, the value and the rule, exit code 2 (130 for Ctrl-C), no traceback, nothing written;
and the newcomer's rough edges (help within 80 columns, tables that tell rows apart)."""

import argparse
import errno
import json
import subprocess
import sys
import time
import uuid

import pytest

from .conftest import ROOT, write_toml

RUN = '[run]\nseed = 3\nadversaries = 4\nsamples = 1000\nestimator = "mixture"\nnoise_floor_adversaries = 0\n'
MARKOV = '[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n'
COUNT = '[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = [1]\n'


def one_line(p, *words, code=2):
    assert p.returncode == code, p
    assert p.stderr.startswith("bdpsim: ") and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
    for w in words:
        assert w in p.stderr, p.stderr


# ------------------------------------------------------------------ 2. user mechanisms that end their process
MECHANISMS = '''
import os, sys, signal, multiprocessing
import numpy as np

def _ok(data, rng):
    return (data == 1).sum(axis=1) + rng.laplace(0.0, 1.0, size=data.shape[0])

def sys_exit_0(data, rng):
    sys.exit(0)

def sys_exit_7(data, rng):
    sys.exit(7)

def os_exit_0(data, rng):
    os._exit(0)

def complex_out(data, rng):
    return _ok(data, rng) + 1j

def kill_in_worker(data, rng):  # runs in bdpsim's process for the config check, dies in a worker
    if multiprocessing.parent_process() is not None or "dask" in sys.modules and _in_dask_worker():
        os.kill(os.getpid(), signal.SIGKILL)
    return _ok(data, rng)

def _in_dask_worker():
    try:
        from distributed import get_worker
        get_worker()
        return True
    except Exception:
        return False
'''


def _user_config(tmp_path, body: str, function: str, **run) -> tuple:
    """A config using ``function`` of a fresh module (unique name: no import cache between tests)."""
    mod = f"hostile_mech_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{mod}.py").write_text(body)
    extra = "".join(f"{k} = {v}\n" for k, v in run.items())
    text = RUN.replace('"mixture"', '"kde"') + extra + MARKOV + f'[mechanism]\nkind = "python"\nfunction = "{mod}:{function}"\n'
    return write_toml(tmp_path / "c.toml", text), tmp_path / "o"


@pytest.mark.parametrize("function, words", [
    ("sys_exit_0", ["sys.exit(0)"]), ("sys_exit_7", ["sys.exit(7)"]), ("os_exit_0", ["os._exit(0)"]),
    ("complex_out", ["complex"])])
def test_user_mechanism_that_exits_at_call(bdpsim_cli, tmp_path, function, words):
    cfg, out = _user_config(tmp_path, MECHANISMS, function)
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet")
    one_line(p, "mechanism.function", f":{function}", *words)
    assert not out.exists() and p.stdout == ""


@pytest.mark.parametrize("body, words", [("import sys\nsys.exit(7)\n", "sys.exit(7)"),
                                         ("import os\nos._exit(0)\n", "os._exit(0)"),
                                         ("import sys\nsys.exit()\n", "sys.exit(None)")])
def test_user_mechanism_that_exits_at_import(bdpsim_cli, tmp_path, body, words):
    cfg, out = _user_config(tmp_path, body + "def f(data, rng):\n    return data[:, 0]\n", "f")
    p = bdpsim_cli("validate", cfg)
    one_line(p, "mechanism.function", "while being imported", words)
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet")
    one_line(p, "mechanism.function", words)
    assert not out.exists()


def test_user_mechanism_that_kills_its_loky_worker(bdpsim_cli, tmp_path):
    cfg, out = _user_config(tmp_path, MECHANISMS, "kill_in_worker")
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet", "--jobs", "2")
    one_line(p, "mechanism.function", ":kill_in_worker", "worker process died", "SIGKILL")
    assert not (out / "summary.csv").exists()


def test_user_mechanism_that_kills_its_dask_worker_is_not_retried(bdpsim_cli, tmp_path):
    """The local cluster's nanny would restart the worker and the task run again (for ever: joblib's
    Dask backend never hears of the failure): one line within ~30 s instead."""
    pytest.importorskip("distributed")
    cfg, out = _user_config(tmp_path, MECHANISMS, "kill_in_worker")
    t0 = time.monotonic()
    p = bdpsim_cli("run", cfg, "--out", out, "--quiet", "--jobs", "2", "--backend", "dask")
    assert time.monotonic() - t0 < 60
    one_line(p, "mechanism.function", ":kill_in_worker", "worker process died")
    assert not (out / "summary.csv").exists()


def test_os_exit_is_restored_after_a_user_call():
    import os

    from bdpsim.mechanisms.custom import ExitCalled, no_exit

    real = os._exit
    with pytest.raises(ExitCalled):
        with no_exit():
            os._exit(3)
    assert os._exit is real


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
    paths = gallery.make_figures(["thesis-fig18", "thesis-fig03"], tmp_path, quick=True, log=logs.append,
                                 skipped=skipped)
    assert skipped == ["thesis-fig18"] and any(x.startswith("  skipped thesis-fig18: dataset galton") for x in logs)
    assert tmp_path / "thesis-fig03.png" in paths


# ------------------------------------------------------------------ 4. committed results are not overwritten
@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A git checkout holding a committed results/quickstart (as the repository does)."""
    git = (lambda *a: subprocess.run(["git", *a], cwd=tmp_path, capture_output=True, check=True))
    git("init", "-q")
    (tmp_path / "results" / "quickstart").mkdir(parents=True)
    (tmp_path / "results" / "quickstart" / "summary.csv").write_text("committed\n")
    (tmp_path / "results" / "figures").mkdir()
    (tmp_path / "results" / "figures" / "README.md").write_text("committed\n")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "results")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_run_refuses_to_overwrite_committed_results(bdpsim_cli, checkout):
    cfg = write_toml(checkout / "quickstart.toml", RUN + MARKOV + COUNT)
    p = bdpsim_cli("run", cfg, "--quiet")  # default --out: results/quickstart
    one_line(p, "--out", "results/quickstart", "committed to git", "--overwrite")
    assert (checkout / "results" / "quickstart" / "summary.csv").read_text() == "committed\n"
    p = bdpsim_cli("run", cfg, "--quiet", "--out", "results/quickstart")
    one_line(p, "committed to git")
    p = bdpsim_cli("run", cfg, "--quiet", "--out", "results/mine")  # an untracked directory: fine
    assert p.returncode == 0, p.stderr


def test_run_overwrite_regenerates_committed_results(bdpsim_cli, checkout):
    cfg = write_toml(checkout / "quickstart.toml", RUN + MARKOV + COUNT)
    p = bdpsim_cli("run", cfg, "--quiet", "--overwrite", "--force")
    assert p.returncode == 0, p.stderr
    assert (checkout / "results" / "quickstart" / "summary.csv").read_text().startswith("point_id,")


def test_figures_refuse_to_overwrite_committed_gallery(bdpsim_cli, checkout):
    p = bdpsim_cli("figures", "--only", "thesis-fig03", "--quiet", "--out", "results/figures")
    one_line(p, "--out", "results/figures", "committed to git")
    assert not (checkout / "results" / "figures" / "thesis-fig03.png").exists()


def test_benchmark_window_refuses_a_committed_json():
    """The script refuses before measuring anything (exit 2, one line), in the real checkout."""
    if not (ROOT / ".git").exists():
        pytest.fail("tests run from a git checkout (the README's flow)")
    p = subprocess.run([sys.executable, "scripts/benchmark_window.py"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "committed to git" in p.stderr and p.stdout == "", p
    assert p.stderr.count("\n") == 1


def test_committed_files_outside_a_checkout(tmp_path):
    from bdpsim.pipeline.results import committed_files

    assert committed_files(tmp_path) == [] and committed_files(tmp_path / "missing") == []


# ------------------------------------------------------------------ 5. plot of an audit
AUDIT = ('[run]\nseed = 17\nadversaries = 4\nestimator = "audit"\nadversary_family = "windows"\n'
         'audit_budget = 40_000\n[model]\nkind = "markov"\nn = 12\ntransition = [[0.882, 0.118], [0.305, 0.695]]\n'
         '[mechanism]\nkind = "count"\nepsilon = 1.0\n[[variants]]\n[[variants]]\n'
         'mechanism = { noise = "geometric" }\n')


def test_plot_of_an_audit_draws_the_certified_bound_of_every_variant(bdpsim_cli, tmp_path, monkeypatch):
    from bdpsim.figures import summary as S

    out = tmp_path / "o"
    p = bdpsim_cli("run", write_toml(tmp_path / "a.toml", AUDIT), "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    drawn = {}

    def capture(fig, stem, formats=("png", "pdf")):
        ax = fig.axes[0]
        drawn.update(labels=ax.get_legend_handles_labels()[1], xlabel=ax.get_xlabel(),
                     ticks=[t.get_text() for t in ax.get_xticklabels()],
                     lower=[line.get_ydata().tolist() for line in ax.get_lines() if line.get_marker() == "^"])
        return []

    monkeypatch.setattr(S, "save", capture)
    p = bdpsim_cli("plot", out)
    assert p.returncode == 0, p.stderr
    assert any("certified lower bound (95 %)" in lab for lab in drawn["labels"]) and not any(
        "p99" in lab for lab in drawn["labels"]), drawn
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


def test_fetch_refuses_a_missing_data_dir(tmp_path):
    from bdpsim.utility import datasets as DS

    with pytest.raises(DS.DatasetError, match="is not a directory"):
        DS.fetch("galton", tmp_path / "nonexistent")


# ------------------------------------------------------------------ 8 and 17. the console table
def test_mixed_estimators_print_their_table(bdpsim_cli, tmp_path):
    cfg = RUN.replace('"mixture"', '["audit", "exact", "mixture"]') + "audit_budget = 20_000\n" + MARKOV + COUNT
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", cfg), "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "3 configurations -> " + str(tmp_path / "o") + "/summary.csv"
    head = lines[1].split()
    assert {"estimator", "bdpl_lower", "exact_max_sampled", "bdpl_all_adversaries"} <= set(head)
    assert [line.split()[0] for line in lines[2:5]] == ["audit", "exact", "mixture"]
    assert lines[5].startswith("exact_max_sampled: the largest exact BDPL among the sampled adversaries")


def test_table_of_one_calibrated_configuration(bdpsim_cli, tmp_path):
    cfg = RUN + MARKOV + '[mechanism]\nkind = "calibrated"\nmethod = "general"\nepsilon = 1.0\n'
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", cfg), "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("1 configuration -> ")
    head, row = lines[1].split(), lines[2].split()
    assert head[:4] == ["estimator", "n", "target_epsilon", "dp_epsilon"]
    assert row[2] == "1" and float(row[3]) == pytest.approx(0.25)  # n = 4 records: scale 4, DP eps 1/4


def test_table_tells_mechanism_variants_apart():
    from bdpsim.cli.table import console_table

    rows = [{"estimator": "audit", "mechanism": "count", "noise": "", "n": 3, "epsilon": 1.0, "bdpl_lower": 1.0},
            {"estimator": "audit", "mechanism": "count", "noise": "geometric", "n": 3, "epsilon": 1.0},
            {"estimator": "audit", "mechanism": "histogram", "n": 3, "epsilon": 1.0}]
    lines = console_table(rows, "p99")
    assert lines[0].split()[:2] == ["estimator", "mechanism"]
    assert [line.split()[1] for line in lines[1:]] == ["count", "count/geometric", "histogram"]
    assert all(line == line.rstrip() for line in lines)


def test_accuracy_rows_are_labelled(bdpsim_cli, tmp_path, monkeypatch):
    from bdpsim.studies import accuracy as A

    def fake(samples, adversaries, seed, jobs, out=None, progress=None, finished=None):
        base = {"case": "markov n=10 gamma=1 eps=1", "samples": 1000, "bias": 0.0, "rmse": 0.0, "max_abs_error": 0.0}
        return [dict(base, estimator="kde", target_se=0.0), dict(base, estimator="mixture", target_se=0.0),
                dict(base, estimator="mixture", target_se=0.005)]

    monkeypatch.setattr(A, "accuracy_table", fake)
    monkeypatch.setattr(A, "write_report", lambda *a, **k: [])
    import bdpsim.figures.accuracy as FA

    monkeypatch.setattr(FA, "save_accuracy", lambda rows, out: [])
    p = bdpsim_cli("accuracy", "--out", tmp_path / "acc", "--quiet")
    assert p.returncode == 0, p.stderr
    labels = [line.split("eps=1", 1)[1].split()[0:2] for line in p.stdout.splitlines()[1:]]
    assert labels == [["kde", "1000"], ["mixture", "1000"], ["mixture", "se<=0.005"]]


def test_validate_of_exhaustive_points_and_long_values(bdpsim_cli, tmp_path):
    bn = ('[run]\nseed = 1\nadversaries = "all"\nestimator = "exact"\nknown_sizes = "all"\n'
          '[model]\nkind = "bayesnet"\nstates = 2\nparents = [[], [0], [1]]\n'
          'cpt = [[0.6, 0.4], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.25, 0.75]]]\n'
          '[mechanism]\nkind = "count"\nepsilon = 1.0\n[[variants]]\n[[variants]]\n'
          'model = {cpt = [[0.5, 0.5], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.25, 0.75]]]}\n')
    p = bdpsim_cli("validate", write_toml(tmp_path / "bn.toml", bn))
    assert p.returncode == 0, p.stderr
    assert "~0 B" not in p.stdout and "~0 units" not in p.stdout
    assert "sweep model.cpt = 2 values: #1 " in p.stdout
    points = [line for line in p.stdout.splitlines() if "model=bayesnet" in line]
    assert [line.split("cpt=")[1].split()[0] for line in points] == ["#1", "#2"]
    assert max(map(len, p.stdout.splitlines())) < 160


# ------------------------------------------------------------------ 14. disks, directories, Ctrl-C, types
def test_full_disk_while_writing_a_point(bdpsim_cli, tmp_path, monkeypatch):
    from bdpsim.pipeline import results as R

    def full(out, pid, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(out / "points" / f"{pid}.json"))

    monkeypatch.setattr(R, "write_point", full)
    out = tmp_path / "o"
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out, "--quiet")
    one_line(p, "--out", "No space left on device", "re-run to resume")
    assert not (out / "summary.csv").exists()


def test_plot_where_bdpl_png_is_a_directory(bdpsim_cli, tmp_path):
    out = tmp_path / "o"
    assert bdpsim_cli("run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out, "--quiet").returncode == 0
    (out / "bdpl.png").mkdir()
    p = bdpsim_cli("plot", out)
    one_line(p, "results", "bdpl.png exists and is not a file")
    assert not (out / "bdpl.pdf").exists()


def test_plot_into_a_read_only_directory(bdpsim_cli, tmp_path, monkeypatch):
    """(As root a chmod does not stop a write: the refusal of the file system is simulated.)"""
    import matplotlib.figure

    out = tmp_path / "o"
    assert bdpsim_cli("run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out, "--quiet").returncode == 0

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


def test_ctrl_c_while_a_config_is_built(bdpsim_cli, tmp_path, monkeypatch):
    import bdpsim.pipeline.config

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(bdpsim.pipeline.config, "load_config", interrupted)
    out = tmp_path / "o"
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out)
    one_line(p, "interrupted", code=130)
    assert not out.exists()
    one_line(bdpsim_cli("validate", tmp_path / "c.toml"), "interrupted", code=130)


def test_ctrl_c_during_calibrate(bdpsim_cli, monkeypatch):
    import bdpsim.calibration

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(bdpsim.calibration, "calibrate", interrupted)
    p = bdpsim_cli("calibrate", "markov", "--gamma", "3", "--n", "10", "--epsilon", "1")
    one_line(p, "interrupted", code=130)
    assert p.stdout == ""


@pytest.mark.parametrize("value", ["1e6", "100000.0", "1e300"])
def test_audit_budget_must_be_an_integer(bdpsim_cli, tmp_path, value):
    cfg = RUN.replace('"mixture"', '"audit"') + f"audit_budget = {value}\n" + MARKOV + COUNT
    one_line(bdpsim_cli("validate", write_toml(tmp_path / "c.toml", cfg)), "run.audit_budget", "must be an integer")


def test_a_too_costly_audit_names_its_budget(bdpsim_cli, tmp_path):
    cfg = RUN.replace('"mixture"', '"audit"') + "audit_budget = 1_000_000_000_000_000\n" + MARKOV + COUNT
    one_line(bdpsim_cli("validate", write_toml(tmp_path / "c.toml", cfg)), "run.audit_budget = 1000000000000000")


# ------------------------------------------------------------------ 16. help
def _parsers():
    from bdpsim.cli import build_parser

    def walk(parser, path):
        yield path, parser
        for act in parser._actions:
            if isinstance(act, argparse._SubParsersAction):
                for name, sp in act.choices.items():
                    yield from walk(sp, [*path, name])

    return list(walk(build_parser(), []))


def test_every_help_fits_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    long = {" ".join(path) or "bdpsim": max(len(line) for line in parser.format_help().splitlines())
            for path, parser in _parsers()}
    assert "calibrate markov" in long and max(long.values()) <= 80, {k: v for k, v in long.items() if v > 80}


def test_every_option_has_help():
    missing = [(" ".join(path), a.option_strings) for path, parser in _parsers()
               for a in parser._actions if a.option_strings and not a.help]
    assert missing == []


def test_calibrate_markov_does_not_promise_laplace_only(bdpsim_cli):
    p = bdpsim_cli("calibrate", "markov", "--help")
    assert p.returncode == 0 and "+ Laplace noise" not in p.stdout and "--noise" in p.stdout.split("options:")[0]


# ------------------------------------------------------------------ 17. calibrate marks what is not eps-BDP
ACTIVITY = "[[0.882,0.118],[0.305,0.695]]"


def test_calibrate_flags_not_eps_bdp_in_its_own_column(bdpsim_cli):
    p = bdpsim_cli("calibrate", "markov", "--transition", ACTIVITY, "--n", "100", "--epsilon", "10", "--method", "all")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("query: ") and lines[1].split()[-1] == "eps-BDP?"  # issue 38: the query first
    row = {line.split()[0]: line for line in lines[2:] if not line.startswith(" ")}
    assert row["markov-quilt-exact"].endswith("NOT eps-BDP") and row["exact"].endswith("yes")
    assert row["zhao"].endswith("n/a")
    assert max(map(len, lines)) <= 80


def test_calibrate_json_has_is_bdp(bdpsim_cli):
    p = bdpsim_cli("calibrate", "markov", "--transition", ACTIVITY, "--n", "100", "--epsilon", "10",
                   "--method", "all", "--json")
    rows = {r["method"]: r for r in json.loads(p.stdout)}
    assert rows["markov-quilt-exact"]["is_bdp"] is False and rows["exact"]["is_bdp"] is True
    assert rows["zhao"]["is_bdp"] is None
