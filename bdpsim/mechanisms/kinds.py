"""The built-in mechanism kinds of a config's ``[mechanism]`` table: ``count``, ``clipped_sum``,
``sum`` and ``python`` (each one :class:`~bdpsim.mechanisms.base.MechanismKind`)."""

from __future__ import annotations

import numpy as np

from ..core.errors import ConfigError, check, naming
from ..core.schema import Key
from ..kernels.chains.lattice import lattice
from ..kernels.noise.laws import NOISE_LAWS, LaplaceNoise, noise_from_params
from ..kernels.noise.table import TableNoise, table_from_params
from ..queries import ClippedSumQuery, CountQuery, StateSumQuery
from .base import MechanismKind, register_mechanism_kind, required
from .custom import CONFIG_DIR, CustomMechanism, import_function
from .laplace import ClippedSum, LaplaceCount, LaplaceStateSum, LaplaceSum
from .noisy import NoisyQueryMechanism


EPSILON = Key("float", doc="the DP parameter of the mechanism", rule="> 0")
#: the noise law of a query mechanism (keys added after bdpsim 0.1: hashed only when set)
NOISE_KEYS = {"noise": Key("str", "laplace", hashed=False, doc="the additive noise law",
                          rule="a registered noise law (bdpsim.kernels.noise.laws.NOISE_LAWS)"),
              "sigma": Key("float", hashed=False, doc="Gaussian noise: its standard deviation", rule="> 0"),
              "staircase_gamma": Key("float", hashed=False, doc="staircase noise: its gamma (absent: gamma*)",
                                     rule="in [0, 1]")}
TABLE_KEYS = ("noise_table", "noise_pmf", "noise_offset", "noise_tail_ratio")  # noise = "table" (issue 30)
NOISE_KEYS.update({
    "noise_table": Key("str", hashed=False, doc="table noise: a JSON file {offset, pmf, tail_ratio}",
                       rule="a readable JSON file; exclusive with noise_pmf"),
    "noise_pmf": Key("vector", sweep=False, hashed=False, doc="table noise: masses at offset, offset + 1, ...",
                     rule="non-negative numbers; with the tails they sum to 1"),
    "noise_offset": Key("int", hashed=False, doc="table noise: the integer where noise_pmf starts",
                        rule="an integer (default 0)"),
    "noise_tail_ratio": Key("float", hashed=False, doc="table noise: geometric ratio of both tails (default 0)",
                            rule="in [0, 1)")})


#: the ``[mechanism]`` key of each noise kernel parameter whose name differs (the others are
#: ``mechanism.<parameter>``): :func:`bdpsim.kernels.noise.laws.noise_from_params`,
#: :func:`~bdpsim.kernels.noise.table.table_from_params`, :func:`~bdpsim.kernels.chains.lattice.lattice`
NOISE_FIELDS = {"name": "mechanism.noise", "table": "mechanism.noise_table", "pmf": "mechanism.noise_pmf",
                "offset": "mechanism.noise_offset", "tail_ratio": "mechanism.noise_tail_ratio",
                "values": "mechanism.state_values"}


def _noisy(params: dict, query, kind: str, step: float | None):
    """``query + noise`` for a noise law other than Laplace (``step``: the query's lattice step, or
    ``None`` for a continuous query, which geometric noise cannot serve)."""
    name = params["noise"]
    law = NOISE_LAWS.get(name)
    if law is not None and law.discrete:  # a lattice law (geometric, table) serves lattice-valued queries only
        check(step is not None, "mechanism.noise", name, f"{name} noise needs a lattice-valued query, not {kind}")
    table = None
    if law is TableNoise:  # a user's pmf, read from its own keys
        pmf = params.get("noise_pmf")
        check((params.get("noise_table") is None) != (pmf is None), "mechanism.noise_pmf", pmf,
              "table noise needs exactly one of mechanism.noise_table (a JSON file) and mechanism.noise_pmf")
        with naming("mechanism", NOISE_FIELDS):
            table = table_from_params(*(params.get(k) for k in TABLE_KEYS), config_dir=CONFIG_DIR.get())
    else:
        for k in TABLE_KEYS:
            check(params.get(k) is None, f"mechanism.{k}", params.get(k), "is a parameter of table noise "
                  "(set mechanism.noise = \"table\")")
    with naming("mechanism", NOISE_FIELDS):
        noise = noise_from_params(name, epsilon=params.get("epsilon"), sensitivity=query.sensitivity,
                                  sigma=params.get("sigma"), staircase_gamma=params.get("staircase_gamma"),
                                  step=step or 1.0, table=table)
    return NoisyQueryMechanism(query, noise, kind)


def _laplace(params: dict) -> bool:
    """Whether the mechanism adds Laplace noise (the classes of :mod:`.laplace`); an unknown noise
    law is a one-line error."""
    law = NOISE_LAWS.get(params["noise"])
    check(law is not None, "mechanism.noise", params["noise"], f"must be one of {list(NOISE_LAWS)}")
    if law is not LaplaceNoise:
        return False
    for k in ("sigma", "staircase_gamma") + TABLE_KEYS:
        check(params.get(k) is None, f"mechanism.{k}", params.get(k), "is a parameter of another noise law "
              "than laplace (set mechanism.noise)")
    return True


def _discrete_states(spec) -> int | None:
    """The number of states of a discrete model (``None`` for real-valued records)."""
    return spec.probe().states if spec.owner is not None and spec.owner.domain == "discrete" else None


def state_codes(values) -> tuple[int, ...]:
    """Counted states as integer codes; genotype names (``"BB"``, ``"Bb"``, ``"bb"``) map to 0, 1, 2."""
    if any(isinstance(v, str) for v in values):
        from ..models.pedigree.model import genotype_states
        return genotype_states(list(values))
    return tuple(values)


class CountKind(MechanismKind):
    name = "count"
    example = {"model": {"kind": "markov", "n": 4, "gamma": 3.0}, "mechanism": {"epsilon": 1.0}}
    doc = "count of records in counted_states + Lap(1/epsilon)"
    keys = {"epsilon": EPSILON, "counted_states": Key("state_vector", [1], doc="the states the query counts", rule="distinct states of the model"), **NOISE_KEYS}
    domain = "discrete"

    def build(self, params: dict, spec):
        if not _laplace(params):
            mech = _noisy(params, CountQuery(state_codes(params["counted_states"])), self.name, 1.0)
        else:
            mech = LaplaceCount(required(params, "epsilon"), state_codes(params["counted_states"]))
        if (s := _discrete_states(spec)) is not None:
            mech.query_function.check_states(s)
        return mech


class ClippedSumKind(MechanismKind):
    name = "clipped_sum"
    example = {"model": {"kind": "gaussian", "n": 3, "rho": 0.3}, "mechanism": {"epsilon": 1.0}}
    doc = "sum of records clipped to clip + Lap((high - low)/epsilon)"
    keys = {"epsilon": EPSILON, "clip": Key("vector", [0.0, 10.0], doc="the clip range [low, high] of each record", rule="two numbers, low < high"), **NOISE_KEYS}
    domain = "real"

    def hints(self, params: dict) -> dict:
        return {"value_range": ClippedSumQuery(tuple(params["clip"])).clip}  # validated here, first

    def build(self, params: dict, spec):
        if not _laplace(params):
            return _noisy(params, ClippedSumQuery(tuple(params["clip"])), self.name, None)
        return ClippedSum(required(params, "epsilon"), tuple(params["clip"]))


class SumKind(MechanismKind):
    name = "sum"
    example = {"model": {"kind": "markov", "n": 4, "gamma": 3.0}, "mechanism": {"epsilon": 1.0, "state_values": [0.0, 2.5]}}
    doc = ("Gaussian: unclipped sum + Lap(noise_scale), targets target_values; discrete models: "
           "sum of state_values + Lap((max - min)/epsilon) or Lap(noise_scale)")
    keys = {"noise_scale": Key("float", doc="the noise scale (absent: from epsilon)", rule="> 0"),
            "target_values": Key("vector", [0.0, 10.0], doc="the range real-valued targets x, x' take",
                                 rule="two numbers, low < high"),
            "state_values": Key("vector", hashed=False, doc="on a chain: each state's value (the query sums them)",
                                rule="one finite number per state"),
            "epsilon": EPSILON, **NOISE_KEYS}
    domain = "any"

    def hints(self, params: dict) -> dict:
        return {"value_range": tuple(sorted(params["target_values"]))}

    def build(self, params: dict, spec):
        states = _discrete_states(spec)
        values = params.get("state_values")
        if states is not None:
            check(values is not None, "mechanism.state_values", None,
                  f"a sum on a {spec.kind} model needs state_values (one query value per state)")
            if not _laplace(params):
                query = StateSumQuery(tuple(values))
                query.check_states(states)
                with naming("mechanism", NOISE_FIELDS):
                    step = lattice(query.per_state(states))[1]
                return _noisy(params, query, self.name, step)
            mech = LaplaceStateSum(tuple(values), params["epsilon"], params["noise_scale"])
            mech.query_function.check_states(states)
            return mech
        check(values is None, "mechanism.state_values", values,
              "is for discrete models (Markov chains, pedigrees)")
        check(_laplace(params), "mechanism.noise", params["noise"],
              "an unclipped sum takes laplace noise (noise_scale) only")
        check(params["epsilon"] is None, "mechanism.epsilon", params["epsilon"],
              "an unclipped sum is not eps-DP: give noise_scale (or state_values for a discrete model)")
        return LaplaceSum(required(params, "noise_scale"), tuple(params["target_values"]))


class PythonKind(MechanismKind):
    name = "python"
    doc = "a user function 'module:function' (data, rng) -> outputs"
    keys = {"function": Key("str", doc="the mechanism, 'module:function' taking (data, rng)", rule="an importable callable"), "epsilon": EPSILON}
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
