"""The two output laws of an adversary, from the pair's exact engine: the one way the attack
quantities reach bdpsim's exact computations.

An adversary ``(i, K, x_K, x, x')`` compares ``P``, the output law given ``X_K = x_K, X_i = x``,
with ``Q`` given ``X_i = x'`` (the records outside ``K ∪ {i}`` integrated out under the data law;
thesis §3.1, paper §3). The engine of the (model, mechanism) pair
(:func:`bdpsim.models.engines.engine_for`) gives them as an
:class:`~bdpsim.models.pairs.OutputPair` (:class:`~bdpsim.models.engines.HasOutputPair`):

* "query + noise" on a chain, a network, a random field, a pedigree, or any kind writing its
  ``query_laws``: the query's exact laws on its lattice plus the noise law
  (:class:`~bdpsim.models.pairs.LatticePair`);
* Gaussian records with an unclipped sum and Gaussian noise ``N(0, sigma^2)``: the output given the
  adversary's knowledge is normal, ``N(m(x), v + sigma^2)`` (Schur complement), so the pair is one
  normal law shifted by ``mu = |m(x) - m(x')| / sqrt(v + sigma^2)`` (``mu``-GDP,
  :class:`~bdpsim.models.pairs.ShiftPair`);
* randomized response on a binary chain: the flipped count's two laws on ``0..n``
  (:class:`~bdpsim.models.pairs.FinitePair`).
"""

from __future__ import annotations

from ..adversary import Adversary
from ..models.engines import PairEngine, use_engine
from ..models.pairs import FinitePair as FinitePair
from ..models.pairs import LatticePair as LatticePair
from ..models.pairs import OutputPair
from ..models.pairs import ShiftPair as ShiftPair
from .worst import output_pair


def output_laws(model, mechanism, adversary: Adversary, engine: PairEngine = None) -> OutputPair:
    """The adversary's two output laws by the pair's exact engine (``engine``: the one a caller
    built; ``None``: a new one).

    Raises
    ------
    NotAvailable
        When the pair has no exact engine or its engine no exact output laws, or a conditioning
        event has probability zero.
    """
    if not isinstance(adversary, Adversary):
        raise TypeError(f"adversary = {adversary!r}: must be a bdpsim.Adversary")
    return output_pair(use_engine(engine, model, mechanism), adversary)


__all__ = ["output_laws"]  # the pairs are documented in bdpsim.models.pairs
