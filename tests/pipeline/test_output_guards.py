"""Fourth hostile catalogue (issue 38 item 11), guards that failed open: the committed-results guard
turned itself off when git refused the checkout (another owner's: "detected dubious ownership"),
and a ``[utility]`` variant listed twice gave duplicate rows. Each: one line naming the field, the
value and the rule, exit code 2, nothing written."""

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bdpsim.pipeline.config import load_config
from bdpsim.pipeline.driver import run_experiment
from bdpsim.pipeline.results import committed_files
from bdpsim.pipeline.results.outdir import GitUnanswered

from ..conftest import write_toml
from ..support.bad_config import OK, cli, one_line_error, toml
from ..support.bad_input import COUNT, MARKOV, RUN, one_line

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


def test_committed_files_outside_a_checkout(tmp_path):
    from bdpsim.pipeline.results import committed_files

    assert committed_files(tmp_path) == [] and committed_files(tmp_path / "missing") == []


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


def test_full_disk_while_writing_a_point(bdpsim_cli, tmp_path, monkeypatch):
    from bdpsim.pipeline import results as R

    def full(out, pid, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(out / "points" / f"{pid}.json"))

    monkeypatch.setattr(R, "save_point", full)  # the one write of a point's record
    out = tmp_path / "o"
    p = bdpsim_cli("run", write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT), "--out", out, "--quiet")
    one_line(p, "--out", "No space left on device", "re-run to resume")
    assert not (out / "summary.csv").exists()


def test_unwritable_out_directory(tmp_path, capsys):
    """An existing directory that cannot be written: a read-only one, or (as root, who may write
    any ordinary directory) /proc/self, which nobody can create files in."""
    locked = Path("/proc/self") if os.geteuid() == 0 else tmp_path / "ro"
    if locked != Path("/proc/self"):
        locked.mkdir()
        locked.chmod(0o500)
    try:
        rc, _, err = cli(capsys, "run", toml(tmp_path, OK), "--out", locked / "o")
        one_line_error(rc, err, "not writable")
    finally:
        if locked != Path("/proc/self"):
            locked.chmod(0o700)


def test_files_follow_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        run_experiment(load_config(toml(tmp_path, OK)), tmp_path / "o", progress=False, log=lambda m: None)
    finally:
        os.umask(old)
    for name in ("summary.csv", "adversaries.csv.gz", "metadata.json"):
        assert (tmp_path / "o" / name).stat().st_mode & 0o777 == 0o640


def test_foreign_directory_needs_force(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / "thesis.tex").write_text("mine")
    cfg = toml(tmp_path, OK)
    rc, _, err = cli(capsys, "run", cfg, "--out", out, "--quiet")
    one_line_error(rc, err, "--force")
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]
    rc, _, err = cli(capsys, "run", cfg, "--out", out, "--quiet", "--force")
    assert rc == 0, err
    assert (out / "thesis.tex").read_text() == "mine" and (out / "summary.csv").is_file()


def test_a_fifo_as_json_output_is_refused_before_the_work(tmp_path, capsys):
    """``--json`` naming a FIFO blocked the command at the write (no reader, no answer in 20 s);
    it is refused in one line before any work."""
    import os

    from bdpsim.cli import main

    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    argv = ["temporal", "--transition", "[[0.8,0.2],[0.3,0.7]]", "--n", "5", "--epsilon", "1"]
    assert main([*argv, "--json", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--json" in err and "not a regular file" in err
