"""Continual release as a mechanism kind (``[mechanism] kind = "continual"``): the local release
of every record (:class:`~bdpsim.mechanisms.local.LocalRelease`) over a chain model, and its exact
engine (:class:`ContinualEngine`).

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
instead (the ``epsilon`` column is then the largest: every step is that DP). The release holds
no chain: the chain is the model's, and the two are one
:class:`~bdpsim.temporal.chain.ReleasedChain` (:meth:`~bdpsim.temporal.chain.ReleasedChain.of_model`),
checked when the point is built, the same value ``bdpsim temporal --epsilon eps_1 .. eps_T
--state-values v_1 .. v_k`` computes.

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

import numpy as np

from ..core.columns import Column, register_columns
from ..core.errors import ConfigError, check
from ..core.schema import Key
from ..models.protocols import MarkovChain
from ..temporal.chain import ReleasedChain, arguments
from ..temporal.releases import release_names, value_laws
from .base import MechanismKind, register_mechanism_kind
from .local import LocalRelease
from .local_engine import ContinualEngine
from .value_noise import VALUE_NOISES, ValueNoise

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
            doc="what each step releases (gaussian: noise of sd sigma on the state value; its BDPL is "
            "+inf, its privacy profile is bdpsim account's)",
            rule=f"one of {', '.join(release_names() + VALUE_NOISES)}",
        ),
        "sigma": Key(
            "float",
            hashed=False,
            doc="release = 'gaussian': the noise's standard deviation (with state_values)",
            rule="a finite number > 0; for release = 'gaussian' only, instead of epsilon",
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

    def build(self, params: dict, spec) -> LocalRelease:
        """The :class:`~bdpsim.mechanisms.local.LocalRelease` of the ``[mechanism]`` keys over the
        chain model (the chain stays the model's), checked against it."""
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
        release, schedule, values = (
            params["release"],
            params.get("epsilon_schedule"),
            params.get("state_values"),
        )
        check(
            release in release_names() + VALUE_NOISES,
            "mechanism.release",
            release,
            f"must be one of {', '.join(release_names() + VALUE_NOISES)}",
        )
        if release in VALUE_NOISES:
            return _value_noise(params, chain)
        check(
            params.get("sigma") is None,
            "mechanism.sigma",
            params.get("sigma"),
            f"is for release = {' or '.join(VALUE_NOISES)} only (this release has an epsilon)",
        )
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
        names = {
            "release.epsilon": "mechanism.epsilon_schedule" if schedule is not None else "mechanism.epsilon",
            "release.epsilon_schedule": "mechanism.epsilon_schedule",
            "release.state_values": "mechanism.state_values",
            "release.randomiser": "mechanism.release",
        }
        with arguments(names):
            rel = LocalRelease(
                release,
                params["epsilon"] if schedule is None else list(schedule),
                state_values=values,
                states=int(chain.states),
                steps=int(chain.n),
            )
            ReleasedChain.of_model(chain, rel)  # the chain and its release, checked together
        return rel


def _value_noise(params: dict, chain) -> ValueNoise:
    """``release = 'gaussian'``: :class:`~bdpsim.mechanisms.value_noise.ValueNoise` of the
    ``sigma`` and ``state_values`` keys (no epsilon: the noise is not pure DP)."""
    for key in ("epsilon", "epsilon_schedule"):
        check(
            params.get(key) is None,
            f"mechanism.{key}",
            params.get(key),
            "Gaussian noise has sigma, not epsilon (its BDPL is +inf; bdpsim account gives its "
            "delta(eps) and Renyi curves)",
        )
    for key in ("sigma", "state_values"):
        check(params.get(key) is not None, f"mechanism.{key}", None, "is required for release = 'gaussian'")
    names = {f"release.{k}": f"mechanism.{k}" for k in ("sigma", "state_values", "noise")}
    with arguments(names):
        return ValueNoise(
            state_values=tuple(params["state_values"]),
            sigma=params["sigma"],
            states=int(chain.states),
            steps=int(chain.n),
        )


register_mechanism_kind(ContinualKind())

__all__ = ["COLUMNS", "ContinualEngine", "ContinualKind"]
