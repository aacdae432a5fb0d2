"""Randomized response: the mechanism, its core, direct and window exact engines."""

from __future__ import annotations

from .mechanism import randomized_response_bdpl, RandomizedResponse, RandomizedResponseKind  # noqa: F401  (re-exported: the module this package replaces; documented there)
