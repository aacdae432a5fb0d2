"""Issue 38 item 10: BIF files are read without pgmpy, to the same network pgmpy reads.

The bundled reader (:mod:`bdpsim.models.bayesnet.bif`) is compared with pgmpy's ``BIFReader`` +
:func:`~bdpsim.models.bayesnet.build.from_pgmpy` on the test fixture and on the example networks
pgmpy ships (``pgmpy/utils/example_models/*.bif.gz``, offline): same node order, parents, state
names and bit-identical tables. What the reader does not read falls back to pgmpy.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.models.bayesnet.bif import BifSyntax, parse_bif, read_bif
from bdpsim.models.bayesnet.build import from_bif
from bdpsim.models.bayesnet.model import BayesNetModel

from ..conftest import ROOT

WEATHER = ROOT / "tests" / "data" / "weather.bif"
SMALL = ("asia", "alarm", "child", "hailfinder")  # 8 to 56 nodes; 'table' and row formats


def _examples() -> dict[str, Path]:
    pgmpy = pytest.importorskip("pgmpy")
    return {
        p.name[: -len(".bif.gz")]: p
        for p in sorted((Path(pgmpy.__file__).parent / "utils" / "example_models").glob("*.bif.gz"))
    }


def _same_as_pgmpy(text: str) -> None:
    from pgmpy.readwrite import BIFReader

    from bdpsim.models.bayesnet.build import from_pgmpy

    net = parse_bif(text)
    ours = BayesNetModel(net.parents, net.tables, names=net.names, state_names=net.states)
    theirs = from_pgmpy(BIFReader(string=text).get_model())
    assert ours.names == theirs.names
    assert ours.parents == theirs.parents
    assert ours.state_names == theirs.state_names
    for a, b in zip(ours.cpt, theirs.cpt):
        assert a.shape == b.shape and np.array_equal(a, b)


def test_fixture_reads_as_pgmpy_reads_it():
    pytest.importorskip("pgmpy")
    _same_as_pgmpy(WEATHER.read_text())
    net = read_bif(WEATHER)
    assert net.names == ("Rain", "Wind", "Cloud", "Umbrella")
    np.testing.assert_array_equal(net.tables[0], [0.7, 0.3])


@pytest.mark.parametrize("name", SMALL)
def test_pgmpy_example_networks_read_alike(name):
    path = _examples()[name]
    _same_as_pgmpy(gzip.open(path, "rt").read())


@pytest.mark.slow
def test_every_pgmpy_example_network_reads_alike():
    """All 24 networks pgmpy ships (up to 1041 nodes; pgmpy takes minutes for all of them)."""
    examples = _examples()
    assert len(examples) >= 20
    for path in examples.values():
        _same_as_pgmpy(gzip.open(path, "rt").read())


def test_reading_a_bif_file_imports_no_pgmpy(cli_env):
    probe = (
        "import sys\nfrom bdpsim.models.bayesnet.build import from_bif\n"
        f"m = from_bif({str(WEATHER)!r})\nprint(m.node_states, 'pgmpy' in sys.modules, 'networkx' "
        f"in sys.modules)"
    )
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=cli_env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "(2, 3, 3, 2) False False"


HEAD = "variable A { type discrete [ 2 ] { a0, a1 }; }\nvariable B { type discrete [ 2 ] { b0, b1 }; }\n"


@pytest.mark.parametrize(
    "text, what",
    [
        (
            HEAD + "probability ( A ) { table 0.5, 0.5; }",
            "every variable needs exactly one probability block",
        ),
        (
            HEAD + "probability ( A ) { table 0.5, 0.5; }\nprobability ( B | A ) { (a0) 0.5, 0.5; }",
            "rows missing",
        ),
        (
            HEAD + "probability ( A ) { table 0.5, 0.5; }\nprobability ( B | A ) { (a0) 0.5, 0.5; (a2) "
            "0.1, 0.9; }",
            "unknown parent state",
        ),
        (
            HEAD + "probability ( A | B ) { (b0) 0.5, 0.5; (b1) 0.5, 0.5; }\n"
            "probability ( B | A ) { (a0) 0.5, 0.5; (a1) 0.1, 0.9; }",
            "cycle",
        ),
        (
            HEAD + "probability ( A ) { table 0.5, 0.5; }\nprobability ( B | A ) { default 0.5, 0.5; }",
            "cannot read",
        ),
        (
            "variable A { type discrete [ 3 ] { a0, a1 }; }\nprobability ( A ) { table 0.5, 0.5; }",
            "3 states declared",
        ),
        (HEAD + "probability ( A ) { table 0.5, x; }\nprobability ( B ) { table 0.5, 0.5; }", "not a number"),
    ],
)
def test_what_the_reader_does_not_read_is_named(text, what):
    with pytest.raises(BifSyntax, match=what):
        parse_bif(text)


def test_a_conditional_table_and_comments_read_as_pgmpy_does():
    pytest.importorskip("pgmpy")
    text = (
        "// a comment\n" + HEAD + "/* block\ncomment */\nprobability ( A ) { table 0.25, 0.75; }\n"
        "probability ( B | A ) { table 0.9, 0.3, 0.1, 0.7; }\n"
    )
    _same_as_pgmpy(text)
    np.testing.assert_allclose(parse_bif(text).tables[1], [[0.9, 0.1], [0.3, 0.7]])


def test_unreadable_files_are_one_line(tmp_path):
    (tmp_path / "x.bif").write_bytes(b"\xff\xfe\x00 not text")
    with pytest.raises(
        ConfigError, match=r"^model.bif = .*x.bif': is not UTF-8 text$"
    ):  # the file guard, before parsing
        from_bif(tmp_path / "x.bif")


def test_the_tutorials_network_is_read_without_pgmpy(tmp_path, monkeypatch):
    """Tutorial 2 said ``from_bif`` needs pgmpy; it reads the tutorial's network with pgmpy
    unimportable, and its text no longer says so."""
    import ast

    tutorial = ROOT / "docs" / "examples" / "tutorials" / "plot_2_bayesnet_calibration.py"
    source = tutorial.read_text()
    bif = next(
        n.value.value
        for n in ast.parse(source).body
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "BIF"
    )
    path = tmp_path / "contacts.bif"
    path.write_text(bif)
    monkeypatch.setitem(sys.modules, "pgmpy", None)  # import pgmpy now raises ImportError
    net = from_bif(path)
    assert net.names == ("a", "b", "c", "d", "e") and net.parents[3] == (1, 2)
    assert "needs pgmpy" not in source


def test_a_bif_path_in_a_config_is_read_beside_the_config(tmp_path, monkeypatch, bdpsim_cli):
    """Before: ``bif = "net.bif"`` was read from the working directory, so a config beside its
    network failed from anywhere else. Now a relative path is the config's neighbour, for
    ``bdpsim validate``/``run`` and ``calibrate config`` alike; an absolute path and a config given
    as a dict (relative to the working directory) are unchanged."""
    from bdpsim.pipeline.config import load_config, parse_config

    home = tmp_path / "study"
    home.mkdir()
    (home / "net.bif").write_text(WEATHER.read_text())
    doc = (
        '[run]\nadversaries = "all"\nestimator = "exact"\n'
        '[model]\nkind = "bayesnet"\nbif = "net.bif"\n'
        '[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = [1]\n'
    )
    (home / "c.toml").write_text(doc)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_config(home / "c.toml").points[0].model.probe().names == ("Rain", "Wind", "Cloud", "Umbrella")
    done = bdpsim_cli("validate", home / "c.toml")
    assert done.returncode == 0 and "valid, 1 configuration point" in done.stdout, done.stderr
    done = bdpsim_cli("calibrate", "config", home / "c.toml", "--epsilon", "1")
    assert done.returncode == 0, done.stderr
    raw = {"model": {"kind": "bayesnet", "bif": "net.bif"}, "mechanism": {"kind": "count", "epsilon": 1.0}}
    with pytest.raises(ConfigError, match=r"^model\.bif = 'net\.bif': "):
        parse_config(raw)  # a dict: the working directory, which holds no net.bif
    monkeypatch.chdir(home)
    assert parse_config(raw).points[0].model.probe().n == 4
