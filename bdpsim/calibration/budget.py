"""Up-front run-time estimates of the calibration's costly steps, and the refusal they allow.

Two steps can take long: the exact engine's window scan (:func:`bdpsim.kernels.chains.window_scan.scan`;
its cost does not depend on ``n`` but grows like ``s^4 (lmax + 1)^3``: 50 states or a slowly
mixing chain take minutes per scan, and the exact calibration runs about
:data:`EXACT_SEARCHES` of them) and MQMExact (the authors' node-by-node search, linear in ``n``
and in ``s^2``). :func:`calibrate <bdpsim.calibration.calibrate>` with a ``budget`` (seconds)
estimates them from per-unit costs measured on a 2-core machine
(``scripts/benchmarks/benchmark_calibrate.py``) and raises :class:`TooSlow` instead of starting a step
whose estimate exceeds the budget; ``bdpsim calibrate`` sets the budget (:data:`CLI_BUDGET`), the
library's default is no budget.
"""

from __future__ import annotations

import time

import numpy as np

from ..core.errors import ConfigError
from ..kernels.chains.lattice import lattice

#: seconds per unit of window-scan work (law rows times lattice length, see :func:`scan_seconds`)
SCAN_SECONDS_PER_UNIT = 1.0e-7
#: seconds per (target pair, window length) step of the scan (Python overhead)
SCAN_SECONDS_PER_STEP = 5.0e-5
#: window searches of the exact calibration's bracketing search (typically 8 to 12)
EXACT_SEARCHES = 10
#: MQMExact seconds per node: fixed part and per column of the max-influence grid (2 for the
#: binary variant, ``s^2`` for the multi-state one)
MQM_NODE_SECONDS = 1.0e-4
MQM_COLUMN_SECONDS = 2.0e-5
#: budget (estimated seconds) of ``bdpsim calibrate``: at most about twice that on a loaded machine
CLI_BUDGET = 120.0
#: cost of one window search with another noise law, relative to Laplace noise (measured by
#: ``scripts/benchmarks/benchmark_gaussian.py``: the Gaussian privacy profile's certified hockey-stick
#: divergence per law pair, both directions at once, against the Laplace closed form)
NOISE_SCAN_FACTOR = {"gaussian": 12.0}


class TooSlow(ConfigError):
    """A step whose estimated run time exceeds the budget: ``field = value: <method> needs ~T
    (why); at most ... (what to change)``."""


def duration(seconds: float) -> str:
    """``seconds`` for a reader: ``"40 s"``, ``"12 min"``, ``"3.5 h"``, ``"20 days"``."""
    if seconds < 600:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


def scan_seconds(model, values, search: dict) -> tuple[float, str]:
    """Estimated seconds of one window search (:func:`bdpsim.models.markov.window.window_search`)
    of ``model`` and the query ``values`` with the options ``search``, and what it depends on.

    Returns
    -------
    seconds : float
    why : str
        e.g. ``"window scan over 50 states, <= 17 unknowns per side"``.
    """
    from ..models.markov.window import DEFAULT_TOLERANCE, validated_search

    _, _, lim = validated_search(
        model,
        1.0,
        int(search.get("min_known", 0)),
        search.get("targets"),
        search.get("window_limit", "auto"),
        search.get("tolerance", DEFAULT_TOLERANCE),
    )
    s, n = model.states, model.n
    lmax = n - 1 if lim is None else lim
    D = int(lattice(np.asarray(values, dtype=float))[0].max())
    pairs = s * (s - 1) // 2
    units = float(pairs) * (s + 1) ** 2 * D * float(lmax + 1) ** 3
    seconds = SCAN_SECONDS_PER_UNIT * units + SCAN_SECONDS_PER_STEP * pairs * float(lmax + 1) ** 2
    return seconds, f"window scan over {s} states, <= {lmax} unknowns per side"


def check_exact(
    model, values, search: dict, budget: float | None, searches: int = EXACT_SEARCHES, noise: str = "laplace"
) -> None:
    """Raise :class:`TooSlow` (field ``--transition``) if ``searches`` window searches with
    ``noise`` (:data:`NOISE_SCAN_FACTOR` times a Laplace search) are estimated to exceed
    ``budget`` seconds."""
    if budget is None:
        return
    one, why = scan_seconds(model, values, search)
    factor = NOISE_SCAN_FACTOR.get(noise, 1.0)
    if factor != 1.0:
        one, why = one * factor, f"{why}, {noise} noise ~{factor:g}x a Laplace scan"
    if searches * one > budget:
        raise TooSlow(
            "--transition",
            f"{model.states} states",
            f"exact needs ~{duration(searches * one)} ({why}, ~{duration(one)} per search, "
            f"~{searches} searches); at most ~{duration(budget)} allowed (a chain with fewer "
            "states or faster mixing, or a --method without the exact search)",
        )


def mqm_exact_seconds(states: int, T: int) -> float:
    """Estimated seconds of MQMExact (:func:`bdpsim.calibration.quilt.chain.mqm_exact`) on a chain of
    ``states`` states and length ``T``."""
    return max(T - 2, 0) * _mqm_node_seconds(states)


def _mqm_node_seconds(states: int) -> float:
    cols = 2 if states == 2 else states * states
    return MQM_NODE_SECONDS + MQM_COLUMN_SECONDS * cols


def check_mqm_exact(states: int, T: int, budget: float | None) -> float | None:
    """Raise :class:`TooSlow` (field ``--n``) if MQMExact is estimated to exceed ``budget``
    seconds; else return the deadline (``time.monotonic()`` value) after which the running search
    gives up (twice the budget), ``None`` without a budget."""
    if budget is None:
        return None
    est = mqm_exact_seconds(states, T)
    if est > budget:
        per = _mqm_node_seconds(states)
        most = int(budget / per) + 2
        raise TooSlow(
            "--n",
            T,
            f"markov-quilt-exact needs ~{duration(est)} (the authors' node-by-node "
            f"search, ~{per * 1e3:.2g} ms per record with {states} states); at most "
            f"{most} records in ~{duration(budget)} (use a smaller --n)",
        )
    return time.monotonic() + 2 * budget
