"""Bad config: probes of the cli layer."""

from ..support.bad_config import (
    cli,
    one_line_error,
)


def test_bounds_prints_nothing_before_failing(capsys):
    rc, out, err = cli(capsys, "bounds", "markov", "--gamma", "5", "--epsilon", "-1", "--n", "3")
    one_line_error(rc, err, "epsilon")
    assert out == ""
