"""Issue 21 (a newcomer's second trial): what a new user and the hostile catalogue found —
released locks, misleading messages, hostile inputs of ``calibrate``/``bounds``/``utility``/
``worst-case``/``plot``, help text, and the adversary table reader."""

import json
import threading

import pytest

from bdpsim.pipeline import results as R
from bdpsim.pipeline.config import load_config
from bdpsim.pipeline.driver import run_experiment

from .test_hostile import OK, cli, one_line_error, toml


# ------------------------------------------------------------------ 2. the lock is released
def test_finished_run_leaves_no_lock(tmp_path, capsys):
    out = tmp_path / "o"
    rc, _, err = cli(capsys, "run", toml(tmp_path, OK), "--out", out, "--quiet")
    assert rc == 0, err
    assert not (out / R.LOCK_NAME).exists()
    assert sorted(p.name for p in out.iterdir()) == ["adversaries.csv.gz", "metadata.json", "points", "summary.csv"]


def test_lock_waiter_survives_the_holder_removing_the_file(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    held, release, order = threading.Event(), threading.Event(), []

    def holder():
        with R.run_lock(out):
            held.set()
            release.wait(10)
            order.append("first done")

    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    threading.Timer(0.5, release.set).start()
    with R.run_lock(out) as path:
        order.append("second holds")
        assert path.exists()  # the file the second run holds is the one at the path
    t.join()
    assert order == ["first done", "second holds"]
    assert not (out / R.LOCK_NAME).exists()


# ------------------------------------------------------------------ 11, 13, 15, 18: calibrate and bounds
def calibrate(capsys, *args):
    return cli(capsys, "calibrate", "markov", *args)


def test_calibrate_non_number_matrix_one_line(capsys):  # 13
    rc, out, err = calibrate(capsys, "--transition", "[[a,1],[0.5,0.5]]", "--n", "5", "--epsilon", "1")
    one_line_error(rc, err, "--transition")
    assert out == ""


@pytest.mark.parametrize("matrix", ["[[true,false],[0.5,0.5]]", '[["0.5",0.5],[0.5,0.5]]'])
def test_booleans_and_strings_are_not_probabilities(capsys, matrix):  # 18
    for cmd in (["calibrate", "markov", "--n", "5"], ["bounds", "markov"]):
        rc, out, err = cli(capsys, *cmd, "--transition", matrix, "--epsilon", "1")
        one_line_error(rc, err, "--transition")
        assert "deterministic" not in err and out == ""


def test_counting_every_state_is_named_as_such(capsys):  # 18
    rc, _, err = calibrate(capsys, "--gamma", "2", "--n", "5", "--epsilon", "1", "--counted", "0", "1")
    one_line_error(rc, err, "--counted = [0, 1]", "every one of the 2 states")
    assert "state_values" not in err


def test_subnormal_entry_is_refused_without_overflow_warnings(capsys):  # 15
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow RuntimeWarning would fail here
        for cmd in (["calibrate", "markov", "--n", "5"], ["bounds", "markov"]):
            rc, out, err = cli(capsys, *cmd, "--transition", "[[1e-320,1],[0.5,0.5]]", "--epsilon", "1")
            one_line_error(rc, err, "--transition", "subnormal")


def test_reducible_chain_is_described_and_bounds_do_not_apply(capsys):  # 15
    rc, out, err = cli(capsys, "bounds", "markov", "--transition", "[[1,0],[0,1]]", "--epsilon", "1", "--n", "5")
    assert rc == 0, err
    assert "reducible: 2 communicating classes {0}, {1}: the Markov and Zhao bounds do not apply" in out
    assert "markov bound   not applicable" in out
    rc, out, err = calibrate(capsys, "--transition", "[[1,0],[0,1]]", "--n", "5", "--epsilon", "1")
    assert rc == 0, err
    first = out.splitlines()[0]
    assert first.startswith("note: the chain is reducible") and "do not apply" in first
    assert "one of several stationary laws" in first
    rc, out, err = calibrate(capsys, "--transition", "[[0.5,0.5],[0,1]]", "--initial", "1", "0", "--n", "5",
                             "--epsilon", "1", "--json")
    assert rc == 0 and "{0} (transient), {1}" in err  # the note goes to stderr: stdout stays JSON
    assert json.loads(out)["method"] == "exact"


def test_transient_class_is_named():
    from bdpsim.kernels.chains.transition import chain_structure

    assert chain_structure([[0.5, 0.5], [0.0, 1.0]]) == "reducible: 2 communicating classes {0} (transient), {1}"
    assert chain_structure([[0.0, 1.0], [1.0, 0.0]]) is None  # periodic but irreducible


def test_one_indexing_convention_in_calibrate(capsys):  # 11
    rc, out, err = calibrate(capsys, "--gamma", "5", "--n", "12", "--epsilon", "1", "--method", "all")
    assert rc == 0, err
    assert "1-indexed" not in out and out.count("(0-indexed)") >= 2


def test_pedigree_parent_after_child_message(capsys):  # 18
    from bdpsim.core.errors import ConfigError
    from bdpsim.models.pedigree.model import PedigreeModel

    with pytest.raises(ConfigError) as e:
        PedigreeModel([[1, 2], [], []])
    assert "0..-1" not in str(e.value) and "person 0 comes first" in str(e.value)
    with pytest.raises(ConfigError) as e:
        PedigreeModel([[], [], [0, 3], [0, 2]])
    assert "indices in 0..1" in str(e.value) and "cycle" in str(e.value)


# ------------------------------------------------------------------ 3. bundled configs
@pytest.mark.smoke
def test_bundled_config_runs_by_name_from_any_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli(capsys, "validate", "quickstart")
    assert rc == 0 and "valid, 8 configuration points" in out, err
    rc, out, err = cli(capsys, "validate", "utility_galton.toml")
    assert rc == 0, err
    rc, out, err = cli(capsys, "run", "configs/quickstart.toml", "--out", tmp_path / "o")
    one_line_error(rc, err, "file not found", "bundled configs: ", "quickstart", "bdpsim configs --copy DIR")
    assert not (tmp_path / "o").exists()


@pytest.mark.smoke
def test_configs_lists_and_copies(tmp_path, capsys):
    from bdpsim.core import bundled

    rc, out, _ = cli(capsys, "configs")
    assert rc == 0
    names = [line.split()[0] for line in out.splitlines()[:-1]]
    assert names == bundled.config_names() and "quickstart" in names
    rc, out, _ = cli(capsys, "configs", "--copy", tmp_path / "mine")
    assert rc == 0 and sorted(p.name for p in (tmp_path / "mine").iterdir()) == [f"{n}.toml" for n in names]
    (tmp_path / "mine" / "quickstart.toml").write_text("# edited")
    rc, _, err = cli(capsys, "configs", "--copy", tmp_path / "mine")
    one_line_error(rc, err, "--copy", "already holds", "nothing copied")
    assert (tmp_path / "mine" / "quickstart.toml").read_text() == "# edited"


def test_one_copy_of_each_config_and_it_is_package_data():
    """configs/ is a link to bdpsim/configs/ (no duplicate), and the wheel's package data covers
    every bundled config and data file (checked on the declaration: building a wheel needs the
    network for its build requirements)."""
    import fnmatch
    import tomllib

    from bdpsim.core import bundled

    from .conftest import ROOT

    assert (ROOT / "configs").resolve() == bundled.CONFIG_DIR
    assert (ROOT / "tests" / "data" / "galton.csv").resolve() == bundled.DATA_DIR / "galton.csv"
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["bdpsim"]
    shipped = [p.relative_to(bundled.HERE).as_posix() for d in (bundled.CONFIG_DIR, bundled.DATA_DIR)
               for p in d.iterdir()]
    assert shipped and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in shipped), shipped


def test_directory_as_config_says_so(tmp_path, capsys):  # 18
    (tmp_path / "a.toml").write_text("")
    for cmd in ("run", "validate", "utility"):
        rc, _, err = cli(capsys, cmd, tmp_path)
        one_line_error(rc, err, "is a directory, not a config file", "a.toml")


def test_api_run_takes_a_bundled_name(monkeypatch):
    import bdpsim
    from bdpsim import api

    seen = {}
    monkeypatch.setattr(api, "load_config", lambda p: seen.setdefault("path", p) and (_ for _ in ()).throw(KeyError))
    with pytest.raises(KeyError):
        bdpsim.run("quickstart")
    assert seen["path"].name == "quickstart.toml" and seen["path"].is_file()


# ------------------------------------------------------------------ 4 (data), 16: utility
@pytest.mark.smoke
def test_galton_ships_with_the_package_and_is_used_offline(tmp_path, monkeypatch, capsys):
    from bdpsim.utility import datasets as DS

    monkeypatch.setenv("BDPSIM_DATA_URL", "http://127.0.0.1:9")  # any download would fail
    monkeypatch.setenv("BDPSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("BDPSIM_DATA_DIR", raising=False)
    assert DS.fetch("galton") == DS.data_file("galton.csv")
    assert DS._sha256(DS.fetch("galton")) == DS.REGISTRY["galton"].sha256
    rc, out, err = cli(capsys, "utility", "utility_galton", "--out", tmp_path / "u")
    assert rc == 0 and (tmp_path / "u" / "utility.csv").is_file(), err
    assert not (tmp_path / "cache").exists()


def test_shipped_galton_is_checksum_verified(tmp_path, monkeypatch):
    from bdpsim.utility import datasets as DS

    bad = tmp_path / "galton.csv"
    bad.write_text("family,father,mother,height\n1,70,60,65\n")
    monkeypatch.setattr(DS, "data_file", lambda name: bad)
    monkeypatch.setenv("BDPSIM_DATA_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("BDPSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("BDPSIM_DATA_DIR", raising=False)
    with pytest.raises(DS.DatasetError, match="fails its checksum"):
        DS.fetch("galton")


def test_utility_over_several_configs_goes_past_missing_data(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BDPSIM_DATA_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("BDPSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("BDPSIM_DATA_DIR", raising=False)
    rc, out, err = cli(capsys, "utility", "utility_electricity", "utility_galton", "utility_familyiq",
                       "--out", tmp_path / "u")
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 2 and all(x.startswith("bdpsim: error: dataset ") for x in lines), err
    assert "(skipped utility_electricity;" in lines[0] and "(skipped utility_familyiq;" in lines[1]
    assert "Traceback" not in err and "Downloading" not in err
    assert (tmp_path / "u" / "utility_galton" / "utility.csv").is_file()
    assert sorted(p.name for p in (tmp_path / "u").iterdir()) == ["utility_galton"]


def test_utility_out_is_a_file(tmp_path, capsys):  # 16
    f = tmp_path / "f"
    f.write_text("x")
    rc, _, err = cli(capsys, "utility", "utility_galton", "--out", f)
    one_line_error(rc, err, "--out", "exists and is not a directory")
    rc, _, err = cli(capsys, "utility", "utility_galton", "--out", f / "sub")
    one_line_error(rc, err, "--out", "is a file, not a directory")
    assert f.read_text() == "x"


def test_header_only_electricity_file_one_line(tmp_path, capsys):  # 16
    d = tmp_path / "d"
    d.mkdir()
    (d / "Electricity_P.csv").write_text("UNIX_TS,WHE,RSE\n")
    rc, _, err = cli(capsys, "utility", "utility_electricity", "--data-dir", d, "--out", tmp_path / "u")
    one_line_error(rc, err, "holds no rows")
    assert "Warning" not in err and not (tmp_path / "u").exists()


# ------------------------------------------------------------------ 12. help text
def _help(capsys, monkeypatch, *args, columns=80):
    monkeypatch.setenv("COLUMNS", str(columns))
    with pytest.raises(SystemExit):
        from bdpsim.cli import main

        main([*args, "--help"])
    return capsys.readouterr().out


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

    from .conftest import ROOT

    block = (ROOT / "README.md").read_text().split("```bash\n", 1)[1].split("```", 1)[0]
    first = block.splitlines()[0]
    run = next(c for c in first.split("&&") if c.split()[:2] == ["bdpsim", "run"])
    args = shlex.split(run)
    out = args[args.index("--out") + 1]
    assert not re.match(r"results/quickstart/?$", out)
    git = (lambda *a: subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True))
    if git("rev-parse").returncode != 0:
        pytest.skip("not a git checkout")
    assert git("check-ignore", "-q", f"{out}/summary.csv").returncode == 0, f"{out} is not git-ignored"
    assert git("ls-files", out).stdout == ""
    assert f"bdpsim plot {out}" in first
    rc, text, err = cli(capsys, "validate", args[2])
    assert rc == 0, err


# ------------------------------------------------------------------ 5. progress and Ctrl-C of the long
# commands
@pytest.fixture
def fast_beat(monkeypatch):
    from bdpsim.cli import progress

    monkeypatch.setattr(progress, "EVERY", 0.05)


def test_worst_case_reports_progress_without_a_terminal(capsys, fast_beat, monkeypatch):
    from bdpsim.studies import worstcase as W

    real = W.worst_markov_chain

    def slow(*args, progress=None, **kw):  # a search long enough for a heartbeat
        import time

        progress(0, 2)
        time.sleep(0.3)
        return real(*args, progress=progress, **kw)

    monkeypatch.setattr(W, "worst_markov_chain", slow)
    rc, out, err = cli(capsys, "worst-case", "markov", "--gamma", "3", "--epsilon", "1", "--n", "3", "--starts", "2")
    assert rc == 0 and "worst exact BDPL found" in out
    beats = [x for x in err.splitlines() if x.startswith("bdpsim worst-case: ")]
    assert beats and all("/2 searches" in x and "s elapsed" in x for x in beats), err
    rc, out, err = cli(capsys, "worst-case", "markov", "--gamma", "3", "--epsilon", "1", "--n", "3", "--starts", "2",
                       "--quiet")
    assert rc == 0 and err == ""


@pytest.mark.parametrize("args,field", [
    (["gaussian", "--n", "4", "--rho", "0.3", "--distance", "nan"], "--distance"),
    (["gaussian", "--n", "4", "--rho", "0.3", "--starts", "0"], "--starts"),
    (["gaussian", "--n", "4", "--rho", "nan"], "--rho"),
    (["gaussian", "--n", "4", "--rho", "0.3", "--noise-scale", "inf"], "--noise-scale"),
    (["markov", "--gamma", "3", "--epsilon", "1", "--starts", "-1"], "--starts"),
    (["markov", "--gamma", "inf", "--epsilon", "1"], "--gamma"),
    (["markov", "--gamma", "3", "--epsilon", "nan"], "--epsilon"),
])
def test_worst_case_bad_arguments(capsys, args, field):  # 16
    rc, out, err = cli(capsys, "worst-case", *args)
    one_line_error(rc, err, field)
    assert out == ""


def _tiny_accuracy(monkeypatch, calls, interrupt=True):
    """Three cases of the accuracy grid; with ``interrupt``, Ctrl-C while case 1 first runs."""
    from bdpsim.studies import accuracy as A

    cases = A.GRID[:3]
    monkeypatch.setattr(A, "GRID", cases)
    real = A.accuracy_table
    monkeypatch.setattr(A, "accuracy_table", lambda *a, **k: real(*a, cases=cases, **k))
    orig = A._case_errors

    def counted(ci, *args):
        calls.append(ci)
        if interrupt and ci == 1 and calls.count(1) == 1:
            raise KeyboardInterrupt
        return orig(ci, *args)

    monkeypatch.setattr(A, "_case_errors", counted)


def test_accuracy_ctrl_c_keeps_finished_cases_and_resumes(tmp_path, capsys, monkeypatch):
    import json as _json

    calls: list[int] = []
    _tiny_accuracy(monkeypatch, calls)
    out = tmp_path / "acc"
    args = ["accuracy", "--samples", "200", "--adversaries", "2", "--out", out, "--quiet"]
    rc, _, err = cli(capsys, *args)
    assert rc == 130 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "1 of 3 cases are saved" in err and "resume" in err
    assert _json.loads((out / "accuracy.json").read_text())["status"] == "interrupted"
    assert len((out / "accuracy.csv").read_text().splitlines()) > 1  # case 0's rows
    rc, stdout, err = cli(capsys, *args)
    assert rc == 0, err
    assert calls == [0, 1, 1, 2]  # case 0 was not recomputed
    assert _json.loads((out / "accuracy.json").read_text())["status"] == "complete"


def test_accuracy_heartbeat(tmp_path, capsys, monkeypatch, fast_beat):
    from bdpsim.studies import accuracy as A

    calls: list[int] = []
    _tiny_accuracy(monkeypatch, calls, interrupt=False)
    real = A._case_errors

    def slow(ci, *args):
        import time

        time.sleep(0.2)
        return real(ci, *args)

    monkeypatch.setattr(A, "_case_errors", slow)
    rc, _, err = cli(capsys, "accuracy", "--samples", "200", "--adversaries", "1", "--out", tmp_path / "a")
    assert rc == 0
    assert any(x.startswith("bdpsim accuracy: ") and "/3 cases" in x for x in err.splitlines()), err


def test_figures_heartbeat_names_the_figure(tmp_path, capsys, monkeypatch, fast_beat):
    from bdpsim.figures import gallery

    def fake(ids, out, log=print, **kw):
        import time

        log("thesis-fig03: a figure")
        time.sleep(0.3)
        log("  a detail")
        return []

    monkeypatch.setattr(gallery, "make_figures", fake)
    rc, out, err = cli(capsys, "figures", "--only", "thesis-fig03", "--out", tmp_path)
    assert rc == 0
    assert any(x.startswith("bdpsim figures (making thesis-fig03): 0/1 figures done") for x in err.splitlines()), err


# ------------------------------------------------------------------ 10. a reader for adversaries.csv.gz
def test_load_adversaries_types(tmp_path, capsys):
    import bdpsim

    out = tmp_path / "o"
    rc, _, err = cli(capsys, "run", toml(tmp_path, OK), "--out", out, "--quiet")
    assert rc == 0, err
    rows = bdpsim.load_adversaries(out, as_frame=False)
    assert len(rows) == 6
    for r in rows:
        assert isinstance(r["known"], tuple) and all(isinstance(k, int) for k in r["known"])
        assert isinstance(r["x_known"], tuple) and all(isinstance(v, int) for v in r["x_known"])
        assert len(r["known"]) == len(r["x_known"])
        assert isinstance(r["x"], int) and isinstance(r["x_prime"], int) and isinstance(r["bdpl"], float)
    pd = pytest.importorskip("pandas")
    frame = bdpsim.load_adversaries(out / "adversaries.csv.gz")
    assert isinstance(frame, pd.DataFrame) and frame["x_known"].map(type).eq(tuple).all()


# ------------------------------------------------------------------ 9, 18. flags
QUICK = """[run]
seed = 1
adversaries = 30
samples = 5000
estimator = ["kde", "mixture"]
known_sizes = "all"
noise_floor_adversaries = 5
[model]
kind = "markov"
n = 6
gamma = [1.0, 8.0]
[mechanism]
kind = "count"
epsilon = 1.0
"""


def test_flags_column_and_one_warning_line_per_flagged_point(tmp_path):
    import bdpsim

    log: list[str] = []
    rows = run_experiment(load_config(toml(tmp_path, QUICK)), tmp_path / "o", progress=False, log=log.append)
    warnings = [x for x in log if x.startswith("warning: point ")]
    by = {(r["estimator"], r["gamma"]): r for r in rows}
    kde8 = by["kde", 8.0]
    assert "bdpl_p99" in kde8["flags"] and "> bound_general 6" in kde8["flags"] and "not a leak" in kde8["flags"]
    assert "KDE evaluation points dropped" in kde8["flags"]  # 1.7 % here
    assert not by["mixture", 8.0].get("flags") and not by["mixture", 1.0].get("flags")
    flagged = [r for r in rows if r.get("flags")]
    assert len(warnings) == len(flagged) and all(x.count("\n") == 0 for x in warnings)
    assert any(kde8["point_id"] in x and "gamma = 8" in x for x in warnings)
    table = bdpsim.load_results(tmp_path / "o", as_frame=False)
    assert [r["flags"] for r in table] == [r.get("flags", "") for r in rows]


def test_unflagged_run_has_no_flags_column(tmp_path):
    run_experiment(load_config(toml(tmp_path, OK)), tmp_path / "o", progress=False, log=lambda m: None)
    assert "flags" not in (tmp_path / "o" / "summary.csv").read_text().splitlines()[0].split(",")


def _point(tmp_path, text=OK):
    return load_config(toml(tmp_path, text)).points[0]


def test_flag_rules(tmp_path):
    from bdpsim.pipeline.flags import flags

    p = _point(tmp_path)  # mixture
    base = {"percentile": 99.0, "estimator": "mixture", "bdpl_se_max": 0.01, "bound_general": 4.0,
            "bound_model": 2.4, "bound_zhao": float("nan"), "bound_lower": 1.0, "nonpositive_points": 0,
            "n_adversaries": 6, "failed_adversaries": 0, "bdpl_exact": float("nan")}
    assert flags(p, {**base, "bdpl_p99": 2.0}) == []
    assert flags(p, {**base, "bdpl_p99": 2.43}) == []  # within 4 se and 1 %
    assert "bdpl_p99 2.6 > bound_model 2.4" in flags(p, {**base, "bdpl_p99": 2.6})[0]
    low = flags(p, {**base, "bdpl_p99": 0.5, "bdpl_max": 0.6})  # the maximum below it (issue 38 item 6)
    assert len(low) == 1 and "bdpl_max 0.6 < bound_lower 1" in low[0] and "not sampled" in low[0]
    assert flags(p, {**base, "bdpl_p99": 0.5, "bdpl_max": 1.0}) == []  # one adversary reached it
    assert "2 of 6 adversaries without an estimate" in flags(p, {**base, "bdpl_p99": 2.0, "failed_adversaries": 2})
    ex = flags(p, {**base, "bdpl_p99": 2.0, "bdpl_exact": 2.5})
    assert ex == ["exact BDPL 2.5 > bound_model 2.4 (a bug or a counterexample)"]


def test_tiny_epsilon_exact_is_flagged_sampling_refused(tmp_path, capsys):  # 16, 18
    tiny = OK.replace("epsilon = 1.0", "epsilon = 1e-300")
    log: list[str] = []
    rows = run_experiment(load_config(toml(tmp_path, tiny.replace('"mixture"', '"exact"'))), tmp_path / "o",
                          progress=False, log=log.append)
    assert "floating-point noise" in rows[0]["flags"] and "bound_general 4e-300" in rows[0]["flags"]
    assert sum(x.startswith("warning: point ") for x in log) == 1
    for est in ("kde", "mixture"):
        out = tmp_path / est
        rc, _, err = cli(capsys, "run", toml(tmp_path, tiny.replace('"mixture"', f'"{est}"'), f"{est}.toml"),
                         "--out", out)
        one_line_error(rc, err, "mechanism.epsilon = 1e-300", "below floating-point resolution", f"'{est}'")
        assert not out.exists()


def test_kde_eval_points_memory_is_counted(tmp_path, capsys):  # 16
    big = OK.replace('"mixture"', '"kde"') + "".join([])
    big = big.replace("[run]\n", "[run]\neval_points = 1000000000\n")
    rc, _, err = cli(capsys, "validate", toml(tmp_path, big))
    one_line_error(rc, err, "of memory", "--max-memory-gib")
    assert not list((tmp_path).glob("o*"))


def test_constant_user_mechanism_names_its_function(tmp_path, capsys):  # 18
    (tmp_path / "mine.py").write_text("import numpy as np\n\ndef flat(data, rng):\n    return np.zeros(data.shape[0])\n")
    cfg = OK.replace('"mixture"', '"kde"').replace(
        '[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = [1]\n',
        '[mechanism]\nkind = "python"\nfunction = "mine:flat"\n')
    rc, _, err = cli(capsys, "run", toml(tmp_path, cfg), "--out", tmp_path / "o", "--quiet")
    one_line_error(rc, err, "mechanism.function = 'mine:flat'", "same value", "no noise")


# ------------------------------------------------------------------ 6. calibrated time
def test_validate_prints_a_calibrated_range_that_holds_the_measured_time(capsys):
    import csv
    import re

    from bdpsim.pipeline.cost import config_seconds, estimate_config

    from .conftest import ROOT

    rc, out, _ = cli(capsys, "validate", "quickstart")
    line = out.splitlines()[1]
    assert rc == 0 and re.search(r"~[\d.]+ s - [\d.]+ s of one core \(calibrated on measured runs\)", line), line
    lo, hi = config_seconds(estimate_config(load_config(ROOT / "configs" / "quickstart.toml"))[2])
    measured = sum(float(r["seconds"]) for r in csv.DictReader(open(ROOT / "results" / "quickstart" / "summary.csv")))
    assert lo <= measured <= hi, (lo, measured, hi)
    assert hi / lo < 5


def test_calibrated_range_holds_the_recorded_figure_runs():
    import json

    from bdpsim.pipeline.cost import config_seconds, estimate_config

    from .conftest import ROOT

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
