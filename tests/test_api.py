"""The Python API: top-level names, the README example runs as written, results as a table."""

import math

import pytest

import bdpsim

from .conftest import ROOT


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
    doc = {"run": {"adversaries": 10, "samples": 2000, "estimator": "exact", "known_sizes": "all"},
           "model": {"kind": "markov", "n": 4, "gamma": 3.0}, "mechanism": {"kind": "count", "epsilon": 1.0}}
    rows = bdpsim.run(doc, tmp_path, as_frame=False)
    assert len(rows) == 1 and math.isfinite(rows[0]["bdpl_p99"])
    back = bdpsim.load_results(tmp_path, as_frame=False)
    assert back[0]["point_id"] == rows[0]["point_id"]


def test_api_rejects_bad_input():
    with pytest.raises(TypeError, match="config"):
        bdpsim.run(42)
    with pytest.raises(bdpsim.ConfigError, match="model.n"):
        bdpsim.run({"run": {}, "model": {"kind": "markov", "n": 1, "gamma": 2.0},
                    "mechanism": {"kind": "count", "epsilon": 1.0}})
