"""The Markov Quilt mechanism: on chains, its family search, setup and Bayesian networks."""

from __future__ import annotations

from .chain import QuiltResult, quilt_scores, approx_max_influence, mqm_approx_search, exact_max_influence_binary, exact_max_influence_multi, mqm_exact_search_binary, mqm_exact_search_multi, mqm_approx, mqm_exact  # noqa: F401  (re-exported: the module this package replaces; documented there)
