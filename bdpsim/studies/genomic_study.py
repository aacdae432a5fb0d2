"""Exact-leakage studies on pedigrees (thesis §5): tidy rows, no plotting.

* :func:`family_size_study` — exact BDPL of the eps-DP Laplace count of BB on a nuclear family
  of ``m`` people (two parents, ``m - 2`` children) against the genomic lower bound
  ``(m - 1) eps`` (thesis Cor. 5.2) and the general bound ``m eps`` (paper Thm 4.3), with the
  worst adversary, and the maximum over the adversaries the thesis' sampler can draw (``|K| >= 1``,
  thesis §3.1.2).
* :func:`generation_study` — thesis §5.3's open question: does leakage follow the size ``l`` of
  the largest *core* family (a couple and their children) rather than the family size ``m``? A
  three-generation family of ``m`` people (:meth:`PedigreeModel.three_generation`) against a
  nuclear family of the same size ``m`` and a nuclear family of its core size ``l``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import cast

from ..bounds import genomic_lower_bound
from ..mechanisms import LaplaceCount
from ..models.engines import HasExhaustive, engine_for
from ..models.pedigree.model import GENOTYPES, PedigreeModel, genotype_states
from ..pipeline import seeds


def role(model: PedigreeModel, i: int) -> str:
    """``"founder"`` (no parents), ``"child"`` (parents, no children) or ``"child+parent"``."""
    if not model.parents[i]:
        return "founder"
    return "child+parent" if i in model.core else "child"


def _exact(model: PedigreeModel, epsilon: float, counted: tuple[int, ...]) -> dict:
    """Exact BDPL over all adversaries and over ``|K| >= 1``, with the worst adversary."""
    engine = cast(HasExhaustive, engine_for(model, LaplaceCount(epsilon, counted)))
    res = engine.exhaustive(range(model.n), None)  # one row per adversary class
    j = res.worst()
    adv = res.adversary(j)
    top = float(res.value.max())
    known_size = res.known_sizes()
    thesis = res.value[known_size >= 1]
    return {
        "bdpl": top,
        "bdpl_over_eps": top / epsilon,
        "bdpl_thesis_sampler": float(thesis.max()) if thesis.size else math.nan,
        "worst_i": adv.i,
        "worst_role": role(model, adv.i),
        "worst_known_size": int(known_size[j]),
        "worst_known": ";".join(f"{k}={GENOTYPES[v]}" for k, v in zip(adv.known, adv.x_known)),
        "worst_x": GENOTYPES[int(adv.x)],
        "worst_x_prime": GENOTYPES[int(adv.x_prime)],
        "worst_argmax": float(res.argmax[j]),
        "worst_ties": int((res.value >= top - 1e-9 * max(1.0, top)).sum()),
        "classes": len(res),
    }


def family_size_study(
    sizes: Iterable[int] = range(3, 13),
    epsilons: Sequence[float] = (0.5, 1.0, 2.0),
    allele_bs: Sequence[float] = (0.1, 0.3, 0.5),
    counted: Sequence = ("BB",),
) -> list[dict]:
    """One row per ``(m, eps, allele_b)``: exact BDPL of a nuclear family of ``m`` vs the bounds.

    Columns: ``m, epsilon, allele_b, counted``, the exact values of :func:`_exact` (``bdpl``,
    ``bdpl_thesis_sampler``, ``worst_*``), ``lower_bound = (m - 1) eps`` (Cor. 5.2) and
    ``general_bound = m eps`` (Thm 4.3).
    """
    states = genotype_states(list(counted))
    rows = []
    for m in sizes:
        for q in allele_bs:
            model = PedigreeModel.nuclear(m, q)
            for eps in epsilons:
                rows.append(
                    {
                        "m": int(m),
                        "epsilon": float(eps),
                        "allele_b": float(q),
                        "counted": "+".join(GENOTYPES[s] for s in states),
                        **_exact(model, eps, states),
                        "lower_bound": genomic_lower_bound(m, eps),
                        "general_bound": m * eps,
                    }
                )
    return rows


def generation_study(
    sizes: Iterable[int] = range(5, 11),
    epsilons: Sequence[float] = (0.5, 1.0, 2.0),
    allele_bs: Sequence[float] = (0.1, 0.3, 0.5),
    counted: Sequence = ("BB",),
) -> list[dict]:
    """One row per ``(m, eps, allele_b)``: three-generation family vs nuclear families.

    Columns: ``m``, ``core_size`` ``l`` (largest couple + children), the exact BDPL of the
    three-generation family (``bdpl``, ``worst_*`` as in :func:`family_size_study`), of the nuclear
    family of ``m`` (``bdpl_nuclear_same_size``) and of ``l`` (``bdpl_nuclear_core_size``), and the
    references ``lower_bound = (m - 1) eps``, ``general_bound = m eps``, ``core_bound = l eps``.
    """
    states = genotype_states(list(counted))
    rows = []
    for m in sizes:
        for q in allele_bs:
            family = PedigreeModel.three_generation(m, q)
            core = max(len(f) for f in family.core_families())
            for eps in epsilons:
                rows.append(
                    {
                        "m": int(m),
                        "core_size": core,
                        "epsilon": float(eps),
                        "allele_b": float(q),
                        "counted": "+".join(GENOTYPES[s] for s in states),
                        "parents": repr(family.parents),
                        **_exact(family, eps, states),
                        "bdpl_nuclear_same_size": _exact(PedigreeModel.nuclear(m, q), eps, states)["bdpl"],
                        "bdpl_nuclear_core_size": _exact(PedigreeModel.nuclear(core, q), eps, states)["bdpl"],
                        "lower_bound": genomic_lower_bound(m, eps),
                        "general_bound": m * eps,
                        "core_bound": core * eps,
                    }
                )
    return rows


# ------------------------------------------------------------------ thesis Fig. 17: the thesis' design

FIG17_MEAN_COUNT = 40.29
"""Thesis §8.4.1: the average true count of BB over its 1 000 data sets."""
FIG17_PEOPLE = 2504
"""Thesis §8.2: persons per data set (1000 Genomes phase 3)."""


def thesis_fig17_rows(
    family_sizes: Sequence[int] = (2, 3, 5, 10),
    epsilons: Iterable[float] = range(1, 21),
    datasets: int = 1000,
    people: int = FIG17_PEOPLE,
    mean_count: float = FIG17_MEAN_COUNT,
    beta: float = 0.05,
    seed: int = 17,
) -> list[dict]:
    """Thesis §8.3–8.4.1's design on synthetic data: ``datasets`` data sets of ``people`` persons
    (one data set = one position of the genome, drawn independently), the count of BB, the
    Laplace mechanism calibrated by the general bound for families of at most ``m`` people
    (scale ``m/eps``) and the DP baseline (scale ``1/eps``, once: it does not depend on m); **one
    mechanism run per data set**, the MSE averaged over the data sets (thesis §8.3).

    The persons form nuclear families of ``m`` (2 Hardy–Weinberg founders + ``m - 2`` Mendelian
    children, :meth:`PedigreeModel.nuclear`) and ``people mod m`` unrelated founders, so the largest
    family has ``m`` people, the thesis' meaning of m. The frequency of allele B is chosen so the
    expected count of BB is ``mean_count``: ``P(BB) = (1 - q)^2 = mean_count / people`` (Mendelian
    inheritance keeps the founders' Hardy–Weinberg frequencies). Rows have the columns of
    :mod:`bdpsim.utility.experiment` (``databases`` = data sets, ``runs`` = 1 per data set,
    ``true_value`` = the mean true count).
    """
    import numpy as np

    p_major = math.sqrt(mean_count / people)  # P(allele B); BB = both alleles B
    allele_b = 1.0 - p_major
    eps = [float(e) for e in epsilons]
    ss = seeds.node(seed)  # its i-th spawned child is seeds.node(seed, i)
    truths = {}
    for m in family_sizes:
        rng = np.random.default_rng(ss.spawn(1)[0])
        fam, rest = divmod(people, m)
        g = PedigreeModel.nuclear(m, allele_b).sample(fam * datasets, rng).reshape(datasets, fam * m)
        count = (g == 0).sum(axis=1)
        if rest:  # unrelated founders (Hardy–Weinberg)
            count = count + rng.binomial(rest, p_major**2, size=datasets)
        truths[m] = count.astype(float)
    common = {
        "dataset": "genomic",
        "sensitivity": 1.0,
        "n": people,
        "databases": datasets,
        "runs": 1,
        "clip_bias_mse": 0.0,
    }
    rows = []
    q = 1 - beta
    cases = [("dp", 1, "any family size (DP baseline)")] + [
        ("general", m, f"family size m = {m}") for m in family_sizes
    ]
    for mi, (mech, m, variant) in enumerate(cases):
        truth = truths[family_sizes[0] if mech == "dp" else m]
        for ei, e in enumerate(eps):
            tau = e if mech == "dp" else e / m
            b = 1.0 / tau
            rng = seeds.stream(seed, 17, mi, ei)
            err = np.abs(rng.laplace(0.0, b, size=datasets))  # one run per data set
            rel = err[truth > 0] / truth[truth > 0]
            rows.append(
                {
                    **common,
                    "variant": variant,
                    "mechanism": mech,
                    "epsilon": e,
                    "tau": tau,
                    "m": m,
                    "noise_scale": b,
                    "true_value": float(truth.mean()),
                    "true_value_min": float(truth.min()),
                    "true_value_max": float(truth.max()),
                    "allele_B": p_major,
                    "alpha_theory": math.log(1 / beta) * b,
                    "alpha_empirical": float(np.quantile(err, q)),
                    "mape": float(100 * rel.mean()) if rel.size else math.nan,
                    "mse": float(np.mean(err**2)),
                    "mse_theory": 2 * b * b,
                    "note": "DP baseline: not BDP under correlation; drawn once (its scale 1/eps does not "
                    "depend on m)"
                    if mech == "dp"
                    else "",
                }
            )
    return rows
