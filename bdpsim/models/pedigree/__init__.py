"""Pedigree models (Mendelian inheritance): the law, its kind and exact engine."""

from __future__ import annotations

from .model import GENOTYPES, MAX_MEMBERS, MAX_CORE, TRANSMISSION, hardy_weinberg, genotype_state, genotype_states, PedigreeModel, polymul, leaf_group_polynomial  # noqa: F401  (re-exported: the module this package replaces; documented there)
