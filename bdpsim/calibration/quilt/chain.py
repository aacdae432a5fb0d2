"""The Markov Quilt mechanism (Song, Wang & Chaudhuri, "Pufferfish privacy mechanisms
for correlated data", SIGMOD 2017, §4).

A faithful Python port of the authors' public MATLAB code (repository ``shs037/pufferfish``),
parameter for parameter:

* :func:`mqm_approx_search` = ``k_findBest_2dir.m`` (MQMApprox, searching from the middle node);
* :func:`node_probabilities` = ``computeProbability.m``;
* :func:`exact_ratios_binary` = ``exactRatioBinaryGenerate.m`` and :func:`mqm_exact_search_binary`
  = ``k_findBest_2dir_exact.m`` (MQMExact, binary chains);
* :func:`exact_ratios_multi` = ``exactRatioMultiGenerate.m`` and :func:`mqm_exact_search_multi`
  = ``k_findBest_2dir_exact_multi.m`` (MQMExact, any number of states);
* :func:`authors_stationary`, :func:`authors_eigengap`, :func:`time_reversal` = the set-up lines of
  ``run_synthetic.m`` / ``run_realData.m`` and ``reversibleChain_reverse.m``.

The mechanism releases ``F(D) + sigma Lap(1)`` for a 1-Lipschitz ``F`` (a count), with
``sigma = max_i sigma_i`` and ``sigma_i = min`` over the Markov quilts ``{X_{i-a}, X_{i+b}}``,
``{X_{i-a}}``, ``{X_{i+b}}``, ``{}`` of ``card(X_N) / (eps - e)``, ``card(X_N) = a + b - 1``
(``a = i``: no left quilt node, ``b = T - i + 1``: no right one; the trivial quilt has
``card = T``) and ``e`` (an upper bound on) the max-influence of the quilt on ``X_i``. Nodes are
1-indexed as in the MATLAB code.

**What the authors' code does that one might not expect (kept as they did it):**

1. MQMApprox does not search every node: it starts at ``i = floor(T/2)`` and walks left or right
   only while the best quilt of the current node is one-sided, stopping as soon as it is two-sided
   or trivial, or the walk would turn back; ``sigma`` is the largest ``sigma_i`` seen on the way.
2. MQMApprox bounds the max-influence by ``2 ln((1+D_a)/(1-D_a)) + ln((1+D_b)/(1-D_b))``,
   ``D_t = e^{-g t}/pi_min`` (the factor 2 is on the *left* side ``a``); a quilt node with
   ``D_t >= 1`` is not allowed (``nan``).
3. ``pi_min`` is the smallest entry of the first row of ``P^100`` (not the stationary law solved
   exactly); the eigengap is ``1 - |lambda_2(P)|`` in ``run_synthetic.m`` (binary chains) but
   ``(1 - |lambda_2(P P*)|)/2`` with the time reversal ``P*`` (stationary law from ``P^4096``) in
   ``run_realData.m`` (multi-state data). :func:`mqm_approx` uses the former for 2 states and the
   latter for more, as the scripts do; ``eigengap=`` chooses explicitly.
4. MQMExact searches the nodes ``i = 2 .. T-1`` only: the first and last node are never
   protected by the search (their quilts are not scored).
5. The binary MQMExact uses the node marginals ``P(X_i = 1)/P(X_i = 0)`` of the chain started at
   the first row of ``P^100`` (``computeProbability``); the multi-state code is always called
   without marginals and replaces ``P(X_i = t)/P(X_i = s)`` by its worst case over start laws,
   ``max_x P^{i-1}[x, t] / P^{i-1}[x, s]`` (``exactRatioMultiGenerate`` with two arguments).
6. ``run_realData.m`` passes a *search range* ``l = 8 ceil(ln((e^{eps/6}+1)/(e^{eps/6}-1)/pi_min)/(2 g))``
   as the chain length ``T`` (:func:`authors_search_length`); bdpsim passes the chain's length.
7. ``lambda = eps - e`` equal to 0 gives an infinite score; below 0 ``nan`` (MATLAB's ``min``
   ignores ``nan``); ties between quilts go to the first in MATLAB's column-major order
   (``a`` outer, ``b`` inner), which only affects the reported ``(a, b)``.

One addition that does not change any result: the MATLAB scores the full ``i x (T - i + 1)`` quilt
grid of a node; :func:`quilt_scores` builds it only up to the quilt size that can still win
(``card <= eps * best``, since ``e >= 0``), which gives the same minimum and the same first
minimising cell and makes ``T = 17 568`` (the whole activity data) take seconds.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import cast

import numpy as np

from ...core.errors import ConfigError, check
from ...kernels.chains.transition import stationary_distribution, transition_matrix
from ..budget import TooSlow
from .setup import (  # noqa: F401 (re-exported: the authors' set-up)
    AUTHORS_POWER,
    REVERSAL_POWER,
    authors_eigengap,
    authors_search_length,
    authors_stationary,
    exact_ratios_binary,
    exact_ratios_multi,
    node_probabilities,
    time_reversal,
)


@dataclass(frozen=True)
class QuiltResult:
    """``sigma`` (the Laplace scale for a 1-Lipschitz query) and where it comes from.

    ``node`` is the (1-indexed) node whose ``sigma_i`` is ``sigma``; ``a``, ``b`` its best quilt
    (``a = node``: no left quilt node; ``b = T - node + 1``: no right one); ``noise_per_node[i-1]``
    is ``sigma_i`` for the searched nodes and ``nan`` elsewhere; ``nodes_searched`` lists them.
    """

    method: str
    epsilon: float
    T: int
    sigma: float
    node: int
    a: int
    b: int
    noise_per_node: np.ndarray
    nodes_searched: tuple[int, ...]
    parameters: dict

    @property
    def quilt(self) -> str:
        """The best quilt of ``node`` in words, records 0-indexed as everywhere in bdpsim
        (``node``, ``a``, ``b`` keep the authors' 1-indexed convention)."""
        left, right = self.a < self.node, self.b < self.T - self.node + 1
        i = self.node - 1
        parts = ([f"X_{i - self.a}"] if left else []) + ([f"X_{i + self.b}"] if right else [])
        return "{" + ", ".join(parts) + "}" + ("" if parts else " (trivial)")


# ---------------------------------------------------------------------------------- set-up


def _axes(i: int, T: int, limit: int | None):
    """The quilt grid's ``a`` values (columns: ``1..i-1`` then ``i`` = no left node) and ``b``
    values (rows: ``1..T-i`` then ``T-i+1`` = no right node), in the MATLAB's order; with a
    ``limit``, only the values that can give ``card = a + b - 1 <= limit``."""
    if limit is None:
        return np.arange(1, i + 1), np.arange(1, T - i + 2)
    a = np.arange(1, min(i - 1, limit) + 1)
    b = np.arange(1, min(T - i, limit) + 1)
    if i <= limit:
        a = np.append(a, i)
    if T - i + 1 <= limit:
        b = np.append(b, T - i + 1)
    return a, b


def quilt_scores(delta_of, i: int, T: int, epsilon: float):
    """Noise of node ``i``'s best quilt, ``min (a + b - 1)/(eps - delta)`` over the ``(b, a)``
    grid (MATLAB: ``lambda < 0`` is ``nan``, ``min`` ignores ``nan``, the first minimum in
    column-major order wins), as ``(noise, a, b)``.

    ``delta_of(a, b)`` gives the max-influence on the grid of the values ``a`` (columns) and
    ``b`` (rows). Cells with ``card > eps * noise`` score more than ``noise`` (``delta >= 0``), so
    the grid is built only up to ``card <= limit`` and the limit is raised until
    ``limit >= eps * noise``: the minimum, and which cell attains it first, are those of the full
    grid (the full grid has ``i (T - i + 1)`` cells, too many for long chains).
    """
    limit: int | None = 64
    while True:
        if limit is not None and limit >= T:
            limit = None
        A, B = _axes(i, T, limit)
        with np.errstate(invalid="ignore", divide="ignore"):
            lam = epsilon - delta_of(A, B)
            lam[lam < 0] = np.nan
            noises = (A[None, :] + B[:, None] - 1) / lam
        flat = noises.ravel(order="F")
        if np.all(np.isnan(flat)):
            if limit is None:
                return math.nan, 1, 1
            limit *= 2
            continue
        k = int(np.nanargmin(flat))
        nm = float(flat[k])
        if limit is not None and limit < epsilon * nm:
            limit = max(2 * limit, int(math.ceil(epsilon * nm)) + 1)
            continue
        bi, ai = np.unravel_index(k, noises.shape, order="F")
        return nm, int(A[ai]), int(B[bi])


def _approx_terms(pi_min: float, eig_gap: float, t: np.ndarray) -> np.ndarray:
    """``ln((1 + D_t)/(1 - D_t))``, ``D_t = e^{-g t}/pi_min``, ``nan`` where ``D_t >= 1``."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        D = 1 / pi_min * np.exp(-eig_gap * t.astype(float))
        D[D >= 1] = np.nan
        return np.log((1 + D) / (1 - D))


def approx_max_influence(pi_min: float, eig_gap: float, i: int, T: int, a=None, b=None) -> np.ndarray:
    """MQMApprox's max-influence bound of node ``i``'s quilts on the ``(b, a)`` grid (default:
    every quilt): ``2 ln((1+D_a)/(1-D_a)) + ln((1+D_b)/(1-D_b))``, a missing side (``a = i`` or
    ``b = T - i + 1``) contributing 0, ``nan`` where some ``D_t >= 1``."""
    if a is None:
        a, b = _axes(i, T, None)
    da = np.where(a < i, _approx_terms(pi_min, eig_gap, a), 0.0)
    db = np.where(b <= T - i, _approx_terms(pi_min, eig_gap, b), 0.0)
    return 2 * da[None, :] + db[:, None]


def mqm_approx_search(pi_min: float, eig_gap: float, epsilon: float, T: int) -> QuiltResult:
    """``k_findBest_2dir.m``: MQMApprox ``sigma``, searching from the middle node (see the module
    docstring, points 1-2)."""
    T = int(T)
    check(T >= 2, "T", T, "must be an integer >= 2")
    check(math.isfinite(epsilon) and epsilon > 0, "epsilon", epsilon, "must be a finite number > 0")
    noise = np.full(T, np.nan)
    best = {}
    cur_max, cur = -1.0, None
    status = ""
    i = T // 2
    visited = []
    while True:
        check(1 <= i <= T, "T", T, "the search left the chain (cannot happen for eps > 0)")
        nm, a, b = quilt_scores(
            lambda A, B, i=i: approx_max_influence(pi_min, eig_gap, i, T, A, B), i, T, epsilon
        )
        noise[i - 1] = nm
        best[i] = (a, b)
        visited.append(i)
        if nm > cur_max:
            cur_max, cur = nm, i
        if math.isnan(nm):
            raise ConfigError("epsilon", epsilon, "cannot find valid a/b. epsilon should be larger")
        if b == T - i + 1 and a == i:
            break
        if b <= T - i and a <= i - 1:
            break
        if a == i:  # no left
            if status == "no right":
                break
            status = "no left"
            i += 1
        elif b == T - i + 1:
            if status == "no left":
                break
            status = "no right"
            i -= 1
    cur = cast(int, cur)  # the loop visits a node
    a, b = best[cur]
    return QuiltResult(
        "markov-quilt-approx",
        float(epsilon),
        T,
        float(cur_max),
        cur,
        a,
        b,
        noise,
        tuple(visited),
        {"pi_min": float(pi_min), "eigengap": float(eig_gap)},
    )


def exact_max_influence_binary(
    downstream, upstream1, upstream2, i: int, T: int, a=None, b=None
) -> np.ndarray:
    """``k_findBest_2dir_exact.m``'s max-influence of node ``i``'s quilts on the ``(b, a)`` grid:
    ``ln max(D_max U_max r_i, 1/(D_min U_min r_i))`` with a missing side's factor (and, for a
    missing left side, ``r_i``) equal to 1."""
    if a is None:
        a, b = _axes(i, T, None)
    left, right = a < i, b <= T - i
    out = []
    for col in (0, 1):
        d = np.where(right, downstream[np.where(right, b, 1) - 1, col], 1.0)
        u = np.where(left, upstream1[np.where(left, a, 1) - 1, col] * upstream2[i - 1, col], 1.0)
        out.append(np.outer(d, u))
    with np.errstate(divide="ignore"):
        return np.log(np.fmax(out[0], 1.0 / out[1]))


def exact_max_influence_multi(downstream, upstream1, upstream2, i: int, T: int, a=None, b=None) -> np.ndarray:
    """``k_findBest_2dir_exact_multi.m``'s max-influence grid of node ``i``:
    ``ln max_j downstream[b, j] upstream1[a, j] upstream2[i, j]`` (missing side: factor 1)."""
    if a is None:
        a, b = _axes(i, T, None)
    left, right = a < i, b <= T - i
    delta = -np.ones((b.size, a.size))
    for j in range(downstream.shape[1]):
        d = np.where(right, downstream[np.where(right, b, 1) - 1, j], 1.0)
        u = np.where(left, upstream1[np.where(left, a, 1) - 1, j] * upstream2[i - 1, j], 1.0)
        delta = np.fmax(delta, np.outer(d, u))
    with np.errstate(divide="ignore"):
        return np.log(delta)


def _exact_search(grid, epsilon: float, T: int, method: str, params: dict, deadline=None) -> QuiltResult:
    T = int(T)
    check(T >= 3, "T", T, "must be >= 3 (the authors' MQMExact searches the nodes 2..T-1)")
    check(math.isfinite(epsilon) and epsilon > 0, "epsilon", epsilon, "must be a finite number > 0")
    noise = np.full(T, np.nan)
    cur_max, cur, best = -1.0, 2, (1, 1)
    t0 = time.monotonic()
    for i in range(2, T):
        if deadline is not None and time.monotonic() > deadline:
            done = (time.monotonic() - t0) / max(i - 2, 1)
            raise TooSlow(
                "model.n",
                T,
                f"markov-quilt-exact stopped at node {i} of {T} after "
                f"{time.monotonic() - t0:.0f} s (~{done * 1e3:.2g} ms per record, "
                f"~{done * (T - 2) / 60:.0f} min in all; use fewer records)",
            )
        nm, a, b = quilt_scores(lambda A, B, i=i: grid(i, A, B), i, T, epsilon)
        noise[i - 1] = nm
        if nm > cur_max:
            cur_max, cur, best = nm, i, (a, b)
        if math.isnan(nm):
            cur_max = T / epsilon
            return QuiltResult(
                method, float(epsilon), T, cur_max, i, i, T - i + 1, noise, tuple(range(2, i + 1)), params
            )
    return QuiltResult(
        method, float(epsilon), T, float(cur_max), cur, best[0], best[1], noise, tuple(range(2, T)), params
    )


def mqm_exact_search_binary(
    downstream, upstream1, upstream2, epsilon: float, T: int, deadline=None
) -> QuiltResult:
    """``k_findBest_2dir_exact.m``: MQMExact for binary chains over the nodes ``2..T-1`` (past
    ``deadline``, a ``time.monotonic()`` value, :class:`~bdpsim.calibration.budget.TooSlow`)."""
    return _exact_search(
        lambda i, A, B: exact_max_influence_binary(downstream, upstream1, upstream2, i, T, A, B),
        epsilon,
        T,
        "markov-quilt-exact",
        {"variant": "binary"},
        deadline,
    )


def mqm_exact_search_multi(
    downstream, upstream1, upstream2, epsilon: float, T: int, deadline=None
) -> QuiltResult:
    """``k_findBest_2dir_exact_multi.m``: MQMExact for any number of states over nodes ``2..T-1``
    (``deadline`` as :func:`mqm_exact_search_binary`)."""
    return _exact_search(
        lambda i, A, B: exact_max_influence_multi(downstream, upstream1, upstream2, i, T, A, B),
        epsilon,
        T,
        "markov-quilt-exact",
        {"variant": "multi"},
        deadline,
    )


# ---------------------------------------------------------------------------------- front ends


def mqm_approx(
    P, T: int, epsilon: float, *, eigengap: str = "auto", pi_min: float | None = None
) -> QuiltResult:
    """MQMApprox ``sigma`` for a chain ``P`` of length ``T`` as the authors' scripts set it up:
    ``pi_min`` = min of the first row of ``P^100`` (unless given), eigengap per
    :func:`authors_eigengap`, then :func:`mqm_approx_search`.

    Parameters
    ----------
    P : array_like, shape (s, s)
        Transition matrix.
    T : int
        Chain length (``run_realData.m`` passes a search range instead, see the module docstring).
    epsilon : float
        Pufferfish privacy parameter.
    eigengap : {"auto", "chain", "reversal"}
        Eigengap definition (:func:`authors_eigengap`).
    pi_min : float, optional
        Override the smallest stationary probability.

    Returns
    -------
    QuiltResult
        ``sigma`` (Laplace scale of a 1-Lipschitz query) and the worst node's best quilt.
    """
    P = transition_matrix(P)
    pm = float(authors_stationary(P).min()) if pi_min is None else float(pi_min)
    g = authors_eigengap(P, eigengap)
    if not (pm > 0 and g > 0):
        raise ConfigError(
            "transition", P.tolist(), f"MQMApprox needs pi_min > 0 and eigengap > 0 (got {pm:.3g}, {g:.3g})"
        )
    res = mqm_approx_search(pm, g, epsilon, T)
    res.parameters["eigengap_kind"] = (
        eigengap if eigengap != "auto" else ("chain" if P.shape[0] == 2 else "reversal")
    )
    return res


def mqm_exact(
    P, T: int, epsilon: float, *, initial=None, variant: str = "auto", deadline=None
) -> QuiltResult:
    """MQMExact ``sigma`` for a chain ``P`` of length ``T``.

    Parameters
    ----------
    P : array_like, shape (s, s)
        Transition matrix.
    T : int
        Chain length (>= 3; the authors' search covers the nodes ``2..T-1``).
    epsilon : float
        Pufferfish privacy parameter.
    initial : array_like or "stationary", optional
        Start law for the node marginals of the binary variant: by default the first row of
        ``P^100``, as the authors (``run_synthetic.m``; the one default everywhere — ``bdpsim
        calibrate`` uses it for a stationary chain); ``"stationary"`` solves ``w P = w`` exactly
        (differs from the authors' in the last digits, e.g. sigma 1.7033613150923705 vs
        1.7033613167630903 for ``symmetric_chain(10)``, T = 100, eps = 5); or any law.
    variant : {"auto", "binary", "multi"}
        ``binary`` (default for 2 states, ``run_synthetic.m``): node marginals of the chain started
        at ``initial``; ``multi`` (default for more states, ``run_realData.m``): worst-case
        marginals over start laws (``initial`` is not used).
    deadline : float, optional
        A ``time.monotonic()`` value: the search raises
        :class:`~bdpsim.calibration.budget.TooSlow` when it is still running then.

    Returns
    -------
    QuiltResult
        ``sigma`` (Laplace scale of a 1-Lipschitz query) and the worst node's best quilt.
    """
    P = transition_matrix(P)
    if variant == "auto":
        variant = "binary" if P.shape[0] == 2 else "multi"
    if variant == "binary":
        if isinstance(initial, str):
            check(initial == "stationary", "initial", initial, "must be a start law or 'stationary'")
            ini = stationary_distribution(P)
        else:
            ini = authors_stationary(P) if initial is None else np.asarray(initial, dtype=float)
        c = node_probabilities(T, P, ini)
        down, up1, up2 = exact_ratios_binary(P, T, c[:, 0], c[:, 1])
        res = mqm_exact_search_binary(down, up1, up2, epsilon, T, deadline)
        res.parameters["initial"] = ini.tolist()
        return res
    if variant == "multi":
        down, up1, up2 = exact_ratios_multi(P, T)
        return mqm_exact_search_multi(down, up1, up2, epsilon, T, deadline)
    raise ConfigError("variant", variant, "must be 'auto', 'binary' or 'multi'")
