"""The optimal integer noise and the exact calibration on Bayesian networks, Markov random fields and
pedigrees (issue 30 item 3), checked against an independent brute force: every joint state's
probability recomputed here from the tables (numpy), every adversary (target, known set, known
values, pair of target values), the output laws of the noise table with its geometric tails."""

import itertools
import json
import math

import numpy as np
import pytest

from bdpsim.calibration.graphs import calibrate_graph
from bdpsim.calibration.optimal import law_pairs, optimal_noise
from bdpsim.cli import main
from bdpsim.core.errors import ConfigError
from bdpsim.models.bayesnet.model import BayesNetModel
from bdpsim.models.mrf.model import MRFModel
from bdpsim.models.pedigree.model import PedigreeModel

DIAMOND = (
    [[], [0], [0], [1, 2]],
    [
        [0.6, 0.4],
        [[0.8, 0.2], [0.3, 0.7]],
        [[0.9, 0.1], [0.25, 0.75]],
        [[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]],
    ],
)


def _bn_joint(parents, cpt) -> np.ndarray:
    """P(x) over every joint state of a binary network, from the tables."""
    n = len(parents)
    P = np.zeros((2,) * n)
    for x in itertools.product(range(2), repeat=n):
        P[x] = math.prod(
            float(np.asarray(cpt[j])[tuple(x[p] for p in parents[j]) + (x[j],)]) for j in range(n)
        )
    return P


def _potts_joint(n, edges, J) -> np.ndarray:
    P = np.zeros((2,) * n)
    for x in itertools.product(range(2), repeat=n):
        P[x] = math.exp(J * sum(x[a] == x[b] for a, b in edges))
    return P / P.sum()


def _pmf(offset, pmf, r, z):
    """The table noise's pmf at integers z (table, then geometric tails)."""
    pmf, z = np.asarray(pmf, dtype=float), np.asarray(z)
    t = z - offset
    out = np.where((t >= 0) & (t < pmf.size), pmf[np.clip(t, 0, pmf.size - 1)], 0.0)
    out = np.where(t < 0, pmf[0] * r ** np.abs(np.minimum(t, 0)), out)
    return np.where(t >= pmf.size, pmf[-1] * r ** np.maximum(t - pmf.size + 1, 0), out)


def _brute_bdpl(P, values, noise_pmf, span) -> float:
    """Largest |ln p(y | x_K, x) / p(y | x_K, x')| over every adversary and every output y in a range
    ``span`` past the atoms (beyond the noise's table both laws are in one geometric tail, where
    the ratio is constant)."""
    n, s = P.ndim, P.shape[0]
    S = sum(np.asarray(values)[np.indices(P.shape)[k]] for k in range(n)).astype(int)
    Q = int(S.max()) + 1
    J = np.zeros(P.shape + (Q,))
    np.put_along_axis(J, S[..., None], P[..., None], axis=-1)
    ys = np.arange(-span, Q + span)
    F = noise_pmf(ys[:, None] - np.arange(Q)[None, :])  # F[y, c] = P(Z = y - c)
    worst = 0.0
    for i in range(n):
        others = [k for k in range(n) if k != i]
        for size in range(n):
            for K in itertools.combinations(others, size):
                drop = tuple(k for k in others if k not in K)
                T = J.sum(axis=drop) if drop else J  # axes: K (in order) and i, then the sum
                T = np.moveaxis(T, sorted(K + (i,)).index(i), -2).reshape(-1, s, Q)
                for x, xp in itertools.combinations(range(s), 2):
                    a, b = T[:, x], T[:, xp]
                    ok = (a.sum(axis=1) > 0) & (b.sum(axis=1) > 0)
                    a = a[ok] / a[ok].sum(axis=1, keepdims=True)
                    b = b[ok] / b[ok].sum(axis=1, keepdims=True)
                    if a.size:
                        worst = max(worst, float(np.max(np.abs(np.log(a @ F.T) - np.log(b @ F.T)))))
    return worst


def _table_pmf(noise):
    d = noise.as_dict()
    return lambda z: _pmf(d["offset"], d["pmf"], d["tail_ratio"], z)


def _geometric_pmf(dp_epsilon):
    q = math.exp(-dp_epsilon)
    return lambda z: (1 - q) / (1 + q) * q ** np.abs(z)


def _laplace_pdf(b):
    return lambda z: np.exp(-np.abs(z) / b) / (2 * b)


CASES = {
    "diamond network": (lambda: BayesNetModel(*DIAMOND), lambda: _bn_joint(*DIAMOND)),
    "potts cycle": (
        lambda: MRFModel([(0, 1), (1, 2), (2, 3), (3, 0)], 2, 0.8),
        lambda: _potts_joint(4, [(0, 1), (1, 2), (2, 3), (3, 0)], 0.8),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_optimal_noise_is_eps_bdp_by_brute_force_and_beats_the_calibrated_laws(case, eps):
    make, joint = CASES[case]
    model, P = make(), joint()
    rows = {(c.method, c.noise): c for c in calibrate_graph(model, eps, [0, 1], method="all")}
    opt = rows["optimal", "table"]
    noise = opt.extra["noise"]
    span = len(noise["pmf"]) + 40
    got = _brute_bdpl(P, [0, 1], lambda z: _pmf(noise["offset"], noise["pmf"], noise["tail_ratio"], z), span)
    assert got <= eps + 1e-9  # eps-BDP over every adversary, independently of the engine
    assert got >= eps - 1e-6  # tight: the LP spends the whole budget
    assert abs(opt.bdpl - got) <= 1e-8  # the engine's verification agrees
    geo, lap = rows["exact", "geometric"], rows["exact", "laplace"]
    # the calibrated competitors are eps-BDP (and tight) by the same brute force
    geo_got = _brute_bdpl(P, [0, 1], _geometric_pmf(geo.parameter), span)
    assert eps - 1e-6 <= geo_got <= eps + 1e-9
    q = math.exp(-geo.parameter)
    assert geo.mean_abs == pytest.approx(2 * q / (1 - q * q), rel=1e-12)
    # Laplace mixtures: the log-ratio is monotone between atoms and constant beyond them, so the
    # integer outputs from one below the atoms to one above hold the exact sup
    assert _brute_bdpl(P, [0, 1], _laplace_pdf(lap.scale), 1) == pytest.approx(lap.bdpl, abs=1e-9)
    assert lap.bdpl <= eps * (1 + 1e-9)
    mq = rows.get(("markov-quilt-general", "laplace"))  # networks only (the Pufferfish mechanism)
    assert (mq is None) == isinstance(model, MRFModel)
    if mq is not None:
        assert _brute_bdpl(P, [0, 1], _laplace_pdf(mq.scale), 1) == pytest.approx(mq.bdpl, abs=1e-9)
    assert opt.mean_abs <= geo.mean_abs * (1 + 1e-9) and opt.mean_abs <= lap.mean_abs
    assert opt.extra["variance"] > 0 and set(noise) == {"offset", "pmf", "tail_ratio"}


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_independent_records_give_the_dp_optimal_geometric_noise(eps):
    """A network without edges: every adversary's two laws are one law shifted by 1, so eps-BDP is
    eps-DP for a sensitivity-1 count, whose least-E|Z| integer noise is the geometric law
    (Ghosh et al.; Geng & Viswanath's staircase on the integers): E|Z| = 2q/(1 - q^2), q = e^-eps."""
    model = BayesNetModel([[], [], []], [[0.3, 0.7], [0.6, 0.4], [0.5, 0.5]])
    q = math.exp(-eps)
    opt = optimal_noise(model, eps, [0, 1])
    assert opt.mean_abs == pytest.approx(2 * q / (1 - q * q), rel=1e-6)
    assert opt.bdpl <= eps
    lap = calibrate_graph(model, eps, [0, 1], method="exact")[0]
    assert lap.scale == pytest.approx(1 / eps, rel=1e-8)  # independent records: BDPL = DP epsilon


def test_pedigree_exact_calibration_meets_the_thesis_bound_and_optimal_beats_it():
    """Nuclear family of 4, count of bb: the thesis' lower bound (m - 1) eps_DP (Cor. 5.2) forces a
    Laplace scale >= (m - 1)/eps; the optimal noise needs less E|Z| than every calibrated law."""
    model = PedigreeModel.nuclear(4, 0.3)
    rows = {(c.method, c.noise): c for c in calibrate_graph(model, 0.5, [0, 0, 1], method="all")}
    assert rows["exact", "laplace"].scale >= 3 / 0.5 * (1 - 1e-9)
    assert all(c.bdpl <= 0.5 * (1 + 1e-9) for c in rows.values())
    opt = rows["optimal", "table"].mean_abs
    assert all(opt <= c.mean_abs * (1 + 1e-9) for k, c in rows.items() if k[0] == "exact")


def test_law_pairs_are_shift_free_and_every_engine_pair_is_kept():
    model = BayesNetModel(*DIAMOND)
    pairs, trunc = law_pairs(model, [0, 1])
    assert pairs.delta == 1 and np.allclose(pairs.W1.sum(axis=1), 1) and np.allclose(pairs.W2.sum(axis=1), 1)
    assert pairs.W1.shape[0] > 10 and trunc == 0.0


def test_refused_up_front_with_the_estimate():
    model = BayesNetModel(*DIAMOND)
    with pytest.raises(ConfigError) as err:
        optimal_noise(model, 1.0, [0, 1], max_seconds=1e-9)
    assert err.value.field == "model" and "s of one core" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="integer query values"):
        optimal_noise(model, 1.0, [0, 0.5])


def _config(tmp_path, text: str) -> str:
    p = tmp_path / "model.toml"
    p.write_text(text)
    return str(p)


NETWORK_TOML = """[model]
kind = "bayesnet"
states = 2
parents = [[], [0], [0], [1, 2]]
cpt = [[0.6, 0.4], [[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.25, 0.75]],
       [[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]]]
"""


def test_cli_optimal_json_in_process(tmp_path, capsys):
    assert (
        main(
            [
                "calibrate",
                "config",
                _config(tmp_path, NETWORK_TOML),
                "--epsilon",
                "1",
                "--method",
                "optimal",
                "--json",
            ]
        )
        == 0
    )
    obj = json.loads(capsys.readouterr().out)
    assert obj["method"] == "optimal" and obj["bdpl"] <= 1 and obj["is_bdp"] is True
    assert {"mean_abs", "variance", "noise"} <= set(obj) and set(obj["noise"]) == {
        "offset",
        "pmf",
        "tail_ratio",
    }
    geo = calibrate_graph(BayesNetModel(*DIAMOND), 1.0, [0, 1], method="exact", noise="geometric")[0]
    assert obj["mean_abs"] <= geo.mean_abs


def test_cli_all_table_and_pedigree(tmp_path, capsys):
    fam = _config(tmp_path, '[model]\nkind = "pedigree"\nfamily = "nuclear"\nsize = 3\n')
    assert main(["calibrate", "config", fam, "--epsilon", "1", "--counted", "2", "--method", "all"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("query: count of records in states [2] (bb) (from the flags)")
    assert out[2].split()[:2] == ["method", "noise"] and max(map(len, out)) <= 80
    assert [ln.split()[:2] for ln in out if not ln.startswith(" ")][2:] == [
        ["optimal", "table"],
        ["exact", "laplace"],
        ["exact", "geometric"],
        ["exact", "staircase"],
    ]


@pytest.mark.parametrize(
    "text,args,field",
    [
        (NETWORK_TOML, ["--epsilon", "-1"], "--epsilon"),
        (
            NETWORK_TOML,
            ["--epsilon", "1", "--method", "optimal", "--state-values", "0", "0.5"],
            "--state-values",
        ),
        (NETWORK_TOML, ["--epsilon", "1", "--counted", "5"], "--counted"),
        ('[model]\nkind = "markov"\nn = 5\ngamma = [2.0, 3.0]\n', ["--epsilon", "1"], "model"),
        ('[model]\nkind = "gaussian"\nn = 3\nrho = 0.3\n', ["--epsilon", "1"], "model.kind"),
        ("[run]\nseed = 1\n", ["--epsilon", "1"], "config"),
    ],
)
def test_cli_bad_arguments_one_line_exit_2(tmp_path, capsys, text, args, field):
    assert main(["calibrate", "config", _config(tmp_path, text), *args]) == 2
    err = capsys.readouterr()
    assert err.out == "" and len(err.err.strip().splitlines()) == 1 and f"{field} = " in err.err
