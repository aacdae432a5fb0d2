"""Randomized response: the mechanism, its core, direct and window exact engines."""

from __future__ import annotations

from .mechanism import RandomizedResponse, RandomizedResponseKind, randomized_response_bdpl  # noqa: F401  (re-exported: the module this package replaces; documented there)
