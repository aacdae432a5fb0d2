"""``bdpsim.account``: the privacy accountant of a list of releases on correlated records.

Every number is the **worst adversary's** — the supremum over every adversary ``(i, K, x_K, x,
x')`` (``|K|`` in ``sizes``) and both orders of its pair — of a divergence of the two *joint*
output laws of all the releases (independent noises, the same records):

* ``delta(eps)``: the privacy profile ``sup H_eps`` (hockey-stick divergence); ``epsilon(delta)``
  its inverse; ``advantage = delta(0)`` (total variation);
* ``renyi(alpha)``: ``sup D_alpha`` for ``alpha`` in ``(1, inf]``; ``bdpl`` is ``alpha = inf``,
  the joint BDPL (for one release exactly :func:`bdpsim.exact_bdpl`);
* ``tpr_at(fpr)`` and ``beta(alpha)``: the optimal attack's true-positive rate and trade-off.

Each is a :class:`~bdpsim.accounting.values.Value`: its kind (exact, certified bracket, Monte
Carlo), its interval, and the adversary attaining it. They measure the leakage **on the given
data model** (Bayesian DP): they are not a DP guarantee, which holds for every data law.

How the joint laws are computed: :mod:`bdpsim.accounting.pairs`; the search over adversaries and
why it may stop at windows: :mod:`bdpsim.accounting.search`; the naive answers beside them (the
summed BDPLs, the profiles composed as if independent): :meth:`Account.naive`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..adversary import Adversary, is_upward_closed, known_sets, known_sizes
from ..core.errors import ConfigError, NotAvailable
from ..kernels.noise.checks import MAX_PROFILE_EPSILON
from ..kernels.noise.protocols import GaussianKernel
from ..kernels.roots import monotone_root
from ..mechanisms.histogram import ATTACK_MAX_N, THREE_STATE_EVERY_MAX_N, THREE_STATE_MAX_N
from ..mechanisms.protocols import ReleasesEveryRecord
from ..models.engines import HasScanRows
from ..models.protocols import FactorGraph, HasAdditiveLaw, HasGaussianConditional, HasStates, MarkovChain
from ..queries import AdditiveQuery, SumQuery
from . import search as S
from .asks import Derived, check_alpha, check_delta, check_epsilon, check_fpr
from .boxes import BoxDelta, boxes_reach, three_state_search_cost
from .pairs import CONFIDENCE, Components, JointPair, ReleasePlan, box_scale, components, plan
from .releases import HistogramRelease, Release, as_releases, flatten
from .several import SweepCost, check_sweep_cost, sweep_cost, window_sweep
from .sweep import (
    LOWER_DRAWS,
    LOWER_SHARE,
    LOWER_TOP,
    STAGE1_DRAWS,
    SWEEP_TOLERANCE,
)
from .values import MONTE_CARLO, Value, bracket, exact

#: adversaries an exhaustive search may enumerate (models without a window or region search)
MAX_EXHAUSTIVE = 200_000
#: longest chain whose two Laplace releases (the two-state histogram) are searched over every
#: adversary by box brackets (their cost grows like n^3: about 4 n^2 windows of n + 1 atoms;
#: measured, gamma 2, the attack command's CPU: n = 8: 4 s, 18: 19 s, 24: 38 s,
#: scripts/benchmarks/benchmark_histogram_attack.py); longer: Monte Carlo
BOX_SEARCH_MAX_N = ATTACK_MAX_N
#: adversaries tried by :meth:`Account._epsilon_by_adversaries` before it bisects on the search
EPSILON_ROUNDS = 4
#: tries of ``epsilon(delta)`` of a Monte Carlo list on a chain: an adversary's own profile, then
#: the window sweep at its upper end (which names the next adversary where it does not settle it)
EPSILON_TRIES = 4
#: the least end of the profile's grid (the BDPL's upper end may be 0: two equal laws)
MIN_REACH = 1e-9
#: the draws of the Rényi curve's sweep (its own, beside those of ``delta``)
RENYI_TAG = 7
#: most records an account takes: every exact joint law here passes over every record at least once
#: per adversary (and the known-set sizes of ``sizes = 'all'`` are listed), so a larger model is
#: refused before any work
MAX_RECORDS = 1_000_000


@dataclass
class Account(Derived):
    """The accountant of ``releases`` on ``model`` (:func:`account`)."""

    model: Any
    releases: tuple
    flat: list[Release]
    adversary: Adversary | None
    sizes: tuple[int, ...]
    targets: tuple[float, float] | None
    seed: int = 0
    _plan: ReleasePlan | None = None
    _comps: Components | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ structure
    @property
    def gaussian(self) -> bool:
        return isinstance(self.model, HasGaussianConditional)

    @property
    def plan(self) -> ReleasePlan:
        assert self._plan is not None
        return self._plan

    @property
    def comps(self) -> Components:
        assert self._comps is not None
        return self._comps

    @property
    def method(self) -> str:
        """How the joint laws are computed (one release, independent, enumeration, Monte Carlo,
        closed form)."""
        return "closed form (Gaussian records)" if self.gaussian else self.plan.method

    def pair(self, adversary: Adversary, laws: list[np.ndarray] | None = None) -> JointPair:
        """The joint output laws of ``adversary`` (discrete records; kept for box brackets, whose
        pair caches each bracket it computed); ``laws``: its :meth:`_packed_laws` if already
        computed."""
        if self.gaussian:
            raise NotAvailable("Gaussian records have a closed form, not a lattice pair")
        key = ("pair", adversary)
        if key in self._cache:
            return self._cache[key]
        if laws is None:
            laws = self._packed_laws(adversary)
        atoms = self.comps.decode(laws[0].size, self.model.n)
        pair = JointPair(self.plan, atoms, laws[0], laws[1], seed=self.seed)
        if self.plan.method == "boxes":
            self._cache[key] = pair
        return pair

    def _packed_laws(self, adversary: Adversary) -> list[np.ndarray]:
        """The adversary's two laws of the packed sums (:attr:`comps`), padded to one size."""
        g = self.comps.packed.astype(np.int64)
        laws = []
        for v in (adversary.x, adversary.x_prime):
            try:
                laws.append(np.asarray(self.model.additive_law(adversary.condition(v), g), dtype=float))
            except ConfigError:
                raise NotAvailable(
                    f"adversary {adversary}: a conditioning event has probability zero"
                ) from None
        size = max(w.size for w in laws)
        return [np.pad(w, (0, size - w.size)) for w in laws]

    # ------------------------------------------------------------------ Gaussian records
    def _gauss_mu(self, i: int, known: Sequence[int]) -> float:
        """``mu = |a| |x - x'| / sqrt(v + sigma_eff^2)``: the mean of the sum moves by ``a (x - x')``
        and its conditional variance is ``v`` given the known records and the target."""
        cond = self.model.conditional({k: 0.0 for k in (*known, i)})
        col = list(cond.known).index(i)
        a = 1.0 + float(cond.gain[:, col].sum()) if cond.unknown else 1.0
        v = float(np.sum(cond.cov)) if cond.unknown else 0.0
        x, xp = self.targets if self.targets is not None else (self.adversary.x, self.adversary.x_prime)  # type: ignore[union-attr]
        s = self.plan.reduced[0][1].sigma  # type: ignore[attr-defined]
        return abs(a) * abs(x - xp) / math.sqrt(v + s * s)

    def _gauss_worst(self) -> tuple[float, Adversary]:
        if "gauss" not in self._cache:
            if self.adversary is not None:
                adv = self.adversary
                self._cache["gauss"] = (self._gauss_mu(adv.i, adv.known), adv)
            else:
                best: tuple[float, tuple | None] = (-1.0, None)
                n = self.model.n
                for i in range(n):
                    for K in known_sets(n, i, self.sizes):
                        mu = self._gauss_mu(i, K)
                        if mu > best[0]:
                            best = (mu, (i, K))
                i, K = best[1]  # type: ignore[misc]
                x, xp = self.targets  # type: ignore[misc]
                vals = tuple(float(self.model.mean[k]) for k in K)
                self._cache["gauss"] = (best[0], Adversary(i, tuple(K), vals, x, xp))
        return self._cache["gauss"]

    # ------------------------------------------------------------------ the search
    @property
    def engine(self):
        """The model's exact engine whose search over every adversary the accountant's scores ride on
        (:func:`~bdpsim.accounting.search.packed_engine`; built once)."""
        if "engine" not in self._cache:
            self._cache["engine"] = S.packed_engine(self.model, self.comps, self.plan.reduced[0][1])
        return self._cache["engine"]

    def _candidates(self, what: tuple, top: int = 1) -> tuple[list[S.Candidate], float]:
        """Searched adversaries, best first, and the truncation tolerance of the search."""
        key = ("cand", what, top)
        if key in self._cache:
            return self._cache[key]
        if self.adversary is not None:
            out = ([S.Candidate(self.adversary, math.nan)], 0.0)
        else:
            score = (
                BoxDelta(self.plan, self.comps, what[1])
                if self.plan.method == "boxes" and what[0] == "delta" and top == 1
                else S.row_score(what, self.plan, self.comps, self.seed)
            )
            if self._sweeps_every():
                out = S.engine_search(self.engine, score, self.sizes[0], top)
            elif what[0] == "proxy":  # a Monte Carlo list: no exact number to score each adversary by
                raise NotAvailable(
                    f"releases {self._labels()}: a Monte Carlo list over every adversary is "
                    f"{self._no_sweep()}"
                )
            else:
                out = (self._exhaustive(what, top), 0.0)
        self._cache[key] = out
        return out

    def _exhaustive(self, what: tuple, top: int) -> list[S.Candidate]:
        """Every adversary ``(i, K, x_K, {x, x'})``, each scored by its own pair (small models)."""
        n, s = self.model.n, self.model.states
        count = sum(len(list(known_sets(n, 0, [k]))) * s**k for k in self.sizes) * n * s * (s - 1) // 2
        if count > MAX_EXHAUSTIVE:
            raise NotAvailable(
                f"the exhaustive search over {count:.3g} adversaries is refused (limit {MAX_EXHAUSTIVE}); "
                "use sizes = 'all' on a chain or a network (window search) or give adversary="
            )
        rows = []
        for i in range(n):
            for K in known_sets(n, i, self.sizes):
                for xk in itertools.product(range(s), repeat=len(K)):
                    for x, xp in itertools.combinations(range(s), 2):
                        adv = Adversary(i, tuple(K), tuple(xk), x, xp)
                        try:
                            pair = self.pair(adv)
                        except NotAvailable:  # a conditioning event of probability zero
                            continue
                        rows.append(S.Candidate(adv, _number(pair, what).upper))
        rows.sort(key=lambda c: -c.score)
        return rows[:top]

    def check_cost(self) -> None:
        """Refuse up front (``NotAvailable`` with the estimate) a list whose exact joint law is too
        large: the enumeration of lattice releases over the whole query range."""
        if self.gaussian or self.plan.method != "enumeration":
            return
        from ..kernels.privacy import joint as J

        cols = [c for c, _ in self.plan.reduced]
        size = int(np.prod([self.comps.sizes[c] for c in set(cols)]))
        atoms = self.comps.decode(size, self.model.n)
        cells = 1.0
        for c, z in self.plan.reduced:
            cells *= float(J.grid_size(z, np.unique(atoms[:, c])))
        cost = cells * size
        if cost > J.MAX_ENUMERATION * 100:
            raise NotAvailable(
                f"{len(self.plan.reduced)} lattice releases ({self._labels()}): the exact joint law needs "
                f"about {cost:.3g} "
                f"cells x atoms per adversary (limit {J.MAX_ENUMERATION * 100:.3g}); use fewer "
                "releases, Gaussian noise (one release by its sufficient statistic) or one adversary"
            )

    def _worst(self, what: tuple) -> Value:
        """The supremum of ``what`` over every adversary, with its kind and the adversary."""
        self.check_cost()
        if what[0] == "renyi" and self.plan.method in ("monte carlo", "boxes"):
            drawn = self._renyi_drawn(float(what[1]))
            if drawn is not None:
                return drawn
        if self.plan.method == "monte carlo" and self.adversary is None:
            return self._worst_bdpl_mc() if what[0] == "bdpl" else self._worst_mc(what)
        if what[0] == "renyi" and self.adversary is None:
            return self._worst_renyi(what)
        cands, tol = self._candidates(what)
        best = self._measured(cands, what, lambda v: v.upper)
        if tol > 0 and math.isfinite(best.upper):
            slack = tol * (math.exp(what[1]) if what[0] == "delta" else 1.0)
            best = bracket(
                best.lower, best.upper + slack, best.adversary, f"window truncation <= {slack:.1e}"
            )
        return best

    def _worst_bdpl_mc(self) -> Value:
        """The joint BDPL of a Monte Carlo list over every adversary, certified: at least the
        diagonal supremum of the worst window (Laplace releases), at most the largest ratio of the
        query laws over every window."""
        if not self._sweeps_every():
            raise NotAvailable(
                f"releases {self._labels()}: the joint BDPL of a Monte Carlo list over every adversary is "
                f"{self._no_sweep()}"
            )
        if len({c for c, _ in self.plan.reduced}) > 1:  # several queries: each window's own bracket
            cands, tol = self._candidates(("bdpl",))
            best = self._measured(cands, ("bdpl",), lambda v: v.upper)
            return bracket(best.lower, best.upper + tol, best.adversary, best.note)
        from ..kernels.noise.protocols import LaplaceKernel

        ratio = S.bound_score("ratio", self.plan, self.comps)
        hi_c, tol = S.engine_search(self.engine, ratio, self.sizes[0], 1)
        lo, adv = -math.inf, hi_c[0].adversary
        if all(isinstance(z, LaplaceKernel) for _, z in self.plan.reduced):
            lo_c, _ = S.engine_search(
                self.engine, S.bound_score("diagonal", self.plan, self.comps), self.sizes[0], 1
            )
            lo, adv = lo_c[0].score, lo_c[0].adversary
        lo = max(lo, self.pair(adv).bdpl().lower)
        return bracket(
            lo,
            hi_c[0].score + tol,
            adv,
            "lower: this adversary (equal outputs, draws); upper: the query laws' largest ratio "
            "(Laplace releases: their rate times the laws' coupling reach) over every window",
        )

    def _renyi_drawn(self, alpha: float) -> Value | None:
        """``renyi(alpha)`` of a list measured by Monte Carlo (or by box brackets, which give no
        Rényi divergence) from its privacy profile (:mod:`bdpsim.accounting.renyi`): the given
        adversary's, or the supremum over every adversary of a chain; ``None`` where the profile's
        bounds do not apply (several queries, no finite certified BDPL, not a chain)."""
        found = self._profile_bounds()
        return None if found is None else found.renyi(alpha)

    def _profile_bounds(self):
        """The profile's bounds of a Monte Carlo list (:mod:`bdpsim.accounting.renyi`), once per
        account; ``None`` where they do not apply."""
        key = "profile bounds"
        if key not in self._cache:
            try:
                every = self.adversary is None
                self._cache[key] = (
                    self._renyi_bounds_every() if every else self._renyi_bounds_one(self.adversary)
                )
            except NotAvailable:
                self._cache[key] = None
        return self._cache[key]

    def _renyi_bounds_one(self, adversary: Adversary):
        """The given adversary's profile: certified ends (no noise; the monotone coupling) on
        ``[0, L]`` and both orders' Monte Carlo ends on one set of fresh draws."""
        from . import renyi as R

        pair = self.pair(adversary)
        L = max(pair.bdpl().upper, MIN_REACH)  # two equal laws: BDPL 0, the grid must increase
        if not (math.isfinite(L) and L <= MAX_PROFILE_EPSILON):
            return None
        W1, W2 = (w[None, :] for w in self._packed_laws(adversary))
        coarse = np.linspace(0.0, L, R.CAP_POINTS)
        caps = window_sweep(self.plan, self.comps, coarse, self.seed, measure=False)
        caps(W1, W2)
        cap_up = caps.uppers()[0]
        end = R.grid_end(coarse, cap_up)
        fine = np.linspace(0.0, end, R.LOWER_CELLS + 1)
        laws = [caps.pair_laws(W1[0], W2[0])]
        failure = 1.0 - CONFIDENCE
        rng = np.random.default_rng([self.seed, 3]).spawn(1)[0]  # a child stream of the seed
        mean, low, up = caps.lower_ends(
            laws, caps.new_draws(LOWER_DRAWS, rng), fine, failure / (4 * fine.size)
        )
        points, upper = R.envelope(
            np.concatenate([fine, coarse]), np.concatenate([up[0].max(axis=1), cap_up])
        )
        note = (
            f"this adversary: both orders of its profile by Monte Carlo on {LOWER_DRAWS} draws at "
            f"{fine.size} values of eps in [0, {end:.3g}], certified ends beyond up to its BDPL's "
            f"certified upper end {L:.4g}; D_alpha from the profile's integral representation"
        )
        return R.ProfileBounds(
            points, upper, float(L), fine, [adversary], [low[0]], [mean[0]], [None], note, 1.0 - failure
        )

    def _renyi_bounds_every(self):
        """The supremum over every window of a chain (:mod:`bdpsim.accounting.renyi`)."""
        from . import renyi as R

        if not self._sweeps_every():
            return None
        L = max(self._worst_bdpl_mc().upper, MIN_REACH)  # two equal laws: BDPL 0, the grid must increase
        if not (math.isfinite(L) and L <= MAX_PROFILE_EPSILON):
            return None
        failure = 1.0 - CONFIDENCE
        engine = self._sweep_engine()
        tol = self._sweep_tolerance(engine)
        coarse = np.linspace(0.0, L, R.CAP_POINTS)
        caps = window_sweep(self.plan, self.comps, coarse - tol, self.seed, failure=failure, measure=False)
        S.engine_search(engine, caps, self.sizes[0], 1)
        cap_up = caps.uppers()[0]
        end = R.grid_end(coarse, cap_up)
        fine = np.linspace(0.0, end, R.GRID_CELLS + 1)
        sweep = window_sweep(
            self.plan,
            self.comps,
            fine - tol,
            self.seed,
            failure=failure,
            tag=RENYI_TAG,
            score_at=R.GRID_CELLS // 4,
        )
        top, _ = S.engine_search(engine, sweep, self.sizes[0], LOWER_TOP)
        up, _, windows, again = sweep.uppers()
        points, upper = R.envelope(np.concatenate([fine, coarse]), np.concatenate([up, cap_up]))
        sure, laws, drawn = self._top_split(top, sweep, ("monte carlo", "boxes"))
        advs, certified = [a for a, _ in sure], [p for _, p in sure]
        dense = np.linspace(0.0, end, R.LOWER_CELLS + 1)
        lows, means = R.lower_ends(sweep, laws, dense, LOWER_SHARE * failure)
        note = R.sweep_note(windows, again, sweep.stage2_draws, tol, end, L, self._scanned)
        return R.ProfileBounds(
            points,
            upper,
            float(L),
            dense,
            advs + drawn,
            [None] * len(advs) + lows,
            [None] * len(advs) + means,
            certified + [None] * len(drawn),
            note,
            1.0 - failure,
        )

    def _worst_renyi(self, what: tuple) -> Value:
        """Every window scored by a coarse certified upper end; the best few measured at the full
        resolution; the supremum is at most the larger of their upper ends and the next window's
        coarse one."""
        k = 3
        cands, tol = self._candidates(what, k + 1)
        best = self._measured(cands[:k], what, lambda v: v.upper)
        upper = max(best.upper, cands[k].score if len(cands) > k else -math.inf) + tol
        return bracket(best.lower, upper, best.adversary, best.note)

    def _measured(self, cands: list[S.Candidate], what: tuple, key) -> Value:
        """``what`` of each candidate's pair; the one with the largest ``key`` (its adversary attached)."""
        best: Value | None = None
        for c in cands:
            v = _number(self.pair(c.adversary), what)
            if best is None or key(v) > key(best):
                best = Value(v.value, v.lower, v.upper, v.kind, c.adversary, v.note, v.confidence)
        if best is None:
            raise NotAvailable("no adversary has two target values of positive probability")
        return best

    def _worst_mc(self, what: tuple) -> Value:
        """``delta`` on a chain: every window by Monte Carlo on common draws (:meth:`_swept`), an
        interval of the supremum over every adversary. Otherwise (or where the sweep does not
        apply): the worst of the few best windows of a Gaussian-proxy search, measured by Monte
        Carlo (a value at most the supremum); for ``delta`` on a chain its interval then runs from
        that window's Monte Carlo lower end to a certified upper end over every window
        (:meth:`_certified_mc_upper`)."""
        eps = float(what[1]) if what[0] == "delta" else 1.0
        chain = self._sweeps_every()
        if what[0] == "delta" and chain:
            swept = self._swept(eps)
            if swept is not None:
                return swept
        cands, _ = self._candidates(("proxy", eps), S.MC_TOP)
        best = self._measured(cands, what, lambda v: v.value)
        note = (
            f"{best.note}; the worst of the {len(cands)} best windows of a Gaussian-proxy search"
            f" [{best.lower:.4g}, {best.upper:.4g}] (at most the supremum over every adversary)"
        )
        if what[0] == "delta" and chain:
            upper, how = self._certified_mc_upper(eps)
            note += (
                f"; every adversary: <= {upper:.4g} ({how}, certified); the interval is the "
                "supremum's: that window's lower end to this one"
            )
            lower = min(best.lower, upper)
            return Value(best.value, lower, upper, best.kind, best.adversary, note, best.confidence)
        return Value(best.value, best.lower, best.upper, best.kind, best.adversary, note, best.confidence)

    def _swept(self, eps: float, failure: float = 1.0 - CONFIDENCE) -> Value | None:
        """``delta(eps)`` over every window of a chain by Monte Carlo on common draws
        (:mod:`bdpsim.accounting.sweep`): an interval that holds for the supremum over every
        adversary; ``None`` where the sweep does not apply (several queries, a noise whose
        likelihood ratios overflow, ``eps`` beyond the largest of a profile). Kept per ``(eps,
        failure)``."""
        key = ("swept", float(eps), float(failure))
        if key not in self._cache:
            self._cache[key] = self._sweep(eps, failure)
        return self._cache[key]

    def _sweeps_every(self) -> bool:
        """Whether the search over every adversary scores every window (a chain) or region (a
        network) — the sweeps' condition: known-set sizes upward closed."""
        model = self.model
        return (_is_chain(model) or _is_network(model)) and is_upward_closed(self.sizes, model.n)

    def _labels(self) -> str:
        """The first releases' labels, for messages."""
        return "; ".join(r.label for r in self.flat[:2]) + (", ..." if len(self.flat) > 2 else "")

    def _no_sweep(self) -> str:
        """Why a Monte Carlo list is not searched over every adversary here, and what to give."""
        sizes = "" if is_upward_closed(self.sizes, self.model.n) else f", known-set sizes {list(self.sizes)}"
        return (
            "searched only on a chain or a network with sizes = 'all' (every window or region), here "
            f"a {type(self.model).__name__}{sizes}; give sizes = 'all' or adversary="
        )

    @property
    def _scanned(self) -> str:
        """What the search over every adversary scores, in the notes."""
        return "windows" if _is_chain(self.model) else "regions"

    def _sweep_engine(self):
        """The engine of the sweeps' scans: a chain's with the coarser window truncation
        :data:`~bdpsim.accounting.sweep.SWEEP_TOLERANCE`; a network's region search as it is (it
        truncates nothing)."""
        if _is_chain(self.model):
            return self.engine.with_search_options(tolerance=SWEEP_TOLERANCE)
        return self.engine

    def _sweep_tolerance(self, engine) -> float:
        """The window truncation of the sweep's scan (a scan without scores, once per account): a
        truncated scan bounds ``delta(eps) <= delta_searched(eps - tolerance)``."""
        if "sweep tolerance" not in self._cache:

            def nothing(W1, W2):
                return np.zeros(W1.shape[0]), np.zeros(W1.shape[0])

            self._cache["sweep tolerance"] = S.engine_search(engine, nothing, self.sizes[0], 1)[1]
        return self._cache["sweep tolerance"]

    def _sweep_upper(self, eps: float, failure: float, tag: int = 0):
        """The sweep's scan and its upper ends at ``eps`` (every window scored at ``eps`` less the
        truncation, :meth:`_sweep_tolerance`): ``(sweep, top windows, upper end, certified upper
        end, windows, refined, truncation)``; ``None`` where it does not apply. ``tag`` names the
        draws (a try whose ``eps`` was chosen from other draws takes its own)."""
        if eps > MAX_PROFILE_EPSILON:
            return None
        try:
            engine = self._sweep_engine()
            tol = self._sweep_tolerance(engine)
            sweep = window_sweep(self.plan, self.comps, eps - tol, self.seed, failure=failure, tag=tag)
            top, _ = S.engine_search(engine, sweep, self.sizes[0], LOWER_TOP)
            upper, certified, windows, again = sweep.upper()
        except NotAvailable:
            return None
        return sweep, top, upper, certified, windows, again, tol

    def _top_split(self, top, sweep, drawn_methods: tuple[str, ...]):
        """The sweep's best windows split in two: ``(adversary, pair)`` of those whose pair is
        bracketed (its method not in ``drawn_methods``: the query known up to the target), and the
        others' laws as the sweep reads them, with their adversaries (measured on fresh draws)."""
        sure, laws, drawn = [], [], []
        for cand in top:
            w = None if ("pair", cand.adversary) in self._cache else self._packed_laws(cand.adversary)
            pair = self.pair(cand.adversary, w)  # each window's laws over the whole chain once
            if pair.method not in drawn_methods:
                sure.append((cand.adversary, pair))
                continue
            laws.append(sweep.pair_laws(*(w if w is not None else self._packed_laws(cand.adversary))))
            drawn.append(cand.adversary)
        return sure, laws, drawn

    def _sweep(self, eps: float, failure: float) -> Value | None:
        found = self._sweep_upper(eps, failure)
        if found is None:
            return None
        sweep, top, upper, certified, windows, again, tol = found
        sure, laws, drawn = self._top_split(top, sweep, ("monte carlo",))
        ends: list[tuple[float, float, bool, Adversary]] = []  # estimate, lower end, certified
        for adv, pair in sure:
            v = pair.delta(eps)
            ends.append((v.value, v.lower, True, adv))
        if laws:
            share = LOWER_SHARE * failure / (2 * len(laws))
            mean, low, _ = sweep.lower_ends(laws, sweep.lower_draws(), eps, share)
            ends += [
                (float(m.max()), float(lo.max()), False, adv)
                for m, lo, adv in zip(mean[:, 0], low[:, 0], drawn)
            ]
        how = (
            f"every adversary: {windows} {self._scanned}, each by Monte Carlo on {STAGE1_DRAWS} common draws"
            f" ({again} again on {sweep.stage2_draws} fresh ones) below its certified end ({sweep.CAPS}),"
            " a window whose query is known up to the target by its certified"
            f" bracket; upper ends at eps - {tol:.1e} (the window truncation)"
        )
        # the largest lower end; the estimate and adversary of the largest estimate (a certified
        # window, lower end = estimate, must not hide a drawn one estimated higher)
        lower = max(e[1] for e in ends)
        est, _, _, adv = max(ends, key=lambda e: e[0])
        sure = [e for e in ends if e[2]]
        if sure:  # certified where that costs at most twice the Monte Carlo interval's width
            _, lo_c, _, adv_c = max(sure, key=lambda e: e[1])
            if certified - lo_c <= 2.0 * (upper - min(lower, upper)):
                return bracket(lo_c, certified, adv_c, how + "; every end certified")
        note = (
            f"{how}; the lower end: the worst of the {len(top)} best windows ({LOWER_DRAWS} fresh"
            " draws where Monte Carlo); the interval holds for the supremum"
        )
        lower = float(min(lower, upper))
        est = float(min(max(est, lower), upper))
        return Value(est, lower, float(upper), MONTE_CARLO, adv, note, 1.0 - failure)

    def _certified_mc_upper(self, eps: float) -> tuple[float, str]:
        """The least of two certified upper ends of ``delta(eps)`` over every window of a chain: the
        query laws' own divergence (no noise) and the coupling bound
        (:mod:`bdpsim.accounting.coupling`), each with the window truncation's slack."""
        from .coupling import coupling_score

        found = []
        for how, score in (
            ("the query laws without noise", S.bound_score("noise-free", self.plan, self.comps, eps)),
            ("the monotone coupling of the query laws", coupling_score(self.plan, self.comps, eps)),
        ):
            if score is None:
                continue
            top, tol = S.engine_search(self.engine, score, self.sizes[0], 1)
            slack = tol * math.exp(eps)
            found.append((min(top[0].score + slack, 1.0), how))
        return min(found)

    # ------------------------------------------------------------------ public numbers
    def delta(self, epsilon: float) -> Value:
        """``sup_adv max(H_eps(p||q), H_eps(q||p))``: the joint privacy profile at ``epsilon``."""
        e = check_epsilon(epsilon)
        if self.gaussian:
            from ..kernels.privacy.gaussian import gaussian_delta

            mu, adv = self._gauss_worst()
            return exact(gaussian_delta(mu, e), adv)
        return self._worst(("delta", e))

    def renyi(self, alpha: float) -> Value:
        """``sup_adv max(D_alpha(p||q), D_alpha(q||p))`` for ``alpha`` in ``(1, inf]``."""
        a = check_alpha(alpha)
        if self.gaussian:
            from ..kernels.privacy.gaussian import gaussian_renyi

            mu, adv = self._gauss_worst()
            return exact(gaussian_renyi(mu, a), adv)
        return self._worst(("bdpl",) if math.isinf(a) else ("renyi", a))

    def epsilon(self, delta: float, tol: float = 1e-4) -> Value:
        """The least ``eps >= 0`` with ``delta(eps) <= delta`` (a bracket from the two ends of each
        ``delta(eps)``; bisection to ``tol``: :func:`~bdpsim.kernels.roots.monotone_root`), with
        the adversary attaining it: the worst adversary of ``delta`` at the bracket's upper end.
        Where ``delta`` still exceeds ``delta`` at the largest ``eps`` of a profile (100), the
        bracket is ``[100, BDPL]``: ``delta`` is 0 beyond the joint BDPL (its certified upper end;
        ``inf`` only where the BDPL is), with the adversary of ``delta(100)``."""
        d = check_delta(delta)
        if self.gaussian:
            from ..kernels.privacy.gaussian import gaussian_epsilon

            mu, adv = self._gauss_worst()
            return exact(gaussian_epsilon(mu, d), adv)
        if self.plan.method == "monte carlo":
            return self._epsilon_mc(d)
        if self.adversary is None:
            found = self._epsilon_by_adversaries(d, tol)
            if found is not None:
                return found
        lo, hi = _profile_root(self.delta, d, tol)
        if math.isinf(hi):
            return self._past_profile(lo, d, self.delta(MAX_PROFILE_EPSILON).adversary)
        adv = self.delta(hi).adversary
        return bracket(lo, hi, adv, f"bisection to {tol:g}")

    def _past_profile(self, lo: float, d: float, adversary) -> Value:
        """``epsilon(d)`` where ``delta(100) > d`` may hold (the upper end of the profile's bracket
        there exceeds ``d``): at least ``lo``, at most the joint BDPL's certified upper end
        (``delta = 0`` beyond it; ``inf`` only where that end is), with ``adversary``."""
        b = self.bdpl
        hi = float(b.upper) if b.kind != MONTE_CARLO else math.inf
        note = f"delta({MAX_PROFILE_EPSILON:g}) > {d:g} (the largest eps of a profile)"
        if math.isfinite(hi):
            note += f"; delta = 0 beyond the joint BDPL's certified upper end {hi:.4g}"
        return bracket(min(lo, hi), hi, adversary, note)

    def _epsilon_by_adversaries(self, d: float, tol: float) -> Value | None:
        """``epsilon(d)`` over every adversary as the largest of the adversaries' own: ``eps <= e``
        holds for the supremum exactly when ``delta_adv(e) <= d`` for every adversary. An adversary's
        own root by bisection on its pair (cheap), then one search at the root's upper end: where
        every adversary's ``delta`` is ``<= d`` there, the pair's bracket is the supremum's (its
        lower end is one adversary's, at most the supremum's); else the search's worst adversary is
        the next one tried (:data:`EPSILON_ROUNDS` rounds; ``None``: not settled, bisect on the
        search itself)."""
        adv = self.delta(1.0).adversary
        for _ in range(EPSILON_ROUNDS):
            pair = self.pair(adv)
            lo, hi = _profile_root(pair.delta, d, tol)
            if math.isinf(hi):  # this adversary's eps may be past the profile: bounded by the BDPL
                return self._past_profile(lo, d, adv)
            for e in (hi, hi + tol):  # the second: past the search's truncation slack
                v = self.delta(e)
                if v.upper <= d:
                    note = (
                        f"bisection to {tol:g} on this adversary; every adversary: delta({e:.6g}) "
                        f"<= {v.upper:.3g} (one search)"
                    )
                    return bracket(lo, e, adv, note)
                if v.adversary != adv:
                    break
            if v.adversary == adv:  # the same adversary again: bisect on the search instead
                return None
            adv = v.adversary
        return None

    def _epsilon_mc(self, d: float) -> Value:
        """``epsilon(d)`` of a Monte Carlo list. An adversary's profile on a grid of ``eps`` (draws
        under both laws) gives an estimate and a lower end (the least ``eps`` of one adversary is at
        most the supremum's), starting with the adversary of ``delta(1)``. On a chain the upper end
        is the supremum's: the window sweep at that adversary's upper end shows ``delta <= d`` over
        every adversary, or names the worst window there, whose own profile is the next try
        (:data:`EPSILON_TRIES` tries; ``inf`` if none shows it). Half of ``1 - CONFIDENCE`` goes to
        the profiles' lower ends, half to the sweeps, each split among the tries; every try reads
        fresh draws."""
        from ..kernels.privacy import joint as J

        grid = np.linspace(0.0, 10.0, 401)
        chain = self.adversary is None and self._sweeps_every()
        tries = EPSILON_TRIES if chain else 1
        share = (1.0 - CONFIDENCE) / (2 * tries) if chain else 1.0 - CONFIDENCE

        def first(curve):
            ok = np.flatnonzero(curve <= d)
            return float(grid[ok[0]]) if ok.size else math.inf

        adv = self.delta(1.0).adversary
        best: tuple[float, float, Adversary] | None = None  # lower end, estimate, adversary
        hi, note = math.inf, "on a grid of 0.025"
        for t in range(tries):
            pair = self.pair(adv)
            cols = [c for c, _ in self.plan.reduced]
            mc = J.mc_profile(
                pair.atoms[:, cols],
                pair.w1,
                pair.w2,
                [z for _, z in self.plan.reduced],
                grid,
                100_000,
                np.random.default_rng([self.seed, 7, t] if t else self.seed),
                1.0 - share,
            )
            lo = max(0.0, first(mc.lower) - (grid[1] - grid[0]))
            if best is None or lo > best[0]:
                best = (lo, first(mc.estimate), adv)
            own = first(mc.upper)
            if not chain:
                hi, note = own, note + "; the adversary of delta(1)"
                break
            if not math.isfinite(own):
                note += f"; adversary {t + 1}: delta({grid[-1]:g}) > {d:g}"
                break
            found = self._sweep_upper(max(own, best[0]), share, tag=1 + t)
            if found is None:  # the sweep does not apply: this adversary's upper end
                hi, note = own, note + "; this adversary's own upper end (the window sweep does not apply)"
                break
            e, top = max(own, best[0]), found[1]
            if found[2] <= d:
                hi = e
                note += f"; every adversary: delta({e:.4g}) <= {found[2]:.4g} (window sweep, try {t + 1})"
                break
            adv = top[0].adversary  # the worst window at e: its own eps is larger
        else:
            note += f"; every adversary: not shown below inf in {tries} tries"
        assert best is not None
        lo, est, named = best
        if hi > lo:  # delta = 0 beyond the joint BDPL: its certified upper end bounds eps
            try:
                b = self.bdpl
            except NotAvailable:
                b = None
            if b is not None and b.kind != MONTE_CARLO and b.upper < hi:
                hi = max(float(b.upper), lo)
                note += f"; delta = 0 beyond the joint BDPL's certified upper end {b.upper:.4g}"
        conf = CONFIDENCE if chain else mc.confidence
        value = float(min(max(est, lo), hi))
        return Value(value, float(lo), float(max(hi, lo)), MONTE_CARLO, named, note, conf)

    def tpr_at(self, fpr: float) -> Value:
        """The worst adversary's largest true-positive rate at false-positive rate ``fpr``:
        ``inf_t [t fpr + H(t)]`` (Neyman-Pearson), bracketed by the attained value of the adversary
        of the largest advantage and ``t* fpr + sup_adv H(t*)`` (a bound for every adversary)."""
        a = check_fpr("fpr", fpr)
        if self.gaussian:
            from ..kernels.privacy.gaussian import gaussian_beta

            mu, adv = self._gauss_worst()
            return exact(1.0 - gaussian_beta(mu, a), adv)
        from ..attack.tradeoff import TradeOff

        if self.plan.method == "monte carlo":
            found = self._profile_bounds()
            if found is not None:
                return found.tpr(a)
        if self.adversary is None and self.plan.method == "boxes" and len(self.plan.reduced) == 3:
            from ..attack.boxes import box_tpr  # three counts: the threshold on coarser brackets

            v, upper, adv3 = box_tpr(self, a)
            return bracket(v, upper, adv3, "attained by this adversary; upper end holds for every adversary")
        adv = self.advantage.adversary
        pair = self.pair(adv)
        if pair.method == "monte carlo":
            raise NotAvailable(
                "tpr_at: the optimal attack needs one order of the profile; this list of releases "
                "has only a Monte Carlo profile (ask delta(eps))"
            )

        def hockey(forward: bool, end: int):
            def h(t: float) -> float:
                return pair.hockey(math.log(t), forward)[end]

            return h

        best = (-1.0, 1.0, True)
        for fwd in (True, False):
            v, t = TradeOff(hockey(fwd, 0)).tpr_threshold(a)
            if v > best[0]:
                best = (v, t, fwd)
        v, t, fwd = best
        if self.adversary is not None:
            hi = TradeOff(hockey(fwd, 1)).tpr_at(a)
            return bracket(v, hi, adv)
        u = math.log(t)
        d = self.delta(abs(u)).upper
        upper = t * a + (d if u >= 0 else 1.0 - t + t * d)
        return bracket(
            v, min(1.0, max(upper, v)), adv, "attained by this adversary; upper end holds for every adversary"
        )

    # ------------------------------------------------------------------ naive answers
    def naive(self):
        """What an accountant for independent records would say (:class:`~bdpsim.accounting.naive.Naive`)."""
        from .naive import naive

        if "naive" not in self._cache:
            self._cache["naive"] = naive(self)
        return self._cache["naive"]

    def single(self, release: Release) -> Account:
        """The accountant of one of the releases alone (same model, adversaries, seed)."""
        return account(
            self.model,
            [release],
            adversary=self.adversary,
            sizes=list(self.sizes),
            targets=self.targets,
            seed=self.seed,
        )


def _number(pair: JointPair, what: tuple) -> Value:
    if what[0] == "delta":
        return pair.delta(float(what[1]))
    if what[0] == "bdpl":
        return pair.bdpl()
    if what[0] == "renyi":
        return pair.renyi(float(what[1]))
    raise ValueError(what)


def _profile_root(delta: Callable[[float], Value], d: float, tol: float) -> tuple[float, float]:
    """``(lower, upper)`` ends of the least ``eps >= 0`` with ``delta(eps) <= d``, ``delta`` a
    bracketed profile: each end by bisection to ``tol`` on the matching end of ``delta``
    (:func:`~bdpsim.kernels.roots.monotone_root`). An end whose side of ``delta`` still exceeds
    ``d`` at the largest ``eps`` of a profile (:data:`MAX_PROFILE_EPSILON`) is that ``eps`` for the
    lower end (certified: ``delta`` exceeds ``d`` there) and ``inf`` for the upper end (the caller
    bounds it by the BDPL)."""
    ends = []
    for end in ("lower", "upper"):

        def f(e: float, end: str = end) -> float:
            v = delta(e)
            return v.upper if end == "upper" else v.lower

        if f(0.0) <= d:
            ends.append(0.0)
            continue
        lo, hi = 0.0, 1.0
        while f(hi) > d and hi < MAX_PROFILE_EPSILON:
            lo, hi = hi, min(2 * hi, MAX_PROFILE_EPSILON)
        if f(hi) > d:  # past the largest eps of a profile
            ends.append(MAX_PROFILE_EPSILON if end == "lower" else math.inf)
            continue

        def excess(e: float, f: Callable[[float], float] = f) -> float:
            return f(e) - d

        root = monotone_root(excess, hi, lo, rtol=0.0, atol=tol, log=False, expand=False)
        ends.append(float(root.safe if end == "upper" else root.unsafe))  # type: ignore[arg-type]
    return ends[0], ends[1]


def _is_chain(model) -> bool:
    return isinstance(model, MarkovChain)


def _is_network(model) -> bool:
    return isinstance(model, FactorGraph)


def _check_records(model) -> None:
    """Refuse (``ConfigError`` on ``model.n``) a model of more than :data:`MAX_RECORDS` records."""
    if model.n > MAX_RECORDS:
        raise ConfigError(
            "model.n",
            model.n,
            f"the accountant takes at most {MAX_RECORDS:,} records (every joint law passes over every "
            "record per adversary)",
        )


def account(
    model,
    releases,
    *,
    adversary: Adversary | None = None,
    sizes: str | Sequence[int] = "all",
    targets: tuple[float, float] | None = None,
    seed: int = 0,
) -> Account:
    """The privacy accountant of ``releases`` (independent noises, the same records) on ``model``.

    Parameters
    ----------
    model : DataModel
        A Markov chain, a Bayesian network or random field (discrete records: releases of counts,
        sums of state values, histograms; on a network or random field also per-record queries,
        whose ``per_state`` is an ``(n, states)`` table: a count of a state name at different
        indices on different nodes), or Gaussian records (releases of the sum with Gaussian
        noise: closed form).
    releases : list
        :class:`~bdpsim.accounting.releases.Release`, :class:`HistogramRelease`, or "query + noise"
        mechanisms (``LaplaceCount``, ``NoisyQueryMechanism``); repeat one by listing it again. Or
        local releases of every record (:class:`~bdpsim.mechanisms.local.LocalRelease`: k-RR,
        randomized response, a likelihood matrix) on a Markov chain, alone: a
        :class:`~bdpsim.accounting.local.LocalAccount` with the same numbers, bracketed.
    adversary : Adversary, optional
        One adversary; omitted: the worst over every adversary with ``|K|`` in ``sizes``.
    sizes : "all" or list of int, optional
        Known-set sizes of the search (``"all"``: ``0..n-1``, the window/region search).
    targets : (float, float), optional
        Gaussian records only: the two target values ``x, x'`` every adversary compares.
    seed : int, optional
        Seed of the Monte Carlo draws (where a list has no exact joint law).

    Returns
    -------
    Account
        ``delta(eps)``, ``epsilon(delta)``, ``renyi(alpha)``, ``bdpl``, ``advantage``,
        ``tpr_at(fpr)``, ``beta(alpha)``, ``naive()``; each a :class:`Value` with its kind.

    Raises
    ------
    NotAvailable
        A release with no exact joint law here (named, with what to use instead), or a search too
        large (with its estimated cost).
    ConfigError
        A bad argument (one line naming it).
    """
    rel = as_releases(releases)
    if adversary is not None and not isinstance(adversary, Adversary):
        raise ConfigError("adversary", adversary, "must be a bdpsim.Adversary")
    _check_records(model)
    ks = known_sizes(sizes if isinstance(sizes, str) else list(sizes), model.n)
    local = [r for r in rel if isinstance(r, ReleasesEveryRecord)]
    if local:
        other = [r for r in rel if not isinstance(r, ReleasesEveryRecord)]
        if other:
            raise NotAvailable(
                f"release {other[0].label!r} beside {local[0].label!r}: a local release and noisy "
                "queries together have no joint law here; account the local releases and the noisy "
                "queries separately"
            )
        from .local import local_account

        return local_account(model, rel, adversary, ks)  # type: ignore[return-value]
    if isinstance(model, HasGaussianConditional):
        for r in rel:
            if not (
                isinstance(r, Release)
                and isinstance(r.query_function, SumQuery)
                and isinstance(r.noise, GaussianKernel)
            ):
                label = r.label
                raise NotAvailable(
                    f"release {label!r}: Gaussian records have an exact joint law for the sum with "
                    "Gaussian noise only; use a Markov chain or network model, or Gaussian noise"
                )
        if adversary is None and targets is None:
            raise ConfigError(
                "targets", None, "Gaussian records need the two target values (x, x') of the adversaries"
            )
        flat: list[Release] = [r for r in rel if isinstance(r, Release)]
        acc = Account(model, rel, flat, adversary, ks, targets, seed)
        acc._plan = plan(flat, [0] * len(flat))
        return acc
    states = model.states if isinstance(model, HasStates) else None
    flat = flatten(rel, states)
    if not isinstance(model, HasAdditiveLaw) or states is None:
        raise NotAvailable(
            f"{type(model).__name__}: no exact law of additive queries; the accountant needs one"
        )
    per_state: list[np.ndarray] = []
    comp_of = []
    for r in flat:
        f = _values(model, r, states)
        same = [k for k, g in enumerate(per_state) if g.shape == f.shape and np.array_equal(g, f)]
        if not same:
            per_state.append(f)
        comp_of.append(same[0] if same else len(per_state) - 1)
    acc = Account(model, rel, flat, adversary, ks, targets, seed)
    acc._plan = plan(flat, comp_of)
    _fall_back_from_boxes(acc)
    acc._comps = components(per_state, int(model.n))  # type: ignore[attr-defined]
    _check_histograms(acc, states)
    _check_sweep_cost(acc, states)
    return acc


def _values(model, release: Release, states: int) -> np.ndarray:
    """The values ``f`` of ``release``'s additive query: one per state (``(states,)``), or one per
    record and state (``(n, states)``: a per-record query, e.g. a count of a state name at different
    indices on different nodes), which only a factor model's laws take (per-record increments);
    ``NotAvailable`` naming the release otherwise."""
    q = release.query_function
    if not isinstance(q, AdditiveQuery):
        raise NotAvailable(f"release {release.label!r}: not an additive query of discrete records")
    f = np.asarray(q.per_state(states), dtype=float)
    if f.ndim == 2 and not _is_network(model):
        raise NotAvailable(
            f"release {release.label!r}: its query's values differ by record (an (n, states) table), "
            f"which the exact laws of a {type(model).__name__} do not take; give the model as a "
            "Bayesian network (kind = 'bayesnet'; a chain: BayesNetModel.from_markov) or a random field"
        )
    if f.shape not in ((states,), (model.n, states)):
        raise NotAvailable(
            f"release {release.label!r}: its query's per_state values have shape {f.shape}; "
            f"need one per state ({states},) or one per record and state ({model.n}, {states})"
        )
    return f


def _fall_back_from_boxes(acc: Account) -> None:
    """Laplace releases the box brackets do not reach (:func:`~bdpsim.accounting.boxes.boxes_reach`:
    two over every adversary of a chain longer than :data:`BOX_SEARCH_MAX_N`, three over every
    adversary of a chain longer than :data:`~bdpsim.mechanisms.histogram.THREE_STATE_EVERY_MAX_N`
    or for one adversary longer than :data:`~bdpsim.mechanisms.histogram.THREE_STATE_MAX_N`):
    Monte Carlo (the box search would take too long)."""
    if acc.plan.method == "boxes" and not boxes_reach(acc.plan, acc.model.n, acc.adversary is None):
        acc._plan = replace(acc.plan, boxes=False)


def sweep_cost_of(acc: Account) -> SweepCost | None:
    """The estimated cost of one ``delta(eps)`` of a list reading several queries, swept over every
    adversary of a chain (:func:`~bdpsim.accounting.several.sweep_cost`: the pairs the search will
    score, counted by the engine, their atoms, draws, releases and laws' cells); ``None`` where no
    such sweep runs or it is not counted (a network's region search)."""
    several = len({c for c, _ in acc.plan.reduced}) > 1
    if acc.adversary is not None or acc.plan.method != "monte carlo" or not several:
        return None
    if not acc._sweeps_every():
        return None
    engine = acc._sweep_engine()
    if not isinstance(engine, HasScanRows):  # a network's region search: not counted here
        return None
    return sweep_cost(acc.plan, acc.comps, engine.scan_rows(acc.sizes[0]), int(acc.model.n))


def releases_named(acc: Account) -> str:
    """The releases of ``acc`` in one phrase (the first two labels), for a refusal."""
    labels = [r.label for r in acc.releases]
    return (
        f"release {labels[0]!r}"
        if len(labels) == 1
        else f"{len(labels)} releases ({'; '.join(labels[:2])}{', ...' if len(labels) > 2 else ''})"
    )


def _check_sweep_cost(acc: Account, states: int) -> None:
    """Refuse before any work a list reading several queries whose window sweep over every adversary
    of a chain is too large (:func:`sweep_cost_of`, :func:`~bdpsim.accounting.several.check_sweep_cost`)."""
    cost = sweep_cost_of(acc)
    if cost is not None:
        check_sweep_cost(cost, releases_named(acc), int(acc.model.n), states)


def _check_histograms(acc: Account, states: int) -> None:
    """Refuse (``NotAvailable``, naming the release, the records, the limit and what to use) a
    Monte Carlo histogram of more than two states over every adversary: its noisy counts read several
    queries, which the search does not rank; three states have certified box brackets over every
    adversary up to :data:`~bdpsim.mechanisms.histogram.THREE_STATE_EVERY_MAX_N` records (with the
    estimated cost beyond) and for one adversary up to
    :data:`~bdpsim.mechanisms.histogram.THREE_STATE_MAX_N`."""
    wide = [r for r in acc.releases if isinstance(r, HistogramRelease) and states > 2]
    swept = acc._sweeps_every()  # the window (region) sweep
    if wide and acc.adversary is None and acc.plan.method == "monte carlo" and not swept:
        n = int(acc.model.n)
        label = wide[0].label
        if states == 3 and box_scale(acc.plan) is not None:
            raise NotAvailable(
                f"release {label!r}: the histogram of 3 states over every adversary is searched by box "
                f"brackets of R^3 up to n = {THREE_STATE_EVERY_MAX_N} records, not n = {n} (it would "
                f"bracket {three_state_search_cost(n)}); give adversary= (certified box brackets up to "
                f"n = {THREE_STATE_MAX_N}, Monte Carlo beyond), or use bdpsim run with estimator = 'audit'"
            )
        one = (
            f"give adversary= (certified box brackets up to n = {THREE_STATE_MAX_N}, Monte Carlo beyond)"
            if states == 3
            else "give adversary= (Monte Carlo)"
        )
        raise NotAvailable(
            f"release {label!r}: the histogram of {states} states has no joint law over every "
            f"adversary here on n = {n} records ({states} noisy counts; two states: certified); "
            f"{one}, lattice noise (exact enumeration), or use bdpsim run with estimator = 'audit'"
        )
