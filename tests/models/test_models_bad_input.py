"""Fourth hostile catalogue (issue 38 item 11), valid models refused with a false claim: a network
whose root has a state of probability 0, run over every adversary, was refused with "no adversary
has two target values of positive probability" (the root's part of the split search has none;
the other targets have). Checked against an independent brute force over every adversary."""

import csv
import itertools
import math

import numpy as np
import pytest

from ..conftest import write_toml

ROOT0 = "[[1.0, 0.0], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.2, 0.8]]]"


def _brute_bdpl(joint: np.ndarray, eps: float) -> float:
    """Max over targets i, known sets K (any size), known values of positive probability and
    ordered target pairs of positive probability of ``sup_y ln p(y | x_K, x) / p(y | x_K, x')`` for
    ``count(state 1) + Lap(1/eps)``. Between two atoms the ratio of Laplace mixtures is monotone
    (a Moebius function of e^(2 eps y)), so the sup is at an atom or a tail (y -> +-inf)."""
    n = joint.ndim
    states = list(itertools.product(*(range(s) for s in joint.shape)))
    best = -math.inf
    for i in range(n):
        others = [k for k in range(n) if k != i]
        for r in range(len(others) + 1):
            for K in itertools.combinations(others, r):
                for xk in itertools.product(*(range(joint.shape[k]) for k in K)):
                    laws = {}
                    for x in range(joint.shape[i]):
                        law = np.zeros(n + 1)
                        for s in states:
                            if s[i] == x and all(s[k] == v for k, v in zip(K, xk)):
                                law[sum(1 for v in s if v == 1)] += joint[s]
                        if law.sum() > 0:
                            laws[x] = law / law.sum()
                    c = np.arange(n + 1)
                    for p, q in itertools.permutations(laws.values(), 2):
                        vals = [
                            np.log(
                                (p * np.exp(-eps * abs(y - c))).sum() / (q * np.exp(-eps * abs(y - c))).sum()
                            )
                            for y in c
                        ]
                        vals += [
                            np.log((p * np.exp(eps * c)).sum() / (q * np.exp(eps * c)).sum()),
                            np.log((p * np.exp(-eps * c)).sum() / (q * np.exp(-eps * c)).sum()),
                        ]
                        best = max(best, max(vals))
    return best


@pytest.mark.parametrize("cpt", [ROOT0, "[[0.0, 1.0], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.2, 0.8]]]"])
def test_root_state_of_probability_zero_over_every_adversary(bdpsim_cli, tmp_path, cpt):
    cfg = write_toml(
        tmp_path / "c.toml",
        '[run]\nseed = 1\nadversaries = "all"\nestimator = "exact"\n'
        'known_sizes = "all"\n[model]\nkind = "bayesnet"\nstates = 2\nparents = [[], [0], [1]]\n'
        f'cpt = {cpt}\n[mechanism]\nkind = "count"\nepsilon = 1.0\n',
    )
    p = bdpsim_cli("run", cfg, "--out", tmp_path / "o", "--quiet")
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    row = next(csv.DictReader(open(tmp_path / "o" / "summary.csv")))
    import ast

    t = [np.array(x, dtype=float) for x in ast.literal_eval(cpt)]
    joint = np.einsum("a,ab,bc->abc", t[0], t[1], t[2])
    assert float(row["bdpl_exact"]) == pytest.approx(_brute_bdpl(joint, 1.0), abs=1e-9)
    with open(tmp_path / "o" / "summary.csv") as fh:
        assert "no adversary" not in fh.read()


def test_brute_force_knows_the_independent_case():
    """Independent records: only the target's own value moves the count: BDPL = eps exactly."""
    joint = np.einsum("a,b,c->abc", *[np.array([0.3, 0.7])] * 3)
    assert _brute_bdpl(joint, 1.0) == pytest.approx(1.0, abs=1e-12)
