"""Check a built wheel against the checkout: every file git tracks under ``bdpsim/``, a real version.

The wheel holds every file that git tracks under ``bdpsim/``
(the modules, the bundled configs ``bdpsim/configs/*.toml``, the data ``bdpsim/data/*.csv``,
``py.typed``) and nothing else under ``bdpsim/``, and its version is a real one.

Usage (from the checkout's root, after ``python -m build``)::

    python scripts/checks/check_wheel.py dist/bdpsim-*.whl

Exit code 0 and one line saying what was checked, or 1 and the files missing or extra.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE = "bdpsim"


def tracked(root: Path) -> set[str]:
    """The files git tracks under ``root/bdpsim`` (paths relative to ``root``, with ``/``)."""
    out = subprocess.run(["git", "ls-files", "-z", PACKAGE], cwd=root, check=True, capture_output=True).stdout
    return {name for name in out.decode().split("\0") if name}


def shipped(wheel: Path) -> tuple[set[str], str]:
    """The files the wheel puts under ``bdpsim/`` and the version its metadata states."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        version = next(
            (
                line.split(":", 1)[1].strip()
                for line in zf.read(meta).decode().splitlines()
                if line.startswith("Version:")
            ),
            "",
        )
    return {n for n in names if n.startswith(f"{PACKAGE}/")}, version


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheel", type=Path, help="the built wheel (dist/bdpsim-*.whl)")
    ap.add_argument("--root", type=Path, default=Path.cwd(), help="the checkout (default: here)")
    args = ap.parse_args(argv)
    want = tracked(args.root)
    have, version = shipped(args.wheel)
    missing, extra = sorted(want - have), sorted(have - want)
    bad_version = version in ("", "0.0.0") or version.startswith("0.0.0+")
    for name in missing:
        print(f"missing from the wheel: {name}", file=sys.stderr)
    for name in extra:
        print(f"in the wheel but not tracked by git: {name}", file=sys.stderr)
    if bad_version:
        print(f"wheel version = {version!r}: must come from setuptools-scm", file=sys.stderr)
    if missing or extra or bad_version or not want:
        return 1
    configs = sum(n.startswith(f"{PACKAGE}/configs/") for n in have)
    data = sum(n.startswith(f"{PACKAGE}/data/") for n in have)
    print(
        f"{args.wheel.name}: version {version}; all {len(want)} tracked files of {PACKAGE}/ "
        f"({configs} configs, {data} data files) and nothing else"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
