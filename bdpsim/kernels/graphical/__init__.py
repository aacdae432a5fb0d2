"""Graphical-model kernels: variable elimination and junction trees."""
