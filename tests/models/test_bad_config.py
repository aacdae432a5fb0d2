"""Bad config: probes of the models layer."""

from ..support.bad_config import (
    OK,
    cli,
    one_line_error,
    toml,
)


def test_bad_arguments_one_line(tmp_path, capsys):
    cfg = toml(tmp_path, OK)
    (tmp_path / "afile").write_text("x")
    cases = [
        (["run", cfg, "--out", tmp_path / "o", "--backend", "dask", "--scheduler", "garbage"], "--scheduler"),
        (
            [
                "run",
                cfg,
                "--out",
                tmp_path / "o",
                "--backend",
                "dask",
                "--scheduler",
                "http://127.0.0.1:8786",
            ],
            "--scheduler",
        ),
        (["run", cfg, "--out", tmp_path / "afile" / "sub"], "is a file"),
        (["run", cfg, "--out", ""], "--out"),
        (["run", cfg, "--out", "/proc/bdpsim-test/sub"], "--out"),
        (["bounds", "markov", "--transition", "abc", "--epsilon", "1"], "--transition"),
        (["bounds", "markov", "--transition", "[[0.5,0.5],[0.5]]", "--epsilon", "1"], "--transition"),
    ]
    for args, word in cases:
        rc, out, err = cli(capsys, *args)
        one_line_error(rc, err, word)
        assert out == ""
    assert not (tmp_path / "o").exists()
