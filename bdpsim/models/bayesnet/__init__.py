"""Bayesian networks: the model, building and checking it, its kind and the adversary search."""

from __future__ import annotations

from .model import BayesNetModel  # noqa: F401  (re-exported: the module this package replaces; documented there)
