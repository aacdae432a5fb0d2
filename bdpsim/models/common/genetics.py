"""Mendelian inheritance of one biallelic locus (thesis Table 3): the genotypes and the law of a
child's genotype given its parents' — shared by the pedigree kind and the networks built from a
pedigree (:meth:`bdpsim.models.BayesNetModel.from_pedigree`)."""

from __future__ import annotations

import numpy as np

GENOTYPES = ("BB", "Bb", "bb")


def _transmission_table() -> np.ndarray:
    """``T[g1, g2, g]``: law of a child's genotype given its parents' (thesis Table 3)."""
    passes = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])  # P(pass B), P(pass b) per genotype
    T = np.zeros((3, 3, 3))
    for g1 in range(3):
        for g2 in range(3):
            T[g1, g2] = np.convolve(passes[g1], passes[g2])
    T.setflags(write=False)
    return T


TRANSMISSION = _transmission_table()
