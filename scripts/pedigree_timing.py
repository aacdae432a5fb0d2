"""Time the exact BDPL over all adversaries on pedigrees (issue 11: "in seconds") and print the
headline numbers of the family-size and generation studies (thesis §5.1, §5.3).

    PYTHONPATH=. python scripts/pedigree_timing.py
"""

import time

from bdpsim.genomic import exhaustive_pedigree_count, worst_adversary
from bdpsim.genomic_study import family_size_study, generation_study
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models.pedigree import PedigreeModel


def timed(model, label):
    mech = LaplaceCount(1.0, (0,))
    t0 = time.perf_counter()
    res = exhaustive_pedigree_count(model, mech)
    dt = time.perf_counter() - t0
    j = worst_adversary(res)
    print(f"{label}: {len(res)} adversary classes ({res.multiplicity.sum():.4g} adversaries), "
          f"{dt:.3f} s, BDPL = {res.value.max():.4f} (eps = 1, q = 0.3), worst {res.adversary(j)}")


timed(PedigreeModel.nuclear(12, 0.3), "nuclear family of 12")
timed(PedigreeModel.three_generation(10, 0.3), "three-generation family of 10")


def table(name, study, header, fmt):
    t0 = time.perf_counter()
    rows = study()
    print(f"\n{name}: {len(rows)} rows in {time.perf_counter() - t0:.1f} s\n{header}")
    for r in rows:
        print(fmt.format(**r) + f" {r['worst_role']} {r['worst_i']}, K={{{r['worst_known']}}}, "
              f"{r['worst_x']} -> {r['worst_x_prime']}")


table("family_size_study", family_size_study,
      "m  eps  q    BDPL     (m-1)eps  |K|>=1   worst target, K, x -> x'",
      "{m:<2} {epsilon:<4} {allele_b:<4} {bdpl:<8.4f} {lower_bound:<9.2f} {bdpl_thesis_sampler:<8.4f}")
table("generation_study", generation_study,
      "m  l  eps  q    3-gen    nuclear(m)  nuclear(l)  l*eps  worst (3-gen)",
      "{m:<2} {core_size:<2} {epsilon:<4} {allele_b:<4} {bdpl:<8.4f} {bdpl_nuclear_same_size:<11.4f} "
      "{bdpl_nuclear_core_size:<11.4f} {core_bound:<6.2f}")
