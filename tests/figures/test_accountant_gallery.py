"""The gallery figure ``bdpsim-accountant``: its data against known answers, from small inputs."""

from __future__ import annotations

import pytest

from bdpsim.figures.gallery import FIGURES
from bdpsim.kernels.privacy.gaussian import gaussian_delta
from bdpsim.studies.accountant import SIGMA, accountant_rows


def test_accountant_rows_small():
    rows = accountant_rows(gammas=(1.0, 5.0), releases=(1, 4), n=6, network=False, noises=("gaussian",))
    rows += accountant_rows(gammas=(5.0,), releases=(1,), n=6, network=False, noises=("laplace",))
    assert len(rows) == 5 and "bdpsim-accountant" in FIGURES
    by = {(r["gamma"], r["noise"], r["releases"]): r for r in rows}
    # independent records (gamma = 1): the Gaussian joint is the composition, mu = 2 sqrt(k) / 2 ... sd
    iid = by[(1.0, "gaussian", 4)]
    assert iid["delta_kind"] == "exact"
    assert iid["delta_joint"] == pytest.approx(gaussian_delta(4**0.5 / SIGMA, 1.0), abs=1e-12)
    assert iid["delta_composed"] == pytest.approx(iid["delta_joint"], abs=2e-3)  # a PLD bracket's middle
    # one Laplace release: the joint and the "composition" of one are the same number
    one = by[(5.0, "laplace", 1)]
    assert one["delta_composed"] == one["delta_joint"]
    assert one["bdpl_joint_lower"] == one["bdpl_joint_upper"] == one["bdpl_summed"]
    # correlated records: the joint differs from the composition
    cor = by[(5.0, "gaussian", 4)]
    assert abs(cor["delta_joint"] - cor["delta_composed"]) > 0.01
