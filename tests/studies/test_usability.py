"""Usability: probes of the studies layer."""

import pytest

from ..support.bad_config import cli, one_line_error
from ..support.usability import (
    _tiny_accuracy,
)


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
    rc, out, err = cli(
        capsys,
        "utility",
        "utility_electricity",
        "utility_galton",
        "utility_familyiq",
        "--out",
        tmp_path / "u",
    )
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


def test_worst_case_reports_progress_without_a_terminal(capsys, fast_beat, monkeypatch):
    from bdpsim.studies import worstcase as W

    real = W.worst_markov_chain

    def slow(*args, progress=None, **kw):  # a search long enough for a heartbeat
        import time

        progress(0, 2)
        time.sleep(0.3)
        return real(*args, progress=progress, **kw)

    monkeypatch.setattr(W, "worst_markov_chain", slow)
    rc, out, err = cli(
        capsys, "worst-case", "markov", "--gamma", "3", "--epsilon", "1", "--n", "3", "--starts", "2"
    )
    assert rc == 0 and "worst exact BDPL found" in out
    beats = [x for x in err.splitlines() if x.startswith("bdpsim worst-case: ")]
    assert beats and all("/2 searches" in x and "s elapsed" in x for x in beats), err
    rc, out, err = cli(
        capsys,
        "worst-case",
        "markov",
        "--gamma",
        "3",
        "--epsilon",
        "1",
        "--n",
        "3",
        "--starts",
        "2",
        "--quiet",
    )
    assert rc == 0 and err == ""


@pytest.mark.parametrize(
    "args,field",
    [
        (["gaussian", "--n", "4", "--rho", "0.3", "--distance", "nan"], "--distance"),
        (["gaussian", "--n", "4", "--rho", "0.3", "--starts", "0"], "--starts"),
        (["gaussian", "--n", "4", "--rho", "nan"], "--rho"),
        (["gaussian", "--n", "4", "--rho", "0.3", "--noise-scale", "inf"], "--noise-scale"),
        (["markov", "--gamma", "3", "--epsilon", "1", "--starts", "-1"], "--starts"),
        (["markov", "--gamma", "inf", "--epsilon", "1"], "--gamma"),
        (["markov", "--gamma", "3", "--epsilon", "nan"], "--epsilon"),
    ],
)
def test_worst_case_bad_arguments(capsys, args, field):  # 16
    rc, out, err = cli(capsys, "worst-case", *args)
    one_line_error(rc, err, field)
    assert out == ""


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
