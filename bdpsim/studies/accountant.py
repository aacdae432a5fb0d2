"""Data of the gallery figure ``bdpsim-accountant``: the joint privacy profile of 1..50 releases of a
count on the thesis' symmetric chains and on a hidden Markov network, against what an accountant for
independent records would say (the per-release profiles composed as if independent; the per-release
BDPLs summed). Tidy rows, no plotting (:func:`bdpsim.figures.accounting.plot_accountant_gallery`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..accounting import Release, account
from ..kernels.noise.laws import GaussianNoise, LaplaceNoise
from ..models import MarkovChainModel, symmetric_chain
from ..models.bayesnet.model import BayesNetModel
from ..queries import CountQuery

GAMMAS = (1.0, 2.0, 5.0, 8.0)
RELEASES = (1, 2, 5, 10, 20, 50)
#: the thesis chain's length; the per-release noises (Laplace: 1-DP per release; Gaussian sd 2)
N = 20
LAPLACE_SCALE = 1.0
SIGMA = 2.0
EPSILON = 1.0


def _row(label: str, gamma: float, noise: str, k: int, acc) -> dict:
    joint = acc.delta(EPSILON)
    naive = acc.naive().composed_delta(EPSILON) if k > 1 else joint
    bd = acc.bdpl
    summed = acc.naive().summed_bdpl if k > 1 else bd
    return {
        "model": label,
        "gamma": gamma,
        "noise": noise,
        "releases": k,
        "epsilon": EPSILON,
        "delta_joint": joint.value,
        "delta_joint_lower": joint.lower,
        "delta_joint_upper": joint.upper,
        "delta_kind": joint.kind,
        "delta_composed": naive.value,
        "bdpl_joint_lower": bd.lower,
        "bdpl_joint_upper": bd.upper,
        "bdpl_summed": summed.value,
    }


def accountant_rows(
    gammas: Sequence[float] = GAMMAS,
    releases: Sequence[int] = RELEASES,
    n: int = N,
    network: bool = True,
    log: Callable[[str], None] = lambda m: None,
    noises: Sequence[str] | None = None,
) -> list[dict]:
    """One row per model, noise and number of releases: the joint ``delta(1)`` over every adversary
    (its interval and kind), the per-release profiles composed as if independent, the joint BDPL
    (bracket) and the summed per-release BDPLs; ``noises``: the laws' names (default: Laplace noise
    of scale ``LAPLACE_SCALE`` and Gaussian noise of sd ``SIGMA``, in that order)."""
    rows = []
    made = {
        law.name: Release(CountQuery((1,)), law)
        for law in (LaplaceNoise(LAPLACE_SCALE), GaussianNoise(SIGMA))
    }
    noises = tuple(made) if noises is None else noises
    for g in gammas:
        chain = MarkovChainModel(symmetric_chain(g), n=n)
        for name in noises:
            rel = made[name]
            for k in releases:
                log(f"chain gamma = {g:g}, {k} x {name}")
                rows.append(_row(f"symmetric chain, n = {n}", g, name, k, account(chain, [rel] * k, seed=k)))
    if network:
        hmm = BayesNetModel.hmm([[0.9, 0.1], [0.2, 0.8]], [[0.85, 0.15], [0.25, 0.75]], 6)
        rel = Release(CountQuery((1,)), GaussianNoise(SIGMA))
        for k in releases:
            log(f"hidden Markov network, {k} x gaussian")
            rows.append(
                _row("hidden Markov network, n = 6", float("nan"), "gaussian", k, account(hmm, [rel] * k))
            )
    return rows
