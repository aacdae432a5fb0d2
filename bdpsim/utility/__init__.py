"""Utility experiments on real data: datasets, model fitting, calibrated mechanisms (paper §7)."""
