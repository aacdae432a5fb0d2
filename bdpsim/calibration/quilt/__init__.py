"""The Markov Quilt mechanism: on chains, its family search, setup and Bayesian networks."""

from __future__ import annotations

from .chain import (  # noqa: F401  (re-exported: the module this package replaces; documented there)
    QuiltResult,
    approx_max_influence,
    exact_max_influence_binary,
    exact_max_influence_multi,
    mqm_approx,
    mqm_approx_search,
    mqm_exact,
    mqm_exact_search_binary,
    mqm_exact_search_multi,
    quilt_scores,
)
