"""Audit statistics: events, their search, binomial certificates."""

from __future__ import annotations

from .certificates import Sampler, SELECTION_STUDY, plan_certification, Certificate, point_estimate, certify_counts, count_event, certify, AuditResult, audit_adversary, ConfigurationAudit, certify_top, audit_configuration  # noqa: F401  (re-exported: the module this package replaces; documented there)
