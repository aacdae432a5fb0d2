"""The built-in mechanism kinds of a config's ``[mechanism]`` table: ``count``, ``clipped_sum``,
``sum`` and ``python`` (each one :class:`~bdpsim.mechanisms.base.MechanismKind`)."""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError, check
from ..schema import Key
from ..queries import ClippedSumQuery
from .base import MechanismKind, register_mechanism_kind, required
from .custom import CONFIG_DIR, CustomMechanism, import_function
from .laplace import ClippedSum, LaplaceCount, LaplaceStateSum, LaplaceSum

EPSILON = Key("float")


def _discrete_states(spec) -> int | None:
    """The number of states of a discrete model (``None`` for real-valued records)."""
    return spec.probe().states if spec.owner is not None and spec.owner.domain == "discrete" else None


def state_codes(values) -> tuple[int, ...]:
    """Counted states as integer codes; genotype names (``"BB"``, ``"Bb"``, ``"bb"``) map to 0, 1, 2."""
    if any(isinstance(v, str) for v in values):
        from ..models.pedigree import genotype_states
        return genotype_states(list(values))
    return tuple(values)


class CountKind(MechanismKind):
    name = "count"
    doc = "count of records in counted_states + Lap(1/epsilon)"
    keys = {"epsilon": EPSILON, "counted_states": Key("state_vector", [1])}
    domain = "discrete"

    def build(self, params: dict, spec) -> LaplaceCount:
        mech = LaplaceCount(required(params, "epsilon"), state_codes(params["counted_states"]))
        if (s := _discrete_states(spec)) is not None:
            mech.query_function.check_states(s)
        return mech


class ClippedSumKind(MechanismKind):
    name = "clipped_sum"
    doc = "sum of records clipped to clip + Lap((high - low)/epsilon)"
    keys = {"epsilon": EPSILON, "clip": Key("vector", [0.0, 10.0])}
    domain = "real"

    def hints(self, params: dict) -> dict:
        return {"value_range": ClippedSumQuery(tuple(params["clip"])).clip}  # validated here, first

    def build(self, params: dict, spec) -> ClippedSum:
        return ClippedSum(required(params, "epsilon"), tuple(params["clip"]))


class SumKind(MechanismKind):
    name = "sum"
    doc = ("Gaussian: unclipped sum + Lap(noise_scale), targets target_values; discrete models: "
           "sum of state_values + Lap((max - min)/epsilon) or Lap(noise_scale)")
    keys = {"noise_scale": Key("float"), "target_values": Key("vector", [0.0, 10.0]),
            "state_values": Key("vector", hashed=False), "epsilon": EPSILON}
    domain = "any"

    def hints(self, params: dict) -> dict:
        return {"value_range": tuple(sorted(params["target_values"]))}

    def build(self, params: dict, spec):
        states = _discrete_states(spec)
        values = params.get("state_values")
        if states is not None:
            check(values is not None, "mechanism.state_values", None,
                  f"a sum on a {spec.kind} model needs state_values (one query value per state)")
            mech = LaplaceStateSum(tuple(values), params["epsilon"], params["noise_scale"])
            mech.query_function.check_states(states)
            return mech
        check(values is None, "mechanism.state_values", values,
              "is for discrete models (Markov chains, pedigrees)")
        check(params["epsilon"] is None, "mechanism.epsilon", params["epsilon"],
              "an unclipped sum is not eps-DP: give noise_scale (or state_values for a discrete model)")
        return LaplaceSum(required(params, "noise_scale"), tuple(params["target_values"]))


class PythonKind(MechanismKind):
    name = "python"
    doc = "a user function 'module:function' (data, rng) -> outputs"
    keys = {"function": Key("str"), "epsilon": EPSILON}
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
            raise ConfigError("mechanism.function", function,
                              f"fails on a test batch of shape (4, {spec.n}) ({type(exc).__name__}: {exc})") from None
        return mech


for _kind in (CountKind(), ClippedSumKind(), SumKind(), PythonKind()):
    register_mechanism_kind(_kind)
