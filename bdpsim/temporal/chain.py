"""A Markov chain and its releases: the one value of a continual release, checked once.

A person's values ``x_1..x_T`` follow a Markov chain (one transition matrix, or one per step;
an initial law, by default the stationary law of the first matrix) and every step ``t`` releases
``r_t ~ M_t(x_t)`` locally and independently, ``eps_t``-DP: k-ary randomized response, any
``eps_t``-DP step, noise on the one-hot histogram of ``x_t``, or noise on a per-state value
(:mod:`bdpsim.temporal.mechanisms`). :class:`ReleasedChain` holds both halves; every consumer —
:func:`bdpsim.temporal_leakage`, ``bdpsim temporal``, the temporal engine
(:class:`bdpsim.temporal.exact.TemporalEngine`), the budget search
(:func:`bdpsim.temporal.allocate.allocate`), Cao et al.'s columns, and the ``continual`` kind's
:class:`~bdpsim.mechanisms.local.LocalRelease` on a chain model — takes the value as it was
checked, and a new per-step budget (:meth:`ReleasedChain.with_epsilon`) checks the budget alone.

Every rule broken raises one error type, :class:`~bdpsim.core.errors.ConfigError`, naming the
argument (``transition``, ``initial``, ``steps``, ``release``, ``epsilon``, ``state_values``);
the command line and the config name their flag or field instead
(:func:`bdpsim.core.errors.naming`). A constant budget is kept as one number: a chain of 10^9
steps costs no memory before an engine estimates its work.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from ..core.errors import ConfigError, check, naming
from ..kernels.chains.transition import stationary_distribution, transition_matrix
from .releases import release_names, value_laws

#: the budgets a step may have: below ``MIN_EPSILON`` a step's likelihoods agree to floating-point
#: precision (the leakage would be computed with a relative error above 1e-7); above
#: ``MAX_EPSILON`` ``e^eps`` overflows (a step that large reveals its value)
MIN_EPSILON = 1e-9
MAX_EPSILON = 700.0
#: largest per-state value in absolute value (the config's limit on numbers)
MAX_VALUE = 1e12
#: the rule of a budget, in words
EPSILON_RULE = f"must be a number in [{MIN_EPSILON:g}, {MAX_EPSILON:g}] (below it a step's likelihoods agree to floating-point precision, above it e^eps overflows)"  # noqa: E501


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def check_epsilon(epsilon: Any, steps: int) -> np.ndarray:
    """A per-step budget: one number (a 0-d array: no list of ``steps`` values is built) or one
    per step, each in ``[MIN_EPSILON, MAX_EPSILON]``; a :class:`ConfigError` naming ``epsilon``."""
    if isinstance(epsilon, (list, tuple, np.ndarray)) and np.ndim(epsilon) > 0:
        items = list(np.ravel(np.asarray(epsilon, dtype=object)))
        check(
            len(items) == steps,
            "epsilon",
            items[:8],
            f"a per-step budget needs one value per step ({steps}), got {len(items)}",
        )
        for t, e in enumerate(items):
            ok = _is_number(e) and MIN_EPSILON <= float(e) <= MAX_EPSILON
            check(ok, "epsilon", e, f"{EPSILON_RULE} (step {t}, numbered from 0)")
        arr = np.array([float(e) for e in items])
    else:
        ok = _is_number(epsilon) and MIN_EPSILON <= float(epsilon) <= MAX_EPSILON
        check(ok, "epsilon", epsilon, EPSILON_RULE)
        arr = np.array(float(epsilon))
    arr.setflags(write=False)
    return arr


def _transitions(transition: Any, steps: int) -> np.ndarray:
    """One ``(k, k)`` matrix or ``steps - 1`` of them (``(steps - 1, k, k)``), each checked by
    :func:`~bdpsim.kernels.chains.transition.transition_matrix`; read-only."""
    shape_rule = "must be a square matrix (k rows of k numbers), or one per step (steps - 1 of them)"
    try:
        nd = np.ndim(transition)
    except ValueError:  # ragged lists
        raise ConfigError("transition", transition, shape_rule) from None
    if nd == 3:
        mats = list(transition)
        check(
            len(mats) == steps - 1,
            "transition",
            f"{len(mats)} matrices",
            f"a per-step chain needs steps - 1 = {steps - 1} matrices (P_t maps step t to t + 1)",
        )
        out = []
        for i, P in enumerate(mats):
            try:
                out.append(transition_matrix(P))
            except ValueError as exc:
                rule = getattr(exc, "rule", str(exc))
                raise ConfigError("transition", f"matrix {i} (from step {i})", rule) from None
        arr = np.stack(out) if out else np.empty((0, 2, 2))
    else:
        check(nd == 2, "transition", transition, shape_rule)
        with naming(fields={"P": "transition"}):
            arr = transition_matrix(transition)
    arr = np.array(arr, dtype=float)
    arr.setflags(write=False)
    return arr


def _initial(initial: Any, first: np.ndarray) -> np.ndarray:
    k = first.shape[0]
    if isinstance(initial, str):
        check(initial == "stationary", "initial", initial, "must be 'stationary' or a probability vector")
        law = stationary_distribution(first)
    else:
        try:
            law = np.asarray(initial, dtype=float)
        except (TypeError, ValueError):
            raise ConfigError("initial", initial, f"must be {k} probabilities >= 0 summing to 1") from None
        check(
            law.shape == (k,)
            and bool(np.all(np.isfinite(law)))
            and bool(np.all(law >= 0))
            and abs(law.sum() - 1) < 1e-8,
            "initial",
            law.tolist() if law.size < 50 else law.shape,
            f"must be {k} probabilities >= 0 summing to 1",
        )
    law = np.array(law, dtype=float)
    law.setflags(write=False)
    return law


def state_values_of(values: Any, release: str, k: int) -> np.ndarray | None:
    """A value per state for noise of ``release`` on the value (``None`` stays ``None``), checked:
    a law of :func:`~bdpsim.temporal.releases.value_laws`, ``k`` finite numbers not all equal, at
    most :data:`MAX_VALUE` in absolute value, integers for a lattice law; read-only."""
    if values is None:
        return None
    laws = value_laws()
    check(
        release in laws,
        "state_values",
        values,
        f"noise on a per-state value needs release {' or '.join(laws)} (release {release} has no values)",
    )
    try:
        v = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError("state_values", values, f"must be {k} finite numbers, one per state") from None
    check(
        v.ndim == 1 and v.size == k and bool(np.all(np.isfinite(v))),
        "state_values",
        values,
        f"must be {k} finite numbers, one per state",
    )
    check(bool(v.max() > v.min()), "state_values", v.tolist(), "must not all be equal (nothing is released)")
    check(
        bool(np.all(np.abs(v) <= MAX_VALUE)),
        "state_values",
        v.tolist(),
        f"must be at most {MAX_VALUE:g} in absolute value (the noise scale grows with their span: "
        "beyond it the step's likelihoods underflow)",
    )
    if release == "geometric":
        check(
            bool(np.all(np.abs(v - np.round(v)) < 1e-12)),
            "state_values",
            v.tolist(),
            "geometric noise needs integer values (outputs of other classes never coincide)",
        )
    v = np.array(v)
    v.setflags(write=False)
    return v


@dataclass(frozen=True, eq=False)
class ReleasedChain:
    """A Markov chain of ``steps`` steps and what each step releases (module docstring); make one
    with :meth:`of` (checked) or :meth:`of_model` (a chain model and a
    :class:`~bdpsim.mechanisms.local.LocalRelease`).

    Attributes
    ----------
    transition : numpy.ndarray
        ``(k, k)`` (one matrix for every step) or ``(steps - 1, k, k)`` (``P_t``: step ``t`` to ``t+1``).
    initial : numpy.ndarray
        The law of the first step.
    steps : int
        ``T >= 1``.
    release : str
        What each step releases: ``krr``, ``any`` or a noise law
        (:func:`bdpsim.temporal.releases.release_names`).
    epsilon : numpy.ndarray
        The per-step budget: a 0-d array (the same at every step) or one value per step.
    state_values : numpy.ndarray or None
        A value per state: the noise is on the value instead of the one-hot histogram.
    stationary : bool
        Whether ``initial`` is the stationary law because none was given.
    likelihoods : numpy.ndarray or None
        ``(outputs, k)``: a randomiser's likelihood vectors, the same at every step (``release``
        ``"matrix"``: a likelihood matrix or randomized response of a
        :class:`~bdpsim.mechanisms.local.LocalRelease`; ``epsilon`` its DP level).
    """

    transition: np.ndarray
    initial: np.ndarray
    steps: int
    release: str
    epsilon: np.ndarray
    state_values: np.ndarray | None = None
    stationary: bool = False
    likelihoods: np.ndarray | None = None

    @classmethod
    def of(
        cls,
        transition: Any,
        epsilon: Any,
        steps: Any,
        release: str = "any",
        *,
        initial: Any = "stationary",
        state_values: Any = None,
    ) -> ReleasedChain:
        """The value, checked once (:class:`~bdpsim.core.errors.ConfigError` naming the argument).

        Parameters
        ----------
        transition : array_like
            One ``(k, k)`` row-stochastic matrix, or ``steps - 1`` of them.
        epsilon : float or sequence of float
            Each step's DP level: one value, or one per step.
        steps : int
            ``T >= 1``.
        release : str
            ``krr``, ``any`` or a noise law of :func:`~bdpsim.temporal.releases.release_names`.
        initial : "stationary" or array_like
            The law of the first step.
        state_values : sequence of float, optional
            A value per state (with a law of :func:`~bdpsim.temporal.releases.value_laws`).
        """
        check(
            isinstance(steps, (int, np.integer)) and not isinstance(steps, bool) and steps >= 1,
            "steps",
            steps,
            "must be an integer >= 1",
        )
        T = int(steps)
        check(
            isinstance(release, str) and release in release_names(),
            "release",
            release,
            f"must be one of {', '.join(release_names())}",
        )
        P = _transitions(transition, T)
        first = P if P.ndim == 2 else (P[0] if len(P) else None)
        if first is None:  # one step and an empty per-step list: no matrix to take the states from
            raise ConfigError("transition", [], "a chain of one step still needs its transition matrix")
        law = _initial(initial, first)
        eps = check_epsilon(epsilon, T)
        values = state_values_of(state_values, release, P.shape[-1])
        return cls(P, law, T, release, eps, values, isinstance(initial, str))

    @classmethod
    def of_model(cls, model: Any, release: Any) -> ReleasedChain:
        """The value of a chain model (``transition``, ``initial``, ``n``: a
        :class:`~bdpsim.models.MarkovChainModel`) and a local release of every record (a
        :class:`~bdpsim.mechanisms.local.LocalRelease`: ``release``, ``epsilon`` or its schedule,
        ``state_values``), each checked by its own constructor: what remains is checked here (the
        budget's length against ``n``, the values and the release's states against the chain's;
        :class:`ConfigError` naming the release's argument)."""
        k = int(np.shape(model.transition)[-1])
        check(
            release.states is None or int(release.states) == k,
            "release.states",
            release.states,
            f"must be the chain's {k} states",
        )
        check(
            release.steps is None or int(release.steps) == int(model.n),
            "release.steps",
            release.steps,
            f"must be the chain's {int(model.n)} records",
        )
        L = release.likelihoods(k)
        if L is not None:  # a randomiser: the same likelihood vectors at every step
            P = _transitions(model.transition, int(model.n))
            first = P if P.ndim == 2 else P[0]
            eps = float(np.max(np.log(L.max(axis=1) / L.min(axis=1)))) if L.shape[0] else 0.0
            arr = np.array(max(eps, 0.0))
            arr.setflags(write=False)
            law = _initial(model.initial, first)
            lik = np.array(L, dtype=float)
            lik.setflags(write=False)
            return cls(P, law, int(model.n), "matrix", arr, None, isinstance(model.initial, str), lik)
        with arguments({"epsilon": "release.epsilon", "state_values": "release.state_values"}):
            return cls.of(
                model.transition,
                release.budget,
                int(model.n),
                release.release,
                initial=model.initial,
                state_values=release.state_values,
            )

    def with_epsilon(self, epsilon: Any) -> ReleasedChain:
        """The same chain and release with another per-step budget (only the budget is checked)."""
        return replace(self, epsilon=check_epsilon(epsilon, self.steps))

    # ------------------------------------------------------------------ what it is
    @property
    def states(self) -> int:
        return int(self.transition.shape[-1])

    @property
    def per_step(self) -> bool:
        """Whether the chain has one transition matrix per step."""
        return self.transition.ndim == 3

    @property
    def constant(self) -> bool:
        """Whether every step has the same budget."""
        return self.epsilon.ndim == 0

    @property
    def first_matrix(self) -> np.ndarray:
        return self.transition if self.transition.ndim == 2 else self.transition[0]

    @property
    def matrices(self) -> list[np.ndarray]:
        """``P_1 .. P_{T-1}`` (one object repeated for a time-homogeneous chain)."""
        if self.transition.ndim == 3:
            return list(self.transition)
        return [self.transition] * (self.steps - 1)

    @property
    def epsilons(self) -> np.ndarray:
        """The budget of every step (a read-only broadcast of a constant: no memory per step)."""
        return np.broadcast_to(self.epsilon, (self.steps,))

    def epsilon_at(self, t: int) -> float:
        """The budget of step ``t`` (0-based)."""
        return float(self.epsilon if self.epsilon.ndim == 0 else self.epsilon[t])

    @cached_property
    def outputs(self) -> int:
        """Extreme outputs of one step (the likelihood vectors the engine propagates)."""
        return int(self.step_release(self.epsilon_at(0)).likelihoods.shape[0])

    def step_release(self, epsilon: float):
        """The :class:`~bdpsim.temporal.mechanisms.StepRelease` of one step at ``epsilon``."""
        from .mechanisms import step_release

        if self.likelihoods is not None:  # a randomiser's own likelihood vectors (its outputs)
            from .mechanisms import StepRelease

            labels = tuple(f"r={j}" for j in range(self.likelihoods.shape[0]))
            return StepRelease("matrix", float(epsilon), self.likelihoods, labels)
        values = None if self.state_values is None else self.state_values.tolist()
        with naming(fields={"mechanism": "release", "values": "state_values", "states": "release"}):
            return step_release(self.release, self.states, float(epsilon), values)

    def step_releases(self) -> list:
        """One :class:`~bdpsim.temporal.mechanisms.StepRelease` per step (one object per distinct
        budget); build it only after the engine's work check (a list of ``steps`` entries)."""
        cache: dict[float, Any] = {}
        out = []
        for e in self.epsilons:
            e = float(e)
            if e not in cache:
                cache[e] = self.step_release(e)
            out.append(cache[e])
        return out

    def describe(self) -> str:
        """One line: the chain and the release, in a user's words."""
        k, T = self.states, self.steps
        e = self.epsilons
        eps = f"eps {e[0]:g}" if self.constant else f"eps {e.min():g}..{e.max():g}"
        on = " on per-state values" if self.state_values is not None else ""
        return f"{T} steps of a {k}-state chain, each released by {self.release}{on} at {eps}"


def released_chain(
    chain_or_transition: Any, epsilon: Any = None, steps: Any = None, release: str = "any", **kw
) -> ReleasedChain:
    """``chain_or_transition`` itself when it is a :class:`ReleasedChain`, else the value of the
    arguments (:meth:`ReleasedChain.of`)."""
    if isinstance(chain_or_transition, ReleasedChain):
        return chain_or_transition
    return ReleasedChain.of(chain_or_transition, epsilon, steps, release, **kw)


@contextmanager
def arguments(names: Mapping[str, str]) -> Iterator[None]:
    """Inside the block, a :class:`ConfigError` naming a field of :meth:`ReleasedChain.of` names
    the caller's argument instead (``{"release": "mechanism"}``)."""
    try:
        yield
    except ConfigError as exc:
        if exc.field not in names:
            raise
        raise ConfigError(names[exc.field], exc.value, exc.rule) from None


def records_of(known_records: Sequence[int] | Any, steps: int, name: str = "known_records") -> list[int]:
    """Records (steps numbered from 0) an adversary knows, checked: integers in ``0..steps-1``,
    not every one (a target must be left), sorted without repeats."""
    seq = isinstance(known_records, (list, tuple, np.ndarray, range))
    known = list(known_records) if seq else known_records
    check(
        isinstance(known, list)
        and all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in known)
        and all(0 <= int(s) < steps for s in known),
        name,
        known,
        f"must be records (steps) in 0..{steps - 1}",
    )
    out = sorted({int(s) for s in known})
    check(
        len(out) < steps,
        name,
        known,
        f"every record is known: no record is left to be the target (know at most {steps - 1} of {steps})",
    )
    return out


__all__ = [
    "EPSILON_RULE",
    "arguments",
    "MAX_EPSILON",
    "MIN_EPSILON",
    "ReleasedChain",
    "check_epsilon",
    "records_of",
    "released_chain",
    "state_values_of",
]
