"""Up-front run-time estimates of the calibration's costly steps, the budget they are charged to,
and the refusal it allows.

Two kinds of step can take long: the exact engine's search over every adversary (a chain's window
scan, :func:`bdpsim.models.markov.window.scan_cost`: it does not grow with ``n`` but like
``s^4 (L + 1)^3``; a network's region search; each engine estimates its own,
:class:`~bdpsim.models.engines.HasSearchCost`; the exact calibration runs about
:data:`EXACT_SEARCHES` of them) and MQMExact (the authors' node-by-node search, linear in ``n``
and in ``s^2``). :func:`calibrate <bdpsim.calibration.calibrate>` with a ``budget`` estimates each
step before it starts and raises :class:`TooSlow` instead of starting one whose estimate exceeds
what is left of the budget; ``bdpsim calibrate`` gives every method of one command one
:class:`Budget` of :data:`CLI_BUDGET` estimated seconds; the library's entry points
(:func:`bdpsim.calibrate`, :func:`~bdpsim.calibration.methods.calibrate_chain`,
:func:`~bdpsim.calibration.graphs.calibrate_graph`) one of :data:`DEFAULT_BUDGET` unless given
another (``budget=None``: no limit).

**Deterministic.** A :class:`Budget` is charged with the *estimates* of the steps that ran, never
with the time they took: which methods run, and which are "not run", depends on the command alone,
so the same command gives the same table on a loaded and on an idle machine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.errors import ConfigError, check
from ..core.shown import duration

#: window searches of the exact calibration's bracketing search (measured: 8 to 12 on chains and
#: networks, bdpsim.kernels.roots.monotone_root's Illinois steps from [Delta/eps, n Delta/eps])
EXACT_SEARCHES = 10
#: MQMExact seconds per node: fixed part and per column of the max-influence grid (2 for the
#: binary variant, ``s^2`` for the multi-state one)
MQM_NODE_SECONDS = 1.0e-4
MQM_COLUMN_SECONDS = 2.0e-5
#: budget (estimated seconds) of one ``bdpsim calibrate`` command: at most about twice that on a
#: loaded machine
CLI_BUDGET = 120.0
#: budget (estimated seconds of one core) of a library calibration given none: an hour, the limit
#: of the exact search over every adversary of a network (``budget=None`` lifts it)
DEFAULT_BUDGET = 3600.0
#: cost of one search with another noise law, relative to Laplace noise (measured by
#: ``scripts/benchmarks/benchmark_gaussian.py``: the Gaussian privacy profile's certified hockey-stick
#: divergence per law pair, both directions at once, against the Laplace closed form)
NOISE_SCAN_FACTOR = {"gaussian": 12.0}


class TooSlow(ConfigError):
    """A step whose estimated run time exceeds the budget: ``field = value: <method> needs ~T
    (why); at most ... (what to change)``."""


@dataclass
class Budget:
    """Estimated seconds of one core that the calibrations of one command may spend.

    Each costly step asks :meth:`fits` with its up-front estimate and, when it runs, is
    :meth:`charge`\\ d that estimate (not its measured time: module docstring); ``nan`` (no
    estimate) always fits and costs nothing.
    """

    seconds: float
    spent: float = 0.0
    #: how to allow more, said in a refusal (a number given to the library: ``budget=``)
    hint: str = ""

    @property
    def left(self) -> float:
        """Estimated seconds not yet charged."""
        return max(float(self.seconds) - self.spent, 0.0)

    def fits(self, estimate: float) -> bool:
        """Whether a step of ``estimate`` seconds fits in what is left (``nan``: it does)."""
        return not estimate > self.left

    def charge(self, estimate: float) -> None:
        """Charge a step that runs with its estimate (``nan``: nothing)."""
        if math.isfinite(estimate):
            self.spent += float(estimate)


def budget_of(budget: float | Budget | None) -> Budget | None:
    """``budget`` as a :class:`Budget`: a number is a new one of that many seconds (its refusal
    says how to raise it); ``None`` no budget."""
    if budget is None or isinstance(budget, Budget):
        return budget
    check(
        isinstance(budget, (int, float)) and not isinstance(budget, bool) and budget > 0,
        "budget",
        budget,
        "must be a number of estimated seconds > 0, a Budget, or None (no limit)",
    )
    return Budget(float(budget), hint=f"budget = {budget:g} estimated s: a larger one, or None for no limit")


def mqm_exact_seconds(states: int, T: int) -> float:
    """Estimated seconds of MQMExact (:func:`bdpsim.calibration.quilt.chain.mqm_exact`) on a chain of
    ``states`` states and length ``T``."""
    return max(T - 2, 0) * _mqm_node_seconds(states)


def _mqm_node_seconds(states: int) -> float:
    cols = 2 if states == 2 else states * states
    return MQM_NODE_SECONDS + MQM_COLUMN_SECONDS * cols


def check_mqm_exact(states: int, T: int, budget: Budget | None) -> None:
    """Raise :class:`TooSlow` (field ``model.n``; the command line names ``--n``) if MQMExact is
    estimated to exceed what is left of ``budget``, else charge it (nothing without a budget). The
    refusal is the estimate's alone: no clock stops the search once it started (module docstring)."""
    if budget is None:
        return
    est = mqm_exact_seconds(states, T)
    left = budget.left
    if not budget.fits(est):
        per = _mqm_node_seconds(states)
        most = int(left / per) + 2
        more = f"; {budget.hint}" if budget.hint else ""
        raise TooSlow(
            "model.n",
            T,
            f"markov-quilt-exact needs ~{duration(est)} (the authors' node-by-node "
            f"search, ~{per * 1e3:.2g} ms per record with {states} states); at most "
            f"{most} records in ~{duration(left)} (use fewer records{more})",
        )
    budget.charge(est)
