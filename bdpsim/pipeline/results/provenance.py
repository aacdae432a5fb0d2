"""Provenance of every output: package versions, git revision, time, the metadata record."""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


def git_revision() -> str:
    """Git revision of the bdpsim source tree (with ``-dirty``), or ``"unknown"``."""
    here = Path(__file__).resolve().parents[2]  # the package folder
    try:
        rev = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def package_versions(extra: Sequence[str] = ()) -> dict[str, str]:
    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in ("bdpsim", "numpy", "scipy", "fastkde", "joblib", "matplotlib", "statsmodels",
                 "tqdm", *extra):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def metadata(kind: str, config: dict | None = None, seed: int | None = None, **extra) -> dict:
    """The one metadata record of every bdpsim output (run, accuracy, figures, utility):
    what made it (``kind``), its full config and seed, package versions, git revision and time.
    ``extra`` adds kind-specific entries (e.g. the expanded points of a run)."""
    return {
        "bdpsim_results": 1,
        "kind": kind,
        "config": config,
        "seed": seed,
        "versions": package_versions(("dask", "distributed")),
        "git_revision": git_revision(),
        "written": now(),
        **extra,
    }
