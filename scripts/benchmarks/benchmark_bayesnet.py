"""Benchmark of the Bayesian-network exact engines: prints measured times.

* one adversary's exact BDPL (Laplace count) on a random network of 1 000 nodes whose moral graph
  is a partial 3-tree (treewidth <= 3), target: < 1 s;
* one adversary on an HMM with 3 hidden states and n = 1 000 observations, target: < 1 s;
* exact conditional sampling (10^4 draws) and junction-tree marginals on both;
* the general Markov Quilt mechanism on a chain of 288 nodes.

Run: ``python scripts/benchmarks/benchmark_bayesnet.py`` (add ``--repeat 3`` for the best of 3);
``--out FILE`` also records every measurement in a JSON file (the README reads
``results/benchmarks/bayesnet.json``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from bdpsim.models.bayesnet.model import BayesNetModel
from bdpsim.models.bayesnet.search import adversary_bdpl, laplace_score


def random_ktree_network(size: int, k: int, states: int, rng: np.random.Generator) -> BayesNetModel:
    """Each new node joins a random existing k-clique of a k-tree and takes a random non-empty
    subset of it as parents: the moral graph stays inside the k-tree, so treewidth <= k."""
    parents: list[tuple[int, ...]] = [tuple(range(j)) for j in range(k + 1)]
    cliques = [tuple(c) for c in _subsets(range(k + 1), k)]
    for v in range(k + 1, size):
        base = cliques[rng.integers(len(cliques))]
        m = int(rng.integers(1, k + 1))
        parents.append(tuple(sorted(int(p) for p in rng.choice(base, size=m, replace=False))))
        cliques += [tuple(sorted(set(base) - {u})) + (v,) for u in base]
    cpt = [rng.dirichlet(np.ones(states), size=(states,) * len(pa)) for pa in parents]
    return BayesNetModel(tuple(parents), tuple(cpt))


def _subsets(items, k):
    import itertools

    return itertools.combinations(list(items), k)


def timed(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--out", type=Path, help="also write the measurements as JSON to this file")
    args = ap.parse_args()
    rec: dict = {}
    try:
        _measure(args, rec)
    finally:
        if args.out:
            from bdpsim.pipeline import results as R

            meta = R.metadata(
                "benchmark",
                config={"repeat": args.repeat},
                seed=args.seed,
                command="python scripts/benchmarks/benchmark_bayesnet.py"
                f" --repeat {args.repeat} --seed {args.seed}",
                measurements=rec,
            )
            R.atomic_write_text(args.out, json.dumps(meta, indent=1))


def _measure(args, rec: dict) -> None:
    rng = np.random.default_rng(args.seed)
    score = laplace_score(1.0)

    net, t_build = timed(lambda: random_ktree_network(1000, 3, 2, rng), 1)
    from bdpsim.kernels.graphical.elimination import plan

    p = plan([f.vars for f in net.factors()], dict(enumerate(net.node_states)), [1] * net.size)
    known = {
        int(r): int(v) for r, v in zip(rng.choice(net.n, 500, replace=False), net.sample(1, rng)[0][:500])
    }
    target = next(r for r in range(net.n) if r not in known)
    draw = net.sample(1, rng)[0]
    known = {r: int(draw[r]) for r in known}
    res, t = timed(lambda: adversary_bdpl(net, known, target, np.array([0, 1]), score), args.repeat)
    rec["network"] = {
        "nodes": 1000,
        "states": 2,
        "width": p.width,
        "known": 500,
        "bdpl": res.bdpl,
        "seconds": t,
    }
    print(
        f"random 3-tree network, 1000 nodes, 2 states (built in {t_build:.2f} s; min-fill induced "
        f"width {p.width}): one adversary (|K| = 500) exact BDPL = {res.bdpl:.6f} in {t:.3f} s"
    )
    res, t = timed(lambda: adversary_bdpl(net, {}, 500, np.array([0, 1]), score), args.repeat)
    rec["network_empty"] = {"bdpl": res.bdpl, "seconds": t}
    print(f"  same network, K = {{}}: BDPL = {res.bdpl:.6f} in {t:.3f} s")
    _, t = timed(lambda: net.sample_conditional(known, 10_000, rng), args.repeat)
    rec["network_sampling_1e4"] = t
    print(f"  exact conditional sampling, 10^4 draws given |K| = 500: {t:.3f} s")
    _, t = timed(lambda: net.marginals(known), args.repeat)
    rec["network_marginals"] = t
    print(f"  junction-tree marginals given |K| = 500: {t:.3f} s")

    P = np.array([[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]])
    E = np.array([[0.9, 0.1], [0.5, 0.5], [0.15, 0.85]])
    hmm = BayesNetModel.hmm(P, E, 1000)
    obs = hmm.sample(1, rng)[0]
    ks = rng.choice(1000, 500, replace=False)
    known = {int(r): int(obs[r]) for r in ks if r != 500}
    res, t = timed(lambda: adversary_bdpl(hmm, known, 500, np.array([0, 1]), score), args.repeat)
    rec["hmm"] = {"hidden_states": 3, "n": 1000, "known": len(known), "bdpl": res.bdpl, "seconds": t}
    print(
        f"HMM, 3 hidden states, n = 1000 observations: one adversary (|K| = {len(known)}) exact "
        f"BDPL = {res.bdpl:.6f} in {t:.3f} s"
    )
    res, t = timed(lambda: adversary_bdpl(hmm, {}, 500, np.array([0, 1]), score), args.repeat)
    rec["hmm_empty"] = {"bdpl": res.bdpl, "seconds": t}
    print(f"  same HMM, K = {{}}: BDPL = {res.bdpl:.6f} in {t:.3f} s")
    _, t = timed(lambda: hmm.sample_conditional(known, 10_000, rng), args.repeat)
    rec["hmm_sampling_1e4"] = t
    print(f"  exact conditional sampling, 10^4 draws: {t:.3f} s")

    try:
        from bdpsim.calibration.quilt.bayesnet import mqm_bayesnet
    except ImportError:
        return
    from bdpsim.calibration.quilt.chain import authors_stationary, mqm_exact
    from bdpsim.models import MarkovChainModel

    A = np.array([[0.882, 0.118], [0.305, 0.695]])
    chain = BayesNetModel.from_markov(MarkovChainModel(A, 288, authors_stationary(A)))
    res, t = timed(lambda: mqm_bayesnet(chain, 1.0, records=range(1, 287)), args.repeat)
    rec["mqm_chain_288"] = {
        "sigma": res.sigma,
        "sigma_chain_mqm_exact": mqm_exact(A, 288, 1.0).sigma,
        "seconds": t,
    }
    print(
        f"general Markov Quilt mechanism, activity chain T = 288: sigma = {res.sigma:.9f} "
        f"(chain MQMExact {mqm_exact(A, 288, 1.0).sigma:.9f}) in {t:.3f} s"
    )


if __name__ == "__main__":
    main()
