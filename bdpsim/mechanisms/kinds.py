"""The built-in mechanism kinds of a config's ``[mechanism]`` table: ``count``, ``clipped_sum``,
``sum`` and ``python`` (each one :class:`~bdpsim.mechanisms.base.MechanismKind`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

import numpy as np

from ..core.errors import ConfigError, check, naming
from ..core.registry import skipped_note
from ..core.schema import Key
from ..kernels.chains.lattice import lattice
from ..kernels.noise.checks import NoiseParams
from ..kernels.noise.laws import NOISE_LAWS, key_owner, noise_from_params, noise_keys
from ..kernels.noise.protocols import LaplaceKernel
from ..kernels.noise.table import TableNoise
from ..queries import ClippedSumQuery, CountQuery, StateSumQuery, discrete_query
from .base import MechanismKind, register_mechanism_kind, required
from .counted import count_query, state_codes  # noqa: F401  (re-exported: their former home)
from .custom import CONFIG_DIR, CustomMechanism, import_function
from .laplace import LaplaceSum
from .noisy import NoisyQueryMechanism

EPSILON = Key("float", doc="the DP parameter of the mechanism", rule="> 0")


class _NoiseKeys(Mapping):
    """The noise laws' config keys, read from the registry at each use
    (:func:`bdpsim.kernels.noise.laws.noise_keys`): ``noise`` and every registered law's ``keys``
    (added after bdpsim 0.1: hashed only when set). A law registered later (a user's, a test's)
    adds its keys here and to every query kind."""

    def __getitem__(self, key: str) -> Key:
        return noise_keys()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(noise_keys())

    def __len__(self) -> int:
        return len(noise_keys())


#: the noise law of a query mechanism and its keys (a live view of the registry)
NOISE_KEYS: Mapping[str, Key] = _NoiseKeys()
TABLE_KEYS = tuple(TableNoise.keys)  # noise = "table": a user pmf with geometric tails


class _WithNoiseKeys(Mapping):
    """A query kind's own keys followed by the noise laws' keys (:data:`NOISE_KEYS`, live)."""

    def __init__(self, own: Mapping[str, Key]) -> None:
        self.own = dict(own)

    def _all(self) -> dict[str, Key]:
        return {**self.own, **NOISE_KEYS}

    def __getitem__(self, key: str) -> Key:
        return self._all()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


#: the ``[mechanism]`` key of each noise kernel parameter whose name differs (the others are
#: ``mechanism.<parameter>``): :func:`bdpsim.kernels.noise.laws.noise_from_params`,
#: :func:`~bdpsim.kernels.noise.table.table_from_params`, :func:`~bdpsim.kernels.chains.lattice.lattice`
NOISE_FIELDS = {
    "name": "mechanism.noise",
    "table": "mechanism.noise_table",
    "pmf": "mechanism.noise_pmf",
    "offset": "mechanism.noise_offset",
    "tail_ratio": "mechanism.noise_tail_ratio",
    "values": "mechanism.state_values",
}


def noise_law(params: dict):
    """The registered noise law ``params["noise"]`` names (a one-line error for an unknown one, or
    for a key of another law given with it)."""
    law = NOISE_LAWS.get(params["noise"])
    check(
        law is not None,
        "mechanism.noise",
        params["noise"],
        f"must be one of {list(NOISE_LAWS)}{skipped_note()}",
    )
    law = cast(Any, law)  # registered (just checked)
    for k in NOISE_KEYS:
        if k != "noise" and k not in law.keys and params.get(k) is not None:
            owner = key_owner(k)
            check(
                False,
                f"mechanism.{k}",
                params[k],
                f'is a parameter of {owner} noise (set mechanism.noise = "{owner}")',
            )
    return law


def query_noise(params: dict, query, kind: str, step: float | None):
    """The noise law of ``query + noise`` from the ``[mechanism]`` values (``step``: the query's
    lattice step, or ``None`` for a continuous query, which a lattice law cannot serve)."""
    name, law = params["noise"], noise_law(params)
    if law.discrete:  # a lattice law (geometric, table) serves lattice-valued queries only
        check(
            step is not None,
            "mechanism.noise",
            name,
            f"{name} noise needs a lattice-valued query, not {kind}",
        )
    options = {k: params.get(k) for k in NOISE_KEYS if k != "noise"}
    fields = (
        NOISE_FIELDS if params.get("scale") is None else {**NOISE_FIELDS, "scale": "mechanism.noise_scale"}
    )
    with naming("mechanism", fields):
        return noise_from_params(
            name,
            epsilon=params.get("epsilon"),
            sensitivity=query.sensitivity,
            scale=params.get("scale"),
            step=step or 1.0,
            config_dir=CONFIG_DIR.get(),
            **options,
        )


def takes_scale(law) -> bool:
    """Whether the noise law, given only a ``scale``, is the Laplace kernel of that scale
    (:class:`~bdpsim.kernels.noise.protocols.LaplaceKernel`: the law an unclipped sum's
    ``noise_scale`` sets)."""
    try:
        return isinstance(law.from_params(NoiseParams(scale=1.0)), LaplaceKernel)
    except ValueError:
        return False


def _discrete_states(spec) -> int | None:
    """The number of states of a discrete model (``None`` for real-valued records)."""
    return spec.probe().states if spec.owner is not None and spec.owner.domain == "discrete" else None


def _count_query(values, spec) -> CountQuery:
    """The count of ``values`` of a config's ``[mechanism]`` on the model of ``spec``
    (:func:`count_query`)."""
    model = (
        spec.probe()
        if spec is not None and spec.owner is not None and spec.owner.domain == "discrete"
        else None
    )
    return count_query(values, model)


class CountKind(MechanismKind):
    name = "count"
    example = {"model": {"kind": "markov", "n": 4, "gamma": 3.0}, "mechanism": {"epsilon": 1.0}}
    doc = "count of records in counted_states + Lap(1/epsilon)"
    keys = _WithNoiseKeys(
        {
            "epsilon": EPSILON,
            "counted_states": Key(
                "state_vector",
                [1],
                doc="the states the query counts",
                rule="distinct states of the model, not every one",
            ),
        }
    )
    domain = "discrete"

    def build(self, params: dict, spec):
        query = _count_query(params["counted_states"], spec)
        noise = query_noise(params, query, self.name, 1.0)
        mech = NoisyQueryMechanism(query, noise, self.name, stated_epsilon=params["epsilon"])
        if (s := _discrete_states(spec)) is not None:
            mech.query_function.check_states(s)
        return mech


class ClippedSumKind(MechanismKind):
    name = "clipped_sum"
    example = {"model": {"kind": "gaussian", "n": 3, "rho": 0.3}, "mechanism": {"epsilon": 1.0}}
    doc = "sum of records clipped to clip + Lap((high - low)/epsilon)"
    keys = _WithNoiseKeys(
        {
            "epsilon": EPSILON,
            "clip": Key(
                "vector",
                [0.0, 10.0],
                doc="the clip range [low, high] of each record",
                rule="two numbers, low < high",
            ),
        }
    )
    domain = "real"

    def hints(self, params: dict) -> dict:
        return {"value_range": ClippedSumQuery(tuple(params["clip"])).clip}  # validated here, first

    def build(self, params: dict, spec):
        query = ClippedSumQuery(tuple(params["clip"]))
        noise = query_noise(params, query, self.name, None)
        return NoisyQueryMechanism(query, noise, self.name, stated_epsilon=params["epsilon"])


class SumKind(MechanismKind):
    name = "sum"
    example = {
        "model": {"kind": "markov", "n": 4, "gamma": 3.0},
        "mechanism": {"epsilon": 1.0, "state_values": [0.0, 2.5]},
    }
    doc = (
        "Gaussian: unclipped sum + Lap(noise_scale), targets target_values; discrete models: "
        "sum of state_values + Lap((max - min)/epsilon) or Lap(noise_scale)"
    )
    keys = _WithNoiseKeys(
        {
            "noise_scale": Key("float", doc="the noise scale (absent: from epsilon)", rule="> 0"),
            "target_values": Key(
                "vector",
                [0.0, 10.0],
                doc="the range real-valued targets x, x' take",
                rule="two numbers, low < high",
            ),
            "state_values": Key(
                "vector",
                hashed=False,
                doc="on a chain: each state's value (the query sums them)",
                rule="one finite number per state, not all equal",
            ),
            "epsilon": EPSILON,
        }
    )
    domain = "any"

    def hints(self, params: dict) -> dict:
        return {"value_range": tuple(sorted(params["target_values"]))}

    def build(self, params: dict, spec):
        states = _discrete_states(spec)
        values = params.get("state_values")
        if states is not None:
            check(
                values is not None,
                "mechanism.state_values",
                None,
                f"a sum on a {spec.kind} model needs state_values (one query value per state)",
            )
            query = cast(StateSumQuery, discrete_query(states, state_values=values))  # every path's rule
            law = noise_law(params)
            if params["noise_scale"] is not None or takes_scale(law):
                check(
                    (params["epsilon"] is None) != (params["noise_scale"] is None),
                    "mechanism.epsilon",
                    params["epsilon"],
                    "a state sum takes exactly one of epsilon (eps-DP) or noise_scale",
                )
            step = None
            if law.discrete:  # a lattice law lives on the query's lattice
                with naming("mechanism", NOISE_FIELDS):
                    step = lattice(query.per_state(states))[1]
            noise = query_noise({**params, "scale": params["noise_scale"]}, query, self.name, step)
            return NoisyQueryMechanism(query, noise, self.name, stated_epsilon=params["epsilon"])
        check(
            values is None,
            "mechanism.state_values",
            values,
            "is for discrete models (Markov chains, pedigrees)",
        )
        check(
            takes_scale(noise_law(params)),
            "mechanism.noise",
            params["noise"],
            "an unclipped sum takes laplace noise (noise_scale) only",
        )
        check(
            params["epsilon"] is None,
            "mechanism.epsilon",
            params["epsilon"],
            "an unclipped sum is not eps-DP: give noise_scale (or state_values for a discrete model)",
        )
        return LaplaceSum(required(params, "noise_scale"), tuple(params["target_values"]))


class PythonKind(MechanismKind):
    name = "python"
    doc = "a user function 'module:function' (data, rng) -> outputs"
    keys = {
        "function": Key(
            "str", doc="the mechanism, 'module:function' taking (data, rng)", rule="an importable callable"
        ),
        "epsilon": EPSILON,
    }
    domain = "any"

    def build(self, params: dict, spec) -> CustomMechanism:
        function = required(params, "function")
        mech = CustomMechanism(import_function(function), function, params["epsilon"], CONFIG_DIR.get())
        probe = spec.probe()
        try:  # try the user's function once on a tiny batch, up front
            mech(probe.sample(4, np.random.default_rng(0)), np.random.default_rng(0))
        except ConfigError:
            raise
        except Exception as exc:
            raise ConfigError(
                "mechanism.function",
                function,
                f"fails on a test batch of shape (4, {spec.n}) ({type(exc).__name__}: {exc})",
            ) from None
        return mech


for _kind in (CountKind(), ClippedSumKind(), SumKind(), PythonKind()):
    register_mechanism_kind(_kind)
