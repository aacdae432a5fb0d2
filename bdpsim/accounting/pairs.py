"""The joint output laws of a list of releases for one adversary, and every number of them.

For discrete records the releases read a few additive queries (the *components*
``S_c = sum_t f_c(X_t)``); an adversary's two hypotheses give two laws ``w, w'`` of the component
vector (exact, from the model), and the joint output laws are ``p(y) = sum_k w_k prod_r
k_r(y_r - s_{k, c(r)})`` and ``q`` likewise. How its numbers are computed (:class:`JointPair`):

1. **Sufficient statistic.** The Gaussian releases of one component are one Gaussian release of
   it with ``sigma_eff^{-2} = sum sigma_r^{-2}`` (:func:`bdpsim.kernels.privacy.joint.effective_sigma`):
   every divergence is unchanged.
2. **One release left** (after 1.): the one-dimensional lattice mixture — ``delta`` and the supremum
   of the loss exact by the noise law's own functions, Rényi certified by loss cells
   (:mod:`bdpsim.kernels.privacy.mixture`; exact for lattice noise).
3. **Known query value** (both laws one atom: the adversary knows every record the releases read
   besides the target): the releases are independent given the secret — Gaussian ones a Gaussian
   shift (``mu^2 = sum (d_r / sigma_r)^2``, closed form), the others composed as independent
   pairs (privacy-loss distributions, :mod:`bdpsim.kernels.privacy.pld`; Rényi and the supremum of
   the loss add up exactly).
4. **Lattice noises**: the joint law enumerated on the product grid of outputs (error at most the
   ``1e-17`` mass left out per release).
5. **Two or three Laplace releases of one scale** (the noisy histogram of two states is two releases
   of the count of state 1; of three states, the three counts): the hockey-stick divergence
   certified by boxes
   (:mod:`bdpsim.kernels.privacy.boxes`), the supremum of the loss exact at the vertices of the
   atoms' grid (:func:`bdpsim.kernels.chains.histogram_sup.histogram_sup`).
6. Otherwise **Monte Carlo** with exact likelihoods per draw (an interval that holds with the stated
   confidence), and for the supremum of the loss a certified bracket: the largest loss seen below,
   the largest ratio of the query laws above.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import NotAvailable
from ..kernels.argcheck import TooExpensive
from ..kernels.chains.histogram_sup import histogram_sup
from ..kernels.chains.lattice import lattice
from ..kernels.noise.laws import GaussianNoise, LaplaceNoise
from ..kernels.noise.protocols import GaussianKernel, HasStep, LaplaceKernel
from ..kernels.privacy import divergences as D
from ..kernels.privacy import gaussian as G
from ..kernels.privacy import joint as J
from ..kernels.privacy import mixture as MX
from ..kernels.privacy.boxes import laplace_boxes_hockey
from ..kernels.privacy.pld import LossBracket
from .releases import Release
from .values import MONTE_CARLO, Value, bracket, exact

#: loss grid of the privacy-loss distributions (a certified bracket; its width scales with it)
LOSS_STEP = 2e-4
#: draws of a Monte Carlo profile before doubling; the width it aims at; its most draws
MC_DRAWS = 20_000
MC_WIDTH = 0.005
MC_MAX_DRAWS = 2_000_000
CONFIDENCE = 0.95
#: most Laplace releases of one scale bracketed by boxes (the noisy histogram of three states: three
#: releases, boxes of R^3; more: Monte Carlo)
MAX_BOX_RELEASES = 3
#: cells of the output line per pair of point masses (a release whose query value is known)
POINT_RESOLUTION = 4096


def _is_gaussian(noise) -> bool:
    return isinstance(noise, GaussianKernel)


def _is_lattice(noise) -> bool:
    return bool(noise.discrete) and isinstance(noise, HasStep)


def laplace_rate(plan: ReleasePlan) -> float | None:
    """``sum_r 1/b_r`` when every release reads one query with Laplace noise, else ``None``."""
    if len({c for c, _ in plan.reduced}) != 1:
        return None
    rate = 0.0
    for _, z in plan.reduced:
        if not isinstance(z, LaplaceKernel):
            return None
        rate += 1.0 / float(z.scale)
    return rate


def laplace_scale(plan: ReleasePlan) -> float | None:
    """The common scale ``b`` when every release of the plan is Laplace of one scale, else ``None``."""
    z = [n for _, n in plan.reduced if isinstance(n, LaplaceKernel)]
    if len(plan.reduced) != len(z):
        return None
    b = {float(n.scale) for n in z}
    return b.pop() if len(b) == 1 else None


def box_scale(plan: ReleasePlan) -> float | None:
    """The common scale ``b`` when the plan is two to :data:`MAX_BOX_RELEASES` Laplace releases of
    one scale, else ``None``."""
    return laplace_scale(plan) if 2 <= len(plan.reduced) <= MAX_BOX_RELEASES else None


@dataclass(frozen=True)
class Components:
    """The distinct additive queries the releases read, on one integer lattice: per-state values
    ``f_c = fmin_c + delta_c g_c``, packed into one integer ``sum_c radix_c g_c`` per state so that
    the model's one-dimensional law of ``sum_t g(X_t)`` is the joint law of every ``S_c``. A
    per-record query's ``g_c`` is an ``(n, states)`` table (``S_c = sum_t g_c[t, X_t]``); then
    :attr:`packed` is one too (the per-state values broadcast to every record)."""

    g: tuple[np.ndarray, ...]
    step: tuple[float, ...]
    fmin: tuple[float, ...]
    radix: tuple[int, ...]
    sizes: tuple[int, ...]

    @property
    def packed(self) -> np.ndarray:
        out = np.zeros_like(self.g[0])
        for r, g in zip(self.radix, self.g):
            out = out + r * g
        return out

    def decode(self, size: int, n_records: int = 0) -> np.ndarray:
        """The ``(size, C)`` component values of packed sums ``0..size-1`` (plus ``n fmin``)."""
        k = np.arange(size)
        cols = [
            n_records * fm + st * ((k // r) % m)
            for r, m, st, fm in zip(self.radix, self.sizes, self.step, self.fmin)
        ]
        return np.stack(cols, axis=1).astype(float)


def components(per_state: Sequence[np.ndarray], n: int) -> Components:
    gs, steps, fmins, radix, sizes = [], [], [], [], []
    r = 1
    for f in per_state:
        g, d, fm = lattice(np.asarray(f, dtype=float))
        gs.append(g)
        steps.append(float(d))
        fmins.append(float(fm))
        radix.append(r)
        # the largest sum: n max g, or per record its own largest value (an (n, states) table)
        m = (n * int(g.max()) if g.ndim == 1 else int(g.max(axis=1).sum())) + 1
        sizes.append(m)
        r *= m
    return Components(tuple(gs), tuple(steps), tuple(fmins), tuple(radix), tuple(sizes))


@dataclass(frozen=True)
class ReleasePlan:
    """The releases reduced by their sufficient statistics: ``reduced`` pairs ``(component,
    noise)`` — one Gaussian per component for all its Gaussian releases, every other release as is."""

    releases: tuple[Release, ...]
    component_of: tuple[int, ...]
    reduced: tuple[tuple[int, object], ...]
    #: whether two or three Laplace releases of one scale take the box brackets (else Monte Carlo)
    boxes: bool = True

    @property
    def method(self) -> str:
        if len(self.reduced) == 1:
            return "one release"
        if all(_is_lattice(z) for _, z in self.reduced):
            return "enumeration"
        if self.boxes and box_scale(self) is not None:
            return "boxes"
        return "monte carlo"

    @property
    def n_components(self) -> int:
        return 1 + max(self.component_of)


def plan(releases: Sequence[Release], component_of: Sequence[int]) -> ReleasePlan:
    sig: dict[int, list[float]] = {}
    rest: list[tuple[int, object]] = []
    for r, c in zip(releases, component_of):
        if _is_gaussian(r.noise):
            sig.setdefault(c, []).append(float(r.noise.sigma))
        else:
            rest.append((c, r.noise))
    reduced = [(c, GaussianNoise(J.effective_sigma(s))) for c, s in sorted(sig.items())] + rest
    return ReleasePlan(tuple(releases), tuple(component_of), tuple(reduced))


def _marginal(atoms: np.ndarray, w: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
    vals, inv = np.unique(atoms[:, c], return_inverse=True)
    return vals, np.bincount(inv, weights=w, minlength=vals.size)


@dataclass
class JointPair:
    """The two joint output laws of an adversary (``w`` under ``x``, ``w'`` under ``x'`` on the
    component values ``atoms``), and every number of them (module docstring). ``forward``:
    ``p`` (under ``x``) against ``q``; the accountant's numbers are the larger of both orders."""

    plan: ReleasePlan
    atoms: np.ndarray
    w1: np.ndarray
    w2: np.ndarray
    seed: int = 0
    mc_width: float = MC_WIDTH
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        a, b = np.asarray(self.w1, dtype=float), np.asarray(self.w2, dtype=float)
        if not (a.sum() > 0 and b.sum() > 0):
            raise NotAvailable("a conditioning event has probability zero")
        keep = (a > 0) | (b > 0)
        self.atoms = np.asarray(self.atoms, dtype=float)[keep]
        self.w1, self.w2 = a[keep] / a.sum(), b[keep] / b.sum()

    # --------------------------------------------------------------- which computation
    @property
    def method(self) -> str:
        if self.plan.method in ("one release", "boxes"):
            return self.plan.method
        if self.w1.size == 1 or (np.count_nonzero(self.w1) == 1 and np.count_nonzero(self.w2) == 1):
            return "independent"
        return self.plan.method

    def _one(self):
        c, z = self.plan.reduced[0]
        a1, p = _marginal(self.atoms, self.w1, c)
        a2, q = _marginal(self.atoms, self.w2, c)
        return z, a1, p, q

    def _points(self):
        """The two known query values per reduced release (method ``independent``)."""
        i, j = int(np.argmax(self.w1)), int(np.argmax(self.w2))
        return [(z, self.atoms[i, c], self.atoms[j, c]) for c, z in self.plan.reduced]

    def _gauss_mu(self) -> float | None:
        pts = self._points()
        if not all(_is_gaussian(z) for z, _, _ in pts):
            return None
        return math.sqrt(sum(((u - v) / z.sigma) ** 2 for z, u, v in pts))

    def _product_bracket(self, forward: bool) -> LossBracket:
        key = ("pld", forward)
        if key not in self._cache:
            out = None
            for z, u, v in self._points():
                a, b = (u, v) if forward else (v, u)
                if a == b:
                    continue
                cells = MX.loss_cells(
                    z, np.array([a, b]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), POINT_RESOLUTION
                )
                br = LossBracket.from_cells(cells.mass, cells.lower, cells.upper, LOSS_STEP, cells.inf_mass)
                out = br if out is None else out.compose(br)
            if out is None:
                out = LossBracket.from_losses([0.0], [1.0], LOSS_STEP)
            self._cache[key] = out
        return self._cache[key]

    def _enumerated(self) -> J.JointLaws:
        if "enum" not in self._cache:
            noises = [z for _, z in self.plan.reduced]
            cols = [c for c, _ in self.plan.reduced]
            try:
                if len(set(cols)) == 1:  # one query: its marginal law (fewer atoms)
                    a, p = _marginal(self.atoms, self.w1, cols[0])
                    _, q = _marginal(self.atoms, self.w2, cols[0])
                    self._cache["enum"] = J.lattice_joint(a, p, q, noises)
                else:
                    self._cache["enum"] = J.lattice_joint(self.atoms[:, cols], self.w1, self.w2, noises)
            except TooExpensive as err:
                raise NotAvailable(str(err)) from None
        return self._cache["enum"]

    def losses(self, draws: int, rng: np.random.Generator) -> np.ndarray:
        """``draws`` privacy losses ``ln p(Y)/q(Y)`` with ``Y ~ p`` (the joint law of every
        release under ``x``; :func:`~bdpsim.kernels.privacy.joint.loss_draws`)."""
        cols = [c for c, _ in self.plan.reduced]
        noises = [z for _, z in self.plan.reduced]
        return J.loss_draws(self.atoms[:, cols], self.w1, self.w2, noises, draws, rng)

    def _mc(self, epsilons: np.ndarray) -> J.MonteCarloProfile:
        key = ("mc", tuple(np.round(epsilons, 12)))
        if key not in self._cache:
            cols = [c for c, _ in self.plan.reduced]
            noises = [z for _, z in self.plan.reduced]
            table = self.atoms[:, cols]
            self._cache[key] = J.mc_profile(
                table,
                self.w1,
                self.w2,
                noises,
                epsilons,
                MC_DRAWS,
                np.random.default_rng(self.seed),
                CONFIDENCE,
                target_width=self.mc_width,
                max_draws=MC_MAX_DRAWS,
            )
        return self._cache[key]

    # --------------------------------------------------------------- the profile
    def hockey(self, epsilon: float, forward: bool = True) -> tuple[float, float]:
        """``(lower, upper)`` of ``H_eps(p || q)`` (``forward``) or ``H_eps(q || p)``, any real
        ``eps`` (``eps < 0`` by ``H_eps(p||q) = 1 - e^eps + e^eps H_{-eps}(q||p)``)."""
        if epsilon < 0:
            lo, hi = self.hockey(-epsilon, not forward)
            k = math.exp(epsilon)
            return 1 - k + k * lo, 1 - k + k * hi
        m = self.method
        if m == "one release":
            z, a, p, q = self._one()
            v = z.hockey_stick(a, p, a, q, epsilon) if forward else z.hockey_stick(a, q, a, p, epsilon)
            return float(v), float(v)
        if m == "independent":
            mu = self._gauss_mu()
            if mu is not None:
                v = G.gaussian_delta(mu, epsilon)
                return v, v
            return self._product_bracket(forward).delta(epsilon)
        if m == "enumeration":
            jl = self._enumerated()
            v = D.hockey_stick(jl.p, jl.q, epsilon) if forward else D.hockey_stick(jl.q, jl.p, epsilon)
            return v, min(1.0, v + jl.outside)
        if m == "boxes":
            key = ("boxes", float(epsilon), forward or epsilon == 0.0)  # eps = 0: symmetric
            if key not in self._cache:
                cols = [c for c, _ in self.plan.reduced]
                a, b = (self.w1, self.w2) if key[2] else (self.w2, self.w1)
                try:
                    br = laplace_boxes_hockey(self.atoms[:, cols], a, b, box_scale(self.plan), epsilon)  # type: ignore[arg-type]
                except TooExpensive as err:
                    raise NotAvailable(str(err)) from None
                self._cache[key] = (br.lower, br.upper)
            return self._cache[key]
        raise NotAvailable("one-order Monte Carlo profiles are not kept; use delta()")

    def delta(self, epsilon: float) -> Value:
        """The privacy profile ``max(H_eps(p||q), H_eps(q||p))`` of the pair."""
        if self.method == "monte carlo":
            mc = self._mc(np.array([float(epsilon)]))
            return Value(
                float(mc.estimate[0]),
                float(mc.lower[0]),
                float(mc.upper[0]),
                MONTE_CARLO,
                note=f"{mc.draws} draws per law",
                confidence=mc.confidence,
            )
        f, b = self.hockey(epsilon, True), self.hockey(epsilon, False)
        return bracket(max(f[0], b[0]), max(f[1], b[1]))

    # --------------------------------------------------------------- the loss' supremum and Rényi
    def bdpl(self) -> Value:
        """``sup_y |ln p(y)/q(y)|``: the joint BDPL of this adversary."""
        m = self.method
        if m == "one release":
            z, a, p, q = self._one()
            s = z.sup_log_ratio(a, p, a, q)
            return exact(max(s.forward, s.backward))
        if m == "independent":
            mu = self._gauss_mu()
            if mu is not None:
                return exact(math.inf if mu > 0 else 0.0)
            tot_f = tot_b = 0.0
            for z, u, v in self._points():
                if u == v:
                    continue
                s = z.sup_log_ratio(np.array([u]), np.ones(1), np.array([v]), np.ones(1))
                tot_f, tot_b = tot_f + s.forward, tot_b + s.backward
            return exact(max(tot_f, tot_b))
        if m == "enumeration":
            jl = self._enumerated()
            return exact(max(D.max_log_ratio(jl.p, jl.q), D.max_log_ratio(jl.q, jl.p)))
        if m == "boxes":
            cols = [c for c, _ in self.plan.reduced]
            at = self.atoms[:, cols]
            return exact(histogram_sup(at, self.w1, at, self.w2, box_scale(self.plan)).value)  # type: ignore[arg-type]
        scale = laplace_scale(self.plan)
        if scale is not None and len({c for c, _ in self.plan.reduced}) > 1:  # e.g. a histogram
            at = self.atoms[:, [c for c, _ in self.plan.reduced]]
            try:  # exact at the vertices of the atoms' grid, where that grid is small enough
                return exact(histogram_sup(at, self.w1, at, self.w2, scale).value)
            except ValueError:
                pass
        lo = self._diagonal_sup()
        if "draws" not in self._cache:
            cols = [c for c, _ in self.plan.reduced]
            noises = [z for _, z in self.plan.reduced]
            mc = J.mc_profile(
                self.atoms[:, cols], self.w1, self.w2, noises, [0.0], 20_000, np.random.default_rng(self.seed)
            )
            self._cache["draws"] = mc.loss_max
        lo = max(lo, self._cache["draws"])
        hi = J.mixture_log_ratio_bound(self.w1, self.w2)
        rate = laplace_rate(self.plan)
        if rate is not None:
            c0 = self.plan.reduced[0][0]
            a, p = _marginal(self.atoms, self.w1, c0)
            _, q = _marginal(self.atoms, self.w2, c0)
            hi = min(hi, float(J.laplace_log_ratio_bound(a, p, q, rate)[0]))
        return bracket(
            lo, hi, note="lower: the largest loss on the diagonal and drawn; upper: the query laws' ratio"
        )

    def _diagonal_sup(self) -> float:
        """``sup |ln p/q|`` over equal outputs ``y_1 = ... = y_m`` (a lower bound of the joint's):
        for Laplace releases of one query the diagonal is one Laplace release of scale
        ``1 / sum_r 1/b_r``; ``-inf`` for other lists."""
        rate = laplace_rate(self.plan)
        if rate is None:
            return -math.inf
        b = 1.0 / rate
        c0 = self.plan.reduced[0][0]
        a1, p = _marginal(self.atoms, self.w1, c0)
        _, q = _marginal(self.atoms, self.w2, c0)
        s = LaplaceNoise(b).sup_log_ratio(a1, p, a1, q)
        return max(s.forward, s.backward)

    def renyi(self, alpha: float, resolution: int = 64) -> Value:
        """``max(D_alpha(p||q), D_alpha(q||p))``; ``alpha = inf``: :meth:`bdpl`. ``resolution``:
        loss cells per gap or per ``sigma`` of one release (a coarser bracket is cheaper)."""
        a = float(alpha)
        if math.isinf(a):
            return self.bdpl()
        m = self.method
        if m == "one release":
            z, at, p, q = self._one()
            try:
                f = MX.cells_renyi(MX.loss_cells(z, at, p, q, resolution), a)
                b = MX.cells_renyi(MX.loss_cells(z, at, q, p, resolution), a)
            except ValueError as err:
                raise NotAvailable(f"Rényi divergence: {err}") from None
            return bracket(max(f[0], b[0]), max(f[1], b[1]))
        if m == "independent":
            mu = self._gauss_mu()
            if mu is not None:
                return exact(G.gaussian_renyi(mu, a))
            tot = [[0.0, 0.0], [0.0, 0.0]]
            for z, u, v in self._points():
                if u == v:
                    continue
                for k, (x, y) in enumerate(((u, v), (v, u))):
                    cells = MX.loss_cells(z, np.array([x, y]), np.array([1.0, 0.0]), np.array([0.0, 1.0]))
                    lo, hi = MX.cells_renyi(cells, a)
                    tot[k][0] += lo
                    tot[k][1] += hi
            return bracket(max(tot[0][0], tot[1][0]), max(tot[0][1], tot[1][1]))
        if m == "enumeration":
            jl = self._enumerated()
            sup = max(D.max_log_ratio(jl.p, jl.q), D.max_log_ratio(jl.q, jl.p))
            out = []
            for P, Q in ((jl.p, jl.q), (jl.q, jl.p)):
                box = math.exp((a - 1) * D.renyi(P, Q, a)) if np.any(P > 0) else 0.0
                lo = math.log(box) / (a - 1)
                hi = math.log(box + jl.outside * math.exp((a - 1) * sup)) / (a - 1)
                out.append((lo, hi))
            return bracket(max(o[0] for o in out), max(o[1] for o in out))
        if m == "boxes":
            raise NotAvailable(
                "the Rényi divergence of two or three Laplace releases of one scale (or the noisy "
                "histogram of two or three states) is not computed here; ask delta(eps), "
                "epsilon(delta) or bdpl (alpha = inf)"
            )
        raise NotAvailable(
            "the Rényi divergence of this list of releases has no exact joint law here (several "
            "non-Gaussian, non-lattice releases); ask delta(eps) (Monte Carlo) or use lattice noise"
        )
