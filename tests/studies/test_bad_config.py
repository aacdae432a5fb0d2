"""Bad config: probes of the studies layer."""

import gzip

import numpy as np
import pytest

from ..support.bad_config import (
    MARKOV,
    ROOT,
    RUN,
    cli,
    one_line_error,
    toml,
)


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


@pytest.mark.timeout(
    120
)  # a hang guard, not a speed check (seconds here; how quickly: scripts/benchmark_limits.py)
def test_worst_case_gaussian_is_capped():
    from bdpsim.studies.worstcase import worst_gaussian_sum

    # n = 12, rho = 0.5 looped forever; this case too, and is quicker
    r = worst_gaussian_sum(8, 0.9, np.random.default_rng(1), starts=2)
    assert r.capped and r.starts >= 1 and r.slope >= r.equicorrelated - 1e-9


# --------------------------------------------------------------------------- 7. output directories


def test_validate_lists_sweeps_and_accepts_utility_configs(tmp_path, capsys):
    cfg = toml(
        tmp_path,
        RUN
        + MARKOV.replace("gamma = 2.0", "gamma = [1.5, 3.0]")
        + '[mechanism]\nkind = "sum"\nstate_values = [0.0, 2.0]\nnoise_scale = 1.0\n',
    )
    rc, out, err = cli(capsys, "validate", cfg)
    assert rc == 0, err
    assert "2 configuration points" in out and "sweep model.gamma = [1.5, 3]" in out
    assert "nan" not in out
    rc, out, err = cli(capsys, "validate", ROOT / "configs" / "utility_galton.toml")
    assert rc == 0 and "utility" in out, err


@pytest.mark.parametrize(
    "line,word",
    [
        ("family_size = [1000000000]", "utility.family_size"),
        ("records = 1000000000000", "utility.records"),
        ("runs = 1000000000000", "utility.runs"),
        ("seed = true", "utility.seed"),
        ("epsilon = [inf]", "utility.epsilon"),
    ],
)
def test_hostile_utility_configs(tmp_path, capsys, line, word):
    cfg = toml(tmp_path, f'[utility]\ndataset = "genomic"\n{line}\n')
    for cmd in ("validate", "utility"):
        rc, out, err = cli(capsys, cmd, cfg, *(["--out", tmp_path / "o"] if cmd == "utility" else []))
        one_line_error(rc, err, word)
    assert not (tmp_path / "o").exists()  # how quickly: scripts/benchmark_limits.py
