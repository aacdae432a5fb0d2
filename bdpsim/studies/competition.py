"""The competition, measured: every way to protect a count on a Markov chain, under BDP.

For a chain, a length ``T`` and a target ``eps``, each method prescribes noise for the count of
state 1, and bdpsim computes the **exact BDPL over all adversaries** of what it prescribes:

* Laplace mechanisms ``count + Lap(b)`` — ``exact`` (the smallest eps-BDP scale), the bounds
  ``general``, ``markov``, ``zhao``, the Pufferfish mechanisms ``markov-quilt-approx``,
  ``markov-quilt-exact``, ``wasserstein`` and the ``group`` DP baseline
  (:data:`bdpsim.calibration.CALIBRATION_METHODS`); their BDPL by the window search
  (:func:`bdpsim.models.markov.window.window_search`, truncation tolerance :data:`SEARCH_TOLERANCE`).
* ``randomized-response``: Chakrabarti et al.'s flip probability for the symmetric chains
  (:mod:`bdpsim.mechanisms.randomized_response.mechanism`; not defined for the asymmetric activity chain);
  its exact
  BDPL by the window search over windows and outside compositions. Its noise is not Laplace:
  ``noise_std`` is the standard deviation of the debiased count's error and ``scale`` the Laplace
  scale with that standard deviation (``noise_std / sqrt 2``), flagged in ``scale_kind``.

``eps_bdp`` is 1 when the exact BDPL is at most ``eps`` (relative ``1e-9``), else 0.
``bdpl_no_knowledge`` is the leakage to the adversaries who know no record (``K = {}``), the
adversary of Pufferfish privacy with the secrets ``X_i = x``: a Pufferfish mechanism keeps it
below ``eps``; BDP's adversary may also know other records (``bdpl``).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..calibration import CALIBRATION_METHODS, CalibrationProblem
from ..calibration.wasserstein import markov_laws
from ..core.errors import ConfigError
from ..kernels.chains.lattice import query_values
from ..kernels.chains.transition import ACTIVITY
from ..kernels.noise.laplace_mixture import mixture_sup
from ..mechanisms.randomized_response.core import flip_for_chain, rr_noise_std
from ..mechanisms.randomized_response.direct import rr_no_knowledge_bdpl
from ..mechanisms.randomized_response.window import rr_bdpl
from ..models import MarkovChainModel, symmetric_chain
from ..pipeline import results as R
from ..pipeline.runner import RowsStudy, Unit, run_study

SEARCH_TOLERANCE = 1e-10
EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
LENGTHS = (100, 288)
LAPLACE_METHODS = (
    "general",
    "group",
    "markov",
    "zhao",
    "markov-quilt-approx",
    "markov-quilt-exact",
    "wasserstein",
    "exact",
)
GUARANTEE = {
    "exact": "eps-BDP (exact search)",
    "general": "eps-BDP (general bound, m = T)",
    "group": "group DP, one group of T records",
    "markov": "eps-BDP (Markov bound)",
    "zhao": "eps-BDP (Zhao et al. bound)",
    "markov-quilt-approx": "eps-Pufferfish (MQMApprox)",
    "markov-quilt-exact": "eps-Pufferfish (MQMExact)",
    "wasserstein": "eps-Pufferfish (Wasserstein)",
    "randomized-response": "Chakrabarti et al.'s eps",
}
#: the columns of ``competition.csv`` (:func:`competition_rows` with ``out``)
COLUMNS = [
    "chain",
    "T",
    "epsilon",
    "method",
    "mechanism",
    "guarantee",
    "scale",
    "scale_kind",
    "noise_std",
    "bdpl",
    "eps_bdp",
    "bdpl_no_knowledge",
    "bdpl_over_eps",
    "reason",
    "seconds",
]


def competition_chains() -> list[tuple[str, np.ndarray]]:
    """``(label, P)``: the activity chain and thesis Fig. 15's symmetric chains, gamma = 3, 10."""
    return [
        ("activity", np.array(ACTIVITY)),
        ("gamma = 3", symmetric_chain(3.0)),
        ("gamma = 10", symmetric_chain(10.0)),
    ]


def laplace_no_knowledge_bdpl(laws: dict, scale: float) -> float:
    """``max_{i, x, x'} sup_y |ln p(y | X_i = x) / p(y | X_i = x')|`` of ``query + Lap(scale)``
    from the conditional laws of :func:`bdpsim.calibration.wasserstein.markov_laws` (exact Laplace-mixture
    sup)."""

    best = -math.inf
    targets = sorted({i for i, _ in laws})
    for i in targets:
        vals = sorted(x for (j, x) in laws if j == i)
        for a in range(len(vals)):
            for b in range(a + 1, len(vals)):
                (c1, w1), (c2, w2) = laws[i, vals[a]], laws[i, vals[b]]
                best = max(best, mixture_sup(c1, w1, c2, w2, scale).value)
    return best


def _row(
    chain,
    T,
    eps,
    method,
    mechanism,
    scale,
    std,
    bdpl,
    reason,
    scale_kind="laplace",
    seconds=math.nan,
    no_knowledge=None,
):
    ok = math.nan if bdpl is None or not math.isfinite(bdpl) else float(bdpl <= eps * (1 + 1e-9))
    return {
        "chain": chain,
        "T": T,
        "epsilon": float(eps),
        "method": method,
        "mechanism": mechanism,
        "guarantee": GUARANTEE.get(method, method),
        "scale": math.nan if scale is None else float(scale),
        "scale_kind": scale_kind,
        "noise_std": math.nan if std is None else float(std),
        "bdpl": math.nan if bdpl is None else float(bdpl),
        "eps_bdp": ok,
        "bdpl_no_knowledge": math.nan if no_knowledge is None else float(no_knowledge),
        "bdpl_over_eps": math.nan if bdpl is None else float(bdpl) / eps,
        "reason": reason,
        "seconds": seconds,
    }


def laplace_rows(
    label: str,
    P,
    T: int,
    epsilons: Sequence[float] = EPSILONS,
    methods: Sequence[str] = LAPLACE_METHODS,
    tolerance: float = SEARCH_TOLERANCE,
) -> list[dict]:
    """Every Laplace calibration of the count of state 1 and its exact BDPL (one shared cache of
    window searches per chain, so the exact search starts from the other methods' points)."""

    model = MarkovChainModel(P, T)
    f = query_values(model.states)
    laws = markov_laws(model, f)
    cache: dict = {}
    rows = []
    for eps in epsilons:
        problem = CalibrationProblem(model, f, float(eps), {"tolerance": tolerance}, cache)
        for m in methods:
            t0 = time.perf_counter()
            c = CALIBRATION_METHODS[m].calibrate(problem)
            std = None if c.scale is None else math.sqrt(2.0) * c.scale
            seconds = time.perf_counter() - t0
            nk = None if c.scale is None else laplace_no_knowledge_bdpl(laws, c.scale)
            rows.append(
                _row(
                    label,
                    T,
                    eps,
                    m,
                    "Laplace",
                    c.scale,
                    std,
                    c.bdpl,
                    c.reason,
                    seconds=seconds,
                    no_knowledge=nk,
                )
            )
    return rows


def rr_rows(label: str, P, T: int, epsilons: Sequence[float] = EPSILONS) -> list[dict]:
    """Chakrabarti et al.'s randomized response (debiased count) and its exact BDPL."""

    model = MarkovChainModel(P, T)
    rows = []
    for eps in epsilons:
        try:
            rho = flip_for_chain(model.transition, eps)
        except ConfigError:
            rows.append(
                _row(
                    label,
                    T,
                    eps,
                    "randomized-response",
                    "randomized response",
                    None,
                    None,
                    None,
                    "not applicable: Chakrabarti et al.'s flip probability is for symmetric "
                    "(lazy) binary chains",
                    "std-equivalent",
                )
            )
            continue
        t0 = time.perf_counter()
        res = rr_bdpl(model, rho)
        std = rr_noise_std(T, rho)
        w = res.worst
        rows.append(
            _row(
                label,
                T,
                eps,
                "randomized-response",
                "randomized response",
                std / math.sqrt(2.0),
                std,
                res.bdpl,
                f"flip probability rho = {rho:.6g} (switch t = {model.transition[0, 1]:.6g}); "
                f"worst adversary: target {w.i}, {len(w.known)} known records, output {w.z} ones",
                "std-equivalent",
                time.perf_counter() - t0,
                rr_no_knowledge_bdpl(model, rho),
            )
        )
    return rows


def _case(label, P, T, eps, methods, randomized_response):
    """One (chain, T, eps): Laplace rows and the randomized-response row (a joblib task)."""
    return (
        laplace_rows(label, P, T, [eps], methods),
        rr_rows(label, P, T, [eps]) if randomized_response else [],
    )


def _chain_case(label, P, T, epsilons, methods, randomized_response):
    """One (chain, T) at every eps, one cache of window searches shared across eps: Laplace rows,
    randomized-response rows and the seconds taken (a task)."""
    t0 = time.perf_counter()
    lap = laplace_rows(label, P, T, epsilons, methods)
    rr = rr_rows(label, P, T, epsilons) if randomized_response else []
    return lap, rr, time.perf_counter() - t0


class CompetitionKind(RowsStudy):
    """The competition as a study kind (:func:`bdpsim.pipeline.runner.run_study`): one unit per
    (chain, T), its rows the Laplace rows then the randomized-response rows at every eps; one task
    (a cache of window searches shared across eps) or, ``split``, one task per eps. With an
    output directory each unit is saved in ``out/units/`` and the table is ``competition.csv``."""

    name = "competition"
    noun = "chains"
    noun_one = "chain"

    def __init__(self, chains, lengths, epsilons, methods, randomized_response, split, log=None) -> None:
        import hashlib
        import json

        self.cases = [(label, np.asarray(P, dtype=float), int(T)) for label, P in chains for T in lengths]
        self.epsilons = [float(e) for e in epsilons]
        self.methods = list(methods)
        self.rr = bool(randomized_response)
        self.split = split
        self.log = log
        self.keys = [
            hashlib.sha256(
                json.dumps([label, P.tolist(), T, self.epsilons, self.methods, self.rr]).encode()
            ).hexdigest()[:16]
            for label, P, T in self.cases
        ]

    def units(self) -> list[Unit]:
        return [Unit(f"{i:02d}", key) for i, key in enumerate(self.keys)]

    def tasks(self, unit: Unit, jobs: int) -> list[tuple[Callable, tuple]]:
        label, P, T = self.cases[int(unit.id)]
        if self.split:
            return [(_case, (label, P, T, eps, self.methods, self.rr)) for eps in self.epsilons]
        return [(_chain_case, (label, P, T, self.epsilons, self.methods, self.rr))]

    def finish(self, unit: Unit, results: list, log) -> list[dict]:
        if self.split:
            return [r for res in results for r in res[0]] + [r for res in results for r in res[1]]
        lap, rr, seconds = results[0]
        if self.log is not None:
            label, _, T = self.cases[int(unit.id)]
            self.log(f"  {label}, T = {T}: {seconds:.1f} s")
        return lap + rr

    def metadata(self, jobs: int, backend: str) -> dict:
        config = {
            "chains": [[label, P.tolist()] for label, P, _ in self.cases],
            "epsilons": self.epsilons,
            "methods": self.methods,
            "randomized_response": self.rr,
        }
        return R.metadata(self.name, config, None, argv=sys.argv, jobs=jobs, backend=backend)

    def tables(self, out: Path | None, done, status: str) -> list[dict]:
        rows = [r for u in self.units() if u.id in done for r in done[u.id]]
        if out is not None:
            R.atomic_write_text(Path(out) / "competition.csv", R.csv_text(rows, COLUMNS))
        return rows

    def remove_tables(self, out: Path) -> None:
        (Path(out) / "competition.csv").unlink(missing_ok=True)


def competition_rows(
    chains: Sequence[tuple[str, np.ndarray]] | None = None,
    lengths: Sequence[int] = LENGTHS,
    epsilons: Sequence[float] = EPSILONS,
    methods: Sequence[str] = LAPLACE_METHODS,
    randomized_response: bool = True,
    log=None,
    jobs: int = 1,
    out: str | Path | None = None,
) -> list[dict]:
    """The comparison table: one row per (chain, T, eps, method).

    Run by the one runner (:func:`bdpsim.pipeline.runner.run_study` of a
    :class:`CompetitionKind`). ``jobs > 1`` runs the (chain, T, eps) cases in parallel processes
    (each case then calibrates exactly from its own methods' window searches instead of a cache
    shared across eps; the exact scales agree to the search's relative ``1e-9``). With ``out``,
    each (chain, T) is saved as it finishes (``out/units/``), the table is written to
    ``out/competition.csv`` and ``out/metadata.json`` records the run's status; re-running
    resumes (a lock serialises runs into one ``out``).
    """
    kind = CompetitionKind(
        list(chains or competition_chains()), lengths, epsilons, methods, randomized_response, jobs > 1, log
    )
    return run_study(kind, out, jobs=jobs, progress=False, log=log or (lambda m: None))


def not_eps_bdp(rows: Sequence[dict]) -> list[dict]:
    """The rows whose prescribed noise is not eps-BDP (exact BDPL > eps)."""
    return [r for r in rows if r["eps_bdp"] == 0.0]
