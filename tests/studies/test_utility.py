"""Utility experiments on data: datasets (download path on 127.0.0.1), fits, calibration.

Every file read here ships in tests/data (see its README.md): the real Galton file and generated
kid_iq.csv / activity.zip in the real files' formats. Nothing here reads outside the repository.
"""

import csv
import functools
import math
import shutil
import threading
import zipfile
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from bdpsim import bounds as B
from bdpsim.core.errors import ConfigError
from bdpsim.utility import datasets as DS
from bdpsim.utility.experiment import parse_utility, run_utility, write_utility
from bdpsim.utility.fitting import fit_markov

from ..conftest import ROOT, TEST_DATA
from ..support.bad_config import cli, one_line_error
from ..support.bad_input import one_line


@pytest.fixture
def server(tmp_path, monkeypatch, data_dir):
    """Serve a copy of tests/data on 127.0.0.1 and point bdpsim's downloads at it."""
    root = tmp_path / "served"
    shutil.copytree(data_dir, root)
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    monkeypatch.setenv("BDPSIM_DATA_URL", f"http://127.0.0.1:{httpd.server_address[1]}")
    monkeypatch.setenv("BDPSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("BDPSIM_DATA_DIR", raising=False)
    yield root
    httpd.shutdown()


def test_download_verify_and_cache(server, tmp_path):
    p = DS.fetch("kid_iq")  # galton ships with the package: kid_iq takes the download path
    assert p.parent == tmp_path / "cache" and DS._sha256(p) == DS.REGISTRY["kid_iq"].sha256
    (server / "kid_iq.csv").unlink()  # second call is served from the cache
    assert DS.fetch("kid_iq") == p
    assert len(DS.load("activity")["steps"]) == 17568


def test_download_checksum_mismatch(server):
    (server / "kid_iq.csv").write_text("kid_score,mom_iq\n1,2\n")
    with pytest.raises(DS.DatasetError, match="checksum") as err:
        DS.fetch("kid_iq")
    assert "\n" not in str(err.value)


def test_unreachable_url(monkeypatch, tmp_path):
    monkeypatch.setenv("BDPSIM_DATA_URL", "http://127.0.0.1:9")  # discard port: refused
    monkeypatch.setenv("BDPSIM_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("BDPSIM_DATA_DIR", raising=False)
    with pytest.raises(DS.DatasetError, match="cannot download .* --data-dir"):
        DS.fetch("kid_iq")
    assert DS.fetch("galton") == DS.data_file("galton.csv")  # shipped with the package: offline


def test_local_dir_missing_corrupt_malformed(tmp_path):
    with pytest.raises(DS.DatasetError, match="not found; get kid_iq.csv from https://"):
        DS.fetch("kid_iq", tmp_path)
    (tmp_path / "galton.csv").write_text("a,b\n1,2\n")
    with pytest.raises(DS.DatasetError, match="fails its checksum"):
        DS.fetch("galton", tmp_path)
    (tmp_path / "bad.csv").write_text("family,father,mother,height\n1,70,x,60\n")
    with pytest.raises(DS.DatasetError, match="malformed value 'x'"):
        DS.load_galton(tmp_path / "bad.csv")
    (tmp_path / "bad2.csv").write_text("family,father\n1,70\n")
    with pytest.raises(DS.DatasetError, match="missing columns"):
        DS.load_galton(tmp_path / "bad2.csv")


def test_fixture_files_are_what_the_readme_says():
    """galton.csv is the pinned real file; the generated ones are reproduced by make_fixtures.py."""
    assert DS._sha256(TEST_DATA / "galton.csv") == DS.REGISTRY["galton"].sha256
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_fixtures", TEST_DATA / "make_fixtures.py")
    mk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mk)
    assert mk.activity_zip() == (TEST_DATA / "activity.zip").read_bytes()
    assert mk.kid_iq_csv() == (TEST_DATA / "kid_iq.csv").read_bytes()


def _activity_states():
    """0/1/nan per 5-minute interval, parsed independently of bdpsim's loader."""
    with zipfile.ZipFile(TEST_DATA / "activity.zip") as z:
        rows = list(csv.DictReader(z.read("activity.csv").decode().splitlines()))
    return np.array([np.nan if r["steps"] == "NA" else float(int(r["steps"]) > 0) for r in rows])


def test_data_fits(data_dir):
    cfg = parse_utility(
        {"utility": {"dataset": "activity", "split": ["all", "days"], "epsilon": [10.0], "runs": 100}}
    )
    rows, vs = run_utility(cfg, data_dir)
    fit = vs[0].model
    state = _activity_states()
    a, b = state[:-1], state[1:]
    ok = np.isfinite(a) & np.isfinite(b)
    C = np.array([[np.sum(ok & (a == i) & (b == j)) for j in (0, 1)] for i in (0, 1)])
    assert fit["counts"] == C.tolist()
    assert np.allclose(fit["transition"], C / C.sum(1, keepdims=True))
    # the fixture's generating chain is the paper's fitted one; 15 000 transitions pin it to ~0.01
    assert np.allclose(fit["transition"], [[0.882, 0.118], [0.305, 0.695]], atol=0.02)
    assert fit["active"] == int(np.nansum(state)) and fit["records"] == 15264 and fit["days"] == 61
    assert vs[1].truths.size == 53  # days without NA
    # Galton is the real file: the paper's correlations (§7.1.1)
    g = DS.load_galton(data_dir / "galton.csv")
    from bdpsim.utility.fitting import fit_gaussian

    gf = fit_gaussian({"child": g["child"], "father": g["father"], "mother": g["mother"]}, 3)["pearson"]
    assert round(gf["child-father"], 3) == 0.275 and round(gf["child-mother"], 3) == 0.202
    assert round(gf["father-mother"], 3) == 0.074
    k = DS.load_kid_iq(data_dir / "kid_iq.csv")
    raw = np.genfromtxt(data_dir / "kid_iq.csv", delimiter=",", skip_header=1, encoding="utf-8-sig")
    assert (
        np.array_equal(k["kid"], raw[:, 1]) and np.array_equal(k["mom"], raw[:, 3]) and k["kid"].size == 434
    )
    assert 0.35 < float(np.corrcoef(k["kid"], k["mom"])[0, 1]) < 0.55  # generated with rho = 0.44


def test_paper_constants_from_three_decimal_inputs():
    P = [[0.882, 0.118], [0.305, 0.695]]
    assert 4 * math.log(B.gamma_of(P)) == pytest.approx(8.05, abs=0.01)
    assert 6 * math.log(B.omega_of(P)) == pytest.approx(10.64, abs=0.01)
    assert B.gaussian_factor(0.275, 3) == pytest.approx(1.853, abs=1e-3)
    assert B.gaussian_factor(0.4483, 2) == pytest.approx(1.4483, abs=1e-4)


@pytest.mark.parametrize("dataset", ["galton", "kid_iq", "activity", "genomic", "synthetic_iq"])
def test_empirical_quantiles_match_theory(dataset, data_dir):
    """95 % quantile of |Lap(b)| over 1000 runs: SE = sqrt(0.05 0.95 / 1000) / (0.05 / b) = 0.138 b."""
    extra = (
        {"split": ["all", "days"]}
        if dataset == "activity"
        else {"split": ["all", "trios"]}
        if dataset == "galton"
        else {}
    )
    cfg = parse_utility(
        {
            "utility": {
                "dataset": dataset,
                "epsilon": {"linspace": [1, 20, 20]},
                "runs": 1000,
                "records": 2000,
                **extra,
            }
        }
    )
    rows, _ = run_utility(cfg, data_dir)
    done = [r for r in rows if math.isfinite(r["alpha_theory"])]
    assert done
    for r in done:
        se = math.sqrt(0.05 * 0.95 / (1000 * r["databases"])) / 0.05 * r["noise_scale"]
        assert abs(r["alpha_empirical"] - r["alpha_theory"]) <= 4 * se, r
        assert r["alpha_theory"] == pytest.approx(math.log(20) * r["sensitivity"] / r["tau"])
    skipped = [r for r in rows if not math.isfinite(r["alpha_theory"])]
    for r in skipped:
        assert r["note"].startswith("not reachable")


def write_ampds(path, days=40, seed=0):
    """A file in AMPds Electricity_P.csv format: per-minute UNIX_TS, WHE (W) and another column."""
    rng = np.random.default_rng(seed)
    t0 = 1333263600 - 1333263600 % 86400
    level = np.repeat(rng.choice([2500.0, 4000.0], size=days, p=[0.6, 0.4]), 1440)
    whe = level + rng.normal(0, 100, days * 1440)
    ts = t0 + 60 * np.arange(days * 1440)
    with open(path, "w") as fh:
        fh.write("UNIX_TS,WHE,RSE\n")
        for a, b in zip(ts, whe):
            fh.write(f"{a},{b:.1f},0\n")
    return level[::1440] * 24 / 1000  # kWh per day


def test_electricity_loader_and_thresholds(tmp_path):
    kwh = write_ampds(tmp_path / "Electricity_P.csv")
    d = DS.load_electricity(tmp_path / "Electricity_P.csv")
    assert np.allclose(d["kwh"], kwh, rtol=0.01)
    cfg = parse_utility(
        {"utility": {"dataset": "electricity", "threshold": [70, 80], "epsilon": [12.0], "runs": 50}}
    )
    rows, vs = run_utility(cfg, tmp_path)
    assert [v.name for v in vs] == ["70 kWh", "80 kWh"]
    assert vs[0].truths[0] == (kwh > 70).sum()
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "Electricity_P.csv").write_text("time,power\n1,2\n")
    with pytest.raises(DS.DatasetError, match="not AMPds"):
        run_utility(cfg, tmp_path / "x")


def test_fit_markov_requires_transitions():
    with pytest.raises(ConfigError):
        fit_markov([np.zeros(10)])


@pytest.mark.parametrize(
    "bad,field",
    [
        ({"dataset": "nope"}, "utility.dataset"),
        ({"dataset": "galton", "runs": 5}, "utility.runs"),
        ({"dataset": "galton", "mechanisms": ["markov"]}, "utility.mechanisms"),
        ({"dataset": "galton", "epsilon": [-1.0]}, "utility.epsilon"),
        ({"dataset": "galton", "foo": 1}, "utility.foo"),
    ],
)
def test_bad_utility_config(bad, field):
    with pytest.raises(ConfigError, match=field):
        parse_utility({"utility": bad})


def test_cli_utility(tmp_path, bdpsim_cli):
    out = tmp_path / "u"
    p = bdpsim_cli("utility", ROOT / "configs" / "utility_galton.toml", "--data-dir", TEST_DATA, "--out", out)
    assert p.returncode == 0, p.stderr
    import json

    meta = json.loads((out / "metadata.json").read_text())
    assert meta["fitted"]["children (inches)"]["pearson"]["child-father"] == pytest.approx(0.2754, abs=1e-4)
    bad = tmp_path / "empty"
    bad.mkdir()
    p = bdpsim_cli(
        "utility", ROOT / "configs" / "utility_familyiq.toml", "--data-dir", bad, "--out", tmp_path / "v"
    )
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "not found" in p.stderr
    assert not (tmp_path / "v").exists()


def test_write_utility(tmp_path):
    cfg = parse_utility(
        {"utility": {"dataset": "genomic", "epsilon": [1.0, 2.0], "runs": 100, "family_size": [3]}}
    )
    rows, vs = run_utility(cfg)
    paths = write_utility(tmp_path, cfg, rows, vs)
    assert all(p.is_file() for p in paths)


def test_fetch_refuses_a_missing_data_dir(tmp_path):
    from bdpsim.utility import datasets as DS

    with pytest.raises(DS.DatasetError, match="is not a directory"):
        DS.fetch("galton", tmp_path / "nonexistent")


@pytest.mark.parametrize("command", [["utility", "utility_galton"], ["figures", "--only", "thesis-fig18"]])
def test_data_dir_must_exist(bdpsim_cli, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "o"
    p = bdpsim_cli(*command, "--data-dir", "nonexistent", "--out", out)
    one_line(p, "--data-dir", "nonexistent", "is not a directory")
    assert not out.exists()


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


def test_utility_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "f"
    f.write_text("x")
    rc, _, err = cli(capsys, "utility", "utility_galton", "--out", f)
    one_line_error(rc, err, "--out", "exists and is not a directory")
    rc, _, err = cli(capsys, "utility", "utility_galton", "--out", f / "sub")
    one_line_error(rc, err, "--out", "is a file, not a directory")
    assert f.read_text() == "x"


def test_header_only_electricity_file_one_line(tmp_path, capsys):
    d = tmp_path / "d"
    d.mkdir()
    (d / "Electricity_P.csv").write_text("UNIX_TS,WHE,RSE\n")
    rc, _, err = cli(capsys, "utility", "utility_electricity", "--data-dir", d, "--out", tmp_path / "u")
    one_line_error(rc, err, "holds no rows")
    assert "Warning" not in err and not (tmp_path / "u").exists()
