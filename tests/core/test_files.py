"""Reading the user's files (bdpsim.core.files): paths that never end (``/dev/zero``, a FIFO), TOML
nested hundreds of levels deep, binary configs and foreign summaries, a results table with a cell
over the csv module's field limit. Each bad input: one line naming the field, the value and the
rule, exit code 2, nothing written; the long cell is read."""

import gzip
import io
import os
import threading

import pytest

from bdpsim.core.files import FileRefused, check_regular, read_bytes, read_text

from ..conftest import write_toml
from ..support.bad_config import cli, one_line_error
from ..support.bad_input import one_line

RUN = '[run]\nseed = 3\nadversaries = 4\nestimator = "exact"\n'
MARKOV = '[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n'
COUNT = '[mechanism]\nkind = "count"\nepsilon = 1.0\n'


def _endless(tmp_path, kind: str):
    """A path whose reading never ends: ``/dev/zero`` or a FIFO nobody writes to."""
    if kind == "dev-zero":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero")
        return "/dev/zero", "a device"
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return str(fifo), "a FIFO"


def _guard():
    """Fail instead of hanging for ever if a FIFO is opened after all (opens it for writing)."""
    return threading.Timer(20, lambda: os._exit(99))


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_config_that_never_ends(bdpsim_cli, tmp_path, kind, command):
    path, what = _endless(tmp_path, kind)
    t = _guard()
    t.start()
    try:
        args = (command, path) + (("--out", tmp_path / "o", "--quiet") if command == "run" else ())
        p = bdpsim_cli(*args)
    finally:
        t.cancel()
    one_line(p, "config = ", path, "is not a regular file", what)
    assert "file not found" not in p.stderr and not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
def test_noise_table_that_never_ends(bdpsim_cli, tmp_path, kind):
    path, what = _endless(tmp_path, kind)
    cfg = write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT + f'noise = "table"\nnoise_table = "{path}"\n')
    t = _guard()
    t.start()
    try:
        p = bdpsim_cli("run", cfg, "--out", tmp_path / "o", "--quiet")
    finally:
        t.cancel()
    one_line(p, "mechanism.noise_table", path, "is not a regular file", what)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
def test_bif_that_never_ends(bdpsim_cli, tmp_path, kind):
    path, what = _endless(tmp_path, kind)
    cfg = write_toml(tmp_path / "c.toml", RUN + f'[model]\nkind = "bayesnet"\nbif = "{path}"\n' + COUNT)
    p = bdpsim_cli("validate", cfg)
    one_line(p, "model.bif", path, "is not a regular file", what)


@pytest.mark.parametrize(
    "text, where",
    [
        ("x = " + "[" * 400 + "]" * 400 + "\n", "arrays"),
        ("[run]\nx = " + "{a = " * 400 + "1" + "}" * 400 + "\n", "inline tables"),
        ('[run]\nseed = 3\n[model]\nkind = "bayesnet"\ncpt = ' + "[" * 2000 + "]" * 2000 + "\n", "a cpt"),
    ],
)
def test_toml_nested_hundreds_of_levels(bdpsim_cli, tmp_path, text, where):
    cfg = write_toml(tmp_path / "deep.toml", text)
    for args in (("validate", cfg), ("run", cfg, "--out", tmp_path / "o", "--quiet")):
        p = bdpsim_cli(*args)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, (
            where,
            p.stderr[-300:],
        )
        assert len(p.stderr) < 400, p.stderr
    assert not (tmp_path / "o").exists()


def test_check_regular_and_bounded_reads(tmp_path):
    f = tmp_path / "f.txt"
    f.write_bytes(b"x" * 100)
    assert read_bytes(f, 100) == b"x" * 100 and check_regular(f, 100) == f
    with pytest.raises(FileRefused, match=r"is 100 bytes: larger than the limit of 99 bytes"):
        read_bytes(f, 99)
    with pytest.raises(FileRefused, match="file not found"):
        read_bytes(tmp_path / "missing", 10)
    with pytest.raises(FileRefused, match=r"not a regular file \(a directory\)"):
        read_bytes(tmp_path, 10)
    f.write_bytes(b"\xff\xfe")
    with pytest.raises(FileRefused, match="not UTF-8"):
        read_text(f, 10)


# ------------------------------------------------------------------ a cell over the csv field limit
def test_results_with_a_cell_over_the_csv_field_limit(bdpsim_cli, tmp_path):
    """A 100 000-node run writes a cell longer than csv's default limit (131 072 characters);
    ``plot`` and the resume must read it back."""
    import csv

    from bdpsim.pipeline.results.tables import read_adversaries, read_summary

    cfg = write_toml(tmp_path / "c.toml", RUN + MARKOV + COUNT)
    out = tmp_path / "o"
    assert bdpsim_cli("run", cfg, "--out", out, "--quiet").returncode == 0
    long = "x" * (csv.field_size_limit() + 1000)
    path = out / "summary.csv"
    rows = list(csv.reader(path.read_text().splitlines()))
    col = rows[0].index("title") if "title" in rows[0] else rows[0].index("model")
    rows[1][col] = long
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    limit = csv.field_size_limit()
    assert read_summary(out)[0][rows[0][col]] == long
    assert csv.field_size_limit() == limit  # restored
    adv = out / "adversaries.csv.gz"
    text = gzip.decompress(adv.read_bytes()).decode()
    head, *body = list(csv.reader(text.splitlines()))
    known = head.index("known") if "known" in head else len(head) - 1
    body[0][known] = long
    buf = io.StringIO()
    csv.writer(buf).writerows([head, *body])
    adv.write_bytes(gzip.compress(buf.getvalue().encode()))
    assert read_adversaries(out)[0][head[known]] == long
    p = bdpsim_cli("plot", out)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr[-500:]


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_data_file_that_is_not_a_file(bdpsim_cli, tmp_path, kind):
    """``--data-dir`` holding a FIFO (or a directory) named galton.csv: refused, not read (it would
    never end) and not silently replaced by the shipped copy."""
    data = tmp_path / "data"
    data.mkdir()
    if kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs")
        os.mkfifo(data / "galton.csv")
    else:
        (data / "galton.csv").mkdir()
    out = tmp_path / "o"
    p = bdpsim_cli("utility", "utility_galton", "--data-dir", data, "--out", out)
    one_line(p, "dataset galton", "galton.csv", "is not a regular file")
    assert not out.exists()


def test_binary_utility_config_and_foreign_summaries(tmp_path, capsys):
    binary = tmp_path / "u.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    for cmd in ("utility", "validate"):
        rc, _, err = cli(capsys, cmd, binary)
        one_line_error(rc, err, "config")
    for name, data in (
        ("binary", bytes(range(256)) * 4),
        ("foreign", b"a,b\n1,2\n"),
        ("empty", b""),
        ("gzip", gzip.compress(b"point_id\n")),
    ):
        d = tmp_path / name
        d.mkdir()
        (d / "summary.csv").write_bytes(data)
        rc, _, err = cli(capsys, "plot", d)
        one_line_error(rc, err)
        assert not list(d.glob("bdpl.*"))
