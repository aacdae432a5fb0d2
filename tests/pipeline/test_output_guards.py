"""Fourth hostile catalogue (issue 38 item 11), guards that failed open: the committed-results guard
turned itself off when git refused the checkout (another owner's: "detected dubious ownership"),
and a ``[utility]`` variant listed twice gave duplicate rows. Each: one line naming the field, the
value and the rule, exit code 2, nothing written."""

import os
import shutil
import subprocess
import sys

import pytest

from bdpsim.pipeline.results import committed_files
from bdpsim.pipeline.results.outdir import GitUnanswered

from ..conftest import write_toml
from ..support.bad_input import one_line

CONFIG = (
    '[run]\nseed = 3\nadversaries = 4\nestimator = "exact"\n[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n'
    '[mechanism]\nkind = "count"\nepsilon = 1.0\n'
)


def _checkout(tmp_path):
    """A git checkout whose ``results/`` holds one committed file."""
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "results" / "bdpl.png").write_text("committed")
    git = ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "reference results"]):
        subprocess.run(git + args, check=True, capture_output=True)
    return repo


def _fake_git(tmp_path, monkeypatch, code: int, message: str):
    """A ``git`` on PATH that fails as git does when it refuses a checkout."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = bin_dir / "git"
    git.write_text(f"#!{sys.executable}\nimport sys\nsys.stderr.write({message!r})\nsys.exit({code})\n")
    git.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_guard_still_sees_committed_files(bdpsim_cli, tmp_path):
    repo = _checkout(tmp_path)
    assert committed_files(repo / "results") == ["bdpl.png"]
    cfg = write_toml(tmp_path / "c.toml", CONFIG)
    one_line(bdpsim_cli("run", cfg, "--out", repo / "results", "--quiet"), "--out", "committed to git")


def test_guard_fails_closed_on_another_owner_s_checkout(bdpsim_cli, tmp_path):
    """The real thing: a checkout owned by another user; git (>= 2.35.2) refuses to read it."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("needs root to give the checkout to another user (the fake-git test covers the rest)")
    repo = _checkout(tmp_path)
    subprocess.run(["chown", "-R", "nobody", str(repo)], check=True)
    probe = subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True)
    if probe.returncode == 0:
        pytest.skip("this git reads other users' checkouts (safe.directory = *)")
    with pytest.raises(GitUnanswered, match="dubious ownership"):
        committed_files(repo / "results")
    cfg = write_toml(tmp_path / "c.toml", CONFIG)
    p = bdpsim_cli("run", cfg, "--out", repo / "results", "--quiet")
    one_line(
        p, "--out", "git cannot tell whether it holds committed files", "dubious ownership", "--overwrite"
    )
    assert sorted(os.listdir(repo / "results")) == ["bdpl.png"]


@pytest.mark.parametrize("command", ["run", "utility", "figures"])
def test_guard_fails_closed_when_git_fails(bdpsim_cli, tmp_path, monkeypatch, command):
    repo = _checkout(tmp_path)
    _fake_git(
        tmp_path,
        monkeypatch,
        128,
        "fatal: detected dubious ownership in repository at '/x'\n"
        "To add an exception for this directory, call:\n",
    )
    out = repo / "results"
    if command == "run":
        args = ("run", write_toml(tmp_path / "c.toml", CONFIG), "--out", out, "--quiet")
    elif command == "utility":
        args = ("utility", "utility_galton", "--out", out)
    else:
        args = ("figures", "--quick", "--only", "thesis-fig03", "--out", out, "--quiet")
    p = bdpsim_cli(*args)
    one_line(p, "--out", "git cannot tell", "dubious ownership")
    assert sorted(os.listdir(out)) == ["bdpl.png"]


def test_guard_stays_off_outside_a_checkout_even_if_git_fails(tmp_path, monkeypatch):
    """Outside a checkout git is not asked (nothing to protect): a broken git changes nothing."""
    _fake_git(tmp_path, monkeypatch, 128, "fatal: not a git repository\n")
    (tmp_path / "out").mkdir()
    assert committed_files(tmp_path / "out") == []


# ------------------------------------------------------------------ duplicate [utility] variants
@pytest.mark.parametrize(
    "key, value, shown",
    [
        ("split", '["all", "trios", "all"]', "'all'"),
        ("mechanisms", '["dp", "general", "dp"]', "'dp'"),
        ("epsilon", "[1, 2, 1.0]", "1.0"),
        ("family_size", "[2, 3, 2]", "2"),
        ("threshold", "[70, 80, 70.0]", "70.0"),
    ],
)
def test_utility_variant_listed_twice(bdpsim_cli, tmp_path, key, value, shown):
    dataset = {"family_size": "genomic", "threshold": "electricity"}.get(key, "galton")
    extra = "" if key == "mechanisms" or dataset != "galton" else 'mechanisms = ["dp", "general"]\n'
    cfg = write_toml(
        tmp_path / "u.toml", f'[utility]\ndataset = "{dataset}"\nruns = 20\n{key} = {value}\n{extra}'
    )
    for args in (("validate", cfg), ("utility", cfg, "--out", tmp_path / "o")):
        p = bdpsim_cli(*args)
        one_line(p, f"utility.{key}", f"lists {shown} twice", "list it once")
    assert not (tmp_path / "o").exists()
