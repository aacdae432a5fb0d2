"""Mechanisms as opaque user functions (``[mechanism] kind = "python"``) for the audit benchmarks.

The audit sees only ``f(data, rng) -> outputs``: nothing about the query, the noise law or its
scale. ``scripts/benchmarks/benchmark_audit.py`` and ``scripts/findings/compare_estimators.py`` load
these with ``function = "blackbox_mechanisms:<name>"`` (the config's directory is on the import path).
"""


def laplace_count(data, rng):
    """Count of state 1 plus Lap(1) (b = 1, epsilon = 1)."""
    return (data == 1).sum(axis=1) + rng.laplace(0.0, 1.0, size=data.shape[0])
