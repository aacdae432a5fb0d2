"""The committed network table (results/networks/) is what scripts/findings/network_table.py generates
from its CSV, and its numbers are consistent (audit lower bound <= exact worst, exact values
within the general bound nodes x eps)."""

import math

from ..helpers import load_script


def _script():
    return load_script("network_table")


def test_markdown_is_generated_from_the_csv():
    mod = _script()
    rows = mod.read_csv(mod.OUT / "networks.csv")
    assert (mod.OUT / "networks.md").read_text(encoding="utf-8") == mod.markdown(rows)
    assert {r["network"] for r in rows} >= {"asia", "alarm", "karate-0.5"}


def test_table_numbers_are_consistent():
    mod = _script()
    for r in mod.read_csv(mod.OUT / "networks.csv"):
        if r["status"] != "ok":
            assert r["status"].startswith(("refused", "timed out", "model", "failed")), r
            continue
        worst, lower, empty = (
            float(r["bdpl_worst_sampled"]),
            float(r["audit_lower"]),
            float(r["bdpl_known_empty"]),
        )
        assert 0 <= lower <= worst * (1 + 1e-9) + 1e-9, r
        assert 0 < empty <= int(r["nodes"]) * mod.EPSILON + 1e-9, r
        assert math.isfinite(worst) and worst <= int(r["nodes"]) * mod.EPSILON + 1e-9, r
        if r["network"] == "karate-0":  # independent records: every adversary's BDPL is eps
            assert abs(worst - mod.EPSILON) < 1e-9 and abs(empty - mod.EPSILON) < 1e-9
