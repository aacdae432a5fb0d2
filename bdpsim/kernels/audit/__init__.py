"""Audit statistics: events, their search, binomial certificates."""

from __future__ import annotations

from .certificates import (  # noqa: F401  (re-exported: the module this package replaces; documented there)
    SELECTION_STUDY,
    AuditResult,
    Certificate,
    ConfigurationAudit,
    Sampler,
    audit_adversary,
    audit_configuration,
    certify,
    certify_counts,
    certify_top,
    count_event,
    plan_certification,
    point_estimate,
)
