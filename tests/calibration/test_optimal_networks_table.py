"""The committed optimal-noise table of pgmpy's networks (docs/generated/optimal_networks.md) is what
scripts/findings/optimal_networks.py generates from its CSV, and its numbers are consistent: the optimal
noise is eps-BDP by the exact engine and needs no more E|Z| than any calibrated law."""

from ..helpers import load_script


def _script():
    return load_script("optimal_networks")


def test_markdown_is_generated_from_the_csv():
    mod = _script()
    rows = mod.read_csv(mod.OUT / "optimal_networks.csv")
    assert mod.TABLE.read_text(encoding="utf-8") == mod.markdown(rows)
    assert {r["network"] for r in rows} >= {"cancer", "asia"}
    assert {float(r["epsilon"]) for r in rows} == set(mod.EPSILONS)


def test_table_numbers_are_consistent():
    mod = _script()
    for r in mod.read_csv(mod.OUT / "optimal_networks.csv"):
        eps, opt = float(r["epsilon"]), float(r["optimal_mean_abs"])
        assert float(r["optimal_bdpl"]) <= eps, r
        assert all(opt <= float(r[f"{law}_mean_abs"]) * (1 + 1e-9) for law in mod.LAWS), r
        # the DP adversary alone forces a Laplace scale >= 1/eps; n records at most n/eps (Thm 4.3)
        assert 1 / eps * (1 - 1e-9) <= float(r["laplace_scale"]) <= int(r["nodes"]) / eps * (1 + 1e-9), r
