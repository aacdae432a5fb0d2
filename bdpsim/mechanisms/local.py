"""The local release of every record: each record ``x_t`` released through its own randomiser,
``r_t ~ M_t(x_t)``, independently given the records (one class for the accountant, the
``continual`` config kind, :func:`bdpsim.exact_bdpl`, :func:`bdpsim.attack_risk` and
:func:`bdpsim.calibrate`).

What each record releases (``release``):

* ``"krr"``: k-ary randomized response at ``epsilon``, ``P(r = x) = e^eps / (e^eps + k - 1)`` and
  ``1 / (e^eps + k - 1)`` for each other output;
* ``"any"``: the supremum over every ``epsilon``-DP step (its leakage is attained by the extreme
  rays of every eps-DP step's likelihood cone, :mod:`bdpsim.temporal.mechanisms`; a sample draws a
  set ``S`` of states with ``P(S | x) ∝ e^eps`` if ``x ∈ S`` else ``1``);
* a noise law of :func:`bdpsim.temporal.releases.histogram_laws` (``"laplace"``, ``"geometric"``,
  ``"staircase"``): that noise at ``eps/2`` on each coordinate of the one-hot histogram of ``x_t``;
  with ``state_values = [v_1, .., v_k]`` (a law of :func:`~bdpsim.temporal.releases.value_laws`):
  ``r_t = v_{x_t} + Z`` at ``eps`` and sensitivity ``max v - min v``;
* a :class:`~bdpsim.mechanisms.randomized_response.mechanism.RandomizedResponse` (binary records,
  each flipped with probability ``flip``: its records, not its count, are released);
* a likelihood matrix ``M[x, r] = P(r | x)`` (rows = record states, columns = outputs, rows summing
  to 1, entries > 0: any eps-DP step with finitely many outputs).

``epsilon`` is one number (every step) or one per step (a schedule: ``epsilon`` is then its
largest, :attr:`LocalRelease.epsilon_schedule` the schedule). The release holds no chain: the
chain is the model's (:class:`~bdpsim.models.protocols.MarkovChain`), and
:meth:`bdpsim.temporal.chain.ReleasedChain.of_model` combines the two into the one value every
exact computation reads. Every rule broken raises one :class:`~bdpsim.core.errors.ConfigError`
naming the argument (``release.<argument>``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ..core.errors import ConfigError, NotAvailable, check
from ..temporal.chain import EPSILON_RULE, MAX_EPSILON, MIN_EPSILON, arguments, check_epsilon, state_values_of
from ..temporal.releases import OWN, release_names
from .base import NO_COLUMNS


@runtime_checkable
class FlipsRecords(Protocol):
    """A randomiser of binary records that flips each with probability ``flip`` (randomized
    response)."""

    flip: float


#: the randomisers a local release names by k-RR (the accountant's config vocabulary)
RANDOMISERS = ("krr",)
#: the summary columns of a run of a local release (registered by the ``continual`` kind)
SUMMARY_EXTRAS = ("release", "cao_tpl_max")


def _number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


@dataclass(frozen=True)
class LocalRelease:
    """Every record released through its own randomiser, independently given the records (module
    docstring).

    Parameters
    ----------
    release : str, RandomizedResponse or array_like
        ``"krr"``, ``"any"``, a noise law (``"laplace"``, ``"geometric"``, ``"staircase"``), a
        :class:`~bdpsim.mechanisms.randomized_response.mechanism.RandomizedResponse`, or a likelihood
        matrix ``M[x, r] = P(r | x)``.
    epsilon : float or sequence of float, optional
        Each step's DP level (named releases only): one number, or one per step (then
        :attr:`epsilon` is the largest and :attr:`epsilon_schedule` the schedule).
    name : str, optional
        How reports name it.
    state_values : sequence of float, optional
        A value per state: the noise (``laplace`` or ``geometric``) is on the value instead of the
        one-hot histogram.
    epsilon_schedule : tuple of float, optional
        The per-step budgets (set from a sequence ``epsilon``; given alone, ``epsilon`` is its largest).
    states, steps : int, optional
        The records' states and number (the chain model's: the ``continual`` kind sets them); needed
        only to draw outputs and to check a schedule's length or the values' number before a model
        is at hand.
    """

    release: Any
    epsilon: Any = None
    name: str = ""
    state_values: Any = field(default=None, kw_only=True)
    epsilon_schedule: Any = field(default=None, kw_only=True)
    states: int | None = field(default=None, kw_only=True)
    steps: int | None = field(default=None, kw_only=True)
    #: the config kind that builds it
    kind: ClassVar[str] = "continual"
    summary_extras: ClassVar[tuple[str, ...]] = SUMMARY_EXTRAS

    def __post_init__(self) -> None:
        for arg, v in (("states", self.states), ("steps", self.steps)):
            check(
                v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1),
                f"release.{arg}",
                v,
                "must be an integer >= 1",
            )
        check(
            self.states != 1,
            "release.states",
            self.states,
            "a record needs >= 2 states (one reveals nothing)",
        )
        check(isinstance(self.name, str), "release.name", self.name, "must be a string")
        r = self.release
        if isinstance(r, str):
            if r not in release_names():
                raise ConfigError(
                    "release.randomiser",
                    r,
                    f"must be one of {', '.join(release_names())}, a RandomizedResponse or a "
                    "likelihood matrix",
                )
            self._check_budget()
            if self.state_values is not None:
                v = self.state_values
                check(
                    isinstance(v, (list, tuple, np.ndarray)) and np.ndim(v) == 1 and _length(v) >= 2,
                    "release.state_values",
                    v,
                    "must be a list of finite numbers, one per state (>= 2)",
                )
                with arguments({"state_values": "release.state_values"}):
                    vals = state_values_of(self.state_values, r, self.states or _length(self.state_values))
                object.__setattr__(self, "state_values", tuple(float(v) for v in vals))  # type: ignore[union-attr]
            return
        check(
            r is not None and not isinstance(r, (bool, int, float)),
            "release.randomiser",
            r,
            f"must be one of {', '.join(release_names())}, a RandomizedResponse or a likelihood matrix",
        )
        given = {"epsilon": self.epsilon, "epsilon_schedule": self.epsilon_schedule}
        for arg, v in {**given, "state_values": self.state_values}.items():
            if v is not None:
                raise ConfigError(f"release.{arg}", v, "is for a named release (krr, any, a noise law) only")
        if isinstance(r, FlipsRecords):
            check(self.states in (None, 2), "release.states", self.states, "randomized response has 2 states")
            return
        object.__setattr__(self, "release", self._checked_matrix())

    def _checked_matrix(self) -> tuple[tuple[float, ...], ...]:
        """A likelihood matrix ``release``, checked: rows = states, entries > 0, rows summing to 1."""
        r = self.release
        try:
            M = np.asarray(r, dtype=float)
        except (TypeError, ValueError):
            M = np.array([])
        if not (M.ndim == 2 and M.shape[0] >= 2 and M.shape[1] >= 1):
            raise ConfigError(
                "release.mechanism",
                type(r).__name__ if M.size == 0 else list(M.shape),
                "must be 'krr', 'any', a noise law, a RandomizedResponse or a likelihood matrix (rows = "
                "record states, columns = outputs)",
            )
        if not (np.all(np.isfinite(M)) and np.all(M > 0)):
            raise ConfigError(
                "release.likelihoods", M.tolist(), "entries must be finite and > 0 (every output possible)"
            )
        if not np.all(np.abs(M.sum(axis=1) - 1) < 1e-9):
            raise ConfigError(
                "release.likelihoods", np.round(M.sum(axis=1), 12).tolist(), "each row must sum to 1"
            )
        if self.states is not None and M.shape[0] != self.states:
            raise ConfigError(
                "release.likelihoods", list(M.shape), f"needs one row per record state ({self.states})"
            )
        return tuple(tuple(float(v) for v in row) for row in M)

    def _check_budget(self) -> None:
        """``epsilon`` (a number or a per-step schedule) and ``epsilon_schedule``, one rule:
        each budget in ``[MIN_EPSILON, MAX_EPSILON]``, a schedule one value per step."""
        e, s = self.epsilon, self.epsilon_schedule
        if isinstance(e, (list, tuple, np.ndarray)) and np.ndim(e) > 0:
            check(
                s is None,
                "release.epsilon_schedule",
                s,
                "give a per-step schedule once (epsilon or epsilon_schedule)",
            )
            s, e = e, None
        if s is not None:
            items = list(np.ravel(np.asarray(s, dtype=object))) if np.ndim(s) > 0 else [s]
            check(
                len(items) > 0,
                "release.epsilon",
                [],
                "a per-step schedule needs one value per step (none given)",
            )
            with arguments({"epsilon": "release.epsilon"}):
                arr = check_epsilon(items, len(items))
                if self.steps is not None:
                    check_epsilon(items, int(self.steps))  # one value per step
            sched = tuple(float(v) for v in arr)
            top = max(sched)
            if e is not None and not (_number(e) and float(e) == top):
                raise ConfigError(
                    "release.epsilon",
                    e,
                    f"with a per-step schedule epsilon is its largest value ({top:g}); give a new "
                    "schedule instead (with_epsilon)",
                )
            object.__setattr__(self, "epsilon_schedule", sched)
            object.__setattr__(self, "epsilon", top)
            return
        what = "k-RR" if self.release == "krr" else f"release {self.release!r}"
        if not (_number(e) and MIN_EPSILON <= float(e) <= MAX_EPSILON):
            raise ConfigError("release.epsilon", e, f"{what} needs an epsilon: {EPSILON_RULE}")
        object.__setattr__(self, "epsilon", float(e))

    # ------------------------------------------------------------------ what it is
    @property
    def mechanism(self) -> Any:
        """The randomiser as given (``release``; the accountant's older name)."""
        return self.release

    @property
    def named(self) -> bool:
        """Whether the release is named (krr, any, a noise law), not a matrix or randomized response."""
        return isinstance(self.release, str)

    @property
    def budget(self) -> Any:
        """What a chain reads as its per-step budget: the schedule, or the one ``epsilon``."""
        return list(self.epsilon_schedule) if self.epsilon_schedule is not None else self.epsilon

    def with_epsilon(self, epsilon: Any) -> LocalRelease:
        """The same release at another budget (one number or a per-step schedule), checked."""
        return replace(self, epsilon=epsilon, epsilon_schedule=None)

    def scaled(self, factor: float) -> LocalRelease:
        """Every step's budget times ``factor`` (a schedule keeps its shape)."""
        if self.epsilon_schedule is not None:
            return self.with_epsilon([e * factor for e in self.epsilon_schedule])
        return self.with_epsilon(float(self.epsilon) * factor)

    def matrix(self, states: int) -> np.ndarray:
        """``M[x, r] = P(r | x)`` of one record with ``states`` states: for the releases with
        finitely many outputs and one randomiser at every step (k-RR at one epsilon, randomized
        response, a likelihood matrix); ``ConfigError`` if it does not fit, ``NotAvailable`` naming
        the release and what to use for the others."""
        r = self.release
        if isinstance(r, str):
            use = (
                "use bdpsim.exact_bdpl(model, release) (the exact temporal leakage) or "
                "bdpsim.temporal_leakage"
            )
            if r != "krr" or self.state_values is not None:
                why = (
                    "is the supremum over every eps-DP step, not one randomiser"
                    if r == "any"
                    else "has continuous outputs"
                )
                raise NotAvailable(f"release {self.label!r} {why}: it has no likelihood matrix; {use}")
            if self.epsilon_schedule is not None:
                raise NotAvailable(
                    f"release {self.label!r}: a per-step schedule is not one randomiser for every "
                    f"record; {use}"
                )
            e = math.exp(float(self.epsilon))
            return (np.ones((states, states)) + np.eye(states) * (e - 1.0)) / (e + states - 1.0)
        if isinstance(r, FlipsRecords):
            if states != 2:
                raise ConfigError(
                    "release.mechanism", states, "randomized response needs records with 2 states"
                )
            return np.array([[1 - r.flip, r.flip], [r.flip, 1 - r.flip]])
        M = np.array(r, dtype=float)
        if M.shape[0] != states:
            raise ConfigError(
                "release.likelihoods", list(M.shape), f"needs one row per record state ({states})"
            )
        return M

    def likelihoods(self, states: int) -> np.ndarray | None:
        """``(outputs, states)`` likelihood vectors of a release given as a randomiser (a matrix or
        randomized response, transposed); ``None`` for a named release (the chain builds its step)."""
        return None if self.named else self.matrix(states).T

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        r = self.release
        if isinstance(r, str):
            eps = (
                f"epsilon = {float(self.epsilon):g}"
                if self.epsilon_schedule is None
                else f"epsilon schedule of {len(self.epsilon_schedule)} "
                f"({min(self.epsilon_schedule):g}..{max(self.epsilon_schedule):g})"
            )
            what = {"krr": "k-RR", "any": "any eps-DP step"}.get(r, f"{r} noise")
            on = " on per-state values" if self.state_values is not None else ""
            what = f"{what}{on} ({eps})"
        elif isinstance(r, tuple):
            M = np.array(r)
            level = float(np.max(np.log(M.max(axis=0) / M.min(axis=0))))
            what = f"a {M.shape[0]} x {M.shape[1]} likelihood matrix (epsilon = {level:.4g})"
        else:
            what = f"randomized response (flip = {r.flip:g})"
        return f"local release of every record through {what}"

    # ------------------------------------------------------------------ a mechanism of the family
    @property
    def release_name(self) -> str:
        """The ``release`` column: ``krr``, ``any``, a noise law, ``matrix`` or ``randomized response``."""
        r = self.release
        return (
            r if isinstance(r, str) else ("randomized response" if isinstance(r, FlipsRecords) else "matrix")
        )

    @property
    def output_dim(self) -> int:
        """Numbers released per data tuple: one per step, or ``k`` per step (histogram noise)."""
        steps = self.steps or (len(self.epsilon_schedule) if self.epsilon_schedule is not None else None)
        check(steps is not None, "release.steps", None, "the number of records is needed for the output size")
        one = not self.named or self.release in OWN or self.state_values is not None
        return int(steps) * (1 if one else self._states())  # type: ignore[arg-type]

    def _states(self) -> int:
        if not self.named:
            return 2 if isinstance(self.release, FlipsRecords) else len(self.release)
        check(
            self.states is not None,
            "release.states",
            None,
            "drawing a named release needs the records' states (LocalRelease(..., states=k))",
        )
        return int(self.states)  # type: ignore[arg-type]

    def output_law(self, epsilon: float | None = None) -> np.ndarray:
        """``(outputs, k)``: ``P(r = j | x)`` of one step with finitely many outputs at ``epsilon``
        (default: :attr:`epsilon`); columns sum to 1 (``any``: the mechanism a sample runs)."""
        if not self.named:
            return self.matrix(self._states()).T
        from ..temporal.mechanisms import step_release

        k = self._states()
        eps = float(self.epsilon if epsilon is None else epsilon)
        values = None if self.state_values is None else list(self.state_values)
        L = step_release(self.release, k, eps, values).likelihoods
        return L / L.sum(axis=0, keepdims=True)

    def epsilons(self, steps: int) -> np.ndarray:
        """The budget of each of ``steps`` steps (a schedule checked against ``steps``)."""
        with arguments({"epsilon": "release.epsilon"}):
            return np.broadcast_to(check_epsilon(self.budget, int(steps)), (int(steps),))

    def __call__(self, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        x = np.asarray(data).astype(np.int64)
        N, T = x.shape
        if not self.named:
            cdf = np.cumsum(self.output_law(), axis=0)
            u = rng.random((N, T))
            return (u[..., None] > cdf.T[x][..., :-1]).sum(axis=-1).astype(float)
        eps = self.epsilons(T)
        k = self._states()
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
        hist = np.eye(k)[x]  # (N, T, k)
        for e in np.unique(eps):
            steps = np.flatnonzero(eps == e)
            noise = noise_from_params(self.release, epsilon=float(e) / 2, sensitivity=1.0)
            shape = (N, steps.size, k)
            hist[:, steps] += noise.sample(N * steps.size * k, rng).reshape(shape)
        return hist.reshape(N, -1)

    def columns(self) -> dict:
        """The summary cells it fills without the model (Cao's column needs the chain:
        :meth:`model_columns`)."""
        return {**NO_COLUMNS, "release": self.release_name, "cao_tpl_max": math.nan}

    def model_columns(self, model) -> dict:
        """The summary cells of a run on ``model`` (a chain): :meth:`columns` and Cao et al.'s
        ``max_t TPL_t`` bound of the same chain and budgets (``nan`` where their recursion refuses
        the chain)."""
        from ..core.errors import BdpsimError
        from ..temporal.cao import cao_leakage

        cells = self.columns()
        eps = self.epsilon if self.epsilon_schedule is None else np.asarray(self.epsilon_schedule)
        if eps is None:  # a matrix or randomized response: its own epsilon
            eps = _matrix_epsilon(self, model)
        try:
            cao = cao_leakage(
                np.asarray(model.transition, dtype=float),
                eps,
                int(model.n),
                initial=np.asarray(model.initial),
            )
            cells["cao_tpl_max"] = float(np.max(cao.tpl))
        except BdpsimError:  # Cao's recursion refuses the chain (e.g. rows with disjoint supports)
            pass
        return cells

    def adversary_targets(self, targets: str):
        return targets, None

    def exact(self, model):
        """Its exact engine on a Markov chain model
        (:class:`~bdpsim.mechanisms.local_engine.ContinualEngine`); ``NotAvailable`` on other models."""
        from ..models.protocols import MarkovChain
        from .local_engine import ContinualEngine

        if not isinstance(model, MarkovChain):
            raise NotAvailable(
                f"a local release of every record has an exact leakage on Markov chain models only, "
                f"not on {type(model).__name__}"
            )
        return ContinualEngine(model, self)


def _length(values: Any) -> int:
    """How many values were given (a list with a non-number counts its entries)."""
    try:
        return len(values)
    except TypeError:
        return int(np.size(values))


def _matrix_epsilon(release: LocalRelease, model) -> float:
    """``max_r max_{a, b} ln M[a, r] / M[b, r]``: the DP level of a randomiser's matrix."""
    M = release.matrix(int(model.states))
    return float(np.max(np.log(M.max(axis=0) / M.min(axis=0))))


__all__ = ["FlipsRecords", "LocalRelease", "RANDOMISERS", "SUMMARY_EXTRAS"]
