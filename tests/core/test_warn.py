"""Warnings located where the user acts (``bdpsim.core.warn``): at the line of the config key that
causes them while a config file is read, else at the first caller outside bdpsim; Python's
filters decide the rest."""

from __future__ import annotations

import warnings

import pytest

from bdpsim.core.warn import config_file, key_line, warn_user


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[run]\n# bootstrap = 1 (a comment)\nseed = 1\nbootstrap = 200\n", 4),
        ("[run]\nseed = 1\n[[variants]]\nrun = { seed = 2, bootstrap = 200 }\n", 4),
        ("run.bootstrap = 200\n", 1),
        ("[run]\nbootstraps = 3\nmy_bootstrap = 2\n", 1),  # no such key: the first line
    ],
    ids=["key", "inline-table", "dotted", "absent"],
)
def test_key_line(tmp_path, text, line):
    path = tmp_path / "c.toml"
    path.write_text(text)
    assert key_line(str(path), "bootstrap") == line
    assert key_line(str(tmp_path / "missing.toml"), "bootstrap") == 1


def test_outside_a_config_file_the_warning_points_at_the_caller(tmp_path):
    """No config file being read (none, or a config given as a dict inside a file's reading), or
    no key: this file's line."""
    path = tmp_path / "c.toml"
    path.write_text("key = 1\n")
    with pytest.warns(UserWarning) as caught:
        warn_user("plain", "key")
        with config_file(path), config_file("<dict>"):
            warn_user("a dict's", "key")
        with config_file(path):
            warn_user("no key")
    assert [(str(w.message), w.filename) for w in caught] == [
        ("plain", __file__),
        ("a dict's", __file__),
        ("no key", __file__),
    ]


def test_each_config_file_warns_once_under_the_default_filter(tmp_path):
    """Python's default filter: a warning once per file, line and text (as once per module and
    line): a second config file with the same text at the same line warns too."""
    paths = [tmp_path / "a.toml", tmp_path / "b.toml"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for path in paths:
            path.write_text("seed = 1\nkey = 2\n")
            for _ in range(2):
                with config_file(path):
                    warn_user("the same text", "key", RuntimeWarning)
    assert [(w.category, w.filename, w.lineno) for w in caught] == [
        (RuntimeWarning, str(p), 2) for p in paths
    ]
