"""What one step of a continual release may release, by name (no NumPy: the command line's
``--release`` choices and the ``continual`` kind's ``release`` key read it).

A step releases k-ary randomized response (``krr``), the supremum over every eps-DP step
(``any``), or noise of a registered law on the one-hot histogram of the step's value — any law
that is pure DP with an amount (:func:`histogram_laws`) — or, with per-state values, noise on the
value — a law with an exponential kernel (:func:`value_laws`). The laws are read from their traits
(:func:`bdpsim.kernels.noise.traits.law_names`); :mod:`bdpsim.temporal.mechanisms` builds each.
"""

from __future__ import annotations

from ..kernels.noise.traits import law_names

#: the step releases that are not noise of a law: k-ary randomized response, every eps-DP step
OWN = ("krr", "any")


def histogram_laws() -> tuple[str, ...]:
    """The noise laws a step may add to the one-hot histogram (each coordinate ``eps/2``-DP): pure
    DP with an amount (Gaussian noise is not pure DP: its leakage is infinite)."""
    return law_names(calibratable=True, pure_dp=True)


def value_laws() -> tuple[str, ...]:
    """The noise laws a step may add to a per-state value: those of :func:`histogram_laws` whose
    density is ``∝ e^{-|y|/b}`` (its outputs at the values are the extreme rays)."""
    return law_names(calibratable=True, pure_dp=True, exponential=True)


def release_names() -> tuple[str, ...]:
    """Every step release: :data:`OWN`, then :func:`histogram_laws`."""
    return OWN + histogram_laws()


__all__ = ["OWN", "histogram_laws", "release_names", "value_laws"]
