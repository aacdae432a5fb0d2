"""Time the privacy accountant end to end (bdpsim.account) on the three speed targets of its issue."""

from __future__ import annotations

import argparse
import time

import numpy as np

import bdpsim
from bdpsim.accounting import Release, account
from bdpsim.kernels.noise.laws import GaussianNoise, LaplaceNoise
from bdpsim.queries import CountQuery, SumQuery


def timed(label: str, fn, limit: float) -> float:
    t = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t
    print(f"{label}: {dt:.2f} s (target <= {limit:g} s; {dt / limit:.2f} of it) -> {out}", flush=True)
    return dt


def gaussian_records() -> None:
    n = 10
    cov = 0.6 ** np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    model = bdpsim.GaussianModel(np.zeros(n), cov)
    rel = [Release(SumQuery(), GaussianNoise(5.0))] * 50

    def run():
        acc = account(model, rel, targets=(0.0, 1.0))
        return acc.delta(1.0).text(), acc.renyi(2.0).text()

    timed(f"Gaussian records n = {n}, 50 releases, every adversary", run, 1.0)


def chain_gaussian(gamma: float) -> None:
    model = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(gamma), n=288)
    rel = [Release(CountQuery((1,)), GaussianNoise(3.0))] * 10
    timed(
        f"thesis chain gamma = {gamma:g}, n = 288, 10 Gaussian counts, delta(1) over every adversary",
        lambda: account(model, rel).delta(1.0).text(),
        30.0,
    )


def chain_laplace(gamma: float) -> None:
    model = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(gamma), n=288)
    rel = [Release(CountQuery((1,)), LaplaceNoise(10.0))] * 10
    timed(
        f"thesis chain gamma = {gamma:g}, n = 288, 10 Laplace counts (b = 10), delta(1) to width <= 0.005",
        lambda: account(model, rel).delta(1.0).text(),
        300.0,
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--gamma", type=float, nargs="+", default=[2.0, 5.0])
    p.add_argument("--skip-laplace", action="store_true")
    a = p.parse_args()
    gaussian_records()
    for g in a.gamma:
        chain_gaussian(g)
    if not a.skip_laplace:
        for g in a.gamma:
            chain_laplace(g)


if __name__ == "__main__":
    main()
