"""The Markov Quilt mechanism for any Bayesian network (Song, Wang & Chaudhuri 2017, §4), and
the chain mechanism with estimated parameters (their §5).

**Mechanism** (paper §4.2, Thm 4.4). For each record ``X_i`` and each Markov quilt ``X_Q`` of it
in the family searched (``X_Q`` separates a nearby set ``X_N ∋ X_i`` from the remote rest ``X_R``),
the exact max-influence from the joint law ``e = max_{a != b} max_{x_Q} ln P(X_Q = x_Q | X_i = a) /
P(X_Q = x_Q | X_i = b)`` (values of positive probability), score ``card(X_N)/(eps - e)``
(``nan`` if ``e > eps``, ``inf`` if ``e = eps``, as the authors' code); ``sigma_i`` = least
score, ``sigma = max_i sigma_i``; release ``F(D) + sigma Lap(1)`` for 1-Lipschitz ``F``.
``card(X_N)`` counts *records* only: hidden nodes are not data, ``F`` does not depend on them
(the proof's coupling changes at most the records of ``X_N``), and only records are secrets.

**Quilt family searched** (the full family is exponential). Take a junction tree of the network
(min-fill, :mod:`bdpsim.kernels.graphical.junction`) and ``T_i``, the subtree of the cliques holding ``X_i``
(with variables ``V_i``). Each tree edge leaving ``T_i`` starts a *branch*; give each branch a depth
``d = 0 .. H`` (``H``: its number of levels) and let ``T_N`` be ``T_i`` plus the branch cliques
within ``d`` steps. ``X_Q`` = the separators of the edges leaving ``T_N`` (for ``d = 0`` the entry
separator, for ``d = H`` none), ``X_N`` = variables of ``T_N`` minus ``X_Q``. One more choice per
branch, the *rim* (``d = H + 1``): the whole branch, with the private variables of its leaf cliques
as quilt nodes and nothing remote behind them. The separators of a junction tree separate its two
sides in the triangulated (hence the moral) graph, so every member is a Markov quilt (the rim
trivially: its remote part is empty). On a chain (cliques ``{t, t+1}``) this is exactly the
authors' family ``{X_{i-a}, X_{i+b}}``, one-sided and trivial (``a = d_left + 1``,
``b = d_right + 1``; the rim is the quilt node ``X_1`` or ``X_T`` itself): the same ``sigma`` as
:func:`bdpsim.calibration.quilt.chain.mqm_exact` (binary variant, same node marginals). All depth
combinations are
searched when their number is at most ``max_quilts`` per record; otherwise one common depth for all
branches ("common depth"). Quilts whose joint table with ``X_i`` would exceed
:data:`~bdpsim.calibration.quilt.family.MAX_TABLE`
cells (e.g. the rim of an HMM's observations) are not searched. Depths are grown by doubling until
no deeper quilt can win (``card >= eps sigma_i`` bounds the score from below; ``card`` is
non-decreasing in each depth).

**Computing ``P(X_i, X_Q)``.** With calibrated clique beliefs ``beta``, the joint of ``V_i`` is
``prod_{C in T_i} beta_C / prod_{S inside} mu_S``; a branch's quilt law given its entry separator,
``K_d(x_S, x_Q) = P(X_{Q(d)} | X_S)``, follows level by level, ``K_{d+1} = sum K_d prod_e
beta_e / mu_{S_e}``. When ``X_i`` alone separates the branches in the moral graph (chains, trees,
polytrees at most nodes) the influence is a sum over branches and every depth combination is
scored at once; otherwise each combination is one small elimination.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np

from ...core.errors import ConfigError, check
from ...models.bayesnet.model import BayesNetModel
from .chain import (
    QuiltResult,
    approx_max_influence,
    authors_eigengap,
    authors_stationary,
    mqm_approx_search,
    quilt_scores,
)
from .family import MAX_TABLE, QuiltContext  # noqa: F401 (MAX_TABLE re-exported)

MAX_QUILTS = 200_000  # depth combinations scored per record before falling back to a common depth


@dataclass(frozen=True)
class BayesNetQuilt:
    """``sigma`` (Laplace scale for a 1-Lipschitz query) and where it comes from.

    ``record``: the record whose ``sigma_i`` is ``sigma``; ``quilt``: its best quilt's nodes,
    ``nearby``: ``card(X_N)`` (records), ``influence``: ``e``; ``sigma_per_record[r]`` (``nan``
    where not searched); ``family[r]``: ``"per-branch depths"`` or ``"common depth"``;
    ``n_quilts``: quilts scored in all.
    """

    epsilon: float
    sigma: float
    record: int
    quilt: tuple[int, ...]
    nearby: int
    influence: float
    sigma_per_record: np.ndarray
    records_searched: tuple[int, ...]
    family: dict
    n_quilts: int


def quilt_family(model: BayesNetModel, record: int) -> list[dict]:
    """Every quilt of the per-branch-depth family of ``record`` (no pruning; for checks):
    dicts with ``depths``, ``quilt`` (``X_Q``), ``nearby`` (``X_N``, all nodes), ``remote``
    (``X_R``), ``card`` (records in ``X_N``) and ``influence`` (``e``)."""
    check(
        isinstance(record, (int, np.integer)) and 0 <= record < model.n,
        "record",
        record,
        f"must be a record in 0..{model.n - 1}",
    )
    nd = QuiltContext(model).node(model.records[int(record)])
    m = len(nd.branches)
    depths = [[d for d in range(b.height + 2) if b.cells(d) <= MAX_TABLE] for b in nd.branches]
    combos = (
        np.stack(np.meshgrid(*[np.array(d) for d in depths], indexing="ij"), -1).reshape(-1, m)
        if m
        else np.zeros((1, 0), dtype=int)
    )
    e, card = nd.influences(combos)
    out = []
    for row, ek, ck in zip(combos, e, card):
        Q, N = nd.quilt(row)
        R = frozenset(range(model.size)) - Q - N
        out.append(
            {
                "depths": tuple(int(d) for d in row),
                "quilt": tuple(sorted(Q)),
                "nearby": tuple(sorted(N)),
                "remote": tuple(sorted(R)),
                "card": int(ck),
                "influence": float(ek),
            }
        )
    return out


def mqm_bayesnet(
    model: BayesNetModel, epsilon: float, *, records=None, max_quilts: int = MAX_QUILTS
) -> BayesNetQuilt:
    """General Markov Quilt mechanism ``sigma`` for a Bayesian network (module docstring).

    Parameters
    ----------
    model : BayesNetModel
    epsilon : float
        Pufferfish privacy parameter (> 0).
    records : iterable of int, optional
        Records to protect (default all; the authors' chain code protects records ``1 .. T-2``).
    max_quilts : int
        Depth combinations scored per record before the common-depth family is used.
    """
    check(isinstance(model, BayesNetModel), "model", type(model).__name__, "must be a BayesNetModel")
    eps = float(epsilon) if isinstance(epsilon, (int, float, np.number)) else math.nan
    check(math.isfinite(eps) and eps > 0, "epsilon", epsilon, "must be a finite number > 0")
    recs = list(range(model.n)) if records is None else [int(r) for r in records]
    check(
        len(recs) > 0 and all(0 <= r < model.n for r in recs),
        "records",
        recs,
        f"must be a non-empty list of records in 0..{model.n - 1}",
    )
    ctx = QuiltContext(model)
    sig = np.full(model.n, np.nan)
    out, fam, total = None, {}, 0
    for r in recs:
        res = ctx.node(model.records[r]).sigma(eps, max_quilts)
        sig[r], fam[r] = res[0], res[4]
        total += res[5]
        if out is None or res[0] > out[1]:
            out = (r, res[0], res[1], res[2], res[3])
    r, sigma, Q, card, e = cast(tuple, out)  # recs is non-empty (checked)
    return BayesNetQuilt(eps, float(sigma), r, Q, card, e, sig, tuple(recs), fam, total)


# ---------------------------------------------------------------------------------- paper §5


def mqm_estimated(
    T: int,
    epsilon: float,
    pi_est: float,
    g_est: float,
    *,
    transition=None,
    eigengap: str = "auto",
    search: str = "authors",
) -> QuiltResult:
    """Chain MQMApprox with *estimated* parameters, as the paper's §5 runs it: the mechanism knows
    only ``pi_est <= pi_min`` and ``g_est <= eigengap``, plugged into the approximate max-influence
    ``2 ln((1+D_a)/(1-D_a)) + ln((1+D_b)/(1-D_b))``, ``D_t = e^{-g_est t}/pi_est``
    (:func:`bdpsim.calibration.quilt.chain.approx_max_influence`).

    ``transition`` (optional): the true chain; then ``pi_est`` and ``g_est`` must not exceed its
    ``pi_min`` (first row of ``P^100``) and eigengap (:func:`bdpsim.calibration.quilt.setup.authors_eigengap`,
    ``eigengap`` kind), as the paper enforces. ``search = "authors"``: the authors' walk from the
    middle node (``k_findBest_2dir.m``); ``"all"``: every node ``1..T`` (paper Algorithm 1).
    """
    check(isinstance(T, (int, np.integer)) and T >= 2, "T", T, "must be an integer >= 2")
    for name, v, hi in (("pi_est", pi_est, 0.5), ("g_est", g_est, 1.0)):
        ok = isinstance(v, (int, float, np.number)) and math.isfinite(v) and 0 < v <= hi
        check(ok, name, v, f"must be a number in (0, {hi}]")
    check(search in ("authors", "all"), "search", search, "must be 'authors' or 'all'")
    if transition is not None:
        pm = float(authors_stationary(transition).min())
        g = authors_eigengap(transition, eigengap)
        check(pi_est <= pm + 1e-15, "pi_est", pi_est, f"must be <= pi_min of the chain ({pm:.6g})")
        check(g_est <= g + 1e-15, "g_est", g_est, f"must be <= the chain's eigengap ({g:.6g})")
    if search == "authors":
        res = mqm_approx_search(float(pi_est), float(g_est), float(epsilon), int(T))
    else:
        T = int(T)
        eps = float(epsilon)
        check(math.isfinite(eps) and eps > 0, "epsilon", epsilon, "must be a finite number > 0")
        noise, best = np.full(T, np.nan), (-1.0, 1, 1, 1)
        for i in range(1, T + 1):
            nm, a, b = quilt_scores(
                lambda A, B, i=i: approx_max_influence(pi_est, g_est, i, T, A, B), i, T, eps
            )
            if math.isnan(nm):
                raise ConfigError("epsilon", epsilon, "cannot find valid a/b. epsilon should be larger")
            noise[i - 1] = nm
            if nm > best[0]:
                best = (nm, i, a, b)
        res = QuiltResult(
            "markov-quilt-approx",
            eps,
            T,
            best[0],
            best[1],
            best[2],
            best[3],
            noise,
            tuple(range(1, T + 1)),
            {},
        )
    res.parameters.update({"pi_est": float(pi_est), "g_est": float(g_est), "search": search})
    return res
