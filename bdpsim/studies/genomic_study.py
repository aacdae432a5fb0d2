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

from ..bounds import genomic_lower_bound
from ..mechanisms import LaplaceCount
from ..models.pedigree import GENOTYPES, PedigreeModel, genotype_states
from ..models.pedigree_exact import exhaustive_pedigree_count, worst_adversary


def role(model: PedigreeModel, i: int) -> str:
    """``"founder"`` (no parents), ``"child"`` (parents, no children) or ``"child+parent"``."""
    if not model.parents[i]:
        return "founder"
    return "child+parent" if i in model.core else "child"


def _exact(model: PedigreeModel, epsilon: float, counted: tuple[int, ...]) -> dict:
    """Exact BDPL over all adversaries and over ``|K| >= 1``, with the worst adversary."""
    res = exhaustive_pedigree_count(model, LaplaceCount(epsilon, counted))
    j = worst_adversary(res)
    adv = res.adversary(j)
    top = float(res.value.max())
    thesis = res.value[res.known_size >= 1]
    return {
        "bdpl": top,
        "bdpl_over_eps": top / epsilon,
        "bdpl_thesis_sampler": float(thesis.max()) if thesis.size else math.nan,
        "worst_i": adv.i,
        "worst_role": role(model, adv.i),
        "worst_known_size": int(res.known_size[j]),
        "worst_known": ";".join(f"{k}={GENOTYPES[v]}" for k, v in zip(adv.known, adv.x_known)),
        "worst_x": GENOTYPES[int(adv.x)],
        "worst_x_prime": GENOTYPES[int(adv.x_prime)],
        "worst_argmax": float(res.argmax[j]),
        "worst_ties": int((res.value >= top - 1e-9 * max(1.0, top)).sum()),
        "classes": len(res),
    }


def family_size_study(sizes: Iterable[int] = range(3, 13), epsilons: Sequence[float] = (0.5, 1.0, 2.0),
                      allele_bs: Sequence[float] = (0.1, 0.3, 0.5),
                      counted: Sequence = ("BB",)) -> list[dict]:
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
                rows.append({"m": int(m), "epsilon": float(eps), "allele_b": float(q),
                             "counted": "+".join(GENOTYPES[s] for s in states),
                             **_exact(model, eps, states),
                             "lower_bound": genomic_lower_bound(m, eps), "general_bound": m * eps})
    return rows


def generation_study(sizes: Iterable[int] = range(5, 11), epsilons: Sequence[float] = (0.5, 1.0, 2.0),
                     allele_bs: Sequence[float] = (0.1, 0.3, 0.5),
                     counted: Sequence = ("BB",)) -> list[dict]:
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
                rows.append({
                    "m": int(m), "core_size": core, "epsilon": float(eps), "allele_b": float(q),
                    "counted": "+".join(GENOTYPES[s] for s in states),
                    "parents": repr(family.parents),
                    **_exact(family, eps, states),
                    "bdpl_nuclear_same_size": _exact(PedigreeModel.nuclear(m, q), eps, states)["bdpl"],
                    "bdpl_nuclear_core_size": _exact(PedigreeModel.nuclear(core, q), eps, states)["bdpl"],
                    "lower_bound": genomic_lower_bound(m, eps), "general_bound": m * eps,
                    "core_bound": core * eps})
    return rows
