"""The histogram of states with Laplace noise per cell (``[mechanism] kind = "histogram"``).

``Y = (#{t : X_t = 0}, ..., #{t : X_t = s-1}) + Lap(b)^s`` with ``b = 2 / epsilon``: changing one
record moves one count down and another up, so the L1 sensitivity is 2 and the release is
``epsilon``-DP (as the Pufferfish paper's histogram, ``papers/002``). The output is a vector, shape
``(N, s)``: the thesis' KDE estimator (1-D) and the mixture estimator (scalar Laplace mixtures)
refuse it; ``estimator = "audit"`` scores it with a fitted likelihood-ratio score
(:mod:`bdpsim.kernels.audit.events`); ``estimator = "exact"`` has it on Markov chains:

* one adversary: the exact law of the count vector given ``(x_K, x_i)`` by a clamped forward
  recursion over (position, state, counts of the states ``0..s-2``) — the last count is ``n``
  minus the others — then the exact supremum of the two product-Laplace mixtures at the vertices
  of the extended grid of count values (:func:`bdpsim.kernels.chains.histogram_sup.histogram_sup`);
* every adversary (``adversaries = "all"``, ``known_sizes = "all"``): the window reduction with
  the window's count-vector law (:func:`bdpsim.kernels.chains.histogram_sup.chain_histogram_bdpl`).

**Limits.** The grid has ``(n + 3)^s`` vertices, refused above 4e7 entries
(:data:`bdpsim.kernels.chains.histogram_sup.LIMIT`): one adversary is exact for two states up to
``n ~ 6 000`` and for three states up to ``n ~ 330`` (measured: two states, ``n = 1 000``, 1.6 s;
three states, ``n = 60``, 0.2 s); the search over every
adversary costs about ``n^(s+2)`` and is refused above :data:`EXHAUSTIVE_MAX_N` (measured on one
shared core: two states ``n = 40`` in 4 s, ``n = 80`` in 77 s, limit 100; three states ``n = 12`` in
0.8 s, ``n = 20`` in 6 s, limit 30; five states ``n = 10`` in 30–60 s, limit 12).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from ..adversary import Adversary, Estimate
from ..core.errors import NotAvailable, check
from ..core.schema import Key
from ..kernels.chains.histogram_sup import LIMIT, chain_histogram_bdpl, histogram_sup
from ..kernels.privacy.boxes import laplace_boxes_hockey
from ..models.engines import check_all_targets
from ..models.markov import WindowAdversary
from ..models.markov.model import MarkovChainModel
from ..models.protocols import MarkovChain
from .base import NO_COLUMNS, MechanismKind, positive, register_mechanism_kind, required

#: chains longer than this have no exhaustive histogram search (its cost grows like n^(s+2))
EXHAUSTIVE_MAX_N = {2: 100, 3: 30, 4: 16, 5: 12}
#: longest two-state chain whose histogram is attacked by certified brackets (each adversary's
#: output laws, the search over every adversary by the accountant's box brackets: about 4 n^2
#: windows of n + 1 atoms; longer chains: Monte Carlo, the accountant's window sweep; the
#: cost grows like n^2.5-n^3). Measured by ``scripts/benchmarks/benchmark_histogram_attack.py``
#: (CPU s of ``bdpsim attack config``'s work over every adversary, a loaded machine, one run):
#: symmetric chain gamma 2, n = 8: 4.4, 12: 7.9, 16: 14, 18: 19, 20: 23, 24: 38; gamma 30 (the
#: costliest chain tried), n = 16: 43, 18: 54. The limit keeps the costliest size within 1.4x of
#: n = 16's (n = 20 is 1.6-1.8x)
ATTACK_MAX_N = 18
#: longest three-state chain whose histogram is accounted and attacked for one given adversary by
#: the box brackets of R^3 (three Laplace releases): within their
#: :data:`~bdpsim.kernels.privacy.boxes.MAX_WORK` kernel evaluations their width grows with n
#: (measured, delta(0.3) of one adversary: n = 3: 7.9e-7, 4: 5.1e-6, 6: 5.2e-5, 8: 1.1e-4, 10: 2.6e-4,
#: 12: 6.0e-4, 16: 1.3e-3; 2-4 s a bracket on a loaded machine)
THREE_STATE_MAX_N = 10
#: longest three-state chain whose histogram is accounted and attacked over every adversary (the
#: window scan by box brackets of R^3, :class:`~bdpsim.accounting.boxes.BoxDelta`: about 4 n^2
#: windows of up to (n + 1)(n + 2)/2 atoms). Measured on a loaded machine, one delta(0.3) in
#: process: n = 3 9 s, 4 12 s, 6 14 s, 8 24 s, 10 53 s; end to end (scripts/benchmarks/
#: benchmark_histogram3.py, CPU) bdpsim account --epsilon 0.3: n = 3 7.7 s, 6 8.9 s, 8 13.5 s;
#: bdpsim attack config (advantage, three TPRs, BDPL): n = 3 19 s, 4 20 s, 6 28 s, 8 54 s
THREE_STATE_EVERY_MAX_N = 8


def histogram(data: np.ndarray, states: int) -> np.ndarray:
    """Counts of each state per data tuple, shape ``(N, states)``."""
    d = np.asarray(data)
    return np.stack([(d == k).sum(axis=1) for k in range(states)], axis=1).astype(float)


def count_vector_law(model: MarkovChainModel, known: dict) -> tuple[np.ndarray, np.ndarray]:
    """Exact law of the histogram of the chain given ``X_j = known[j]``: atoms ``(J, s)`` (count
    vectors) and their probabilities, by the clamped forward recursion over (position, state,
    counts of the states ``0..s-2``) (raises :class:`NotAvailable` for a condition of probability 0)."""
    P, n, s = model.transition, model.n, model.states
    _check_grid(n, s)
    mask = np.ones((n, s))
    for pos, val in known.items():
        mask[int(pos)] = 0.0
        mask[int(pos), int(val)] = 1.0
    F = np.zeros((n + 1,) * (s - 1) + (s,))
    for y in range(s):
        F[tuple(1 if k == y else 0 for k in range(s - 1)) + (y,)] = model.initial[y] * mask[0, y]
    for t in range(1, n):
        z = F.sum()
        if not z > 0:
            break
        G = (F / z) @ P * mask[t]
        F = np.zeros_like(G)
        for y in range(s):
            if y == s - 1:
                F[..., y] = G[..., y]
                continue
            src = [slice(None)] * (s - 1)
            dst = list(src)
            src[y], dst[y] = slice(0, -1), slice(1, None)
            F[tuple(dst) + (y,)] = G[tuple(src) + (y,)]
    W = F.sum(axis=-1)
    if not W.sum() > 0:
        raise NotAvailable(f"condition {dict(known)}: probability zero")
    idx = np.argwhere(W > 0)
    atoms = np.column_stack([idx, n - idx.sum(axis=1)]).astype(float)
    return atoms, W[tuple(idx.T)] / W.sum()


def _check_grid(n: int, s: int) -> None:
    if (n + 3) ** s > LIMIT:
        raise NotAvailable(
            f"histogram of {s} states on n = {n} records: the exact supremum needs a grid of "
            f"(n + 3)^s = {(n + 3) ** s:.3g} vertices (limit {LIMIT:.0e}); use estimator = 'audit'"
        )


def histogram_adversary(model: MarkovChainModel, b: float, adv: Adversary):
    """Exact forward/backward suprema of ``ln p(y | x_K, x) / p(y | x_K, x')`` for one adversary."""
    laws = [count_vector_law(model, adv.condition(v)) for v in (adv.x, adv.x_prime)]
    try:
        return histogram_sup(*laws[0], *laws[1], b)
    except ValueError as exc:
        raise NotAvailable(str(exc)) from None


def _window_adversary(model: MarkovChainModel, r) -> WindowAdversary:
    """A :class:`ChainHistogramBDPL` worst window placed in the chain."""
    n = model.n
    if r.right == "end":
        i = n - 1 - r.R
    elif r.left == "start":
        i = r.L
    else:
        i = r.L + 1
    return WindowAdversary(
        n,
        i,
        r.L,
        r.R,
        None if r.left == "start" else int(r.left),
        None if r.right == "end" else int(r.right),
        r.x,
        r.x_prime,
        r.value,
        math.nan,
        model,
    )


@runtime_checkable
class NoisyHistogram(Protocol):
    """Laplace noise of scale ``noise_scale`` on every count of the histogram of the states
    (:class:`HistogramMechanism`; the accountant and the attack read it as this)."""

    @property
    def noise_scale(self) -> float: ...

    def histogram_cells(self) -> int:
        """The number of counts (the model's states)."""
        ...


@dataclass(frozen=True)
class HistogramMechanism:
    """``histogram(X) + Lap(2 / epsilon)^states`` (see module docstring); output ``(N, states)``."""

    epsilon: float
    states: int
    kind: str = field(default="histogram", init=False)
    summary_extras: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        positive("mechanism.epsilon", self.epsilon)
        check(
            isinstance(self.states, (int, np.integer)) and self.states >= 2,
            "mechanism.states",
            self.states,
            "a histogram needs a model with >= 2 states",
        )

    sensitivity = 2.0

    @property
    def noise_scale(self) -> float:
        """``b = 2 / epsilon`` (L1 sensitivity 2)."""
        return 2.0 / self.epsilon

    @property
    def output_dim(self) -> int:
        """Outputs are vectors of one noisy count per state."""
        return int(self.states)

    def histogram_cells(self) -> int:
        """One count per state (:class:`NoisyHistogram`)."""
        return int(self.states)

    def query(self, data: np.ndarray) -> np.ndarray:
        return histogram(data, self.states)

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        h = self.query(data)
        return h + rng.laplace(0.0, self.noise_scale, size=h.shape)

    def columns(self) -> dict:
        return {**NO_COLUMNS, "noise_scale": self.noise_scale}

    def adversary_targets(self, targets: str):
        return targets, None

    def exact(self, model) -> HistogramEngine:
        """Its own exact engine on a Markov chain (module docstring); raises
        :class:`~bdpsim.core.errors.NotAvailable` on other models or beyond
        :data:`~bdpsim.kernels.chains.histogram_sup.LIMIT`."""
        if not isinstance(model, MarkovChain):
            raise NotAvailable(
                "the histogram has an exact BDPL on Markov chains only; use estimator = 'audit'"
            )
        n, s = model.n, model.states
        if (n + 3) ** s > LIMIT:
            raise NotAvailable(
                f"histogram of {s} states on n = {n}: the exact supremum needs (n + 3)^s vertices "
                f"(limit {LIMIT:.0e}); use estimator = 'audit'"
            )
        small = n <= EXHAUSTIVE_MAX_N.get(s, 0)  # else 'all' is refused up front (no search)
        if s == 2 and n <= ATTACK_MAX_N:  # each adversary's output laws too (HistogramPair)
            return (HistogramWindowPairEngine if small else HistogramPairEngine)(model, self.noise_scale)
        return (HistogramWindowEngine if small else HistogramEngine)(model, self.noise_scale)


class HistogramEngine:
    """The exact engine of the Laplace histogram on a Markov chain: per adversary the clamped
    forward recursion over (position, state, count vector) and the exact sup of two product-Laplace
    mixtures at the grid vertices (:func:`histogram_adversary`)."""

    method = (
        "clamped forward recursion over (position, state, count vector), exact sup of "
        "two product-Laplace mixtures at the grid vertices; every adversary by the "
        "window reduction (chain_histogram_bdpl)"
    )
    incomplete: str | None = None

    def __init__(self, model, scale: float) -> None:
        self.model, self.scale = model, scale

    def bdpl(self, adversary: Adversary) -> Estimate:
        return Estimate(histogram_adversary(self.model, self.scale, adversary).value, 0, math.nan)

    def one_sided(self, adversary: Adversary) -> Estimate:
        return Estimate(histogram_adversary(self.model, self.scale, adversary).forward, 0, math.nan)


class HistogramWindowEngine(HistogramEngine):
    """:class:`HistogramEngine` on a chain short enough for the window reduction over every
    adversary (:func:`chain_histogram_bdpl`; capability
    :class:`~bdpsim.models.engines.HasWindowSearch`)."""

    def check_window(self, min_known: int) -> None:
        return None  # only built where n <= EXHAUSTIVE_MAX_N

    def window(self, min_known: int, top: int | None, targets=None):
        check_all_targets(targets)
        m = self.model
        r = chain_histogram_bdpl(m.transition, m.initial, m.n, [self.scale], min_known=min_known)[0]
        return None, [_window_adversary(m, r)], np.array([r.value])


@dataclass(frozen=True)
class HistogramPair:
    """One adversary's two output laws of the Laplace histogram (an
    :class:`~bdpsim.models.pairs.OutputPair`): ``P = sum_c w1[c] Lap(b)^s(. - c)`` over the count
    vectors ``atoms`` and ``Q`` likewise with ``w2``. Its hockey-stick divergences are the middles
    of the box brackets of :func:`~bdpsim.kernels.privacy.boxes.laplace_boxes_hockey` (width at most
    :data:`~bdpsim.kernels.privacy.boxes.TOLERANCE`; ``eps < 0`` by ``H_eps(p||q) = 1 - e^eps +
    e^eps H_{-eps}(q||p)``); its BDPL exact (:func:`histogram_sup`)."""

    atoms: np.ndarray
    w1: np.ndarray
    w2: np.ndarray
    b: float
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, laws, b: float) -> HistogramPair:
        """From the two ``(atoms, probabilities)`` of :func:`count_vector_law` (on the union of
        their atoms)."""
        (a1, p1), (a2, p2) = laws
        atoms, inv = np.unique(np.concatenate([a1, a2]), axis=0, return_inverse=True)
        inv = np.ravel(inv)
        w1 = np.bincount(inv, np.concatenate([p1, np.zeros(p2.size)]), minlength=len(atoms))
        w2 = np.bincount(inv, np.concatenate([np.zeros(p1.size), p2]), minlength=len(atoms))
        return cls(atoms, w1, w2, b)

    def _hockey(self, eps: float, forward: bool) -> float:
        if eps < 0:
            k = math.exp(eps)
            return 1.0 - k + k * self._hockey(-eps, not forward)
        key = (eps, forward)
        if key not in self._cache:
            a, b = (self.w1, self.w2) if forward else (self.w2, self.w1)
            br = laplace_boxes_hockey(self.atoms, a, b, self.b, eps)
            self._cache[key] = 0.5 * (br.lower + br.upper)
        return self._cache[key]

    def deltas(self, epsilons) -> tuple[np.ndarray, np.ndarray]:
        e = np.atleast_1d(np.asarray(epsilons, dtype=float))
        f = np.array([self._hockey(float(x), True) for x in e.ravel()]).reshape(e.shape)
        g = np.array([self._hockey(float(x), False) for x in e.ravel()]).reshape(e.shape)
        return f, g

    def swapped(self) -> HistogramPair:
        return HistogramPair(self.atoms, self.w2, self.w1, self.b)

    def bdpl(self) -> float:
        return float(histogram_sup(self.atoms, self.w1, self.atoms, self.w2, self.b).value)

    @property
    def label(self) -> str:
        return "box brackets of width <= 1e-6 (their middle)"


class HistogramPairEngine(HistogramEngine):
    """:class:`HistogramEngine` of a two-state chain with each adversary's output laws
    (:class:`HistogramPair`; capability :class:`~bdpsim.models.engines.HasOutputPair`)."""

    def output_pair(self, adversary: Adversary) -> HistogramPair:
        laws = [
            count_vector_law(self.model, adversary.condition(v)) for v in (adversary.x, adversary.x_prime)
        ]
        return HistogramPair.of(laws, self.scale)


class HistogramWindowPairEngine(HistogramWindowEngine, HistogramPairEngine):
    """:class:`HistogramWindowEngine` with each adversary's output laws (two states)."""


class HistogramKind(MechanismKind):
    name = "histogram"
    example = {"model": {"kind": "markov", "n": 4, "gamma": 3.0}, "mechanism": {"epsilon": 1.0}}
    doc = "histogram of the states + Lap(2/epsilon) per cell (L1 sensitivity 2); vector output"
    keys = {"epsilon": Key("float", doc="the DP parameter of the histogram's Laplace noise", rule="> 0")}
    domain = "discrete"

    def build(self, params: dict, spec) -> HistogramMechanism:
        return HistogramMechanism(required(params, "epsilon"), int(spec.probe().states))


register_mechanism_kind(HistogramKind())
