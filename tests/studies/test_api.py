"""The Python API: top-level names, the README example runs as written, results as a table."""

import math

import pytest

import bdpsim

from ..conftest import ROOT
from ..support.bad_config import OK, cli, toml


def test_readme_python_example_runs(capsys):
    text = (ROOT / "README.md").read_text()
    code = text.split("## Python API", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert out.startswith("3.0752594527")


def test_exact_bdpl_independent_records_is_epsilon():
    chain = bdpsim.MarkovChainModel([[0.3, 0.7], [0.3, 0.7]], n=5)
    assert bdpsim.exact_bdpl(chain, bdpsim.LaplaceCount(0.7)).bdpl == pytest.approx(0.7, abs=1e-12)


def test_run_returns_rows_and_loads_them(tmp_path):
    doc = {
        "run": {"adversaries": 10, "estimator": "exact", "known_sizes": "all"},
        "model": {"kind": "markov", "n": 4, "gamma": 3.0},
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    rows = bdpsim.run(doc, tmp_path, as_frame=False)
    assert len(rows) == 1 and math.isfinite(rows[0]["bdpl_p99"])
    back = bdpsim.load_results(tmp_path, as_frame=False)
    assert back[0]["point_id"] == rows[0]["point_id"]


def test_api_rejects_bad_input():
    with pytest.raises(TypeError, match="config"):
        bdpsim.run(42)
    with pytest.raises(bdpsim.ConfigError, match="model.n"):
        bdpsim.run(
            {
                "run": {},
                "model": {"kind": "markov", "n": 1, "gamma": 2.0},
                "mechanism": {"kind": "count", "epsilon": 1.0},
            }
        )


def test_every_public_name_is_documented():
    """Every name in ``bdpsim.__all__`` has its own docstring; every function a numpydoc
    Parameters or Returns section."""
    import inspect

    missing, no_sections = [], []
    for name in bdpsim.__all__:
        obj = getattr(bdpsim, name)
        if name == "__version__":
            assert isinstance(obj, str) and obj
            continue
        doc = inspect.getdoc(obj) or ""
        if not doc.strip() or (
            inspect.isclass(obj) and doc.startswith(f"{obj.__name__}(")
        ):  # dataclass default
            missing.append(name)
        if inspect.isfunction(obj) and not any(
            f"{s}\n{'-' * len(s)}" in doc for s in ("Parameters", "Returns")
        ):
            no_sections.append(name)
    assert not missing and not no_sections, (missing, no_sections)


def test_notebook_names_are_exported():
    for name in (
        "MarkovChainModel",
        "GaussianModel",
        "PedigreeModel",
        "LaplaceCount",
        "LaplaceSum",
        "ClippedSum",
        "exact_bdpl",
        "worst_case_markov",
        "worst_case_gaussian",
        "run",
        "load_results",
        "calibrate",
        "markov_bound",
        "__version__",
    ):
        assert name in bdpsim.__all__ and hasattr(bdpsim, name)


def test_worst_case_searches():
    g = bdpsim.worst_case_gaussian(3, 0.3, starts=4)
    assert g.equicorrelated == pytest.approx(1 + 2 * 0.3) and g.slope >= g.equicorrelated - 1e-9
    assert g.bdpl(10.0, 10.0) == pytest.approx(g.slope)
    m = bdpsim.worst_case_markov(1.0, 3, 0.5, starts=1, maxiter=5)  # gamma = 1: independent records
    assert m.bdpl == pytest.approx(0.5, abs=1e-12) and m.symmetric_bdpl == pytest.approx(0.5, abs=1e-12)


def test_results_are_a_dataframe_only_if_pandas_is_there(tmp_path, monkeypatch):
    import builtins

    import pandas as pd  # installed with statsmodels; bdpsim itself imports it only in _table

    doc = {
        "run": {"adversaries": 5, "estimator": "exact", "known_sizes": "all"},
        "model": {"kind": "markov", "n": 3, "gamma": 2.0},
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
    frame = bdpsim.run(doc, tmp_path)
    assert isinstance(frame, pd.DataFrame) and list(frame["n"]) == [3]
    real_import = builtins.__import__

    def no_pandas(name, *a, **k):
        if name == "pandas":
            raise ImportError("no pandas")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    rows = bdpsim.load_results(tmp_path)
    assert isinstance(rows, list) and rows[0]["n"] == 3


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
