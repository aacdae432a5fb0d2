"""Exact BDPL over all adversaries of a Markov chain in polynomial time: window reduction.

Query ``Y = sum_t f(X_t) + Lap(b)`` on a Markov chain (any number of states, any start law).
Take an adversary ``(K, i)`` and let ``l < i < r`` be its nearest known records (or the chain
ends). Given ``x_l, x_r`` the records outside ``[l, r]`` are independent of those inside, so
their unknown part adds to ``Y`` a term whose law does not depend on ``x_i``; the output law of
``(K, i)`` is a common-weight mixture of shifted output laws of ``K* = K ∪ ([n] \\ [l, r])``, and
``BDPL_(K,i) <= BDPL_(K*,i)``. **The worst adversary knows everything outside a window ``(l, r)``
around its target and nothing inside** (chain: paper Def. 6.1; adversary-specific BDPL: paper
Def. 3.6, BDP: Def. 3.7). Since ``K* ⊇ K``, the argument holds for every upward-closed family of known-set
sizes
``{min_known .. n-1}``; other size families (e.g. only ``|K| = 3``) need the full enumeration
:func:`bdpsim.models.markov.exact.exhaustive_markov_count`.

A window's value depends only on ``(L, R)`` (unknowns left/right), the boundary values and the
target values — the chain start enters through ``i = L`` for a window reaching it, and positions
only decide which boundary values are reachable. See :mod:`bdpsim.kernels.chains.window_scan`.

**Truncation.** Let ``D_d = max_{x,x'} osc_z ln(P^d[z,x] / P^d[z,x'])`` and
``E_d = max_{x,x'} osc_z ln(P^d[x,z] / P^d[x',z])`` (``osc = max - min``). Splitting a window
with ``L' >= d`` left unknowns at ``m = i - d``: ``p(y | x) = sum_z pi_x(z) q(y | z, x)`` with
``pi_x(z) = P(X_m = z | x_l, x)`` and ``q`` the law given ``X_m = z``, itself a common-weight
mixture of shifted laws of the window with ``d - 1`` left unknowns and known ``z``. As
``|ln pi_x(z)/pi_x'(z)| <= D_d``, ``BDPL(L') <= BDPL(d - 1, known z) + D_d``; likewise on the
right with ``E_d``. Searching only ``L, R <= window_limit = d - 1`` therefore returns ``v`` with
``v <= BDPL <= v + D_d + E_d`` (``tolerance``); ``D_d, E_d ~ |lambda_2|^d`` for a primitive
chain. ``window_limit="auto"`` picks the least ``d`` with ``D_d + E_d <= tolerance``.

**Query values.** ``f`` is the indicator of ``counted_states`` or ``state_values``; values must
lie on a common lattice ``f = f_min + delta * g``, ``g`` integers ``0..Delta`` with ``Delta <=``
:data:`MAX_LATTICE_STEPS` (integers, halves, 0.1-multiples, ...); others raise ConfigError.
Laws are computed in floating point with positive terms only (no cancellation); probabilities
below ~1e-308 underflow to zero (as in :meth:`MarkovChainModel.count_law`).
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from ...adversary import Adversary
from ...core.errors import check, naming
from ...kernels.chains import window_scan as wk
from ...kernels.chains.lattice import integer_lattice, lattice, query_values
from ...kernels.noise.laws import LaplaceNoise, NoiseLaw
from ...kernels.noise.scores import (
    names_of,
    pair_score,  # noqa: F401  (its former home)
    reads_query_values,
    scan_path_of,
    scan_score,
)
from ..engines import AdversarySearch
from .completion import CompletionSums, window_completion, window_completion_sums  # noqa: F401 (re-exported)
from .model import MarkovChainModel

DEFAULT_TOLERANCE = 1e-13


def truncation_bound(P: np.ndarray, d: int) -> float:
    """``D_d + E_d``: error bound of searching only windows with ``<= d - 1`` unknowns per side."""
    Pd = np.linalg.matrix_power(np.asarray(P, dtype=float), int(d))
    return _osc(Pd) + _osc(Pd.T)


def _osc(M: np.ndarray) -> float:
    """``max_{x,x'} osc_z ln(M[z, x] / M[z, x'])`` over ``z`` where either entry is positive."""
    worst = 0.0
    for x in range(M.shape[1]):
        for xp in range(x + 1, M.shape[1]):
            a, b = M[:, x], M[:, xp]
            use = (a > 0) | (b > 0)
            if np.any((a[use] == 0) | (b[use] == 0)):
                return math.inf
            r = np.log(a[use]) - np.log(b[use])
            worst = max(worst, float(r.max() - r.min()))
    return worst


def auto_window_limit(P: np.ndarray, n: int, tolerance: float) -> int | None:
    """Least ``d - 1`` with ``D_d + E_d <= tolerance`` (``None`` if none below ``n - 1``)."""
    P = np.asarray(P, dtype=float)
    Pd = np.eye(P.shape[0])
    for d in range(1, n):
        Pd = Pd @ P
        if _osc(Pd) + _osc(Pd.T) <= tolerance:
            return d - 1
    return None


@dataclass(frozen=True)
class WindowAdversary:
    """The worst adversary: knows every record outside ``(l, r)``, nothing inside but its target.

    ``left``/``right`` unknown records left/right of target ``i`` (so ``l = i - left - 1``,
    ``r = i + right + 1``); ``left_value``/``right_value`` the known ``x_l``/``x_r`` (``None`` at
    a chain end). Only the boundaries matter; :meth:`completion` gives the values at every known
    record ``K = [n] \\ (l, r)`` in position order — the boundary values plus a
    positive-probability completion (each step the most likely neighbour), computed on demand
    (``O(n)``) from ``model``. ``argmax`` is the output ``y`` where
    ``ln p(y | x_K, x) / p(y | x_K, x') = bdpl`` for that completion.
    """

    n: int
    i: int
    left: int
    right: int
    left_value: int | None
    right_value: int | None
    x: int
    x_prime: int
    bdpl: float
    argmax: float
    model: MarkovChainModel | None = field(repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        check(
            0 <= self.i < self.n and self.left >= 0 and self.right >= 0 and self.l >= -1 and self.r <= self.n,
            "window",
            (self.i, self.left, self.right),
            f"must fit in a chain of n = {self.n}",
        )

    def completion(self) -> tuple[int, ...]:
        """The known values ``x_K``: the boundary values and a positive-probability completion."""
        return window_completion(
            self.model, wk.support(self.model), self.left_value, self.l, self.right_value, self.r
        )

    @property
    def x_known(self) -> tuple[int, ...]:
        return self.completion()

    @property
    def l(self) -> int:  # noqa: E743 - the paper's name for the left boundary
        return self.i - self.left - 1

    @property
    def r(self) -> int:
        return self.i + self.right + 1

    @property
    def known(self) -> tuple[int, ...]:
        return tuple(range(0, self.l + 1)) + tuple(range(self.r, self.n))

    def adversary(self) -> Adversary:
        """As an :class:`~bdpsim.adversary.Adversary` (for :func:`bdpsim.estimators.adversary_bdpl`)."""
        return Adversary(self.i, self.known, self.completion(), self.x, self.x_prime)

    def table_row(self) -> dict:
        """The adversary columns of ``adversaries.csv.gz``, compactly: ``known`` as the ranges
        ``0..l;r..n-1`` and ``x_known`` as the boundary values (the rest does not matter)."""
        known = ";".join(
            r
            for r in (
                f"0..{self.l}" if self.l >= 0 else "",
                f"{self.r}..{self.n - 1}" if self.r < self.n else "",
            )
            if r
        )
        ends = ";".join(
            f"{k}={'chain end' if v is None else v}"
            for k, v in (("x_l", self.left_value), ("x_r", self.right_value))
        )
        return {"i": self.i, "known": known, "x_known": ends, "x": str(self.x), "x_prime": str(self.x_prime)}

    def as_row(self) -> dict:
        end = lambda v: "chain end" if v is None else v  # noqa: E731
        return {
            "i": self.i,
            "l": self.l,
            "r": self.r,
            "unknown_left": self.left,
            "unknown_right": self.right,
            "left_value": end(self.left_value),
            "right_value": end(self.right_value),
            "x": self.x,
            "x_prime": self.x_prime,
            "bdpl": self.bdpl,
            "argmax": self.argmax,
        }


@dataclass(frozen=True)
class WindowSearch:
    """Result of :func:`window_search`: ``bdpl <= true BDPL <= bdpl + tolerance``.

    ``window_limit`` is the most unknowns per side searched (``None``: all, ``tolerance = 0``);
    ``n_windows`` the number of (target, window) geometries searched; ``n_evaluations`` the
    number of (window law pair) suprema computed.
    """

    bdpl: float
    worst: WindowAdversary
    window_limit: int | None
    tolerance: float
    n_windows: int
    n_evaluations: int
    min_known: int


def validated_search(model, noise_scale, min_known, targets, window_limit, tolerance):
    check(isinstance(model, MarkovChainModel), "model", type(model).__name__, "must be a MarkovChainModel")
    if isinstance(noise_scale, NoiseLaw):
        b = math.nan  # any noise law: scored by its own grid functions
    else:
        b = float(noise_scale) if isinstance(noise_scale, (int, float, np.number)) else math.nan
        check(math.isfinite(b) and b > 0, "noise_scale", noise_scale, "must be a finite number > 0")
    n = model.n
    check(
        isinstance(min_known, (int, np.integer)) and 0 <= min_known <= n - 1,
        "min_known",
        min_known,
        f"must be an integer in 0..n-1 = 0..{n - 1}",
    )
    T = np.ones(n, dtype=bool)
    if targets is not None:
        tl = list(targets)
        check(
            len(tl) > 0 and all(isinstance(t, (int, np.integer)) and 0 <= t < n for t in tl),
            "targets",
            tl,
            f"must be a non-empty list of positions in 0..{n - 1}",
        )
        T[:] = False
        T[tl] = True
    check(
        isinstance(tolerance, (int, float)) and 0 < tolerance < 1,
        "tolerance",
        tolerance,
        "must be a number in (0, 1)",
    )
    if window_limit == "auto":
        lim = auto_window_limit(model.transition, n, tolerance)
    elif window_limit is None:
        lim = None
    else:
        check(
            isinstance(window_limit, (int, np.integer)) and window_limit >= 0,
            "window_limit",
            window_limit,
            "must be 'auto', None or an integer >= 0",
        )
        lim = int(window_limit)
    if lim is not None and lim >= n - 1:
        lim = None
    return b, T, lim


#: seconds per unit of window-scan work (law rows times lattice length, see :func:`scan_cost`)
SCAN_SECONDS_PER_UNIT = 1.0e-7
#: seconds per (target pair, window length) step of the scan (Python overhead)
SCAN_SECONDS_PER_STEP = 5.0e-5


def scan_cost(
    model: MarkovChainModel,
    values,
    *,
    min_known: int = 0,
    targets: Sequence[int] | None = None,
    window_limit: int | str | None = "auto",
    tolerance: float = DEFAULT_TOLERANCE,
) -> tuple[float, str]:
    """Estimated seconds of one window search of ``sum_t values[X_t] + noise`` (the scan of
    :func:`window_cells`, any noise law at the Laplace closed form's speed) and what it depends on,
    before any work: ``s (s - 1) / 2`` target pairs times ``(s + 1)^2 Delta (L + 1)^3`` units of
    law rows and lattice points, ``L`` the window limit (per-unit costs measured on a 2-core
    machine by ``scripts/benchmarks/benchmark_calibrate.py``). It does not grow with ``n`` past the
    window limit: ``s^4 (L + 1)^3``.

    Returns
    -------
    seconds : float
    why : str
        e.g. ``"window scan over 50 states, <= 17 unknowns per side"``.
    """
    _, _, lim = validated_search(model, 1.0, int(min_known), targets, window_limit, tolerance)
    s, n = model.states, model.n
    lmax = n - 1 if lim is None else lim
    D = int(lattice(np.asarray(values, dtype=float))[0].max())
    pairs = s * (s - 1) // 2
    units = float(pairs) * (s + 1) ** 2 * D * float(lmax + 1) ** 3
    seconds = SCAN_SECONDS_PER_UNIT * units + SCAN_SECONDS_PER_STEP * pairs * float(lmax + 1) ** 2
    return seconds, f"window scan over {s} states, <= {lmax} unknowns per side"


def window_rows(
    model: MarkovChainModel,
    *,
    min_known: int = 0,
    targets: Sequence[int] | None = None,
    window_limit: int | str | None = "auto",
    tolerance: float = DEFAULT_TOLERANCE,
) -> np.ndarray:
    """``rows[m]``: how many law pairs the window scan hands its score (:func:`window_cells`) whose
    windows hold ``m = L + R`` unknown records beside the target — per target pair ``(x, x')``
    every feasible cell (:func:`~bdpsim.kernels.chains.window_scan.feasible_cells`), before the
    pairs of probability zero are dropped (an upper end). What a score's cost grows with, known
    before any law is built."""
    _, T, lim = validated_search(model, 1.0, int(min_known), targets, window_limit, tolerance)
    n, s = model.n, model.states
    lmax = n - 1 if lim is None else lim
    ok = wk.feasible_cells(n, lmax, cast(np.ndarray, wk.support(model)), T, int(min_known))
    per = ok.sum(axis=(2, 3))
    L, R = np.indices(per.shape)
    cells = np.bincount((L + R).ravel(), weights=per.ravel(), minlength=2 * lmax + 1)
    return cells.astype(np.int64) * (s * (s - 1) // 2)


def window_cells(
    model: MarkovChainModel,
    values: np.ndarray,
    noise_scale,
    *,
    min_known: int = 0,
    targets: Sequence[int] | None = None,
    window_limit: int | str | None = "auto",
    tolerance: float = DEFAULT_TOLERANCE,
    profile: float | None = None,
    score=None,
    on_values: bool = False,
):
    """Worst value per window cell (:func:`bdpsim.kernels.chains.window_scan.scan`) plus the search context.

    ``noise_scale`` is the Laplace scale ``b`` or any noise law (:mod:`bdpsim.kernels.noise.laws`; the
    window reduction holds for every additive noise kernel). With ``profile = eps`` the cells hold
    the privacy profile ``delta(eps)`` instead of the BDPL (the hockey-stick divergence is jointly
    convex and shift-invariant, so the reduction holds for it too; a truncated search then bounds
    ``delta(eps) <= delta_searched(eps - tolerance)``). With ``score`` (a
    :class:`~bdpsim.models.engines.PairScore`) the cells hold its components instead
    (``cells["components"][k]``; the BDPL score, :class:`~bdpsim.kernels.noise.scores.BdplScore`,
    by the scan's own exact path: the numbers of the BDPL search). With ``on_values`` the scan runs
    on ``values`` as they are (non-negative integers, step 1: the window laws' column ``k`` is the
    window sum ``k``; :class:`~bdpsim.kernels.noise.scores.ReadsQueryValues`), not on their lattice.

    Returns ``(cells, context)``; ``cells["value"][kl, L, kr, R]`` is the worst BDPL of the
    windows with ``L``/``R`` unknowns left/right of the target whose left/right end is a known
    record (``kl``/``kr`` = 0) or the chain end (1); ``-inf`` where no such adversary exists.
    """
    b, ctx = _context(model, values, noise_scale, min_known, targets, window_limit, tolerance, on_values)
    g, delta, lmax, ok = ctx["g"], ctx["delta"], ctx["lmax"], ctx["ok"]
    noise = noise_scale if isinstance(noise_scale, NoiseLaw) else LaplaceNoise(b)
    m = 1
    if score is None:
        fn = scan_score(noise, delta, profile)  # the BDPL (or the profile): the scan's own numbers
    else:
        m = len(names_of(score))
        path = scan_path_of(score, noise, delta)  # the BDPL by the scan's own path, alone or stacked

        def fn(W1, W2):
            return path(W1, W2).triple()

    cells = wk.scan(
        model.transition, np.asarray(model.initial), g, math.nan, lmax, ok, score=fn, components=m
    )
    return cells, ctx


_CONTEXTS: OrderedDict = OrderedDict()  # the scale-free part of recent searches (calibration repeats them)
_CONTEXTS_KEPT = 4


def _context(
    model: MarkovChainModel, values, noise_scale, min_known, targets, window_limit, tolerance, on_values=False
) -> tuple[float, dict]:
    """The noise scale ``b`` and everything of a search that does not depend on the noise:
    window limit, support, feasible cells, completion sums (cached for the last few chains,
    queries and search options, so a bracketing search over the scale computes them once). The
    query's lattice ``values = fmin + delta g``; with ``on_values`` the values themselves
    (non-negative integers: ``g = values``, ``delta = 1``, ``fmin = 0``)."""
    b, T, lim = validated_search(model, noise_scale, min_known, targets, window_limit, tolerance)
    f = np.asarray(values, dtype=float)
    check(
        f.shape == (model.states,) and bool(np.all(np.isfinite(f))),
        "values",
        f.tolist(),
        f"must be {model.states} finite query values (see query_values)",
    )
    key = (
        model.transition.tobytes(),
        model.transition.shape,
        np.asarray(model.initial, dtype=float).tobytes(),
        model.n,
        f.tobytes(),
        int(min_known),
        None if targets is None else hashlib.blake2b(T.tobytes()).hexdigest(),
        lim,
        bool(on_values),
    )
    ctx = _CONTEXTS.get(key)
    if ctx is not None:
        _CONTEXTS.move_to_end(key)
        return b, ctx
    if on_values:
        g, delta, fmin = integer_lattice(f)
    else:
        with naming(fields={"values": "state_values"}):  # off any lattice (calibrate's and optimal's name)
            g, delta, fmin = lattice(f)
    n = model.n
    lmax = n - 1 if lim is None else lim
    supp = wk.support(model)
    # feasible_cells takes the (n, s) array or a Support (its docstring); its annotation names the array
    ok = wk.feasible_cells(n, lmax, cast(np.ndarray, supp), T, int(min_known))
    tol = 0.0 if lim is None else truncation_bound(model.transition, lim + 1)
    ctx = dict(
        n=n,
        lmax=lmax,
        limit=lim,
        tolerance=tol,
        supp=supp,
        targets=T,
        g=g,
        delta=delta,
        fmin=fmin,
        f=f,
        ok=ok,
        sums=CompletionSums(model, supp, f),
        windows=_count_windows(n, ok, T),
    )
    _CONTEXTS[key] = ctx
    while len(_CONTEXTS) > _CONTEXTS_KEPT:
        _CONTEXTS.popitem(last=False)
    return b, ctx


def _count_windows(n: int, ok: np.ndarray, targets: np.ndarray) -> int:
    """Number of (target, l, r) geometries in the searched cells."""
    s = ok.shape[2] - 1
    L, R = np.meshgrid(np.arange(ok.shape[0]), np.arange(ok.shape[1]), indexing="ij")
    if targets.all():  # targets before position k: k
        inner = np.clip(n - 1 - R, 0, n) - np.clip(L + 1, 0, n)
    else:
        cum = np.concatenate([[0], np.cumsum(targets)])
        inner = cum[np.clip(n - 1 - R, 0, n)] - cum[np.clip(L + 1, 0, n)]  # targets in [L+1, n-2-R]
    return int(
        ok[:, :, s].any(axis=-1).sum()
        + ok[:, :, :s, s].any(axis=-1).sum()
        + np.where(ok[:, :, :s, :s].any(axis=(2, 3)), inner, 0).sum()
    )


def window_search(
    model: MarkovChainModel,
    values: np.ndarray,
    noise_scale,
    *,
    min_known: int = 0,
    targets: Sequence[int] | None = None,
    window_limit: int | str | None = "auto",
    tolerance: float = DEFAULT_TOLERANCE,
    profile: float | None = None,
) -> WindowSearch:
    """Exact ``BDPL = sup_{K, i, x_K, x, x'} sup_y ln p(y | x_K, x) / p(y | x_K, x')`` of
    ``Y = sum_t values[X_t] + Lap(noise_scale)`` over all adversaries with ``|K| >= min_known``.

    Parameters
    ----------
    model : MarkovChainModel
    values : ndarray, shape (s,)
        Query value per state (:func:`query_values`).
    noise_scale : float or NoiseLaw
        Laplace scale ``b`` (in the units of ``values``), or any noise law.
    min_known : int
        Least size of the known set (0: all adversaries; 1: the thesis' sampler, ``|K| >= 1``).
    targets : sequence of int, optional
        Restrict the target positions.
    window_limit : "auto", int or None
        Most unknown records per side searched (see the module docstring); ``None`` searches all.
    tolerance : float
        Truncation error allowed by ``"auto"``.
    profile : float, optional
        Search the privacy profile ``delta(profile)`` instead (:func:`window_cells`).
    """
    return window_table(
        model,
        values,
        noise_scale,
        min_known=min_known,
        targets=targets,
        window_limit=window_limit,
        tolerance=tolerance,
        top=1,
        profile=profile,
    )[0]


def _adversary_at(model: MarkovChainModel, cells: dict, ctx: dict, idx: tuple) -> WindowAdversary:
    kl, L, kr, R = (int(t) for t in idx)
    n = ctx["n"]
    a = None if kl == wk.END else int(cells["a"][idx])
    c = None if kr == wk.END else int(cells["c"][idx])
    i = wk.first_target(n, L, R, a, c is None, ctx["supp"], ctx["targets"])
    sums = ctx["sums"]
    known_sum = (0.0 if a is None else sums.left(i - L - 1, a)) + (
        0.0 if c is None else sums.right(i + R + 1, c)
    )
    y = ctx["delta"] * float(cells["atom"][idx]) + ctx["fmin"] * (L + R + 1) + known_sum
    return WindowAdversary(
        n,
        i,
        L,
        R,
        a,
        c,
        int(cells["x"][idx]),
        int(cells["x_prime"][idx]),
        float(cells["value"][idx]),
        y,
        model,
    )


def window_table(
    model: MarkovChainModel, values: np.ndarray, noise_scale: float, *, top: int | None = None, **kw
) -> tuple[WindowSearch, list[WindowAdversary], np.ndarray]:
    """:func:`window_search` plus the ``top`` most leaking window cells as adversaries (all when
    ``None``) and the finite values of every searched cell (one per window geometry class)."""
    cells, ctx = window_cells(model, values, noise_scale, **kw)
    return _table(model, cells, ctx, top, int(kw.get("min_known", 0)))


def _table(
    model: MarkovChainModel, cells: dict, ctx: dict, top: int | None, min_known: int, k: int = 0
) -> tuple[WindowSearch, list[WindowAdversary], np.ndarray]:
    """:func:`window_table`'s answer for component ``k`` of the cells."""
    cell = cells["components"][k]
    v = cell["value"]
    check(
        bool((v > -np.inf).any()),
        "model",
        "deterministic",
        "no adversary has two target values of positive probability: nothing to distinguish",
    )
    flat = np.flatnonzero(v.ravel() > -np.inf)
    order = flat[np.argsort(-v.ravel()[flat], kind="stable")]
    if top is not None:
        order = order[:top]
    advs = [_adversary_at(model, cell, ctx, np.unravel_index(int(j), v.shape)) for j in order]
    worst = advs[0]
    res = WindowSearch(
        worst.bdpl,
        worst,
        ctx["limit"],
        ctx["tolerance"],
        ctx["windows"],
        int(cells["evaluated"]),
        min_known,
    )
    return res, advs, v.ravel()[flat]


def scored_search(
    model: MarkovChainModel,
    values: np.ndarray,
    noise,
    score,
    *,
    top: int | None = 1,
    min_known: int = 0,
    targets: Sequence[int] | None = None,
    window_limit: int | str | None = "auto",
    tolerance: float = DEFAULT_TOLERANCE,
) -> AdversarySearch:
    """Every adversary with ``|K| >= min_known`` of ``sum_t values[X_t] + noise`` ranked by
    ``score`` (a :class:`~bdpsim.models.engines.PairScore`, one value or a vector per window
    cell) by the window reduction (exact for scores jointly quasi-convex in the pair and invariant
    to a common shift; :mod:`bdpsim.models.engines`): the supremum of each component and the
    window adversary attaining it, the ``top`` cells by the first component, every cell's values
    (:class:`~bdpsim.models.engines.AdversarySearch`; ``detail``: the first component's
    :class:`WindowSearch`). A score reading the query's values
    (:class:`~bdpsim.kernels.noise.scores.ReadsQueryValues`) gets rows on ``values`` as they are."""
    names = names_of(score)
    cells, ctx = window_cells(
        model,
        values,
        noise,
        min_known=min_known,
        targets=targets,
        window_limit=window_limit,
        tolerance=tolerance,
        score=score,
        on_values=reads_query_values(score),
    )
    res, advs, _ = _table(model, cells, ctx, top, int(min_known))
    # the other components' leading cells (with top = None: their worst only)
    others = [_table(model, cells, ctx, top or 1, int(min_known), k) for k in range(1, len(names))]
    worst = [res.worst] + [t[0].worst for t in others]
    comps = cells["components"]
    flat = np.flatnonzero(comps[0]["value"].ravel() > -np.inf)
    table = np.stack([c["value"].ravel()[flat] for c in comps], axis=1)
    return AdversarySearch(
        names,
        np.array([w.bdpl for w in worst]),
        tuple(worst),
        advs,
        table,
        float(ctx["tolerance"]),
        res,
        (advs, *(t[1] for t in others)),
    )


def markov_bdpl(
    model: MarkovChainModel,
    noise_scale: float,
    counted_states: Sequence[int] | None = None,
    state_values: Sequence[float] | None = None,
    **kw,
) -> float:
    """Exact BDPL over all adversaries of a Laplace count/sum on a chain (:func:`window_search`)."""
    f = query_values(model.states, counted_states, state_values)
    return window_search(model, f, noise_scale, **kw).bdpl
