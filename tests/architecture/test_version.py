"""The version and the changelog agree (issue 38 item 8): at 72aee1f ``bdpsim --version`` said
``0.2.1.dev353`` (setuptools-scm's next patch after ``fallback_version = "0.2.0"``) while no tag
existed and CHANGELOG.md called 0.2.0 "the first tagged release".

The scheme: CHANGELOG.md's first section names the next version, ``## X.Y.Z (unreleased)``, until
``vX.Y.Z`` is tagged; pyproject's ``fallback_version`` is ``X.Y.Z.dev0``, so a clone without tags
says ``X.Y.Z.devN+g<hash>`` and a source tree without git ``X.Y.Z.dev0``; a released section
(no "(unreleased)") has its tag."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
HEADING = re.compile(r"^## (\d+\.\d+\.\d+) \(([^)]*)\)\s*$")


def sections() -> list[tuple[str, bool]]:
    """CHANGELOG.md's version sections, newest first: ``(version, unreleased)``."""
    out = []
    for line in (ROOT / "CHANGELOG.md").read_text().splitlines():
        m = HEADING.match(line)
        if m:
            out.append((m.group(1), m.group(2).strip() == "unreleased"))
    return out


def fallback() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools_scm"]["fallback_version"]


def tags() -> list[str] | None:
    """The checkout's version tags (``vX.Y.Z`` -> ``X.Y.Z``), None outside a git checkout."""
    if shutil.which("git") is None:
        return None
    got = subprocess.run(["git", "-C", str(ROOT), "tag", "--list", "v[0-9]*"], capture_output=True, text=True)
    if got.returncode != 0:
        return None
    return [t[1:] for t in got.stdout.split()]


def test_changelog_sections_are_well_formed():
    secs = sections()
    assert secs, "CHANGELOG.md has no '## X.Y.Z (...)' section"
    assert [u for _, u in secs[1:]] == [False] * (len(secs) - 1), "only the first section may be unreleased"
    versions = [Version(v) for v, _ in secs]
    assert versions == sorted(versions, reverse=True), versions


def test_fallback_version_is_the_next_version_as_a_development_version():
    """A checkout without tags (or without git) says the changelog's next version, as .devN."""
    (top, unreleased), fb = sections()[0], Version(fallback())
    assert fb.is_devrelease and fb.dev == 0, f"fallback_version = {fb}: must be X.Y.Z.dev0"
    if unreleased:
        assert fb.base_version == top, f"fallback_version = {fb} but CHANGELOG.md's next version is {top}"
    else:  # the top section is released: the fallback is past it
        assert Version(fb.base_version) > Version(top), (
            f"fallback_version = {fb} is not after the release {top}"
        )


def test_released_sections_have_their_tags():
    """A section without "(unreleased)" claims a release: its tag must exist (72aee1f: '0.2.0
    (first tagged release)' and no tag); an unreleased section has none yet."""
    have = tags()
    if have is None:
        pytest.skip("not a git checkout")
    for v, unreleased in sections():
        if unreleased:
            assert v not in have, f"CHANGELOG.md calls {v} unreleased but the tag v{v} exists"
        elif Version(v) >= Version("0.2.0"):  # 0.1.0 predates tags (a static version)
            assert v in have, (
                f"CHANGELOG.md has a released {v} but no tag v{v}: tag it or mark it (unreleased)"
            )


def expected_base() -> str:
    """The release part setuptools-scm gives this checkout: the fallback's without a tag, the
    last tag's next patch after it (guess-next-dev), the tag itself on it."""
    have = sorted(tags() or [], key=Version)
    if not have:
        return Version(fallback()).base_version
    last = have[-1]
    at = (
        subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--tags", "--exact-match", "HEAD"],
            capture_output=True,
            text=True,
        ).returncode
        == 0
    )
    if at:
        return last
    major, minor, patch = Version(last).release[:3]
    return f"{major}.{minor}.{patch + 1}"


def test_installed_version_agrees_with_the_changelog():
    """The version ``bdpsim --version`` prints, when bdpsim is installed from this checkout
    (``pip install -e .``; an install made before a version change says the old one: reinstall)."""
    import bdpsim

    try:
        dist = distribution("bdpsim")
        url = json.loads(dist.read_text("direct_url.json") or "{}").get("url", "")
    except PackageNotFoundError:
        pytest.skip("bdpsim is not installed")
    if url.rstrip("/") != ROOT.as_uri() or tags() is None:
        pytest.skip(f"bdpsim is installed from {url or 'an index'}, not from this checkout")
    v = Version(bdpsim.__version__)
    assert v.base_version == expected_base(), (
        f"bdpsim {v} but this checkout is {expected_base()} (CHANGELOG.md, fallback_version, tags): "
        "reinstall with pip install -e ."
    )
    top, unreleased = sections()[0]
    if unreleased:
        assert v.is_devrelease and v.base_version == top
