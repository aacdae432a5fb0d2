"""Continual release as a mechanism kind (``[mechanism] kind = "continual"``).

The records ``x_1..x_n`` of a Markov chain model are one person's time series ``x_1..x_T``
(``T = n``); the mechanism releases every step locally and independently, ``r_t ~ M(x_t)``, each
step ``epsilon``-DP:

* ``release = "krr"``: k-ary randomized response, ``P(r = x) = e^eps / (e^eps + k - 1)``, each other
  state ``1 / (e^eps + k - 1)``;
* ``release = "any"``: the supremum over every ``epsilon``-DP step. It is attained by one
  mechanism, which this kind runs: output a set ``S`` of states (non-empty, not all) with
  ``P(S | x) ∝ e^eps`` if ``x ∈ S`` else ``1`` (by symmetry every state has the same total);
  its likelihood vectors are the extreme rays of every eps-DP step's likelihood cone;
* ``release = "laplace" | "geometric" | "staircase"``: that noise at ``eps/2`` on each coordinate
  of the one-hot histogram of ``x_t`` (outputs ``k`` numbers per step);
* with ``state_values = [v_1, .., v_k]`` (``laplace`` or ``geometric``): that noise on the step's
  value, ``r_t = v_{x_t} + Z`` at ``eps`` and sensitivity ``max v - min v`` (one number per step).

``epsilon`` is every step's budget; ``epsilon_schedule = [eps_1, .., eps_T]`` gives one per step
instead (the ``epsilon`` column is then the largest: every step is that DP). The chain and its
releases are one :class:`~bdpsim.temporal.chain.ReleasedChain`, checked when the point is built,
the same value ``bdpsim temporal --epsilon eps_1 .. eps_T --state-values v_1 .. v_k`` computes.

bdpsim's adversary ``(i, K, x_K, x, x')`` is the target step ``t = i + 1``, the known steps ``K``
and their values. Its exact BDPL is :class:`bdpsim.temporal.exact.TemporalEngine`; with ``K``
empty, the maximum over the pairs is the exact temporal leakage ``TPL_t``
(:func:`bdpsim.temporal_leakage`), so ``bdpl_max`` over every adversary with ``known_sizes = [0]``
is ``max_t TPL_t``. The summary adds Cao et al.'s bound ``cao_tpl_max = max_t TPL_t`` of their
recursion (:func:`bdpsim.temporal.cao.cao_leakage`; the same chain and budgets, stationary-reversal
backward matrices), a bound for the adversary who knows no step: beside ``bdpl_max`` only when
``known_sizes = [0]`` (an adversary who knows a step may leak more than it), and the ``release``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

import numpy as np

from ..adversary import Adversary, Estimate
from ..core.columns import Column, register_columns
from ..core.errors import BdpsimError, ConfigError, NotAvailable, check
from ..core.schema import Key
from ..models.engines import ExhaustiveResult, SearchTooLarge
from ..models.protocols import MarkovChain
from ..temporal.chain import ReleasedChain, arguments, check_epsilon
from ..temporal.releases import OWN, release_names, value_laws
from .base import NO_COLUMNS, MechanismKind, register_mechanism_kind

#: most adversaries an exhaustive search (``run.adversaries = "all"``) enumerates
MAX_EXHAUSTIVE = 200_000

COLUMNS = register_columns(
    "summary",
    Column("release", str, f"continual release: what each step releases ({', '.join(release_names())})"),
    Column(
        "cao_tpl_max",
        float,
        "continual release: Cao et al.'s temporal privacy leakage max_t TPL_t (their "
        "recursion, an upper bound of the exact max_t TPL_t), the leakage to an adversary who knows "
        "no step: it bounds bdpl_max only with known_sizes = [0] (an adversary who knows steps may "
        "learn more than it)",
    ),
    owner="mechanism continual",
)


@dataclass(frozen=True)
class ContinualRelease:
    """Release every record of a Markov chain's time series locally, each step ``epsilon``-DP
    (module docstring). ``transition``, ``initial`` and ``steps`` are the chain's (kept for Cao's
    column and the exact engine); ``epsilon_schedule`` (one budget per step, ``step_epsilon`` its
    largest) and ``state_values`` (one value per state) are the config keys of the same names."""

    release: str
    step_epsilon: float
    transition: np.ndarray
    initial: np.ndarray
    steps: int
    epsilon_schedule: tuple[float, ...] | None = None
    state_values: tuple[float, ...] | None = None
    kind: str = field(default="continual", init=False)
    summary_extras: ClassVar[tuple[str, ...]] = tuple(c.name for c in COLUMNS)

    def __post_init__(self) -> None:
        check(
            self.release in release_names(),
            "mechanism.release",
            self.release,
            f"must be one of {', '.join(release_names())}",
        )
        with arguments({"epsilon": "mechanism.epsilon"}):  # e^eps must stay a float
            check_epsilon(self.step_epsilon, self.steps)
        _ = self.chain  # the chain and its releases, checked once, naming the config's fields

    @cached_property
    def chain(self) -> ReleasedChain:
        """The chain and its releases (:class:`~bdpsim.temporal.chain.ReleasedChain`)."""
        schedule = self.epsilon_schedule is not None
        names = {
            "epsilon": "mechanism.epsilon_schedule" if schedule else "mechanism.epsilon",
            "state_values": "mechanism.state_values",
            "release": "mechanism.release",
        }
        with arguments(names):
            return ReleasedChain.of(
                self.transition,
                list(self.epsilon_schedule) if self.epsilon_schedule is not None else self.step_epsilon,
                self.steps,
                self.release,
                initial=self.initial,
                state_values=None if self.state_values is None else list(self.state_values),
            )

    @property
    def epsilon(self) -> float:
        """Each step's DP parameter (the largest of a schedule): changing one step's value changes
        one release (event level)."""
        return float(self.step_epsilon)

    @property
    def states(self) -> int:
        return int(np.shape(self.transition)[0])

    @property
    def output_dim(self) -> int:
        """Numbers released per data tuple: one per step (krr, any) or ``k`` per step (histogram noise)."""
        one = self.release in OWN or self.state_values is not None
        return self.steps * (1 if one else self.states)

    def step(self, epsilon: float | None = None):
        """The per-step :class:`~bdpsim.temporal.mechanisms.StepRelease` (at ``epsilon``, by
        default ``step_epsilon``)."""
        return self.chain.step_release(self.step_epsilon if epsilon is None else epsilon)

    def output_law(self, epsilon: float | None = None) -> np.ndarray:
        """``(outputs, k)``: ``P(r = j | x)`` of a krr or any step (columns sum to 1)."""
        L = self.step(epsilon).likelihoods
        return L / L.sum(axis=0, keepdims=True)

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        x = np.asarray(data).astype(np.int64)
        N, T = x.shape
        eps = self.chain.epsilons
        if self.release in OWN:
            out = np.empty((N, T))
            for e in np.unique(eps):  # the steps of one budget at once
                steps = np.flatnonzero(eps == e)
                cdf = np.cumsum(self.output_law(float(e)), axis=0)  # (outputs, k)
                u = rng.random((N, steps.size))
                out[:, steps] = (u[..., None] > cdf.T[x[:, steps]][..., :-1]).sum(axis=-1)
            return out
        from ..kernels.noise.laws import noise_from_params

        if self.state_values is not None:  # noise on the value: r_t = v_{x_t} + Z, eps_t at the span
            v = np.asarray(self.state_values, dtype=float)
            out = v[x]
            for e in np.unique(eps):
                steps = np.flatnonzero(eps == e)
                noise = noise_from_params(
                    self.release, epsilon=float(e), sensitivity=float(v.max() - v.min())
                )
                out[:, steps] += noise.sample(N * steps.size, rng).reshape(N, steps.size)
            return out
        hist = np.eye(self.states)[x]  # (N, T, k)
        for e in np.unique(eps):
            steps = np.flatnonzero(eps == e)
            noise = noise_from_params(self.release, epsilon=float(e) / 2, sensitivity=1.0)
            shape = (N, steps.size, self.states)
            hist[:, steps] += noise.sample(N * steps.size * self.states, rng).reshape(shape)
        return hist.reshape(N, -1)

    def columns(self) -> dict:
        from ..temporal.cao import cao_leakage

        budget = self.step_epsilon if self.epsilon_schedule is None else self.chain.epsilons
        try:
            cao = float(np.max(cao_leakage(self.transition, budget, self.steps, initial=self.initial).tpl))
        except BdpsimError:  # Cao's recursion refuses the chain (e.g. rows with disjoint supports)
            cao = math.nan
        return {**NO_COLUMNS, "release": self.release, "cao_tpl_max": cao}

    def adversary_targets(self, targets: str):
        return targets, None

    def exact(self, model) -> ContinualEngine:
        """The kind's own exact engine (:class:`ContinualEngine`); raises
        :class:`~bdpsim.core.errors.NotAvailable` on models other than Markov chains."""
        if not isinstance(model, MarkovChain):
            raise NotAvailable("continual release has an exact leakage on Markov chain models only")
        return ContinualEngine(model, self)


class ContinualEngine:
    """Exact leakage of a continual release on a Markov chain, adversary by adversary
    (:class:`~bdpsim.temporal.exact.TemporalEngine`), and every adversary with ``|K|`` in a set of
    sizes enumerated (:class:`~bdpsim.models.engines.HasExhaustive`)."""

    method = (
        "reachable-hull propagation of the past and future releases given the known steps "
        "(bdpsim.temporal); all adversaries by enumeration"
    )
    incomplete: str | None = None

    def __init__(self, chain: MarkovChain, mechanism: ContinualRelease) -> None:
        from ..temporal.exact import TemporalEngine

        self.T, self.k = int(chain.n), int(chain.states)
        self.chain = TemporalEngine.of(ReleasedChain.of_model(chain, mechanism))

    @staticmethod
    def _known(adv: Adversary) -> dict:
        return {int(s): int(v) for s, v in zip(adv.known, adv.x_known)}

    def bdpl(self, adversary: Adversary) -> Estimate:
        a = adversary
        return Estimate(self.chain.two_sided(int(a.i), self._known(a), int(a.x), int(a.x_prime)))

    def one_sided(self, adversary: Adversary) -> Estimate:
        a = adversary
        return Estimate(self.chain.one_sided(int(a.i), self._known(a), int(a.x), int(a.x_prime)))

    def exhaustive_parts(self, jobs: int) -> list[list[int]]:
        """``jobs`` runs of consecutive targets (:class:`~bdpsim.models.engines.HasExhaustiveParts`):
        with nothing known every target of a part reads the same two sweeps, so a part costs
        ``O(T)`` and the search is linear in ``T`` (one task per target would redo the sweeps at
        every target: quadratic)."""
        parts = max(1, min(int(jobs), self.T))
        return [[int(t) for t in p] for p in np.array_split(np.arange(self.T), parts)]

    def count(self, sizes: Sequence[int]) -> int:
        """Adversaries (unordered pairs) with ``|K|`` in ``sizes``."""
        T, k = self.T, self.k
        return sum(T * math.comb(T - 1, s) * k**s * k * (k - 1) // 2 for s in sizes if 0 <= s < T)

    def check_exhaustive(self, sizes: Sequence[int]) -> None:
        c = self.count(sizes)
        if c > MAX_EXHAUSTIVE:
            raise SearchTooLarge(
                "run.known_sizes",
                f"{c} adversaries (T = {self.T}, {self.k} states): above "
                f"{MAX_EXHAUSTIVE}; use known_sizes = [0] or fewer sizes",
            )

    def exhaustive(self, sizes: Sequence[int], targets: Sequence[int] | None) -> ExhaustiveResult:
        self.check_exhaustive(sizes)
        T, k = self.T, self.k
        rows: list[tuple[int, list[int], int, int, float]] = []
        for t in range(T) if targets is None else targets:
            others = [s for s in range(T) if s != t]
            for size in sizes:
                for K in itertools.combinations(others, size):
                    for vals in itertools.product(range(k), repeat=size):
                        kn = dict(zip(K, vals))
                        for a, b in itertools.combinations(range(k), 2):
                            try:
                                v = self.chain.two_sided(int(t), kn, a, b)
                            except NotAvailable:  # a value impossible given x_K: no such adversary
                                continue
                            pat = [-1] * T
                            pat[t] = -2
                            for s, c in kn.items():
                                pat[s] = c
                            rows.append((int(t), pat, a, b, v))
        if not rows:
            return ExhaustiveResult.concat([], T)
        cols = list(zip(*rows))
        return ExhaustiveResult(
            np.array(cols[0]),
            np.array(cols[1], dtype=np.int8),
            np.array(cols[2]),
            np.array(cols[3]),
            np.array(cols[4], dtype=float),
            np.full(len(rows), math.nan),
        )


def check_two_values(P: np.ndarray, initial: np.ndarray, steps: int) -> None:
    """Some step has two possible values (else no adversary has a pair to tell apart, and the
    search would finish with none): a :class:`~bdpsim.core.errors.ConfigError` naming
    ``model.transition`` and the states that never occur. The supports of the step laws repeat
    within ``2^k`` steps, so at most ``2^k + 1`` steps are looked at."""
    support = initial > 0
    seen = np.zeros_like(support)
    for _ in range(min(steps, 2 ** P.shape[0] + 1)):
        if support.sum() >= 2:
            return
        seen |= support
        support = (support.astype(float) @ P) > 0
    never = [int(s) for s in np.flatnonzero(~seen)]
    raise ConfigError(
        "model.transition",
        P.tolist(),
        f"at every step only one state can occur (states {never} never do): no adversary can tell "
        "two values apart",
    )


class ContinualKind(MechanismKind):
    name = "continual"
    example = {
        "model": {"kind": "markov", "n": 5, "transition": [[0.8, 0.2], [0.3, 0.7]]},
        "mechanism": {"epsilon": 1.0, "release": "krr"},
    }
    doc = (
        "continual release: every record of a Markov chain time series released locally, each step "
        "epsilon-DP (k-RR, any eps-DP step, or noise on the one-hot histogram); exact TPL beside Cao et al.'s"
    )
    keys = {
        "epsilon": Key(
            "float",
            doc="each step's DP parameter (the same at every step)",
            rule="> 0; exactly one of epsilon, epsilon_schedule",
        ),
        "release": Key(
            "str",
            "krr",
            hashed=False,
            doc="what each step releases",
            rule=f"one of {', '.join(release_names())}",
        ),
        "epsilon_schedule": Key(
            "vector",
            sweep=False,
            hashed=False,
            doc="each step's DP parameter, one per step (as bdpsim temporal --epsilon e_1 .. e_T); the "
            "epsilon column is the largest",
            rule="model.n numbers in [1e-09, 700]; exactly one of epsilon, epsilon_schedule",
        ),
        "state_values": Key(
            "vector",
            hashed=False,
            doc="on a chain: each state's value; the noise is on the value instead of the one-hot histogram "
            "(as bdpsim temporal --state-values)",
            rule=f"one finite number per state, not all equal; release {' or '.join(value_laws())} "
            "(geometric: integers)",
        ),
    }
    domain = "discrete"

    def build(self, params: dict, spec) -> ContinualRelease:
        check(
            isinstance(spec.fixed, MarkovChain),
            "mechanism.kind",
            self.name,
            "continual release needs a Markov chain model (model.kind = 'markov')",
        )
        from ..temporal.exact import MAX_STATES

        chain = spec.fixed
        check(
            chain.states <= MAX_STATES,
            "model.transition",
            f"{chain.states} states",
            f"continual release propagates hulls in k - 1 dimensions: at most {MAX_STATES} states",
        )
        schedule, values = params.get("epsilon_schedule"), params.get("state_values")
        if schedule is not None:
            check(
                params.get("epsilon") is None,
                "mechanism.epsilon_schedule",
                schedule,
                "give mechanism.epsilon (every step) or mechanism.epsilon_schedule (one per step), not both",
            )
        else:
            check(
                params.get("epsilon") is not None,
                "mechanism.epsilon",
                None,
                "is required (or mechanism.epsilon_schedule, one per step)",
            )
        check_two_values(
            np.asarray(chain.transition, dtype=float), np.asarray(chain.initial, dtype=float), int(chain.n)
        )
        with arguments({"epsilon": "mechanism.epsilon_schedule"}):  # the length and every budget
            budgets = None if schedule is None else check_epsilon(schedule, int(chain.n))
        return ContinualRelease(
            params["release"],
            params["epsilon"] if budgets is None else float(np.max(budgets)),
            np.asarray(chain.transition, dtype=float),
            np.asarray(chain.initial, dtype=float),
            int(chain.n),
            None if budgets is None else tuple(float(e) for e in budgets),
            None if values is None else tuple(float(v) for v in values),
        )


register_mechanism_kind(ContinualKind())

__all__ = ["COLUMNS", "ContinualEngine", "ContinualKind", "ContinualRelease"]
