"""Output directories: what a run directory may hold, the check before writing, the run lock."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from pathlib import Path

from ...core.errors import ConfigError, check
from .atomic import umask


#: names a run directory may hold besides its metadata (a directory holding others is foreign)
LOCK_NAME = ".bdpsim.lock"
OWN_NAMES = ("metadata.json", "summary.csv", "adversaries.csv.gz", "points", LOCK_NAME)


def is_run_metadata(path: Path) -> bool:
    """True when ``path`` is a ``metadata.json`` written by ``bdpsim run``."""
    try:
        meta = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("bdpsim_results") == 1 and meta.get("kind") == "run"


def check_out_dir(out: str | Path, force: bool = False) -> Path:
    """Check (writing nothing) that ``out`` can take a run's results; return it as a Path.

    It must be a non-empty path whose nearest existing ancestor is a writable directory. An
    existing non-empty directory must be a bdpsim run directory (its ``metadata.json``) unless
    ``force``: another tool's files are never overwritten by accident."""
    text = str(out)
    check(text.strip() != "", "--out", text, "must be a directory path, not empty")
    p = Path(text)
    if p.exists():
        check(p.is_dir(), "--out", text, "exists and is not a directory")
    anc = p
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    check(anc.is_dir(), "--out", text, f"{anc} is a file, not a directory")
    check(os.access(anc, os.W_OK | os.X_OK), "--out", text, f"{anc} is not writable")
    if p.is_dir() and not force:
        entries = sorted(e.name for e in p.iterdir() if not (e.name.startswith(".") and e.name.endswith(".tmp")))
        foreign = [e for e in entries if e not in OWN_NAMES and not e.startswith("bdpl.")]
        ours = is_run_metadata(p / "metadata.json")
        check(ours or not (set(entries) - {LOCK_NAME}), "--out", text,
              f"holds files not written by 'bdpsim run' ({', '.join(foreign or entries)[:80]}); "
              "use another directory or --force")
    return p


@contextlib.contextmanager
def run_lock(out: Path, log=None):
    """Hold an exclusive lock on ``out`` (``out/.bdpsim.lock``): concurrent runs into one directory
    run one after the other (the second waits, then resumes what the first finished).

    The lock file is removed when the run ends (only a killed run leaves it, and the next run
    takes it over). A waiter whose file was removed meanwhile (its inode is no longer the path's)
    opens the path again, so two runs never hold locks on different files."""
    import fcntl

    path = Path(out) / LOCK_NAME
    waited = False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666 & ~umask())
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "?"
                if log is not None and not waited:
                    log(f"waiting for another bdpsim run (pid {holder}) writing to {out}")
                waited = True
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)  # the holder removed the file we waited on: lock the current one
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # still holding the lock: nobody else holds this file's lock
        os.close(fd)  # releases the lock


class GitUnanswered(RuntimeError):
    """Inside a git checkout, git did not say which files it tracks (``reason``: its first line)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def _in_checkout(where: Path) -> bool:
    """``where`` or a folder above it holds ``.git`` (a directory, or a worktree's file)."""
    here = where.resolve()
    return any((d / ".git").exists() for d in (here, *here.parents))


def committed_files(path: str | Path) -> list[str]:
    """The files at or under ``path`` that git tracks (a checkout's committed reference results);
    ``[]`` when ``path`` does not exist, is outside a git checkout, or git is not installed.

    Raises
    ------
    GitUnanswered
        Inside a checkout, git failed or timed out (another owner's checkout: "detected dubious
        ownership"; a corrupt index): the guard fails closed instead of seeing no files.
    """
    p = Path(path)
    if not p.exists():
        return []
    where = p if p.is_dir() else p.parent
    if not _in_checkout(where):
        return []
    try:
        got = subprocess.run(["git", "-C", str(where), "ls-files", "-z", "--", str(p.resolve())],
                             capture_output=True, timeout=20)
    except OSError:  # git not installed: no way to know, as outside a checkout
        return []
    except subprocess.SubprocessError as exc:
        raise GitUnanswered(f"git ls-files did not answer ({type(exc).__name__})") from None
    if got.returncode != 0:
        lines = got.stderr.decode(errors="replace").strip().splitlines()
        raise GitUnanswered(lines[0] if lines else f"git ls-files exited with code {got.returncode}")
    return [f for f in got.stdout.decode(errors="replace").split("\0") if f]


def check_not_committed(path: str | Path, option: str = "--out") -> None:
    """Refuse (one line) to write into ``path`` when it holds files committed to git: run inside
    the checkout, the default output directories (``results/quickstart``, ``results/figures``,
    ...) are the repository's reference results, which a preview or an edited config must not
    silently replace. ``--overwrite`` (the caller skips this check) regenerates them on purpose."""
    try:
        files = committed_files(path)
    except GitUnanswered as exc:
        raise ConfigError(option, str(path), f"is in a git checkout, but git cannot tell whether it holds "
                                             f"committed files (git: {exc.reason}); fix that, write elsewhere "
                                             f"(another {option}) or pass --overwrite") from None
    if files:
        more = f" and {len(files) - 1} more" if len(files) > 1 else ""
        raise ConfigError(option, str(path), f"holds files committed to git ({files[0]}{more}: the "
                                             "repository's reference results); write elsewhere "
                                             f"(another {option}) or pass --overwrite to regenerate them")
