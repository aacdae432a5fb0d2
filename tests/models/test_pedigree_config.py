"""Pedigrees through the architecture: config keys, validation, exact and Monte Carlo runs, bounds."""

import math

import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models.pedigree.exact import exhaustive_pedigree_count
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_experiment


def doc(**model):
    return {
        "run": {"adversaries": "all", "estimator": "exact", "known_sizes": "all"},
        "model": {"kind": "pedigree", "family": "nuclear", "size": 4, "allele_b": 0.3, **model},
        "mechanism": {"kind": "count", "counted_states": ["BB"], "epsilon": 1.0},
    }


@pytest.mark.parametrize(
    "model,field",
    [
        ({"family": None, "size": None, "parents": [[], [], [0, 2]]}, "model.parents"),  # parent after child
        ({"family": None, "size": None, "parents": [[], [0]]}, "model.parents"),  # one parent
        ({"family": None, "size": None, "parents": [[], [], [0, 1, 1]]}, "model.parents"),  # three parents
        ({"family": None, "size": None, "parents": [[0]]}, "model.parents"),  # self-parenting
        ({"allele_b": 1.0}, "model.allele_b"),
        ({"allele_b": 0.0}, "model.allele_b"),
        ({"family": "clan"}, "model.family"),
        ({"size": 10**9}, "model.size"),
        ({"gamma": 2.0}, "model.gamma"),
        ({"founder_law": [0.5, 0.6, -0.1]}, "model.founder_law"),
    ],
)
def test_bad_pedigree_configs_name_the_field(model, field):
    d = doc(**model)
    d["model"] = {k: v for k, v in d["model"].items() if v is not None}
    with pytest.raises(ConfigError) as err:
        parse_config(d)
    assert field in str(err.value) and "\n" not in str(err.value)


def test_bad_genotype_name():
    d = doc()
    d["mechanism"]["counted_states"] = ["BX"]
    with pytest.raises(ConfigError, match="mechanism.counted_states"):
        parse_config(d)


def test_sweeps_over_size_and_allele_b(tmp_path):
    cfg = parse_config(doc(size=[3, 4], allele_b=[0.1, 0.5]))
    rows = run_experiment(cfg, tmp_path, progress=False)
    assert len(rows) == 4 and {(p.model.n, p.model.fixed.allele_b) for p in cfg.points} == {
        (3, 0.1),
        (3, 0.5),
        (4, 0.1),
        (4, 0.5),
    }
    for p, r in zip(cfg.points, rows):
        ref = exhaustive_pedigree_count(p.model.fixed, LaplaceCount(1.0, (0,)))
        assert r["bdpl_exact"] == pytest.approx(ref.value.max(), abs=1e-12)
        assert (r["n"] - 1) - 1e-9 <= r["bdpl_exact"] <= r["bound_general"] + 1e-12  # thesis Cor. 5.2


def test_lower_bound_reported_for_nuclear_bb_count():
    p = parse_config(doc(size=6)).points[0]
    b = p.bounds()
    assert b["lower"].value == 5.0 and b["general"].value == 6.0


def test_mixture_estimator_runs_on_pedigrees(tmp_path):
    d = doc(size=4)
    d["run"] = {
        "adversaries": 30,
        "samples": 20000,
        "estimator": "mixture",
        "known_sizes": "all",
        "noise_floor_adversaries": 0,
    }
    rows = run_experiment(parse_config(d), tmp_path, progress=False)
    r = rows[0]
    assert r["exact_n"] == 30 and math.isfinite(r["error_max"])
    assert r["error_max"] < 0.15  # 2e4 samples per condition; mixture error ~ 1/sqrt(N)


@pytest.mark.parametrize("counted,lower", [(["BB"], 4.0), (["bb"], 4.0), (["Bb"], 1.0), (["BB", "bb"], 1.0)])
def test_lower_bound_is_cor_5_2_for_a_homozygous_count_only(counted, lower, tmp_path):
    """(m - 1) eps for the count of BB or of bb (alleles swapped); the other counts keep eps.
    The exact BDPL over every adversary is never below the bound reported."""
    d = doc(size=5)
    d["mechanism"]["counted_states"] = counted
    p = parse_config(d).points[0]
    assert p.bounds()["lower"].value == lower
    rows = run_experiment(parse_config(d), tmp_path, progress=False)
    assert rows[0]["bound_lower"] == lower and rows[0]["bdpl_exact"] >= lower - 1e-9
