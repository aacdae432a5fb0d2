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
pairs are exactly the law pairs the exact engine scores (its
:meth:`~bdpsim.models.engines.HasSearch.law_pairs`, :func:`law_pairs`); they are collected once,
normalised and deduplicated (pairs equal to 13 digits, either order).
With ``window_limit = "auto"`` windows longer than the truncation length are left out; the
module docstring of :mod:`bdpsim.models.markov.window` bounds what they add by
``tolerance = D_d + E_d`` for *any* noise, so the LP targets ``eps - tolerance``.

**Every model with an exact engine.** The same LP takes the law pairs any model's exact
all-adversary engine scores (:meth:`~bdpsim.models.engines.HasSearch.law_pairs`, the pairs of one
search recorded): every adversary class's pair of count laws on a pedigree, on a network or random
field the separated regions' laws ``P(X_i = x, S_R | x_∂R)`` vs ``x'`` (every known set's laws
where the search is exhaustive), every enumerated adversary's laws for a kind that searches by
enumeration. Each reduction holds for any mechanism (a ratio of common-weight mixtures), so
meeting those pairs' conditions is meeting every adversary's; no truncation. A search too costly
is refused up front by the engine's own estimate.

**Verified, not trusted.** The LP's pmf becomes a :class:`~bdpsim.kernels.noise.table.TableNoise`
and its exact BDPL over all adversaries is computed by the same engine re-noised with it
(:mod:`bdpsim.calibration.engine`), independently of the LP. The LP targets
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

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import ConfigError, check
from ..kernels.chains.lattice import lattice
from ..kernels.noise import optimal_lp as lp
from ..kernels.noise.scores import BdplScore
from ..kernels.noise.table import TableNoise
from .engine import additive_query, check_search, exact_engine, search_cost, searched
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


def integer_step(values) -> int:
    """The integer lattice step of the query ``values`` (:func:`~bdpsim.kernels.chains.lattice.lattice`);
    a :class:`~bdpsim.core.errors.ConfigError` naming ``state_values`` when they are not on an
    integer lattice (the optimal noise is integer)."""
    _, delta, _ = lattice(np.asarray(values, dtype=float))
    check(
        abs(delta - round(delta)) <= 1e-9 * max(1.0, delta) and round(delta) >= 1,
        "state_values",
        np.asarray(values).tolist(),
        "optimal integer noise needs integer query values (a count, or integer state values)",
    )
    return int(round(delta))


def law_pairs(
    model, values, *, min_known: int = 0, query=None, engine=None, **search
) -> tuple[lp.LawPairs, float]:
    """Every law pair the model's exact engine scores in its search over every adversary
    (:meth:`~bdpsim.models.engines.HasSearch.law_pairs`: a chain's window pairs, a pedigree's
    adversary classes, a network's separated regions, an enumerated kind's adversaries; module
    docstring), normalised and deduplicated, on the integer lattice of the query; and the search's
    truncation tolerance (a chain's windows longer than its window limit). ``engine``: the engine
    of ``query`` (default: of ``values``, :func:`~.engine.additive_query`) if already built."""
    delta = integer_step(values)
    if engine is None:
        engine = exact_engine(model, query if query is not None else additive_query(values), None, search)
        check_search(engine, model, min_known)
    found = engine.law_pairs(int(min_known), search.get("targets"))
    W1, W2 = lp.dedupe(found.W1, found.W2, normalised=True)  # the engine's pairs are normalised
    return lp.LawPairs(W1, W2, delta), float(found.tolerance)


#: all-adversary searches the optimal noise costs besides its LP (the law pairs once, then the
#: exact verification of each LP margin tried; usually 2)
OPTIMAL_SEARCHES = 2


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


def _engine(model, values, query, search: dict, min_known: int, max_seconds: float):
    """The exact engine of the query (:func:`~.engine.exact_engine`), refused up front by its own
    limits and, with its estimate, when :data:`OPTIMAL_SEARCHES` searches exceed ``max_seconds``."""
    engine = exact_engine(model, query if query is not None else additive_query(values), None, search)
    check_search(engine, model, min_known)
    cost = search_cost(engine, min_known)
    if cost.seconds * OPTIMAL_SEARCHES > max_seconds:
        raise ConfigError(
            "model",
            f"{model.n} records",
            f"needs ~{cost.seconds * OPTIMAL_SEARCHES:.3g} s of one core "
            f"(~{OPTIMAL_SEARCHES:g} x the {cost.what}); at most {max_seconds:g} s allowed",
        )
    return engine


def optimal_noise(
    model,
    epsilon: float,
    values,
    *,
    objective: str = "mean_abs",
    M="auto",
    tail_ratio="auto",
    symmetric: bool | None = None,
    min_known: int = 0,
    progress=None,
    max_seconds: float = math.inf,
    query=None,
    **search,
) -> OptimalNoise:
    """The integer noise of least ``E|Z|`` (``objective = "variance"``: least ``E Z^2``) whose
    mechanism ``sum_t values[X_t] + Z`` is eps-BDP over every adversary, verified by the exact engine
    (module docstring).

    Parameters
    ----------
    model : any model with an exact engine over every adversary
        A Markov chain, pedigree, Bayesian network, Markov random field or a plug-in's kind.
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
    min_known, **search
        Adversary family (``min_known``, ``targets``) and the engine's own search options (a
        chain's window truncation ``window_limit``, ``tolerance``:
        :func:`~bdpsim.models.markov.window.window_search`).
    max_seconds : float
        Refuse up front (one line with the engine's estimate) when the exact all-adversary searches
        would take longer (default: no limit but the engine's own).
    query : AdditiveQuery, optional
        The query, when ``values`` do not say it all (a count whose states differ between records).
    """
    t0 = time.monotonic()
    check_positive(epsilon, "epsilon")
    check(objective in lp.OBJECTIVES, "objective", objective, f"must be one of {list(lp.OBJECTIVES)}")
    engine = _engine(model, values, query, search, min_known, max_seconds)
    pairs, trunc = law_pairs(model, values, min_known=min_known, engine=engine, **search)
    targets = search.get("targets")

    def verify(noise):
        return searched(engine, noise, BdplScore(), min_known, targets)

    check(
        trunc < epsilon / 2,
        "window_limit",
        search.get("window_limit", "auto"),
        "truncates too much for this epsilon",
    )
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
    ``E Z^2``, ``p.objective``) integer noise that is eps-BDP, verified by the exact engine, on any
    model with one. The row has no Laplace ``scale``; its JSON adds ``mean_abs``, ``variance``,
    ``noise = {"offset", "pmf", "tail_ratio"}`` and the LP's size."""
    from .budget import TooSlow, duration

    if p.ledger is not None:
        one = p.search_cost()
        searches = SCANS_PER_OPTIMUM if p.chain else OPTIMAL_SEARCHES
        est = searches * one.seconds
        if not p.ledger.fits(est):
            raise TooSlow(
                "model.n" if p.chain else "model",
                p.model.n if p.chain else f"{p.model.n} records",
                f"optimal needs ~{duration(est)} (~{searches} x a {one.what}); at most "
                f"~{duration(p.ledger.left)} allowed" + (" (use fewer records)" if p.chain else ""),
            )
        p.ledger.charge(est)
    steps = itertools.count(len(p.cache) + 1)  # the LP's rounds, counted on from the searches
    rounds = None if p.progress is None else (lambda *_: p.progress(next(steps), None))
    try:
        opt = optimal_noise(
            p.model,
            p.epsilon,
            p.values,
            objective=p.objective,
            query=p.query,
            progress=rounds,
            **p.search,
        )
    except ConfigError as exc:
        if exc.field != "state_values":
            raise
        return p.not_applicable("optimal", exc.rule, "table")
    except lp.Infeasible as exc:
        return p.not_applicable("optimal", str(exc), "table")
    if p.chain:  # its windows may be truncated: the tolerance is said
        return opt.as_calibration(p.model.n, "window law pairs")
    return opt.as_calibration(p.model.n, "law pairs", ("bdpl", "truncation_tolerance"))


#: the optimal search on a chain costs about this many window scans' estimated time (its LP on the
#: window law pairs dominates; measured: activity chain, n = 288, eps = 1: 110 s on a machine loaded
#: ~4x, estimate 0.36 s per scan; smaller eps, with a wider M, take longer: 284 s at eps = 0.5)
SCANS_PER_OPTIMUM = 100
