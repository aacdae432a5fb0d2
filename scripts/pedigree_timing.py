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

t0 = time.perf_counter()
rows = family_size_study()
print(f"\nfamily_size_study: {len(rows)} rows in {time.perf_counter() - t0:.1f} s")
print("m  eps  q    BDPL     (m-1)eps  |K|>=1   worst target, K, x -> x'")
for r in rows:
    print(f"{r['m']:<2} {r['epsilon']:<4} {r['allele_b']:<4} {r['bdpl']:<8.4f} {r['lower_bound']:<9.2f} "
          f"{r['bdpl_thesis_sampler']:<8.4f} {r['worst_role']} {r['worst_i']}, K={{{r['worst_known']}}}, "
          f"{r['worst_x']} -> {r['worst_x_prime']}")

t0 = time.perf_counter()
rows = generation_study()
print(f"\ngeneration_study: {len(rows)} rows in {time.perf_counter() - t0:.1f} s")
print("m  l  eps  q    3-gen    nuclear(m)  nuclear(l)  l*eps  worst (3-gen)")
for r in rows:
    print(f"{r['m']:<2} {r['core_size']:<2} {r['epsilon']:<4} {r['allele_b']:<4} {r['bdpl']:<8.4f} "
          f"{r['bdpl_nuclear_same_size']:<11.4f} {r['bdpl_nuclear_core_size']:<11.4f} {r['core_bound']:<6.2f} "
          f"{r['worst_role']} {r['worst_i']}, K={{{r['worst_known']}}}, {r['worst_x']} -> {r['worst_x_prime']}")
