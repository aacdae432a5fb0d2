"""General Markov Quilt mechanism on Bayesian networks: the chain MQMExact's sigma, every searched
quilt a Markov quilt with the brute-force max-influence, and the estimated-parameter chain MQM."""

import math

import numpy as np
import pytest

from bdpsim.calibration.quilt.bayesnet import QuiltContext, mqm_bayesnet, mqm_estimated, quilt_family
from bdpsim.calibration.quilt.chain import (
    authors_eigengap,
    authors_stationary,
    exact_ratios_multi,
    mqm_approx,
    mqm_approx_search,
    mqm_exact,
    mqm_exact_search_multi,
    node_probabilities,
)
from bdpsim.core.errors import ConfigError
from bdpsim.models import MarkovChainModel
from bdpsim.models.bayesnet.build import build
from bdpsim.models.bayesnet.model import BayesNetModel

from ..conftest import write_toml
from ..models.test_bayesnet import DIAMOND, full_joint, random_network
from ..support.bad_input import RUN_EXACT, one_line

SYM = [[0.75, 0.25], [0.25, 0.75]]
ACTIVITY = [[0.882, 0.118], [0.305, 0.695]]
THREE = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]]


def chain(P, T):
    P = np.array(P, dtype=float)
    return BayesNetModel.from_markov(MarkovChainModel(P, T, authors_stationary(P)))


@pytest.mark.parametrize(
    "P,T,eps,exact",
    [
        (SYM, 100, 1.0, 9.337396),
        (ACTIVITY, 288, 1.0, 14.813017989836839),
        ([[0.9, 0.1], [0.4, 0.6]], 50, 2.0, 4.913536308214106),
        ([[0.7, 0.3], [0.4, 0.6]], 100, 1.0, 5.130649681555968),
        ([[0.3, 0.7], [0.6, 0.4]], 40, 0.5, None),
        (ACTIVITY, 30, 5.0, None),
    ],
)
def test_binary_chains_give_the_chain_mqm_exact_sigma(P, T, eps, exact):
    """The authors protect records 2..T-1 (1-indexed); with the same node marginals (chain started
    at the first row of P^100) the junction-tree family is their quilt family."""
    ref = mqm_exact(P, T, eps).sigma
    if exact is not None:
        assert ref == pytest.approx(exact, abs=1e-6)
    res = mqm_bayesnet(chain(P, T), eps, records=range(1, T - 1))
    assert res.sigma == pytest.approx(ref, rel=1e-12)
    assert res.family[T // 2] == "per-branch depths"


@pytest.mark.parametrize(
    "P,T,eps",
    [(THREE, 100, 1.0), (THREE, 60, 3.0), ([[0.5, 0.3, 0.2], [0.25, 0.5, 0.25], [0.2, 0.2, 0.6]], 40, 2.0)],
)
def test_multi_state_chains_are_the_multi_code_with_exact_marginals(P, T, eps):
    """The multi-state MATLAB replaces P(X_i = t)/P(X_i = s) by its worst case over start laws; with
    the exact marginal ratios in that slot it is the exact max-influence, and equals the network's
    sigma; the authors' value is an upper bound."""
    P = np.array(P)
    down, up1, _ = exact_ratios_multi(P, T)
    c = node_probabilities(T, P, authors_stationary(P))
    k = P.shape[0]
    up2 = np.ones((T, k * k))
    for s in range(k):
        for t in range(k):
            up2[:, s * k + t] = c[:, t] / c[:, s]
    ref = mqm_exact_search_multi(down, up1, up2, eps, T).sigma
    res = mqm_bayesnet(chain(P, T), eps, records=range(1, T - 1))
    assert res.sigma == pytest.approx(ref, rel=1e-12)
    assert res.sigma <= mqm_exact(P, T, eps).sigma + 1e-12


def test_end_records_and_stationary_chains():
    """Protecting every record (ends included) never lowers sigma; for a stationary chain the end
    records need no more noise than the inner ones."""
    m = chain(SYM, 40)
    inner = mqm_bayesnet(m, 1.0, records=range(1, 39))
    full = mqm_bayesnet(m, 1.0)
    assert full.sigma >= inner.sigma - 1e-12
    assert full.sigma == pytest.approx(inner.sigma, rel=1e-12)
    assert full.sigma_per_record[0] <= full.sigma + 1e-12


def _brute_influence(xs, pr, i, Q):
    Q = list(Q)
    if not Q:
        return 0.0
    s = int(xs[:, i].max()) + 1
    key = np.unique(xs[:, Q], axis=0, return_inverse=True)[1].ravel()
    tab = np.zeros((s, key.max() + 1))
    np.add.at(tab, (xs[:, i], key), pr)
    pos = tab.sum(axis=1) > 0
    tab = tab[pos] / tab[pos].sum(axis=1, keepdims=True)
    best = -math.inf
    for a in range(len(tab)):
        for b in range(len(tab)):
            if a != b:
                use = tab[a] > 0
                with np.errstate(divide="ignore"):
                    best = max(best, float(np.max(np.log(tab[a, use]) - np.log(tab[b, use]))))
    return max(best, 0.0)


def _conditionally_independent(xs, pr, i, Q, R):
    """``X_R ⊥ X_i | X_Q`` by brute force: ``P(r, q, i) P(q) = P(r, q) P(q, i)``."""
    if not R:
        return True

    def table(cols):
        key = (
            np.unique(xs[:, cols], axis=0, return_inverse=True)[1].ravel() if cols else np.zeros(len(xs), int)
        )
        return key

    kq, kr, ki = table(list(Q)), table(list(R)), xs[:, i]
    joint = {}
    for a, b, c, p in zip(kr, kq, ki, pr):
        joint[(a, b, c)] = joint.get((a, b, c), 0.0) + p
    pq = np.bincount(kq, pr)
    prq = {}
    pqi = {}
    for (a, b, c), p in joint.items():
        prq[(a, b)] = prq.get((a, b), 0.0) + p
        pqi[(b, c)] = pqi.get((b, c), 0.0) + p
    return all(abs(p * pq[b] - prq[(a, b)] * pqi[(b, c)]) < 1e-12 for (a, b, c), p in joint.items())


def ladder(rng, k):
    """Two rails a_t -> a_{t+1}, b_t -> b_{t+1} with rungs a_t -> b_t: loops everywhere, and no
    node separates its left from its right alone (the branches are not separable)."""
    parents = []
    for t in range(k):
        parents.append([2 * t - 2] if t else [])
        parents.append(([2 * t - 1] if t else []) + [2 * t])
    cpt = [rng.dirichlet(np.ones(2), size=(2,) * len(pa)) for pa in parents]
    return BayesNetModel(parents, cpt, records=[j for j in range(2 * k) if j % 4 != 3])


@pytest.mark.parametrize("kind", ["diamond", "random", "random-zeros", "ladder"])
def test_every_quilt_is_a_markov_quilt_with_the_brute_force_influence(kind):
    rng = np.random.default_rng({"diamond": 0, "random": 1, "random-zeros": 2, "ladder": 3}[kind])
    if kind == "diamond":
        m = build(DIAMOND)
    elif kind == "ladder":
        m = ladder(rng, 4)
    else:
        m = random_network(rng, nodes=8, records=6, zeros=0.15 if kind == "random-zeros" else 0.0)
    xs, pr = full_joint(m)
    ctx = QuiltContext(m)
    seen_separable = set()
    for r in range(m.n):
        node = m.records[r]
        seen_separable.add(ctx.node(node).separable)
        fam = quilt_family(m, r)
        assert any(q["quilt"] == () and q["card"] == len(set(m.records) & (set(q["nearby"]))) for q in fam)
        for q in fam:
            Q, N, R = q["quilt"], q["nearby"], q["remote"]
            assert node in N and not set(Q) & set(N) and sorted(Q + N + R) == list(range(m.size))
            assert _conditionally_independent(xs, pr, node, Q, R)
            assert q["influence"] == pytest.approx(_brute_influence(xs, pr, node, Q), abs=1e-10)
            assert q["card"] == len(set(m.records) & set(N))
        for eps in (0.5, 2.0, 8.0):
            with np.errstate(divide="ignore", invalid="ignore"):
                scores = [
                    q["card"] / (eps - q["influence"]) if q["influence"] <= eps else math.nan for q in fam
                ]
            assert mqm_bayesnet(m, eps, records=[r]).sigma == pytest.approx(np.nanmin(scores), rel=1e-12)
    if kind == "ladder":
        assert False in seen_separable


def test_independent_records_and_tiny_epsilon():
    m = BayesNetModel([[], [], []], [[0.3, 0.7], [0.5, 0.5], [0.1, 0.9]])
    assert mqm_bayesnet(m, 2.0).sigma == pytest.approx(0.5)
    d = build(DIAMOND)
    assert mqm_bayesnet(d, 1e-3).sigma == pytest.approx(5 / 1e-3)  # only the trivial quilt is valid
    det = BayesNetModel([[], [0]], [[1.0, 0.0], [[0.5, 0.5], [0.5, 0.5]]])
    assert mqm_bayesnet(det, 1.0, records=[0]).sigma == 0.0  # nothing to hide


def test_hidden_nodes_are_not_counted():
    """HMM: the quilt can be hidden states; card(X_N) counts observations only."""
    h = BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.8, 0.2], [0.3, 0.7]], 30)
    res = mqm_bayesnet(h, 1.0)
    assert res.nearby <= 30 and set(res.quilt) <= set(h.hidden) | set(h.records)
    fam = quilt_family(h, 15)
    assert max(q["card"] for q in fam) == 30 and all(q["card"] <= 30 for q in fam)


def test_bad_inputs():
    d = build(DIAMOND)
    with pytest.raises(ConfigError, match=r"^epsilon = 0: must be a finite number > 0$"):
        mqm_bayesnet(d, 0)
    with pytest.raises(ConfigError, match=r"^records = \[7\]: must be a non-empty list"):
        mqm_bayesnet(d, 1.0, records=[7])
    with pytest.raises(ConfigError, match=r"^record = 9: must be a record"):
        quilt_family(d, 9)


# ----------------------------------------------------------------------------- paper §5


def test_estimated_parameters_are_the_authors_search():
    assert mqm_estimated(5000, 1.0, 0.05, 0.1).sigma == mqm_approx_search(0.05, 0.1, 1.0, 5000).sigma
    P = np.array(ACTIVITY)
    true = mqm_estimated(288, 1.0, float(authors_stationary(P).min()), authors_eigengap(P), transition=P)
    assert true.sigma == pytest.approx(mqm_approx(P, 288, 1.0).sigma, rel=1e-12)
    lower = mqm_estimated(288, 1.0, 0.1, 0.2, transition=P)
    assert lower.sigma >= true.sigma and lower.parameters["pi_est"] == 0.1


def test_estimated_parameters_every_node():
    """Algorithm 1 (every node) adds at least the noise of the authors' walk (Claim B.1)."""
    fast = mqm_estimated(400, 2.0, 0.05, 0.1)
    basic = mqm_estimated(400, 2.0, 0.05, 0.1, search="all")
    assert basic.sigma >= fast.sigma - 1e-12 and len(basic.nodes_searched) == 400


@pytest.mark.parametrize(
    "kw,message",
    [
        (dict(pi_est=0.0), r"^pi_est = 0.0: must be a number in \(0, 0.5\]$"),
        (dict(g_est=1.5), r"^g_est = 1.5: must be a number in \(0, 1.0\]$"),
        (dict(pi_est=0.4, transition=ACTIVITY), r"^pi_est = 0.4: must be <= pi_min of the chain"),
        (dict(g_est=0.9, transition=ACTIVITY), r"^g_est = 0.9: must be <= the chain's eigengap"),
        (dict(search="fast"), r"^search = 'fast': must be 'authors' or 'all'$"),
    ],
)
def test_estimated_parameters_bad_inputs(kw, message):
    args = dict(pi_est=0.05, g_est=0.1) | kw
    with pytest.raises(ConfigError, match=message):
        mqm_estimated(100, 1.0, **args)


MRF = '[model]\nkind = "mrf"\nstates = 2\ncoupling = 0.5\nedges = [[0, 1], [1, 2], [2, 0], [2, 3]]\n'


@pytest.mark.parametrize(
    "mechanism, words",
    [
        (
            'kind = "markov_quilt"',
            [
                "mechanism.kind = 'markov_quilt'",
                "Bayesian network (kind = 'bayesnet')",
                "not model.kind = 'mrf'",
            ],
        ),
        ('kind = "calibrated"', ["mechanism.kind = 'calibrated'", "not model.kind = 'mrf'"]),
        ('kind = "wasserstein"', ["mechanism.kind = 'wasserstein'", "not model.kind = 'mrf'"]),
    ],
)
def test_calibrated_kinds_on_a_random_field_name_what_they_run_on(bdpsim_cli, tmp_path, mechanism, words):
    cfg = write_toml(tmp_path / "c.toml", RUN_EXACT + MRF + f"[mechanism]\n{mechanism}\nepsilon = 1.0\n")
    one_line(bdpsim_cli("validate", cfg), *words)


def test_markov_quilt_runs_on_a_bayesian_network(bdpsim_cli, tmp_path):
    """The refusal above is not a claim that only chains work: a network is calibrated."""
    bn = (
        '[model]\nkind = "bayesnet"\nstates = 2\nparents = [[], [0], [1]]\ncpt = [[0.6, 0.4], '
        "[[0.8, 0.2], [0.3, 0.7]], [[0.9, 0.1], [0.2, 0.8]]]\n"
    )
    cfg = write_toml(
        tmp_path / "c.toml", RUN_EXACT + bn + '[mechanism]\nkind = "markov_quilt"\nepsilon = 1.0\n'
    )
    assert bdpsim_cli("validate", cfg).returncode == 0
