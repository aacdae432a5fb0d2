"""The utility frontier: the least noise any additive integer mechanism needs to be eps-BDP.

For an integer-valued additive query ``S = sum_t f(X_t)`` on a Markov chain (a count, or a state
sum whose values lie on an integer lattice) and an integer noise ``Z`` with pmf ``f``, the output
law given an adversary's knowledge is ``p(s | x_K, x) = sum_c P(S = c | x_K, x) f(s - c)``, so every
BDP condition ``p(s | x_K, x) <= e^eps p(s | x_K, x')`` is linear in ``f``. Minimising ``E|Z|``
(or ``E Z^2``) over ``f`` is a linear program: :mod:`bdpsim.kernels.noise.optimal_lp` (finite
parametrisation with geometric tails, the finite set of outputs, constraint generation, HiGHS).

**Which conditions.** The window reduction (:mod:`bdpsim.models.markov.window`) holds for every additive noise
kernel: the output law of any adversary ``(K, i)`` is a common-weight mixture of shifted output
laws of a *window* adversary (knows everything outside ``(l, r)``, nothing inside but ``x_i``).
If ``f`` satisfies the conditions of every window pair, it satisfies them for every adversary
(a ratio of mixtures with common weights is at most the largest ratio of its parts). The window
pairs are exactly the law pairs the exact engine scores (:func:`bdpsim.kernels.chains.window_scan.scan`);
they are collected once, normalised and deduplicated (pairs equal to 13 digits, either order).
With ``window_limit = "auto"`` windows longer than the truncation length are left out; the
module docstring of :mod:`bdpsim.models.markov.window` bounds what they add by
``tolerance = D_d + E_d`` for *any* noise, so the LP targets ``eps - tolerance``.

**Pedigrees, Bayesian networks, Markov random fields.** The same LP takes the law pairs the
model's exact all-adversary engine scores, collected by a recorder standing in for the noise
law: every adversary class's pair of count laws on a pedigree (:func:`pedigree_law_pairs`), and
on a network or random field the separated regions' laws ``P(X_i = x, S_R | x_∂R)`` vs ``x'`` of
:func:`bdpsim.models.bayesnet.search.bdpl_search` (:func:`network_law_pairs`; every known set's
laws where the search is exhaustive). The region reduction holds for any mechanism (a ratio of
common-weight mixtures), so meeting those pairs' conditions is meeting every adversary's; no
truncation. Networks whose search is too costly are refused up front with the estimate
(:func:`network_plan`).

**Verified, not trusted.** The LP's pmf becomes a :class:`~bdpsim.kernels.noise.table.TableNoise`
and its exact BDPL over all adversaries is computed by the exact engine
(:func:`bdpsim.models.markov.window.window_search`), independently of the LP. The LP targets
``eps - margin`` (``margin`` starting at ``1e-9``, for the solver's relative feasibility
tolerance); if the verified BDPL plus the truncation tolerance exceeds ``eps``, the margin grows
tenfold and the LP is solved again (at most 4 times), so the returned noise is eps-BDP by the exact
engine, not by the solver's word.

**The tail ratio.** With ``r`` fixed the problem is an LP; ``r`` must be at least the least ratio
whose far-tail conditions hold (:func:`~bdpsim.kernels.noise.optimal_lp.min_tail_ratio`). ``r = "auto"``
tries a few ratios from that least one up (the fastest geometric decay allowed, and a
few slower) and keeps the best; with ``M`` large the tails carry little mass and ``r`` matters
little. ``M = "auto"`` takes ``M = ceil(min(12 / -ln r_min, ln(1e10) / (eps/Delta + ln r_min)))``,
clipped to ``[8, 400]``: the tails start beyond 12 decay lengths, unless a pmf decaying at the
fastest rate the DP adversary allows (``e^{-eps/Delta}`` per step) and one decaying at ``r_min``
would then differ by more than ``1e10`` at ``M`` (the LP's scaled variables then span too wide a
range for the solver; measured: HiGHS fails beyond about ``1e11``). A larger ``M`` can only lower
``E|Z|`` (the smaller window's pmfs are among its own); at n = 6 on the activity chain ``M = 30``
and ``M = 38`` differ by 3e-5 relative. If HiGHS finds no noise at the auto ``M`` (at large ``eps`` the
floor of 8 can leave the span: the activity chain at ``eps = 10``), narrower windows are tried
(``ceil(span)``, 4, 2, 1) before the problem is called infeasible.

**Symmetry.** If the set of law pairs is closed under the mirror ``c -> -c`` (e.g. a count on a
chain whose two states are exchangeable), the mirror of a feasible ``f`` is feasible with the same
objective and so is their average: a symmetric optimum exists, and ``symmetric = None`` (auto)
imposes ``f(k) = f(-k)`` then. ``symmetric = True`` imposes it anyway (a restriction, possibly
costly); ``False`` never.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import check
from ..kernels.chains import window_scan as wk
from ..kernels.chains.lattice import lattice
from ..kernels.noise import optimal_lp as lp
from ..kernels.noise.scores import pair_score
from ..kernels.noise.table import TableNoise
from ..models.bayesnet import search as BS
from ..models.markov.model import MarkovChainModel
from ..models.markov.window import DEFAULT_TOLERANCE, _context, window_search
from ..models.pedigree.exact import exhaustive_pedigree_count
from ..models.pedigree.model import PedigreeModel
from ..models.protocols import FactorGraph, HasCountLaw, MarkovChain
from ..queries import CountQuery
from .target import check_positive

MARGINS = (1e-9, 1e-8, 1e-7, 1e-6)
RANGE = 1e10  # most ratio between the fastest (e^{-eps/Delta} per step) and slowest (r) decays over M


@dataclass(frozen=True)
class OptimalNoise:
    """The optimal noise found and its verification.

    ``noise`` the table law; ``mean_abs``, ``variance`` (``E Z^2 - (E Z)^2``), ``mean`` exactly
    (table plus tail series); ``bdpl`` its exact BDPL over all adversaries by the exact engine,
    with ``tolerance`` the engine's truncation tolerance (``bdpl <= true BDPL <= bdpl +
    tolerance``); ``lp_objective`` the LP optimum (a lower bound for this ``M`` and ``r``, up to the
    margin); ``M``, ``tail_ratio``, ``tail_ratio_min``; ``pairs`` the law pairs after
    deduplication, ``conditions`` the working set's size, ``rounds`` the generation rounds;
    ``symmetric`` whether ``f(k) = f(-k)`` was imposed; ``margin`` the LP's target
    ``eps - tolerance - margin``."""

    noise: TableNoise
    epsilon: float
    objective: str
    mean: float
    mean_abs: float
    variance: float
    bdpl: float
    tolerance: float
    lp_objective: float
    M: int
    tail_ratio: float
    tail_ratio_min: float
    pairs: int
    conditions: int
    rounds: int
    symmetric: bool
    margin: float
    seconds: float
    tried: tuple = field(default=(), repr=False)

    def as_dict(self) -> dict:
        return {
            "mean_abs": self.mean_abs,
            "variance": self.variance,
            "mean": self.mean,
            "bdpl": self.bdpl,
            "noise": self.noise.as_dict(),
            "objective": self.objective,
            "M": self.M,
            "tail_ratio_min": self.tail_ratio_min,
            "truncation_tolerance": self.tolerance,
            "pairs": self.pairs,
            "conditions": self.conditions,
            "rounds": self.rounds,
            "symmetric": self.symmetric,
        }

    def as_calibration(self, n: int, pairs: str = "law pairs", leave_out: tuple[str, ...] = ("bdpl",)):
        """The :class:`~bdpsim.calibration.methods.Calibration` row of method ``optimal`` for a model
        of ``n`` records: no Laplace scale, this exact BDPL, the reason naming the LP (its
        ``pairs``: what the law pairs are), and :meth:`as_dict` less ``leave_out`` as ``extra``."""
        from .methods import Calibration

        reason = (
            f"least {'E|Z|' if self.objective == 'mean_abs' else 'E Z^2'} integer noise that is eps-BDP "
            f"over every adversary (LP on [-{self.M}, {self.M}] with geometric tails of ratio "
            f"{self.tail_ratio:.6g}, {self.pairs} {pairs}, {self.rounds} rounds; verified by the exact "
            "engine)"
        )
        extra = {k: v for k, v in self.as_dict().items() if k not in leave_out}
        return Calibration(
            "optimal", self.epsilon, n, None, self.bdpl, reason, "table", mean_abs=self.mean_abs, extra=extra
        )


def law_pairs(
    model: MarkovChainModel,
    values,
    *,
    min_known: int = 0,
    window_limit="auto",
    tolerance: float = DEFAULT_TOLERANCE,
) -> tuple[lp.LawPairs, float]:
    """Every window law pair the exact engine scores (module docstring), normalised and deduplicated,
    on the integer lattice of the query; and the truncation tolerance of the window search."""
    _, ctx = _context(model, np.asarray(values, dtype=float), 1.0, min_known, None, window_limit, tolerance)
    delta = float(ctx["delta"])
    check(
        abs(delta - round(delta)) <= 1e-9 * max(1.0, delta) and round(delta) >= 1,
        "state_values",
        np.asarray(values).tolist(),
        "optimal integer noise needs integer query values (a count, or integer state values)",
    )
    got = []

    def record(W1, W2):
        got.append((np.array(W1, dtype=float), np.array(W2, dtype=float)))
        return np.zeros(W1.shape[0]), np.zeros(W1.shape[0])

    wk.scan(
        model.transition, np.asarray(model.initial), ctx["g"], math.nan, ctx["lmax"], ctx["ok"], score=record
    )
    J = max(a.shape[1] for a, _ in got)
    pad = [
        np.vstack([np.pad(a, ((0, 0), (0, J - a.shape[1]))) for a, _ in got]),
        np.vstack([np.pad(b, ((0, 0), (0, J - b.shape[1]))) for _, b in got]),
    ]
    last = np.flatnonzero(((pad[0] > 0) | (pad[1] > 0)).any(axis=0))[-1]
    W1, W2 = lp.dedupe(pad[0][:, : last + 1], pad[1][:, : last + 1])
    return lp.LawPairs(W1, W2, int(round(delta))), float(ctx["tolerance"])


@dataclass(frozen=True)
class PedigreeCount:
    """A pedigree count mechanism (the :class:`~bdpsim.queries.NoisyQuery` protocol) for the exact engine."""

    query_function: CountQuery
    noise: object
    kind: str = "count"


class _Recorder:
    """A stand-in noise law whose ``grid_sup`` records the count-law pairs the pedigree engine scores."""

    def __init__(self) -> None:
        self.got: list = []

    def grid_sup(self, W1, W2, delta):
        self.got.append((np.array(W1, dtype=float), np.array(W2, dtype=float)))
        return np.zeros(W1.shape[0]), np.zeros(W1.shape[0])


def pedigree_counted(values) -> tuple[int, ...]:
    v = np.asarray(values, dtype=float)
    check(
        v.shape == (3,) and bool(np.all((v == 0) | (v == 1))) and v.any() and not v.all(),
        "state_values",
        v.tolist(),
        "a pedigree's optimal noise is for a count: one 0/1 value per genotype (BB, Bb, bb), "
        "some 1 and some 0",
    )
    return tuple(int(g) for g in np.flatnonzero(v == 1))


def pedigree_bdpl(model: PedigreeModel, values, noise, *, min_known: int = 0) -> float:
    """Exact BDPL over every adversary class of a pedigree's count (``values``: one 0/1 per genotype)
    plus ``noise`` (:func:`~bdpsim.models.pedigree.exact.exhaustive_pedigree_count`)."""
    mech = PedigreeCount(CountQuery(pedigree_counted(values)), noise)
    return float(np.max(exhaustive_pedigree_count(model, mech, min_known=min_known).value))


def pedigree_law_pairs(model: PedigreeModel, values, *, min_known: int = 0) -> lp.LawPairs:
    """Every adversary class's pair of count laws ``P(C | x_K, x_i = x)``, ``P(C | x_K, x_i = x')``
    on a pedigree (the classes :func:`~bdpsim.models.pedigree.exact.exhaustive_pedigree_count`
    scores), normalised and deduplicated."""
    rec = _Recorder()
    exhaustive_pedigree_count(
        model, PedigreeCount(CountQuery(pedigree_counted(values)), rec), min_known=min_known
    )
    W1, W2 = lp.dedupe(np.vstack([a for a, _ in rec.got]), np.vstack([b for _, b in rec.got]))
    return lp.LawPairs(W1, W2, 1)


#: all-adversary searches the optimal noise of a network costs (law pairs once, then the exact
#: verification of each LP margin tried; usually 2)
NETWORK_SEARCHES = 2


def network_plan(
    model, values, *, searches: float = 1.0, max_seconds: float = BS.MAX_SEARCH_SECONDS
) -> tuple[BS.SearchPlan, np.ndarray, int]:
    """The exact engine's all-adversary search plan for a Bayesian network or Markov random field
    (:func:`bdpsim.models.bayesnet.search.search_plan`), its lattice increments and integer step;
    refused up front (:class:`~bdpsim.core.errors.ConfigError` naming ``model``, with the estimate) when
    ``searches`` of it would exceed ``max_seconds``, or when it is too large to plan at all."""
    from ..core.errors import ConfigError

    g, delta, _ = lattice(np.asarray(values, dtype=float))
    check(
        abs(delta - round(delta)) <= 1e-9 * max(1.0, delta) and round(delta) >= 1,
        "state_values",
        np.asarray(values).tolist(),
        "optimal integer noise needs integer query values (a count, or integer state values)",
    )
    try:
        plan = BS.search_plan(model, g, max_seconds=math.inf)
    except ConfigError as exc:
        raise ConfigError("model", f"{model.n} records", exc.rule.split("; limit ~")[0]) from None
    if plan.seconds * searches > max_seconds:
        raise ConfigError(
            "model",
            f"{model.n} records",
            f"needs ~{plan.seconds * searches:.3g} s of one core "
            f"(~{searches:g} x the {plan.text()}); at most {max_seconds:g} s allowed",
        )
    return plan, g, int(round(delta))


def network_bdpl(model, plan, noise, *, min_known: int = 0) -> float:
    """Exact BDPL over every adversary of a network's or random field's query plus ``noise``, by the
    search :func:`network_plan` chose (``plan`` its result)."""
    sp, g, delta = plan
    return float(
        BS.bdpl_search(model, g, pair_score(noise, delta), method=sp.method, min_known=min_known).bdpl
    )


def network_law_pairs(model, values, *, min_known: int = 0, plan=None) -> lp.LawPairs:
    """Every law pair the exact all-adversary search of a Bayesian network or Markov random field
    scores (:func:`bdpsim.models.bayesnet.search.bdpl_search`: the separated regions' laws
    ``P(X_i = x, S_R | x_∂R)`` vs ``x'``, or every known set's laws when the search is
    exhaustive), normalised and deduplicated, on the integer lattice of the query. The region
    reduction holds for any mechanism, so noise meeting these pairs' conditions meets every
    adversary's."""
    if plan is None:
        plan = network_plan(model, values)
    sp, g, delta = plan
    rec = _Recorder()
    BS.bdpl_search(
        model, g, lambda W1, W2: rec.grid_sup(W1, W2, delta), method=sp.method, min_known=min_known
    )
    J = max(a.shape[1] for a, _ in rec.got)
    W1 = np.vstack([np.pad(a, ((0, 0), (0, J - a.shape[1]))) for a, _ in rec.got])
    W2 = np.vstack([np.pad(b, ((0, 0), (0, J - b.shape[1]))) for _, b in rec.got])
    last = np.flatnonzero(((W1 > 0) | (W2 > 0)).any(axis=0))[-1]
    W1, W2 = lp.dedupe(W1[:, : last + 1], W2[:, : last + 1])
    return lp.LawPairs(W1, W2, delta)


def mirror_closed(pairs: lp.LawPairs, digits: int = 10) -> bool:
    """Whether the pair set is closed under ``c -> -c`` (each pair's mirror, up to a common shift, is
    a pair of the set, in either order)."""

    def keys(W1, W2):
        out = set()
        for a, b in zip(W1, W2, strict=True):
            nz = np.flatnonzero((a > 0) | (b > 0))
            a, b = np.round(a[nz[0] : nz[-1] + 1], digits), np.round(b[nz[0] : nz[-1] + 1], digits)
            out.add(tuple(sorted([a.tobytes(), b.tobytes()])))
        return out

    return keys(pairs.W1, pairs.W2) == keys(pairs.W1[:, ::-1], pairs.W2[:, ::-1])


def _table(sol: lp.LPSolution) -> TableNoise:
    off, pmf, r = lp.noise_table(sol.f, sol.M, sol.tail_ratio)
    return TableNoise(tuple(pmf), off, r)


def _pairs_and_verifier(
    model,
    values,
    network: bool,
    pedigree: bool,
    *,
    min_known: int,
    window_limit,
    tolerance: float,
    max_seconds: float,
):
    """The law pairs the LP constrains, their truncation (the BDPL the window limit may leave out) and
    ``verify(noise) -> (bdpl, tolerance)`` by the exact engine of ``model``'s kind (networks and random
    fields: the region reduction; pedigrees: the exhaustive engine; chains: the window search)."""
    if network:  # exact over every adversary (the region reduction): no truncation
        plan = network_plan(model, values, searches=NETWORK_SEARCHES, max_seconds=max_seconds)
        pairs, trunc = network_law_pairs(model, values, min_known=min_known, plan=plan), 0.0

        def verify(noise):
            return network_bdpl(model, plan, noise, min_known=min_known), 0.0
    elif pedigree:  # exact and exhaustive: no truncation; verified by the exhaustive pedigree engine
        pairs, trunc = pedigree_law_pairs(model, values, min_known=min_known), 0.0

        def verify(noise):
            return pedigree_bdpl(model, values, noise, min_known=min_known), 0.0
    else:
        pairs, trunc = law_pairs(
            model, values, min_known=min_known, window_limit=window_limit, tolerance=tolerance
        )

        def verify(noise):
            res = window_search(
                model, values, noise, min_known=min_known, window_limit=window_limit, tolerance=tolerance
            )
            return float(res.bdpl), res.tolerance

    return pairs, trunc, verify


def _tail_ratios(tail_ratio, r_min: float) -> list[float]:
    """The geometric tail ratios tried: ``tail_ratio`` (checked to be in ``[r_min, 1)``), or for "auto"
    the least admissible one and two slower ones (``exp(-0.75 lam)``, ``exp(-0.5 lam)``,
    ``lam = -ln r_min``)."""
    if tail_ratio == "auto":
        lam = -math.log(r_min)
        ratios = [r_min * (1 + 1e-9), math.exp(-0.75 * lam), math.exp(-0.5 * lam)]
    else:
        r = float(tail_ratio)
        check(
            r_min <= r < 1,
            "tail_ratio",
            tail_ratio,
            f"must be in [{r_min:.6g}, 1) (the least ratio whose far-tail conditions hold)",
        )
        ratios = [r]
    return ratios


def _solve_lp(pairs, target: float, M: int, r: float, objective: str, sym: bool, warm, progress):
    """``(solution, symmetric)`` of the LP at one tail ratio ``r`` (the symmetric LP first when ``sym``),
    ``None`` when every variant is infeasible."""
    got = None
    # symmetric LPs are smaller, but HiGHS may call one infeasible by numerics (measured: a
    # 4-cycle Potts field, eps = 0.5, M = 51): the unrestricted LP then (its optimum is as
    # good)
    for s in (True, False) if sym else (False,):
        try:
            got = (
                lp.solve(
                    pairs, target, int(M), r, objective=objective, symmetric=s, start=warm, progress=progress
                ),
                s,
            )
            break
        except lp.Infeasible:
            continue
    return got


def optimal_noise(
    model: MarkovChainModel,
    epsilon: float,
    values,
    *,
    objective: str = "mean_abs",
    M="auto",
    tail_ratio="auto",
    symmetric: bool | None = None,
    min_known: int = 0,
    window_limit="auto",
    tolerance: float = DEFAULT_TOLERANCE,
    progress=None,
    max_seconds: float = BS.MAX_SEARCH_SECONDS,
) -> OptimalNoise:
    """The integer noise of least ``E|Z|`` (``objective = "variance"``: least ``E Z^2``) whose
    mechanism ``sum_t values[X_t] + Z`` is eps-BDP over every adversary, verified by the exact engine
    (module docstring).

    Parameters
    ----------
    model : MarkovChainModel, PedigreeModel, BayesNetModel or MRFModel
    epsilon : float
        Target BDPL.
    values : array of shape (states,)
        Query value per state (integers up to a common shift,
        :func:`bdpsim.kernels.chains.lattice.query_values`).
    objective : {"mean_abs", "variance"}
    M : int or "auto"
        Half-width of the free masses.
    tail_ratio : float or "auto"
        Ratio of the geometric tails (at least the least admissible one).
    symmetric : bool or None
        Impose ``f(k) = f(-k)`` (``None``: when the pair set is mirror-closed).
    min_known, window_limit, tolerance
        Adversary family and window truncation, as :func:`~bdpsim.models.markov.window.window_search`.
    max_seconds : float
        Bayesian networks and Markov random fields: refuse up front (one line with the estimate,
        :func:`network_plan`) when the exact all-adversary searches would take longer.
    """
    t0 = time.monotonic()
    network = isinstance(model, FactorGraph)  # a Bayesian network or Markov random field
    pedigree = not network and not isinstance(model, MarkovChain) and isinstance(model, HasCountLaw)
    check(
        network or pedigree or isinstance(model, MarkovChain),
        "model",
        type(model).__name__,
        "the optimal noise is computed for Markov chains (from the window adversaries' law pairs), "
        "pedigrees (every adversary class's count laws), Bayesian networks and Markov random fields "
        "(the separated regions' law pairs of the exact all-adversary search)",
    )
    check_positive(epsilon, "epsilon")
    check(objective in lp.OBJECTIVES, "objective", objective, f"must be one of {list(lp.OBJECTIVES)}")
    pairs, trunc, verify = _pairs_and_verifier(
        model,
        values,
        network,
        pedigree,
        min_known=min_known,
        window_limit=window_limit,
        tolerance=tolerance,
        max_seconds=max_seconds,
    )
    check(trunc < epsilon / 2, "window_limit", window_limit, "truncates too much for this epsilon")
    sym = mirror_closed(pairs) if symmetric is None else bool(symmetric)
    r_min = lp.min_tail_ratio(pairs, epsilon - trunc)
    auto_M, span = M == "auto", math.inf
    if auto_M:
        lam = -math.log(r_min)
        span = math.log(RANGE) / max(epsilon / pairs.delta - lam, 1e-9)
        M = int(min(400, max(8, math.ceil(min(12.0 / lam, span)))))
    check(
        isinstance(M, (int, np.integer)) and not isinstance(M, bool) and M >= 1,
        "M",
        M,
        "must be 'auto' or an integer >= 1",
    )
    ratios = _tail_ratios(tail_ratio, r_min)
    # a narrower window when the solver finds none at the auto M (measured: the activity chain at
    # eps = 10 has span 5.2 but M = 8: masses down to 1e-20, called infeasible; M = 6 solves)
    Ms = [int(M)] + ([m for m in sorted({math.ceil(span), 4, 2, 1}, reverse=True) if m < M] if auto_M else [])
    for M in Ms:
        try:
            best, tried, warm = None, [], None
            for margin in MARGINS:
                target = epsilon - trunc - margin
                for r in ratios:
                    got = _solve_lp(pairs, target, int(M), r, objective, sym, warm, progress)
                    if got is None:
                        tried.append((r, math.inf))
                        continue
                    warm = got[0].working  # a warm start for the next ratio
                    tried.append((r, got[0].objective))
                    if best is None or got[0].objective < best[0].objective:
                        best = (got[0], margin, got[1])
                if best is None:
                    raise lp.Infeasible(
                        f"no integer noise on [-{M}, {M}] with geometric tails of ratio "
                        f"{', '.join(f'{r:.4g}' for r in ratios)} is eps-BDP (a wider M may be)"
                    )
                sol, margin, used_sym = best
                noise = _table(sol)
                bdpl, tol = verify(noise)
                if bdpl + tol <= epsilon:
                    break
                best = None
            else:
                raise RuntimeError(
                    f"the LP's noise is not eps-BDP by the exact engine even with margin {MARGINS[-1]}: "
                    f"BDPL {bdpl!r} > eps {epsilon!r}"
                )
            break
        except lp.Infeasible:
            if M == Ms[-1]:
                raise
    mean, mabs, sq = (float(v) for v in noise.moments())
    return OptimalNoise(
        noise,
        float(epsilon),
        objective,
        mean,
        mabs,
        sq - mean * mean,
        bdpl,
        tol,
        sol.objective,
        int(M),
        sol.tail_ratio,
        r_min,
        pairs.W1.shape[0],
        sol.conditions,
        sol.rounds,
        used_sym,
        margin,
        time.monotonic() - t0,
        tuple(tried),
    )


def calibrate_optimal(p):
    """Method ``optimal`` of :data:`bdpsim.calibration.CALIBRATION_METHODS`: the least-``E|Z|`` (or
    ``E Z^2``, ``p.objective``) integer noise that is eps-BDP, verified by the exact engine. The
    row has no Laplace ``scale``; its JSON adds ``mean_abs``, ``variance``, ``noise = {"offset",
    "pmf", "tail_ratio"}`` and the LP's size."""
    from ..core.errors import ConfigError
    from .budget import TooSlow, duration, scan_seconds

    search = {k: v for k, v in p.search.items() if k in ("min_known", "window_limit", "tolerance")}
    if p.budget is not None:
        est, why = scan_seconds(p.model, p.values, p.search)
        est *= SCANS_PER_OPTIMUM
        if est > p.budget:
            raise TooSlow(
                "--n",
                p.model.n,
                f"optimal needs ~{duration(est)} (~{SCANS_PER_OPTIMUM} x a "
                f"{why}); at most ~{duration(p.budget)} allowed (use a smaller --n)",
            )
    try:
        opt = optimal_noise(p.model, p.epsilon, p.values, objective=p.objective, **search)
    except ConfigError as exc:
        if exc.field != "state_values":
            raise
        return p.not_applicable("optimal", exc.rule)
    except lp.Infeasible as exc:
        return p.not_applicable("optimal", str(exc))
    return opt.as_calibration(p.model.n, "window law pairs")


#: the optimal search costs about this many window scans' estimated time (measured: activity chain,
#: n = 288, eps = 1: 110 s on a machine loaded ~4x, estimate 0.36 s per scan; smaller eps, with a
#: wider M, take longer: 284 s at eps = 0.5)
SCANS_PER_OPTIMUM = 100
