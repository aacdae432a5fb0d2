"""The ``flags`` column (bdpsim.pipeline.flags): its rules on known rows, one warning line per flagged
point, the column absent from an unflagged run, and a target eps below floating-point resolution."""

from bdpsim.pipeline.config import load_config
from bdpsim.pipeline.driver import run_experiment

from ..support.bad_config import OK, cli, one_line_error, toml

QUICK = """[run]
seed = 1
adversaries = 30
samples = 5000
estimator = ["kde", "mixture"]
known_sizes = "all"
noise_floor_adversaries = 5
[model]
kind = "markov"
n = 6
gamma = [1.0, 8.0]
[mechanism]
kind = "count"
epsilon = 1.0
"""


def _point(tmp_path, text=OK):
    return load_config(toml(tmp_path, text)).points[0]


def test_flags_column_and_one_warning_line_per_flagged_point(tmp_path):
    import bdpsim

    log: list[str] = []
    rows = run_experiment(load_config(toml(tmp_path, QUICK)), tmp_path / "o", progress=False, log=log.append)
    warnings = [x for x in log if x.startswith("warning: point ")]
    by = {(r["estimator"], r["gamma"]): r for r in rows}
    kde8 = by["kde", 8.0]
    assert (
        "bdpl_p99" in kde8["flags"] and "> bound_general 6" in kde8["flags"] and "not a leak" in kde8["flags"]
    )
    assert "KDE evaluation points dropped" in kde8["flags"]  # 1.7 % here
    assert not by["mixture", 8.0].get("flags") and not by["mixture", 1.0].get("flags")
    flagged = [r for r in rows if r.get("flags")]
    assert len(warnings) == len(flagged) and all(x.count("\n") == 0 for x in warnings)
    assert any(kde8["point_id"] in x and "gamma = 8" in x for x in warnings)
    table = bdpsim.load_results(tmp_path / "o", as_frame=False)
    assert [r["flags"] for r in table] == [r.get("flags", "") for r in rows]


def test_flag_rules(tmp_path):
    from bdpsim.pipeline.flags import flags

    p = _point(tmp_path)  # mixture
    base = {
        "percentile": 99.0,
        "estimator": "mixture",
        "bdpl_se_max": 0.01,
        "bound_general": 4.0,
        "bound_model": 2.4,
        "bound_zhao": float("nan"),
        "bound_lower": 1.0,
        "nonpositive_points": 0,
        "n_adversaries": 6,
        "failed_adversaries": 0,
        "bdpl_exact": float("nan"),
    }
    assert flags(p, {**base, "bdpl_p99": 2.0}) == []
    assert flags(p, {**base, "bdpl_p99": 2.43}) == []  # within 4 se and 1 %
    assert "bdpl_p99 2.6 > bound_model 2.4" in flags(p, {**base, "bdpl_p99": 2.6})[0]
    low = flags(p, {**base, "bdpl_p99": 0.5, "bdpl_max": 0.6})  # the maximum below it (issue 38 item 6)
    assert len(low) == 1 and "bdpl_max 0.6 < bound_lower 1" in low[0] and "not sampled" in low[0]
    assert flags(p, {**base, "bdpl_p99": 0.5, "bdpl_max": 1.0}) == []  # one adversary reached it
    assert "2 of 6 adversaries without an estimate" in flags(
        p, {**base, "bdpl_p99": 2.0, "failed_adversaries": 2}
    )
    ex = flags(p, {**base, "bdpl_p99": 2.0, "bdpl_exact": 2.5})
    assert ex == ["exact BDPL 2.5 > bound_model 2.4 (a bug or a counterexample)"]


def test_tiny_epsilon_exact_is_flagged_sampling_refused(tmp_path, capsys):
    tiny = OK.replace("epsilon = 1.0", "epsilon = 1e-300")
    log: list[str] = []
    rows = run_experiment(
        load_config(toml(tmp_path, tiny.replace('"mixture"', '"exact"').replace("samples = 1000\n", ""))),
        tmp_path / "o",
        progress=False,
        log=log.append,
    )
    assert "floating-point noise" in rows[0]["flags"] and "bound_general 4e-300" in rows[0]["flags"]
    assert sum(x.startswith("warning: point ") for x in log) == 1
    for est in ("kde", "mixture"):
        out = tmp_path / est
        rc, _, err = cli(
            capsys, "run", toml(tmp_path, tiny.replace('"mixture"', f'"{est}"'), f"{est}.toml"), "--out", out
        )
        one_line_error(rc, err, "mechanism.epsilon = 1e-300", "below floating-point resolution", f"'{est}'")
        assert not out.exists()


def test_unflagged_run_has_no_flags_column(tmp_path):
    run_experiment(load_config(toml(tmp_path, OK)), tmp_path / "o", progress=False, log=lambda m: None)
    assert "flags" not in (tmp_path / "o" / "summary.csv").read_text().splitlines()[0].split(",")
