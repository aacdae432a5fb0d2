"""Pedigree models (Mendelian inheritance): the law, its kind and exact engine."""

from __future__ import annotations

from .model import (  # noqa: F401  (re-exported: the module this package replaces; documented there)
    GENOTYPES,
    MAX_CORE,
    MAX_MEMBERS,
    TRANSMISSION,
    PedigreeModel,
    genotype_state,
    genotype_states,
    hardy_weinberg,
    leaf_group_polynomial,
    polymul,
)
