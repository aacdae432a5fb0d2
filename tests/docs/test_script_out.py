"""The scripts writing into results/ refuse an output holding files committed to git unless
``--overwrite`` (as ``bdpsim run`` / ``bdpsim figures``): one line, exit 2, before any work, nothing
written (issue 27 item 4)."""

import subprocess
import sys

import pytest

from bdpsim.pipeline.results import committed_files

from ..conftest import ROOT
from ..helpers import load_script

#: script -> arguments whose default output is the checkout's committed results
SCRIPTS = {
    "audit_coverage": [],
    "audit_figure": [],
    "benchmark_audit": [],
    "compare_estimators": [],
    "pufferfish_fig2": ["--out", str(ROOT / "results" / "figures")],  # its default is relative to the cwd
    "frontier": [],
    "network_table": [],
    "coverage_study": [],
}


def _tracked_status() -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--", "results"], capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="module", autouse=True)
def _checkout():
    if not committed_files(ROOT / "results" / "benchmarks"):
        pytest.skip("not a git checkout with committed results")


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_script_refuses_committed_output(name, capsys, monkeypatch):
    mod = load_script(name)
    check = mod.refuse_committed

    def must_refuse(*args, **kwargs):  # a check that let the run through fails here, not minutes later
        check(*args, **kwargs)
        raise AssertionError(f"{name}: the check did not refuse {args[2:]}")

    monkeypatch.setattr(mod, "refuse_committed", must_refuse)
    before = _tracked_status()
    with pytest.raises(SystemExit) as exc:
        mod.main(SCRIPTS[name])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "holds files committed to git" in err and "--overwrite" in err and ": error: " in err, err
    assert _tracked_status() == before


def test_helper_lets_untracked_and_overwrite_through(tmp_path):
    import argparse

    script_out = load_script("script_out")
    ap = argparse.ArgumentParser(prog="x.py")
    script_out.refuse_committed(ap, False, tmp_path / "new", tmp_path, None)  # untracked: no exit
    script_out.refuse_committed(ap, True, ROOT / "results" / "benchmarks")  # --overwrite: no exit
    with pytest.raises(SystemExit):
        script_out.refuse_committed(ap, False, tmp_path, ROOT / "results" / "benchmarks")


def test_write_record_adds_the_machine_state_after_the_numbers(tmp_path, capsys):
    import json

    script_out = load_script("script_out")
    path = tmp_path / "sub" / "bench.json"
    script_out.write_record(path, {"seconds": 1.5, "n": 3}, 0.25)
    rec = json.loads(path.read_text())
    assert list(rec) == ["seconds", "n", "load_average_before", "load_average_after", "cpus", "written"]
    assert rec["seconds"] == 1.5 and rec["load_average_before"] == 0.25 and rec["cpus"] >= 1
    assert rec["written"].endswith("+00:00") and path.read_text().endswith("}\n")
    assert capsys.readouterr().out == f"wrote {path}\n"


def test_benchmark_window_refuses_a_committed_json():
    """The script refuses before measuring anything (exit 2, one line), in the real checkout."""
    if not (ROOT / ".git").exists():
        pytest.fail("tests run from a git checkout (the README's flow)")
    p = subprocess.run(
        [sys.executable, "scripts/benchmarks/benchmark_window.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2 and "committed to git" in p.stderr and p.stdout == "", p
    assert p.stderr.count("\n") == 1
