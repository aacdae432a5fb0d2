"""Print the accountant's numbers and adversaries on a fixed grid of cases (diff two trees: none moved).

Usage::

    PYTHONPATH=<tree> python scripts/checks/account_values.py [--quick] > values.jsonl

Cases: the thesis chain (gamma 2 and 8), one and ten releases of a count with Laplace, geometric and
Gaussian noise (``delta`` at eps 0, 1, 2; ``renyi(2)``; ``bdpl``; ``tpr_at(0.1)``; ``epsilon(0.05)``),
the histogram and a two-query list (the multi-component enumeration), a hidden Markov model as a
network. A number that raises prints its error line instead (also compared).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import bdpsim
from bdpsim.accounting import HistogramRelease, Release, account
from bdpsim.kernels.noise.laws import GaussianNoise, GeometricNoise, LaplaceNoise
from bdpsim.queries import CountQuery, StateSumQuery


def _shown(v) -> dict:
    a = v.adversary
    adv = None if a is None else [a.i, list(a.known), list(a.x_known), a.x, a.x_prime]
    return {
        "value": repr(v.value),
        "lower": repr(v.lower),
        "upper": repr(v.upper),
        "kind": v.kind,
        "note": v.note,
        "adversary": adv,
    }


def _asks(heavy: bool):
    asks = [
        ("delta(0)", lambda a: a.delta(0.0)),
        ("delta(1)", lambda a: a.delta(1.0)),
        ("delta(2)", lambda a: a.delta(2.0)),
        ("bdpl", lambda a: a.bdpl),
        ("tpr_at(0.1)", lambda a: a.tpr_at(0.1)),
    ]
    if not heavy:
        asks += [("renyi(2)", lambda a: a.renyi(2.0)), ("epsilon(0.05)", lambda a: a.epsilon(0.05))]
    return asks


def cases(quick: bool):
    n_big = 60 if quick else 288
    for gamma in (2.0, 8.0):
        chain = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(gamma), n=n_big)
        small = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(gamma), n=8)
        for name, noise in (
            ("laplace", LaplaceNoise(2.0)),
            ("geometric", GeometricNoise(1.0)),
            ("gaussian", GaussianNoise(3.0)),
        ):
            one = [Release(CountQuery((1,)), noise)]
            yield f"gamma={gamma:g} n={n_big} 1x {name}", chain, one, True
            ten = one * 10
            if name == "gaussian":
                yield f"gamma={gamma:g} n={n_big} 10x {name}", chain, ten, True
            elif name == "geometric":  # the enumeration of lattice releases: a small chain
                yield (
                    f"gamma={gamma:g} n=8 2x {name}",
                    small,
                    [Release(CountQuery((1,)), GeometricNoise(2.0))] * 2,
                    True,
                )
            else:  # Monte Carlo: a small chain
                yield f"gamma={gamma:g} n=8 10x {name}", small, ten, True
        yield (
            f"gamma={gamma:g} n=8 1x geometric",
            small,
            [Release(CountQuery((1,)), GeometricNoise(0.5))],
            False,
        )
    three = bdpsim.MarkovChainModel([[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]], n=6)
    four = bdpsim.MarkovChainModel(three.transition, n=4)
    yield "3 states n=4 histogram geometric", four, [HistogramRelease(GeometricNoise(2.0))], True
    two_queries = [
        Release(CountQuery((1,)), GeometricNoise(0.8)),
        Release(StateSumQuery((0.0, 1.0, 3.0)), GeometricNoise(0.6)),
    ]
    yield "3 states n=6 count + state sum geometric", three, two_queries, True
    yield (
        "3 states n=8 1x state sum gaussian",
        bdpsim.MarkovChainModel(three.transition, n=8),
        [Release(StateSumQuery((1.0, 2.0, 4.0)), GaussianNoise(1.5))],
        False,
    )
    from bdpsim.models.bayesnet.model import BayesNetModel

    hmm = BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.85, 0.15], [0.25, 0.75]], 5)
    yield "hmm n=5 1x laplace", hmm, [Release(CountQuery((1,)), LaplaceNoise(1.0))], False
    yield "hmm n=5 2x geometric", hmm, [Release(CountQuery((1,)), GeometricNoise(0.7))] * 2, True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 60 instead of 288 for the large chains")
    args = ap.parse_args()
    for label, model, releases, heavy in cases(args.quick):
        for ask, fn in _asks(heavy):
            t = time.perf_counter()
            try:
                out = _shown(fn(account(model, releases)))
            except Exception as err:  # noqa: BLE001 - the error line is part of what is compared
                out = {"error": f"{type(err).__name__}: {err}"}
            out = {"case": label, "ask": ask, **out}
            print(json.dumps(out), flush=True)
            print(f"# {label} {ask}: {time.perf_counter() - t:.2f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
